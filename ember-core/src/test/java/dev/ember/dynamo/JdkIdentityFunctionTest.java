package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Function.identity() and UnaryOperator.identity() are traced as lambdas (JdkFunctions), as Dynamo
 * traces {@code lambda x: x}: calling them, chaining them with andThen/compose and passing them to
 * a stream or an Optional stay in one graph. They were a break ("not known to be pure") and a second break at
 * the JDK lambda's apply().
 */
class JdkIdentityFunctionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor called(Tensor x) {
        Function<Tensor, Tensor> id = Function.identity();
        UnaryOperator<Tensor> same = UnaryOperator.identity();
        return id.apply(x).add(same.apply(x.neg()));
    }

    static Tensor chained(Tensor x) {
        Function<Tensor, Tensor> f = Function.<Tensor>identity().andThen(Tensor::relu).compose(t -> t.mul(2));
        return f.apply(x);
    }

    static Tensor inAnOptional(Tensor x) {
        return java.util.Optional.of(x.sin()).map(Function.identity()).orElseThrow();
    }

    static Tensor inAMapStep(Tensor x) {
        return Stream.of(x, x.exp()).map(Function.identity()).reduce(Tensor::add).orElseThrow();
    }

    private static void oneGraphSameAsEager(Fn1<Tensor, ?> fn) {
        Tensor x = Tensor.randn(2, 3);
        Object eager = fn.apply(x), compiled = Ember.compile(fn).apply(x);
        if (eager instanceof Tensor t) assertTrue(t.allclose((Tensor) compiled));
        else assertEquals(eager, compiled);
        Ember.reset();
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertTrue(e.graphCount() <= 1, e.toString());
    }

    @Test
    void identityCalledDirectly() { oneGraphSameAsEager(JdkIdentityFunctionTest::called); }

    @Test
    void identityChainedWithAndThenAndCompose() { oneGraphSameAsEager(JdkIdentityFunctionTest::chained); }

    @Test
    void identityAsAnOptionalsMapper() { oneGraphSameAsEager(JdkIdentityFunctionTest::inAnOptional); }

    @Test
    void identityAsAMapStep() { oneGraphSameAsEager(JdkIdentityFunctionTest::inAMapStep); }
}
