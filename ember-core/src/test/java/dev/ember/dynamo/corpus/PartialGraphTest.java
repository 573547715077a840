package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class PartialGraphTest {
    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void printBetweenTwoGraphs() {
        assumeTrue(dev.ember.ops.OpRegistry.all().stream().anyMatch(o -> o.name().equals("aten.add.Tensor")), "pointwise ops have not landed yet");
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn3<Tensor, Tensor, Double, Tensor>) BreakPrograms::printsBetween, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        Tensor out = f.apply(x, y, 2.0);
        assertTrue(BreakPrograms.printsBetween(x, y, 2.0).sameData(out));
        assertEquals(2, cc.frameCount());
        f.apply(x, y, 2.0);
        assertEquals(2, cc.frameCount());
    }

    @Test
    void printsShape() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((dev.ember.Fn2<Tensor, Tensor, Tensor>) BreakPrograms::printsShape, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4), w = Tensor.randn(4, 5);
        assertTrue(BreakPrograms.printsShape(x, w).sameData(f.apply(x, w)));
        assertEquals(2, cc.frameCount());
    }

    @Test
    void explicitBreak() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) BreakPrograms::explicitBetween, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertTrue(BreakPrograms.explicitBetween(x).sameData(f.apply(x)));
        assertEquals(2, cc.frameCount());
    }
}
