package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Objects and lambdas made during the trace are made again after the graph, as Dynamo reconstructs
 * new objects: they can be returned from a compiled function and live across a graph break, and
 * one object reached along several paths stays one object.
 */
class MadeInTraceTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final Tensor X = Tensor.randn(3, 4);

    private static void assertSameScaled(MadeInTracePrograms.Scaled expected, MadeInTracePrograms.Scaled actual) {
        assertTrue(expected.value.sameData(actual.value));
        assertEquals(expected.factor, actual.factor);
        assertEquals(expected.label, actual.label);
    }

    @Test
    void anObjectMadeInTheTraceIsReturned() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, MadeInTracePrograms.Scaled>) MadeInTracePrograms::makesObject, Options.backend(cc).fullgraph(true));
        MadeInTracePrograms.Scaled s = f.apply(X);
        assertSameScaled(MadeInTracePrograms.makesObject(X), s);
        assertSame(s, s.self, "a field that points back at its object is that object");
        assertNotSame(s, f.apply(X), "each call makes its own object");
        assertEquals(1, cc.frameCount());
        assertEquals(1, cc.opCount());
    }

    @Test
    void nestedObjectsAndRecordlessPlainObjects() {
        var f = Ember.compile((Fn1<Tensor, MadeInTracePrograms.Scaled>) MadeInTracePrograms::makesNested, Options.fullgraph());
        MadeInTracePrograms.Scaled expected = MadeInTracePrograms.makesNested(X), actual = f.apply(X);
        assertSameScaled(expected, actual);
        assertSameScaled(expected.parent, actual.parent);
        Programs.Box box = Ember.compile((Fn1<Tensor, Programs.Box>) Programs::returnsPlainObject, Options.fullgraph()).apply(X);
        assertTrue(X.t().sameData(box.value));
    }

    /**
     * {@code fn} has one explicit graph break: compiled, it gives eager's result on two calls, with
     * two graphs (before the break, and the resume method's) holding {@code ops} ops between them,
     * and no other break: the values made before the break were made again for the resume method.
     */
    private static void compilesAcrossOneBreak(Fn1<Tensor, Tensor> fn, int ops) {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(fn, Options.backend(cc));
        for (int call = 0; call < 2; call++) assertTrue(fn.apply(X).sameData(f.apply(X)));
        assertEquals(2, cc.frameCount(), "nothing runs eagerly");
        assertEquals(ops, cc.opCount());
        ExplainOutput e = Ember.explain(fn).with(X);
        assertEquals(List.of("GB0016"), e.breakReasons().stream().map(ExplainOutput.BreakReason::gbId).toList(), e.toString());
    }

    @Test
    void anObjectLivesAcrossAGraphBreak() {
        compilesAcrossOneBreak(MadeInTracePrograms::objectAcrossBreak, 4); // relu; then mul, mul, add
    }

    @Test
    void aLambdaMadeInTheTraceIsReturnedWithItsCapturedValues() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Function<Tensor, Tensor>>) MadeInTracePrograms::makesLambda, Options.backend(cc).fullgraph(true));
        Tensor w = Tensor.randn(3, 4), t = Tensor.randn(3, 4);
        assertTrue(MadeInTracePrograms.makesLambda(w).apply(t).sameData(f.apply(w).apply(t)));
        assertEquals(1, cc.frameCount());
        assertEquals(1, cc.opCount(), "w * 2, captured by the lambda");
    }

    @Test
    void aLambdaLivesAcrossAGraphBreakAndIsTracedAfterIt() {
        compilesAcrossOneBreak(MadeInTracePrograms::lambdaAcrossBreak, 3); // exp; then the lambda's mul and the add
    }

    @Test
    void aLambdaAndTheObjectItCapturesCrossABreakTogether() {
        compilesAcrossOneBreak(MadeInTracePrograms::lambdaOverObjectAcrossBreak, 3); // relu; then mul, mul
    }

    @Test
    void oneObjectReachedThreeWaysIsOneObject() {
        var f = Ember.compile((Fn2<Tensor, MadeInTracePrograms.Sink, List<Object>>) MadeInTracePrograms::sharedObject, Options.fullgraph());
        MadeInTracePrograms.Sink sink = new MadeInTracePrograms.Sink();
        List<Object> out = f.apply(X, sink);
        assertSame(out.get(0), out.get(1));
        assertSame(out.get(0), sink.kept);
        assertSameScaled(new MadeInTracePrograms.Scaled(X.t(), 1, "t"), (MadeInTracePrograms.Scaled) sink.kept);
    }
}
