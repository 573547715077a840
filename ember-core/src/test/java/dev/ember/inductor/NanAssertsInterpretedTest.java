package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.NanAsserts;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A graph the inductor leaves to the interpreter is checked node by node, as generated code would be. */
class NanAssertsInterpretedTest {
    @AfterEach
    void off() { System.clearProperty(NanAsserts.PROPERTY); }

    @Test
    void aGraphRunInTheInterpreterIsCheckedToo() {
        System.setProperty(NanAsserts.PROPERTY, "1");
        Graph g = new Graph();
        var x = g.placeholder("x", null);
        g.output(g.callMethod("log", List.of(x), Map.of()));   // a call_method node: not lowered
        InductorGraph c = Inductor.compile(new GraphModule(g), List.of(Tensor.of(1f)), Inductor.Mode.DEFAULT, null);
        assertTrue(c.perfHints().contains("the whole graph runs in the interpreter"), c.perfHints()::toString);
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> c.run(Tensor.of(1f, -1f)));
        assertEquals("op log", e.ranAfter());
        assertEquals("[1]", e.index());
        assertEquals("GraphModule", e.graph(), "outside a compilation, the module's class name");
    }
}
