package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.fx.CompileMode;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A compiled function that returns a tensor it was passed returns that very tensor, as eager does,
 * also when it wrote the tensor in place (the AOT backends compute the write functionally and copy
 * the value back; the functional value's own tensor must not leak out). Across a graph break this
 * decides correctness, not only identity: the resume method goes on writing the tensor the first
 * graph handed it. Found by the differential fuzzer once breaks resumed in its programs.
 */
class ReturnedInputIdentityTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static List<Options> backends() {
        return List.of(Options.backend("eager"), Options.backend("aot_eager"), Options.backend("inductor"),
                Options.backend("inductor").mode(CompileMode.REDUCE_OVERHEAD));
    }

    static Tensor writeThenReturn(Tensor a) {
        a.mul_(0.5);
        return a;
    }

    static Tensor writeBreakWrite(Tensor a) {
        a.mul_(0.5);
        Ember.graphBreak();
        a.add_(1.0);
        return a;
    }

    static Tensor writeBreakFill(Tensor a) {
        a.mul_(0.5);
        Ember.graphBreak();
        a.fill_(0.5);
        return a;
    }

    /** Returns {@code a} untouched; {@code b} reaches only a number read across a break (no gradient path). */
    static Tensor returnFirst(Tensor a, Tensor b) {
        Tensor unused = b.add(a.sum().item()).div(2.0);
        return a;
    }

    /** Gradients flow as in eager: the returned argument is the caller's leaf, and a tensor with no path to the loss gets no gradient. */
    @ParameterizedTest
    @MethodSource("backends")
    void aReturnedArgumentKeepsEagersGradients(Options options) {
        var compiled = Ember.compile((dev.ember.Fn2<Tensor, Tensor, Tensor>) ReturnedInputIdentityTest::returnFirst, options);
        for (int call = 0; call < 2; call++) {
            Tensor a = Tensor.randn(new Generator(call), 3).requiresGrad(true), b = Tensor.randn(new Generator(10 + call), 2, 3).requiresGrad(true);
            Tensor out = compiled.apply(a, b);
            assertSame(a, out, options + " call " + call);
            out.mul(2.0).sum().backward();
            assertArrayEquals(new float[] {2, 2, 2}, a.grad().toFloatArray(), options + " call " + call);
            org.junit.jupiter.api.Assertions.assertNull(b.grad(), options + " call " + call + ": b has no path to the loss, as in eager");
        }
    }

    private static void check(Fn1<Tensor, Tensor> fn, Options options) {
        Fn1<Tensor, Tensor> compiled = Ember.compile(fn, options);
        for (int call = 0; call < 3; call++) {
            Tensor want = Tensor.randn(new Generator(call), 2, 3), got = want.clone();
            Tensor wantOut = fn.apply(want), gotOut = compiled.apply(got);
            assertSame(got, gotOut, options + " call " + call + ": the argument itself is returned");
            assertArrayEquals(want.toFloatArray(), got.toFloatArray(), 1e-6f, options + " call " + call + ": the argument's final value");
            assertArrayEquals(wantOut.toFloatArray(), gotOut.toFloatArray(), 1e-6f);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aWrittenArgumentReturnedIsTheArgument(Options options) { check(ReturnedInputIdentityTest::writeThenReturn, options); }

    @ParameterizedTest
    @MethodSource("backends")
    void writesOnBothSidesOfABreakReachTheArgument(Options options) {
        check(ReturnedInputIdentityTest::writeBreakWrite, options);
        Ember.reset();
        check(ReturnedInputIdentityTest::writeBreakFill, options);
    }
}
