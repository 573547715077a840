package dev.ember.passes;

import dev.ember.aot.Aot;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.ConvOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pass stages AOT runs: each pass named, switchable, and the captured graph left as it was. */
class PassManagerTest {

    @AfterEach
    void reset() {
        PassManager.disable(null);
        PassManager.enable(null);
    }

    /** {@code relu(x)}, with a {@code sin(x)} nothing uses. */
    private static GraphModule withDeadNode() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.callFunction(PointwiseOps.SIN, x);
        g.output(g.callFunction(PointwiseOps.RELU, x));
        return new GraphModule(g);
    }

    private static boolean hasSin(GraphModule gm) {
        return gm.graph().nodes().stream().anyMatch(n -> n.target() == PointwiseOps.SIN);
    }

    @Test
    void deadCodeIsDroppedBeforeTheBackendAndTheCapturedGraphIsKept() {
        GraphModule captured = withDeadNode();
        Aot.Prepared p = Aot.prepare(captured, List.of(Tensor.randn(3)));
        assertFalse(hasSin(p.graph()), p.graph().code());
        assertTrue(hasSin(captured), "AOT works on a copy");
    }

    @Test
    void eachPassCanBeSwitchedOffByName() {
        PassManager.disable("pre_grad.dead_code_elimination");
        assertFalse(hasSin(Aot.prepare(withDeadNode(), List.of(Tensor.randn(3))).graph()), "the post-grad pass still removes it");
        assertEquals(List.of("dead_code_elimination"), PassManager.run(PassManager.Stage.POST_GRAD, withDeadNode(), false));
        PassManager.disable("pre_grad.dead_code_elimination, post_grad.dead_code_elimination");
        assertTrue(hasSin(Aot.prepare(withDeadNode(), List.of(Tensor.randn(3))).graph()));
        assertEquals(List.of(), PassManager.run(PassManager.Stage.POST_GRAD, withDeadNode(), false));
    }

    /** {@code batch_norm(conv2d(x, w), …, training=false)} on [1, 2, 4, 4] input. */
    private static GraphModule convBatchNorm() {
        Graph g = new Graph();
        Node x = g.placeholder("x", Tensor.randn(1, 2, 4, 4)), w = g.placeholder("w", Tensor.randn(3, 2, 1, 1));
        Node mean = g.placeholder("mean", Tensor.randn(3)), var = g.placeholder("var", Tensor.rand(3));
        g.output(g.callFunction(NormOps.BATCH_NORM, g.callFunction(ConvOps.CONV2D, x, w), null, null, mean, var, false, 0.1, 1e-5));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm);
        return gm;
    }

    @Test
    void aBatchNormOnAnInputIsLeftAlone() {
        Graph g = new Graph();
        Node x = g.placeholder("x", Tensor.randn(1, 3, 2, 2)), mean = g.placeholder("mean", Tensor.randn(3)), var = g.placeholder("var", Tensor.rand(3));
        g.output(g.callFunction(NormOps.BATCH_NORM, x, null, null, mean, var, false, 0.1, 1e-5));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm);
        assertEquals(List.of(), PassManager.run(PassManager.Stage.PRE_GRAD, gm, false));
    }

    @Test
    void inferenceOnlyPassesAreSkippedForTrainingAndOptInPassesUnlessEnabled() {
        assertEquals(List.of(), PassManager.run(PassManager.Stage.PRE_GRAD, convBatchNorm(), false), "opt-in, not enabled");
        PassManager.enable("pre_grad.conv_bn_folding");
        assertEquals(List.of("conv_bn_folding"), PassManager.run(PassManager.Stage.PRE_GRAD, convBatchNorm(), false));
        assertEquals(List.of(), PassManager.run(PassManager.Stage.PRE_GRAD, convBatchNorm(), true), "inference only");
        PassManager.enable(null);
        assertTrue(PassManager.names().contains("pre_grad.batch_linear_fusion"));
        String off = PassManager.configuration(false);
        PassManager.enable("pre_grad.batch_linear_fusion");
        assertTrue(!off.equals(PassManager.configuration(false)) && !PassManager.configuration(false).equals(PassManager.configuration(true)),
                "a compiled-graph cache keys on what the passes did");
        PassManager.enable(null);
    }

    @Test
    void anUnknownPassNameIsRefusedWithTheList() {
        var e = assertThrows(IllegalArgumentException.class, () -> PassManager.disable("post_grad.dce"));
        assertTrue(e.getMessage().contains("post_grad.dead_code_elimination"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PassManager.enable("pre_grad.batch_linear"));
        assertTrue(e.getMessage().startsWith("EMBER_ENABLE_PASSES names no pass [pre_grad.batch_linear]"), e.getMessage());
    }
}
