package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Writes a {@link GraphModule} as a standalone Java program (what runnable repros rest on): a class
 * whose {@code build()} rebuilds the same graph through the Graph API, whose {@code inputs()} makes
 * inputs — the recorded values when given, otherwise random ones of the placeholders' recorded
 * shapes, dtypes and strides from a fixed seed — and whose {@code main} runs the graph and prints
 * the outputs. Run it with {@code java -cp <ember-core classes> ClassName.java}.
 *
 * <p>Graphs calling modules ({@code call_module}) or live function objects cannot be written out:
 * those are live objects with no source; inline them first.
 */
public final class JavaSourceGen {
    /** Names the generated class uses itself; node variables avoid them. */
    private static final Set<String> OWN_NAMES = Set.of("graph", "gm", "attributes", "gen", "args", "out",
            "list", "kwargs", "fake", "strided", "decode", "random", "print", "build", "inputs", "main");

    private JavaSourceGen() {}

    /** The program, with random inputs of the shapes and dtypes the placeholders' fake values record. */
    public static String generate(GraphModule gm, String className) { return generate(gm, className, null); }

    /**
     * The program, with {@code inputs} (one per placeholder) written out exactly — values and
     * strides; pass null for random inputs.
     */
    public static String generate(GraphModule gm, String className, List<?> inputs) {
        return generate(gm, className, inputs, DEFAULT_MAIN);
    }

    /**
     * The program with {@code main} (a whole {@code public static void main(String[] args)} method) in place
     * of the one that prints the outputs; it may call {@code build()}, {@code inputs()} and the helpers.
     */
    public static String generate(GraphModule gm, String className, List<?> inputs, String main) {
        if (!javax.lang.model.SourceVersion.isIdentifier(className) || javax.lang.model.SourceVersion.isKeyword(className)) {
            throw new IllegalArgumentException("'" + className + "' is not a valid Java class name");
        }
        Graph g = gm.graph();
        List<Node> params = g.placeholders();
        if (inputs != null && inputs.size() != params.size()) {
            throw new IllegalArgumentException("the graph takes " + params.size() + " input(s) " + params + ", but " + inputs.size() + " were given");
        }
        Set<String> reserved = new HashSet<>(Namespace.JAVA_RESERVED);
        reserved.addAll(OWN_NAMES);
        Namespace locals = new Namespace(reserved);
        for (String own : OWN_NAMES) locals.reserve(own);
        Map<Node, String> var = new java.util.HashMap<>();
        Function<Node, String> nameOf = var::get;
        Namespace replay = new Namespace();     // mirrors the names the rebuilt graph will hand out

        StringBuilder build = new StringBuilder();
        for (Node n : g.nodes()) {
            String v = locals.create(n.name());
            var.put(n, v);
            String expr = switch (n.kind()) {
                case PLACEHOLDER -> "graph.placeholder(" + JavaLiterals.string((String) n.target()) + ", " + fakeValue(n.val()) + ")";
                case GET_ATTR -> "graph.getAttr(" + JavaLiterals.string((String) n.target()) + ", " + fakeValue(n.val()) + ")";
                case CALL_FUNCTION -> "graph.callFunction(" + functionSource(n) + ", " + JavaLiterals.of(n.args(), nameOf) + ", " + kwargs(n.kwargs(), nameOf) + ")";
                case CALL_METHOD -> "graph.callMethod(" + JavaLiterals.string((String) n.target()) + ", " + JavaLiterals.of(n.args(), nameOf) + ", " + kwargs(n.kwargs(), nameOf) + ")";
                case CALL_MODULE -> throw new IllegalArgumentException("cannot write node '" + n + "' as Java source: it calls module '" + n.target()
                        + "', a live object with no source; inline the module's graph first");
                case OUTPUT -> "graph.output(" + JavaLiterals.of(n.arg(0), nameOf) + ")";
            };
            build.append("        Node ").append(v).append(" = ").append(expr).append(";\n");
            String given = replay.create(Graph.nameCandidate(n.target()));
            if (!given.equals(n.name())) {
                build.append("        graph.rename(").append(v).append(", ").append(JavaLiterals.string(n.name())).append(");\n");
                replay.create(n.name());
            }
            SourceLocation loc = n.sourceLocation();
            if (loc != null) build.append("        ").append(v).append(".setSourceLocation(").append(location(loc)).append(");\n");
        }

        StringBuilder attrs = new StringBuilder();
        for (Map.Entry<String, Tensor> a : gm.attributes().entrySet()) {
            attrs.append("        attributes.put(").append(JavaLiterals.string(a.getKey())).append(", ").append(TensorSource.exact(a.getValue())).append(");\n");
        }
        boolean propagate = params.stream().allMatch(p -> p.val() != null);

        StringBuilder in = new StringBuilder();
        for (int i = 0; i < params.size(); i++) {
            Node p = params.get(i);
            String value = inputs != null ? exactValue(inputs.get(i)) : randomValue(p);
            in.append("            ").append(value).append(i + 1 < params.size() ? ",\n" : "\n");
        }

        return HEADER.formatted(className)
                + "public class " + className + " {\n\n"
                + "    /** The graph, rebuilt node by node. */\n"
                + "    public static GraphModule build() {\n"
                + "        Graph graph = new Graph();\n"
                + build
                + "        Map<String, Tensor> attributes = new LinkedHashMap<>();\n"
                + attrs
                + "        GraphModule gm = new GraphModule(" + JavaLiterals.string(gm.className()) + ", graph, attributes, Map.of());\n"
                + (propagate ? "        ShapeProp.propagate(gm);\n" : "")
                + "        return gm;\n"
                + "    }\n\n"
                + "    /** " + (inputs != null ? "The recorded inputs." : "Random inputs of the recorded shapes, dtypes and strides (fixed seed).") + " */\n"
                + "    public static Object[] inputs() {\n"
                + "        Generator gen = new Generator(0);\n"
                + "        return new Object[] {\n"
                + in
                + "        };\n"
                + "    }\n\n"
                + main
                + HELPERS
                + "}\n";
    }

    private static String functionSource(Node n) {
        return switch (n.target()) {
            case OpOverload op when !OpRegistry.isRegistered(op) -> throw new IllegalArgumentException("cannot write node '" + n + "' as Java source: it calls "
                    + op.name() + ", an op only this process knows (a traced CustomFunction)");
            case OpOverload op -> "OpRegistry.get(" + JavaLiterals.string(op.name()) + ")";
            case GraphFunction fn -> {
                String src = fn.javaSource();
                if (src == null) throw new IllegalArgumentException("cannot write node '" + n + "' as Java source: its function "
                        + fn.qualifiedName() + " is a live object with no source (GraphFunction.javaSource() is null)");
                yield src;
            }
            default -> throw new IllegalStateException("call_function target " + n.target());
        };
    }

    private static String kwargs(Map<String, Object> kwargs, Function<Node, String> nameOf) {
        StringBuilder sb = new StringBuilder("kwargs(");
        boolean first = true;
        for (Map.Entry<String, Object> e : kwargs.entrySet()) {
            if (!first) sb.append(", ");
            sb.append(JavaLiterals.string(e.getKey())).append(", ").append(JavaLiterals.of(e.getValue(), nameOf));
            first = false;
        }
        return sb.append(")").toString();
    }

    private static String fakeValue(Object val) {
        return switch (val) {
            case null -> "null";
            case Tensor t -> {
                TensorMeta m = t.meta();
                yield "fake(DType." + m.dtype().name() + ", " + TensorSource.ints(m.shape()) + ", " + TensorSource.ints(m.strides()) + ", " + m.storageOffset() + ")";
            }
            case List<?> l -> "list(" + String.join(", ", l.stream().map(JavaSourceGen::fakeValue).toList()) + ")";
            default -> JavaLiterals.of(val, n -> { throw new IllegalStateException(); });
        };
    }

    private static String randomValue(Node p) {
        return switch (p.val()) {
            case null -> throw new IllegalArgumentException("placeholder '" + p + "' has no fake value to make a random input from;"
                    + " run ShapeProp first or pass example inputs");
            case Tensor t -> TensorSource.random(t.meta());
            case List<?> l -> "list(" + String.join(", ", l.stream().map(x -> x instanceof Tensor t ? TensorSource.random(t.meta()) : exactValue(x)).toList()) + ")";
            default -> exactValue(p.val());
        };
    }

    private static String exactValue(Object v) {
        return switch (v) {
            case Tensor t -> TensorSource.exact(t);
            case List<?> l -> "list(" + String.join(", ", l.stream().map(JavaSourceGen::exactValue).toList()) + ")";
            default -> JavaLiterals.of(v, n -> { throw new IllegalArgumentException("an input cannot be a graph node"); });
        };
    }

    private static String location(SourceLocation l) {
        return "new SourceLocation(" + str(l.className()) + ", " + str(l.methodName()) + ", " + str(l.fileName()) + ", "
                + l.line() + ", " + l.bci() + ", " + str(l.sourceText()) + ")";
    }

    private static String str(String s) { return s == null ? "null" : JavaLiterals.string(s); }

    private static final String DEFAULT_MAIN = """
                public static void main(String[] args) {
                    GraphModule gm = build();
                    Object out = gm.run(inputs());
                    print("out", out);
                }
            """;

    private static final String HEADER = """
            // A standalone repro of one Ember FX graph, written by dev.ember.fx.JavaSourceGen.
            // Run it with: java -cp <ember-core classes> %s.java

            import dev.ember.fx.*;
            import dev.ember.ops.OpRegistry;
            import dev.ember.tensor.*;

            import java.nio.ByteBuffer;
            import java.nio.ByteOrder;
            import java.util.*;

            """;

    private static final String HELPERS = """

                // ---------------------------------------------------------------- helpers

                private static List<Object> list(Object... values) { return Arrays.asList(values); }

                private static Map<String, Object> kwargs(Object... keysAndValues) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
                    return m;
                }

                private static FakeTensor fake(DType dtype, int[] shape, int[] strides, int offset) {
                    return new FakeTensor(new TensorMeta(dtype, shape, strides, offset));
                }

                private static Tensor strided(Tensor flat, int[] shape, int[] strides, int offset) {
                    return flat.viewAs(new TensorMeta(flat.dtype(), shape, strides, offset));
                }

                private static Tensor random(Generator gen, DType dtype, int[] shape) {
                    return switch (dtype) {
                        case FLOAT32, FLOAT64 -> Tensor.randn(gen, shape).to(dtype);
                        case INT32, INT64 -> Tensor.randint(gen, 0, 10, shape).to(dtype);
                        case BOOL -> Tensor.randint(gen, 0, 2, shape).to(dtype);
                    };
                }

                private static Tensor decode(DType dtype, int[] shape, int[] strides, String... base64) {
                    ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(String.join("", base64))).order(ByteOrder.LITTLE_ENDIAN);
                    int n = b.remaining() / dtype.itemSize();
                    Tensor flat = switch (dtype) {
                        case FLOAT32 -> { float[] a = new float[n]; b.asFloatBuffer().get(a); yield Tensor.of(a, n); }
                        case FLOAT64 -> { double[] a = new double[n]; b.asDoubleBuffer().get(a); yield Tensor.of(a, n); }
                        case INT32 -> { int[] a = new int[n]; b.asIntBuffer().get(a); yield Tensor.of(a, n); }
                        case INT64 -> { long[] a = new long[n]; b.asLongBuffer().get(a); yield Tensor.of(a, n); }
                        case BOOL -> { boolean[] a = new boolean[n]; for (int i = 0; i < n; i++) a[i] = b.get(i) != 0; yield Tensor.of(a, n); }
                    };
                    return strided(flat, shape, strides, 0);
                }

                private static void print(String label, Object value) {
                    if (value instanceof List<?> list) {
                        for (int i = 0; i < list.size(); i++) print(label + "[" + i + "]", list.get(i));
                    } else if (value instanceof Tensor t) {
                        System.out.println(label + ": " + t.describe());
                        System.out.println(t);
                    } else {
                        System.out.println(label + ": " + value);
                    }
                }
            """;
}
