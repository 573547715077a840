package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;

/**
 * Functional composition as Java engineers write it: Function.andThen/compose, UnaryOperator,
 * BiFunction, Predicate combinators, method references to static and instance methods (bound
 * and unbound), lambdas capturing effectively-final locals, suppliers and curried functions.
 * Each program runs eagerly and compiled; all are one graph.
 */
class FunctionalProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3), Y = Tensor.randn(4, 3);

    static Tensor swish(Tensor t) { return t.mul(t.sigmoid()); }

    static Tensor scaleBy(Tensor t, double s) { return t.mul(s); }

    /** A small object whose instance method is used as a method reference. */
    static final class Scaler {
        private final double factor;

        Scaler(double factor) { this.factor = factor; }

        Tensor apply(Tensor t) { return t.mul(factor); }
    }

    // ------------------------------------------------------------------ programs

    static Tensor andThenCompose(Tensor x) {
        Function<Tensor, Tensor> relu = Tensor::relu;
        Function<Tensor, Tensor> pipeline = relu.andThen(t -> t.mul(2)).compose(Tensor::neg);
        return pipeline.apply(x);
    }

    static Tensor unaryOperatorsInALoop(Tensor x) {
        List<UnaryOperator<Tensor>> steps = List.of(Tensor::tanh, t -> t.add(1), FunctionalProgramsTest::swish);
        Tensor h = x;
        for (UnaryOperator<Tensor> step : steps) h = step.apply(h);
        return h;
    }

    static Tensor biFunctionAndThen(Tensor x, Tensor y) {
        BiFunction<Tensor, Tensor, Tensor> add = Tensor::add;
        return add.andThen(Tensor::sigmoid).apply(x, y);
    }

    static Tensor boundInstanceMethodRef(Tensor x) {
        Scaler half = new Scaler(0.5);
        Function<Tensor, Tensor> f = half::apply;
        return f.andThen(FunctionalProgramsTest::swish).apply(x);
    }

    static Tensor capturesEffectivelyFinalLocals(Tensor x, Tensor y) {
        double alpha = 0.25;
        Tensor bias = y.mean(0);
        Function<Tensor, Tensor> shifted = t -> t.mul(alpha).add(bias);
        return shifted.apply(x).add(shifted.apply(y));
    }

    static Tensor supplierAndIdentity(Tensor x) {
        Supplier<Tensor> zeros = () -> Tensor.zeros(4, 3);
        Function<Tensor, Tensor> id = Function.identity();
        return id.apply(x).add(zeros.get());
    }

    static Tensor twice(UnaryOperator<Tensor> f, Tensor x) { return f.apply(f.apply(x)); }

    static Tensor higherOrderHelper(Tensor x) {
        return twice(t -> t.mul(3).sub(1), x);
    }

    static Tensor predicatesCombined(Tensor x, Tensor y) {
        Predicate<Tensor> isMatrix = t -> t.dim() == 2;
        Predicate<Tensor> isSmall = t -> t.numel() < 10;
        Tensor out = x;
        for (Tensor t : List.of(x, y.sum(0), y)) {
            if (isMatrix.and(isSmall.negate()).test(t)) out = out.add(t);
            if (isMatrix.negate().or(isSmall).test(t)) out = out.sub(t.sum());
        }
        return out;
    }

    static Tensor curried(Tensor x) {
        DoubleFunction<UnaryOperator<Tensor>> scaleThenClamp = s -> t -> scaleBy(t, s).clamp(-1.0, 1.0);
        return scaleThenClamp.apply(2.0).apply(x).add(scaleThenClamp.apply(0.5).apply(x));
    }

    static Tensor binaryOperatorFold(Tensor x, Tensor y) {
        BinaryOperator<Tensor> blend = (a, b) -> a.mul(0.75).add(b.mul(0.25));
        Tensor acc = x;
        for (Tensor t : new Tensor[] {y, x.neg(), y.exp()}) acc = blend.apply(acc, t);
        return acc;
    }

    static Tensor functionsInAList(Tensor x) {
        List<Function<Tensor, Tensor>> heads = List.of(Tensor::sin, Tensor::cos, t -> t.mul(t));
        return heads.stream().map(h -> h.apply(x)).reduce(Tensor::add).orElseThrow();
    }

    // ------------------------------------------------------------------ tests

    @Test
    void functionAndThenAndCompose() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::andThenCompose, X), 3);
    }

    @Test
    void aListOfUnaryOperators() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::unaryOperatorsInALoop, X), 4);
    }

    @Test
    void biFunctionAndThen() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) FunctionalProgramsTest::biFunctionAndThen, X, Y), 2);
    }

    @Test
    void boundInstanceMethodReference() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::boundInstanceMethodRef, X), 3);
    }

    @Test
    void lambdasCaptureEffectivelyFinalLocals() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) FunctionalProgramsTest::capturesEffectivelyFinalLocals, X, Y), 6);
    }

    @Test
    void supplierAndFunctionIdentity() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::supplierAndIdentity, X));
    }

    @Test
    void aHigherOrderHelperMethod() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::higherOrderHelper, X), 4);
    }

    @Test
    void predicateAndOrNegate() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) FunctionalProgramsTest::predicatesCombined, X, Y));
    }

    @Test
    void curriedLambdas() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::curried, X), 5);
    }

    @Test
    void binaryOperatorFoldOverAnArray() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) FunctionalProgramsTest::binaryOperatorFold, X, Y));
    }

    @Test
    void aListOfFunctionsStreamed() {
        oneGraph(check((Fn1<Tensor, Tensor>) FunctionalProgramsTest::functionsInAList, X), 5);
    }
}
