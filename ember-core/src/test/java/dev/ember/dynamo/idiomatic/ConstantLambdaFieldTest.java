package dev.ember.dynamo.idiomatic;

import dev.ember.dynamo.ExplainOutput;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lambda in a field of an enum constant (the constant is a trace constant, so its field is too)
 * is called through its code, as a lambda argument is: serializable ones by their SerializedLambda,
 * a plain one found from its class. Before, the call was a break whose reason told the user to
 * make the lambda serializable, even when it already was.
 */
class ConstantLambdaFieldTest {

    @AfterEach
    void reset() { Ember.reset(); }

    enum Scaled {
        HALF(0.5), DOUBLE(2.0);

        private final Fn1<Tensor, Tensor> op;

        Scaled(double factor) { this.op = t -> t.mul(factor); }   // captures a constant

        Tensor apply(Tensor t) { return op.apply(t); }
    }

    /** One plain lambda of its shape in its class: found from the hidden class. */
    enum Plain {
        ONLY;

        private final UnaryOperator<Tensor> op = t -> t.exp().add(1);

        Tensor apply(Tensor t) { return op.apply(t); }
    }

    static Tensor serializable(Tensor x, Scaled s) { return s.apply(x).neg(); }

    static Tensor plain(Tensor x) { return Plain.ONLY.apply(x); }

    @Test
    void aSerializableLambdaFieldOfAnEnumConstant() {
        Fn2<Tensor, Scaled, Tensor> fn = ConstantLambdaFieldTest::serializable;
        Tensor x = Tensor.randn(3);
        for (Scaled s : Scaled.values()) {
            Ember.reset();
            assertTrue(fn.apply(x, s).sameData(Ember.compile(fn).apply(x, s)), s.name());
            ExplainOutput e = Ember.explain(fn).with(x, s);
            assertEquals(0, e.graphBreakCount(), e.toString());
            assertEquals(2, e.opCount(), e.toString());
        }
    }

    @Test
    void aPlainLambdaFieldOfAnEnumConstant() {
        Fn1<Tensor, Tensor> fn = ConstantLambdaFieldTest::plain;
        Tensor x = Tensor.randn(3);
        assertTrue(fn.apply(x).allclose(Ember.compile(fn).apply(x)));
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(2, e.opCount(), e.toString());
    }
}
