package dev.ember;

import dev.ember.dynamo.CompileCounter;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.PreparedGraph;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code EMBER_BACKEND}, set through its system property {@code ember.backend}. */
class BackendOverrideTest {
    @AfterEach
    void off() {
        System.clearProperty(Options.BACKEND_PROPERTY);
        Ember.reset();
    }

    private static GraphModule relu() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(g.callFunction(OpRegistry.get("aten.relu.default"), x));
        return new GraphModule(g);
    }

    @Test
    void replacesEveryBackendGivenByNameAndDropsAModeMeantForAnother() {
        System.setProperty(Options.BACKEND_PROPERTY, "eager");
        Options o = Options.defaults().mode("reduce-overhead");
        assertEquals("eager", o.getBackendName());
        assertEquals("eager", Options.backend("aot_eager").getBackendName());
        // The eager backend refuses mode reduce-overhead; forced, it is handed mode default.
        var compiled = o.getBackend().compile(relu(), List.of(FakeTensor.like(Tensor.randn(3))), o.getMode());
        assertInstanceOf(PreparedGraph.class, compiled);
    }

    @Test
    void leavesABackendObjectAlone() {
        System.setProperty(Options.BACKEND_PROPERTY, "eager");
        CompileCounter counter = new CompileCounter();
        assertSame(counter, Options.backend(counter).getBackend());
    }

    @Test
    void anUnknownNameListsTheRegisteredOnes() {
        System.setProperty(Options.BACKEND_PROPERTY, "eagre");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.defaults().getBackend());
        assertTrue(e.getMessage().startsWith("-Dember.backend=eagre: unknown backend 'eagre'; registered backends: ["), e.getMessage());
    }
}
