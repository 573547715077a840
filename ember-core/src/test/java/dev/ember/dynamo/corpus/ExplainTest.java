package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExplainTest {

    @Test
    void explainsACompiledGraph() {
        ExplainOutput e = Ember.explain((Fn2<Tensor, Integer, Tensor>) Programs::loopN).with(Tensor.randn(3, 4), 2);
        assertEquals(1, e.graphCount());
        assertEquals(0, e.graphBreakCount());
        assertEquals(List.of(2), e.opsPerGraph());
        assertTrue(e.guards().contains("INT_RANGE: L['n'] == 2"), e.guards().toString());
        assertTrue(e.guards().stream().anyMatch(g -> g.startsWith("TENSOR_MATCH: L['x'] f32[3, 4]")), e.guards().toString());
        assertTrue(e.compileTimesNanos().containsKey("trace"));
        assertTrue(e.graphs().getFirst().contains("aten.transpose.int"), e.graphs().getFirst());
        String report = e.toString();
        assertTrue(report.contains("Graph Count: 1") && report.contains("Op Count: 2"), report);
        assertTrue(report.contains("Programs.java:" + GraphBreakTest.lineOf("for (int i = 0; i < n; i++) x = x.transpose(0, 1);")), report);
    }

    @Test
    void explainsAGraphBreak() {
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) Programs::readsItem).with(Tensor.randn(3, 4));
        // select+select before the item() break, unsqueeze in the resume method after it.
        assertEquals(2, e.graphCount());
        assertEquals(List.of(2, 1), e.opsPerGraph());
        assertEquals(1, e.graphBreakCount());
        ExplainOutput.BreakReason b = e.breakReasons().getFirst();
        assertEquals("GB0001", b.gbId());
        assertTrue(b.reason().startsWith("Unsupported Tensor data access: Tensor.item()"), b.reason());
        assertEquals(GraphBreakTest.lineOf(".item();"), b.userFrame().line());
        assertTrue(e.toString().contains("[GB0001]"), e.toString());
    }
}
