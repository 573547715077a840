package dev.ember.ops;

import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape composites (tril, triu, flip, roll, repeat, tile, expand_as, reshape_as, type_as,
 * unbind, movedim, swapaxes, diagonal, diag, trace, unflatten, repeat_interleave) against libtorch
 * over shapes, dtypes, negative dims and non-contiguous layouts; which of them are views; their
 * gradients against finite differences; and their errors for bad input.
 */
class CompositeShapeOpsTest {
    private static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.INT64, DType.INT32, DType.BOOL);

    /** A tensor of {@code dtype} with varied values: normal floats, small integers, or mixed booleans. */
    static Tensor sample(Random rng, DType dtype, int... shape) {
        return switch (dtype) {
            case FLOAT32, FLOAT64 -> Inputs.randn(rng, dtype, shape);
            case BOOL -> Inputs.randint(rng, DType.INT64, 0, 2, shape).ne(0.0);
            default -> Inputs.randint(rng, dtype, -9, 10, shape);
        };
    }

    /** Each layout of each dtype's sample of {@code shape}, with a label. */
    static void forInputs(Random rng, int[] shape, java.util.function.BiConsumer<Tensor, String> check) {
        for (DType d : DTYPES) {
            for (Inputs.Layout in : Inputs.layouts(sample(rng, d, shape))) check.accept(in.tensor(), d + " " + Arrays.toString(shape) + " " + in);
        }
    }

    @Test
    void trilAndTriuMatchLibtorch() {
        Random rng = new Random(1);
        for (int[] shape : List.of(new int[] {3, 4}, new int[] {2, 3, 5}, new int[] {4, 2}, new int[] {0, 3})) {
            forInputs(rng, shape, (x, what) -> {
                for (int k : new int[] {-2, -1, 0, 1, 3}) {
                    assertClose(x.tril(k), Torch.call("torch.tril(a, " + k + ")", x), "tril " + k + " " + what);
                    assertClose(x.triu(k), Torch.call("torch.triu(a, " + k + ")", x), "triu " + k + " " + what);
                }
            });
        }
    }

    @Test
    void flipAndRollMatchLibtorch() {
        Random rng = new Random(2);
        for (int[] shape : List.of(new int[] {5}, new int[] {3, 4}, new int[] {2, 3, 4}, new int[] {0, 2})) {
            forInputs(rng, shape, (x, what) -> {
                int last = shape.length - 1;
                for (int[] dims : List.of(new int[] {0}, new int[] {-1}, new int[] {0, last}, new int[0])) {
                    int[] unique = Arrays.stream(dims).map(d -> d < 0 ? d + shape.length : d).distinct().toArray();
                    assertClose(x.flip(unique), Torch.call("torch.flip(a, b)", x, unique), "flip " + Arrays.toString(unique) + " " + what);
                }
                assertClose(x.roll(2, -1), Torch.call("torch.roll(a, 2, -1)", x), "roll 2 -1 " + what);
                assertClose(x.roll(-7, 0), Torch.call("torch.roll(a, -7, 0)", x), "roll -7 0 " + what);
                assertClose(x.roll(3), Torch.call("torch.roll(a, 3)", x), "roll 3 flattened " + what);
                if (shape.length > 1) {
                    assertClose(x.roll(new int[] {1, -2}, new int[] {0, -1}), Torch.call("torch.roll(a, [1, -2], [0, -1])", x), "roll two dims " + what);
                }
            });
        }
    }

    @Test
    void flipAndRollCopy() {
        Tensor x = Tensor.randn(3, 4);
        assertFalse(x.flip().storage() == x.storage(), "flip with no dims is a copy, as ATen's");
        assertFalse(x.roll(4, 1).storage() == x.storage(), "a roll by a whole turn is a copy");
    }

    @Test
    void repeatTileAndRepeatInterleaveMatchLibtorch() {
        Random rng = new Random(3);
        for (int[] shape : List.of(new int[] {3}, new int[] {2, 3}, new int[] {2, 1, 3})) {
            forInputs(rng, shape, (x, what) -> {
                int[] ones = new int[shape.length];
                Arrays.fill(ones, 1);
                int[] more = new int[shape.length + 1];
                Arrays.fill(more, 2);
                more[shape.length] = 1;
                for (int[] r : List.of(ones, more, withFirst(ones, 3), withFirst(ones, 0))) {
                    assertClose(x.repeat(r), Torch.call("a.repeat(b)", x, r), "repeat " + Arrays.toString(r) + " " + what);
                }
                for (int[] r : List.of(new int[] {2}, new int[] {2, 3, 1, 2}, new int[0])) {
                    assertClose(x.tile(r), Torch.call("torch.tile(a, b)", x, r), "tile " + Arrays.toString(r) + " " + what);
                }
                for (int r : new int[] {0, 1, 3}) {
                    assertClose(x.repeatInterleave(r, -1), Torch.call("torch.repeat_interleave(a, " + r + ", -1)", x), "repeat_interleave " + r + " " + what);
                    assertClose(x.repeatInterleave(r), Torch.call("torch.repeat_interleave(a, " + r + ")", x), "repeat_interleave flattened " + r + " " + what);
                }
            });
        }
        Tensor x = Tensor.randn(2, 3);
        assertFalse(x.repeat(1, 1).storage() == x.storage(), "repeat by ones is a copy, as ATen's");
    }

    private static int[] withFirst(int[] a, int first) {
        int[] b = a.clone();
        b[0] = first;
        return b;
    }

    @Test
    void asOpsMatchLibtorch() {
        Random rng = new Random(4);
        Tensor x = sample(rng, DType.FLOAT32, 3, 1), big = sample(rng, DType.INT32, 2, 3, 4);
        Tensor expanded = x.expandAs(big);
        assertClose(expanded, Torch.call("a.expand_as(b)", x, big), "expand_as");
        assertSame(x.storage(), expanded.storage(), "expand_as is a view");
        Tensor y = sample(rng, DType.INT64, 4, 3);
        Tensor reshaped = y.reshapeAs(Tensor.zeros(2, 6));
        assertClose(reshaped, Torch.call("a.reshape_as(b)", y, Tensor.zeros(2, 6)), "reshape_as");
        assertSame(y.storage(), reshaped.storage(), "reshape_as of a contiguous tensor is a view");
        Tensor t = Inputs.transposed(y);
        assertClose(t.reshapeAs(Tensor.zeros(12)), Torch.call("a.reshape_as(b)", t, Tensor.zeros(12)), "reshape_as non-contiguous");
        for (DType d : DTYPES) {
            Tensor other = sample(rng, d, 2);
            assertClose(y.typeAs(other), Torch.call("a.type_as(b)", y, other), "type_as " + d);
        }
        assertSame(y, y.typeAs(Tensor.zeros(DType.INT64, 1)), "type_as to its own dtype is the tensor itself, as ATen's to()");
    }

    @Test
    void unbindMovedimSwapaxesAndUnflattenAreViewsMatchingLibtorch() {
        Random rng = new Random(5);
        forInputs(rng, new int[] {2, 3, 4}, (x, what) -> {
            for (int d : new int[] {0, 1, -1}) {
                List<Tensor> parts = x.unbind(d);
                assertClose(parts, Torch.callList("torch.unbind(a, " + d + ")", x), "unbind " + d + " " + what);
                for (Tensor p : parts) assertSame(x.storage(), p.storage(), "unbind gives views");
            }
            Tensor moved = x.movedim(0, -1);
            assertClose(moved, Torch.call("torch.movedim(a, 0, -1)", x), "movedim " + what);
            assertSame(x.storage(), moved.storage(), "movedim is a view");
            assertClose(x.movedim(new int[] {2, 0}, new int[] {0, 1}), Torch.call("torch.movedim(a, [2, 0], [0, 1])", x), "movedim lists " + what);
            Tensor swapped = x.swapaxes(0, -1);
            assertClose(swapped, Torch.call("torch.swapaxes(a, 0, -1)", x), "swapaxes " + what);
            assertSame(x.storage(), swapped.storage(), "swapaxes is a view");
        });
        Tensor x = sample(rng, DType.FLOAT32, 2, 6, 3);
        Tensor u = x.unflatten(1, 2, -1);
        assertClose(u, Torch.call("a.unflatten(1, [2, -1])", x), "unflatten");
        assertSame(x.storage(), u.storage(), "unflatten is a view");
        assertClose(x.unflatten(-1, 3, 1), Torch.call("a.unflatten(-1, [3, 1])", x), "unflatten last dim");
    }

    @Test
    void diagonalMatchesLibtorchAndIsAViewWhereItCanBe() {
        Random rng = new Random(6);
        for (int[] shape : List.of(new int[] {4, 4}, new int[] {3, 5}, new int[] {5, 2}, new int[] {2, 3, 4}, new int[] {0, 3})) {
            forInputs(rng, shape, (x, what) -> {
                for (int off : new int[] {0, 1, -1, 2, -3, 6}) {
                    assertClose(x.diagonal(off, 0, 1), Torch.call("torch.diagonal(a, " + off + ", 0, 1)", x), "diagonal " + off + " " + what);
                    assertClose(x.diagonal(off, -1, 0), Torch.call("torch.diagonal(a, " + off + ", -1, 0)", x), "diagonal " + off + " -1 0 " + what);
                }
            });
        }
        Tensor x = Tensor.randn(3, 4, 5);
        assertSame(x.storage(), x.diagonal(1, 1, 2).storage(), "diagonal of two dims adjacent in memory is a view");
        assertSame(x.storage(), x.diagonal(-2, 1, 0).storage(), "either way round");
        // dims 0 and 2 step 20 and 1 apart: no view op of Ember's merges them (ATen's as_strided would), so a copy
        assertFalse(x.diagonal(0, 0, 2).storage() == x.storage(), "diagonal of dims apart in memory is a copy");
        Tensor t = Inputs.transposed(x);
        assertSame(t.storage(), t.diagonal(-1, 1, 2).storage(), "diagonal of a transposed tensor is a view");
        Tensor v = x.diagonal(0, 0, 1);
        Tensor before = x.clone();
        ShapeOps.COPY_.call(v, Tensor.zeros(5, 3));
        assertClose(x.diagonal(0, 0, 1), Torch.call("torch.zeros(5, 3)"), "a write into the diagonal view lands in the tensor");
        assertTrue(x.sub(before).abs().sum().item() > 0);
    }

    @Test
    void diagAndTraceMatchLibtorch() {
        Random rng = new Random(7);
        for (DType d : DTYPES) {
            for (int[] shape : List.of(new int[] {4}, new int[] {1}, new int[] {0}, new int[] {3, 4}, new int[] {4, 3})) {
                Tensor x = sample(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int k : new int[] {0, 2, -1, -4}) {
                        assertClose(in.tensor().diag(k), Torch.call("torch.diag(a, " + k + ")", in.tensor()), "diag " + k + " " + d + " " + Arrays.toString(shape) + " " + in);
                    }
                    if (shape.length == 2 && d != DType.BOOL) {
                        assertClose(in.tensor().trace(), Torch.call("torch.trace(a)", in.tensor()), "trace " + d + " " + Arrays.toString(shape) + " " + in);
                    }
                }
            }
        }
        Tensor m = Tensor.randn(3, 3);
        assertFalse(m.diag().storage() == m.storage(), "diag of a matrix is a copy, as ATen's");
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor v = Tensor.randn(4).to(DType.FLOAT64).requiresGrad(true);
        Tensor b = Tensor.randn(2, 3, 4).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> in.get(0).tril(-1).add(in.get(0).triu(1).mul(2.0)), x);
        GradCheck.check(in -> in.get(0).flip(0, 1), x);
        GradCheck.check(in -> in.get(0).roll(new int[] {1, -3}, new int[] {0, 1}), x);
        GradCheck.check(in -> in.get(0).roll(5), x);
        GradCheck.check(in -> in.get(0).repeat(2, 1, 3), x);
        GradCheck.check(in -> in.get(0).tile(2), x);
        GradCheck.check(in -> in.get(0).repeatInterleave(3, 0), x);
        GradCheck.check(in -> in.get(0).expandAs(Tensor.zeros(2, 3, 4)), x);
        GradCheck.check(in -> in.get(0).diagonal(1, 0, 1), x);
        GradCheck.check(in -> in.get(0).diagonal(-1, 2, 0), b);
        GradCheck.check(in -> in.get(0).diag(), x);
        GradCheck.check(in -> in.get(0).diag(-2), v);
        GradCheck.check(in -> in.get(0).trace(), x);
        GradCheck.check(in -> in.get(0).movedim(0, 2).unflatten(1, 2, 2), b);
        GradCheck.check(in -> in.get(0).unbind(1).get(2).mul(in.get(0).unbind(0).get(1).sum()), b);
        GradCheck.check(in -> in.get(0).swapaxes(0, 1).reshapeAs(Tensor.zeros(12)), x);
    }

    @Test
    void badInputIsRefusedNamingTheOp() {
        Tensor x = Tensor.randn(2, 3), v = Tensor.randn(3);
        refused(IllegalArgumentException.class, "tril", () -> v.tril());
        refused(IllegalArgumentException.class, "triu", () -> v.triu(1));
        refused(IllegalArgumentException.class, "flip", () -> x.flip(0, 0));
        refused(IndexOutOfBoundsException.class, "flip", () -> x.flip(2));
        refused(IllegalArgumentException.class, "roll", () -> x.roll(new int[] {1, 2}, new int[] {0}));
        refused(IndexOutOfBoundsException.class, "roll", () -> x.roll(1, 5));
        refused(IllegalArgumentException.class, "repeat", () -> x.repeat(2));
        refused(IllegalArgumentException.class, "repeat", () -> x.repeat(-1, 2));
        refused(IllegalArgumentException.class, "expand_as", () -> x.expandAs(Tensor.zeros(3, 2)));
        refused(IllegalArgumentException.class, "reshape_as", () -> x.reshapeAs(Tensor.zeros(4)));
        refused(IllegalArgumentException.class, "tile", () -> x.tile(-1));
        refused(IndexOutOfBoundsException.class, "unbind", () -> x.unbind(-3));
        refused(IllegalArgumentException.class, "unbind", () -> Tensor.scalar(1.0).unbind());
        refused(IllegalArgumentException.class, "movedim", () -> x.movedim(new int[] {0, 1}, new int[] {0}));
        refused(IllegalArgumentException.class, "movedim", () -> x.movedim(new int[] {0, 0}, new int[] {0, 1}));
        refused(IllegalArgumentException.class, "movedim", () -> x.movedim(new int[] {0, 1}, new int[] {1, 1}));
        refused(IndexOutOfBoundsException.class, "swapaxes", () -> x.swapaxes(0, 3));
        refused(IllegalArgumentException.class, "diagonal", () -> x.diagonal(0, 1, -1));
        refused(IndexOutOfBoundsException.class, "diagonal", () -> v.diagonal());
        refused(IllegalArgumentException.class, "diag", () -> Tensor.randn(2, 2, 2).diag());
        refused(IllegalArgumentException.class, "trace", () -> v.trace());
        refused(IllegalArgumentException.class, "trace", () -> Tensor.zeros(DType.BOOL, 2, 2).trace());
        refused(IllegalArgumentException.class, "unflatten", () -> x.unflatten(1, 2, 2));
        refused(IllegalArgumentException.class, "unflatten", () -> x.unflatten(1));
        refused(IllegalArgumentException.class, "repeat_interleave", () -> x.repeatInterleave(-1, 0));
        refused(IndexOutOfBoundsException.class, "repeat_interleave", () -> x.repeatInterleave(2, 2));
    }

    static void refused(Class<? extends RuntimeException> type, String op, Executable call) {
        RuntimeException e = assertThrows(type, call, op);
        assertTrue(e.getMessage().startsWith(op + ": "), "the message names " + op + ": " + e.getMessage());
    }
}
