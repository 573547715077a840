package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.CustomFunction;
import dev.ember.autograd.CustomFunctionTest.ClippedExp;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A CustomFunction under Ember.compile is traced as Dynamo traces a torch.autograd.Function: its
 * forward's ops in the caller's graph (no break), its backward the gradient every backend computes;
 * what a graph cannot hold falls back to one eager call (GB0020) that says why.
 */
class CustomFunctionCaptureTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor clippedModel(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).tanh();
        return new ClippedExp(0.5).apply(h).mul(3.0).sum();
    }

    /** (loss, w's gradient) of {@code f} on copies of the same weights. */
    private static double[][] lossAndGrad(Fn2<Tensor, Tensor, Tensor> f, Tensor x, Tensor w) {
        Tensor wc = w.detach().clone().requiresGrad(true);
        Tensor loss = f.apply(x, wc);
        loss.backward();
        return new double[][] {{loss.item()}, wc.grad().toDoubleArray()};
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void itsForwardJoinsTheGraphAndItsBackwardGivesTheGradient(String backend) {
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(6, 4), w = Tensor.randn(4, 5);
        double[][] eager = lossAndGrad(CustomFunctionCaptureTest::clippedModel, x, w);
        double[][] compiled = lossAndGrad(Ember.compile(CustomFunctionCaptureTest::clippedModel, Options.backend(backend)), x, w);
        assertEquals(eager[0][0], compiled[0][0], 1e-5);
        assertArrayEquals(eager[1], compiled[1], 1e-5);
        // the clipping is what the gradient shows: plain autograd through exp gives another one
        double[][] plain = lossAndGrad((xx, ww) -> xx.matmul(ww).tanh().exp().mul(3.0).sum(), x, w);
        double differ = 0;
        for (int i = 0; i < plain[1].length; i++) differ = Math.max(differ, Math.abs(plain[1][i] - eager[1][i]));
        assertTrue(differ > 0.1, "the clipped gradient must differ from exp's: " + differ);

        Tensor wg = w.detach().clone().requiresGrad(true);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) CustomFunctionCaptureTest::clippedModel).with(x, wg);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
    }

    static Tensor withFunction(ClippedExp fn, Tensor x) { return fn.apply(x).sum(); }

    @Test
    void aFieldTheHalvesReadIsGuarded() {
        // the backward's clamp limit is a field of the function object passed in: another object with another limit recompiles
        Tensor x = Tensor.randn(8).add(1.0);
        var f = Ember.compile((Fn2<ClippedExp, Tensor, Tensor>) CustomFunctionCaptureTest::withFunction);
        for (double limit : new double[] {0.5, 0.1, 5.0}) {
            Tensor a = x.detach().requiresGrad(true), b = x.detach().requiresGrad(true);
            withFunction(new ClippedExp(limit), a).backward();
            f.apply(new ClippedExp(limit), b).backward();
            assertArrayEquals(a.grad().toDoubleArray(), b.grad().toDoubleArray(), 1e-6, "limit " + limit);
        }
    }

    /** sin(x)·x, saving sin(x) — an intermediate that is neither an input nor an output — for its backward. */
    static final class SinTimes extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor s = in[0].sin();
            ctx.saveForBackward(in[0], s);
            return new Tensor[] {s.mul(in[0])};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            Tensor x = ctx.savedTensors().get(0), s = ctx.savedTensors().get(1);
            return new Tensor[] {grad[0].mul(s.add(x.mul(x.cos())))};
        }
    }

    static Tensor sinTimesModel(Tensor x, Tensor w) { return new SinTimes().apply(x.mul(w)).square().mean(); }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aSavedIntermediateReachesTheBackward(String backend) {
        Tensor.manualSeed(4);
        Tensor x = Tensor.randn(3, 7).to(DType.FLOAT64), w = Tensor.randn(3, 7).to(DType.FLOAT64);
        double[][] eager = lossAndGrad(CustomFunctionCaptureTest::sinTimesModel, x, w);
        double[][] compiled = lossAndGrad(Ember.compile(CustomFunctionCaptureTest::sinTimesModel, Options.backend(backend)), x, w);
        // the hand-written backward is sin's true derivative: autograd of the same formula agrees
        double[][] plain = lossAndGrad((xx, ww) -> xx.mul(ww).sin().mul(xx.mul(ww)).square().mean(), x, w);
        assertArrayEquals(plain[1], eager[1], 1e-12);
        assertEquals(eager[0][0], compiled[0][0], 1e-12);
        assertArrayEquals(eager[1], compiled[1], 1e-12);
    }

    /** Two outputs: values (differentiable) and their argmax along the last dim (not); the backward needs only which inputs want a gradient. */
    static final class ScaleAndArgmax extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor idx = in[0].argmax(-1, false);
            ctx.markNonDifferentiable(idx);
            return new Tensor[] {in[0].mul(in[1]), idx};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            return new Tensor[] {ctx.needsInputGrad(0) ? grad[0].mul(2.0) : null, null};
        }
    }

    static Tensor twoOutputs(Tensor x, Tensor w) {
        List<Tensor> out = new ScaleAndArgmax().applyAll(w, x);
        return out.get(0).sum().add(out.get(1).to(DType.FLOAT32).sum());
    }

    @Test
    void severalOutputsAndNonDifferentiableOnes() {
        Tensor.manualSeed(5);
        Tensor x = Tensor.randn(4, 5), w = Tensor.randn(4, 5);
        double[][] eager = lossAndGrad(CustomFunctionCaptureTest::twoOutputs, x, w);
        double[][] compiled = lossAndGrad(Ember.compile(CustomFunctionCaptureTest::twoOutputs), x, w);
        assertEquals(eager[0][0], compiled[0][0], 1e-5);
        assertArrayEquals(eager[1], compiled[1], 1e-6);
        for (double g : compiled[1]) assertEquals(2.0, g, 0.0);   // the backward's doubling, not x
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) CustomFunctionCaptureTest::twoOutputs).with(x, w.detach().requiresGrad(true));
        assertEquals(0, e.graphBreakCount(), e.toString());
    }

    @Test
    void withoutGradientsItIsJustTheForwardsOps() {
        Tensor x = Tensor.randn(5, 3), w = Tensor.randn(3, 3);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(CustomFunctionCaptureTest::clippedModel);
        assertEquals(clippedModel(x, w).item(), f.apply(x, w).item(), 1e-4);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) CustomFunctionCaptureTest::clippedModel).with(x, w);
        assertEquals(0, e.graphBreakCount(), e.toString());
        // matmul, tanh, the function's op and the getitem of its one output (Dynamo's autograd_function_apply and getitem), mul, sum
        assertEquals(6, e.opCount(), e.toString());
    }

    /** The gradient reversal layer (domain-adversarial training): the identity forward, the gradient negated and scaled. */
    static final class ReverseGradient extends CustomFunction {
        final double scale;
        final boolean asView;

        ReverseGradient(double scale, boolean asView) {
            this.scale = scale;
            this.asView = asView;
        }

        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {asView ? in[0].view(in[0].shape()) : in[0]}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0].mul(-scale)}; }
    }

    static Tensor reversed(Tensor x, Tensor w, boolean asView) {
        Tensor features = x.matmul(w).relu();
        Tensor domain = new ReverseGradient(0.3, asView).apply(features);
        return domain.sigmoid().sum().add(features.square().sum());
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anIdentityForwardReturnsItsInputAsEagerDoes(String backend) {
        Tensor.manualSeed(6);
        Tensor x = Tensor.randn(5, 4), w = Tensor.randn(4, 3);
        for (boolean asView : new boolean[] {false, true}) {
            Fn2<Tensor, Tensor, Tensor> eagerFn = (a, b) -> reversed(a, b, asView);
            double[][] eager = lossAndGrad(eagerFn, x, w);
            double[][] compiled = lossAndGrad(Ember.compile(eagerFn, Options.backend(backend)), x, w);
            assertEquals(eager[0][0], compiled[0][0], 1e-5);
            assertArrayEquals(eager[1], compiled[1], 1e-5);
            // its output shares the input's memory, which a graph's op cannot say: it runs as one eager call
            ExplainOutput e = Ember.explain(eagerFn).with(x, w.detach().requiresGrad(true));
            assertEquals(1, e.graphBreakCount(), e.toString());
            assertTrue(e.breakReasons().getFirst().reason().contains("shares the input's memory"), e.toString());
            Ember.reset();
        }
    }

    static Tensor reversedThenWritten(Tensor x, boolean asView) {
        Tensor y = new ReverseGradient(0.3, asView).apply(x);
        x.clamp_(-0.5, 0.5).exp_();   // y is x (or a view of it): it sees the write, as eagerly
        return y.add(1.0);
    }

    /** Fuzzer seed 900211: a function whose forward returns its input (or a view of it), the input then written in place. */
    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anOutputThatIsItsInputSeesALaterWriteOfIt(String backend) {
        for (boolean asView : new boolean[] {false, true}) {
            Tensor x = Tensor.randn(6);
            Fn1<Tensor, Tensor> f = t -> reversedThenWritten(t, asView);
            Tensor want = f.apply(x.clone()), got = Ember.compile(f, Options.backend(backend)).apply(x.clone());
            assertArrayEquals(want.toDoubleArray(), got.toDoubleArray(), 1e-6, "as view " + asView + " under " + backend);
            Ember.reset();
        }
    }

    /** Prints in forward: a graph cannot hold that, so the call runs eagerly, and the break says why. */
    static final class Loud extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            System.out.println("forward of " + in.length);
            return new Tensor[] {in[0].neg()};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0].neg()}; }
    }

    /** Returns one gradient too many: eager's error at backward time, compiled the same. */
    static final class TooManyGradients extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0].mul(2.0)}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0], grad[0]}; }
    }

    @Test
    void whatAGraphCannotHoldRunsAsOneEagerCallWithItsReason() {
        Fn1<Tensor, Tensor> loud = x -> new Loud().apply(x.sin()).sum();
        Tensor x = Tensor.randn(4).requiresGrad(true);
        ExplainOutput e = Ember.explain(loud).with(x);
        assertEquals(1, e.graphBreakCount(), e.toString());
        String reason = e.breakReasons().getFirst().reason();
        assertTrue(reason.contains("a CustomFunction runs as one call") && reason.contains("its forward has side effects"), reason);
        Tensor y = Ember.compile(loud).apply(x);
        y.backward();
        assertArrayEquals(x.detach().cos().neg().toDoubleArray(), x.grad().toDoubleArray(), 1e-6);   // sum(-sin x)

        Fn1<Tensor, Tensor> tooMany = t -> new TooManyGradients().apply(t).sum();
        Tensor a = Tensor.randn(3).requiresGrad(true), b = a.detach().requiresGrad(true);
        String want = assertThrows(IllegalStateException.class, () -> tooMany.apply(a).backward()).getMessage();
        Tensor compiledOut = Ember.compile(tooMany).apply(b);   // the forward runs; the error is backward's, as eagerly
        String got = assertThrows(IllegalStateException.class, compiledOut::backward).getMessage();
        assertEquals(want, got);
        ExplainOutput e2 = Ember.explain(tooMany).with(Tensor.randn(3).requiresGrad(true));
        assertTrue(e2.breakReasons().getFirst().reason().contains("2 gradients for 1 inputs"), e2.toString());
    }

    @Test
    void aTracedFunctionsOpCannotBeWrittenAsText() {
        // the op exists only in this process: saved graphs (repros, the text format) refuse it by name instead of naming an op no one can load
        Tensor x = Tensor.randn(3, 3), w = Tensor.randn(3, 3);
        var graphs = new java.util.ArrayList<dev.ember.fx.GraphModule>();
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(CustomFunctionCaptureTest::clippedModel, Options.backend((gm, inputs) -> {
            graphs.add(gm);
            return new dev.ember.fx.PreparedGraph(gm);
        }));
        f.apply(x, w);
        assertEquals(1, graphs.size());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> dev.ember.fx.GraphText.write(graphs.getFirst().graph()));
        assertTrue(refused.getMessage().contains("a traced CustomFunction"), refused.getMessage());
        List<String> traced = graphs.getFirst().graph().nodes().stream()
                .filter(n -> n.target() instanceof dev.ember.ops.OpOverload op && !dev.ember.ops.OpRegistry.isRegistered(op))
                .map(n -> n.target().toString()).toList();
        assertEquals(1, traced.size(), traced.toString());
        assertTrue(traced.getFirst().contains("ClippedExp"), traced.toString());
    }
}
