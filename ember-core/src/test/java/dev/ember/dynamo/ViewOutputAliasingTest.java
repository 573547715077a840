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

    static Tensor writeAReshapeThatCopied(Tensor a) {
        Tensor flat = a.reshape(-1);          // a is a narrowed view: reshape cannot view it, and copies
        Tensor row = flat.unsqueeze(0);
        row.sigmoid_();                       // writes the copy, never a
        return row;
    }

    /**
     * reshape (and flatten) alias their input only when its strides let them view it; else the
     * result is a copy. The output was rebuilt as "a view of the input" after the graph and came
     * back holding the input's values, not the written copy (differential fuzzer, seed 53917, every
     * backend). Aliasing is now decided per node from the metadata ({@code Node.aliasesFirstArgument}).
     */
    @ParameterizedTest
    @MethodSource("dev.ember.dynamo.ReturnedInputIdentityTest#backends")
    void aReshapeThatCopiedIsNotAView(Options options) {
        Fn1<Tensor, Tensor> fn = ViewOutputAliasingTest::writeAReshapeThatCopied;
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, options);
        for (int call = 0; call < 2; call++) {
            Tensor x = Tensor.randn(new Generator(call), 8, 6), y = x.clone();
            Tensor want = fn.apply(x.narrow(1, 1, 4)), got = compiled.apply(y.narrow(1, 1, 4));
            assertArrayEquals(want.toFloatArray(), got.toFloatArray(), 1e-6f, options + " call " + call);
            assertArrayEquals(x.toFloatArray(), y.toFloatArray(), options + ": the input is untouched, as in eager");
        }
    }

    static Tensor writeAPieceOfASplitAfterABreak(Tensor a) {
        Tensor piece = a.split(2, 2).get(1);
        Tensor quarter = a.chunk(2, 1).get(0);
        Ember.graphBreak();
        piece.mul_(2.0);
        quarter.add_(1.0);
        return a;
    }

    /**
     * A piece of split or chunk (an op returning a list of views) live across a break is made again
     * as that piece of the same op on the input, so a write through it after the break reaches the
     * input (fuzzer seed 82633: inductor returned the piece along dimension 2 as a copy of its own).
     */
    @ParameterizedTest
    @MethodSource("dev.ember.dynamo.ReturnedInputIdentityTest#backends")
    void aWriteThroughAPieceOfASplitReachesTheInput(Options options) {
        Fn1<Tensor, Tensor> fn = ViewOutputAliasingTest::writeAPieceOfASplitAfterABreak;
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, options);
        for (int call = 0; call < 2; call++) {
            Tensor x = Tensor.randn(new Generator(call), 2, 4, 7, 3), y = x.clone();
            fn.apply(x);
            compiled.apply(y);
            assertArrayEquals(x.toFloatArray(), y.toFloatArray(), 1e-6f, options + " call " + call);
        }
    }
}
