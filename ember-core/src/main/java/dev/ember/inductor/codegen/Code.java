package dev.ember.inductor.codegen;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * Statements being built, with nesting: {@code open…} starts a loop or block whose body the
 * following calls fill, {@link #close} ends it. The result is a list of {@link JStmt}.
 */
final class Code {
    private record Open(List<JStmt> body, Function<List<JStmt>, JStmt> close) {}

    private final Deque<Open> open = new ArrayDeque<>();

    Code() { open.push(new Open(new ArrayList<>(), null)); }

    Code add(JStmt s) {
        open.peek().body().add(s);
        return this;
    }

    /** Declares {@code name} with value {@code init}, and returns it for later use. */
    JExpr.Local declare(JType type, String name, JExpr init) {
        JExpr.Local l = new JExpr.Local(name, type);
        add(new JStmt.Declare(l, init));
        return l;
    }

    Code assign(JExpr.Local l, JExpr value) { return add(new JStmt.Assign(l, value)); }

    Code store(JExpr array, JExpr index, JExpr value) { return add(new JStmt.ArrayStore(array, index, value)); }

    Code eval(JExpr call) { return add(new JStmt.Eval(call)); }

    Code comment(String text) { return add(new JStmt.Comment(text)); }

    Code blank() { return add(new JStmt.Blank()); }

    Code openBlock() { return open(JStmt.Block::new); }

    Code openIf(JExpr cond) { return open(body -> new JStmt.If(cond, body)); }

    Code openFor(JStmt init, JExpr cond, JStmt.Assign update) { return open(body -> new JStmt.For(init, cond, update, body)); }

    Code openParallel(JExpr n, JExpr cost, JExpr.Local lo, JExpr.Local hi) {
        return open(body -> new JStmt.ParallelRange(n, cost, lo, hi, body));
    }

    private Code open(Function<List<JStmt>, JStmt> close) {
        open.push(new Open(new ArrayList<>(), close));
        return this;
    }

    /** Ends the innermost open loop or block. */
    Code close() {
        Open o = open.pop();
        if (o.close() == null) throw new IllegalStateException("close() without open");
        return add(o.close().apply(List.copyOf(o.body())));
    }

    /** Adds the statements of {@code other} (which has nothing open). */
    Code append(Code other) {
        for (JStmt s : other.statements()) add(s);
        return this;
    }

    List<JStmt> statements() {
        if (open.size() != 1) throw new IllegalStateException(open.size() - 1 + " blocks left open");
        return List.copyOf(open.peek().body());
    }
}
