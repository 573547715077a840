package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A default method called on a lambda — a user interface's ({@code Layer.then}) or a
 * java.util.function combinator ({@code andThen}, {@code compose}, {@code negate}, {@code and}) —
 * is traced like any method with the lambda as its receiver, so the composed function is one graph
 * (it was a graph break, "only its functional method apply is supported").
 */
class LambdaDefaultMethodsTest {
    @AfterEach
    void reset() { Ember.reset(); }

    interface Layer {
        Tensor apply(Tensor x);

        default Layer then(Layer next) { return x -> next.apply(apply(x)); }

        default Layer repeated(int times) {
            Layer out = this;
            for (int i = 1; i < times; i++) out = out.then(this);
            return out;
        }
    }

    static Tensor userDefaults(Tensor x) {
        Layer relu = Tensor::relu;
        Layer scale = t -> t.mul(3);
        return relu.then(scale).then(Tensor::tanh).apply(x).add(scale.repeated(3).apply(x));
    }

    static Tensor jdkCombinators(Tensor x) {
        Function<Tensor, Tensor> sin = Tensor::sin;
        Function<Tensor, Tensor> twice = t -> t.mul(2);
        BiFunction<Tensor, Tensor, Tensor> add = Tensor::add;
        Predicate<Tensor> wide = t -> t.size(-1) > 3;
        Predicate<Tensor> tall = t -> t.size(0) > 3;
        Tensor y = sin.andThen(twice).apply(x).add(sin.compose(twice).apply(x)).add(add.andThen(Tensor::exp).apply(x, x));
        if (wide.and(tall.negate()).test(x)) y = y.neg();
        return y;
    }

    static Tensor inputLambda(Function<Tensor, Tensor> f, Tensor x) { return f.andThen(Tensor::cos).apply(x); }

    @Test
    void defaultMethodsOnLambdasAreTracedWithoutABreak() {
        Tensor x = Tensor.randn(3, 5);
        for (Fn1<Tensor, Tensor> fn : java.util.List.<Fn1<Tensor, Tensor>>of(LambdaDefaultMethodsTest::userDefaults, LambdaDefaultMethodsTest::jdkCombinators)) {
            assertArrayEquals(fn.apply(x).toDoubleArray(), Ember.compile(fn).apply(x).toDoubleArray(), 1e-6);
            var e = Ember.explain(fn).with(x);
            assertEquals(0, e.graphBreakCount(), e.toString());
            assertEquals(1, e.graphCount(), e.toString());
        }
        // an input lambda is traced when serializable (docs/graph-breaks/GB0017.md)
        Function<Tensor, Tensor> given = (Function<Tensor, Tensor> & java.io.Serializable) t -> t.mul(4).sigmoid();
        Fn2<Function<Tensor, Tensor>, Tensor, Tensor> withInput = LambdaDefaultMethodsTest::inputLambda;
        assertArrayEquals(inputLambda(given, x).toDoubleArray(), Ember.compile(withInput).apply(given, x).toDoubleArray(), 1e-6);
        var e = Ember.explain(withInput).with(given, x);
        assertEquals(0, e.graphBreakCount(), e.toString());
    }
}
