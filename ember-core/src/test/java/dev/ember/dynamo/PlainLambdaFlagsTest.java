package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import dev.ember.testing.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two plain lambdas of one shape made in one class are told apart by their hidden classes'
 * constant pools, which the JVM gives Ember only with two --add-exports (HiddenClassPool.FLAGS):
 * in a JVM without them the call is a graph break that names the flags and the other fix.
 */
class PlainLambdaFlagsTest {

    static Tensor applyTwice(UnaryOperator<Tensor> f, Tensor x) { return f.apply(f.apply(x)); }

    /** Compiles {@link #applyTwice} in one graph for one of two lambdas of one shape, and prints what happened. */
    public static void main(String[] args) {
        UnaryOperator<Tensor> triple = t -> t.mul(3), shift = t -> t.add(1);
        Tensor x = Tensor.ones(2);
        try {
            Tensor got = Ember.compile((Fn2<UnaryOperator<Tensor>, Tensor, Tensor>) PlainLambdaFlagsTest::applyTwice, Options.fullgraph()).apply(shift, x);
            System.out.println("compiled " + got.sameData(applyTwice(shift, x)));
        } catch (Unsupported u) {
            System.out.println(u.getMessage());
        }
    }

    @Test
    void withTheFlagsOneGraph() throws Exception {
        ChildJvm.Run r = ChildJvm.main(PlainLambdaFlagsTest.class).flags(HiddenClassPool.FLAGS.split(" ")).run();
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("compiled true"), r.said());
    }

    @Test
    void withoutThemABreakThatNamesThem() throws Exception {
        ChildJvm.Run r = ChildJvm.main(PlainLambdaFlagsTest.class).run();
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("GB0017"), r.said());
        assertTrue(r.out().contains("start the JVM with " + HiddenClassPool.FLAGS), r.said());
        assertTrue(r.out().contains("make it serializable"), r.said());
    }
}
