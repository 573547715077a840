package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.ember.testing.SameBits.assertSameBits;

/**
 * A division by a value that stays the same along the loop (a scalar, a broadcast row, a per-row
 * sum) is a division in generated code, as eager's kernels divide: multiplying by the hoisted
 * reciprocal rounds twice and gave other bits in about one element of thirty here. (softmax, whose
 * eager kernel does multiply by the sum's reciprocal, says so in its decomposition.)
 */
class InvariantDivisionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor divisions(Tensor x, Tensor row) {
        return x.div(3.0).add(x.div(row).mul(2.0));
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void divisionByAnInvariantGivesEagersBits(DType dtype) {
        Generator g = new Generator(5);
        Tensor x = Tensor.randn(g, 7, 131).to(dtype), row = Tensor.rand(g, 131).add(0.3).to(dtype);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) InvariantDivisionTest::divisions,
                Options.backend("inductor").fullgraph(true));
        assertSameBits(divisions(x, row), compiled.apply(x, row), "divisions " + dtype);
    }
}
