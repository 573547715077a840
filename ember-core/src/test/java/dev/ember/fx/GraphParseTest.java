package dev.ember.fx;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Graph.parse / GraphModule.parse: the readable form parses back into a graph that prints the same, and runs. */
class GraphParseTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static final SourceLocation LINE_12 = new SourceLocation("MyApp", "fn", "MyApp.java", 12, 4, "Tensor y = x.add(w, 2);");
    private static final SourceLocation LINE_13 = new SourceLocation("MyApp", "fn", "MyApp.java", 13, 9, null);

    /** Every node kind and every kind of argument value the printer writes. */
    private static GraphModule sample() {
        Graph g = new Graph();
        Node x = g.placeholder("x", Tensor.zeros(4, 6));
        Node n = g.placeholder("n", 3L);
        Node w = g.getAttr("linear.weight", Tensor.zeros(4, 6));
        Node add = g.callFunction(OpRegistry.get("aten.add.Tensor"), List.of(x, w), Map.of("alpha", 2L)).setVal(Tensor.zeros(4, 6)).setSourceLocation(LINE_12);
        Node mul = g.callFunction(OpRegistry.get("aten.mul.Scalar"), add, 1e-5).setVal(Tensor.zeros(4, 6)).setSourceLocation(LINE_12);
        Node clamp = g.callFunction(OpRegistry.get("aten.clamp.default"), mul, null, Double.NEGATIVE_INFINITY).setVal(Tensor.zeros(4, 6)).setSourceLocation(LINE_13);
        Node view = g.callFunction(OpRegistry.get("aten.view.default"), clamp, new int[] {2, -1}).setVal(Tensor.zeros(2, 12)).setSourceLocation(LINE_13);
        Node to = g.callFunction(OpRegistry.get("aten._to_copy.default"), List.of(view), Map.of("dtype", DType.FLOAT64)).setVal(Tensor.zeros(DType.FLOAT64, 2, 12));
        Node split = g.callFunction(OpRegistry.get("aten.split.Tensor"), to, 6L, 1L).setVal(List.of(Tensor.zeros(DType.FLOAT64, 2, 6), Tensor.zeros(DType.FLOAT64, 2, 6)));
        Node item = g.callFunction(BuiltinFunctions.GETITEM, split, 0).setVal(Tensor.zeros(DType.FLOAT64, 2, 6));
        Node grad = g.callFunction(BuiltinFunctions.SET_GRAD_ENABLED, false);
        Node m = g.callMethod("mul", List.of(item, 0.5f), Map.of()).setVal(Tensor.zeros(DType.FLOAT64, 2, 6));
        Node gelu = g.callFunction(OpRegistry.get("aten.gelu.default"), List.of(m), Map.of("approximate", "tan\"h\n")).setVal(Tensor.zeros(DType.FLOAT64, 2, 6));
        Node sum = g.callFunction(OpRegistry.get("aten.sum.dim_IntList"), gelu, List.of(1L), true).setVal(Tensor.zeros(DType.FLOAT64, 2, 1));
        Node block = g.callModule("block.conv", List.of(x), Map.of());
        g.output(List.of(sum, add, block, n));
        return new GraphModule("Sample", g, Map.of(), Map.of());
    }

    @Test
    void theReadableFormParsesBackIntoAGraphThatPrintsTheSame() {
        GraphModule gm = sample();
        String text = gm.code();
        GraphModule back = GraphModule.parse(text);
        assertEquals(text, back.code());
        assertEquals("Sample", back.className());
        assertEquals(gm.graph().toString(), back.graph().toString(), "the FX form too: same kinds, targets, arguments");
        assertEquals(text, new GraphModule("Sample", Graph.parse(text), Map.of(), Map.of()).code());
        Node add = node(back, "add");
        assertSame(OpRegistry.get("aten.add.Tensor"), add.target());
        assertEquals(2L, add.kwargs().get("alpha"));
        assertEquals("f32[4, 6]", ((Tensor) add.val()).meta().describe());
        assertEquals(new SourceLocation("MyApp", null, "MyApp.java", 12, -1, "Tensor y = x.add(w, 2);"), add.sourceLocation());
        assertEquals("fn", node(back, "clamp").sourceLocation().methodName(), "a line without its text keeps the method's name");
        assertNull(node(back, "_to_copy").sourceLocation());
        assertSame(BuiltinFunctions.GETITEM, node(back, "getitem").target());
        assertSame(BuiltinFunctions.SET_GRAD_ENABLED, node(back, "_set_grad_enabled").target());
        assertEquals(NodeKind.CALL_MODULE, node(back, "block_conv").kind());
        assertInstanceOf(Float.class, node(back, "mul_1").arg(1));
        assertEquals("tan\"h\n", node(back, "gelu").kwargs().get("approximate"));
        assertEquals(0L, node(back, "n").val(), "a scalar input's type comes back as a zero of it");
    }

    private static Node node(GraphModule gm, String name) {
        return gm.graph().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no node " + name));
    }

    static Tensor model(Tensor x) {
        Tensor h = x.matmul(x.t()).relu();
        return h.softmax(1).add(x.sum(1, true));
    }

    /** The graphs a compiled function hands its backend. */
    private static List<GraphModule> captured(Fn1<Tensor, Tensor> fn, Options options, Tensor... calls) {
        List<GraphModule> graphs = new ArrayList<>();
        Backend keep = (gm, fakes) -> {
            graphs.add(gm);
            return Backends.EAGER.compile(gm, fakes);
        };
        var f = Ember.compile(fn, options.withBackend(keep));
        for (Tensor x : calls) f.apply(x);
        return graphs;
    }

    @Test
    void doubleAndBooleanArraysPrintAsJavaAndParseBack() {
        Graph g = new Graph();
        Node x = g.placeholder("x", Tensor.zeros(4));
        Node q = g.callMethod("quantiles", List.of(x, new double[] {0.25, -1.5E-7, Double.NaN}, new boolean[] {true, false}), Map.of());
        g.output(List.of(q));
        String text = new GraphModule("Arrays", g, Map.of(), Map.of()).code();
        assertTrue(text.contains("new double[] {0.25, -1.5E-7, Double.NaN}") && text.contains("new boolean[] {true, false}"), text);
        Graph back = Graph.parse(text);
        Node parsed = back.nodes().stream().filter(n -> n.kind() == NodeKind.CALL_METHOD).findFirst().orElseThrow();
        assertTrue(java.util.Arrays.equals(new double[] {0.25, -1.5E-7, Double.NaN}, (double[]) parsed.arg(1)), String.valueOf(parsed.arg(1)));
        assertTrue(java.util.Arrays.equals(new boolean[] {true, false}, (boolean[]) parsed.arg(2)));
        assertEquals(text, new GraphModule("Arrays", back, Map.of(), Map.of()).code());
    }

    @Test
    void aCapturedGraphParsedFromItsTextRunsToTheSameValues() {
        Tensor x = Tensor.randn(3, 5);
        GraphModule gm = captured(GraphParseTest::model, Options.defaults(), x).getFirst();
        GraphModule back = GraphModule.parse(gm.code());
        assertEquals(gm.code(), back.code());
        Object out = back.run(x);
        Tensor y = out instanceof List<?> l ? (Tensor) l.getFirst() : (Tensor) out;
        assertTrue(y.sameData(model(x)), y + " vs " + model(x));
    }

    @Test
    void symbolicSizesComeBackAsSymVal() {
        List<GraphModule> graphs = captured(GraphParseTest::model, Options.defaults().dynamic(true), Tensor.randn(3, 5));
        GraphModule gm = graphs.getFirst();
        String text = gm.code();
        assertTrue(text.contains("f32[s0, s1]"), text);
        GraphModule back = GraphModule.parse(text);
        assertEquals(text, back.code());
        assertInstanceOf(SymShape.class, back.graph().placeholders().getFirst().symVal());
        assertEquals(2, back.sizeSymbols().size(), "read from the input's dimensions: it runs on any size without being told");
        Tensor x = Tensor.randn(4, 7);
        Object out = back.run(x);
        Tensor y = out instanceof List<?> l ? (Tensor) l.getFirst() : (Tensor) out;
        assertTrue(y.sameData(model(x)));
    }

    private static final String GOOD = """
            class GraphModule {
                Tensor forward(Tensor x /* f32[2, 3] */) {
                    // MyApp.java:7  return x.relu().mul(2.0);
                    Tensor relu = aten.relu.default(x);       // f32[2, 3]
                    Tensor mul = aten.mul.Scalar(relu, 2.0);  // f32[2, 3]
                    return mul;
                }
            }
            """;

    /** The example of docs/logging.md's "Reading a printed graph back", as written there. */
    @Test
    void theDocsExample() {
        String text = GOOD;
        GraphModule gm = GraphModule.parse(text);      // Graph.parse(text) for the graph alone
        assertEquals(text, gm.code());
        Tensor y = (Tensor) gm.run(Tensor.of(new float[] {-1, 2, -3, 4, -5, 6}, 2, 3));
        assertTrue(y.sameData(Tensor.of(new float[] {0, 4, 0, 8, 0, 12}, 2, 3)), y.toString());
    }

    @Test
    void badInputIsAClearErrorWithLineAndColumn() {
        assertEquals(GOOD, GraphModule.parse(GOOD).code(), "the good text prints as it is");
        assertError("line 4, col 23: unknown op aten.foo.bar", GOOD.replace("aten.relu.default", "aten.foo.bar"));
        assertError("line 5, col 38: unknown name 'relux': not a node defined above, nor a value", GOOD.replace("(relu, 2.0)", "(relux, 2.0)"));
        assertError("line 6, col 5: forward has no return statement", GOOD.replace("        return mul;\n", ""));
        assertError("line 1, col 1: no 'class GraphModule {' line", "Tensor relu = aten.relu.default(x);");
        assertError("line 2, col 32: cannot read the size 'three' of 'f32[2, three]'", GOOD.replace("f32[2, 3] */", "f32[2, three] */"));
        assertError("line 5, col 16: 'relu' is defined twice", GOOD.replace("Tensor mul = aten.mul.Scalar(relu, 2.0)", "Tensor relu = aten.mul.Scalar(relu, 2.0)"));
        assertError("line 4, col 50: expected ';'", GOOD.replace("aten.relu.default(x);", "aten.relu.default(x)"));
    }

    private static void assertError(String start, String text) {
        GraphText.ParseError e = assertThrows(GraphText.ParseError.class, () -> GraphModule.parse(text));
        assertTrue(e.getMessage().startsWith(start), "expected it to start with '" + start + "':\n" + e.getMessage());
    }
}
