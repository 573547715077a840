package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad inputs to mm, bmm, addmm, matmul and linear: each raises libtorch's own message (taken from
 * libtorch in the test, not copied), from the meta function (so fake tensors raise it too), and
 * touches no argument. Also the metadata fake tensors get.
 */
class LinalgOpsTest {
    private static final Tensor F23 = Tensor.ones(2, 3), F34 = Tensor.ones(3, 4), F3 = Tensor.ones(3), F4 = Tensor.ones(4);

    private static Tensor ones(DType dtype, int... shape) { return Tensor.ones(dtype, shape); }

    /** The message of the RuntimeError libtorch raises for {@code expr}. */
    static String torchError(String expr, Object... args) {
        try {
            Torch.call(expr, args);
        } catch (IllegalStateException e) {
            String m = e.getMessage();
            int at = m.indexOf("RuntimeError: ");
            if (at < 0) throw new AssertionError("no RuntimeError in libtorch's failure: " + m, e);
            int end = m.indexOf('\n', at);
            return m.substring(at + "RuntimeError: ".length(), end < 0 ? m.length() : end);
        }
        throw new AssertionError("libtorch accepted " + expr + " " + Arrays.deepToString(args));
    }

    /**
     * {@code op} with {@code emberArgs} fails with libtorch's message for {@code expr} on {@code torchArgs},
     * leaves every tensor argument's version unchanged, and fails the same way on fake tensors.
     */
    static void assertSameError(String expr, Object[] torchArgs, String op, Object... emberArgs) {
        String expected = torchError(expr, torchArgs);
        int[] versions = Arrays.stream(emberArgs).mapToInt(x -> x instanceof Tensor t ? t.version() : 0).toArray();
        for (Object[] args : new Object[][] {emberArgs, fakes(emberArgs)}) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> OpRegistry.get(op).call(args), () -> op + " accepted " + Arrays.deepToString(args));
            assertTrue(e instanceof IllegalArgumentException || e instanceof IndexOutOfBoundsException, () -> "wrong exception type " + e);
            assertTrue(e.getMessage().contains(expected), () -> op + ": expected libtorch's message\n  " + expected + "\nbut got\n  " + e.getMessage());
        }
        for (int i = 0; i < emberArgs.length; i++) {
            if (emberArgs[i] instanceof Tensor t) assertEquals(versions[i], t.version(), op + " wrote to argument " + i);
        }
    }

    /** The same call through the same arguments on both sides; null arguments are {@code None} in {@code expr} and take no letter. */
    static void assertSameError(String expr, String op, Object... args) {
        assertSameError(expr, Arrays.stream(args).filter(java.util.Objects::nonNull).toArray(), op, args);
    }

    private static Object[] fakes(Object[] args) {
        return Arrays.stream(args).map(x -> x instanceof Tensor t ? FakeTensor.like(t) : x).toArray();
    }

    @Test
    void mmErrors() {
        assertSameError("torch.mm(a, b)", "aten.mm.default", F3, F34);
        assertSameError("torch.mm(a, b)", "aten.mm.default", F23, F3);
        assertSameError("torch.mm(a, b)", "aten.mm.default", F23, Tensor.ones(4, 5));
        assertSameError("torch.mm(a, b)", "aten.mm.default", F23, ones(DType.FLOAT64, 3, 4));
        assertSameError("torch.mm(a, b)", "aten.mm.default", ones(DType.INT32, 2, 3), ones(DType.INT64, 3, 4));
        assertSameError("torch.mm(a, b)", "aten.mm.default", ones(DType.BOOL, 2, 3), ones(DType.BOOL, 3, 4));
    }

    @Test
    void bmmErrors() {
        Tensor b = Tensor.ones(2, 2, 3);
        assertSameError("torch.bmm(a, b)", "aten.bmm.default", F23, F34);
        assertSameError("torch.bmm(a, b)", "aten.bmm.default", b, F34);
        assertSameError("torch.bmm(a, b)", "aten.bmm.default", b, Tensor.ones(3, 3, 4));
        assertSameError("torch.bmm(a, b)", "aten.bmm.default", b, Tensor.ones(2, 4, 4));
        assertSameError("torch.bmm(a, b)", "aten.bmm.default", b, ones(DType.FLOAT64, 2, 3, 4));
        assertSameError("torch.bmm(a, b)", "aten.bmm.default", ones(DType.BOOL, 2, 2, 3), ones(DType.BOOL, 2, 3, 4));
    }

    @Test
    void matmulErrorsOfEveryPath() {
        String mm = "torch.matmul(a, b)", op = "aten.matmul.default";
        assertSameError(mm, op, Tensor.ones(), F3);
        assertSameError(mm, op, F3, Tensor.ones());
        // dot
        assertSameError(mm, op, F3, F4);
        assertSameError(mm, op, F3, ones(DType.FLOAT64, 3));
        assertSameError(mm, op, ones(DType.BOOL, 3), ones(DType.BOOL, 3));
        // mv
        assertSameError(mm, op, F23, F4);
        assertSameError(mm, op, F23, ones(DType.FLOAT64, 3));
        assertSameError(mm, op, ones(DType.INT32, 2, 3), ones(DType.INT64, 3));
        assertSameError(mm, op, ones(DType.BOOL, 2, 3), ones(DType.BOOL, 3));
        // mm
        assertSameError(mm, op, F4, F34);
        assertSameError(mm, op, F23, Tensor.ones(4, 5));
        assertSameError(mm, op, F23, ones(DType.FLOAT64, 3, 4));
        assertSameError(mm, op, ones(DType.BOOL, 2, 3), ones(DType.BOOL, 3, 4));
        // folded into mm / mv
        assertSameError(mm, op, Tensor.ones(2, 2, 3), Tensor.ones(4, 5));
        assertSameError(mm, op, Tensor.ones(2, 2, 3), F4);
        assertSameError(mm, op, Tensor.ones(0, 2, 3), Tensor.ones(4, 4));
        assertSameError(mm, op, Tensor.ones(2, 2, 3), ones(DType.FLOAT64, 3, 4));
        Tensor batchOfTransposed = Tensor.ones(2, 5, 4);
        assertSameError("torch.matmul(a, b.transpose(1, 2))", new Object[] {F3, batchOfTransposed}, op, F3, batchOfTransposed.transpose(1, 2));
        // bmm on broadcast batches
        Tensor notFoldable = Tensor.ones(2, 2, 3);
        assertSameError("torch.matmul(a.transpose(0, 1), b)", new Object[] {notFoldable, F4}, op, notFoldable.transpose(0, 1), F4);
        assertSameError(mm, op, F3, Tensor.ones(2, 4, 5));
        assertSameError(mm, op, F23, Tensor.ones(2, 4, 5));
        assertSameError(mm, op, Tensor.ones(2, 2, 3), Tensor.ones(3, 3, 4));
        assertSameError(mm, op, Tensor.ones(2, 1, 2, 3), Tensor.ones(1, 3, 4, 5));
        assertSameError(mm, op, Tensor.ones(2, 2, 3), ones(DType.FLOAT64, 2, 3, 4));
        assertSameError(mm, op, ones(DType.BOOL, 2, 2, 3), ones(DType.BOOL, 2, 3, 4));
    }

    @Test
    void addmmErrors() {
        String op = "aten.addmm.default";
        assertSameError("torch.addmm(a, b, c)", op, ones(DType.FLOAT64, 4), F23, F34);
        assertSameError("torch.addmm(a, b, c)", op, F4, F23, ones(DType.FLOAT64, 3, 4));
        assertSameError("torch.addmm(a, b, c)", op, ones(DType.FLOAT64, 4), F23, ones(DType.FLOAT64, 3, 4));
        assertSameError("torch.addmm(a, b, c)", op, F4, F3, F34);
        assertSameError("torch.addmm(a, b, c)", op, F4, F23, F3);
        assertSameError("torch.addmm(a, b, c)", op, F4, F23, Tensor.ones(4, 4));
        assertSameError("torch.addmm(a, b, c)", op, Tensor.ones(5), F23, F34);
        assertSameError("torch.addmm(a, b, c)", op, Tensor.ones(3, 2, 4), F23, F34);
        assertSameError("torch.addmm(a, b, c)", op, ones(DType.BOOL, 4), ones(DType.BOOL, 2, 3), ones(DType.BOOL, 3, 4));
    }

    @Test
    void linearErrors() {
        String op = "aten.linear.default";
        Tensor w = Tensor.ones(4, 5);
        assertSameError("torch.linear(a, b)", op, Tensor.ones(), w);
        assertSameError("torch.linear(a, b)", op, Tensor.ones(5), Tensor.ones());
        assertSameError("torch.linear(a, b)", op, Tensor.ones(3, 5), Tensor.ones(2, 4, 5));
        assertSameError("torch.linear(a, b)", op, Tensor.ones(3, 6), w);
        assertSameError("torch.linear(a, b)", op, Tensor.ones(2, 3, 6), w);
        assertSameError("torch.linear(a, b)", op, Tensor.ones(3, 5), ones(DType.FLOAT64, 4, 5));
        assertSameError("torch.linear(a, b, c)", op, Tensor.ones(3, 5), w, ones(DType.FLOAT64, 4));
        assertSameError("torch.linear(a, b, c)", op, Tensor.ones(3, 5), w, Tensor.ones(5));
        assertSameError("torch.linear(a, b, c)", op, Tensor.ones(2, 3, 5), w, ones(DType.FLOAT64, 4));
        assertSameError("torch.linear(a, b, c)", op, Tensor.ones(2, 3, 5), w, Tensor.ones(3, 4));
        assertSameError("torch.linear(a, b, c)", op, Tensor.ones(5), w, Tensor.ones(2, 4));
        assertSameError("torch.linear(a, b, c)", op, Tensor.ones(2, 3, 5), Tensor.ones(5), Tensor.ones(1));
        Tensor nc = Tensor.ones(DType.INT64, 2, 5, 3);
        assertSameError("torch.linear(a.transpose(1, 2), b, c)", new Object[] {nc, ones(DType.INT64, 4, 5), F4},
                op, nc.transpose(1, 2), ones(DType.INT64, 4, 5), F4);
        assertSameError("torch.linear(a.transpose(1, 2), b, c)", new Object[] {Tensor.ones(2, 5, 3), w, Tensor.ones(5)},
                op, Tensor.ones(2, 5, 3).transpose(1, 2), w, Tensor.ones(5));
    }

    @Test
    void fakeTensorsGetTheRealResultsMetadata() {
        Random rng = new Random(3);
        int[][][] pairs = {{{4}, {4}}, {{3, 4}, {4}}, {{4}, {4, 2}}, {{2, 3, 4}, {4, 5}}, {{4}, {2, 4, 5}}, {{2, 1, 3, 4}, {5, 4, 2}}, {{0, 3, 4}, {4, 2}}};
        for (int[][] p : pairs) {
            Tensor a = Inputs.randn(rng, DType.FLOAT64, p[0]), b = Inputs.randn(rng, DType.FLOAT64, p[1]);
            Tensor real = a.matmul(b), fake = FakeTensor.like(a).matmul(FakeTensor.like(b));
            assertTrue(fake.isFake());
            assertArrayEquals(real.shape(), fake.shape(), Arrays.deepToString(p));
            assertArrayEquals(real.strides(), fake.strides(), Arrays.deepToString(p));
            assertEquals(real.dtype(), fake.dtype());
        }
        Tensor linear = (Tensor) OpRegistry.get("aten.linear.default").call(FakeTensor.like(Tensor.ones(2, 3, 5)), FakeTensor.like(Tensor.ones(4, 5)),
                FakeTensor.like(Tensor.ones(4)));
        assertArrayEquals(new int[] {2, 3, 4}, linear.shape());
    }
}
