package dev.ember.inductor;

import dev.ember.testing.ChildJvm;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.kernels.Blas;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiling a graph with a GEMM starts loading OpenBLAS on a background thread, so the graph's
 * first call does not wait for it; a graph without one does not load it. Checked in fresh JVMs
 * (this one has OpenBLAS loaded by other tests), by {@link Child}.
 */
class OpenBlasPreloadTest {
    static GraphModule linearRelu() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        g.output(g.callFunction(OpRegistry.get("aten.relu.default"), g.callFunction(OpRegistry.get("aten.linear.default"), x, w, b)));
        return new GraphModule(g);
    }

    static GraphModule pointwise() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(g.callFunction(OpRegistry.get("aten.mul.Scalar"), g.callFunction(OpRegistry.get("aten.relu.default"), x), 2.0));
        return new GraphModule(g);
    }

    @Test
    void graphsWithAGemmAreTheOnesThatNeedOpenBlas() {
        assertTrue(Inductor.hasGemm(linearRelu()));
        Graph g = new Graph();
        Node a = g.placeholder("a", null), b = g.placeholder("b", null);
        g.output(g.callFunction(OpRegistry.get("aten.mm.default"), a, b));
        assertTrue(Inductor.hasGemm(new GraphModule(g)));
        assertFalse(Inductor.hasGemm(pointwise()));
        // a convolution's kernels run GEMMs too (im2col, and the backward's products): a conv net's first backward used to load OpenBLAS itself
        for (String conv : List.of("aten.convolution.default", "aten.convolution_backward.default", "aten.conv2d.default")) {
            Graph c = new Graph();
            c.output(c.callFunction(OpRegistry.get(conv), c.placeholder("x", null), c.placeholder("w", null)));
            assertTrue(Inductor.hasGemm(new GraphModule(c)), conv);
        }
    }

    /** Compiles one of the graphs (argument "gemm" or "pointwise") without calling it, then says whether OpenBLAS started loading. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            if (args[0].equals("train")) {
                // AOT for training: the load starts before AOT's steps, so the backend already finds it started
                List<Tensor> in = List.of(Tensor.randn(8, 64), Tensor.randn(32, 64).requiresGrad(true), Tensor.randn(32).requiresGrad(true));
                dev.ember.aot.AotAutograd.compile(linearRelu(), in, (graph, fakes, which) -> {
                    if (which.equals("forward")) System.out.println("started before the backend " + Blas.backgroundLoadStarted());
                    return dev.ember.fx.Backends.EAGER.compile(graph, fakes);
                });
                return;
            }
            if (args[0].startsWith("built ")) {
                // a graph built by hand (as capture builds one), not compiled
                GraphModule gm = args[0].equals("built gemm") ? linearRelu() : pointwise();
                System.out.println("started when built " + Blas.backgroundLoadStarted() + " " + gm.graph().nodes().size());
                return;
            }
            boolean gemm = args[0].equals("gemm");
            GraphModule gm = gemm ? linearRelu() : pointwise();
            List<Tensor> in = gemm ? List.of(Tensor.randn(8, 64), Tensor.randn(32, 64), Tensor.randn(32)) : List.of(Tensor.randn(8, 64));
            InductorGraph compiled = Inductor.compile(gm, in);
            boolean started = Blas.backgroundLoadStarted();
            System.out.println("started " + started);
            if (started) {
                Blas.loadInBackground().join();
                System.out.println("native " + Blas.nativeAvailable());
                Tensor out = (Tensor) compiled.run(in.toArray());
                Tensor expected = in.get(0).matmul(in.get(1).t()).add(in.get(2)).relu();
                System.out.println("equal " + (out.sub(expected).abs().amax().item() <= 1e-4));   // compiled against eager
            }
        }
    }

    private static String runChild(String graph) throws Exception {
        ChildJvm.Run r = ChildJvm.main(Child.class).args(graph).env("EMBER_CACHE_DIR", ChildJvm.cacheDir("preload-test")).run();
        assertEquals(0, r.exit(), r.said());
        return r.said().lines().filter(l -> !l.startsWith("WARNING")).reduce("", (x, y) -> x + y + "\n");
    }

    @Test
    void compilingAGraphWithAGemmStartsLoadingOpenBlasAndOnlyThen() throws Exception {
        String gemm = runChild("gemm");
        assertTrue(gemm.contains("started true"), gemm);
        assertTrue(gemm.contains("native " + Blas.nativeAvailable()), "the background load ends as a load on first use does: " + gemm);
        assertTrue(gemm.contains("equal true"), gemm);
        String pointwise = runChild("pointwise");
        assertTrue(pointwise.contains("started false"), pointwise);
    }

    @Test
    void buildingAGraphThatCallsAGemmStartsTheLoadAlready() throws Exception {
        // the load overlaps building (or capturing) the graph, not only compiling it: a graph from the
        // artifact cache compiled in 50-230 ms, while loading oneMKL took 100-300 ms of its first call
        String gemm = runChild("built gemm");
        assertTrue(gemm.contains("started when built true"), gemm);
        String pointwise = runChild("built pointwise");
        assertTrue(pointwise.contains("started when built false"), pointwise);
    }

    @Test
    void compilingForTrainingStartsLoadingOpenBlasBeforeAotsSteps() throws Exception {
        String train = runChild("train");
        assertTrue(train.contains("started before the backend true"), train);
    }
}
