package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * torch.nn.utils.rnn ({@link RnnUtils}, {@link PackedSequence}) against libtorch's own ops
 * ({@code pad_sequence}, {@code _pack_padded_sequence}, {@code _pad_packed_sequence}), values and
 * gradients, and the recurrent layers' packed forward against libtorch's packed {@code lstm},
 * {@code gru} and {@code rnn_tanh} (the {@code data, batch_sizes} overloads).
 */
class RnnUtilsTest {
    private static final Random RNG = new Random(12);

    private static Tensor randn(int... shape) { return Inputs.randn(RNG, DType.FLOAT64, shape); }

    @Test
    void padSequenceMatchesLibtorchValuesAndGradients() {
        for (boolean batchFirst : new boolean[] {false, true}) {
            for (String side : List.of("right", "left")) {
                List<Tensor> seqs = List.of(randn(3, 2).requiresGrad(true), randn(5, 2).requiresGrad(true), randn(1, 2).requiresGrad(true));
                Tensor padded = RnnUtils.padSequence(seqs, batchFirst, 0.5, side);
                Tensor g = randn(padded.shape());
                List<Tensor> grads = Autograd.grad(List.of(padded), seqs, List.of(g), false, false, false);
                String py = batchFirst ? "True" : "False";
                try (NDManager m = Torch.scope()) {
                    NDList want = Torch.callListWithGrad(m, """
                            s = [t.detach().requires_grad_(True) for t in a]
                            o = ops.aten.pad_sequence(s, %s, 0.5, '%s')
                            go: List[Optional[Tensor]] = [b]
                            res = [o]
                            for t in torch.autograd.grad([o], s, go):
                                if t is not None:
                                    res.append(t)
                            return res""".formatted(py, side), seqs.stream().map(Tensor::detach).toList(), g);
                    String context = "pad_sequence batch_first=" + py + " " + side;
                    assertClose(padded, want.get(0), context);
                    for (int i = 0; i < 3; i++) assertClose(grads.get(i), want.get(i + 1), context + " gradient " + i);
                }
                List<Tensor> back = RnnUtils.unpadSequence(side.equals("right") ? padded : RnnUtils.padSequence(seqs, batchFirst), new long[] {3, 5, 1}, batchFirst);
                for (int i = 0; i < 3; i++) assertClose(back.get(i), Torch.toNd(seqs.get(i).detach()), "unpad_sequence " + i);
            }
        }
    }

    @Test
    void packPaddedSequenceMatchesLibtorch() {
        for (boolean batchFirst : new boolean[] {false, true}) {
            long[] lengths = {2, 5, 3, 4};
            Tensor input = randn(batchFirst ? new int[] {4, 5, 3} : new int[] {5, 4, 3}).requiresGrad(true);
            PackedSequence packed = RnnUtils.packPaddedSequence(input, lengths, batchFirst, false);
            assertArrayEquals(new long[] {1, 3, 2, 0}, packed.sortedIndices().toLongArray(), "longest first");
            assertArrayEquals(new long[] {3, 0, 2, 1}, packed.unsortedIndices().toLongArray());
            assertArrayEquals(lengths, packed.lengths());
            Tensor g = randn(packed.data().shape());
            Tensor grad = Autograd.grad(List.of(packed.data()), List.of(input), List.of(g), false, false, false).getFirst();
            String py = batchFirst ? "True" : "False";
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callListWithGrad(m, """
                        x = a.detach().requires_grad_(True)
                        l, order = torch.sort(b, descending=True)
                        o = torch._pack_padded_sequence(x.index_select(%s, order), l, %s)
                        go: List[Optional[Tensor]] = [c]
                        res = [o[0], o[1], order]
                        for t in torch.autograd.grad([o[0]], [x], go):
                            if t is not None:
                                res.append(t)
                        return res""".formatted(batchFirst ? 0 : 1, py),
                        input.detach(), Tensor.ofLongs(lengths), g);
                assertClose(packed.data(), want.get(0), "packed data batch_first=" + py);
                assertClose(packed.batchSizes(), want.get(1), "batch_sizes");
                assertClose(packed.sortedIndices(), want.get(2), "sorted_indices");
                assertClose(grad, want.get(3), "gradient of the padded input");
            }
        }
        // sorted lengths: no permutation kept, as PyTorch's enforce_sorted=True
        PackedSequence sorted = RnnUtils.packSequence(List.of(randn(4, 2), randn(4, 2), randn(1, 2)), true);
        assertNull(sorted.sortedIndices());
        assertArrayEquals(new long[] {3, 2, 2, 2}, sorted.batchSizes().toLongArray());
    }

    @Test
    void padPackedSequenceMatchesLibtorchAndRoundTrips() {
        List<Tensor> seqs = List.of(randn(2, 3), randn(4, 3), randn(3, 3));
        PackedSequence packed = RnnUtils.packSequence(seqs, false);
        Tensor data = packed.data().detach().requiresGrad(true);
        PackedSequence leaf = new PackedSequence(data, packed.batchSizes(), packed.sortedIndices(), packed.unsortedIndices());
        for (boolean batchFirst : new boolean[] {false, true}) {
            RnnUtils.Padded p = RnnUtils.padPackedSequence(leaf, batchFirst, -1.5, 6);
            assertArrayEquals(new long[] {2, 4, 3}, p.lengths().toLongArray());
            Tensor g = randn(p.padded().shape());
            Tensor grad = Autograd.grad(List.of(p.padded()), List.of(data), List.of(g), false, false, false).getFirst();
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callListWithGrad(m, """
                        x = a.detach().requires_grad_(True)
                        o = torch._pad_packed_sequence(x, b, %s, -1.5, 6)
                        padded = o[0].index_select(%d, c)
                        go: List[Optional[Tensor]] = [d]
                        res = [padded, o[1].index_select(0, c)]
                        for t in torch.autograd.grad([padded], [x], go):
                            if t is not None:
                                res.append(t)
                        return res""".formatted(batchFirst ? "True" : "False", batchFirst ? 0 : 1),
                        data.detach(), packed.batchSizes(), packed.unsortedIndices(), g);
                assertClose(p.padded(), want.get(0), "pad_packed_sequence batch_first=" + batchFirst);
                assertClose(p.lengths(), want.get(1), "lengths");
                assertClose(grad, want.get(2), "gradient of the packed data");
            }
        }
        List<Tensor> back = RnnUtils.unpackSequence(packed);
        for (int i = 0; i < seqs.size(); i++) assertClose(back.get(i), Torch.toNd(seqs.get(i)), "unpack_sequence " + i);
    }

    /** One packed layer configuration: libtorch's packed op and how Ember's layer runs. */
    private record Layer(String kind, int layers, boolean bidirectional, boolean batchFirst) {
        RNNBase make() {
            return switch (kind) {
                case "lstm" -> new LSTM(3, 4, layers, true, batchFirst, 0.0, bidirectional);
                case "gru" -> new GRU(3, 4, layers, true, batchFirst, 0.0, bidirectional);
                default -> new RNN(3, 4, layers, "tanh", true, batchFirst, 0.0, bidirectional);
            };
        }
    }

    @Test
    void packedRecurrentLayersMatchLibtorchValuesAndGradients() {
        for (Layer c : List.of(new Layer("lstm", 2, true, false), new Layer("lstm", 1, false, true), new Layer("gru", 2, true, true), new Layer("rnn_tanh", 1, true, false))) {
            Tensor.manualSeed(7);
            RNNBase layer = c.make();
            layer.to(DType.FLOAT64);
            int dirs = c.bidirectional() ? 2 : 1, batch = 3;
            boolean lstm = c.kind().equals("lstm");
            Tensor padded = randn(c.batchFirst() ? new int[] {batch, 5, 3} : new int[] {5, batch, 3}).requiresGrad(true);
            PackedSequence packed = RnnUtils.packPaddedSequence(padded, new long[] {3, 5, 2}, c.batchFirst(), false);
            Tensor h0 = randn(c.layers() * dirs, batch, 4).requiresGrad(true), c0 = lstm ? randn(c.layers() * dirs, batch, 4).requiresGrad(true) : null;
            RNNBase.PackedOutput out = lstm ? ((LSTM) layer).forward(packed, h0, c0) : layer instanceof GRU gru ? gru.forward(packed, h0) : ((RNN) layer).forward(packed, h0);
            assertEquals(packed.batchSizes(), out.output().batchSizes());
            List<Tensor> outputs = new ArrayList<>(List.of(out.output().data(), out.hN()));
            if (lstm) outputs.add(out.cN());
            List<Tensor> gradOuts = outputs.stream().map(t -> randn(t.shape())).toList();
            List<Tensor> wrt = new ArrayList<>(List.of(padded, h0));
            if (lstm) wrt.add(c0);
            wrt.addAll(layer.parameters());
            List<Tensor> grads = Autograd.grad(outputs, wrt, gradOuts, false, false, false);
            String states = lstm ? "[hx.index_select(1, order), cx.index_select(1, order)]" : "hx.index_select(1, order)";
            String body = """
                    x = a.detach().requires_grad_(True)
                    hx = b.detach().requires_grad_(True)
                    cx = c.detach().requires_grad_(True)
                    p = [t.detach().requires_grad_(True) for t in d]
                    order = e
                    packed = torch._pack_padded_sequence(x.index_select(%d, order), f, %s)
                    o = torch.%s(packed[0], packed[1], %s, p, True, %d, 0.0, False, %s)
                    outs = [o[0], o[1].index_select(1, g)]
                    """.formatted(c.batchFirst() ? 0 : 1, c.batchFirst() ? "True" : "False", c.kind(), states, c.layers(), c.bidirectional() ? "True" : "False")
                    + (lstm ? "outs.append(o[2].index_select(1, g))\ngo: List[Optional[Tensor]] = [h, i, j]\nleaves = [x, hx, cx] + p\n"
                            : "go: List[Optional[Tensor]] = [h, i]\nleaves = [x, hx] + p\n")
                    + "for t in torch.autograd.grad(outs, leaves, go):\n    if t is not None:\n        outs.append(t)\nreturn outs";
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callListWithGrad(m, body, padded.detach(), h0.detach(), lstm ? c0.detach() : h0.detach(), layer.parameters(), packed.sortedIndices(),
                        Tensor.ofLongs(5, 3, 2), packed.unsortedIndices(), gradOuts.get(0), gradOuts.get(1), lstm ? gradOuts.get(2) : gradOuts.get(1));
                String context = c.toString();
                for (int i = 0; i < outputs.size(); i++) assertClose(outputs.get(i), want.get(i), context + " output " + i);
                for (int i = 0; i < grads.size(); i++) assertClose(grads.get(i), want.get(outputs.size() + i), context + " gradient " + i);
            }
        }
    }

    @Test
    void refusalsUseAtensWords() {
        Tensor x = randn(3, 3, 2);
        try (NDManager m = Torch.scope()) {
            AtenRefusal.refused(m, "unsorted lengths", () -> RnnUtils.packPaddedSequence(x, new long[] {1, 3, 2}, false, true), "torch._pack_padded_sequence(a, b, False)",
                    x, Tensor.ofLongs(1, 3, 2));
            AtenRefusal.refused(m, "lengths for another batch", () -> RnnUtils.packPaddedSequence(x, new long[] {3, 2}, false, true), "torch._pack_padded_sequence(a, b, False)",
                    x, Tensor.ofLongs(3, 2));
            AtenRefusal.refused(m, "a zero length", () -> RnnUtils.packPaddedSequence(x, new long[] {3, 2, 0}, false, false), "torch._pack_padded_sequence(a, b, False)",
                    x, Tensor.ofLongs(3, 2, 0));
            AtenRefusal.refused(m, "empty input", () -> RnnUtils.packPaddedSequence(randn(0, 3, 2), new long[] {1, 1, 1}, false, true),
                    "torch._pack_padded_sequence(a, b, False)", randn(0, 3, 2), Tensor.ofLongs(1, 1, 1));
            AtenRefusal.refused(m, "no sequences", () -> RnnUtils.padSequence(List.of()), "ops.aten.pad_sequence(a)", List.of());
            AtenRefusal.refused(m, "other trailing dims", () -> RnnUtils.padSequence(List.of(randn(2, 3), randn(3, 4))), "ops.aten.pad_sequence(a)", List.of(randn(2, 3), randn(3, 4)));
            AtenRefusal.refused(m, "padding side", () -> RnnUtils.padSequence(List.of(randn(2, 3)), false, 0, "up"), "ops.aten.pad_sequence(a, False, 0.0, 'up')", List.of(randn(2, 3)));
        }
        // what PyTorch's Python layer checks
        PackedSequence packed = RnnUtils.packSequence(List.of(randn(3, 2), randn(2, 2)), true);
        assertEquals("Expected total_length to be at least the length of the longest sequence in input, but got total_length=2 and max sequence length being 3",
                assertThrows(IllegalArgumentException.class, () -> RnnUtils.padPackedSequence(packed, false, 0, 2)).getMessage());
        assertEquals("'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor",
                assertThrows(IllegalArgumentException.class, () -> RnnUtils.packPaddedSequence(x, Tensor.ofLongs(3, 2, 1).reshape(1, 3), false, true)).getMessage());
        // a length beyond the padded steps would read past the input (libtorch reads garbage): refused
        assertEquals("pack_padded_sequence: a length of 4 is outside the input's 3 steps",
                assertThrows(IllegalArgumentException.class, () -> RnnUtils.packPaddedSequence(x, new long[] {4, 2, 1}, false, true)).getMessage());
        LSTM lstm = new LSTM(2, 3);
        assertEquals("LSTM: Expected hidden[0] size (1, 2, 3), got [1, 1, 3]",
                assertThrows(IllegalArgumentException.class, () -> lstm.forward(packed, Tensor.zeros(1, 1, 3), Tensor.zeros(1, 1, 3))).getMessage());
        assertEquals("LSTM: input.size(-1) must be equal to input_size. Expected 2, got 4",
                assertThrows(IllegalArgumentException.class, () -> lstm.forward(RnnUtils.packSequence(List.of(randn(3, 4)), true), null, null)).getMessage());
    }
}
