package dev.ember.tensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import dev.ember.testing.SourcePrograms;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernels that take their output uninitialized ({@link Tensor#allocateUninitialized}) write
 * every element: with the poison pattern on, each gives bit for bit what it gives on zeroed memory,
 * also when its array is a recycled one full of another tensor's values.
 */
class UninitializedOutputsTest {

    private boolean poisonBefore;

    @BeforeEach
    void rememberThePoisonSetting() {
        poisonBefore = Allocation.poisoning();
    }

    @AfterEach
    void restore() {
        Allocation.setPoisoning(poisonBefore);
    }

    /** Every opted-in eager kernel, over dtypes, broadcasting, strided inputs and empty tensors. */
    private static Map<String, Supplier<Tensor>> eagerCases() {
        Generator g = new Generator(7);
        Tensor f = Tensor.randn(g, 33, 70), row = Tensor.randn(g, 70), col = Tensor.randn(g, 33, 1);
        Tensor strided = Tensor.randn(g, 70, 33).transpose(0, 1);
        Tensor d = f.to(DType.FLOAT64), i32 = Tensor.randint(g, -50, 50, 33, 70).to(DType.INT32), i64 = Tensor.randint(g, 1, 9, 33, 70);
        Tensor bools = f.gt(0.0), empty = Tensor.randn(g, 0, 70);
        Map<String, Supplier<Tensor>> c = new LinkedHashMap<>();
        c.put("add broadcast", () -> f.add(row));
        c.put("mul column", () -> f.mul(col));
        c.put("sub strided", () -> f.sub(strided));
        c.put("add scalar f64", () -> d.add(2.5));
        c.put("div int32 → float", () -> i32.div(Tensor.full(DType.INT32, 3.0)));
        c.put("mul int64", () -> i64.mul(i64));
        c.put("add bool", () -> bools.add(bools));
        c.put("maximum", () -> f.maximum(strided));
        c.put("neg strided", () -> strided.neg());
        c.put("exp f64", () -> d.exp());
        c.put("abs int32", () -> i32.abs());
        c.put("relu", () -> f.relu());
        c.put("clamp tensor", () -> f.clamp(col.neg(), col.abs()));
        c.put("add empty", () -> empty.add(row));
        c.put("softmax", () -> f.softmax(-1));
        c.put("softmax dim 0 strided", () -> strided.softmax(0));
        c.put("log_softmax f64", () -> d.logSoftmax(1));
        c.put("layer_norm", () -> dev.ember.nn.F.layerNorm(f, new int[] {70}, row, row.abs(), 1e-5));
        c.put("sum dim", () -> f.sum(1, false));
        c.put("sum int32", () -> i32.sum(0, true));
        c.put("sum bool", () -> bools.sum(1, false));
        c.put("mean", () -> f.mean(new int[] {0}, false));
        c.put("amax", () -> strided.amax(new int[] {1}, true));
        c.put("amin int64", () -> i64.amin(new int[] {0}, false));
        c.put("to int64", () -> f.to(DType.INT64));
        return c;
    }

    @Test
    void opsWithUninitializedOutputsGiveTheSameResultOnPoisonedAndOnRecycledMemory() {
        Map<String, Supplier<Tensor>> cases = eagerCases();
        Allocation.setPoisoning(false);
        Map<String, Tensor> clean = new LinkedHashMap<>();
        cases.forEach((name, op) -> clean.put(name, op.get()));
        Allocation.setPoisoning(true);
        cases.forEach((name, op) -> assertEqualWithinTwoUlps(clean.get(name), op.get(), name + " (poisoned)"));
        // in a scope, every output array is released, and the same op the next time round takes one back full of old values
        Allocation.setPoisoning(false);
        for (int round = 0; round < 3; round++) {
            for (var e : cases.entrySet()) {
                try (TensorScope scope = TensorScope.open()) {
                    Tensor dirty = Tensor.randn(33, 70).mul(1e3);   // leaves its values in the pool for the next allocation of its size
                    dirty.add(1.0);
                }
                try (TensorScope scope = TensorScope.open()) {
                    assertEqualWithinTwoUlps(clean.get(e.getKey()), e.getValue().get(), e.getKey() + " (recycled, round " + round + ")");
                }
            }
        }
    }

    @Test
    void compiledGraphsFreshOutputsAreFullyWrittenByTheirKernels() {
        Fn1<Tensor, Tensor> chain = x -> x.mul(1.5).add(2.0).relu().sub(x).abs();
        Fn1<Tensor, Tensor> norm = x -> x.softmax(-1).add(x.sum(1, true));
        Fn3<Tensor, Tensor, Tensor, Tensor> ln = (x, w, b) -> dev.ember.nn.F.layerNorm(x, new int[] {x.size(1)}, w, b, 1e-5).mul(2.0);
        Fn1<Tensor, Tensor> cat = x -> Tensor.cat(List.of(x.exp(), x.neg().transpose(0, 1).contiguous().transpose(0, 1)), 1).amax(new int[] {0}, false);
        Tensor x = Tensor.randn(new Generator(3), 96, 200), w = Tensor.randn(200), b = Tensor.randn(200);
        Allocation.setPoisoning(false);
        List<Tensor> expected = List.of(chain.apply(x), norm.apply(x), ln.apply(x, w, b), cat.apply(x));
        Allocation.setPoisoning(true);
        Fn1<Tensor, Tensor> chainC = Ember.compile(chain), normC = Ember.compile(norm), catC = Ember.compile(cat);
        Fn3<Tensor, Tensor, Tensor, Tensor> lnC = Ember.compile(ln);
        for (int call = 0; call < 3; call++) {
            List<Tensor> actual = new ArrayList<>();
            try (TensorScope scope = TensorScope.open()) {
                actual.add(scope.keep(chainC.apply(x)));
                actual.add(scope.keep(normC.apply(x)));
                actual.add(scope.keep(lnC.apply(x, w, b)));
                actual.add(scope.keep(catC.apply(x)));
            }
            for (int i = 0; i < expected.size(); i++) {
                Tensor e = expected.get(i), a = actual.get(i);
                assertFalse(hasNaN(a), "graph " + i + ", call " + call + ": an element the kernel did not write (poison NaN)");
                assertTrue(e.sub(a).abs().amax().item() <= 1e-4 * (1 + e.abs().amax().item()), "graph " + i + " compiled vs eager, call " + call);
            }
        }
    }

    @Test
    void thePoisonShowsAnElementAKernelLeftUnwrittenInEveryDtype() {
        Allocation.setPoisoning(true);
        for (DType d : DType.values()) {
            for (int n : new int[] {16, 40_000}) {   // a new array, and one large enough to be pooled
                try (TensorScope scope = TensorScope.open()) {
                    Tensor t = Tensor.allocateUninitialized(TensorMeta.contiguous(d, n));
                    for (int i = 0; i < n - 1; i++) t.storage().writeLong(i, 1);   // a "kernel" that forgets the last element
                    Storage s = t.storage();
                    switch (d) {
                        case FLOAT32 -> assertTrue(Float.isNaN(s.floats()[n - 1]), d + " " + n);
                        case FLOAT64 -> assertTrue(Double.isNaN(s.doubles()[n - 1]), d + " " + n);
                        case INT32 -> assertEquals(0xDEADBEEF, s.ints()[n - 1], d + " " + n);
                        case INT64 -> assertEquals(0xDEADBEEFDEADBEEFL, s.longs()[n - 1], d + " " + n);
                        case BOOL -> assertEquals(0x5A, s.bools()[n - 1], d + " " + n + ": neither true (1) nor false (0)");
                    }
                }
            }
        }
    }

    @Test
    void withoutTheExportNewArraysFallBackToZeroedOnesSilently(@TempDir Path dir) throws Exception {
        // this JVM has --add-exports java.base/jdk.internal.misc=ALL-UNNAMED (pom.xml); a user's program started without it must work the same
        assertTrue(Allocation.uninitializedArraysAvailable(), "the tests' JVM passes the export");
        String said = SourcePrograms.run(dir, "NoExport.java", """
                import dev.ember.tensor.*;
                public class NoExport {
                    public static void main(String[] args) {
                        System.out.println("available " + Allocation.uninitializedArraysAvailable());
                        Tensor t = Tensor.allocateUninitialized(TensorMeta.contiguous(DType.FLOAT32, 1000));
                        boolean zeroed = true;
                        for (float v : t.toFloatArray()) zeroed &= v == 0;
                        System.out.println("zeroed " + zeroed);
                        Tensor a = Tensor.arange(0, 100_000, 1).to(DType.FLOAT32), b = a.mul(2.0);
                        System.out.println("equal " + (a.add(b).sub(a.mul(3.0)).abs().amax().item() == 0));
                    }
                }
                """);
        assertTrue(said.contains("available false"), said);
        assertTrue(said.contains("zeroed true"), said);
        assertTrue(said.contains("equal true"), said);
        assertFalse(said.contains("Exception"), "silently: " + said);
    }

    private static boolean hasNaN(Tensor t) {
        if (!t.dtype().isFloatingPoint()) return false;
        for (double v : t.toDoubleArray()) if (Double.isNaN(v)) return true;
        return false;
    }

    private static void assertEqualWithinTwoUlps(Tensor expected, Tensor actual, String what) {
        assertEquals(expected.dtype(), actual.dtype(), what);
        assertTrue(java.util.Arrays.equals(expected.shape(), actual.shape()), what);
        Tensor e = expected.contiguous(), a = actual.contiguous();
        int n = e.numel();
        for (int i = 0; i < n; i++) {
            double x = e.storage().readDouble(i), y = a.storage().readDouble(i);
            // within two units in the last place of the dtype: the Vector API's exp and log lanes round differently
            // in the interpreter (Java's fallback) and under C2 (an intrinsic), so two calls of one kernel may differ
            // by an ulp; an element a kernel did not write holds the poison (NaN, 0xDEADBEEF) or a stale value, far beyond
            double ulp = e.dtype() == dev.ember.tensor.DType.FLOAT32 ? Math.ulp((float) x) : e.dtype() == dev.ember.tensor.DType.FLOAT64 ? Math.ulp(x) : 0;
            if (Double.isNaN(y) || Math.abs(x - y) > 2 * ulp) {   // none of the cases computes a NaN
                throw new AssertionError(what + ": element " + i + " is " + y + ", expected " + x);
            }
        }
    }
}
