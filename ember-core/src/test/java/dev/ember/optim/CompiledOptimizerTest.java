package dev.ember.optim;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code Ember.compile(optimizer)}: every optimizer's steps run as one compiled function of the
 * parameter lists, step for step equal to eager stepping, compiled once although the step size
 * changes every step and a scheduler changes the learning rate.
 */
class CompiledOptimizerTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static List<Tensor> parameters(long seed) {
        Generator g = new Generator(seed);
        List<Tensor> ps = new ArrayList<>();
        for (int[] shape : new int[][] {{16, 8}, {16}, {4, 16}, {4}}) ps.add(Tensor.randn(g, shape).requiresGrad(true));
        return ps;
    }

    /** Gradients that differ from step to step, the same for both copies. */
    private static void setGrads(List<Tensor> ps, int step) {
        Generator g = new Generator(1000 + step);
        for (Tensor p : ps) p.setGrad(Tensor.randn(g, p.shape()));
    }

    private static void assertSame(List<Tensor> eager, List<Tensor> compiled, String when) {
        for (int i = 0; i < eager.size(); i++) assertArrayEquals(eager.get(i).toFloatArray(), compiled.get(i).toFloatArray(), 2e-6f, when + ", parameter " + i);
    }

    /**
     * {@code steps} steps of both optimizers on the same gradients, under a StepLR halving the
     * rate every {@code lrPeriod} steps (none for 0), parameters compared after each.
     */
    private static void stepTogether(List<Tensor> eager, Optimizer eagerOpt, List<Tensor> compiled, Optimizer compiledOpt, int steps, int lrPeriod, String what) {
        StepLR eagerLr = lrPeriod == 0 ? null : new StepLR(eagerOpt, lrPeriod, 0.5), compiledLr = lrPeriod == 0 ? null : new StepLR(compiledOpt, lrPeriod, 0.5);
        for (int step = 1; step <= steps; step++) {
            setGrads(eager, step);
            setGrads(compiled, step);
            eagerOpt.step();
            compiledOpt.step();
            if (lrPeriod != 0) {
                eagerLr.step();
                compiledLr.step();
            }
            assertSame(eager, compiled, what + ", step " + step);
        }
    }

    @Test
    void compiledAdamWStepsAsEagerAndCompilesOnce() {
        for (boolean decoupled : new boolean[] {true, false}) {
            List<Tensor> eager = parameters(7), compiled = parameters(7);
            var options = Adam.options().lr(1e-2).weightDecay(0.01).decoupledWeightDecay(decoupled);
            Adam eagerOpt = new Adam(eager, options);
            CompileCounter cc = new CompileCounter();
            Adam compiledOpt = new Adam(compiled, options);
            Ember.compile(compiledOpt, Options.backend(cc));
            stepTogether(eager, eagerOpt, compiled, compiledOpt, 6, 2, "decoupled " + decoupled);
            assertEquals(1, cc.frameCount(), "one compile for six steps, three learning rates and six step sizes");
            Ember.reset();
        }
    }

    /**
     * SGD's update adds with an alpha that is a graph input (weight decay, momentum, -lr): eager's
     * kernels compute {@code p + alpha * g} as one fma, and so does the compiled step
     * ({@code _add_scaled_by}, lowered to an fma), so the compiled steps are eager's bit for bit. A
     * multiply then an add rounded twice: the parameters parted by an ulp from the second step, which
     * a sensitive training loop grew (fuzz seed 973788).
     */
    @Test
    void theCompiledSgdStepIsEagersBitForBit() {
        for (boolean nesterov : new boolean[] {true, false}) {
            List<Tensor> eager = parameters(9), compiled = parameters(9);
            var options = SGD.options().lr(0.05).momentum(0.9).nesterov(nesterov).weightDecay(0.01).dampening(nesterov ? 0 : 0.1);
            SGD eagerOpt = new SGD(eager, options), compiledOpt = new SGD(compiled, options);
            Ember.compile(compiledOpt, Options.backend("inductor"));
            for (int step = 1; step <= 5; step++) {
                setGrads(eager, step);
                setGrads(compiled, step);
                eagerOpt.step();
                compiledOpt.step();
                for (int i = 0; i < eager.size(); i++) {
                    dev.ember.testing.SameBits.assertSameBits(eager.get(i), compiled.get(i), "nesterov " + nesterov + ", step " + step + ", parameter " + i);
                }
            }
            Ember.reset();
        }
    }

    @Test
    void theInductorsFusedStepEqualsEagerStepping() {
        List<Tensor> eager = parameters(8), compiled = parameters(8);
        AdamW eagerOpt = new AdamW(eager, AdamW.options().lr(3e-3));
        AdamW compiledOpt = new AdamW(compiled, AdamW.options().lr(3e-3));
        Ember.compile(compiledOpt, Options.backend("inductor"));
        stepTogether(eager, eagerOpt, compiled, compiledOpt, 5, 0, "AdamW");
        for (int i = 0; i < eager.size(); i++) {
            assertArrayEquals(eagerOpt.state(eager.get(i)).get("exp_avg_sq").toFloatArray(),
                    compiledOpt.state(compiled.get(i)).get("exp_avg_sq").toFloatArray(), 1e-7f, "second moment " + i);
        }
    }

    /** Each optimizer and the options that change its update's form, with the number of compiles eight steps take. */
    static Stream<Arguments> everyOptimizer() {
        return Stream.of(
                Arguments.of("SGD", 1, (Function<List<Tensor>, Optimizer>) ps -> new SGD(ps, SGD.options().lr(0.1))),
                // the first step creates the momentum buffers eagerly; the seven after it share one compile
                Arguments.of("SGD momentum, dampening, weight decay", 1, (Function<List<Tensor>, Optimizer>) ps -> new SGD(ps, SGD.options().lr(0.1).momentum(0.9).dampening(0.1).weightDecay(0.01))),
                Arguments.of("SGD nesterov, maximize", 1, (Function<List<Tensor>, Optimizer>) ps -> new SGD(ps, SGD.options().lr(0.1).momentum(0.9).nesterov(true).maximize(true))),
                Arguments.of("Adam amsgrad", 1, (Function<List<Tensor>, Optimizer>) ps -> new Adam(ps, Adam.options().lr(1e-2).amsgrad(true).weightDecay(0.01))),
                Arguments.of("RMSprop", 1, (Function<List<Tensor>, Optimizer>) ps -> new RMSprop(ps, RMSprop.options().lr(1e-2))),
                Arguments.of("RMSprop centered, momentum, weight decay", 1, (Function<List<Tensor>, Optimizer>) ps -> new RMSprop(ps, RMSprop.options().lr(1e-2).centered(true).momentum(0.5).weightDecay(0.01))),
                Arguments.of("Adagrad lr decay, weight decay", 1, (Function<List<Tensor>, Optimizer>) ps -> new Adagrad(ps, Adagrad.options().lr(0.1).lrDecay(0.01).weightDecay(0.01))),
                Arguments.of("Adamax", 1, (Function<List<Tensor>, Optimizer>) ps -> new Adamax(ps, Adamax.options().lr(1e-2).weightDecay(0.01))),
                Arguments.of("NAdam decoupled", 1, (Function<List<Tensor>, Optimizer>) ps -> new NAdam(ps, NAdam.options().lr(1e-2).weightDecay(0.01).decoupledWeightDecay(true))),
                // the rectified step starts at step 6 with beta2 = 0.999: a branch on a number, so a second compile
                Arguments.of("RAdam", 2, (Function<List<Tensor>, Optimizer>) ps -> new RAdam(ps, RAdam.options().lr(1e-2).weightDecay(0.01))),
                Arguments.of("Adadelta", 1, (Function<List<Tensor>, Optimizer>) ps -> new Adadelta(ps, Adadelta.options().lr(1.0).weightDecay(0.01))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyOptimizer")
    void everyOptimizersCompiledStepEqualsEagerStepping(String name, int compiles, Function<List<Tensor>, Optimizer> make) {
        List<Tensor> eager = parameters(11), compiled = parameters(11);
        Optimizer eagerOpt = make.apply(eager), compiledOpt = make.apply(compiled);
        CompileCounter cc = new CompileCounter();
        Ember.compile(compiledOpt, Options.backend(cc));
        stepTogether(eager, eagerOpt, compiled, compiledOpt, 8, 3, name);
        for (int i = 0; i < eager.size(); i++) {
            for (var e : eagerOpt.state(eager.get(i)).entrySet()) {
                assertArrayEquals(e.getValue().toFloatArray(), compiledOpt.state(compiled.get(i)).get(e.getKey()).toFloatArray(), 2e-6f,
                        name + ": state " + e.getKey() + " of parameter " + i);
            }
        }
        assertEquals(compiles, cc.frameCount(), name + ": compiles for eight steps under a schedule");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyOptimizer")
    void everyOptimizersStepCompiledByTheInductorEqualsEagerStepping(String name, int compiles, Function<List<Tensor>, Optimizer> make) {
        List<Tensor> eager = parameters(12), compiled = parameters(12);
        Optimizer eagerOpt = make.apply(eager), compiledOpt = make.apply(compiled);
        Ember.compile(compiledOpt, Options.backend("inductor"));
        stepTogether(eager, eagerOpt, compiled, compiledOpt, 7, 0, name);
    }
}
