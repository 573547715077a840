package dev.ember.inductor.codegen;

import java.util.List;

/** A statement of generated code. */
sealed interface JStmt {
    record Declare(JExpr.Local local, JExpr init) implements JStmt {}

    record Assign(JExpr.Local local, JExpr value) implements JStmt {}

    record ArrayStore(JExpr array, JExpr index, JExpr value) implements JStmt {}

    /** An expression evaluated for its effect (a call); a value it returns is dropped. */
    record Eval(JExpr expr) implements JStmt {}

    /** {@code for (init; cond; update) { body }}; {@code init} may be null. */
    record For(JStmt init, JExpr cond, Assign update, List<JStmt> body) implements JStmt {}

    /** {@code if (cond) { body }}. */
    record If(JExpr cond, List<JStmt> body) implements JStmt {}

    /** {@code { body }}: a scope. */
    record Block(List<JStmt> body) implements JStmt {}

    /** {@code return value;} ({@code value} null in a void method). */
    record Return(JExpr value) implements JStmt {}

    /**
     * {@code Parallel.forRange(n, cost, (lo, hi) -> { body })}: the body runs for sub-ranges
     * {@code [lo, hi)} of {@code [0, n)}, on several cores. Locals of the enclosing method it reads
     * are captured (they are never assigned after the call starts).
     */
    record ParallelRange(JExpr n, JExpr cost, JExpr.Local lo, JExpr.Local hi, List<JStmt> body) implements JStmt {}

    /** A comment line, for the reader of the source; no bytecode. */
    record Comment(String text) implements JStmt {}

    /** An empty line in the source; no bytecode. */
    record Blank() implements JStmt {}
}
