package dev.ember.passes;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.GraphModule;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the pre-grad pass tests share: the graph Dynamo captures from a function, the pre-grad
 * stage run on a copy of it (as AOT runs it, for inference), and the function compiled by the
 * inductor with a pass on or off.
 */
final class PreGradHarness {
    private PreGradHarness() {}

    /** How a test compiles its function (a module's forward or a method reference) under given options. */
    interface Compiler extends Function<Options, Fn1<Tensor, Tensor>> {}

    /** The graph after the pre-grad passes and the names of those that changed it. */
    record Rewritten(GraphModule graph, List<String> changed) {
        long count(OpOverload op) { return graph.graph().nodes().stream().filter(n -> n.target() == op).count(); }
    }

    /** Registers the inductor, its artifact cache in a fresh folder: each test class compiles its own graphs. */
    static void useInductor() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    /** The one graph Dynamo captures when the function runs on {@code x} (fullgraph). */
    static GraphModule capture(Compiler compiler, Tensor x) {
        List<GraphModule> graphs = new ArrayList<>();
        Backend recording = (gm, inputs) -> {
            graphs.add(gm);
            return Backends.EAGER.compile(gm, inputs);
        };
        try {
            compiler.apply(Options.backend(recording).fullgraph(true)).apply(x);
        } finally {
            Ember.reset();
        }
        assertEquals(1, graphs.size(), "one graph");
        return graphs.getFirst();
    }

    /** The pre-grad stage on a copy of {@code captured}, compiled for inference. */
    static Rewritten preGrad(GraphModule captured) {
        GraphModule work = new GraphModule(captured.className(), captured.graph().copy(), captured.attributes(), captured.submodules());
        ShapeProp.propagate(work);
        List<String> changed = PassManager.run(PassManager.Stage.PRE_GRAD, work, false);
        work.lint();
        return new Rewritten(work, changed);
    }

    /** The function compiled by the inductor (fullgraph) and run on {@code x}, with the passes {@code disabled} off (null: none). */
    static Tensor compiled(Compiler compiler, Tensor x, String disabled) {
        Ember.reset();
        PassManager.disable(disabled);
        try {
            return compiler.apply(Options.backend("inductor").fullgraph(true)).apply(x);
        } finally {
            PassManager.disable(null);
            Ember.reset();
        }
    }

    /** Within {@code tol} relative to each element's magnitude (plus {@code tol} absolute). */
    static void assertClose(Tensor want, Tensor got, double tol, String what) {
        assertArrayEquals(want.shape(), got.shape(), what + ": shape");
        double[] a = want.toDoubleArray(), b = got.toDoubleArray();
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], tol * (1 + Math.abs(a[i])), what + ": element " + i);
    }
}
