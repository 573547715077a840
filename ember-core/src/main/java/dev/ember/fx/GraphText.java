package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A graph as text that parses back into the same graph: what a minifier launcher keeps on disk.
 * One node per line in FX's own notation ({@code format_node}), each value typed the way Java
 * writes it so that a {@code Long} comes back a {@code Long} and an {@code int[]} an {@code int[]}:
 * <pre>
 * %x = placeholder[x]                                          # f32[4, 8]
 * %w = get_attr[linear.weight]                                 # f32[8, 8]
 * %add = call_function[aten.add.Tensor](%x, %w, alpha=1L)      # f32[4, 8]
 * %sum = call_function[aten.sum.dim_IntList](%add, [1L], true) # f32[4, 1]
 * %sin = call_method[sin](%sum)
 * return [%add, %sin]
 * </pre>
 * Values: {@code %name} (a node), {@code null}, {@code true}/{@code false}, {@code 3} (Integer),
 * {@code 3L} (Long), {@code 1.5} (Double), {@code 1.5f} (Float), {@code "text"}, {@code DType.FLOAT32},
 * {@code [a, b]} (a List), {@code int[]{1, 2}}, {@code long[]{1L}}, {@code double[]{0.5}}; everything
 * after {@code #} is a comment (the printer puts the value's type and source line there; a source
 * line written as {@code File.java:12 in method} is read back into the node's location).
 * The printed readable form ({@link GraphModule#code()}) is for people and loses these types; this
 * form is for files. Nodes that cannot be written (a module call, a live function, a tensor
 * constant in the arguments) are refused with the node named.
 */
public final class GraphText {
    private GraphText() {}

    /**
     * Thrown by {@link #parse} and {@link Graph#parse} for text that is not a graph: names the line
     * (and for the readable form the column) and what was expected.
     */
    public static final class ParseError extends IllegalArgumentException {
        ParseError(int line, String text, String problem) {
            super("line " + line + ": " + problem + "\n    " + text.strip());
        }

        /** {@code line 3, col 12: unknown op aten.foo.bar}, then the line with a caret under the column. */
        ParseError(int line, int column, String text, String problem) {
            super("line " + line + ", col " + column + ": " + problem + "\n    " + text + "\n    " + " ".repeat(Math.max(column - 1, 0)) + "^");
        }
    }

    /** The graph as text; refuses nodes that cannot be parsed back. */
    public static String write(Graph g) {
        List<String[]> lines = new ArrayList<>();
        for (Node n : g.nodes()) {
            String code = switch (n.kind()) {
                case PLACEHOLDER, GET_ATTR -> "%" + n.name() + " = " + n.kind().opcode() + "[" + n.target() + "]";
                case CALL_FUNCTION, CALL_METHOD -> "%" + n.name() + " = " + n.kind().opcode() + "[" + target(n) + "](" + args(n) + ")";
                case CALL_MODULE -> throw new IllegalArgumentException("cannot write node '" + n + "' as text: it calls module '" + n.target()
                        + "', a live object; only graphs of ops (Ember inlines modules by default) can be saved");
                case OUTPUT -> "return " + value(n.arg(0), n);
            };
            lines.add(new String[] {code, comment(n)});
        }
        int column = lines.stream().filter(l -> !l[1].isEmpty()).mapToInt(l -> l[0].length()).filter(w -> w <= 100).max().orElse(0);
        StringBuilder sb = new StringBuilder();
        for (String[] l : lines) {
            sb.append(l[0]);
            if (!l[1].isEmpty()) sb.append(" ".repeat(Math.max(column - l[0].length(), 0) + 2)).append("# ").append(l[1]);
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String target(Node n) {
        return switch (n.target()) {
            case OpOverload op when !OpRegistry.isRegistered(op) -> throw new IllegalArgumentException("cannot write node '" + n + "' as text: it calls "
                    + op.name() + ", an op only this process knows (a traced CustomFunction)");
            case OpOverload op -> op.name();
            case GraphFunction fn when fn == BuiltinFunctions.GETITEM -> fn.qualifiedName();
            case GraphFunction fn -> throw new IllegalArgumentException("cannot write node '" + n + "' as text: it calls " + fn.qualifiedName()
                    + ", a function only this process knows");
            case Object o -> o.toString();
        };
    }

    private static String args(Node n) {
        List<String> out = new ArrayList<>();
        for (Object a : n.args()) out.add(value(a, n));
        n.kwargs().forEach((k, v) -> out.add(k + "=" + value(v, n)));
        return String.join(", ", out);
    }

    private static String comment(Node n) {
        String type = ValueTypes.describe(n.val());
        SourceLocation loc = n.sourceLocation();
        String where = loc == null ? "" : loc.fileAndLine() + " in " + loc.methodName();
        return ((type == null ? "" : type) + (type != null && !where.isEmpty() ? "  " : "") + where);
    }

    private static String value(Object v, Node owner) {
        return switch (v) {
            case null -> "null";
            case Node n -> "%" + n.name();
            case Boolean b -> b.toString();
            case Integer i -> i.toString();
            case Long l -> l + "L";
            case Double d -> doubleText(d);
            case Float f -> f + "f";
            case String s -> JavaLiterals.string(s);
            case DType d -> "DType." + d.name();
            case List<?> l -> "[" + String.join(", ", l.stream().map(x -> value(x, owner)).toList()) + "]";
            case dev.ember.tensor.SymInt e -> "sym(" + e + ")";
            case int[] a -> "int[]{" + String.join(", ", java.util.Arrays.stream(a).mapToObj(Integer::toString).toList()) + "}";
            case long[] a -> "long[]{" + String.join(", ", java.util.Arrays.stream(a).mapToObj(x -> x + "L").toList()) + "}";
            case double[] a -> "double[]{" + String.join(", ", java.util.Arrays.stream(a).mapToObj(GraphText::doubleText).toList()) + "}";
            default -> throw new IllegalArgumentException("cannot write node '" + owner + "' as text: argument " + v.getClass().getSimpleName()
                    + " " + v + " has no text form");
        };
    }

    /** Round-trips exactly ({@link Double#toString}); non-finite values by name. */
    private static String doubleText(double d) {
        if (Double.isNaN(d)) return "NaN";
        if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
        return Double.toString(d);
    }

    /**
     * The graph {@code text} describes. Ops are looked up by name in the op registry; every node
     * argument must name a node defined on an earlier line.
     *
     * @throws ParseError naming the line and the problem
     */
    public static Graph parse(String text) {
        Graph g = new Graph();
        Map<String, Node> byName = new HashMap<>();
        String[] lines = text.split("\n", -1);
        boolean returned = false;
        for (int i = 0; i < lines.length; i++) {
            String line = stripComment(lines[i]).strip();
            if (line.isEmpty()) continue;
            if (returned) throw new ParseError(i + 1, lines[i], "nothing may follow the return line");
            try {
                Node n = parseLine(g, byName, new Cursor(line));
                returned = n == null;
                if (n != null) n.setSourceLocation(location(lines[i]));
            } catch (ParseError e) {
                throw e;
            } catch (StringIndexOutOfBoundsException e) {
                throw new ParseError(i + 1, lines[i], "the line ends in the middle of a node");
            } catch (RuntimeException e) {
                throw new ParseError(i + 1, lines[i], e.getMessage());
            }
        }
        if (!returned) throw new ParseError(lines.length, "", "the graph has no 'return' line");
        return g;
    }

    /** The node the line defines, or null for the return line. */
    private static Node parseLine(Graph g, Map<String, Node> byName, Cursor c) {
        if (c.eatWord("return")) {
            Object out = c.value(byName);
            c.end();
            g.output(out);
            return null;
        }
        c.expect('%');
        String name = c.identifier();
        if (byName.containsKey(name)) throw new IllegalArgumentException("node '" + name + "' is defined twice");
        c.expect('=');
        String kind = c.identifier();
        c.expect('[');
        String target = c.until(']');
        Node n = switch (kind) {
            case "placeholder" -> g.createNode(NodeKind.PLACEHOLDER, target, List.of(), Map.of(), name);
            case "get_attr" -> g.createNode(NodeKind.GET_ATTR, target, List.of(), Map.of(), name);
            case "call_function", "call_method" -> {
                List<Object> args = new ArrayList<>();
                Map<String, Object> kwargs = new LinkedHashMap<>();
                c.expect('(');
                c.arguments(byName, args, kwargs);
                Object fn = kind.equals("call_method") ? target
                        : target.equals(BuiltinFunctions.GETITEM.qualifiedName()) ? BuiltinFunctions.GETITEM : OpRegistry.get(target);
                if (kind.equals("call_method") && args.isEmpty()) throw new IllegalArgumentException("call_method[" + target + "] needs its receiver as the first argument");
                yield g.createNode(kind.equals("call_method") ? NodeKind.CALL_METHOD : NodeKind.CALL_FUNCTION, fn, args, kwargs, name);
            }
            default -> throw new IllegalArgumentException("unknown node kind '" + kind + "'; expected placeholder, get_attr, call_function or call_method");
        };
        c.end();
        if (!n.name().equals(name)) throw new IllegalArgumentException("'" + name + "' is not a usable node name (it would become '" + n.name() + "')");
        byName.put(name, n);
        return n;
    }

    /** {@code Foo.java:12 in fn} at the end of a line's comment, as {@link #write} puts it; null when there is none. */
    private static final java.util.regex.Pattern LOCATION = java.util.regex.Pattern.compile("(\\S+):(\\d+) in (\\S+)\\s*$");

    private static SourceLocation location(String line) {
        String code = stripComment(line);
        if (code.length() == line.length()) return null;
        java.util.regex.Matcher m = LOCATION.matcher(line.substring(code.length() + 1));
        if (!m.find()) return null;
        String file = m.group(1);
        String cls = file.endsWith(".java") ? file.substring(0, file.length() - 5) : file;
        return new SourceLocation(cls, m.group(3), file, Integer.parseInt(m.group(2)), -1, null);
    }

    private static String stripComment(String line) {
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == '\\' && quoted) i++;
            else if (ch == '"') quoted = !quoted;
            else if (ch == '#' && !quoted) return line.substring(0, i);
        }
        return line;
    }

    /** A position in one line of text, reading this form's values. */
    private static final class Cursor extends TextCursor {
        Cursor(String s) { super(s); }

        String until(char close) {
            int end = s.indexOf(close, at);
            if (end < 0) throw new IllegalArgumentException("missing '" + close + "'");
            String out = s.substring(at, end).strip();
            at = end + 1;
            return out;
        }

        void arguments(Map<String, Node> byName, List<Object> args, Map<String, Object> kwargs) {
            if (peek(')')) { at++; return; }
            while (true) {
                skipSpace();
                int mark = at;
                String key = Character.isLetter(s.charAt(at)) ? identifierOrNull() : null;
                if (key != null && peek('=')) {
                    at++;
                    kwargs.put(key, value(byName));
                } else {
                    at = mark;
                    if (!kwargs.isEmpty()) throw new IllegalArgumentException("positional argument after keyword arguments at column " + (at + 1));
                    args.add(value(byName));
                }
                if (peek(',')) { at++; continue; }
                expect(')');
                return;
            }
        }

        private String identifierOrNull() {
            int start = at;
            while (at < s.length() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_')) at++;
            return s.substring(start, at);
        }

        Object value(Map<String, Node> byName) {
            skipSpace();
            if (at >= s.length()) throw new IllegalArgumentException("expected a value at the end of the line");
            char ch = s.charAt(at);
            if (ch == '%') {
                at++;
                String name = identifierOrNull();
                Node n = byName.get(name);
                if (n == null) throw new IllegalArgumentException("'%" + name + "' is not a node defined above");
                return n;
            }
            if (ch == '[') {
                at++;
                List<Object> out = new ArrayList<>();
                if (peek(']')) { at++; return out; }
                while (true) {
                    out.add(value(byName));
                    if (peek(',')) { at++; continue; }
                    expect(']');
                    return out;
                }
            }
            if (ch == '"') return string();
            if (s.startsWith("sym(", at)) {
                at += 4;
                return dev.ember.tensor.SymInt.parse(until(')'));
            }
            for (String prefix : List.of("int[]{", "long[]{", "double[]{")) {
                if (s.startsWith(prefix, at)) {
                    at += prefix.length();
                    List<String> items = new ArrayList<>();
                    for (String item : until('}').split(",")) if (!item.isBlank()) items.add(item.strip());
                    return switch (prefix) {
                        case "int[]{" -> items.stream().mapToInt(Integer::parseInt).toArray();
                        case "long[]{" -> items.stream().mapToLong(x -> Long.parseLong(x.substring(0, x.length() - 1))).toArray();
                        default -> items.stream().mapToDouble(Double::parseDouble).toArray();
                    };
                }
            }
            int start = at;
            while (at < s.length() && ",)] ".indexOf(s.charAt(at)) < 0) at++;
            return literal(s.substring(start, at));
        }

        private static Object literal(String t) {
            switch (t) {
                case "null": return null;
                case "true": return Boolean.TRUE;
                case "false": return Boolean.FALSE;
                case "NaN": return Double.NaN;
                case "Infinity": return Double.POSITIVE_INFINITY;
                case "-Infinity": return Double.NEGATIVE_INFINITY;
                default: break;
            }
            if (t.startsWith("DType.")) return DType.valueOf(t.substring(6));
            try {
                if (t.endsWith("L")) return Long.parseLong(t.substring(0, t.length() - 1));
                if (t.endsWith("f")) return Float.parseFloat(t.substring(0, t.length() - 1));
                if (t.contains(".") || t.contains("E")) return Double.parseDouble(t);
                return Integer.parseInt(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + t + "' is not a value (a %node, number, string, DType, list or array)");
            }
        }
    }
}
