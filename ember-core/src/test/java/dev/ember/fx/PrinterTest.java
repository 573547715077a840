package dev.ember.fx;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Expected texts are written by hand from FX's {@code Graph.__str__}, {@code format_node} and {@code print_tabular}. */
class PrinterTest {
    static final SourceLocation LINE_13 = new SourceLocation("MyApp", "fn", "MyApp.java", 13, 4,
            "    Tensor z = Tensor.cat(List.of(x.transpose(0, 1), y), 1);");
    static final SourceLocation LINE_14 = new SourceLocation("MyApp", "fn", "MyApp.java", 14, 19, null);

    /** x: f32[3, 4], y: f32[4, 3] → (cat(x.T, y, dim=1).view(24), zeros(24, f64)) */
    static GraphModule sample() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(3, 4));
        Node y = g.placeholder("y", f32(4, 3));
        Node t = g.callFunction(op("aten.transpose.int"), x, 0L, 1L).setSourceLocation(LINE_13);
        Node cat = g.callFunction(op("aten.cat.default"), List.of(t, y), 1L).setSourceLocation(LINE_13);
        Node z = g.callFunction(op("aten.zeros.default"), List.of(new int[] {24}), Map.of("dtype", DType.FLOAT64));
        Node view = g.callMethod("view", List.of(cat, 24L), Map.of()).setSourceLocation(LINE_14);
        g.output(List.of(view, z));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm);
        return gm;
    }

    @Test
    void graphPrintsLikeFxGraphStr() {
        assertEquals("""
                graph():
                    %x : f32[3, 4] [num_users=1] = placeholder[target=x]
                    %y : f32[4, 3] [num_users=1] = placeholder[target=y]
                    %transpose : f32[4, 3] [num_users=1] = call_function[target=aten.transpose.int](args = (%x, 0, 1), kwargs = {})
                    %cat : f32[4, 6] [num_users=1] = call_function[target=aten.cat.default](args = ([%transpose, %y], 1), kwargs = {})
                    %zeros : f64[24] [num_users=1] = call_function[target=aten.zeros.default](args = ([24],), kwargs = {dtype: torch.float64})
                    %view : f32[24] [num_users=1] = call_method[target=view](args = (%cat, 24), kwargs = {})
                    return (view, zeros)""", sample().graph().toString());
    }

    @Test
    void nodesWithoutValuesAndOtherTargetsFormatLikeFx() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node w = g.getAttr("lin.weight", null);
        Node m = g.callModule("lin", List.of(x), Map.of());
        Node s = g.callFunction(op("aten.split.Tensor"), m, 2L);
        Node item = g.callFunction(BuiltinFunctions.GETITEM, s, 0L);
        Map<String, Object> kw = new java.util.LinkedHashMap<>();
        kw.put("dim", 1L);
        kw.put("start", -1L);
        kw.put("end", null);
        Node sl = g.callFunction(op("aten.slice.Tensor"), List.of(item), kw);
        g.output(sl);
        assertEquals("%x : [num_users=1] = placeholder[target=x]", x.format());
        assertEquals("%lin_weight : [num_users=0] = get_attr[target=lin.weight]", w.format());
        assertEquals("%lin : [num_users=1] = call_module[target=lin](args = (%x,), kwargs = {})", m.format());
        assertEquals("%getitem : [num_users=1] = call_function[target=operator.getitem](args = (%split, 0), kwargs = {})", item.format());
        assertEquals("%slice : [num_users=1] = call_function[target=aten.slice.Tensor](args = (%getitem,), kwargs = {dim: 1, start: -1, end: None})",
                sl.format());
        assertEquals("return slice", g.outputNode().format());
    }

    @Test
    void constantsPrintAsPythonLiterals() {
        assertEquals("1e-05", PyFormat.pyFloat(1e-5));
        assertEquals("2.5e-07", PyFormat.pyFloat(2.5e-7));
        assertEquals("0.0001", PyFormat.pyFloat(1e-4));
        assertEquals("1e+16", PyFormat.pyFloat(1e16));
        assertEquals("1.5e+16", PyFormat.pyFloat(1.5e16));
        assertEquals("1000000000000000.0", PyFormat.pyFloat(1e15));
        assertEquals("1.2345678901234568e+17", PyFormat.pyFloat(123456789012345678.0));
        assertEquals("2.0", PyFormat.pyFloat(2));
        assertEquals("-0.5", PyFormat.pyFloat(-0.5));
        assertEquals("0.1", PyFormat.pyFloat(0.1));
        assertEquals("0.3333333333333333", PyFormat.pyFloat(1.0 / 3));
        assertEquals("-0.0", PyFormat.pyFloat(-0.0));
        assertEquals("nan", PyFormat.pyFloat(Double.NaN));
        assertEquals("-inf", PyFormat.pyFloat(Double.NEGATIVE_INFINITY));
        assertEquals("(True, None, 2.5, torch.int64, [1, 2], floor)",
                PyFormat.argsTuple(java.util.Arrays.asList(true, null, 2.5, DType.INT64, new int[] {1, 2}, "floor")));
    }

    @Test
    void tabularIsFxPrintTabularWithTypes() {
        assertEquals("""
                opcode         name       target              args                 kwargs                    val
                -------------  ---------  ------------------  -------------------  ------------------------  ------------------
                placeholder    x          x                   ()                   {}                        f32[3, 4]
                placeholder    y          y                   ()                   {}                        f32[4, 3]
                call_function  transpose  aten.transpose.int  (x, 0, 1)            {}                        f32[4, 3]
                call_function  cat        aten.cat.default    ([transpose, y], 1)  {}                        f32[4, 6]
                call_function  zeros      aten.zeros.default  ([24],)              {'dtype': torch.float64}  f64[24]
                call_method    view       view                (cat, 24)            {}                        f32[24]
                output         output     output              ((view, zeros),)     {}                        [f32[24], f64[24]]
                """, sample().tabular());
    }

    @Test
    void readableFormIsTypedJavaWithSourceLines() {
        assertEquals("""
                class GraphModule {
                    List<Tensor> forward(Tensor x /* f32[3, 4] */, Tensor y /* f32[4, 3] */) {
                        // MyApp.java:13  Tensor z = Tensor.cat(List.of(x.transpose(0, 1), y), 1);
                        Tensor transpose = aten.transpose.int(x, 0, 1);           // f32[4, 3]
                        Tensor cat = aten.cat.default(List.of(transpose, y), 1);  // f32[4, 6]

                        // no source line for the following nodes
                        Tensor zeros = aten.zeros.default(new int[] {24}, /* dtype= */ DType.FLOAT64);  // f64[24]

                        // MyApp.java:14 in fn
                        Tensor view = cat.view(24);  // f32[24]
                        return List.of(view, zeros);
                    }
                }
                """, sample().code());
    }

    @Test
    void readableFormOfListsGetitemAttributesAndModules() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(4, 3));
        Node w = g.getAttr("lin.weight", null);
        Node s = g.callFunction(op("aten.split.Tensor"), x, 2L);
        Node first = g.callFunction(BuiltinFunctions.GETITEM, s, 0L);
        Node lin = g.callModule("lin", List.of(first), Map.of());
        g.output(lin);
        GraphModule gm = new GraphModule("Block", g, Map.of("lin.weight", Tensor.ones(3, 3)),
                Map.of("lin", args -> ((Tensor) args[0]).clone()));
        ShapeProp.propagate(gm);
        assertEquals("""
                class Block {
                    Tensor forward(Tensor x /* f32[4, 3] */) {
                        Tensor lin_weight = this.lin.weight;           // f32[3, 3]
                        List<Tensor> split = aten.split.Tensor(x, 2);  // [f32[2, 3], f32[2, 3]]
                        Tensor getitem = split.get(0);                 // f32[2, 3]
                        Tensor lin = this.lin.forward(getitem);        // f32[2, 3]
                        return lin;
                    }
                }
                """, gm.code());
    }

    @Test
    void readableFormWithoutValues() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node c = g.callFunction(op("aten.clone.default"), x);
        g.output(c);
        assertEquals("""
                class GraphModule {
                    Object forward(Object x) {
                        var clone = aten.clone.default(x);
                        return clone;
                    }
                }
                """, new GraphModule(g).code());
    }
}
