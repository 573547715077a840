package dev.ember.passes;

import dev.ember.aot.Aot;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
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
    void reset() { PassManager.disable(null); }

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
        assertEquals(List.of("dead_code_elimination"), PassManager.run(PassManager.Stage.POST_GRAD, withDeadNode()));
        PassManager.disable("pre_grad.dead_code_elimination, post_grad.dead_code_elimination");
        assertTrue(hasSin(Aot.prepare(withDeadNode(), List.of(Tensor.randn(3))).graph()));
        assertEquals(List.of(), PassManager.run(PassManager.Stage.POST_GRAD, withDeadNode()));
    }

    @Test
    void anUnknownPassNameIsRefusedWithTheList() {
        var e = assertThrows(IllegalArgumentException.class, () -> PassManager.disable("post_grad.dce"));
        assertTrue(e.getMessage().contains("post_grad.dead_code_elimination"), e.getMessage());
    }
}
