package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.ember.testing.SameBits.assertSameBits;

/**
 * add, sub and rsub with an alpha other than 1 are one fused multiply-add in generated code
 * ({@code Expr.Fma}: {@code Math.fma} in the scalar form, a lane fma in the SIMD form), as the eager
 * kernels (ATen's fmadd) compute them: a multiply then an add rounds twice and gave other bits in
 * some elements, the difference a compiled optimizer step carried from step to step (fuzz seed 973788).
 */
class AddWithAlphaLoweringTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor scaledSums(Tensor x, Tensor y) {
        return x.add(y, 0.3).sub(y, 1.7).mul(x).rsub(2.5).add(x.mul(y), -0.1);
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void addWithAnAlphaGivesEagersBits(DType dtype) {
        Generator g = new Generator(11);
        // 1,003 elements: whole vectors and a masked tail; the first call runs the scalar form, the later ones the SIMD form
        Tensor x = Tensor.randn(g, 17, 59).to(dtype), y = Tensor.randn(g, 17, 59).to(dtype);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) AddWithAlphaLoweringTest::scaledSums,
                Options.backend("inductor").fullgraph(true));
        Tensor expected = scaledSums(x, y);
        for (int call = 1; call <= 3; call++) assertSameBits(expected, compiled.apply(x, y), dtype + ", call " + call);
        dev.ember.inductor.runtime.KernelTier.forceForm(true);
        try {
            assertSameBits(expected, compiled.apply(x, y), dtype + ", the SIMD form");
        } finally {
            dev.ember.inductor.runtime.KernelTier.forceForm(null);
        }
    }

    /** Integer alphas: Tensor's add and sub take a double alpha, which integer tensors refuse, so the ops are called with a long. */
    static Tensor integerScaledSums(Tensor x, Tensor y) {
        Tensor sum = dev.ember.ops.PointwiseOps.ADD_TENSOR.callTensor(x, y, 3L);
        return dev.ember.ops.PointwiseOps.SUB_TENSOR.callTensor(sum, y, 2L);
    }

    @Test
    void integersMultiplyAndAddExactly() {
        Tensor x = Tensor.arange(40).to(DType.INT32), y = Tensor.arange(40).mul(7L).sub(100L).to(DType.INT32);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) AddWithAlphaLoweringTest::integerScaledSums,
                Options.backend("inductor").fullgraph(true));
        assertSameBits(integerScaledSums(x, y), compiled.apply(x, y), "int32");
    }
}
