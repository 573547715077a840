package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * A view and its base that leave a graph together (returned, or live across a break) share memory
 * after it, as in eager: a write through the view after the break reaches the base. The inductor
 * computes a view it returns into a buffer of its own; the view is now made again from its base
 * after the graph. Found by the fuzzer once breaks resumed (seed 43202).
 */
class ViewOutputAliasingTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor writeThroughAViewAfterABreak(Tensor a) {
        Tensor v2 = a.flatten().mul(a.flatten());
        Tensor v3 = v2.narrow(0, 3, 2);
        Ember.graphBreak();
        v3.add_(1.0);
        return v2;
    }

    static Tensor viewsOfViews(Tensor a) {
        Tensor b = a.mul(2.0);
        Tensor c = b.transpose(0, 1).narrow(0, 1, 2);
        Ember.graphBreak();
        c.mul_(-1.0);
        return b;
    }

    @ParameterizedTest
    @MethodSource("dev.ember.dynamo.ReturnedInputIdentityTest#backends")
    void aWriteThroughAViewReachesItsBase(Options options) {
        for (Fn1<Tensor, Tensor> fn : List.<Fn1<Tensor, Tensor>>of(ViewOutputAliasingTest::writeThroughAViewAfterABreak, ViewOutputAliasingTest::viewsOfViews)) {
            Ember.reset();
            Fn1<Tensor, Tensor> compiled = Ember.compile(fn, options);
            for (int call = 0; call < 3; call++) {
                Tensor x = Tensor.randn(new Generator(call), 4, 3);
                assertArrayEquals(fn.apply(x.clone()).toFloatArray(), compiled.apply(x.clone()).toFloatArray(), 1e-6f, options + " call " + call);
            }
        }
    }
}
