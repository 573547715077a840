package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.inductor.runtime.KernelTier;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The differential fuzzer judges a generated kernel in both of its forms (KernelTier): a
 * configuration's first call runs as a user's first call does, in the scalar form, and every later
 * call (the second, the new values, the new sizes) with every kernel forced to its SIMD form. A
 * program is called fewer times than a kernel's scalar calls, so without the forcing the judge
 * would never see a SIMD form.
 */
class BothKernelFormsTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor biasRelu(Tensor x) { return x.mul(2.0).add(1.0).relu(); }

    @Test
    void onlyTheFirstCompiledCallRunsTheScalarForm() {
        assumeTrue(KernelTier.enabled(), "tiers are off in this JVM (EMBER_COLD_START=java)");
        Fn1<Tensor, Tensor> fn = BothKernelFormsTest::biasRelu;
        long before = KernelTier.scalarCallsInProcess();
        var result = DifferentialRunner.run(fn, () -> new Object[] {Tensor.randn(new Generator(7L), 4099)}, Config.parse("inductor/default"));
        result.outcomes().forEach((config, disagreement) -> assertNull(disagreement, config + ": " + disagreement));
        assertEquals(1, KernelTier.scalarCallsInProcess() - before,
                "the one kernel's scalar form runs on the first compiled call only; every later call is judged in the SIMD form");
    }
}
