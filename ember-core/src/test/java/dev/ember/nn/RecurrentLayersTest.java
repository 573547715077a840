package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RNN, LSTM and GRU layers and their cells against libtorch's {@code torch.lstm}/{@code gru}/
 * {@code rnn_tanh}/{@code rnn_relu} and {@code *_cell} on the same weights: outputs and final
 * states over layers, directions, batch-first and unbatched input, without biases; gradients of
 * input, states and every parameter against libtorch's autograd; compiled (one graph, no break)
 * equal to eager; a training step; PyTorch's parameter names and its errors.
 */
class RecurrentLayersTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    /** One configuration of a layer. */
    record Config(String kind, int layers, boolean bias, boolean batchFirst, boolean bidirectional) {
        RNNBase make(int in, int hidden) {
            return switch (kind) {
                case "lstm" -> new LSTM(in, hidden, layers, bias, batchFirst, 0.0, bidirectional);
                case "gru" -> new GRU(in, hidden, layers, bias, batchFirst, 0.0, bidirectional);
                case "rnn_tanh" -> new RNN(in, hidden, layers, "tanh", bias, batchFirst, 0.0, bidirectional);
                default -> new RNN(in, hidden, layers, "relu", bias, batchFirst, 0.0, bidirectional);
            };
        }

        /** libtorch's functional layer over a, the states, the parameters. */
        String torch(String states, String params) {
            return "torch." + kind + "(a, " + states + ", " + params + ", " + py(bias) + ", " + layers + ", 0.0, False, " + py(bidirectional) + ", " + py(batchFirst) + ")";
        }

        RNNBase.Output run(RNNBase layer, Tensor x, Tensor h0, Tensor c0) {
            return layer instanceof LSTM lstm ? lstm.forward(x, h0, c0) : layer instanceof GRU gru ? gru.forward(x, h0) : ((RNN) layer).forward(x, h0);
        }
    }

    private static String py(boolean b) { return b ? "True" : "False"; }

    private static Tensor randn(DType dtype, int... shape) { return Tensor.randn(shape).to(dtype); }

    private static final List<Config> CONFIGS = configs();

    private static List<Config> configs() {
        List<Config> out = new ArrayList<>();
        for (String kind : List.of("lstm", "gru", "rnn_tanh", "rnn_relu")) {
            out.add(new Config(kind, 1, true, false, false));
            out.add(new Config(kind, 2, true, true, false));
            out.add(new Config(kind, 2, false, false, true));
            out.add(new Config(kind, 3, true, true, true));
        }
        return out;
    }

    @Test
    void parametersHavePyTorchsNamesOrderAndShapes() {
        LSTM lstm = new LSTM(10, 20, 2, true, false, 0.0, true);
        assertEquals(List.of("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse",
                "bias_hh_l0_reverse", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_ih_l1_reverse", "weight_hh_l1_reverse",
                "bias_ih_l1_reverse", "bias_hh_l1_reverse"), new ArrayList<>(lstm.stateDict().keySet()));
        assertEquals(List.of(80, 40), List.of(lstm.parameter("weight_ih_l1").size(0), lstm.parameter("weight_ih_l1").size(1)));
        assertEquals(List.of("weight_ih_l0", "weight_hh_l0"), new ArrayList<>(new GRU(3, 4, 1, false, false, 0, false).namedParameters().keySet()));
        assertEquals(List.of("weight_ih", "weight_hh", "bias_ih", "bias_hh"), new ArrayList<>(new LSTMCell(3, 4).namedParameters().keySet()));
        for (Parameter p : new GRU(3, 16).parameters()) {
            double bound = 1 / Math.sqrt(16);
            assertTrue(p.abs().max().item() <= bound, "initialised on ±1/sqrt(hidden)");
        }
        assertEquals("LSTM(10, 20, num_layers=2, bidirectional=True)", lstm.toString());
        assertEquals("RNN(3, 4, nonlinearity='relu', batch_first=True)", new RNN(3, 4, 1, "relu", true, true, 0, false).toString());
        assertEquals("GRUCell(3, 4, bias=False)", new GRUCell(3, 4, false).toString());
        LSTM converted = (LSTM) new LSTM(3, 4).to(DType.FLOAT64);
        assertEquals(DType.FLOAT64, converted.parameter("weight_hh_l0").dtype());
        assertEquals(DType.FLOAT64, converted.forward(randn(DType.FLOAT64, 5, 2, 3)).dtype());
    }

    @Test
    void layersMatchLibtorch() {
        Tensor.manualSeed(3);
        for (Config c : CONFIGS) {
            for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
                RNNBase layer = c.make(5, 7);
                layer.to(dtype);
                int dirs = c.bidirectional() ? 2 : 1;
                Tensor x = randn(dtype, c.batchFirst() ? new int[] {3, 6, 5} : new int[] {6, 3, 5});
                Tensor h0 = randn(dtype, c.layers() * dirs, 3, 7);
                Tensor c0 = c.kind().equals("lstm") ? randn(dtype, c.layers() * dirs, 3, 7) : null;
                RNNBase.Output got = c.run(layer, x, h0, c0);
                String context = c + " " + dtype;
                try (NDManager m = Torch.scope()) {
                    // libtorch runs in float64 for both dtypes, its result rounded to the layer's: libtorch
                    // 2.7.1's float32 LSTM was 0.35 away from its own float64 result on one host (session 34,
                    // where Ember's float32 LSTM was 7e-8 from it), so its float32 run is no reference
                    Tensor x64 = x.to(DType.FLOAT64), h64 = h0.to(DType.FLOAT64), c64 = c0 == null ? null : c0.to(DType.FLOAT64);
                    List<Tensor> params64 = layer.parameters().stream().map(p -> p.detach().to(DType.FLOAT64)).toList();
                    NDList want = c0 != null ? Torch.callList(m, c.torch("[b, d]", "c"), x64, h64, params64, c64)
                            : Torch.callList(m, c.torch("b", "c"), x64, h64, params64);
                    assertClose(got.output(), Torch.fromNd(want.get(0)).to(dtype), context + " output");
                    assertClose(got.hN(), Torch.fromNd(want.get(1)).to(dtype), context + " h_n");
                    if (c0 != null) assertClose(got.cN(), Torch.fromNd(want.get(2)).to(dtype), context + " c_n");
                    else assertNull(got.cN());
                }
                // from zero states, and unbatched: the batched result's first sample
                RNNBase.Output zeros = c.run(layer, x, null, null);
                Tensor zeroH = Tensor.zeros(dtype, c.layers() * dirs, 3, 7);
                assertClose(zeros.output(), c.run(layer, x, zeroH, c0 == null ? null : zeroH).output(), context + " null states are zeros");
                Tensor one = c.batchFirst() ? x.select(0, 1) : x.select(1, 1);
                RNNBase.Output single = c.run(layer, one, h0.select(1, 1), c0 == null ? null : c0.select(1, 1));
                assertClose(single.output(), c.batchFirst() ? got.output().select(0, 1) : got.output().select(1, 1), context + " unbatched output");
                assertClose(single.hN(), got.hN().select(1, 1), context + " unbatched h_n");
            }
        }
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor.manualSeed(4);
        for (Config c : CONFIGS) {
            RNNBase layer = c.make(4, 5);
            layer.to(DType.FLOAT64);
            int dirs = c.bidirectional() ? 2 : 1;
            Tensor x = randn(DType.FLOAT64, c.batchFirst() ? new int[] {2, 4, 4} : new int[] {4, 2, 4}).requiresGrad(true);
            Tensor h0 = randn(DType.FLOAT64, c.layers() * dirs, 2, 5).requiresGrad(true);
            boolean lstm = c.kind().equals("lstm");
            Tensor c0 = lstm ? randn(DType.FLOAT64, c.layers() * dirs, 2, 5).requiresGrad(true) : null;
            RNNBase.Output out = c.run(layer, x, h0, c0);
            Tensor gOut = randn(DType.FLOAT64, out.output().shape()), gH = randn(DType.FLOAT64, out.hN().shape());
            Tensor gC = lstm ? randn(DType.FLOAT64, out.cN().shape()) : null;
            List<Tensor> wrt = new ArrayList<>(List.of(x, h0));
            if (lstm) wrt.add(c0);
            wrt.addAll(layer.parameters());
            List<Tensor> outputs = lstm ? List.of(out.output(), out.hN(), out.cN()) : List.of(out.output(), out.hN());
            List<Tensor> grads = lstm ? List.of(gOut, gH, gC) : List.of(gOut, gH);
            List<Tensor> got = Autograd.grad(outputs, wrt, grads, false, false, false);
            String states = lstm ? "[b, d]" : "b";
            String body = """
                    a = a.detach().requires_grad_(True)
                    b = b.detach().requires_grad_(True)
                    d = d.detach().requires_grad_(True)
                    p = [t.detach().requires_grad_(True) for t in c]
                    o = %s
                    """.formatted(c.torch(states, "p")) + (lstm ? """
                    go: List[Optional[Tensor]] = [e, f, g]
                    return torch.autograd.grad([o[0], o[1], o[2]], [a, b, d] + p, go)""" : """
                    go: List[Optional[Tensor]] = [e, f]
                    return torch.autograd.grad([o[0], o[1]], [a, b] + p, go)""");
            try (NDManager m = Torch.scope()) {
                Tensor cArg = lstm ? c0 : h0, gCArg = lstm ? gC : gH;
                NDList want = Torch.callListWithGrad(m, body, x, h0, layer.parameters(), cArg, gOut, gH, gCArg);
                assertEquals(want.size(), got.size(), c.toString());
                for (int i = 0; i < got.size(); i++) assertClose(got.get(i), want.get(i), c + " gradient " + i);
            }
        }
    }

    @Test
    void cellsMatchLibtorch() {
        Tensor.manualSeed(5);
        Tensor x = randn(DType.FLOAT64, 3, 4), h = randn(DType.FLOAT64, 3, 6), cs = randn(DType.FLOAT64, 3, 6);
        LSTMCell lstm = (LSTMCell) new LSTMCell(4, 6).to(DType.FLOAT64);
        LSTMCell.State s = lstm.forward(x, h, cs);
        NDList want = Torch.callList("torch.lstm_cell(a, [b, c], d, e, f, g)", x, h, cs, lstm.weightIh, lstm.weightHh, lstm.biasIh, lstm.biasHh);
        assertClose(s.h(), want.get(0), "LSTMCell h");
        assertClose(s.c(), want.get(1), "LSTMCell c");
        GRUCell gru = (GRUCell) new GRUCell(4, 6).to(DType.FLOAT64);
        assertClose(gru.forward(x, h), Torch.call("torch.gru_cell(a, b, c, d, e, f)", x, h, gru.weightIh, gru.weightHh, gru.biasIh, gru.biasHh), "GRUCell");
        RNNCell tanh = (RNNCell) new RNNCell(4, 6).to(DType.FLOAT64);
        assertClose(tanh.forward(x, h), Torch.call("torch.rnn_tanh_cell(a, b, c, d, e, f)", x, h, tanh.weightIh, tanh.weightHh, tanh.biasIh, tanh.biasHh), "RNNCell");
        RNNCell relu = (RNNCell) new RNNCell(4, 6, false, "relu").to(DType.FLOAT64);
        assertClose(relu.forward(x, h), Torch.call("torch.rnn_relu_cell(a, b, c, d)", x, h, relu.weightIh, relu.weightHh), "RNNCell relu, no bias");
        // unbatched, and zero states
        assertClose(gru.forward(x.select(0, 2), h.select(0, 2)), gru.forward(x, h).select(0, 2), "GRUCell unbatched");
        assertClose(lstm.forward(x), lstm.forward(x, Tensor.zeros(DType.FLOAT64, 3, 6), Tensor.zeros(DType.FLOAT64, 3, 6)).h(), "LSTMCell from zeros");
    }

    @Test
    void badInputGetsPyTorchsErrors() {
        LSTM lstm = new LSTM(5, 7, 2);
        assertMessage("LSTM: Expected input to be 2D or 3D, got 4D instead", () -> lstm.forward(Tensor.randn(1, 2, 3, 5)));
        assertMessage("LSTM: input.size(-1) must be equal to input_size. Expected 5, got 4", () -> lstm.forward(Tensor.randn(3, 2, 4)));
        assertMessage("LSTM: Expected hidden[0] size (2, 2, 7), got [1, 2, 7]",
                () -> lstm.forward(Tensor.randn(3, 2, 5), Tensor.randn(1, 2, 7), Tensor.randn(2, 2, 7)));
        assertMessage("LSTM: Expected hidden[1] size (2, 2, 7), got [2, 2, 6]",
                () -> lstm.forward(Tensor.randn(3, 2, 5), Tensor.randn(2, 2, 7), Tensor.randn(2, 2, 6)));
        assertMessage("GRU: For batched 3-D input, hx should also be 3-D but got 2-D tensor", () -> new GRU(5, 7).forward(Tensor.randn(3, 2, 5), Tensor.randn(1, 7)));
        assertMessage("GRU: For unbatched 2-D input, hx should also be 2-D but got 3-D tensor", () -> new GRU(5, 7).forward(Tensor.randn(3, 5), Tensor.randn(1, 1, 7)));
        assertMessage("LSTM: give both h0 and c0, or neither", () -> lstm.forward(Tensor.randn(3, 2, 5), Tensor.randn(2, 2, 7), null));
        assertMessage("Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'.", () -> new RNN(3, 4, 1, "sigmoid", true, false, 0, false));
        assertMessage("GRU: hidden_size must be greater than zero, got 0", () -> new GRU(3, 0));
        assertMessage("LSTMCell: input has inconsistent input_size: got 3 expected 4", () -> new LSTMCell(4, 6).forward(Tensor.randn(2, 3)));
        // the cells' words are torch's (ModuleInfo's module_error_inputs for RNNCell, GRUCell and LSTMCell): ATen names the states hidden0, hidden1
        assertMessage("GRUCell: Input batch size 2 doesn't match hidden0 batch size 3", () -> new GRUCell(4, 6).forward(Tensor.randn(2, 4), Tensor.randn(3, 6)));
        assertMessage("RNNCell: hidden0 has inconsistent hidden_size: got 5, expected 6", () -> new RNNCell(4, 6).forward(Tensor.randn(2, 4), Tensor.randn(2, 5)));
        assertMessage("RNNCell: Expected hidden to be 1D or 2D, got 4D instead", () -> new RNNCell(10, 20).forward(Tensor.randn(3, 10), Tensor.randn(3, 1, 1, 20)));
        assertMessage("GRUCell: Expected input to be 1D or 2D, got 3D instead", () -> new GRUCell(10, 20).forward(Tensor.randn(3, 1, 10), Tensor.randn(3, 20)));
        assertMessage("LSTMCell: Expected hx[0] to be 1D or 2D, got 4D instead",
                () -> new LSTMCell(10, 20).forward(Tensor.randn(3, 10), Tensor.randn(3, 1, 1, 20), Tensor.randn(3, 1, 1, 20)));
        assertMessage("LSTMCell: Input batch size 3 doesn't match hidden0 batch size 5",
                () -> new LSTMCell(10, 20).forward(Tensor.randn(3, 10), Tensor.randn(5, 20), Tensor.randn(5, 20)));
        assertMessage("LSTMCell: hidden1 has inconsistent hidden_size: got 21, expected 20",
                () -> new LSTMCell(10, 20).forward(Tensor.randn(3, 10), Tensor.randn(3, 20), Tensor.randn(3, 21)));
        assertMessage("RNN: Expected input to be 2D or 3D, got 4D tensor instead", () -> new RNN(5, 7).forward(Tensor.randn(1, 2, 3, 5)));
        assertMessage("LSTM: Expected sequence length to be larger than 0 in RNN", () -> lstm.forward(Tensor.randn(0, 2, 5)));
    }

    private static void assertMessage(String message, org.junit.jupiter.api.function.Executable call) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
    }

    /** A sequence classifier as users write one: an LSTM, its last hidden state, a linear head. */
    static final class Classifier extends Module {
        final LSTM lstm = new LSTM(6, 8, 2, true, true, 0.0, true);
        final Linear head = new Linear(16, 3);

        @Override
        public Tensor forward(Tensor x) {
            RNNBase.Output out = lstm.forward(x, null, null);
            Tensor last = Tensor.cat(List.of(out.hN().select(0, -2), out.hN().select(0, -1)), 1);
            return head.forward(last);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledLayersAreOneGraphEqualToEager(String backend) {
        Tensor.manualSeed(6);
        Classifier model = new Classifier();
        Tensor x = Tensor.randn(4, 5, 6);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) model::forward).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        Fn1<Tensor, Tensor> compiled = Ember.compile(model, Options.backend(backend));
        assertClose(compiled.apply(x), model.forward(x), "LSTM classifier under " + backend);
        Tensor longer = Tensor.randn(4, 9, 6);
        assertClose(compiled.apply(longer), model.forward(longer), "a longer sequence under " + backend);

        GRUCell cell = new GRUCell(6, 8);
        Fn2<Tensor, Tensor, Tensor> loop = (seq, h) -> {
            Tensor state = h;
            for (int t = 0; t < seq.size(0); t++) state = cell.forward(seq.select(0, t), state);
            return state;
        };
        Fn2<Tensor, Tensor, Tensor> compiledLoop = Ember.compile(loop, Options.backend(backend));
        Tensor seq = Tensor.randn(5, 3, 6), h = Tensor.randn(3, 8);
        assertClose(compiledLoop.apply(seq, h), loop.apply(seq, h), "a GRUCell loop under " + backend);
    }

    @Test
    void aLongSequenceIsAGraphOfTheSameFewNodes() {
        // each layer and direction is a projection and one rnn_layer node: the graph does not grow with the sequence
        // (traced step by step, 200 steps ran past the tracer's instruction budget and the whole call ran eagerly)
        LSTM lstm = new LSTM(3, 5, 2, true, false, 0.0, true);
        ExplainOutput shortOne = Ember.explain((Fn1<Tensor, Tensor>) lstm::forward).with(Tensor.randn(4, 2, 3));
        ExplainOutput longOne = Ember.explain((Fn1<Tensor, Tensor>) lstm::forward).with(Tensor.randn(300, 2, 3));
        assertEquals(0, longOne.graphBreakCount(), longOne.toString());
        assertEquals(shortOne.opCount(), longOne.opCount(), longOne.toString());
        assertTrue(longOne.opCount() < 40, longOne.toString());
        Tensor x = Tensor.randn(300, 2, 3).requiresGrad(true), xc = x.detach().requiresGrad(true);
        Tensor want = lstm.forward(x), got = Ember.compile(lstm).apply(xc);
        assertClose(got, want, "a bidirectional two-layer LSTM over 300 steps");
        want.square().sum().backward();
        got.square().sum().backward();
        assertClose(xc.grad(), x.grad(), "its input's gradient");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aCompiledTrainingStepMatchesEager(String backend) {
        Tensor x = Tensor.randn(4, 5, 6);
        Tensor target = Tensor.ofLongs(0, 2, 1, 2);
        List<Classifier> models = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Tensor.manualSeed(7);
            models.add(new Classifier());
        }
        Classifier eagerModel = models.get(0), compiledModel = models.get(1);
        Fn2<Tensor, Tensor, Tensor> eagerLoss = (in, t) -> F.crossEntropy(eagerModel.forward(in), t);
        Fn2<Tensor, Tensor, Tensor> compiledLoss = Ember.compile((in, t) -> F.crossEntropy(compiledModel.forward(in), t), Options.backend(backend));
        for (int step = 0; step < 2; step++) {
            Tensor want = eagerLoss.apply(x, target), got = compiledLoss.apply(x, target);
            assertClose(got, want, "loss at step " + step + " under " + backend);
            want.backward();
            got.backward();
            List<Parameter> wp = eagerModel.parameters(), gp = compiledModel.parameters();
            for (int i = 0; i < wp.size(); i++) {
                assertClose(gp.get(i).grad(), wp.get(i).grad(), "gradient " + i + " at step " + step + " under " + backend);
                try (var unused = dev.ember.autograd.GradMode.noGrad()) {
                    wp.get(i).sub_(wp.get(i).grad().mul(0.1));
                    gp.get(i).sub_(gp.get(i).grad().mul(0.1));
                }
                wp.get(i).setGrad(null);
                gp.get(i).setGrad(null);
            }
        }
    }
}
