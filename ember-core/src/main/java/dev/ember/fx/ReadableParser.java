package dev.ember.fx;

import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads the readable form ({@link GraphModule#code()}, what the logs and {@code fx_graph_readable.txt}
 * show) back into a graph that prints the same, so a graph pasted from a log can be run and edited.
 * What the form prints comes back: node names, kinds and targets (ops by their registry name), the
 * arguments (an integer is read as a {@code long}, as traced graphs hold them), each value's type
 * comment as its {@code meta("val")} (a fake tensor of that dtype and shape; symbolic sizes as
 * {@code sym_val}; a scalar type as a zero of it) and each comment line as the source location of the
 * nodes below it. A function only the tracing process knew (a leaf function, a cond) comes back as a
 * call that prints the same and refuses to run. Lines before the {@code class} line (a log's header)
 * are skipped.
 */
final class ReadableParser {
    /** The class name the text gives its module, and the graph. */
    record Parsed(String className, Graph graph) {}

    /** A symbol's value in the example metadata of a value whose sizes are symbolic (the text gives no hint). */
    private static final long SYMBOL_EXAMPLE = 64;
    private static final Pattern SYMBOL = Pattern.compile("\\bs(\\d+)\\b");

    private final String[] lines;
    private int line;
    private TextCursor c;
    private final Graph graph = new Graph();
    private final Map<String, Node> byName = new HashMap<>();
    /** The source location of the nodes the last comment line heads. */
    private SourceLocation location;

    private ReadableParser(String text) { this.lines = text.split("\n", -1); }

    static Parsed parse(String text) { return new ReadableParser(text).module(); }

    /**
     * The size symbols of a parsed graph whose inputs have symbolic sizes, each read from the first
     * input dimension that is exactly it (so the graph runs on inputs of any size), or null when its
     * sizes are static or some symbol is no input's dimension. The text gives no hint: each is
     * {@link #SYMBOL_EXAMPLE}, valid from 2 up.
     */
    static SizeSymbols sizeSymbols(Graph g) {
        TreeSet<Integer> ids = new TreeSet<>();
        for (Node p : g.placeholders()) {
            if (p.meta().get(SizeSymbols.INT_SYMBOL) instanceof SymInt e) ids.add(e.symbolId());
            if (!(p.symVal() instanceof SymShape shape)) continue;
            Matcher m = SYMBOL.matcher(java.util.Arrays.toString(shape.sizes()));
            while (m.find()) ids.add(Integer.parseInt(m.group(1)));
        }
        if (ids.isEmpty() || ids.last() != ids.size() - 1) return null;
        List<SizeSymbols.Symbol> provisional = new ArrayList<>();
        for (int id : ids) provisional.add(new SizeSymbols.Symbol(id, "s" + id, -1, -1, SYMBOL_EXAMPLE, 2, Long.MAX_VALUE));
        try {
            return new SizeSymbols(provisional).readFrom(g.placeholders());
        } catch (IllegalStateException e) {
            return null;
        }
    }

    private Parsed module() {
        while (line < lines.length && !lines[line].strip().startsWith("class ")) line++;
        if (line == lines.length) throw new GraphText.ParseError(1, 1, lines[0], "no 'class GraphModule {' line: the readable form starts with one");
        String className = atLine(() -> {
            c.eatWord("class");
            String name = c.identifier();
            c.expect('{');
            c.end();
            return name;
        });
        atLine(() -> {
            int open = c.s.indexOf(" forward(");
            if (open < 0) throw problem(c.s.length() - c.s.stripLeading().length() + 1, "expected '<type> forward(<inputs>) {'");
            c.at = open + " forward(".length();
            parameters();
            c.expect('{');
            c.end();
            return null;
        });
        boolean returned = false;
        for (; line < lines.length; line++) {
            String text = lines[line].strip();
            if (text.equals("}")) break;
            if (text.isEmpty()) continue;
            if (returned) throw new GraphText.ParseError(line + 1, indentOf(lines[line]) + 1, lines[line], "nothing may follow the return statement");
            returned = atLine(this::statement);
            line--;   // atLine moved past the statement
        }
        if (!returned) {
            throw new GraphText.ParseError(Math.min(line + 1, lines.length), line < lines.length ? indentOf(lines[line]) + 1 : 1,
                    line < lines.length ? lines[line] : "", "forward has no return statement");
        }
        line++;
        while (line < lines.length && lines[line].isBlank()) line++;
        if (line == lines.length || !lines[line].strip().equals("}")) {
            throw new GraphText.ParseError(Math.min(line + 1, lines.length), 1, line < lines.length ? lines[line] : "", "expected '}', the end of the class");
        }
        return new Parsed(className, graph);
    }

    private interface LinePart<T> {
        T read();
    }

    /** Reads the current line with {@code part} and moves to the next; a problem becomes a ParseError naming line and column. */
    private <T> T atLine(LinePart<T> part) {
        String text = lines[line];
        c = new TextCursor(text);
        try {
            T out = part.read();
            line++;
            return out;
        } catch (GraphText.ParseError e) {
            throw e;
        } catch (Problem p) {
            throw new GraphText.ParseError(line + 1, p.column, text, p.getMessage());
        } catch (StringIndexOutOfBoundsException e) {
            throw new GraphText.ParseError(line + 1, text.length() + 1, text, "the line ends in the middle of a statement");
        } catch (RuntimeException e) {
            throw new GraphText.ParseError(line + 1, Math.min(c.at, text.length()) + 1, text, e.getMessage());
        }
    }

    /** A problem at a column of the current line. */
    private static final class Problem extends RuntimeException {
        final int column;

        Problem(int column, String message) {
            super(message, null, false, false);
            this.column = column;
        }
    }

    private static Problem problem(int column, String message) { return new Problem(column, message); }

    private static int indentOf(String s) { return s.length() - s.stripLeading().length(); }

    // ------------------------------------------------------------------ lines

    /** {@code Tensor x /* f32[3, 4] *&#47;, long n /* long *&#47;)} */
    private void parameters() {
        if (c.eat(")")) return;
        while (true) {
            javaType();
            c.skipSpace();
            int at = c.at + 1;
            String name = c.identifier();
            Node p = define(graph.createNode(NodeKind.PLACEHOLDER, name, List.of(), Map.of(), name), name, at);
            if (c.eat("/*")) {
                c.skipSpace();
                int typeAt = c.at + 1;
                String type = until("*/");
                int sym = type.indexOf(" = Sym(");
                if (sym >= 0 && type.endsWith(")")) {
                    p.meta().put(SizeSymbols.INT_SYMBOL, SymInt.parse(type.substring(sym + " = Sym(".length(), type.length() - 1)));
                    type = type.substring(0, sym);
                }
                setValue(p, type, typeAt);
            }
            if (c.eat(",")) continue;
            c.expect(')');
            return;
        }
    }

    /** One line of forward's body; true for the return statement. */
    private boolean statement() {
        c.skipSpace();
        if (c.eat("//")) {
            location = sourceLocation(c.s.substring(c.at).strip());
            return false;
        }
        if (c.eatWord("return")) {
            Object out = value();
            c.expect(';');
            c.end();
            graph.output(out);
            return true;
        }
        javaType();
        c.skipSpace();
        int at = c.at + 1;
        String name = c.identifier();
        c.expect('=');
        Node n = define(call(name), name, at);
        c.expect(';');
        if (c.eat("//")) {
            c.skipSpace();
            setValue(n, c.s.substring(c.at).strip(), c.at + 1);
        } else {
            c.end();
        }
        n.setSourceLocation(location);
        return false;
    }

    private Node define(Node n, String name, int column) {
        if (byName.containsKey(name)) throw problem(column, "'" + name + "' is defined twice");
        if (!n.name().equals(name)) throw problem(column, "'" + name + "' is not a usable node name (it would become '" + n.name() + "')");
        byName.put(name, n);
        return n;
    }

    /** The right-hand side of a statement: an op or function call, a method call, an attribute read or a module call. */
    private Node call(String name) {
        c.skipSpace();
        int at = c.at + 1;
        if (c.eat("this.")) {
            String path = c.identifier();
            if (!c.peek('(')) return graph.createNode(NodeKind.GET_ATTR, path, List.of(), Map.of(), name);
            if (!path.endsWith(".forward")) throw problem(at, "a module call reads this.<path>.forward(…), got this." + path + "(…)");
            Args a = arguments();
            return graph.createNode(NodeKind.CALL_MODULE, path.substring(0, path.length() - ".forward".length()), a.args, a.kwargs, name);
        }
        String callee = c.identifier();
        int dot = callee.indexOf('.');
        Node receiver = dot < 0 ? null : byName.get(callee.substring(0, dot));
        Args a = arguments();
        if (receiver != null) {
            String method = callee.substring(dot + 1);
            if (method.contains(".")) throw problem(at, "'" + callee + "': a method call is <node>.<method>(…)");
            List<Object> args = new ArrayList<>(List.of(receiver));
            args.addAll(a.args);
            if (method.equals("get")) return graph.createNode(NodeKind.CALL_FUNCTION, BuiltinFunctions.GETITEM, args, a.kwargs, name);
            return graph.createNode(NodeKind.CALL_METHOD, method, args, a.kwargs, name);
        }
        return graph.createNode(NodeKind.CALL_FUNCTION, function(callee, at), a.args, a.kwargs, name);
    }

    /** What a call names: an op of the registry, a builtin function, or a function the text can only name. */
    private static Object function(String callee, int column) {
        if (callee.equals("GradMode.setEnabled")) return BuiltinFunctions.SET_GRAD_ENABLED;
        int dot = callee.indexOf('.');
        if (dot > 0 && OpNamespaces.ALL.contains(callee.substring(0, dot))) {
            try {
                return OpRegistry.get(callee);
            } catch (IllegalArgumentException e) {
                throw problem(column, "unknown op " + callee + (e.getMessage().contains("did you mean") ? e.getMessage().substring(e.getMessage().indexOf(';')) : ""));
            }
        }
        if (dot < 0) throw problem(column, "unknown name '" + callee + "': not a node defined above, an op or a function");
        return new NamedFunction(callee);
    }

    /** The namespaces of the registry's ops: a call in one of them must name a registered op. */
    private static final class OpNamespaces {
        static final Set<String> ALL = OpRegistry.all().stream().map(op -> op.schema().namespace()).collect(Collectors.toUnmodifiableSet());
    }

    /**
     * A call of a function only the process that traced the graph knew (a leaf or in-graph function,
     * a cond with its branch graphs): it prints as it was printed, and refuses to run.
     */
    private record NamedFunction(String qualifiedName) implements GraphFunction {
        @Override
        public String name() { return qualifiedName.substring(qualifiedName.lastIndexOf('.') + 1); }

        @Override
        public Object apply(List<Object> args, Map<String, Object> kwargs) {
            throw new UnsupportedOperationException(qualifiedName + " cannot run here: the graph was read from text, and " + qualifiedName
                    + " is a function only the process that traced it knew; replace its node with ops to run the graph");
        }

        @Override
        public String toString() { return qualifiedName; }
    }

    /** {@code // MyApp.java:13  Tensor z = x.add(y);}, {@code // MyApp.java:13 in fn} or {@code // no source line …}. */
    private static SourceLocation sourceLocation(String comment) {
        if (comment.startsWith("no source line")) return null;
        int space = comment.indexOf(' ');
        String where = space < 0 ? comment : comment.substring(0, space);
        String rest = space < 0 ? "" : comment.substring(space);
        String method = null, text = null;
        if (rest.startsWith(" in ")) method = rest.substring(4).strip();
        else if (!rest.isBlank()) text = rest.strip();
        int colon = where.lastIndexOf(':');
        int lineNumber = 0;
        String file = where;
        if (colon > 0 && where.substring(colon + 1).chars().allMatch(Character::isDigit) && colon < where.length() - 1) {
            lineNumber = Integer.parseInt(where.substring(colon + 1));
            file = where.substring(0, colon);
        }
        String cls = file.endsWith(".java") ? file.substring(0, file.length() - 5) : file;
        return new SourceLocation(cls, method, file, lineNumber, -1, text);
    }

    // ------------------------------------------------------------------ values

    /** A Java type before a name: {@code Tensor}, {@code List<Tensor>}, {@code long}, {@code var}; what it says comes back from the value's comment. */
    private void javaType() {
        c.skipSpace();
        int start = c.at;
        int depth = 0;
        while (c.at < c.s.length() && (depth > 0 || c.s.charAt(c.at) != ' ')) {
            char ch = c.s.charAt(c.at++);
            if (ch == '<') depth++;
            else if (ch == '>') depth--;
        }
        if (start == c.at) throw problem(start + 1, "expected a type");
    }

    private record Args(List<Object> args, Map<String, Object> kwargs) {}

    /** {@code (x, 2, /* alpha= *&#47; 3)} */
    private Args arguments() {
        c.expect('(');
        List<Object> args = new ArrayList<>();
        Map<String, Object> kwargs = new LinkedHashMap<>();
        if (c.eat(")")) return new Args(args, kwargs);
        while (true) {
            c.skipSpace();
            int at = c.at + 1;
            if (c.eat("/*")) {
                String key = until("*/");
                if (!key.endsWith("=")) throw problem(at, "expected a keyword argument, /* name= */ value");
                kwargs.put(key.substring(0, key.length() - 1).strip(), value());
            } else {
                if (!kwargs.isEmpty()) throw problem(at, "positional argument after keyword arguments");
                args.add(value());
            }
            if (c.eat(",")) continue;
            c.expect(')');
            return new Args(args, kwargs);
        }
    }

    /** The text up to {@code close}, which is skipped. */
    private String until(String close) {
        int end = c.s.indexOf(close, c.at);
        if (end < 0) throw problem(c.at + 1, "missing '" + close + "'");
        String out = c.s.substring(c.at, end).strip();
        c.at = end + close.length();
        return out;
    }

    /** An argument as the printer writes it. */
    private Object value() {
        c.skipSpace();
        int at = c.at + 1;
        if (c.at >= c.s.length()) throw problem(at, "expected a value");
        if (c.s.charAt(c.at) == '"') return c.string();
        if (c.eat("List.of(")) {
            List<Object> items = new ArrayList<>();
            if (c.eat(")")) return items;
            while (true) {
                items.add(value());
                if (c.eat(",")) continue;
                c.expect(')');
                return items;
            }
        }
        for (String kind : List.of("int", "long")) {
            if (c.eat("new " + kind + "[] {")) {
                String[] items = until("}").split(",");
                List<Long> v = new ArrayList<>();
                for (String item : items) {
                    if (item.isBlank()) continue;
                    try {
                        v.add(Long.parseLong(item.strip()));
                    } catch (NumberFormatException e) {
                        throw problem(at, "'" + item.strip() + "' is not an integer in a new " + kind + "[]");
                    }
                }
                return kind.equals("int") ? v.stream().mapToInt(Long::intValue).toArray() : v.stream().mapToLong(Long::longValue).toArray();
            }
        }
        if (c.eat("new double[] {")) {
            List<Double> v = new ArrayList<>();
            for (String item : until("}").split(",")) {
                if (item.isBlank()) continue;
                if (!(atom(item.strip(), at) instanceof Number n) || n instanceof Float) throw problem(at, "'" + item.strip() + "' is not a double in a new double[]");
                v.add(n.doubleValue());
            }
            return v.stream().mapToDouble(Double::doubleValue).toArray();
        }
        if (c.eat("new boolean[] {")) {
            List<Boolean> v = new ArrayList<>();
            for (String item : until("}").split(",")) {
                if (item.isBlank()) continue;
                if (!(atom(item.strip(), at) instanceof Boolean b)) throw problem(at, "'" + item.strip() + "' is not true or false in a new boolean[]");
                v.add(b);
            }
            boolean[] out = new boolean[v.size()];
            for (int i = 0; i < out.length; i++) out[i] = v.get(i);
            return out;
        }
        if (c.eat("<constant ")) {
            String type = until(">");
            return tensorOf(type, at);
        }
        int start = c.at, depth = 0;
        while (c.at < c.s.length()) {
            char ch = c.s.charAt(c.at);
            if (depth == 0 && (ch == ',' || ch == ')' || ch == ';')) break;
            if (ch == '(') depth++;
            if (ch == ')') depth--;
            c.at++;
        }
        return atom(c.s.substring(start, c.at).strip(), at);
    }

    private Object atom(String t, int column) {
        switch (t) {
            case "null": return null;
            case "true": return Boolean.TRUE;
            case "false": return Boolean.FALSE;
            case "Double.NaN": return Double.NaN;
            case "Double.POSITIVE_INFINITY": return Double.POSITIVE_INFINITY;
            case "Double.NEGATIVE_INFINITY": return Double.NEGATIVE_INFINITY;
            case "Float.NaN": return Float.NaN;
            case "Float.POSITIVE_INFINITY": return Float.POSITIVE_INFINITY;
            case "Float.NEGATIVE_INFINITY": return Float.NEGATIVE_INFINITY;
            default: break;
        }
        if (t.isEmpty()) throw problem(column, "expected a value");
        Node n = byName.get(t);
        if (n != null) return n;
        if (t.startsWith("DType.")) {
            try {
                return DType.valueOf(t.substring(6));
            } catch (IllegalArgumentException e) {
                throw problem(column, "unknown dtype " + t);
            }
        }
        try {
            if (t.matches("-?\\d+")) return Long.parseLong(t);
            if (t.matches("-?[\\d.]+(E-?\\d+)?f")) return Float.parseFloat(t.substring(0, t.length() - 1));
            if (t.matches("-?[\\d.]+(E-?\\d+)?")) return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw problem(column, "'" + t + "' is not a number");
        }
        if (SYMBOL.matcher(t).find()) {
            try {
                return SymInt.parse(t);
            } catch (IllegalArgumentException e) {
                throw problem(column, e.getMessage());
            }
        }
        throw problem(column, "unknown name '" + t + "': not a node defined above, nor a value");
    }

    // ------------------------------------------------------------------ value types

    /** Sets the node's fake value (and symbolic metadata) from its printed type, which starts at {@code column}. */
    private static void setValue(Node n, String type, int column) {
        Typed t = typed(type.strip(), column);
        n.setVal(t.val);
        if (t.sym != null) n.setSymVal(t.sym);
    }

    /** A value and, when its sizes are symbolic, its symbolic metadata. */
    private record Typed(Object val, Object sym) {}

    private static Typed typed(String type, int column) {
        switch (type) {
            case "long": return new Typed(0L, null);
            case "int": return new Typed(0, null);
            case "double": return new Typed(0.0, null);
            case "float": return new Typed(0f, null);
            case "boolean": return new Typed(false, null);
            case "null": return new Typed(null, null);
            case "String": return new Typed("", null);
            case "DType": return new Typed(DType.FLOAT32, null);
            default: break;
        }
        if (type.startsWith("[")) {
            List<Object> vals = new ArrayList<>(), syms = new ArrayList<>();
            boolean symbolic = false;
            for (String item : splitTopLevel(type.substring(1, type.length() - 1))) {
                Typed t = typed(item, column);
                vals.add(t.val);
                syms.add(t.sym);
                symbolic |= t.sym != null;
            }
            return new Typed(java.util.Collections.unmodifiableList(vals), symbolic ? java.util.Collections.unmodifiableList(syms) : null);
        }
        int open = type.indexOf('[');
        if (open <= 0 || !type.endsWith("]")) throw problem(column, "cannot read the type '" + type + "': expected a tensor type such as f32[3, 4], a list of them, or a Java scalar type");
        DType dtype;
        try {
            dtype = DType.parse(type.substring(0, open));
        } catch (IllegalArgumentException e) {
            throw problem(column, "cannot read the type '" + type + "': " + e.getMessage());
        }
        List<String> dims = splitTopLevel(type.substring(open + 1, type.length() - 1));
        SymInt[] sizes = new SymInt[dims.size()];
        boolean symbolic = false;
        for (int d = 0; d < sizes.length; d++) {
            try {
                sizes[d] = SymInt.parse(dims.get(d));
            } catch (IllegalArgumentException e) {
                throw problem(column, "cannot read the size '" + dims.get(d) + "' of '" + type + "'");
            }
            symbolic |= !sizes[d].isConstant();
        }
        long[] example = examples(type);
        int[] shape = new int[sizes.length];
        for (int d = 0; d < shape.length; d++) shape[d] = sizes[d].evalInt(example);
        FakeTensor val = new FakeTensor(TensorMeta.contiguous(dtype, shape));
        if (!symbolic) return new Typed(val, null);
        SymInt[] strides = new SymInt[sizes.length];
        SymInt stride = SymInt.of(1);
        for (int d = sizes.length - 1; d >= 0; d--) {
            strides[d] = stride;
            stride = stride.times(sizes[d]);
        }
        return new Typed(val, new SymShape(sizes, strides, SymInt.of(0)));
    }

    /** Every symbol named in {@code type} at {@link #SYMBOL_EXAMPLE}. */
    private static long[] examples(String type) {
        TreeSet<Integer> ids = new TreeSet<>();
        Matcher m = SYMBOL.matcher(type);
        while (m.find()) ids.add(Integer.parseInt(m.group(1)));
        long[] v = new long[ids.isEmpty() ? 0 : ids.last() + 1];
        java.util.Arrays.fill(v, SYMBOL_EXAMPLE);
        return v;
    }

    private static Object tensorOf(String type, int column) {
        Typed t = typed(type, column);
        if (!(t.val instanceof FakeTensor)) throw problem(column, "a constant tensor has a tensor type, got '" + type + "'");
        return t.val;
    }

    /** {@code a, [b, c], d} split at its top-level commas. */
    private static List<String> splitTopLevel(String s) {
        List<String> out = new ArrayList<>();
        if (s.isBlank()) return out;
        int depth = 0, start = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '[') depth++;
            else if (ch == ']') depth--;
            else if (ch == ',' && depth == 0) {
                out.add(s.substring(start, i).strip());
                start = i + 1;
            }
        }
        out.add(s.substring(start).strip());
        return out;
    }
}
