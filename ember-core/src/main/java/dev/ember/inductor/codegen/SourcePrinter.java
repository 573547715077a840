package dev.ember.inductor.codegen;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Prints a {@link JClass} as Java source: what {@code output_code} shows. It is the same model the
 * bytecode is written from; conversions Java applies by itself are left out, parentheses are added
 * only where precedence needs them.
 */
final class SourcePrinter {
    private final StringBuilder sb = new StringBuilder();
    private int depth;

    static String print(JClass c) {
        SourcePrinter p = new SourcePrinter();
        p.cls(c);
        return p.sb.toString();
    }

    private void line(String s) { sb.append("    ".repeat(depth)).append(s).append('\n'); }

    private void open(String s) {
        line(s);
        depth++;
    }

    private void close(String s) {
        depth--;
        line(s);
    }

    private void cls(JClass c) {
        line("package " + c.packageName() + ";");
        sb.append('\n');
        for (String i : Imports.of(c)) line("import " + i + ";");
        sb.append('\n');
        line("/** " + c.doc() + " */");
        open("final class " + c.simpleName() + " {");
        for (JClass.Field f : c.fields()) line("private static final " + f.type().source() + " " + f.name() + " = " + expr(f.init(), 0) + ";");
        sb.append('\n');
        for (JClass.Method m : c.methods()) {
            if (m.doc() != null) line("/** " + m.doc() + " */");
            String params = m.params().stream().map(p -> p.type().source() + " " + p.name()).collect(Collectors.joining(", "));
            open((m.isPublic() ? "public " : "") + "static " + m.returnType().source() + " " + m.name() + "(" + params + ") {");
            statements(m.body());
            close("}");
            if (m != c.methods().getLast()) sb.append('\n');
        }
        close("}");
    }

    private void statements(List<JStmt> body) { for (JStmt s : body) statement(s); }

    private void statement(JStmt s) {
        switch (s) {
            case JStmt.Declare d when Calls.throwsChecked(d.init()) -> {
                line(d.local().type().source() + " " + d.local().name() + ";");
                line("try { " + d.local().name() + " = " + expr(d.init(), 0) + "; } catch (Throwable thrown) { throw new AssertionError(thrown); }");
            }
            case JStmt.Declare d -> line(declaration(d) + ";");
            case JStmt.Assign a -> line(a.local().name() + " = " + expr(a.value(), 0) + ";");
            case JStmt.ArrayStore a -> line(expr(a.array(), 16) + "[" + expr(a.index(), 0) + "] = " + expr(a.value(), 0) + ";");
            case JStmt.Eval e -> line(expr(e.expr(), 0) + ";");
            case JStmt.For f -> {
                open("for (" + switch (f.init()) {
                    case null -> "";
                    case JStmt.Declare d -> declaration(d);
                    case JStmt.Assign a -> update(a);
                    default -> throw new IllegalArgumentException("a for loop starts with a declaration or an assignment: " + f.init());
                } + "; " + expr(f.cond(), 0) + "; " + update(f.update()) + ") {");
                statements(f.body());
                close("}");
            }
            case JStmt.If f -> {
                open("if (" + expr(f.cond(), 0) + ") {");
                statements(f.body());
                close("}");
            }
            case JStmt.Block b -> {
                open("{");
                statements(b.body());
                close("}");
            }
            case JStmt.Return r -> line(r.value() == null ? "return;" : "return " + expr(r.value(), 0) + ";");
            case JStmt.ParallelRange p -> {
                open("Parallel.forRange(" + expr(p.n(), 0) + ", " + expr(p.cost(), 0) + ", (" + p.lo().name() + ", " + p.hi().name() + ") -> {");
                statements(p.body());
                close("});");
            }
            case JStmt.Comment c -> line("// " + c.text());
            case JStmt.Blank b -> sb.append('\n');
        }
    }

    private String declaration(JStmt.Declare d) { return d.local().type().source() + " " + d.local().name() + " = " + expr(d.init(), 0); }

    /** {@code i++}, {@code i += F.length()}. */
    private String update(JStmt.Assign a) {
        if (a.value() instanceof JExpr.Arith(JExpr.ArithOp op, JExpr x, JExpr by) && op == JExpr.ArithOp.ADD && x.equals(a.local())) {
            return by instanceof JExpr.Lit(Integer one, JType t) && one == 1 ? a.local().name() + "++" : a.local().name() + " += " + expr(by, 0);
        }
        return a.local().name() + " = " + expr(a.value(), 0);
    }

    // ------------------------------------------------------------------ expressions

    /** Java's precedence levels, higher binds tighter. */
    private static int precedence(JExpr e) {
        return switch (e) {
            case JExpr.Cond c -> 1;
            case JExpr.Arith a -> switch (a.op()) {
                case OR -> 5;
                case XOR -> 6;
                case AND -> 7;
                case ADD, SUB -> 11;
                case MUL, DIV, REM -> 12;
            };
            case JExpr.Compare c -> c.op() == JExpr.CmpOp.EQ || c.op() == JExpr.CmpOp.NE ? 8 : 9;
            case JExpr.Neg n -> 13;
            case JExpr.Not n -> 13;
            case JExpr.Convert c -> c.implicit() ? precedence(c.x()) : 13;
            case JExpr.Box b -> precedence(b.x());
            case JExpr.Lit l -> literal(l).startsWith("-") ? 13 : 16;
            case JExpr.New n -> 15;
            case JExpr.NewArray n -> 15;
            case JExpr.ArrayOf a -> 15;
            default -> 16;
        };
    }

    /** {@code e} as source, in parentheses when it binds looser than {@code min}. */
    private static String expr(JExpr e, int min) {
        String s = switch (e) {
            case JExpr.Local l -> l.name();
            case JExpr.Lit l -> literal(l);
            case JExpr.ArrayLoad a -> expr(a.array(), 16) + "[" + expr(a.index(), 0) + "]";
            case JExpr.Arith a -> expr(a.a(), precedence(a)) + " " + a.op().symbol + " " + expr(a.b(), precedence(a) + 1);
            case JExpr.Compare c -> expr(c.a(), precedence(c) + 1) + " " + c.op().symbol + " " + expr(c.b(), precedence(c) + 1);
            case JExpr.Neg n -> "-" + unaryOperand(n.x());
            case JExpr.Not n -> "!" + unaryOperand(n.x());
            case JExpr.Cond c -> expr(c.cond(), 2) + " ? " + expr(c.a(), 2) + " : " + expr(c.b(), 1);
            case JExpr.Convert c -> c.implicit() ? expr(c.x(), min) : "(" + c.type().source() + ") " + expr(c.x(), 13);
            case JExpr.Box b -> expr(b.x(), min);
            case JExpr.Invoke i -> (i.receiver() != null ? expr(i.receiver(), 16) + "." : i.owner() == null ? "" : i.owner().source() + ".")
                    + i.name() + "(" + arguments(i) + ")";
            case JExpr.GetStatic g -> g.owner() == null ? g.name() : g.owner().source() + "." + g.name();
            case JExpr.New n -> "new " + n.type().source() + "(" + list(n.args()) + ")";
            case JExpr.NewArray n -> "new " + n.type().component().source() + "[" + expr(n.size(), 0) + "]";
            case JExpr.ArrayOf a -> "new " + a.type().source() + " {" + list(a.elements()) + "}";
        };
        return precedence(e) < min ? "(" + s + ")" : s;
    }

    private static String unaryOperand(JExpr x) {
        String s = expr(x, 13);
        return s.startsWith("-") || s.startsWith("!") ? "(" + s + ")" : s;
    }

    private static String arguments(JExpr.Invoke i) {
        if (!i.varargs()) return list(i.args());
        List<JExpr> fixed = i.args().subList(0, i.args().size() - 1);
        JExpr.ArrayOf rest = (JExpr.ArrayOf) i.args().getLast();
        return list(java.util.stream.Stream.concat(fixed.stream(), rest.elements().stream()).toList());
    }

    private static String list(List<JExpr> args) { return args.stream().map(a -> expr(a, 1)).collect(Collectors.joining(", ")); }

    private static String literal(JExpr.Lit l) {
        return switch (l.value()) {
            case null -> "null";
            case Float f -> Float.isNaN(f) ? "Float.NaN" : Float.isInfinite(f) ? (f > 0 ? "Float.POSITIVE_INFINITY" : "Float.NEGATIVE_INFINITY") : f + "f";
            case Double d -> Double.isNaN(d) ? "Double.NaN" : Double.isInfinite(d) ? (d > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY") : d.toString();
            case Long v -> v + "L";
            case String s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
            default -> l.value().toString();
        };
    }
}
