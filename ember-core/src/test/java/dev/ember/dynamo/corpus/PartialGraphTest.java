package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.GraphBreakType;
import dev.ember.dynamo.Unsupported;
import java.util.List;
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
        var f = Ember.compile((Fn3<Tensor, Tensor, Double, Tensor>) BreakPrograms::printsBetween, Options.backend(cc).reorderableLogging(false));
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
        var f = Ember.compile((dev.ember.Fn2<Tensor, Tensor, Tensor>) BreakPrograms::printsShape, Options.backend(cc).reorderableLogging(false));
        Tensor x = Tensor.randn(3, 4), w = Tensor.randn(4, 5);
        assertTrue(BreakPrograms.printsShape(x, w).sameData(f.apply(x, w)));
        assertEquals(2, cc.frameCount());
        // With reorderable logging (the default) the print is replayed after one graph.
        CompileCounter one = new CompileCounter();
        var g = Ember.compile((dev.ember.Fn2<Tensor, Tensor, Tensor>) BreakPrograms::printsShape, Options.backend(one));
        assertTrue(BreakPrograms.printsShape(x, w).sameData(g.apply(x, w)));
        assertEquals(1, one.frameCount());
    }

    @Test
    void bothBranchTargetsOfADataDependentBranchCompile() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) BreakPrograms::asBooleanBranch, opts);
        Tensor pos = Tensor.full(1.0, 3, 4), neg = Tensor.full(0.0, 3, 4);
        assertTrue(BreakPrograms.asBooleanBranch(pos).sameData(f.apply(pos)));
        assertTrue(BreakPrograms.asBooleanBranch(neg).sameData(f.apply(neg)));
        var root = CorpusTest.frameOf(opts);
        assertEquals(1, root.entries().size(), "the graph before the break is the same for both");
        var resume = root.entries().getFirst().resumeFrame();
        assertEquals(2, resume.entries().size(), "the resume method recompiled for the other branch");
        assertTrue(resume.recompileReasons().getFirst().failedGuards().getFirst().contains("L['asBoolean'] == 1 failed"), "named after the call whose result it is: " + resume.recompileReasons());
        assertEquals(3, cc.frameCount());
        f.apply(pos);
        f.apply(neg);
        assertEquals(3, cc.frameCount(), "both branches are cached");
    }

    @Test
    void resumeMethodRecompilesOnNewShapes() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) BreakPrograms::explicitBetween, opts);
        for (int n : new int[] {3, 5, 3}) {
            Tensor x = Tensor.randn(n, 4);
            assertTrue(BreakPrograms.explicitBetween(x).sameData(f.apply(x)));
        }
        var root = CorpusTest.frameOf(opts);
        assertEquals(2, root.entries().size());
        assertEquals(root.entries().get(0).resumeFrame(), root.entries().get(1).resumeFrame(), "one resume method for both shapes");
        assertEquals(2, root.entries().getFirst().resumeFrame().entries().size());
        assertEquals(4, cc.frameCount());
    }

    @Test
    void instanceMethodKeepsThisAndPrivateFieldsAcrossTheBreak() {
        CompileCounter cc = new CompileCounter();
        Tensor w = Tensor.randn(4, 5);
        BreakPrograms.Model eager = new BreakPrograms.Model(w), compiled = new BreakPrograms.Model(w);
        var f = Ember.compile((Fn1<Tensor, Tensor>) compiled::forward, Options.backend(cc));
        for (int i = 0; i < 2; i++) {
            Tensor x = Tensor.randn(3, 4);
            assertTrue(eager.forward(x).sameData(f.apply(x)));
            assertEquals(eager.calls(), compiled.calls());
        }
    }

    @Test
    void emberDisableBreaksAtTheCallAndRunsTheMethodEagerly() {
        Tensor x = Tensor.randn(3, 4);
        var before = Ember.explain((Fn1<Tensor, Tensor>) BreakPrograms::callsDisabledAtRunTime).with(x);
        assertEquals(0, before.graphBreakCount(), before.toString());
        Ember.disable((Fn1<Tensor, Tensor>) BreakPrograms::helperDisabledAtRunTime);
        Ember.reset();
        var after = Ember.explain((Fn1<Tensor, Tensor>) BreakPrograms::callsDisabledAtRunTime).with(x);
        assertEquals(List.of("GB0020"), after.breakReasons().stream().map(b -> b.gbId()).toList(), after.toString());
        assertEquals(2, after.graphCount(), "t before the call, sum after it");
        var f = Ember.compile((Fn1<Tensor, Tensor>) BreakPrograms::helperDisabledAtRunTime);
        assertTrue(BreakPrograms.helperDisabledAtRunTime(x).sameData(f.apply(x)), "compiling a disabled function runs it eagerly");
    }

    @Test
    void everyBreakTypeHasItsCataloguePage() throws Exception {
        for (GraphBreakType t : GraphBreakType.values()) {
            java.nio.file.Path page = java.nio.file.Path.of("..").resolve(t.docsPath());
            assertTrue(java.nio.file.Files.isRegularFile(page), "missing " + page);
            String text = java.nio.file.Files.readString(page);
            assertTrue(text.startsWith("# " + t.id() + ": " + t.shortType()), page.toString());
            for (String h : t.hints()) assertTrue(text.contains(h), page + " lacks the hint " + h);
            Unsupported u = new Unsupported(t, "test", List.of(), null);
            assertTrue(u.getMessage().contains("See " + t.docsPath()), u.getMessage());
        }
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
