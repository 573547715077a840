package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Method references go straight into explain, as the README shows, with and without options. */
class ExplainOverloadsTest {
    static Tensor printsBetween(Tensor x, Tensor y) {
        Tensor z = x.add(y).relu();
        System.out.println("z has " + z.dim() + " dims");
        return z.mul(2.0);
    }

    static Tensor one(Tensor x) { return x.neg(); }

    @Test
    void methodReferencesNeedNoCast() {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        ExplainOutput kept = Ember.explain(ExplainOverloadsTest::printsBetween).with(x, y);
        assertEquals(1, kept.graphCount());
        assertEquals(0, kept.graphBreakCount());
        ExplainOutput broken = Ember.explain(ExplainOverloadsTest::printsBetween, Options.defaults().reorderableLogging(false)).with(x, y);
        assertEquals(2, broken.graphCount());
        assertEquals(1, broken.graphBreakCount());
        assertEquals(1, Ember.explain(ExplainOverloadsTest::one).with(x).opCount());
    }

    /** explain records through a wrapper around the user's backend; the user's mode still reaches it. */
    @Test
    void explainForwardsTheModeToTheBackend() {
        Tensor x = Tensor.randn(3, 4);
        List<CompileMode> modes = new ArrayList<>();
        Backend modal = new Backend() {
            @Override
            public CompiledGraph compile(GraphModule gm, List<dev.ember.tensor.FakeTensor> in) {
                return compile(gm, in, CompileMode.DEFAULT);
            }

            @Override
            public CompiledGraph compile(GraphModule gm, List<dev.ember.tensor.FakeTensor> in, CompileMode mode) {
                modes.add(mode);
                return Backends.EAGER.compile(gm, in);
            }
        };
        ExplainOutput out = Ember.explain(ExplainOverloadsTest::one, Options.backend(modal).mode("reduce-overhead")).with(x);
        assertEquals(1, out.graphCount());
        assertEquals(List.of(CompileMode.REDUCE_OVERHEAD), modes);
    }
}
