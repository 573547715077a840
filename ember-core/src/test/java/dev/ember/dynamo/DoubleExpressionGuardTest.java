package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A branch on a number computed from double arguments ({@code s * 2 > 1}, {@code a + b > 0},
 * {@code Math.abs(s) < eps}) is guarded by that comparison of the expression, evaluated again on
 * each call with the JVM's double semantics (a NaN takes the side javac's {@code dcmpl}/{@code dcmpg}
 * gives it, {@code -0.0} equals {@code 0.0}), as Dynamo guards a SymFloat expression: every value on
 * the side the trace took reuses its graph, and the other side compiles once.
 */
class DoubleExpressionGuardTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor branchOnTwice(Tensor x, double s) { return s * 2 > 1.0 ? x.mul(s) : x.neg(); }

    static Tensor branchOnSum(Tensor x, double a, double b) { return a + b > 0 ? x.mul(a) : x.mul(b); }

    static Tensor branchOnAbs(Tensor x, double s) { return Math.abs(s) < 1e-3 ? x.mul(2) : x.div(s); }

    /** {@code <=} compiles to dcmpg (a NaN is greater): the NaN takes the else side here. */
    static Tensor branchLessOrEqual(Tensor x, double s) { return s - 0.5 <= 0 ? x.add(1) : x.sub(1); }

    static Tensor branchOnIntTimesDouble(Tensor x, int n) { return n * 0.5 > 2 ? x.mul(n) : x.add(n); }

    private static final double[] VALUES = {0.75, 0.5, 0.25, 0.0, -0.0, -1.0, 1e-300, -1e-300, 3.0, 1e308, -1e308,
            Double.MIN_VALUE, Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 0.5000000000000001, 0.49999999999999994};

    private static CompiledFrame frameOf(Options opts) {
        return FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).findFirst().orElseThrow();
    }

    private static List<String> guards(Options opts) {
        return frameOf(opts).entries().stream().flatMap(e -> e.graph().guards().stream()).map(g -> g.describe()).toList();
    }

    private static float[] eagerOf(Tensor t) { return t.toFloatArray(); }

    @Test
    void aBranchOnTwiceTheDoubleCompilesEachSideOnce() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) DoubleExpressionGuardTest::branchOnTwice, opts);
        Tensor x = Tensor.randn(3, 4);
        for (double s : VALUES) assertArrayEquals(eagerOf(branchOnTwice(x, s)), eagerOf(f.apply(x, s)), "s = " + s);
        assertEquals(2, cc.frameCount(), "one graph per side of the branch over " + VALUES.length + " values");
        assertTrue(guards(opts).contains("SYMBOLIC_INT: L['s'] * 2.0 > 1.0"), guards(opts).toString());
        assertTrue(guards(opts).contains("SYMBOLIC_INT: L['s'] * 2.0 <= 1.0 or a NaN"), guards(opts).toString());
        assertEquals("L['s'] * 2.0 > 1.0 failed: L['s'] is 0.5", frameOf(opts).recompileReasons().getFirst().failedGuards().getFirst());
    }

    @Test
    void aBranchOnTheSumOfTwoDoublesIsGuardedByTheSum() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn3<Tensor, Double, Double, Tensor>) DoubleExpressionGuardTest::branchOnSum, opts);
        Tensor x = Tensor.randn(5);
        for (double a : VALUES) {
            for (double b : new double[] {1.0, -1.0, -0.0, Double.NaN, Double.NEGATIVE_INFINITY, -a}) {
                assertArrayEquals(eagerOf(branchOnSum(x, a, b)), eagerOf(f.apply(x, a, b)), "a = " + a + ", b = " + b);
            }
        }
        assertEquals(2, cc.frameCount());
        assertTrue(guards(opts).contains("SYMBOLIC_INT: L['a'] + L['b'] > 0.0"), guards(opts).toString());
    }

    @Test
    void aBranchOnMathAbsIsGuardedByIt() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) DoubleExpressionGuardTest::branchOnAbs, opts);
        Tensor x = Tensor.randn(6);
        for (double s : VALUES) assertArrayEquals(eagerOf(branchOnAbs(x, s)), eagerOf(f.apply(x, s)), 1e-6f, "s = " + s);
        for (double s : new double[] {-1e-4, 1e-4, -0.001, 0.001, 0.0010000000000000002}) {
            assertArrayEquals(eagerOf(branchOnAbs(x, s)), eagerOf(f.apply(x, s)), 1e-6f, "s = " + s);
        }
        assertEquals(2, cc.frameCount());
        assertTrue(guards(opts).contains("SYMBOLIC_INT: Math.abs(L['s']) >= 0.001 or a NaN"), guards(opts).toString());
    }

    @Test
    void aNaNTakesTheSideDcmpgGivesIt() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) DoubleExpressionGuardTest::branchLessOrEqual, opts);
        Tensor x = Tensor.randn(4);
        assertArrayEquals(eagerOf(branchLessOrEqual(x, Double.NaN)), eagerOf(f.apply(x, Double.NaN)));
        assertEquals(1, cc.frameCount());
        for (double s : new double[] {1.0, Double.POSITIVE_INFINITY, 0.6}) assertArrayEquals(eagerOf(branchLessOrEqual(x, s)), eagerOf(f.apply(x, s)));
        assertEquals(1, cc.frameCount(), "NaN - 0.5 <= 0 is false, as 1.0 - 0.5 <= 0 is");
        for (double s : new double[] {0.5, -0.0, Double.NEGATIVE_INFINITY}) assertArrayEquals(eagerOf(branchLessOrEqual(x, s)), eagerOf(f.apply(x, s)));
        assertEquals(2, cc.frameCount());
        assertTrue(guards(opts).contains("SYMBOLIC_INT: L['s'] - 0.5 > 0.0 or a NaN"), guards(opts).toString());
    }

    @Test
    void anIntConvertedToDoubleIsGuardedByTheExpression() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DoubleExpressionGuardTest::branchOnIntTimesDouble, opts);
        Tensor x = Tensor.randn(4);
        // the int becomes dynamic when it changes (as in Dynamo); from then on the branch is guarded by its comparison
        for (int n : new int[] {1, 2, 3, 7, 9, 4, 5, 100, -3, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertArrayEquals(eagerOf(branchOnIntTimesDouble(x, n)), eagerOf(f.apply(x, n)), "n = " + n);
        }
        assertTrue(cc.frameCount() <= 3, "the first value, then one graph per side: " + cc.frameCount());
        assertTrue(guards(opts).stream().anyMatch(g -> g.contains("(double) L['n'] * 0.5 > 2.0")), guards(opts).toString());
    }
}
