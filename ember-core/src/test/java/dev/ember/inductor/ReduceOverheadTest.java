package dev.ember.inductor;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

/** mode("reduce-overhead"): outputs in the same arrays every call, stale outputs refused, inputs that are old outputs kept intact. */
class ReduceOverheadTest {

    /** y = relu(x * 2 + b), z = y.sum(-1): two outputs, one a reduction. */
    private static GraphModule graph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), b = g.placeholder("b", null);
        Node y = call(g, "relu.default", call(g, "add.Tensor", call(g, "mul.Scalar", x, 2.0), b));
        g.output(List.of(y, call(g, "sum.dim_IntList", y, List.of(-1L), false)));
        return new GraphModule(g);
    }

    private static InductorGraph compile(GraphModule gm, CompileMode mode, Tensor... examples) {
        return Inductor.compile(gm, List.of(examples), mode, null);
    }

    private static List<?> run(InductorGraph g, Tensor... in) { return (List<?>) g.run((Object[]) in); }

    @Test
    void outputsComeBackInTheSameArraysAndStayCorrect() {
        GraphModule gm = graph();
        Tensor x1 = Tensor.randn(64, 300), x2 = Tensor.randn(64, 300), b = Tensor.randn(300);
        InductorGraph g = compile(gm, CompileMode.REDUCE_OVERHEAD, x1, b);
        assertTrue(g.sourceCode().contains("in the same array every call (reduce-overhead)"), g.sourceCode());

        List<?> first = run(g, x1, b);
        Graphs.assertSame(gm.run(x1, b), first, 1e-5, "call 1");
        Object firstArray = ((Tensor) first.get(0)).storage().data();
        List<?> second = run(g, x2, b);
        Graphs.assertSame(gm.run(x2, b), second, 1e-5, "call 2");
        assertSame(firstArray, ((Tensor) second.get(0)).storage().data(), "the second call wrote into the first call's output array");
    }

    @Test
    void readingAnOverwrittenOutputThrowsAndSaysWhatToDo() {
        GraphModule gm = graph();
        Tensor x1 = Tensor.randn(8, 40), x2 = Tensor.randn(8, 40), b = Tensor.randn(40);
        InductorGraph g = compile(gm, CompileMode.REDUCE_OVERHEAD, x1, b);
        List<?> first = run(g, x1, b);
        Tensor kept = ((Tensor) first.get(0)).clone();
        Tensor view = ((Tensor) first.get(0)).transpose(0, 1);
        run(g, x2, b);

        Tensor stale = (Tensor) first.get(0);
        IllegalStateException e = assertThrows(IllegalStateException.class, stale::toFloatArray);
        assertTrue(e.getMessage().contains("output of call 1") && e.getMessage().contains("call 2")
                && e.getMessage().contains("clone()") && e.getMessage().contains("reduce-overhead"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> stale.add(1.0), "ops refuse it too");
        assertThrows(IllegalStateException.class, view::toFloatArray, "views share the overwritten storage");
        assertThrows(IllegalStateException.class, () -> ((Tensor) first.get(1)).toFloatArray(), "every output of the call");
        Graphs.assertSame(((List<?>) gm.run(x1, b)).get(0), kept, 1e-5, "the clone");
    }

    @Test
    void anOutputFedBackAsInputIsReadIntactAndStaysValid() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, "add.Tensor", call(g, "mul.Scalar", x, 0.5), call(g, "sin.default", x)));
        GraphModule gm = new GraphModule(g);
        Tensor x0 = Tensor.randn(1000);
        InductorGraph compiled = compile(gm, CompileMode.REDUCE_OVERHEAD, x0);
        Tensor viaCompiled = x0, viaEager = x0;
        Tensor previous = null;
        for (int i = 0; i < 5; i++) {
            previous = viaCompiled;
            viaCompiled = (Tensor) compiled.run(viaCompiled);         // x = f(x): the input is the last call's output
            viaEager = (Tensor) gm.run(viaEager);
            assertArrayEquals(viaEager.toFloatArray(), viaCompiled.toFloatArray(), 1e-5f, "step " + i);
        }
        assertFalse(previous.storage().isOverwritten(), "an output passed back in is left to its tensors");
        assertNotSame(previous.storage().data(), viaCompiled.storage().data());
    }

    @Test
    void anOutputAndAViewOfItAreBothMarked() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node y = call(g, "exp.default", x);
        g.output(List.of(y, call(g, "transpose.int", y, 0L, 1L), x));
        GraphModule gm = new GraphModule(g);
        Tensor x1 = Tensor.randn(6, 9), x2 = Tensor.randn(6, 9);
        InductorGraph compiled = compile(gm, CompileMode.REDUCE_OVERHEAD, x1);
        List<?> first = run(compiled, x1);
        Graphs.assertSame(gm.run(x1), first, 1e-6, "call 1");
        List<?> second = run(compiled, x2);
        Graphs.assertSame(gm.run(x2), second, 1e-6, "call 2");
        assertTrue(((Tensor) first.get(0)).storage().isOverwritten());
        assertTrue(((Tensor) first.get(1)).storage().isOverwritten(), "the view returned beside it");
        assertFalse(((Tensor) first.get(2)).storage().isOverwritten(), "a returned input is the caller's, never reused");
        assertArrayEquals(x1.toFloatArray(), ((Tensor) first.get(2)).toFloatArray());
    }

    @Test
    void eachThreadHasItsOwnOutputs() throws Exception {
        GraphModule gm = graph();
        Tensor b = Tensor.randn(50);
        InductorGraph g = compile(gm, CompileMode.REDUCE_OVERHEAD, Tensor.randn(4, 50), b);
        Tensor x1 = Tensor.randn(4, 50), x2 = Tensor.randn(4, 50);
        List<?> mine = run(g, x1, b);
        var pool = Executors.newSingleThreadExecutor();
        try {
            Future<List<?>> other = pool.submit(() -> run(g, x2, b));
            Graphs.assertSame(gm.run(x2, b), other.get(), 1e-5, "other thread");
        } finally {
            pool.shutdown();
        }
        Graphs.assertSame(gm.run(x1, b), mine, 1e-5, "this thread's output, untouched by the other thread's call");
    }

    @Test
    void defaultModeReturnsFreshArrays() {
        GraphModule gm = graph();
        Tensor x1 = Tensor.randn(8, 40), b = Tensor.randn(40);
        InductorGraph g = compile(gm, CompileMode.DEFAULT, x1, b);
        Tensor first = (Tensor) run(g, x1, b).get(0);
        float[] values = first.toFloatArray();
        Tensor second = (Tensor) run(g, Tensor.randn(8, 40), b).get(0);
        assertNotSame(first.storage().data(), second.storage().data());
        assertArrayEquals(values, first.toFloatArray());
    }

    static Tensor model(Tensor x, Tensor w) { return x.matmul(w.t()).relu().add(1.0); }

    @Test
    void optionsModeReachesInductorThroughCompile() {
        Tensor w = Tensor.randn(16, 32), x1 = Tensor.randn(5, 32), x2 = Tensor.randn(5, 32);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(ReduceOverheadTest::model, Options.backend("inductor").mode("reduce-overhead"));
        Tensor y1 = f.apply(x1, w);
        assertArrayEquals(model(x1, w).toFloatArray(), y1.toFloatArray(), 1e-4f);
        Tensor y2 = f.apply(x2, w);
        assertArrayEquals(model(x2, w).toFloatArray(), y2.toFloatArray(), 1e-4f);
        assertTrue(y1.storage().isOverwritten());
        var e = assertThrows(IllegalArgumentException.class, () -> Options.defaults().mode("reduce_overhead"));
        assertTrue(e.getMessage().contains("\"reduce-overhead\""), e.getMessage());
        assertEquals("\"default\", \"max-autotune\" or \"reduce-overhead\"", CompileMode.names());
    }
}
