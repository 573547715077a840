package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lambdas with no parameters and no captures ({@code () -> Tensor.zeros(2, 3)},
 * {@code () -> new IllegalStateException("…")}) compile to a static method of no parameters, whose
 * type the trace used to take apart with {@code dropParameterTypes(0, 0)}, which throws for an
 * empty parameter list: every such lambda was an internal error instead of a graph.
 */
class NoArgumentLambdaTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor supplierOfATensor(Tensor x) {
        Supplier<Tensor> zeros = () -> Tensor.ones(2, 3);
        return x.add(zeros.get());
    }

    static List<Object> supplierOfAString(Tensor x) {
        Supplier<String> name = () -> "head";
        return List.of(name.get(), x.neg());
    }

    static Tensor orElseGet(Tensor x) {
        return Optional.<Tensor>empty().orElseGet(() -> Tensor.full(2.0, 2, 3)).mul(x);
    }

    static Tensor orElseThrow(Tensor x) {
        return Optional.<Tensor>empty().orElseThrow(() -> new IllegalStateException("nothing to return")).add(x);
    }

    private static ExplainOutput oneGraph(Fn1<Tensor, ?> fn, Tensor x) {
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        return e;
    }

    @Test
    void aSupplierOfATensorIsTraced() {
        Tensor x = Tensor.randn(2, 3);
        oneGraph(NoArgumentLambdaTest::supplierOfATensor, x);
        assertTrue(supplierOfATensor(x).sameData(Ember.compile((Fn1<Tensor, Tensor>) NoArgumentLambdaTest::supplierOfATensor).apply(x)));
    }

    @Test
    void aSupplierOfAConstantIsTraced() {
        Tensor x = Tensor.randn(2, 3);
        oneGraph(NoArgumentLambdaTest::supplierOfAString, x);
        assertEquals("head", Ember.compile((Fn1<Tensor, List<Object>>) NoArgumentLambdaTest::supplierOfAString).apply(x).getFirst());
    }

    @Test
    void optionalOrElseGetCallsTheSupplierInTheGraph() {
        Tensor x = Tensor.randn(2, 3);
        oneGraph(NoArgumentLambdaTest::orElseGet, x);
        assertTrue(orElseGet(x).sameData(Ember.compile((Fn1<Tensor, Tensor>) NoArgumentLambdaTest::orElseGet).apply(x)));
    }

    @Test
    void orElseThrowWithASupplierThrowsEagersException() {
        Tensor x = Tensor.randn(2, 3);
        Fn1<Tensor, Tensor> fn = NoArgumentLambdaTest::orElseThrow;
        IllegalStateException eager = assertThrows(IllegalStateException.class, () -> fn.apply(x));
        IllegalStateException compiled = assertThrows(IllegalStateException.class, () -> Ember.compile(fn).apply(x));
        assertEquals(eager.getMessage(), compiled.getMessage());
    }
}
