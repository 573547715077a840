package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.nn.Module;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Doubles from every place user code keeps them: list elements are graph inputs from the first call,
 * as arguments and array elements are; a field (a settings object's, a static one) is a guarded
 * constant until its value changes, then an input (automatic dynamic); a module's field stays a
 * constant. A learning rate kept in a list or a settings object must not recompile every step.
 */
class DoubleSourcesTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** Settings passed as an object. */
    public static final class Settings {
        public double gain;

        Settings(double gain) { this.gain = gain; }
    }

    static double shift = 0.5;

    static Tensor fromList(Tensor x, List<Double> h) { return x.mul(h.get(0)).add(h.get(1)); }

    static Tensor fromField(Tensor x, Settings s) { return x.mul(s.gain).add(shift); }

    static Tensor fromMap(Tensor x, java.util.Map<String, Double> config) { return x.mul(config.get("lr")); }

    private static final Tensor X = Tensor.randn(new Generator(3), 4, 5);

    @Test
    void aListElementIsAGraphInputFromTheFirstCall() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, List<Double>, Tensor>) DoubleSourcesTest::fromList, Options.backend(cc));
        for (int call = 0; call < 12; call++) {
            List<Double> h = List.of(0.3 * call - 1, -0.7 * call);
            assertArrayEquals(fromList(X, h).toFloatArray(), f.apply(X, h).toFloatArray(), "call " + call);
        }
        assertEquals(1, cc.frameCount(), "one compile serves every value of the list's elements");
    }

    @Test
    void aFieldIsAConstantUntilItChangesThenAnInput() {
        CompileCounter cc = new CompileCounter();
        assertEquals(3, fieldCalls(Options.backend(cc), cc), "0.25 twice; the field changed (a recompile, it is an input after); the static field changed (one more)");
        for (String backend : List.of("aot_eager", "inductor")) fieldCalls(Options.backend(backend), null);
    }

    @Test
    void aMapValueIsAConstantUntilItChangesThenAnInput() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, java.util.Map<String, Double>, Tensor>) DoubleSourcesTest::fromMap, Options.backend(cc));
        for (int step = 0; step < 10; step++) {
            var config = java.util.Map.of("lr", 0.1 / (1 + step));      // a learning-rate schedule
            assertArrayEquals(fromMap(X, config).toFloatArray(), f.apply(X, config).toFloatArray(), "step " + step);
        }
        assertEquals(2, cc.frameCount(), "the first value a constant; from its first change an input");
    }

    /** Twelve calls with the settings' field and the static field changing, each checked against eager; the frames compiled. */
    private static int fieldCalls(Options options, CompileCounter cc) {
        Ember.reset();
        var f = Ember.compile((Fn2<Tensor, Settings, Tensor>) DoubleSourcesTest::fromField, options);
        try {
            for (int call = 0; call < 12; call++) {
                Settings s = new Settings(call < 2 ? 0.25 : 0.1 * call - 0.55);
                shift = call < 3 ? 0.5 : -0.01 * call;
                assertArrayEquals(fromField(X, s).toFloatArray(), f.apply(X, s).toFloatArray(), 1e-6f, options + " call " + call);
            }
        } finally {
            shift = 0.5;
        }
        return cc == null ? -1 : cc.frameCount();
    }

    /** A module whose forward reads a double field. */
    static final class Scale extends Module {
        double factor = 2.0;

        @Override
        public Tensor forward(Tensor x) { return x.mul(factor); }
    }

    @Test
    void aModulesFieldStaysAConstant() {
        CompileCounter cc = new CompileCounter();
        Scale m = new Scale();
        var f = Ember.compile(m, Options.backend(cc));
        for (int call = 0; call < 4; call++) {
            m.factor = 1.0 + call;
            assertArrayEquals(X.mul(m.factor).toFloatArray(), f.apply(X).toFloatArray(), "call " + call);
        }
        assertEquals(4, cc.frameCount(), "each value a compile, as Dynamo keeps a module's attributes static");
    }
}
