package dev.ember.ops;

import ai.djl.ndarray.NDList;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.ops.EverydayShapeOpsTest.sameRefusal;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The everyday ops PyTorch's OpInfo list has under their ATen names: fliplr, flipud, ravel,
 * broadcast_to, broadcast_tensors, broadcast_shapes, sum_to_size, unsafe_split/unsafe_chunk, mT,
 * mH, adjoint, T, H, unravel_index, sgn, positive, true_divide, nextafter, bitwise_left_shift and
 * bitwise_right_shift, inner, vdot, dist, isin, argwhere, logspace and trapz. Each against
 * libtorch over dtypes, edge values, 0-d, empty and non-contiguous inputs; ATen's refusals, words
 * for words with libtorch's; gradients against finite differences; Ember.compile giving eager's
 * results in one graph.
 */
class NumpyStyleOpsTest {
    private static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static Tensor sample(Random rng, DType dtype, int... shape) { return CompositeShapeOpsTest.sample(rng, dtype, shape); }


    // ------------------------------------------------------------------ shapes

    @Test
    void shapeOpsMatchLibtorch() {
        Random rng = new Random(3);
        for (DType d : DTYPES) {
            for (int[] shape : List.of(new int[] {3, 4}, new int[] {2, 3, 4}, new int[] {0, 3}, new int[] {4, 1})) {
                for (Inputs.Layout in : Inputs.layouts(sample(rng, d, shape))) {
                    Tensor x = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    assertClose(x.fliplr(), Torch.call("torch.fliplr(a)", x), "fliplr " + what);
                    assertClose(x.flipud(), Torch.call("torch.flipud(a)", x), "flipud " + what);
                    assertClose(x.ravel(), Torch.call("torch.ravel(a)", x), "ravel " + what);
                    assertClose(x.mT(), Torch.call("a.mT", x), "mT " + what);
                    assertClose(x.mH(), Torch.call("a.mH", x), "mH " + what);
                    assertClose(x.adjoint(), Torch.call("torch.adjoint(a)", x), "adjoint " + what);
                    assertClose(x.T(), Torch.call("a.permute(" + reversedDims(x.dim()) + ")", x), "T " + what);
                    if (x.dim() == 2) assertClose(x.H(), Torch.call("a.H", x), "H " + what);
                    int[] wider = new int[x.dim() + 1];
                    wider[0] = 2;
                    System.arraycopy(x.shape(), 0, wider, 1, x.dim());
                    assertClose(x.broadcastTo(wider), Torch.call("torch.broadcast_to(a, b)", x, wider), "broadcast_to " + what);
                    int last = x.size(-1);
                    assertClose(x.unsafeSplit(2, -1), Torch.callList("torch.unsafe_split(a, 2, -1)", x), "unsafe_split " + what);
                    assertClose(x.unsafeChunk(3, 0), Torch.callList("torch.unsafe_chunk(a, 3, 0)", x), "unsafe_chunk " + what);
                    int[] sizes = {last / 2, last - last / 2};
                    assertClose(x.unsafeSplit(sizes, -1), Torch.callList("torch.unsafe_split_with_sizes(a, b, -1)", x, sizes), "unsafe_split_with_sizes " + what);
                }
            }
        }
        Tensor x = Tensor.randn(3, 4);
        assertSame(x.storage(), x.ravel().storage(), "ravel of a contiguous tensor is a view");
        assertNotSame(x.storage(), x.t().ravel().storage(), "ravel of a transposed one copies");
        assertSame(x.storage(), x.broadcastTo(2, 3, 4).storage(), "broadcast_to is a view");
        assertSame(x.storage(), x.mT().storage(), "mT is a view");
        assertSame(x.storage(), x.T().storage(), "T is a view");
        for (Tensor piece : x.unsafeSplit(2, 1)) assertNotSame(x.storage(), piece.storage(), "unsafe_split's pieces are tensors of their own");
        Tensor scalar = Tensor.scalar(2.5);
        assertClose(scalar.T(), Torch.call("a.T", scalar), "T of 0-d");
        assertClose(scalar.H(), Torch.call("a.H", scalar), "H of 0-d");
        assertClose(scalar.mT(), Torch.call("a.mT", scalar), "mT of 0-d");
        assertClose(scalar.adjoint(), Torch.call("torch.adjoint(a)", scalar), "adjoint of 0-d");
        assertClose(scalar.ravel(), Torch.call("torch.ravel(a)", scalar), "ravel of 0-d");
        assertClose(x.broadcastTo(-1, 4), Torch.call("torch.broadcast_to(a, [-1, 4])", x), "broadcast_to keeps a -1 size");
    }

    private static String reversedDims(int n) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = n - 1; i >= 0; i--) sb.append(i).append(i > 0 ? ", " : "");
        return sb.append(']').toString();
    }

    @Test
    void sumToSizeMatchesLibtorch() {
        Random rng = new Random(4);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL)) {
            for (Inputs.Layout in : Inputs.layouts(sample(rng, d, 2, 3, 4))) {
                Tensor x = in.tensor();
                for (int[] size : List.of(new int[] {2, 3, 4}, new int[] {3, 4}, new int[] {1, 4}, new int[] {3, 1}, new int[] {4}, new int[] {1},
                        new int[0], new int[] {2, 1, 1}, new int[] {1, 1, 1})) {
                    assertClose(x.sumToSize(size), Torch.call("a.sum_to_size(b)", x, size), "sum_to_size " + Arrays.toString(size) + " " + d + " " + in);
                }
            }
        }
        Tensor empty = Tensor.randn(0, 3);
        assertClose(empty.sumToSize(1, 3), Torch.call("a.sum_to_size([1, 3])", empty), "sum_to_size of an empty tensor");
        Tensor x = Tensor.randn(3, 4);
        assertSame(x, x.sumToSize(3, 4), "sum_to_size to its own size returns the tensor, as ATen's");
    }

    @Test
    void broadcastTensorsAndShapesMatchLibtorch() {
        Random rng = new Random(5);
        for (int[][] s : Inputs.BROADCAST_SHAPES) {
            Tensor a = Inputs.randn(rng, DType.FLOAT32, s[0]), b = Inputs.randint(rng, DType.INT64, -5, 5, s[1]);
            NDList expected = Torch.callList("torch.broadcast_tensors(a, b)", a, b);
            assertClose(Tensor.broadcastTensors(a, b), expected, "broadcast_tensors " + Arrays.toString(s[0]) + " " + Arrays.toString(s[1]));
            assertArrayEquals(Torch.shape(expected.get(0)), Tensor.broadcastShapes(s[0], s[1]), "broadcast_shapes " + Arrays.toString(s[0]) + " " + Arrays.toString(s[1]));
        }
        Tensor a = Tensor.randn(3, 1), b = Tensor.randn(1, 4), c = Tensor.scalar(2.0), e = Tensor.randn(2, 1, 1);
        NDList expected = Torch.callList("torch.broadcast_tensors(a, b, c, d)", a, b, c, e);
        assertClose(Tensor.broadcastTensors(a, b, c, e), expected, "broadcast_tensors of four");
        assertArrayEquals(Torch.shape(expected.get(0)), Tensor.broadcastShapes(a.shape(), b.shape(), c.shape(), e.shape()));
        assertArrayEquals(Torch.shape(Torch.call("torch.broadcast_tensors(a, b)[0]", Tensor.randn(0, 1), Tensor.randn(1, 5))),
                Tensor.broadcastShapes(new int[] {0, 1}, new int[] {1, 5}), "a zero size broadcasts with ones");
        assertArrayEquals(new int[0], Tensor.broadcastShapes(), "no shapes: the 0-d shape, as torch.broadcast_shapes()");
        for (Tensor t : Tensor.broadcastTensors(a, b)) assertTrue(t.isView(), "broadcast_tensors gives views");

        // torch.broadcast_shapes is Python, whose words these are (TorchScript cannot call it)
        IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class, () -> Tensor.broadcastShapes(new int[] {2, 3}, new int[] {4}));
        assertTrue(mismatch.getMessage().contains("Shape mismatch: objects cannot be broadcast to a single shape"), mismatch.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> Tensor.broadcastShapes(new int[] {2, -1}));
        assertTrue(negative.getMessage().contains("Trying to create tensor with negative dimension (-1): (-1)"), negative.getMessage());
        sameRefusal(IllegalArgumentException.class, "must match the size of tensor b (4) at non-singleton dimension 1",
                () -> Tensor.broadcastTensors(Tensor.randn(2, 3), Tensor.randn(4)), "torch.broadcast_tensors(a, b)[0]", Tensor.randn(2, 3), Tensor.randn(4));
    }

    @Test
    void unravelIndexMatchesLibtorchsFormula() {
        // torch.unravel_index is Python; the reference is each index divided out with exact long arithmetic, as numpy defines it
        Random rng = new Random(6);
        for (DType d : List.of(DType.INT64, DType.INT32)) {
            for (int[] shape : List.of(new int[] {3, 4}, new int[] {2, 3, 5}, new int[] {7}, new int[] {1, 6, 1})) {
                int numel = Arrays.stream(shape).reduce(1, (p, q) -> p * q);
                Tensor indices = Inputs.randint(rng, d, 0, numel, 2, 5);
                List<Tensor> coords = Tensor.unravelIndex(indices, shape);
                assertEquals(shape.length, coords.size());
                long[] flat = indices.toLongArray();
                for (int k = 0; k < shape.length; k++) {
                    assertArrayEquals(indices.shape(), coords.get(k).shape());
                    assertEquals(DType.INT64, coords.get(k).dtype());
                }
                for (int i = 0; i < flat.length; i++) {
                    long rest = flat[i];
                    for (int k = shape.length - 1; k >= 0; k--) {
                        assertEquals(rest % shape[k], coords.get(k).toLongArray()[i], "index " + flat[i] + " in " + Arrays.toString(shape) + " dim " + k);
                        rest /= shape[k];
                    }
                }
                // and each coordinate set indexes back to the flat position, as torch.ravel of the grid says
                Tensor grid = Tensor.arange(numel).reshape(shape);
                Tensor back = grid.index(coords);
                assertArrayEquals(indices.to(DType.INT64).toLongArray(), back.toLongArray(), "round trip " + Arrays.toString(shape));
            }
        }
        IllegalArgumentException notInteger = assertThrows(IllegalArgumentException.class, () -> Tensor.unravelIndex(Tensor.randn(3), 2, 2));
        assertTrue(notInteger.getMessage().contains("expected 'indices' to be integer dtype, but got torch.float32"), notInteger.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> Tensor.unravelIndex(Tensor.ofLongs(1), 2, -3));
        assertTrue(negative.getMessage().contains("'shape' cannot have negative values, but got (2, -3)"), negative.getMessage());
    }

    @Test
    void shapeOpsRefuseAsAten() {
        Tensor v = Tensor.randn(4), x = Tensor.randn(2, 3), scalar = Tensor.scalar(1.0), cube = Tensor.randn(2, 2, 2);
        sameRefusal(IllegalArgumentException.class, "Input must be >= 2-d.", v::fliplr, "torch.fliplr(a)", v);
        sameRefusal(IllegalArgumentException.class, "Input must be >= 1-d.", scalar::flipud, "torch.flipud(a)", scalar);
        sameRefusal(IllegalArgumentException.class, "expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1",
                () -> x.broadcastTo(2, 4), "torch.broadcast_to(a, [2, 4])", x);
        sameRefusal(IllegalArgumentException.class, "is not expandable to size",
                () -> x.sumToSize(4, 3), "a.sum_to_size([4, 3])", x);
        sameRefusal(IllegalArgumentException.class, "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.", v::mT, "a.mT", v);
        sameRefusal(IllegalArgumentException.class, "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.", v::mH, "a.mH", v);
        sameRefusal(IllegalArgumentException.class, "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.",
                v::adjoint, "torch.adjoint(a)", v);
        sameRefusal(IllegalArgumentException.class, "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor.", cube::H, "a.H", cube);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> x.sumToSize(4, 3));
        assertEquals("sum_to_size: size {[4, 3]} is not expandable to size {[2, 3]}.", e.getMessage());
    }

    // ------------------------------------------------------------------ pointwise

    @Test
    void sgnPositiveTrueDivideMatchLibtorch() {
        for (DType d : DTYPES) {
            Tensor s = Inputs.specials(d);
            assertClose(s.sgn(), Torch.call("torch.sgn(a)", s), "sgn " + d);
            if (d != DType.BOOL) {
                assertClose(s.positive(), Torch.call("torch.positive(a)", s), "positive " + d);
                assertSame(s, s.positive(), "positive returns the tensor itself, as ATen's");
            }
            for (DType e : DTYPES) {
                Tensor t = Inputs.specials(e);
                Tensor a = s.reshape(-1, 1), b = t.reshape(1, -1);
                assertClose(a.trueDivide(b), Torch.call("torch.true_divide(a, b)", a, b), "true_divide " + d + " / " + e);
            }
            assertClose(s.trueDivide(2.0), Torch.call("torch.true_divide(a, 2.0)", s), "true_divide by a float " + d);
            assertClose(s.trueDivide(Tensor.scalar(3L)), Torch.call("torch.true_divide(a, b)", s, Tensor.scalar(3L)), "true_divide by a 0-d int " + d);
        }
        Tensor empty = Tensor.randn(0, 2);
        assertClose(empty.sgn(), Torch.call("torch.sgn(a)", empty), "sgn empty");
        Tensor bool = Tensor.of(new boolean[] {true, false}, 2);
        sameRefusal(IllegalArgumentException.class, "The `+` operator, on a bool tensor is not supported.", bool::positive, "torch.positive(a)", bool);
    }

    @Test
    void nextafterMatchesLibtorch() {
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor s = Inputs.specials(d);
            Tensor a = s.reshape(-1, 1), b = s.reshape(1, -1);
            assertClose(a.nextafter(b), Torch.call("torch.nextafter(a, b)", a, b), "nextafter " + d, TorchAssert.Tolerance.EXACT);
            Tensor x = Inputs.randn(new Random(7), d, 3, 4);
            Tensor nt = Inputs.nonContiguous(x);
            assertClose(nt.nextafter(Tensor.scalar(0.0).to(d)), Torch.call("torch.nextafter(a, b)", nt, Tensor.scalar(0.0).to(d)),
                    "nextafter towards 0, non-contiguous " + d, TorchAssert.Tolerance.EXACT);
        }
        // mixed dtypes: a float32 tensor and a 0-d float64 one step in float32, towards the other rounded to float32
        Tensor f = Tensor.of(new float[] {1f, 2f, -3f}, 3);
        Tensor towards = Tensor.scalar(1.00000001).to(DType.FLOAT64);
        assertClose(f.nextafter(towards), Torch.call("torch.nextafter(a, b)", f, towards), "float32 with a 0-d float64", TorchAssert.Tolerance.EXACT);
        Tensor g = Tensor.of(new double[] {1, 2, 3}, 3);
        assertClose(f.nextafter(g.add(1.0)), Torch.call("torch.nextafter(a, b)", f, g.add(1.0)), "float32 with float64 promotes", TorchAssert.Tolerance.EXACT);
        Tensor ints = Tensor.ofLongs(1, 2);
        sameRefusal(IllegalArgumentException.class, "\"nextafter_cpu\" not implemented for 'Long'", () -> ints.nextafter(ints), "torch.nextafter(a, b)", ints, ints);
        Tensor leaf = Tensor.randn(3).to(DType.FLOAT64).requiresGrad(true);
        UnsupportedOperationException noGrad = assertThrows(UnsupportedOperationException.class, () -> leaf.nextafter(leaf.detach()).sum().backward());
        assertTrue(noGrad.getMessage().contains("the derivative for 'nextafter' is not implemented."), noGrad.getMessage());
    }

    @Test
    void shiftsMatchLibtorch() {
        for (DType d : List.of(DType.INT64, DType.INT32)) {
            int bits = d == DType.INT32 ? 32 : 64;
            Tensor values = Inputs.specials(d).reshape(-1, 1);
            Tensor by = Inputs.fromDoubles(new double[] {-1, 0, 1, 3, bits - 2, bits - 1, bits, bits + 1, 100}, d, 1, 9);
            assertClose(values.bitwiseLeftShift(by), Torch.call("torch.bitwise_left_shift(a, b)", values, by), "<< " + d, TorchAssert.Tolerance.EXACT);
            assertClose(values.bitwiseRightShift(by), Torch.call("torch.bitwise_right_shift(a, b)", values, by), ">> " + d, TorchAssert.Tolerance.EXACT);
            assertClose(values.bitwiseLeftShift(by), Torch.call("a << b", values, by), "Python's << " + d, TorchAssert.Tolerance.EXACT);
            assertClose(values.bitwiseRightShift(by), Torch.call("a >> b", values, by), "Python's >> " + d, TorchAssert.Tolerance.EXACT);
            for (long k : new long[] {-2, 0, 5, bits - 1, bits, 70}) {
                assertClose(values.bitwiseLeftShift(k), Torch.call("torch.bitwise_left_shift(a, " + k + ")", values), "<< " + k + " " + d, TorchAssert.Tolerance.EXACT);
                assertClose(values.bitwiseRightShift(k), Torch.call("torch.bitwise_right_shift(a, " + k + ")", values), ">> " + k + " " + d, TorchAssert.Tolerance.EXACT);
                assertClose(Tensor.bitwiseLeftShift(k, by), Torch.call("torch.bitwise_left_shift(" + k + ", a)", by), k + " << " + d, TorchAssert.Tolerance.EXACT);
                assertClose(Tensor.bitwiseRightShift(k, by), Torch.call("torch.bitwise_right_shift(" + k + ", a)", by), k + " >> " + d, TorchAssert.Tolerance.EXACT);
            }
            Tensor nc = Inputs.nonContiguous(Inputs.randint(new Random(8), d, -1000, 1000, 4, 5));
            assertClose(nc.bitwiseLeftShift(3L), Torch.call("torch.bitwise_left_shift(a, 3)", nc), "non-contiguous " + d, TorchAssert.Tolerance.EXACT);
        }
        Tensor i32 = Tensor.of(new int[] {1, -8}, 2), i64 = Tensor.ofLongs(40, 2);
        assertClose(i32.bitwiseLeftShift(i64), Torch.call("torch.bitwise_left_shift(a, b)", i32, i64), "int32 << int64 promotes", TorchAssert.Tolerance.EXACT);
        Tensor bools = Tensor.of(new boolean[] {true, false}, 2);
        assertClose(bools.bitwiseLeftShift(i64), Torch.call("torch.bitwise_left_shift(a, b)", bools, i64), "bool << int64", TorchAssert.Tolerance.EXACT);
        Tensor empty = Tensor.zeros(DType.INT64, 0, 3);
        assertClose(empty.bitwiseRightShift(1L), Torch.call("torch.bitwise_right_shift(a, 1)", empty), "empty", TorchAssert.Tolerance.EXACT);

        Tensor floats = Tensor.randn(3);
        sameRefusal(IllegalArgumentException.class, "\"lshift_cpu\" not implemented for 'Float'", () -> floats.bitwiseLeftShift(1L), "torch.bitwise_left_shift(a, 1)", floats);
        sameRefusal(IllegalArgumentException.class, "\"rshift_cpu\" not implemented for 'Bool'", () -> bools.bitwiseRightShift(bools), "torch.bitwise_right_shift(a, b)", bools, bools);
        sameRefusal(IllegalArgumentException.class, "\"lshift_cpu\" not implemented for 'Float'", () -> i64.bitwiseLeftShift(Tensor.randn(2)),
                "torch.bitwise_left_shift(a, b)", i64, Tensor.randn(2));
    }

    // ------------------------------------------------------------------ products and distances

    @Test
    void innerVdotDistMatchLibtorch() {
        Random rng = new Random(9);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32)) {
            for (int[][] s : List.of(new int[][] {{4}, {4}}, new int[][] {{2, 3}, {3}}, new int[][] {{2, 3}, {4, 3}}, new int[][] {{2, 1, 3}, {5, 3}}, new int[][] {{}, {2, 3}},
                    new int[][] {{2, 3}, {}}, new int[][] {{0, 3}, {2, 3}})) {
                Tensor a = sample(rng, d, s[0]), b = sample(rng, d, s[1]);
                String what = d + " " + Arrays.toString(s[0]) + " " + Arrays.toString(s[1]);
                assertClose(a.inner(b), Torch.call("torch.inner(a.double(), b.double()).to(a.dtype)", a, b), "inner " + what);
            }
            Tensor u = sample(rng, d, 5), w = sample(rng, d, 5);
            assertClose(u.vdot(w), Torch.call("torch.vdot(a.double(), b.double()).to(a.dtype)", u, w), "vdot " + d);
        }
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(4);
        for (double p : new double[] {2, 1, 3, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.5}) {
            assertClose(x.dist(y, p), Torch.call("torch.dist(a.double(), b.double(), c).float()", x, y, p), "dist p=" + p);
        }
        assertClose(x.dist(y), Torch.call("torch.dist(a, b)", x, y), "dist");
        Tensor f64 = Tensor.randn(2, 3).to(DType.FLOAT64);
        assertClose(x.narrow(0, 0, 2).narrow(1, 0, 3).dist(f64), Torch.call("torch.dist(a, b)", x.narrow(0, 0, 2).narrow(1, 0, 3), f64), "dist promotes");
        assertClose(Tensor.randn(0, 3).dist(Tensor.randn(3)), Torch.call("torch.dist(a, b)", Tensor.randn(0, 3), Tensor.randn(3)), "dist of empty");

        Tensor a = Tensor.randn(2, 3), b = Tensor.randn(4, 5);
        sameRefusal(IllegalArgumentException.class, "inner() the last dimension must match on both input tensors but got shapes [2, 3] and [4, 5]",
                () -> a.inner(b), "torch.inner(a, b)", a, b);
        sameRefusal(IllegalArgumentException.class, "1D tensors expected, but got 2D and 2D tensors", () -> a.vdot(a), "torch.vdot(a, b)", a, a);
        Tensor ints = Tensor.ofLongs(1, 2, 3);
        sameRefusal(IllegalArgumentException.class, "norm(): input dtype should be either floating point or complex. Got Long instead.", () -> ints.dist(ints), "torch.dist(a, b)", ints, ints);
    }

    // ------------------------------------------------------------------ search and creation

    @Test
    void isinAndArgwhereMatchLibtorch() {
        Random rng = new Random(10);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32)) {
            for (DType t : List.of(DType.FLOAT32, DType.INT64, DType.INT32)) {
                Tensor elements = Inputs.randint(rng, DType.INT64, -4, 5, 3, 4).to(d), test = Inputs.randint(rng, DType.INT64, -3, 3, 5).to(t);
                for (Inputs.Layout in : Inputs.layouts(elements)) {
                    String what = d + " in " + t + " " + in;
                    assertClose(in.tensor().isin(test), Torch.call("torch.isin(a, b)", in.tensor(), test), "isin " + what);
                    assertClose(in.tensor().isin(test, true, true), Torch.call("torch.isin(a, b, assume_unique=True, invert=True)", in.tensor(), test), "isin invert " + what);
                }
            }
            Tensor s = Inputs.specials(d);
            assertClose(s.isin(s.narrow(0, 2, 4)), Torch.call("torch.isin(a, b)", s, s.narrow(0, 2, 4)), "isin specials (NaN is in nothing) " + d);
            assertClose(s.isin(Tensor.empty(0).to(d)), Torch.call("torch.isin(a, b)", s, Tensor.empty(0).to(d)), "isin nothing " + d);
            assertClose(s.isin(1L), Torch.call("torch.isin(a, 1)", s), "isin a number " + d);
            assertClose(s.isin(-1.0), Torch.call("torch.isin(a, -1.0)", s), "isin a float " + d);
            assertClose(Tensor.isin(7L, s), Torch.call("torch.isin(7, a)", s), "a number isin " + d);
            assertClose(Tensor.isin(0.5, s), Torch.call("torch.isin(0.5, a)", s), "a float isin " + d);
            Tensor grid = Inputs.randint(rng, DType.INT64, -1, 2, 2, 3, 2).to(d);
            assertClose(grid.argwhere(), Torch.call("torch.argwhere(a)", grid), "argwhere " + d);
            assertClose(s.argwhere(), Torch.call("torch.argwhere(a)", s), "argwhere specials " + d);
        }
        Tensor scalar = Tensor.scalar(0.0);
        assertClose(scalar.argwhere(), Torch.call("torch.argwhere(a)", scalar), "argwhere 0-d");
        assertClose(scalar.isin(Tensor.of(0.0, 1.0)), Torch.call("torch.isin(a, b)", scalar, Tensor.of(0.0, 1.0)), "isin 0-d");
        Tensor bools = Tensor.of(new boolean[] {true, false}, 2);
        sameRefusal(IllegalArgumentException.class, "Unsupported input type encountered for isin(): Bool", () -> bools.isin(bools), "torch.isin(a, b)", bools, bools);
    }

    @Test
    void logspaceMatchesLibtorch() {
        double[][] ranges = {{0, 3}, {-2, 2}, {1.5, -0.5}, {0.1, 0.7}, {3, 3}, {-10, 10}, {0, 40}};
        for (double[] r : ranges) {
            for (int steps : new int[] {0, 1, 2, 5, 50}) {
                for (double base : new double[] {10, 2, 0.5, Math.E}) {
                    for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32)) {
                        // an integer dtype takes powers that fit it (C++ leaves a cast of a larger double undefined)
                        if (!d.isFloatingPoint() && Math.pow(Math.max(base, 1 / base), Math.max(Math.abs(r[0]), Math.abs(r[1]))) >= Integer.MAX_VALUE) continue;
                        String expr = "torch.logspace(" + r[0] + ", " + r[1] + ", " + steps + ", " + base + ", dtype=" + d.torchName() + ")";
                        assertClose(Tensor.logspace(r[0], r[1], steps, base, d), Torch.call(expr), expr);
                    }
                }
            }
        }
        assertClose(Tensor.logspace(-1, 2, 7), Torch.call("torch.logspace(-1, 2, 7)"), "defaults");
        assertClose(Tensor.logspace(0, 1, 4, 2), Torch.call("torch.logspace(0, 1, 4, 2.0)"), "base 2");
        sameRefusal(IllegalArgumentException.class, "number of steps must be non-negative", () -> Tensor.logspace(0, 1, -1), "torch.logspace(0, 1, -1)");
    }

    @Test
    void trapzIsTrapezoid() {
        Random rng = new Random(11);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64)) {
            Tensor y = sample(rng, d, 3, 5), x = Inputs.randn(rng, DType.FLOAT64, 5).cumsum(0);
            assertClose(Tensor.trapz(y, x, -1), Torch.call("torch.trapz(a, b, dim=-1)", y, x), "trapz x " + d);
            assertClose(Tensor.trapz(y, 0.5, 0), Torch.call("torch.trapz(a, dx=0.5, dim=0)", y), "trapz dx " + d);
            assertClose(Tensor.trapz(y, 1.0, -1), Torch.call("torch.trapz(a)", y), "trapz defaults " + d);
        }
        Tensor empty = Tensor.randn(3, 0);
        assertClose(Tensor.trapz(empty, 1.0, 1), Torch.call("torch.trapz(a, dx=1.0, dim=1)", empty), "trapz of no samples");
    }

    /** docs/tensors.md's example, its stated values checked against libtorch. */
    @Test
    void docsExampleGivesWhatItSays() {
        Tensor x = Tensor.randn(3, 4), v = Tensor.randn(4);
        assertArrayEquals(new int[] {3, 4}, Tensor.broadcastShapes(new int[] {3, 1}, new int[] {4}));
        assertArrayEquals(new int[] {4, 3, 2}, Tensor.randn(2, 3, 4).T().shape());
        List<Tensor> where = Tensor.unravelIndex(Tensor.ofLongs(5, 11), 3, 4);
        assertArrayEquals(new long[] {1, 2}, where.get(0).toLongArray());
        assertArrayEquals(new long[] {1, 3}, where.get(1).toLongArray());
        assertClose(Tensor.ofLongs(1, 5, 7).isin(Tensor.ofLongs(5, 6)), Torch.call("torch.isin(a, b)", Tensor.ofLongs(1, 5, 7), Tensor.ofLongs(5, 6)), "isin");
        assertClose(Tensor.ofLongs(1, -8).bitwiseLeftShift(3L), Torch.call("a << 3", Tensor.ofLongs(1, -8)), "<<", TorchAssert.Tolerance.EXACT);
        assertClose(Tensor.ofLongs(-8).bitwiseRightShift(1L), Torch.call("a >> 1", Tensor.ofLongs(-8)), ">>", TorchAssert.Tolerance.EXACT);
        Tensor inf = Tensor.scalar(Float.POSITIVE_INFINITY);
        assertClose(x.nextafter(inf), Torch.call("torch.nextafter(a, b)", x, inf), "one ulp up", TorchAssert.Tolerance.EXACT);
        assertClose(Tensor.logspace(0, 3, 4), Torch.call("torch.logspace(0, 3, 4)"), "logspace");
        assertClose(x.dist(v, 1.0), Torch.call("torch.dist(a.double(), b.double(), 1.0).float()", x, v), "dist");
    }

    // ------------------------------------------------------------------ gradients and compile

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor y = Tensor.randn(4).to(DType.FLOAT64).requiresGrad(true);
        Tensor z = Tensor.randn(2, 3, 4).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> in.get(0).fliplr().mul(in.get(0).flipud()), x);
        GradCheck.check(in -> in.get(0).ravel(), z);
        GradCheck.check(in -> in.get(0).t().ravel(), x);
        GradCheck.check(in -> in.get(0).broadcastTo(2, 3, 4).mul(in.get(1)), x, z);
        GradCheck.check(in -> in.get(0).sumToSize(3, 1), z);
        GradCheck.check(in -> in.get(0).sumToSize(4), z);
        GradCheck.check(in -> Tensor.broadcastTensors(in.get(0), in.get(1)).get(1).mul(in.get(0)), x, y);
        GradCheck.check(in -> in.get(0).mT().mul(in.get(0).T()), x);
        GradCheck.check(in -> in.get(0).mH().add(in.get(0).adjoint()).add(in.get(0).H()), x);
        GradCheck.check(in -> in.get(0).T(), z);
        GradCheck.check(in -> in.get(0).unsafeSplit(3, 1).get(1), x);
        GradCheck.check(in -> in.get(0).unsafeChunk(2, 0).get(1).add(in.get(0).unsafeSplit(new int[] {1, 3}, 1).get(1).sum()), x);
        GradCheck.check(in -> in.get(0).trueDivide(in.get(1).add(3.0)).add(in.get(0).trueDivide(2.0)), x, y);
        GradCheck.check(in -> in.get(0).sgn().add(in.get(0)).add(in.get(0).positive()), x);
        GradCheck.check(in -> in.get(0).inner(in.get(1)), z, x);
        GradCheck.check(in -> in.get(0).inner(in.get(1)), x, Tensor.scalar(1.5).to(DType.FLOAT64).requiresGrad(true));
        GradCheck.check(in -> in.get(0).vdot(in.get(1)), y, Tensor.randn(4).to(DType.FLOAT64).requiresGrad(true));
        for (double p : new double[] {2, 1, 3, Double.POSITIVE_INFINITY}) GradCheck.check(in -> in.get(0).dist(in.get(1), p), x, y);
        GradCheck.check(in -> Tensor.trapz(in.get(0), in.get(1).cumsum(0), -1).add(Tensor.trapz(in.get(0), 0.5, 0).sum()), x, y);
    }

    /** The float ops of this class in one function, their results flattened into one vector. */
    static Tensor everyday(Tensor x, Tensor v) {
        List<Tensor> parts = new ArrayList<>();
        parts.add(x.fliplr());
        parts.add(x.flipud());
        parts.add(x.ravel());
        parts.add(x.t().ravel());
        parts.add(v.broadcastTo(3, 4));
        parts.add(x.sumToSize(1, 4));
        parts.add(x.sumToSize(3, 1));
        parts.addAll(Tensor.broadcastTensors(x, v.reshape(1, 4)));
        parts.add(x.mT());
        parts.add(x.mH());
        parts.add(x.T());
        parts.add(x.adjoint().mul(2.0));
        parts.add(x.H());
        parts.addAll(x.unsafeSplit(3, 1));
        parts.addAll(x.unsafeChunk(2, 0));
        parts.add(x.sgn());
        parts.add(x.positive().add(1.0));
        parts.add(x.trueDivide(v.add(3.0)));
        parts.add(x.trueDivide(4.0));
        parts.add(x.inner(v));
        parts.add(v.vdot(v.mul(0.5)));
        parts.add(x.dist(v));
        parts.add(x.dist(v, 1.0));
        parts.add(Tensor.trapz(x, v.cumsum(0), -1));
        parts.add(Tensor.trapz(x, 0.5, 0));
        parts.add(x.isin(v).to(x.dtype()));
        parts.add(Tensor.logspace(0, 2, 5).to(x.dtype()));
        return CompiledOpsCheck.flattenedAndJoined(parts);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(12);
        Tensor x = Tensor.randn(3, 4), v = Tensor.randn(4);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(NumpyStyleOpsTest::everyday, x, v, backend, "x", "v");
    }

    static Tensor integerOps(Tensor a, Tensor b) {
        Tensor shifted = a.bitwiseLeftShift(b).add(a.bitwiseRightShift(b)).add(a.bitwiseLeftShift(3L)).add(Tensor.bitwiseRightShift(-100L, b));
        return shifted.add(a.isin(b).to(DType.INT64)).add(a.sgn());
    }

    static Tensor floatNeighbours(Tensor a, Tensor b) { return a.nextafter(b).sub(a).add(b.nextafter(a)); }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledIntegerAndNeighbourOpsMatchEager(String backend) {
        Tensor a = Inputs.randint(new Random(13), DType.INT64, -50, 50, 3, 4), b = Inputs.randint(new Random(14), DType.INT64, -2, 70, 4);
        Fn2<Tensor, Tensor, Tensor> ints = Ember.compile(NumpyStyleOpsTest::integerOps, Options.backend(backend).fullgraph(true));
        assertClose(ints.apply(a, b), integerOps(a, b), backend + " shifts", TorchAssert.Tolerance.EXACT);
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(4);
        Fn2<Tensor, Tensor, Tensor> floats = Ember.compile(NumpyStyleOpsTest::floatNeighbours, Options.backend(backend).fullgraph(true));
        assertClose(floats.apply(x, y), floatNeighbours(x, y), backend + " nextafter", TorchAssert.Tolerance.EXACT);
    }
}
