package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.ember.testing.SameBits.assertSameBits;

/**
 * The rounding, trigonometric, logarithmic and classification ops compiled: one graph, and the
 * bits eager computes (generated code calls the same ScalarMath formula per element as the eager
 * kernels; the composed ops decompose to the same ops eager runs).
 */
class MathOpsCompiledTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor rounding(Tensor x, Tensor y) {
        Tensor r = x.mul(7.0).floor().add(x.ceil()).add(x.mul(3.0).round()).add(x.round(2)).add(x.mul(5.0).trunc());
        return r.add(x.mul(4.0).frac()).add(x.sign()).add(x.square()).add(y.reciprocal());
    }

    static Tensor transcendental(Tensor x, Tensor y) {
        Tensor s = x.mul(0.5).tan().add(x.atan()).add(x.mul(0.3).asin()).add(x.mul(0.3).acos()).add(x.sinh()).add(x.cosh());
        return s.add(x.expm1()).add(x.exp2()).add(y.log2()).add(y.log10()).add(x.atan2(y.sub(1.0)));
    }

    static Tensor classification(Tensor x, Tensor y) {
        Tensor z = x.div(x.gt(0.5).to(x.dtype()).sub(y.gt(1.0).to(x.dtype())));   // ±inf, NaN where the divisor is 0
        Tensor flags = z.isnan().logicalXor(z.isinf()).logicalOr(z.isfinite().logicalNot()).to(x.dtype());
        return z.nanToNum().add(z.nanToNum(1.5, 100.0, -100.0)).add(flags).add(z.isposinf().to(x.dtype())).sub(z.isneginf().to(x.dtype()));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"rounding, inductor, FLOAT32", "rounding, inductor, FLOAT64", "rounding, aot_eager, FLOAT32",
            "transcendental, inductor, FLOAT32", "transcendental, inductor, FLOAT64", "transcendental, aot_eager, FLOAT64",
            "classification, inductor, FLOAT32", "classification, inductor, FLOAT64", "classification, aot_eager, FLOAT32"})
    void compiledEqualsEagerBitForBit(String program, String backend, DType dtype) {
        Fn2<Tensor, Tensor, Tensor> fn = switch (program) {
            case "rounding" -> MathOpsCompiledTest::rounding;
            case "transcendental" -> MathOpsCompiledTest::transcendental;
            default -> MathOpsCompiledTest::classification;
        };
        Generator g = new Generator(program.hashCode());
        Tensor x = Tensor.randn(g, 5, 67).to(dtype), y = Tensor.rand(g, 67).add(0.25).to(dtype);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile(fn, Options.backend(backend).fullgraph(true));
        assertSameBits(fn.apply(x, y), compiled.apply(x, y), program + " " + backend + " " + dtype);
    }
}
