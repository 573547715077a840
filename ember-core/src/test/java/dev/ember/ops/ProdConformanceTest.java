package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.CumsumConformanceTest.torchName;
import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * prod (all elements, or one dim with and without keepdim) and cumprod against libtorch: every
 * dtype (integers and bool multiply to int64, wrapping as ATen's), a requested dtype (the input
 * converted first), every dim (negative ones too) and layout, rows of hundreds of terms, 0-d and
 * empty inputs (the product of nothing is 1), zeros, NaN and infinities.
 */
class ProdConformanceTest {

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    /** Products that stay in range over hundreds of terms: floats near 1 (either sign now and then), small integers (which overflow and wrap), coin flips. */
    static Tensor values(Random rng, DType d, int... shape) {
        return d.isFloatingPoint() ? Inputs.randn(rng, d, shape).mul(0.3).add(1.0) : Inputs.randint(rng, d, d.isBool() ? 0 : -3, d.isBool() ? 2 : 4, shape);
    }

    /**
     * ATen multiplies float32 products in float, Ember in double rounding once (its cumprod, like
     * ATen's, accumulates in double): over n terms the two differ by up to about n/2 float ulps.
     */
    static Tolerance prodTolerance(DType d, int terms) {
        Tolerance t = Tolerance.forDtype(d);
        return d == DType.FLOAT32 ? Tolerance.of(Math.max(t.rtol(), terms * 6e-8), t.atol()) : t;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void prodMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 91);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {3, 4, 5}, new int[] {2, 300}, new int[] {0, 4}, new int[] {4, 0}, new int[] {7})) {
                Tensor x = values(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    Tensor t = in.tensor();
                    String ctx = "prod " + d + Arrays.toString(shape) + " " + in;
                    assertClose(t.prod(), Torch.call(m, "torch.prod(a)", t), ctx, prodTolerance(d, t.numel()));
                    for (DType to : new DType[] {DType.FLOAT64, DType.INT32}) {
                        assertClose(ReductionOps.PROD.callTensor(t, to), Torch.call(m, "torch.prod(a, dtype=" + torchName(to) + ")", t), ctx + " dtype " + to);
                    }
                    for (int dim = -shape.length; dim < shape.length; dim++) {
                        Tolerance tol = prodTolerance(d, shape[dim < 0 ? dim + shape.length : dim]);
                        assertClose(t.prod(dim), Torch.call(m, "torch.prod(a, " + dim + ")", t), ctx + " dim " + dim, tol);
                        assertClose(t.prod(dim, true), Torch.call(m, "torch.prod(a, " + dim + ", True)", t), ctx + " dim " + dim + " keepdim", tol);
                        for (DType to : new DType[] {DType.FLOAT64, DType.INT32, DType.BOOL}) {
                            assertClose(ReductionOps.PROD_DIM.callTensor(t, (long) dim, false, to),
                                    Torch.call(m, "torch.prod(a, " + dim + ", dtype=" + torchName(to) + ")", t), ctx + " dim " + dim + " dtype " + to);
                        }
                    }
                }
            }
            Tensor scalar = values(rng, d);
            assertClose(scalar.prod(), Torch.call(m, "torch.prod(a)", scalar), "0-d " + d);
            for (int dim : new int[] {0, -1}) assertClose(scalar.prod(dim, true), Torch.call(m, "torch.prod(a, " + dim + ", True)", scalar), "0-d dim " + dim + " " + d);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void cumprodMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 93);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {3, 4, 5}, new int[] {2, 300}, new int[] {0, 4})) {
                Tensor x = values(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int dim = -shape.length; dim < shape.length; dim++) {
                        String ctx = "cumprod " + d + Arrays.toString(shape) + " " + in + " dim " + dim;
                        assertClose(in.tensor().cumprod(dim), Torch.call(m, "torch.cumprod(a, " + dim + ")", in.tensor()), ctx);
                        for (DType to : new DType[] {DType.FLOAT64, DType.INT32}) {
                            assertClose(in.tensor().cumprod(dim, to), Torch.call(m, "torch.cumprod(a, " + dim + ", dtype=" + torchName(to) + ")", in.tensor()), ctx + " dtype " + to);
                        }
                    }
                }
            }
            Tensor scalar = values(rng, d);
            assertClose(scalar.cumprod(0), Torch.call(m, "torch.cumprod(a, 0)", scalar), "0-d " + d);
            assertClose(scalar.cumprod(-1), Torch.call(m, "torch.cumprod(a, -1)", scalar), "0-d dim -1 " + d);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void zerosNanAndInfinitiesPropagateAsInAten(DType d) {
        double inf = Double.POSITIVE_INFINITY, nan = Double.NaN;
        Tensor x = Tensor.of(new double[] {
                1.5, 0, 2, 3,
                0, 0, 5, 1,
                nan, 2, 0, 1,
                inf, 0, 1, 1,
                -inf, -2, 1, 1,
                -0.0, 3, 1, 1,
                inf, inf, -1, 1e300}, 7, 4).to(d);
        try (NDManager m = Torch.scope()) {
            for (int dim : new int[] {0, 1}) {
                assertClose(x.prod(dim), Torch.call(m, "torch.prod(a, " + dim + ")", x), "prod dim " + dim + " " + d);
                assertClose(x.cumprod(dim), Torch.call(m, "torch.cumprod(a, " + dim + ")", x), "cumprod dim " + dim + " " + d);
            }
            assertClose(x.prod(), Torch.call(m, "torch.prod(a)", x), "prod " + d);
        }
    }

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    @Test
    void dtypesFollowAten() {
        assertEquals(DType.INT64, Tensor.ofLongs(2, 3).to(DType.INT32).prod().dtype());
        assertEquals(DType.INT64, Tensor.of(new boolean[] {true, false}, 2).prod(0).dtype());
        assertEquals(DType.INT64, Tensor.ofLongs(2, 3).to(DType.INT32).cumprod(0).dtype());
        assertEquals(DType.FLOAT32, Tensor.of(1f, 2f).prod().dtype());
        assertEquals(1.0, Tensor.zeros(0).prod().item(), "the product of nothing");
    }

    @Test
    void badDimsAreRefusedAsAtenRefusesThem() {
        Tensor x = Tensor.ones(3, 4);
        try (NDManager m = Torch.scope()) {
            refused(m, "prod dim out of range", () -> x.prod(2), "torch.prod(a, 2)", x);
            refused(m, "prod dim out of range, negative", () -> x.prod(-3), "torch.prod(a, -3)", x);
            refused(m, "cumprod dim out of range", () -> x.cumprod(2), "torch.cumprod(a, 2)", x);
        }
    }
}
