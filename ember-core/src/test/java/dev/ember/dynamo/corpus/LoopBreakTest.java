package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.ResumeCodegen;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graph breaks inside loops and with objects under construction on the operand stack: a resume
 * method is made once per break position of the user's method and reused by every iteration, takes
 * the live values only, and is guarded by the comparisons of the loop counter, not its value.
 */
class LoopBreakTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static List<CompiledFrame> resumeFrames() {
        return FrameRegistry.frames().stream().filter(f -> f.method().owner().isHidden()).toList();
    }

    /** Parameter count of each resume method, by its parameter types (the names repeat: both breaks are on one line). */
    private static Map<String, Integer> resumeParameterCounts() {
        Map<String, Integer> out = new TreeMap<>();
        for (CompiledFrame f : resumeFrames()) out.put(f.method().type().displayDescriptor(), f.method().type().parameterCount());
        return out;
    }

    /**
     * The root's graph before the loop's first break, then one resume method at the break: one entry
     * for the iterations that go round (guarded L['i'] + 1 < L['n']) and one for the exit (the relu).
     * Three graphs, for 8 iterations as for 32; before resume methods were reused it was one nested
     * resume method per iteration, with twice the parameters at each level, until defining one failed.
     */
    @Test
    void breakInLoopBodyCompilesThreeGraphsWhateverTheTripCount() {
        for (int n : new int[] {8, 32}) {
            CompileCounter cc = new CompileCounter();
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::breakInCountedLoop, Options.backend(cc));
            Tensor x = Tensor.randn(3, 4);
            assertTrue(LoopBreakPrograms.breakInCountedLoop(x, n).sameData(f.apply(x, n)), "n=" + n);
            assertEquals(3, cc.frameCount(), "n=" + n);
            List<CompiledFrame> resumes = resumeFrames();
            assertEquals(1, resumes.size(), "one resume method for the break, reused by every iteration: " + resumes);
            assertEquals(2, resumes.getFirst().entries().size(), "the iterations that go round, and the exit");
            // live at the break: n, y and i (x is dead after the loop starts)
            assertEquals(3, resumes.getFirst().method().type().parameterCount(), resumes.getFirst().method().type().toString());
            f.apply(x, n);
            assertEquals(3, cc.frameCount(), "a second call compiles nothing");
            Ember.reset();
        }
    }

    /**
     * Each iteration's resume method runs inside the one before: 5000 iterations would overflow the
     * stack. Past 256 levels the resume method runs as plain bytecode, the remaining iterations
     * eagerly, so the loop's exit is never compiled: 2 graphs, eager's result.
     */
    @Test
    void longLoopWithABreakDoesNotOverflowTheStack() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::breakInCountedLoop, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertTrue(LoopBreakPrograms.breakInCountedLoop(x, 5000).sameData(f.apply(x, 5000)));
        assertEquals(2, cc.frameCount());
        assertTrue(LoopBreakPrograms.breakInCountedLoop(x, 40).sameData(f.apply(x, 40)));
        assertEquals(3, cc.frameCount(), "a short loop reaches its exit compiled");
    }

    @Test
    void tripCountChangingBetweenCallsDoesNotRecompile() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::breakInCountedLoop, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertTrue(LoopBreakPrograms.breakInCountedLoop(x, 3).sameData(f.apply(x, 3)));
        assertEquals(3, cc.frameCount());
        for (int n : new int[] {7, 1, 12}) {
            assertTrue(LoopBreakPrograms.breakInCountedLoop(x, n).sameData(f.apply(x, n)), "n=" + n);
            assertEquals(3, cc.frameCount(), "the guards compare the counter with the bound; neither is guarded by its value (n=" + n + ")");
        }
        String guards = resumeFrames().getFirst().entries().stream().map(e -> e.guards().toString()).toList().toString();
        assertTrue(guards.contains("L['i'] + 1 < L['n']") && guards.contains("L['i'] + 1 >= L['n']"), guards);
        // a trip count of 0 never enters the loop: the root's range guard (n >= 1) fails, and it recompiles once
        assertTrue(LoopBreakPrograms.breakInCountedLoop(x, 0).sameData(f.apply(x, 0)));
        assertEquals(4, cc.frameCount());
    }

    /**
     * Three nested loops with a break in the middle one and one in the innermost: 24 breaks in a row
     * for n = 4, each iteration continuing in a resume method called by the one before (the nesting
     * used to double the parameter list per level: a ClassFormatError by the sixth). Two resume
     * methods, taking the values live at their break; 6 graphs for n = 4 as for n = 6.
     */
    @Test
    void nestedLoopsBreakingDeepInResumeMethodsKeepParameterListsToTheLiveValues() {
        for (int n : new int[] {4, 6}) {
            CompileCounter cc = new CompileCounter();
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::breakInNestedLoops, Options.backend(cc));
            Tensor x = Tensor.randn(3, 4);
            assertTrue(LoopBreakPrograms.breakInNestedLoops(x, n).sameData(f.apply(x, n)), "n=" + n);
            assertEquals(6, cc.frameCount(), "n=" + n);
            // after the middle break: n, y, i, dead, j; after the innermost: those and k
            assertEquals(Map.of("(int,Tensor,int,Tensor,int)Tensor", 5, "(int,Tensor,int,Tensor,int,int)Tensor", 6), resumeParameterCounts());
            Ember.reset();
        }
    }

    @Test
    void throwNewWithItemInTheMessageCompilesThePrefix() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) LoopBreakPrograms::throwsWithItemInMessage, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        AssertionError eager = assertThrows(AssertionError.class, () -> LoopBreakPrograms.throwsWithItemInMessage(x));
        AssertionError compiled = assertThrows(AssertionError.class, () -> f.apply(x));
        assertEquals(eager.getMessage(), compiled.getMessage());
        assertEquals(1, cc.frameCount(), "x.add(1) and sum() before item(), the AssertionError made again after it");
        assertEquals(1, CorpusTest.frameOf(Options.backend(cc)).entries().size());
        Tensor v = Tensor.randn(5);
        assertTrue(LoopBreakPrograms.throwsWithItemInMessage(v).sameData(f.apply(v)), "the path that does not throw");
    }

    @Test
    void constructorArgumentFromItemCompilesBothSides() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) LoopBreakPrograms::constructsWithItem, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertTrue(LoopBreakPrograms.constructsWithItem(x).sameData(f.apply(x)));
        assertEquals(2, cc.frameCount(), "mul and sum before item(); new Scale(...) in the resume method, then mul and relu");
        // the resume method takes the item() result only: the Scale under construction is made again there
        assertEquals(Map.of("(Tensor,double)Tensor", 2), resumeParameterCounts());
    }

    @Test
    void newOfAClassNotTracedCompilesThePrefixAndRunsTheRestEagerly() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, String>) LoopBreakPrograms::buildsStringWithItem, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertEquals(LoopBreakPrograms.buildsStringWithItem(x), f.apply(x));
        assertEquals(1, cc.frameCount(), "x.mul(2) before new StringBuilder()");
    }

    /**
     * A break inside a constructor's arguments in a loop: the resume method's prologue makes the
     * object again and finishes its construction itself, then enters the loop body after the
     * constructor call. Before, it entered at the break with the remade object on the stack; the
     * loop's own {@code new} reached the same instruction, the verifier rejected the two, and the
     * whole method ran eagerly (no frame compiled).
     */
    @Test
    void anObjectUnderConstructionInALoopResumesCompiled() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, List<LoopBreakPrograms.Scale>>) LoopBreakPrograms::constructsInLoop, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertEquals(LoopBreakPrograms.constructsInLoop(x, 5), f.apply(x, 5));
        assertEquals(2, cc.frameCount(), "the graph before the loop's first break, and the resume method's (its exit has no tensor work)");
        assertEquals(1, resumeFrames().size(), "one resume method, reused by every iteration");
        assertEquals(LoopBreakPrograms.constructsInLoop(x, 7), f.apply(x, 7));
        assertEquals(2, cc.frameCount(), "no recompile for another trip count");
    }

    @Test
    void theResumeGraphTakesNoUnusedNumberInput() { // before: the resume graph took the item() result as an unused f64[] input
        List<List<String>> inputs = new java.util.ArrayList<>();
        CompileCounter cc = new CompileCounter();
        dev.ember.fx.Backend recording = (gm, example) -> {
            inputs.add(example.stream().map(t -> java.util.Arrays.toString(t.shape())).toList());
            return cc.compile(gm, example);
        };
        var f = Ember.compile((Fn2<Tensor, Integer, List<LoopBreakPrograms.Scale>>) LoopBreakPrograms::constructsInLoop, Options.backend(recording));
        Tensor x = Tensor.randn(3, 4);
        assertEquals(LoopBreakPrograms.constructsInLoop(x, 3), f.apply(x, 3));
        assertEquals(List.of(List.of("[3, 4]"), List.of("[3, 4]")), inputs, "each graph takes only the tensor it computes from (x, then y)");
    }

    @Test
    void aConstructorAfterTheBreakThrowsIntoTheLoopsOwnHandler() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, List<Object>>) LoopBreakPrograms::constructsUnderATry, Options.backend(cc));
        Tensor x = Tensor.rand(3, 4);                     // positive: the sums alternate in sign, every other constructor throws
        assertEquals(LoopBreakPrograms.constructsUnderATry(x, 6), f.apply(x, 6));
        assertEquals(1, resumeFrames().size(), "the resume method is compiled");
        assertTrue(cc.frameCount() >= 2, "frames: " + cc.frameCount());
    }

    @Test
    void nestedObjectsUnderConstructionResumeCompiled() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, List<LoopBreakPrograms.Pair>>) LoopBreakPrograms::constructsNestedInLoop, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertEquals(LoopBreakPrograms.constructsNestedInLoop(x, 4), f.apply(x, 4));
        assertEquals(1, resumeFrames().size(), "the resume method is compiled (each iteration's counter, a record component, is guarded)");
        assertTrue(cc.frameCount() >= 2, "frames: " + cc.frameCount());
    }

    @Test
    void aCounterTheGraphUsesIsGuardedByItsValue() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::usesCounterInGraph, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        for (int n : new int[] {5, 3, 6}) assertTrue(LoopBreakPrograms.usesCounterInGraph(x, n).sameData(f.apply(x, n)), "n=" + n);
        String guards = resumeFrames().getFirst().entries().stream().map(e -> e.guards().toString()).toList().toString();
        assertTrue(guards.contains("L['i']"), guards);
    }

    @Test
    void intInputComparedWithAConstantIsGuardedByARange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::branchesOnIntInput, opts);
        Tensor x = Tensor.randn(3, 4);
        for (int n : new int[] {5, 7, 4}) assertTrue(LoopBreakPrograms.branchesOnIntInput(x, n).sameData(f.apply(x, n)), "n=" + n);
        assertEquals(1, cc.frameCount(), "5, 7 and 4 all take n > 3");
        assertTrue(CorpusTest.newest(opts).guards().toString().contains("INT_RANGE: L['n'] >= 4"), CorpusTest.newest(opts).guards().toString());
        for (int n : new int[] {3, -2}) assertTrue(LoopBreakPrograms.branchesOnIntInput(x, n).sameData(f.apply(x, n)), "n=" + n);
        assertEquals(2, cc.frameCount(), "3 and -2 take the other branch");
    }

    @Test
    void intGuardsByComparisonAgreeWithEagerOverManyValues() {
        var strided = Ember.compile((dev.ember.Fn3<Tensor, Integer, Integer, Tensor>) LoopBreakPrograms::stridedLoop, Options.backend(new CompileCounter()));
        var countdown = Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::countdown, Options.backend(new CompileCounter()));
        var compares = Ember.compile((dev.ember.Fn3<Tensor, Integer, Integer, Tensor>) LoopBreakPrograms::comparesTwoInts, Options.backend(new CompileCounter()));
        Tensor x = Tensor.randn(3, 4);
        int[] values = {-3, 0, 1, 2, 5, 6, 11, 14, 3, -1, 7};
        for (int a : values) {
            assertTrue(LoopBreakPrograms.countdown(x, a).sameData(countdown.apply(x, a)), "countdown " + a);
            for (int b : values) {
                assertTrue(LoopBreakPrograms.stridedLoop(x, a, b).sameData(strided.apply(x, a, b)), "stridedLoop " + a + ", " + b);
                assertTrue(LoopBreakPrograms.comparesTwoInts(x, a, b).sameData(compares.apply(x, a, b)), "comparesTwoInts " + a + ", " + b);
            }
        }
    }

    @Test
    void resumeClassesPassTheVerifier() {
        Tensor x = Tensor.randn(3, 4);
        Ember.compile((Fn2<Tensor, Integer, Tensor>) LoopBreakPrograms::breakInNestedLoops).apply(x, 2);
        Ember.compile((Fn1<Tensor, Tensor>) LoopBreakPrograms::constructsWithItem).apply(x);
        var generated = ResumeCodegen.generatedClasses();
        assertTrue(generated.size() >= 3, generated.keySet().toString());
        var resolver = java.lang.classfile.ClassHierarchyResolver.defaultResolver()
                .orElse(java.lang.classfile.ClassHierarchyResolver.ofClassLoading(LoopBreakTest.class.getClassLoader()));
        generated.forEach((name, bytes) -> {
            var errors = java.lang.classfile.ClassFile.of(java.lang.classfile.ClassFile.ClassHierarchyResolverOption.of(resolver)).verify(bytes);
            assertTrue(errors.isEmpty(), name + ": " + errors);
        });
    }
}
