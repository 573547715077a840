package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ints that changed between calls (automatic dynamic) are symbolic: inputs of the graph, used by
 * ops without casts where type promotion already gives eager's dtype, and guarded by what the trace
 * decided on them ({@code SYMBOLIC_INT: L['n'] % 2 != 0}) instead of their values, as Dynamo guards
 * a SymInt. Module int fields stay static, as Dynamo's do; an argument that was a tensor and is
 * an int now is dynamic at once.
 */
class DynamicIntTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor addOrSubByParity(Tensor x, Integer n) {
        if (n % 2 == 0) return x.add(n);
        return x.sub(n);
    }

    static Tensor scaleAndShift(Tensor x, Integer n) { return x.mul(n).add(n); }

    static Tensor threeWays(Tensor x, int n) {
        if (n * 3 - 1 > 10) return x.mul(n);
        if (n / 4 == -1) return x.sub(1);
        return x.add(n % 5);
    }

    static Tensor divide(Tensor x, int a, int b) { return x.add(a / b); }

    static Tensor widened(Tensor x, int n) {
        long m = n;
        return x.add(m * 1_000_000_007L % 1000);
    }

    static Tensor mulTensorOrInt(Tensor x, Object y) { return y instanceof Tensor t ? x.mul(t) : x.mul((Integer) y); }

    static Tensor broadcastRows(Tensor row, Integer n) { return row.expand(n, -1).add(Tensor.ones(n, 3)).sum(0, false).mul(n); }

    static Tensor paddedRows(Tensor row, int n) { return Tensor.zeros(n * 2 - 1, 3).add(row).sum(0, false); }

    static Tensor regroup(Tensor x, Integer n) { return x.view(n, -1).sum(1, false).mul(n); }

    static Tensor repeatAdd(Tensor x, Integer n) {
        for (int i = 0; i < n; i++) x = x.add(1);
        return x;
    }

    static Tensor pickRow(Tensor x, Integer n) { return x.select(0, n).mul(2); }

    static Tensor clampedScale(Tensor x, Integer n) {
        int k = Math.max(n, 3);
        if (k > 5) return x.mul(k);
        return x.add(Math.abs(n));
    }

    static Tensor longBranch(Tensor x, Long n) {
        if (n > 3L) return x.mul(2);
        return x.add(n);
    }

    /** A module whose int field changes every call. */
    static final class Stepping extends Module {
        final Linear linear = new Linear(4, 4);
        int step;

        @Override
        public Tensor forward(Tensor x) {
            step += 1;
            return linear.forward(x).mul(step);
        }
    }

    private static final int[] VALUES = {0, 1, 2, 3, -1, -2, -5, 7, 8, 100, 101, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1};

    private static List<String> guardsOf(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> f.options() == opts).flatMap(f -> f.entries().stream())
                .flatMap(e -> e.graph() == null ? java.util.stream.Stream.empty() : e.graph().guards().stream()).map(g -> g.describe()).toList();
    }

    @Test
    void aBranchOnTheParityOfAnIntIsGuardedByTheParityNotTheValue() {
        for (String backend : new String[] {"eager", "aot_eager", "inductor"}) {
            CompileCounter cc = new CompileCounter();
            Options opts = backend.equals("eager") ? Options.backend(cc) : Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::addOrSubByParity, opts);
            Tensor x = Tensor.randn(5).to(DType.FLOAT64);
            for (int n : VALUES) assertArrayEquals(addOrSubByParity(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, backend + ", n = " + n);
            long frames = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).mapToLong(fr -> fr.entries().size()).sum();
            assertEquals(3, frames, backend + ": a constant for 0, then one graph per parity");
            List<String> guards = guardsOf(opts);
            assertTrue(guards.contains("SYMBOLIC_INT: L['n'] % 2 != 0") && guards.contains("SYMBOLIC_INT: L['n'] % 2 == 0"), guards.toString());
            Ember.reset();
        }
    }

    @Test
    void anIntUsedAsAnOperandNeedsNoCast() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::scaleAndShift, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        for (int n : VALUES) assertArrayEquals(scaleAndShift(x, n).toFloatArray(), f.apply(x, n).toFloatArray(), "n = " + n);
        assertEquals(2, cc.frameCount(), "a constant for 0, then one graph for every value");
        assertEquals(4, cc.opCount(), "mul and add in each graph, as in Dynamo's: no _to_copy of the int");
    }

    @Test
    void comparisonsOfArithmeticOnAnIntAreGuardedAsJavaEvaluatesThem() {
        for (String backend : new String[] {"eager", "inductor"}) {
            CompileCounter cc = new CompileCounter();
            Options opts = backend.equals("eager") ? Options.backend(cc) : Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::threeWays, opts);
            Tensor x = Tensor.randn(6).to(DType.FLOAT64);
            for (int n = -12; n <= 20; n++) assertArrayEquals(threeWays(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, backend + ", n = " + n);
            // n * 3 wraps: Integer.MAX_VALUE * 3 - 1 is negative in Java, and the guard computes it as Java does
            for (int n : VALUES) assertArrayEquals(threeWays(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, backend + ", n = " + n);
            long frames = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).mapToLong(fr -> fr.entries().size()).sum();
            assertTrue(frames <= 5, backend + ": one constant compile, then a graph per path (and per guard set), not per value: " + frames);
            assertTrue(guardsOf(opts).stream().anyMatch(g -> g.contains("L['n'] * 3 - 1 > 10") || g.contains("(L['n'] * 3) - 1")), guardsOf(opts).toString());
            Ember.reset();
        }
    }

    @Test
    void aDivisionByASymbolicIntIsGuardedNonZeroAndThrowsAsJavaDoes() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn3<Tensor, Integer, Integer, Tensor>) DynamicIntTest::divide, opts);
        Tensor x = Tensor.randn(3).to(DType.FLOAT64);
        int[][] calls = {{7, 2}, {9, 4}, {-9, 4}, {9, -4}, {Integer.MIN_VALUE, -1}, {5, 3}};
        for (int[] c : calls) assertArrayEquals(divide(x, c[0], c[1]).toDoubleArray(), f.apply(x, c[0], c[1]).toDoubleArray(), 0, c[0] + " / " + c[1]);
        assertTrue(guardsOf(opts).contains("SYMBOLIC_INT: L['b'] != 0"), guardsOf(opts).toString());
        assertThrows(ArithmeticException.class, () -> divide(x, 3, 0));
        assertThrows(ArithmeticException.class, () -> f.apply(x, 3, 0));
        assertArrayEquals(divide(x, 8, 3).toDoubleArray(), f.apply(x, 8, 3).toDoubleArray(), 0);
    }

    @Test
    void anIntWidenedToLongComputesInLong() {
        for (String backend : new String[] {"eager", "inductor"}) {
            Options opts = backend.equals("eager") ? Options.backend(new CompileCounter()) : Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::widened, opts);
            Tensor x = Tensor.zeros(2).to(DType.FLOAT64);
            for (int n : VALUES) assertArrayEquals(widened(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, backend + ", n = " + n);
            Ember.reset();
        }
    }

    @Test
    void anIntUsedAsASizeIsASymbolOfTheGraph() {
        for (String backend : new String[] {"eager", "aot_eager", "inductor"}) {
            CompileCounter cc = new CompileCounter();
            Options opts = backend.equals("eager") ? Options.backend(cc) : Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::broadcastRows, opts);
            Tensor row = Tensor.randn(1, 3).to(DType.FLOAT64);
            for (int n : new int[] {2, 3, 4, 7, 16, 100, 1, 0, 5}) {
                assertArrayEquals(broadcastRows(row, n).toDoubleArray(), f.apply(row, n).toDoubleArray(), 1e-12, backend + ", n = " + n);
            }
            long frames = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).mapToLong(fr -> fr.entries().size()).sum();
            assertEquals(4, frames, backend + ": a constant for 2, one graph for every n >= 2, one each for 1 and 0 (specialized, as sizes 0 and 1 are)");
            assertTrue(guardsOf(opts).stream().anyMatch(g -> g.contains("2 <= n (an int used as a size)")), guardsOf(opts).toString());
            Ember.reset();
        }
    }

    @Test
    void theGraphPrintsTheIntAsASymAndRunsWhenParsedBack() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::broadcastRows, opts);
        Tensor row = Tensor.randn(1, 3).to(DType.FLOAT64);
        f.apply(row, 2);
        f.apply(row, 3);
        OutputGraph symbolic = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).flatMap(fr -> fr.entries().stream())
                .map(e -> e.graph()).filter(g -> g.inputSources().size() == 2).findFirst().orElseThrow();
        String code = symbolic.toGraphModule().code();
        assertTrue(code.contains("Tensor l_n_ /* i32[] = Sym(s0) */"), code);
        dev.ember.fx.GraphModule parsed = dev.ember.fx.GraphModule.parse(code);
        for (int n : new int[] {2, 5, 11}) {
            Object out = new dev.ember.fx.Interpreter(parsed).run(row, Tensor.scalar((long) n).to(DType.INT32));
            Tensor result = out instanceof List<?> l ? (Tensor) l.getFirst() : (Tensor) out;
            assertArrayEquals(broadcastRows(row, n).toDoubleArray(), result.toDoubleArray(), 1e-12, "n = " + n);
        }
    }

    @Test
    void arithmeticOnAnIntUsedAsASizeIsAPolynomialOfItsSymbol() {
        for (String backend : new String[] {"eager", "inductor"}) {
            CompileCounter cc = new CompileCounter();
            Options opts = backend.equals("eager") ? Options.backend(cc) : Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::paddedRows, opts);
            Tensor row = Tensor.randn(1, 3);
            for (int n = 2; n <= 20; n++) assertArrayEquals(paddedRows(row, n).toFloatArray(), f.apply(row, n).toFloatArray(), backend + ", n = " + n);
            long frames = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).mapToLong(fr -> fr.entries().size()).sum();
            assertEquals(2, frames, backend + ": a constant for 2, then one graph with the size 2*s0 - 1");
            Ember.reset();
        }
    }

    @Test
    void aSizeUseTheGraphCannotExpressSpecializesTheIntAndStaysCorrect() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::regroup, Options.backend(cc));
        Tensor x = Tensor.randn(24).to(DType.FLOAT64);
        // view(n, -1) of 24 elements holds only for divisors of 24: no polynomial serves every n, so each n is a constant
        for (int n : new int[] {2, 3, 4, 6, 8, 12, 24}) assertArrayEquals(regroup(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 1e-12, "n = " + n);
        assertThrows(RuntimeException.class, () -> regroup(x, 5), "eager refuses a view of 24 into 5 rows");
        assertThrows(RuntimeException.class, () -> f.apply(x, 5), "so does the compiled function");
    }

    @Test
    void anIntUsedAsAnIndexIsSpecializedAloneAndTheTensorSizesStaySymbolic() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::pickRow, opts);
        for (int[] c : new int[][] {{8, 3}, {9, 4}, {10, 5}, {11, 5}, {12, 5}}) {
            Tensor x = Tensor.randn(c[0], 3);
            assertArrayEquals(pickRow(x, c[1]).toFloatArray(), f.apply(x, c[1]).toFloatArray(), c[0] + " rows, n = " + c[1]);
        }
        List<String> guards = guardsOf(opts);
        assertTrue(guards.contains("EQUALS_MATCH: L['n'] == 5") && guards.stream().anyMatch(g -> g.startsWith("SYMBOLIC_SHAPE: 2 <= x.size(0)")), guards.toString());
        assertEquals(3, cc.frameCount(), "sizes 9 to 12 share a graph per index; the index is a constant");
    }

    @Test
    void aBackendOfStaticSizesGetsTheIntAsAConstantSize() {
        CompileCounter cc = new CompileCounter();
        dev.ember.fx.Backend staticSizes = new dev.ember.fx.Backend() {
            @Override
            public dev.ember.fx.CompiledGraph compile(dev.ember.fx.GraphModule gm, List<dev.ember.tensor.FakeTensor> exampleInputs) {
                assertTrue(gm.sizeSymbols() == null, "no size symbol reaches a backend of static sizes");
                return cc.compile(gm, exampleInputs);
            }

            @Override
            public boolean compilesSymbolicSizes() { return false; }
        };
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::broadcastRows, Options.backend(staticSizes));
        Tensor row = Tensor.randn(1, 3).to(DType.FLOAT64);
        for (int n : new int[] {2, 3, 4, 3}) assertArrayEquals(broadcastRows(row, n).toDoubleArray(), f.apply(row, n).toDoubleArray(), 1e-12, "n = " + n);
        assertEquals(3, cc.frameCount());
    }

    @Test
    void mathMaxMinAndAbsOfAnIntStayGuardedByTheComparison() {
        for (String backend : new String[] {"eager", "inductor"}) {
            CompileCounter cc = new CompileCounter();
            Options opts = backend.equals("eager") ? Options.backend(cc) : Options.backend(backend);
            var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::clampedScale, opts);
            Tensor x = Tensor.randn(4).to(DType.FLOAT64);
            for (int n : new int[] {0, 1, 9, -9, 4, 5, 6, Integer.MIN_VALUE, Integer.MAX_VALUE, -3, 100}) {
                assertArrayEquals(clampedScale(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, backend + ", n = " + n);
            }
            long frames = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).mapToLong(fr -> fr.entries().size()).sum();
            assertEquals(3, frames, backend + ": a constant for 0, then one graph per side of Math.max(n, 3) > 5");
            assertTrue(guardsOf(opts).contains("SYMBOLIC_INT: Math.max(L['n'], 3) > 5"), guardsOf(opts).toString());
            Ember.reset();
        }
    }

    @Test
    void aBranchOnALongIsGuardedByTheComparison() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Long, Tensor>) DynamicIntTest::longBranch, opts);
        Tensor x = Tensor.randn(4).to(DType.FLOAT64);
        for (long n : new long[] {0, 5, 10, -7, Long.MAX_VALUE, Long.MIN_VALUE, 2, 3, 4, 1L << 40}) {
            assertArrayEquals(longBranch(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, "n = " + n);
        }
        assertEquals(3, cc.frameCount(), "a constant for 0, then one graph per side of n > 3");
        assertTrue(guardsOf(opts).contains("SYMBOLIC_INT: L['n'] > 3") && guardsOf(opts).contains("SYMBOLIC_INT: L['n'] <= 3"), guardsOf(opts).toString());
    }

    @Test
    void aLoopBoundComparedOftenIsGuardedByItsValue() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) DynamicIntTest::repeatAdd, opts);
        Tensor x = Tensor.randn(3);
        for (int n : new int[] {1, 3, 30, 30, 3}) assertArrayEquals(repeatAdd(x, n).toFloatArray(), f.apply(x, n).toFloatArray(), "n = " + n);
        List<String> guards = guardsOf(opts);
        // three iterations: four comparisons, each a guard; thirty: one value guard instead of 31 comparisons
        assertTrue(guards.contains("SYMBOLIC_INT: 2 < L['n']") && guards.contains("SYMBOLIC_INT: 3 >= L['n']"), guards.toString());
        assertTrue(guards.contains("EQUALS_MATCH: L['n'] == 30"), guards.toString());
        assertEquals(3, cc.frameCount());
    }

    @Test
    void aModuleIntFieldStaysStaticAsDynamoKeepsIt() {
        CompileCounter cc = new CompileCounter();
        Stepping model = new Stepping();
        var f = Ember.compile((dev.ember.Fn1<Tensor, Tensor>) model::forward, Options.backend(cc));
        Tensor x = Tensor.randn(2, 4);
        for (int call = 0; call < 4; call++) {
            float[] compiled = f.apply(x).toFloatArray();
            assertArrayEquals(model.linear.forward(x).mul(call + 1).toFloatArray(), compiled, "call " + call);
        }
        assertEquals(4, model.step);
        assertEquals(4, cc.frameCount(), "each value of the field compiles, as in Dynamo (test_self_mutating1: 4 frames)");
    }

    @Test
    void aTensorArgumentThatIsAnIntNowIsDynamicAtOnce() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Object, Tensor>) DynamicIntTest::mulTensorOrInt, Options.backend(cc));
        Tensor x = Tensor.randn(3);
        assertArrayEquals(mulTensorOrInt(x, Tensor.ones(3)).toFloatArray(), f.apply(x, Tensor.ones(3)).toFloatArray());
        for (int n : new int[] {3, 4, -2, 0, 1}) assertArrayEquals(mulTensorOrInt(x, n).toFloatArray(), f.apply(x, n).toFloatArray(), "y = " + n);
        assertEquals(2, cc.frameCount(), "the int is an input from its first call, not a constant that recompiles");
    }
}
