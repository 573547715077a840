package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * max-autotune times its variants on made-up inputs; a graph whose own checks refuse such inputs
 * (a traced assert on the values) still compiles, with its default code, and computes eager's result.
 */
class AutotuneOnMadeUpInputsTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor positiveOnly(Tensor x) {
        assert x.min().gt(0).asBoolean() : "inputs must be positive";   // traced into the graph (_assert_async.msg), no break
        return x.log().mul(2.0).add(1.0);
    }

    @Test
    void aGraphWithAnAssertOnItsValuesCompilesUnderMaxAutotune() {
        Tensor x = Tensor.rand(64, 256).add(0.5);
        Fn1<Tensor, Tensor> f = Ember.compile(AutotuneOnMadeUpInputsTest::positiveOnly, Options.defaults().mode("max-autotune"));
        assertClose(f.apply(x), positiveOnly(x), "max-autotune");
        assertEquals(1, Ember.explain(AutotuneOnMadeUpInputsTest::positiveOnly).with(x).graphCount());
    }
}
