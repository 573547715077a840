package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** Objects and lambdas made inside a compiled function, returned or live across a graph break (after test_misc's MyObj tests). */
final class MadeInTracePrograms {
    private MadeInTracePrograms() {}

    /** A user class with final and mutable fields, one of them able to point back at the object. */
    static final class Scaled {
        final Tensor value;
        final int factor;
        final String label;
        Scaled parent;
        Scaled self;

        Scaled(Tensor value, int factor, String label) {
            this.value = value;
            this.factor = factor;
            this.label = label;
        }

        Tensor apply(Tensor x) { return x.mul(value).mul(factor); }
    }

    /** An object of the caller's, given what the function made. */
    static final class Sink {
        Object kept;
    }

    static Scaled makesObject(Tensor x) {
        Scaled s = new Scaled(x.relu(), 3, "relu");
        s.self = s;
        return s;
    }

    static Scaled makesNested(Tensor x) {
        Scaled outer = new Scaled(x.mul(2), 2, "outer");
        outer.parent = new Scaled(x.neg(), 1, "inner");
        return outer;
    }

    static Tensor objectAcrossBreak(Tensor x) {
        Scaled s = new Scaled(x.relu(), 2, "r");
        Ember.graphBreak();
        return s.apply(x).add(1);
    }

    static Function<Tensor, Tensor> makesLambda(Tensor w) {
        Tensor s = w.mul(2);
        int k = 3;
        return t -> t.add(s).mul(k);
    }

    static Tensor lambdaAcrossBreak(Tensor x) {
        Tensor s = x.exp();
        UnaryOperator<Tensor> f = t -> t.mul(s);
        Ember.graphBreak();
        return f.apply(x).add(1);
    }

    /** The example of docs/graph-breaks/GB0012.md: a lambda capturing an object made in the trace, both live across a break. */
    static Tensor lambdaOverObjectAcrossBreak(Tensor x) {
        Scaled s = new Scaled(x.relu(), 2, "r");
        UnaryOperator<Tensor> f = t -> t.mul(s.value);
        Ember.graphBreak();
        return f.apply(x).mul(s.factor);
    }

    /** One object reached three ways: twice in the returned list and through the caller's sink. */
    static List<Object> sharedObject(Tensor x, Sink sink) {
        Scaled s = new Scaled(x.t(), 1, "t");
        sink.kept = s;
        return List.of(s, s);
    }
}
