package dev.ember.fx;

import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GraphTextTest {
    /** Every kind of value an argument can hold, with names that are not the op's default. */
    private static Graph sample() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node w = g.getAttr("linear.weight", null);
        Node add1 = g.callFunction(OpRegistry.get("aten.add.Tensor"), List.of(x, w), Map.of("alpha", 2L));
        g.rename(add1, "add_7");
        Node add = g.callFunction(OpRegistry.get("aten.add.Tensor"), add1, x);
        Node sum = g.callFunction(OpRegistry.get("aten.sum.dim_IntList"), add, List.of(1L), true);
        Node mul = g.callFunction(OpRegistry.get("aten.mul.Scalar"), sum, 1e-5);
        Node clamp = g.callFunction(OpRegistry.get("aten.clamp.default"), mul, null, Double.NEGATIVE_INFINITY);
        Node view = g.callFunction(OpRegistry.get("aten.view.default"), clamp, new int[] {2, -1});
        Node to = g.callFunction(OpRegistry.get("aten._to_copy.default"), List.of(view), Map.of("dtype", DType.FLOAT64));
        Node split = g.callFunction(OpRegistry.get("aten.split.Tensor"), to, 1L, 0L);
        Node item = g.callFunction(BuiltinFunctions.GETITEM, split, 0);
        Node m = g.callMethod("mul", List.of(item, 0.5f), Map.of());
        Node gelu = g.callFunction(OpRegistry.get("aten.gelu.default"), List.of(m), Map.of("approximate", "tan\"h\n"));
        g.output(List.of(gelu, add));
        return g;
    }

    @Test
    void writeThenParseGivesTheSameGraph() {
        Graph g = sample();
        String text = GraphText.write(g);
        Graph back = GraphText.parse(text);
        assertEquals(g.toString(), back.toString());
        assertEquals(text, GraphText.write(back));
        Node view = back.nodes().stream().filter(n -> n.name().equals("view")).findFirst().orElseThrow();
        assertArrayEquals(new int[] {2, -1}, (int[]) view.arg(1));
        Node add7 = back.nodes().stream().filter(n -> n.name().equals("add_7")).findFirst().orElseThrow();
        assertInstanceOf(Long.class, add7.kwargs().get("alpha"));
        Node m = back.nodes().stream().filter(n -> n.name().equals("mul_1")).findFirst().orElseThrow();
        assertInstanceOf(Float.class, m.arg(1));
    }

    @Test
    void printsOneNodePerLineInFxNotationWithTypes() {
        Graph g = new Graph();
        Node x = g.placeholder("x", Tensor.zeros(2, 3));
        Node relu = g.callFunction(OpRegistry.get("aten.relu.default"), x);
        relu.setVal(Tensor.zeros(2, 3));
        g.output(relu);
        assertEquals("""
                %x = placeholder[x]                           # f32[2, 3]
                %relu = call_function[aten.relu.default](%x)  # f32[2, 3]
                return %relu
                """, GraphText.write(g));
    }

    /** The sample of docs/minifier.md, "The launcher". */
    @Test
    void theDocsSample() {
        Graph g = new Graph();
        SourceLocation line34 = new SourceLocation("MyApp", "fn", "MyApp.java", 34, 3, null);
        Node x = g.placeholder("x", Tensor.zeros(3, 4));
        Node y = g.placeholder("y", Tensor.zeros(3, 4));
        Node add = g.callFunction(OpRegistry.get("aten.add.Tensor"), x, y).setVal(Tensor.zeros(3, 4)).setSourceLocation(line34);
        Node sum = g.callFunction(OpRegistry.get("aten.sum.dim_IntList"), add, List.of(1L), true).setVal(Tensor.zeros(3, 1)).setSourceLocation(line34);
        g.output(List.of(sum));
        String text = GraphText.write(g);
        assertEquals("""
                %x = placeholder[x]                                           # f32[3, 4]
                %y = placeholder[y]                                           # f32[3, 4]
                %add = call_function[aten.add.Tensor](%x, %y)                 # f32[3, 4]  MyApp.java:34 in fn
                %sum = call_function[aten.sum.dim_IntList](%add, [1L], true)  # f32[3, 1]  MyApp.java:34 in fn
                return [%sum]
                """, text);
        // types in comments are for people and are not read back (shape propagation recomputes them); source lines are
        String withoutComments = text.lines().map(l -> l.replaceAll("\\s+#.*$", "")).collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        Graph back = GraphText.parse(text);
        String backWithoutComments = GraphText.write(back).lines().map(l -> l.replaceAll("\\s+#.*$", "")).collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        assertEquals(withoutComments, backWithoutComments);
        Node backSum = back.nodes().stream().filter(n -> n.name().equals("sum")).findFirst().orElseThrow();
        assertEquals("MyApp.java:34", backSum.sourceLocation().fileAndLine());
        assertEquals("fn", backSum.sourceLocation().methodName());
    }

    @Test
    void badTextNamesTheLineAndTheProblem() {
        var e = assertThrows(GraphText.ParseError.class, () -> GraphText.parse("%x = placeholder[x]\n%y = call_function[aten.relu.default](%z)\nreturn %y\n"));
        assertTrue(e.getMessage().startsWith("line 2: '%z' is not a node defined above"), e.getMessage());
        e = assertThrows(GraphText.ParseError.class, () -> GraphText.parse("%x = placeholder[x]\n"));
        assertTrue(e.getMessage().contains("the graph has no 'return' line"), e.getMessage());
        e = assertThrows(GraphText.ParseError.class, () -> GraphText.parse("%x = output_of[x]\nreturn %x"));
        assertTrue(e.getMessage().contains("unknown node kind 'output_of'"), e.getMessage());
        e = assertThrows(GraphText.ParseError.class, () -> GraphText.parse("%x = placeholder[x]\n%x = placeholder[x]\nreturn %x"));
        assertTrue(e.getMessage().startsWith("line 2: node 'x' is defined twice"), e.getMessage());
        e = assertThrows(GraphText.ParseError.class, () -> GraphText.parse("%x = placeholder[x]\n%y = call_function[aten.relu.default](\nreturn %y"));
        assertTrue(e.getMessage().startsWith("line 2: the line ends in the middle of a node"), e.getMessage());
        e = assertThrows(GraphText.ParseError.class, () -> GraphText.parse("%x = placeholder[x]\nreturn %x\n%y = placeholder[y]"));
        assertTrue(e.getMessage().contains("nothing may follow the return line"), e.getMessage());
    }

    @Test
    void refusesWhatCannotBeParsedBack() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(g.callFunction(OpRegistry.get("aten.add.Tensor"), x, Tensor.ones(2)));
        var e = assertThrows(IllegalArgumentException.class, () -> GraphText.write(g));
        assertTrue(e.getMessage().startsWith("cannot write node 'add' as text: argument Tensor"), e.getMessage());
    }
}
