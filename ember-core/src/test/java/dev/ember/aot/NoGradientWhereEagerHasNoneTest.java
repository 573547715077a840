package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A compiled graph's autograd node gives an input a gradient only when an output that depends on
 * it received one, as eager's per-op nodes do: an input that reaches only outputs the loss never
 * used (a value live across a break and read as a number) keeps {@code grad() == null}, not zeros.
 * Found by the differential fuzzer (seed 20261139).
 */
class NoGradientWhereEagerHasNoneTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor f(Tensor a, Tensor b) {
        Tensor x = a.relu();
        Tensor y = b.mul(2.0);                 // live across the break: an output of the first graph
        Ember.graphBreak();
        double s = y.sum().item();             // read as a number only: no gradient path to b
        return x.mul(s > 0 ? 2.0 : 3.0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void anInputReachingOnlyUnusedOutputsGetsNoGradient(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NoGradientWhereEagerHasNoneTest::f, Options.backend(backend));
        for (int call = 0; call < 2; call++) {
            Tensor a = Tensor.randn(new Generator(call), 3).requiresGrad(true), b = Tensor.randn(new Generator(5 + call), 4).requiresGrad(true);
            Tensor ea = a.detach().clone().requiresGrad(true), eb = b.detach().clone().requiresGrad(true);
            f(ea, eb).sum().backward();
            compiled.apply(a, b).sum().backward();
            assertNull(eb.grad(), "eager: b has no path to the loss");
            assertNull(b.grad(), backend + " call " + call);
            assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 1e-6f, backend);
        }
    }

    static Tensor sqrtOfZero(Tensor a, Tensor b) {
        Tensor zero = a.mul(0.0);
        Tensor root = zero.abs().sqrt();       // its derivative at 0 is infinite
        Tensor y = a.mul(3.0).add(b);
        Ember.graphBreak();
        double s = root.sum().item();          // read as a number: eager never runs sqrt's derivative
        return y.mul(s > 0 ? 2.0 : 3.0);
    }

    static Tensor splitHalfRead(Tensor a, Tensor b) {
        var halves = a.mul(0.0).split(2, 0);   // split's backward joins the halves' gradients
        Tensor root = halves.get(1).abs().sqrt();
        Tensor y = halves.get(0).add(a.narrow(0, 0, 2)).mul(b.narrow(0, 1, 2));
        Ember.graphBreak();
        double s = root.sum().item();
        return y.mul(s > 0 ? 2.0 : 3.0);
    }

    /**
     * A missing gradient is not a zero gradient: feeding zeros for an output the loss never used made
     * the compiled backward compute {@code 0 · sqrt'(0) = NaN} into a gradient eager computes without
     * that term (differential fuzzer, seed 43957). The backward is specialized for the missing tangents.
     */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void anOutputWithoutGradientContributesNothingNotZeroTimesItsDerivative(String backend) {
        for (Fn2<Tensor, Tensor, Tensor> fn : List.<Fn2<Tensor, Tensor, Tensor>>of(NoGradientWhereEagerHasNoneTest::sqrtOfZero, NoGradientWhereEagerHasNoneTest::splitHalfRead)) {
            Ember.reset();
            var compiled = Ember.compile(fn, Options.backend(backend));
            for (int call = 0; call < 2; call++) {
                Tensor a = Tensor.randn(new Generator(call), 4).requiresGrad(true), b = Tensor.randn(new Generator(7 + call), 4).requiresGrad(true);
                Tensor ea = a.detach().clone().requiresGrad(true), eb = b.detach().clone().requiresGrad(true);
                fn.apply(ea, eb).sum().backward();
                compiled.apply(a, b).sum().backward();
                assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 1e-6f, backend + " call " + call + ": a's gradient");
                assertArrayEquals(eb.grad().toFloatArray(), b.grad().toFloatArray(), 1e-6f, backend + " call " + call + ": b's gradient");
            }
        }
    }

    static Tensor filledAfterSilu(Tensor a) {
        Tensor v = a.silu();
        v.fill_(0.5);                          // fill's derivative is zeros, whatever the gradient: eager still gives a zeros
        Ember.graphBreak();
        a.narrow(0, 0, 2);                     // a is live across the break: an output of the first graph no loss reads
        return v;
    }

    /**
     * A formula whose result does not depend on the gradient (fill's zeros) belongs to the gradient it
     * was run for: eager gives {@code a} a zero gradient, and so must the backward specialized for
     * the output the loss did not read (differential fuzzer, seed 46246).
     */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aGradientThatIsZeroByItsFormulaIsStillAGradient(String backend) {
        var compiled = Ember.compile((dev.ember.Fn1<Tensor, Tensor>) NoGradientWhereEagerHasNoneTest::filledAfterSilu, Options.backend(backend));
        Tensor a = Tensor.randn(new Generator(3), 3, 2).requiresGrad(true), ea = a.detach().clone().requiresGrad(true);
        filledAfterSilu(ea).sum().backward();
        compiled.apply(a).sum().backward();
        assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 0f, backend);
    }

    static List<Tensor> twoConvolutions(Tensor x, Tensor w) {
        Tensor h = dev.ember.nn.F.conv2d(x, w, null, 1, 0);
        Tensor y = dev.ember.nn.F.conv2d(h, w.narrow(1, 0, 1).transpose(0, 1).contiguous(), null, 1, 0);   // h's gradient comes from this conv's getitem
        return List.of(y.sum(), w);            // w returned as it is: an output no loss reads
    }

    /**
     * An accumulation made while differentiating a multi-output derivative (convolution_backward,
     * unpacked by getitem nodes the step's emitter did not make) belongs to the tangents those
     * getitems came from: the backward specialized for the unread output kept only the unread
     * output's share of w's gradient and gave w zeros (differential fuzzer, seed 52216).
     */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aGradientAccumulatedFromAMultiOutputDerivativeKeepsItsShare(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, List<Tensor>>) NoGradientWhereEagerHasNoneTest::twoConvolutions, Options.backend(backend));
        Tensor x = Tensor.randn(new Generator(1), 2, 3, 6, 5), w0 = Tensor.randn(new Generator(2), 4, 3, 2, 2);   // [out 4, in 3]: the second conv takes h's 4 channels to 1
        Tensor w = w0.detach().clone().requiresGrad(true), ew = w0.detach().clone().requiresGrad(true);
        twoConvolutions(x, ew).getFirst().backward();
        compiled.apply(x, w).getFirst().backward();
        assertArrayEquals(ew.grad().toFloatArray(), w.grad().toFloatArray(), 1e-4f, backend);
    }
}
