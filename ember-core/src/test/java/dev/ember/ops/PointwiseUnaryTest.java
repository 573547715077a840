package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.check;
import static dev.ember.ops.PointwiseBinaryTest.input;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Unary ops against libtorch on every dtype (integer inputs promote where ATen promotes, and
 * error where ATen errors), every shape of the harness plus rows longer than a SIMD vector, every
 * layout, and the special values (NaN, ±inf, ±0, subnormals, extremes).
 */
class PointwiseUnaryTest {

    record Op(String name, String torch, UnaryOperator<Tensor> ember) {
        @Override
        public String toString() { return name; }
    }

    static final List<Op> OPS = List.of(
            new Op("neg", "torch.neg(a)", Tensor::neg),
            new Op("abs", "torch.abs(a)", Tensor::abs),
            new Op("exp", "torch.exp(a)", Tensor::exp),
            new Op("log", "torch.log(a)", Tensor::log),
            new Op("log1p", "torch.log1p(a)", Tensor::log1p),
            new Op("sqrt", "torch.sqrt(a)", Tensor::sqrt),
            new Op("rsqrt", "torch.rsqrt(a)", Tensor::rsqrt),
            new Op("sin", "torch.sin(a)", Tensor::sin),
            new Op("cos", "torch.cos(a)", Tensor::cos),
            new Op("tanh", "torch.tanh(a)", Tensor::tanh),
            new Op("sigmoid", "torch.sigmoid(a)", Tensor::sigmoid),
            new Op("erf", "torch.erf(a)", Tensor::erf),
            new Op("relu", "torch.relu(a)", Tensor::relu),
            new Op("gelu", "torch.gelu(a)", Tensor::gelu),
            new Op("gelu tanh", "torch.gelu(a, approximate='tanh')", t -> t.gelu("tanh")),
            new Op("silu", "torch.silu(a)", Tensor::silu),
            new Op("logical_not", "torch.logical_not(a)", Tensor::logicalNot),
            new Op("floor", "torch.floor(a)", Tensor::floor),
            new Op("ceil", "torch.ceil(a)", Tensor::ceil),
            new Op("round", "torch.round(a)", Tensor::round),
            new Op("round decimals=2", "torch.round(a, decimals=2)", t -> t.round(2)),
            new Op("round decimals=-1", "torch.round(a, decimals=-1)", t -> t.round(-1)),
            new Op("trunc", "torch.trunc(a)", Tensor::trunc),
            new Op("frac", "torch.frac(a)", Tensor::frac),
            new Op("sign", "torch.sign(a)", Tensor::sign),
            new Op("reciprocal", "torch.reciprocal(a)", Tensor::reciprocal),
            new Op("square", "torch.square(a)", Tensor::square),
            new Op("tan", "torch.tan(a)", Tensor::tan),
            new Op("atan", "torch.atan(a)", Tensor::atan),
            new Op("asin", "torch.asin(a)", Tensor::asin),
            new Op("acos", "torch.acos(a)", Tensor::acos),
            new Op("sinh", "torch.sinh(a)", Tensor::sinh),
            new Op("cosh", "torch.cosh(a)", Tensor::cosh),
            new Op("asinh", "torch.asinh(a)", Tensor::asinh),
            new Op("acosh", "torch.acosh(a)", Tensor::acosh),
            new Op("atanh", "torch.atanh(a)", Tensor::atanh),
            new Op("bitwise_not", "torch.bitwise_not(a)", Tensor::bitwiseNot),
            new Op("sign_", "a.clone().sign_()", t -> t.clone().sign_()),
            new Op("expm1", "torch.expm1(a)", Tensor::expm1),
            new Op("exp2", "torch.exp2(a)", Tensor::exp2),
            new Op("log2", "torch.log2(a)", Tensor::log2),
            new Op("log10", "torch.log10(a)", Tensor::log10),
            new Op("isnan", "torch.isnan(a)", Tensor::isnan),
            new Op("isinf", "torch.isinf(a)", Tensor::isinf),
            new Op("isposinf", "torch.isposinf(a)", Tensor::isposinf),
            new Op("isneginf", "torch.isneginf(a)", Tensor::isneginf),
            new Op("isfinite", "torch.isfinite(a)", Tensor::isfinite),
            new Op("nan_to_num", "torch.nan_to_num(a)", Tensor::nanToNum),
            new Op("nan_to_num 1.5 100 -100", "torch.nan_to_num(a, 1.5, 100.0, -100.0)", t -> t.nanToNum(1.5, 100.0, -100.0)));

    static final List<int[]> SHAPES = Stream.concat(Inputs.SHAPES.stream(),
            Stream.of(new int[] {3, 37}, new int[] {100}, new int[] {2, 17, 3})).toList();

    static Stream<Arguments> opsAndDtypes() {
        List<Arguments> out = new ArrayList<>();
        for (Op op : OPS) for (DType d : DType.values()) out.add(Arguments.of(op, d));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("opsAndDtypes")
    void matchesLibtorchOnEveryShapeAndLayout(Op op, DType dtype) {
        Random rng = new Random(op.name().hashCode() + dtype.ordinal());
        try (NDManager m = Torch.scope()) {
            for (int[] shape : SHAPES) {
                Tensor a = input(rng, dtype, false, shape);
                for (Inputs.Layout layout : Inputs.layouts(a)) {
                    Tensor x = layout.tensor();
                    check(m, op + " " + dtype + " " + layout, () -> op.ember().apply(x), op.torch(), x);
                }
            }
        }
    }

    static Stream<Arguments> specialCases() {
        List<Arguments> out = new ArrayList<>();
        for (Op op : OPS) for (DType d : DType.values()) out.add(Arguments.of(op, d));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("specialCases")
    void specialValuesFollowAten(Op op, DType dtype) {
        Tensor s = Inputs.specials(dtype);
        if (op.name().startsWith("gelu") && dtype.isFloatingPoint()) {
            // libtorch's float GELU (oneDNN) turns ±inf into NaN and overflows near the largest float;
            // Ember keeps the limits (x·Φ(x)). Compare the rest.
            s = Tensor.of(Arrays.stream(s.toDoubleArray()).filter(v -> Double.isNaN(v) || Math.abs(v) < 1e30).toArray()).to(dtype);
        }
        Tensor x = s;
        try (NDManager m = Torch.scope()) {
            check(m, op + " specials " + dtype, () -> op.ember().apply(x), op.torch(), x);
        }
    }

    @Test
    void transcendentalsAreAccurateOverAWideRange() {
        // ±20 covers exp's overflow region for float32 and the saturation of tanh/sigmoid/gelu
        Random rng = new Random(11);
        try (NDManager m = Torch.scope()) {
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
                Tensor x = Inputs.uniform(rng, d, -20, 20, 4, 250);
                for (Op op : OPS) check(m, op + " wide " + d, () -> op.ember().apply(x), op.torch(), x);
                Tensor big = Inputs.uniform(rng, d, -1e4, 1e4, 300);
                for (String name : List.of("sin", "cos", "exp", "log")) {
                    Op op = OPS.stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow();
                    check(m, op + " large arguments " + d, () -> op.ember().apply(big), op.torch(), big);
                }
            }
        }
    }

    @Test
    void float64GeluUsesAnErfAccurateToDoublePrecision() {
        // float64 GELU runs a scalar erf; compare with libtorch's far tighter than the default tolerance
        // (the absolute slack is the cancellation in 1 + erf(x) for x near -8, which libtorch has too)
        Tensor x = Tensor.linspace(-8, 8, 4001).to(DType.FLOAT64);
        try (NDManager m = Torch.scope()) {
            assertClose(x.gelu(), Torch.call(m, "torch.gelu(a)", x), "gelu f64", 1e-13, 1e-14);
            assertClose(x.gelu("tanh"), Torch.call(m, "torch.gelu(a, approximate='tanh')", x), "gelu tanh f64", 1e-13, 1e-14);
        }
    }

    @Test
    void float64FormulasOfOurOwnHoldDoublePrecision() {
        // Math has no log2, exp2, asinh, acosh or atanh: ScalarMath's formulas must keep double precision near 0,
        // either side of 1 (log2's cancellation risk: 1 − 2⁻⁵³ and all of [0.9, 1.1]), at powers of two and far out
        List<Double> v = new ArrayList<>(List.of(1 - 0x1p-53, 1 - 0x1p-30, 1 + 0x1p-52, 1 + 0x1p-30, 0x1p-1074, 0x1p-1022, 1e-300, 1e-20,
                0.25, 0.5, 0.75, 0.9999, 1.0, 1.5, 2.0, 3.0, 8.0, 1024.0, 0x1p28, 0x1p29, 1e10, 1e300, -0.5, -0.9999, -1e-20, -1e10));
        Random rng = new Random(5);
        for (int i = 0; i < 200; i++) v.add(Math.scalb(1 + rng.nextDouble(), rng.nextInt(-60, 60)) * (rng.nextBoolean() ? 1 : -1));
        for (int i = 0; i < 400; i++) v.add(0.9 + 0.2 * rng.nextDouble());
        Tensor x = Tensor.of(v.stream().mapToDouble(Double::doubleValue).toArray());
        try (NDManager m = Torch.scope()) {
            for (String name : List.of("log2", "exp2", "asinh", "acosh", "atanh")) {
                Op op = OPS.stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow();
                assertClose(op.ember().apply(x), Torch.call(m, op.torch(), x), name + " f64", 1e-15, 0);
            }
        }
    }

    @Test
    void float32InverseHyperbolicsAreWithinAnUlpOfLibtorch() {
        // computed in double and rounded once: within one float ulp (2⁻²³ relative) of libtorch's float kernels
        Random rng = new Random(6);
        try (NDManager m = Torch.scope()) {
            for (Object[] c : List.of(new Object[] {"asinh", -30.0, 30.0}, new Object[] {"asinh", -1e-3, 1e-3}, new Object[] {"acosh", 1.0, 40.0},
                    new Object[] {"atanh", -0.9999, 0.9999})) {
                Op op = OPS.stream().filter(o -> o.name().equals(c[0])).findFirst().orElseThrow();
                Tensor x = Inputs.uniform(rng, DType.FLOAT32, (Double) c[1], (Double) c[2], 4000);
                assertClose(op.ember().apply(x), Torch.call(m, op.torch(), x), op + " f32 on [" + c[1] + ", " + c[2] + "]", 0x1p-23, 0);
            }
        }
    }

    @Test
    void integerAndBoolInputsOfFloatingOpsComputeInTheDefaultDtype() {
        Tensor ints = Tensor.ofLongs(0, 1, 2, -3), bools = Tensor.of(new boolean[] {true, false}, 2);
        assertEquals(DType.FLOAT32, ints.exp().dtype());
        assertEquals(DType.FLOAT32, ints.to(DType.INT32).sqrt().dtype());
        assertEquals(DType.FLOAT32, bools.sigmoid().dtype());
        assertEquals(DType.INT64, ints.relu().dtype());
        assertEquals(DType.INT32, ints.to(DType.INT32).abs().dtype());
        assertEquals(DType.BOOL, ints.logicalNot().dtype());
        try (NDManager m = Torch.scope()) {
            assertClose(ints.exp(), Torch.call(m, "torch.exp(a)", ints), "exp int64");
            assertClose(bools.tanh(), Torch.call(m, "torch.tanh(a)", bools), "tanh bool");
        }
    }
}
