package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Symbolic sizes (issue #15): a dimension whose size changes becomes a symbol at the recompile
 * (automatic dynamic), or from the first compile when marked; one graph then serves every size in
 * its range, sizes read by the code stay symbolic through arithmetic and op arguments, and a use
 * that needs the number specializes it.
 */
class DynamicShapesTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor mlp(Tensor x, Tensor w) { return x.matmul(w).relu().sum(1, false); }

    static Tensor regroup(Tensor x) { return x.view(x.size(0) * 2, x.size(1) / 2).softmax(1); }

    static Tensor branchOnSize(Tensor x) { return x.size(0) > 4 ? x.mul(2) : x.neg(); }

    static int rowsTimesThree(Tensor x) { return x.size(0) * 3; }

    static Tensor copyIntoBatch(Tensor a, Tensor b) {
        b.copy_(a.unsqueeze(1));
        return a;
    }

    private static CompiledFrame frameOf(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> !f.method().owner().isHidden()).filter(f -> f.options() == opts).findFirst().orElseThrow();
    }

    private static String graphOf(CacheEntry e) { return e.graph().toGraphModule().code(); }

    @Test
    void aSizeThatChangesBecomesASymbolAtTheRecompileAndServesEverySizeAfter() {
        for (String backend : List.of("eager", "aot_eager")) {
            Options opts = Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicShapesTest::mlp, opts);
            Tensor w = Tensor.randn(8, 5);
            for (int n : new int[] {4, 6, 9, 2, 17, 33, 6}) {
                Tensor x = Tensor.randn(n, 8);
                assertArrayEquals(mlp(x, w).toFloatArray(), f.apply(x, w).toFloatArray(), backend + ", n = " + n);
            }
            CompiledFrame frame = frameOf(opts);
            assertEquals(2, frame.entries().size(), backend + ": the first size, then one graph for all others");
            String code = graphOf(frame.entries().getFirst());
            assertTrue(code.contains("f32[s0, 8]") && code.contains("f32[s0, 5]"), code);
            String guards = frame.entries().getFirst().graph().guards().stream().map(g -> g.describe()).toList().toString();
            assertTrue(guards.contains("SYMBOLIC_SHAPE: 2 <= x.size(0)"), guards);
            Ember.reset();
        }
    }

    @Test
    void aMarkedDimensionIsSymbolicFromTheFirstCompileAndSizesReadStaySymbolic() {
        Options opts = Options.backend("aot_eager");
        var f = Ember.compile((Fn1<Tensor, Tensor>) DynamicShapesTest::regroup, opts);
        for (int n : new int[] {3, 5, 7, 2, 64}) {
            Tensor x = Tensor.randn(n, 8);
            Ember.markDynamic(x, 0);
            assertArrayEquals(regroup(x).toFloatArray(), f.apply(x).toFloatArray(), 1e-6f, "n = " + n);   // softmax decomposed by AOT
        }
        CompiledFrame frame = frameOf(opts);
        assertEquals(1, frame.entries().size());
        String code = graphOf(frame.entries().getFirst());
        assertTrue(code.contains("2*s0, 4") && code.contains("f32[2*s0, 4]"), code);
    }

    @Test
    void aBranchOnASizeNarrowsTheSymbolsRangeInsteadOfSpecializingIt() {
        Options opts = Options.backend("eager");
        var f = Ember.compile((Fn1<Tensor, Tensor>) DynamicShapesTest::branchOnSize, opts);
        for (int n : new int[] {3, 6, 2, 4, 5, 100}) {
            Tensor x = Tensor.randn(n, 2);
            Ember.markDynamic(x, 0);
            assertArrayEquals(branchOnSize(x).toFloatArray(), f.apply(x).toFloatArray(), "n = " + n);
        }
        CompiledFrame frame = frameOf(opts);
        assertEquals(2, frame.entries().size(), "one graph per side of the branch, each for every size on its side");
        String guards = frame.entries().stream().flatMap(e -> e.graph().guards().stream()).map(g -> g.describe()).toList().toString();
        assertTrue(guards.contains("SYMBOLIC_SHAPE: 2 <= x.size(0) <= 4") && guards.contains("SYMBOLIC_SHAPE: 5 <= x.size(0)"), guards);
        String reason = frame.recompileReasons().getFirst().toString();
        assertTrue(reason.contains("2 <= x.size(0) <= 4 failed: actual 6 (the range of the branch taken: x.size(0) <= 4 is true at DynamicShapesTest.java:"), reason);
    }

    /** Linear conditions on a size, of every relation and both signs of coefficient. */
    private static final List<java.util.function.IntPredicate> CONDITIONS = List.of(n -> n > 4, n -> n >= 4, n -> n < 4, n -> n <= 4,
            n -> 2 * n - 3 < 10, n -> 10 - n > 3, n -> n * 3 >= 20, n -> -n <= -7);

    static java.util.function.IntPredicate condition;

    static Tensor branchOnCondition(Tensor x) { return condition.test(x.size(0)) ? x.mul(2) : x.neg(); }

    @Test
    void everyLinearConditionOnASizeNarrowsCorrectly() {
        for (int c = 0; c < CONDITIONS.size(); c++) {
            condition = CONDITIONS.get(c);
            Options opts = Options.backend("eager");
            var f = Ember.compile((Fn1<Tensor, Tensor>) DynamicShapesTest::branchOnCondition, opts);
            for (int n : new int[] {7, 2, 12, 3, 4, 5, 6, 9, 8, 10, 11}) {
                Tensor x = Tensor.randn(n, 2);
                Ember.markDynamic(x, 0);
                assertArrayEquals(branchOnCondition(x).toFloatArray(), f.apply(x).toFloatArray(), "condition " + c + ", n = " + n);
            }
            // one graph per side, except a side whose range holds two sizes (n < 4: 2 and 3), which is specialized per size
            // (ShapeEnv: too few sizes to tell polynomials apart); the condition is traced, its plain lambda told apart by its constant pool
            int expected = 0;
            for (boolean side : new boolean[] {true, false}) {
                java.util.function.IntPredicate onSide = n -> condition.test(n) == side;
                long sizes = java.util.stream.IntStream.rangeClosed(2, 1000).filter(onSide).count();
                expected += sizes < 3 ? (int) sizes : 1;
            }
            assertTrue(frameOf(opts).entries().size() <= expected, "condition " + c + ": " + expected + " graphs at most, got " + frameOf(opts).entries().size());
            Ember.reset();
        }
    }

    static Tensor equalsFour(Tensor x) { return x.size(0) == 4 ? x.mul(2) : x.neg(); }

    @Test
    void anEqualityWithASizeInRangeSpecializesIt() {
        Options opts = Options.backend("eager");
        var f = Ember.compile((Fn1<Tensor, Tensor>) DynamicShapesTest::equalsFour, opts);
        for (int n : new int[] {4, 5}) {
            Tensor x = Tensor.randn(n, 2);
            Ember.markDynamic(x, 0);
            assertArrayEquals(equalsFour(x).toFloatArray(), f.apply(x).toFloatArray(), "n = " + n);
        }
        assertTrue(frameOf(opts).entries().stream().allMatch(e -> !graphOf(e).contains("s0")), "specialized graphs have static sizes");
    }

    @Test
    void aSizeReturnedIsComputedFromTheCallsInputs() {
        Options opts = Options.backend("eager");
        var f = Ember.compile((Fn1<Tensor, Integer>) DynamicShapesTest::rowsTimesThree, opts);
        for (int n : new int[] {3, 5, 11}) {
            Tensor x = Tensor.randn(n, 2);
            Ember.markDynamic(x, 0);
            assertEquals(3 * n, f.apply(x));
        }
        assertEquals(1, frameOf(opts).entries().size());
    }

    @Test
    void sizesZeroAndOneAreSpecializedAndTheGuardSaysWhy() {
        Options opts = Options.backend("eager");
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicShapesTest::mlp, opts);
        Tensor w = Tensor.randn(8, 5);
        Tensor x = Tensor.randn(5, 8);
        Ember.markDynamic(x, 0);
        f.apply(x, w);
        Tensor one = Tensor.randn(1, 8);
        assertArrayEquals(mlp(one, w).toFloatArray(), f.apply(one, w).toFloatArray());
        CompiledFrame frame = frameOf(opts);
        assertEquals(2, frame.entries().size());
        String reason = frame.recompileReasons().getFirst().toString();
        assertTrue(reason.contains("2 <= x.size(0) failed: actual 1") && reason.contains("sizes 0 and 1 are specialized"), reason);
    }

    @Test
    void assumeStaticByDefaultFalseMakesSizesSymbolsFromTheFirstCompile() {
        Options opts = Options.backend("eager").assumeStaticByDefault(false);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicShapesTest::mlp, opts);
        Tensor w = Tensor.randn(8, 5);
        for (int n : new int[] {4, 6, 9}) f.apply(Tensor.randn(n, 8), w);
        assertEquals(1, frameOf(opts).entries().size());
        String code = graphOf(frameOf(opts).entries().getFirst());
        assertTrue(code.contains("f32[s0, s1]") && code.contains("f32[s1, s2]"), "every size a symbol, equal ones one symbol: " + code);
        assertTrue(Options.defaults().assumeStaticByDefault(true).dynamicSetting() == null, "true is automatic dynamic, the default");
    }

    @Test
    void dynamicFalseKeepsEverySizeStatic() {
        Options opts = Options.backend("eager").dynamic(false);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicShapesTest::mlp, opts);
        Tensor w = Tensor.randn(8, 5);
        for (int n : new int[] {4, 6, 9}) f.apply(Tensor.randn(n, 8), w);
        assertEquals(3, frameOf(opts).entries().size());
    }

    @Test
    void theInductorResultsAreRightAtEverySize() {
        Options opts = Options.backend("inductor");
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicShapesTest::mlp, opts);
        Tensor w = Tensor.randn(8, 5);
        for (int n : new int[] {4, 6, 9, 2, 17}) {
            Tensor x = Tensor.randn(n, 8);
            assertArrayEquals(mlp(x, w).toFloatArray(), f.apply(x, w).toFloatArray(), 1e-5f, "n = " + n);
        }
    }

    /**
     * Fuzzer seed 12305: the write into an input is made functional after capture, and the copy it
     * adds took its sizes from the example (7 rows): the graph for every batch wrote 7. The rewrite
     * now runs at every assignment of the symbols and is generalized, as AOT's lowering is.
     */
    @Test
    void aWriteIntoADynamicInputWritesEveryRow() {
        Options opts = Options.backend("aot_eager");
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicShapesTest::copyIntoBatch, opts);
        Tensor a = Tensor.randn(1);
        for (int n : new int[] {4, 7, 11, 5}) {
            Tensor expected = Tensor.randn(n, 8, 4, 16), actual = expected.clone();
            copyIntoBatch(a, expected);
            f.apply(a, actual);
            assertArrayEquals(expected.toFloatArray(), actual.toFloatArray(), "n = " + n);
        }
        assertEquals(2, frameOf(opts).entries().size());
    }

    static Tensor printsBetween(Tensor x) {
        Tensor y = x.relu().mul(2);
        Ember.graphBreak();
        return y.view(y.size(0) * 2, -1).sum(1, false);
    }

    @Test
    void aResumeMethodTakesTheSymbolicSizesOfTheGraphBeforeIt() {
        Options opts = Options.backend("eager");
        var f = Ember.compile((Fn1<Tensor, Tensor>) DynamicShapesTest::printsBetween, opts);
        for (int n : new int[] {3, 4, 9}) {
            Tensor x = Tensor.randn(n, 6);
            Ember.markDynamic(x, 0);
            assertArrayEquals(printsBetween(x).toFloatArray(), f.apply(x).toFloatArray(), "n = " + n);
        }
        CompiledFrame root = frameOf(opts);
        assertEquals(1, root.entries().size());
        CompiledFrame resume = root.entries().getFirst().resumeFrame();
        assertEquals(1, resume.entries().size(), "the resume method's first compile has the batch a symbol already");
        assertTrue(graphOf(resume.entries().getFirst()).contains("f32[s0, 6]"), graphOf(resume.entries().getFirst()));
    }

    static Tensor pairs(Tensor x) { return x.view(x.size(0) / 2, 2, -1).sum(1, false); }

    @Test
    void aSizeTheCodeDividesBecomesAMultipleWithADivisibilityGuard() {
        for (String backend : List.of("eager", "aot_eager", "inductor")) {
            Options opts = Options.backend(backend);
            var f = Ember.compile((Fn1<Tensor, Tensor>) DynamicShapesTest::pairs, opts);
            for (int n : new int[] {6, 8, 10, 2, 100}) {
                Tensor x = Tensor.randn(n, 3);
                Ember.markDynamic(x, 0);
                assertArrayEquals(pairs(x).toFloatArray(), f.apply(x).toFloatArray(), 1e-6f, backend + ", n = " + n);
            }
            CompiledFrame frame = frameOf(opts);
            assertEquals(1, frame.entries().size(), backend + ": one graph for every even batch");
            String code = graphOf(frame.entries().getFirst());
            assertTrue(code.contains("f32[2*s0, 3]") && code.contains("List.of(s0, 2, -1)"), code);
            String guards = frame.entries().getFirst().graph().guards().stream().map(g -> g.describe()).toList().toString();
            assertTrue(guards.contains("SYMBOLIC_SHAPE: x.size(0) % 2 == 0, 1 <= x.size(0) / 2"), guards);
            Tensor odd = Tensor.randn(7, 3);
            Ember.markDynamic(odd, 0);
            var eagerError = assertThrows(RuntimeException.class, () -> pairs(odd));
            var compiledError = assertThrows(RuntimeException.class, () -> f.apply(odd));
            assertEquals(eagerError.getClass(), compiledError.getClass(), backend + ": an odd batch fails as eager does");
            String reason = frame.recompileReasons().getFirst().toString();
            assertTrue(reason.contains("x.size(0) % 2 == 0 failed: actual 7"), reason);
            Ember.reset();
        }
    }

    @Test
    void markDynamicRefusesBadArguments() {
        Tensor x = Tensor.randn(4, 3);
        var e = assertThrows(IllegalArgumentException.class, () -> Ember.markDynamic(x, 2));
        assertTrue(e.getMessage().contains("dimension 2 is out of range"), e.getMessage());
        var r = assertThrows(IllegalArgumentException.class, () -> Ember.markDynamic(x, 0, 8, 16));
        assertTrue(r.getMessage().contains("its size now, 4, is outside the range"), r.getMessage());
    }
}
