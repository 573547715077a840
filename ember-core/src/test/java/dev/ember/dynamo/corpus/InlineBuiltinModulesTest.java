package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.fx.CompiledGraph;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.guards.Guard;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.fx.SourceLocation;
import dev.ember.nn.AdaptiveAvgPool2d;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Conv2d;
import dev.ember.nn.Dropout;
import dev.ember.nn.Embedding;
import dev.ember.nn.Flatten;
import dev.ember.nn.GELU;
import dev.ember.nn.LayerNorm;
import dev.ember.nn.Linear;
import dev.ember.nn.MaxPool2d;
import dev.ember.nn.Module;
import dev.ember.nn.MultiheadAttention;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.nn.SiLU;
import dev.ember.nn.TransformerEncoderLayer;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Built-in layers are inlined as PyTorch's {@code inline_inbuilt_nn_modules}: Dynamo traces their
 * forward like user code, so the graph holds ATen ops, their parameters and buffers are guarded graph
 * inputs, and the settings their forward reads (the training flag among them) are guarded.
 */
class InlineBuiltinModulesTest {

    /** A user model calling built-in layers; line numbers of the calls are asserted below. */
    static final class Mlp extends Module {
        final Sequential body = new Sequential(new Linear(4, 8), new ReLU(), new Linear(8, 3));
        final Dropout drop = new Dropout(0.25);

        @Override
        public Tensor forward(Tensor x) {
            Tensor h = body.forward(x);   // MLP_BODY_LINE
            return drop.forward(h);
        }
    }

    /** A layer taking more than one tensor, called from user code. */
    static final class SelfAttention extends Module {
        final MultiheadAttention attn = new MultiheadAttention(8, 2, 0.0, true);

        @Override
        public Tensor forward(Tensor x) { return attn.forward(x, x, x); }
    }

    /** A backend keeping the graphs it gets, then running them eagerly. */
    static final class Graphs implements Backend {
        final List<GraphModule> graphs = new ArrayList<>();

        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> inputs) {
            graphs.add(gm);
            return Backends.EAGER.compile(gm, inputs);
        }
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private static int lineOf(String marker) throws java.io.IOException {
        List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of("src/test/java/dev/ember/dynamo/corpus/InlineBuiltinModulesTest.java"));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains("// " + marker)) return i + 1;
        throw new IllegalStateException(marker);
    }

    private static List<String> guards(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> f.options() == opts).findFirst().orElseThrow()
                .entries().getFirst().guards().guards().stream().map(Guard::describe).toList();
    }

    record Captured(GraphModule graph, List<String> guards) {}

    /** An eval-mode {@link Mlp} compiled with fullgraph, checked once against eager: its graph and guards. */
    private static Captured captureEvalMlp() {
        Mlp m = new Mlp();
        m.eval();
        Graphs backend = new Graphs();
        Options opts = Options.backend(backend).fullgraph(true);
        Fn1<Tensor, Tensor> f = Ember.compile(m, opts);
        Tensor x = Tensor.randn(2, 4);
        assertTrue(m.forward(x).sameData(f.apply(x)));
        return new Captured(backend.graphs.getFirst(), guards(opts));
    }

    @Test
    void layersBecomeAtenOpsWithParametersAsGuardedInputsAndTheUsersCallSite() throws Exception {
        Captured c = captureEvalMlp();
        GraphModule gm = c.graph();
        String code = gm.code();
        assertTrue(code.contains("Tensor l_self_body_modules_0_weight /* f32[8, 4] */, Tensor l_self_body_modules_0_bias /* f32[8] */"), code);
        assertTrue(code.contains("Tensor linear = aten.linear.default(l_x_, l_self_body_modules_0_weight, l_self_body_modules_0_bias);"), code);
        assertTrue(code.contains("Tensor relu = aten.relu.default(linear);"), code);
        assertTrue(code.contains("aten.dropout.default(linear_1, 0.25, false)"), code);
        assertTrue(gm.graph().nodes().stream().noneMatch(n -> n.kind() == NodeKind.CALL_MODULE), code);
        assertTrue(gm.submodules().isEmpty(), "no submodule is called");

        // Nodes made inside a layer's forward carry the user's line that called the layer, as inlined helpers do.
        Node linear = gm.graph().nodes().stream().filter(n -> n.name().equals("linear")).findFirst().orElseThrow();
        SourceLocation at = linear.sourceLocation();
        assertEquals("InlineBuiltinModulesTest.java", at.fileName());
        assertEquals(lineOf("MLP_BODY_LINE"), at.line());

        List<String> g = c.guards();
        assertTrue(g.contains("TYPE_MATCH: type(L['self'].body.modules[0]) is dev.ember.nn.Linear"), g.toString());
        assertTrue(g.stream().anyMatch(s -> s.startsWith("TENSOR_MATCH: L['self'].body.modules[0].weight f32[8, 4]")), g.toString());
        assertTrue(g.contains("EQUALS_MATCH: L['self'].drop.training == false"), g.toString());
        assertTrue(g.contains("EQUALS_MATCH: L['self'].drop.p == 0.25"), g.toString());
    }

    @Test
    void compileCounterCountsTheLayersOps() {
        CompileCounter cc = new CompileCounter();
        Sequential m = new Sequential(new Linear(4, 8), new ReLU(), new Linear(8, 3));
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend(cc).fullgraph(true));
        Tensor x = Tensor.randn(5, 4);
        assertTrue(m.forward(x).sameData(f.apply(x)));
        f.apply(Tensor.randn(5, 4));
        assertEquals(1, cc.frameCount());
        assertEquals(3, cc.opCount(), "linear, relu, linear");
    }

    @Test
    void trainEvalSwitchRecompilesOnTheTrainingFlag() {
        Mlp m = new Mlp();
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        Fn1<Tensor, Tensor> f = Ember.compile(m, opts);
        Tensor x = Tensor.randn(3, 4);
        Tensor trained = f.apply(x);
        long zeros = java.util.Arrays.stream(trained.toDoubleArray()).filter(v -> v == 0).count();
        assertTrue(zeros > 0, "dropout is active in training");
        m.eval();
        assertTrue(m.forward(x).sameData(f.apply(x)), "eval: dropout is the identity");
        assertEquals(2, cc.frameCount());
        CompiledFrame frame = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).findFirst().orElseThrow();
        assertEquals("L['self'].drop.training == true failed: actual false", frame.recompileReasons().getFirst().failedGuards().getFirst());
        m.train();
        f.apply(x);
        assertEquals(2, cc.frameCount(), "back in training: the first graph's guards pass again");
    }

    record Case(String name, Supplier<Module> layer, Supplier<Tensor> input) {}

    /** Every built-in layer traces in one graph (fullgraph) to ATen ops only, and gives eager's result. */
    @Test
    void everyBuiltinLayerTracesWithoutBreaks() {
        List<Case> cases = List.of(
                new Case("Linear", () -> new Linear(4, 3), () -> Tensor.randn(2, 4)),
                new Case("Conv2d", () -> new Conv2d(3, 4, 3, 1, 1), () -> Tensor.randn(2, 3, 5, 5)),
                new Case("BatchNorm2d(train)", () -> new BatchNorm2d(3), () -> Tensor.randn(2, 3, 4, 4)),
                new Case("BatchNorm2d(eval)", () -> new BatchNorm2d(3).eval(), () -> Tensor.randn(2, 3, 4, 4)),
                new Case("LayerNorm", () -> new LayerNorm(6), () -> Tensor.randn(2, 6)),
                new Case("ReLU", ReLU::new, () -> Tensor.randn(2, 6)),
                new Case("GELU", () -> new GELU("tanh"), () -> Tensor.randn(2, 6)),
                new Case("SiLU", SiLU::new, () -> Tensor.randn(2, 6)),
                new Case("Dropout(eval)", () -> new Dropout(0.3).eval(), () -> Tensor.randn(2, 6)),
                new Case("Embedding", () -> new Embedding(10, 4), () -> Tensor.ofLongs(1, 9, 0)),
                new Case("MaxPool2d", () -> new MaxPool2d(2), () -> Tensor.randn(1, 2, 4, 4)),
                new Case("AdaptiveAvgPool2d", () -> new AdaptiveAvgPool2d(1), () -> Tensor.randn(1, 2, 4, 4)),
                new Case("Flatten", Flatten::new, () -> Tensor.randn(2, 3, 4)),
                new Case("Sequential", () -> new Sequential(new Linear(4, 4), new GELU()), () -> Tensor.randn(2, 4)),
                new Case("MultiheadAttention", SelfAttention::new, () -> Tensor.randn(2, 5, 8)),
                new Case("TransformerEncoderLayer", () -> new TransformerEncoderLayer(8, 2, 16, 0.1).eval(), () -> Tensor.randn(2, 5, 8)));
        for (Case c : cases) {
            Ember.reset();
            Module eager = c.layer().get(), compiled = c.layer().get();
            compiled.loadStateDict(eager.stateDict());
            if (!eager.isTraining()) compiled.eval();
            Graphs backend = new Graphs();
            Fn1<Tensor, Tensor> f = Ember.compile(compiled, Options.backend(backend).fullgraph(true));
            Tensor x = c.input().get();
            Tensor want = eager.forward(x), got = f.apply(x);
            assertTrue(want.sameData(got), c.name() + ": compiled differs from eager");
            assertEquals(1, backend.graphs.size(), c.name());
            GraphModule gm = backend.graphs.getFirst();
            assertTrue(gm.graph().nodes().stream().anyMatch(n -> n.kind() == NodeKind.CALL_FUNCTION), c.name() + "\n" + gm.code());
            assertTrue(gm.graph().nodes().stream().noneMatch(n -> n.kind() == NodeKind.CALL_MODULE), c.name() + "\n" + gm.code());
        }
    }

    @Test
    void anExceptionInsideALayersForwardIsEagers() {
        BatchNorm2d bn = new BatchNorm2d(3);
        Fn1<Tensor, Tensor> f = Ember.compile(bn, Options.backend(new CompileCounter()));
        var e = assertThrows(IllegalArgumentException.class, () -> f.apply(Tensor.randn(3, 4)));
        assertEquals("BatchNorm2d: expected 4D input (got 2D input)", e.getMessage());
    }

    @Test
    void switchedOffEachLayerStaysOneCallModuleNode() {
        System.setProperty("ember.dynamo.inline_inbuilt_nn_modules", "false");
        try {
            Captured c = captureEvalMlp();
            GraphModule gm = c.graph();
            assertEquals(4, gm.graph().nodes().stream().filter(n -> n.kind() == NodeKind.CALL_MODULE).count(), gm.code());
            assertTrue(gm.submodules().containsKey("body.0") && gm.submodules().containsKey("drop"), gm.submodules().keySet().toString());
            assertTrue(c.guards().stream().anyMatch(s -> s.startsWith("ID_MATCH: L['self'].drop is Dropout@")), c.guards().toString());
        } finally {
            System.clearProperty("ember.dynamo.inline_inbuilt_nn_modules");
        }
    }
}
