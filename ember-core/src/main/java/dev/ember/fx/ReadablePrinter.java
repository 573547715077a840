package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The graph as Java-like code, the form users read first (torch's {@code print_readable}): a class
 * with a typed {@code forward}, one statement per node with its type in a trailing comment (aligned
 * within each block), and above each block of nodes traced from one source line, that line:
 * <pre>
 * class GraphModule {
 *     Tensor forward(Tensor x &#47;* f32[3, 4] *&#47;, Tensor y &#47;* f32[3, 4] *&#47;) {
 *         // MyApp.java:13  Tensor z = x.add(y).relu();
 *         Tensor add = aten.add.Tensor(x, y);    // f32[3, 4]
 *         Tensor relu = aten.relu.default(add);  // f32[3, 4]
 *         return relu;
 *     }
 * }
 * </pre>
 * It is meant for people; {@link JavaSourceGen} writes source that compiles.
 */
final class ReadablePrinter {
    /** Statements longer than this do not push the type column of the others further right. */
    private static final int MAX_ALIGN = 88;
    private static final String INDENT = "        ";

    private ReadablePrinter() {}

    static String print(Graph g, String className) {
        List<String> params = new ArrayList<>();
        List<Line> body = new ArrayList<>();
        String returnType = "void";
        String lastGroup = null;
        for (Node n : g.nodes()) {
            switch (n.kind()) {
                case PLACEHOLDER -> {
                    String type = ValueTypes.describe(n);
                    // an int input whose value is a size symbol: Dynamo's "Sym(s0)"
                    if (type != null && n.meta().get(SizeSymbols.INT_SYMBOL) instanceof dev.ember.tensor.SymInt e) type += " = Sym(" + e + ")";
                    params.add(ValueTypes.javaType(n.val()) + " " + n.name() + (type == null ? "" : " /* " + type + " */"));
                }
                case OUTPUT -> {
                    returnType = returnType(n.arg(0));
                    body.add(new Line("return " + (n.arg(0) instanceof List<?> l ? "List.of(" + args(l) + ")" : expr(n.arg(0))) + ";", null));
                }
                default -> {
                    String group = groupOf(n.sourceLocation());
                    if (!Objects.equals(group, lastGroup)) {
                        if (!body.isEmpty()) body.add(new Line("", null));
                        body.add(new Line(group == null ? "// no source line for the following nodes" : sourceComment(n.sourceLocation()), null));
                        lastGroup = group;
                    }
                    String type = n.val() == null ? "var" : ValueTypes.javaType(n.val());
                    body.add(new Line(type + " " + n.name() + " = " + call(n) + ";", ValueTypes.describe(n)));
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("class ").append(className).append(" {\n");
        sb.append("    ").append(returnType).append(" forward(").append(String.join(", ", params)).append(") {\n");
        int column = 0;
        for (int i = 0; i < body.size(); i++) {
            Line l = body.get(i);
            if (i == 0 || l.code.isEmpty()) column = typeColumn(body, l.code.isEmpty() ? i + 1 : i);
            if (l.code.isEmpty()) { sb.append('\n'); continue; }
            sb.append(INDENT).append(l.code);
            if (l.comment != null) sb.append(" ".repeat(Math.max(column - l.code.length(), 0) + 2)).append("// ").append(l.comment);
            sb.append('\n');
        }
        return sb.append("    }\n}\n").toString();
    }

    /** Where the type comments of the block starting at {@code from} (up to the next blank line) line up. */
    private static int typeColumn(List<Line> body, int from) {
        int column = 0;
        for (int i = from; i < body.size() && !body.get(i).code.isEmpty(); i++) {
            Line l = body.get(i);
            if (l.comment != null && l.code.length() <= MAX_ALIGN) column = Math.max(column, l.code.length());
        }
        return column;
    }

    private record Line(String code, String comment) {}

    /** Nodes traced from the same line of the same method share one comment. */
    private static String groupOf(SourceLocation loc) {
        return loc == null ? null : loc.className() + "#" + loc.methodName() + "@" + loc.fileAndLine();
    }

    private static String sourceComment(SourceLocation loc) {
        String text = loc.sourceText();
        return "// " + loc.fileAndLine() + (text != null && !text.isBlank() ? "  " + text.strip() : " in " + loc.methodName());
    }

    private static String returnType(Object out) {
        if (out instanceof Node n) return ValueTypes.javaType(n.val());
        if (out instanceof List<?> l) {
            boolean tensors = l.stream().allMatch(x -> x instanceof Node n && n.val() instanceof Tensor);
            return tensors ? "List<Tensor>" : "List<Object>";
        }
        return ValueTypes.javaType(out);
    }

    private static String call(Node n) {
        List<Object> a = n.args();
        return switch (n.kind()) {
            case CALL_FUNCTION -> switch (n.target()) {
                case OpOverload op -> op.name() + "(" + args(a, n.kwargs()) + ")";
                case GraphFunction fn -> fn.render(a.stream().map(ReadablePrinter::expr).toList());
                default -> throw new IllegalStateException("unexpected target " + n.target());
            };
            case CALL_METHOD -> expr(a.get(0)) + "." + n.target() + "(" + args(a.subList(1, a.size()), n.kwargs()) + ")";
            case CALL_MODULE -> "this." + n.target() + ".forward(" + args(a, n.kwargs()) + ")";
            case GET_ATTR -> "this." + n.target();
            default -> throw new IllegalStateException("not a statement: " + n.kind());
        };
    }

    private static String args(List<?> a) { return args(a, Map.of()); }

    private static String args(List<?> a, Map<String, Object> kwargs) {
        List<String> out = new ArrayList<>();
        for (Object x : a) out.add(expr(x));
        kwargs.forEach((k, v) -> out.add("/* " + k + "= */ " + expr(v)));
        return String.join(", ", out);
    }

    /** An argument as a Java reader expects it; integers without the {@code L} the exact source needs. */
    private static String expr(Object a) {
        return switch (a) {
            case null -> "null";
            case Node n -> n.name();
            case List<?> l -> "List.of(" + args(l) + ")";
            case Long v -> v.toString();
            case Integer v -> v.toString();
            case Double v -> JavaLiterals.doubleLiteral(v);
            case Float v -> JavaLiterals.floatLiteral(v);
            case DType d -> "DType." + d.name();
            case String s -> JavaLiterals.string(s);
            case int[] arr -> "new int[] {" + String.join(", ", java.util.Arrays.stream(arr).mapToObj(Integer::toString).toList()) + "}";
            case long[] arr -> "new long[] {" + String.join(", ", java.util.Arrays.stream(arr).mapToObj(Long::toString).toList()) + "}";
            case double[] arr -> "new double[] {" + String.join(", ", java.util.Arrays.stream(arr).mapToObj(JavaLiterals::doubleLiteral).toList()) + "}";
            case boolean[] arr -> {
                List<String> items = new ArrayList<>();
                for (boolean b : arr) items.add(Boolean.toString(b));
                yield "new boolean[] {" + String.join(", ", items) + "}";
            }
            case Tensor t -> "<constant " + t.meta().describe() + ">";
            default -> a.toString();
        };
    }
}
