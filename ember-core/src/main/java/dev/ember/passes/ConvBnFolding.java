package dev.ember.passes;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.InsertPoint;
import dev.ember.fx.Node;
import dev.ember.fx.NodeEmitter;
import dev.ember.ops.ConvOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Conv-BN folding for inference (PyTorch's fuse_conv_bn): a convolution whose only user is a
 * batch_norm in evaluation mode becomes one convolution with weight {@code w·s} and bias
 * {@code b·s + (β − mean·s)}, where {@code s = γ/√(var + ε)} per output channel (batch_norm's own
 * scale and shift, {@link NormOps#evaluationScaleAndShift}); the pass over the
 * conv's output that normalization costs goes away.
 * <p>
 * The folded weight and bias are computed in the graph, from the parameter and buffer inputs, not
 * frozen into constants: a parameter updated between calls (an optimizer step, a loaded state
 * dict) is folded afresh, and the per-channel ops are tiny next to the convolution. A batch_norm in
 * training mode normalizes with the batch's statistics and updates the running ones, so it is never
 * folded; neither is a graph compiled for training, whose gradients would flow through the folded
 * weight rather than the layers the user wrote ({@link GraphPass#inferenceOnly()}).
 * <p>
 * Opt-in ({@code EMBER_ENABLE_PASSES=pre_grad.conv_bn_folding}), as PyTorch folds only with
 * {@code freezing} on: the folded convolution rounds differently from the graph as written (the
 * scale applied to each weight before the sum, not once after it), so compiled output was no longer
 * eager's, and a count of outputs over a threshold came out one off (fuzzer seed 650967). And it
 * bought nothing here: without folding inductor fuses the batch norm into the ReLU's kernel, with it
 * the ReLU is that kernel alone, the same pass over the output either way (ModelBench's Conv-BN-ReLU
 * stack, one fork each, ABAB: 27.6 / 24.4 ms folded, 26.2 / 25.0 ms not; docs/logging.md). It pays
 * once the convolution takes the activation as an epilogue.
 */
final class ConvBnFolding {
    private ConvBnFolding() {}

    static final GraphPass PASS = new GraphPass("conv_bn_folding",
            "a convolution followed by batch_norm in evaluation mode as one convolution, its weight and bias folded in the graph",
            true, true, ConvBnFolding::run);

    static boolean run(GraphModule gm) {
        Graph g = gm.graph();
        boolean changed = false;
        for (Node bn : g.findNodes(dev.ember.fx.NodeKind.CALL_FUNCTION, NormOps.BATCH_NORM)) {
            Match m = Match.of(bn);
            if (m != null) {
                fold(g, m);
                changed = true;
            }
        }
        return changed;
    }

    /** A conv → batch_norm pair that folds, with the nodes and values the fold reads (optional ones null). */
    private record Match(Node conv, Node bn, Node weight, Node bias, Node gamma, Node beta, Node mean, Node var, double eps) {
        static Match of(Node bn) {
            if (!bn.kwargs().isEmpty() || bn.args().size() < 8 || !Boolean.FALSE.equals(bn.arg(5))) return null;
            if (!(bn.arg(0) instanceof Node conv) || conv.users().size() != 1 || !conv.kwargs().isEmpty()) return null;
            boolean convolution = conv.target() == ConvOps.CONVOLUTION && Boolean.FALSE.equals(conv.arg(6));
            // conv2d on unbatched [C, H, W] input gives [C, H, W]: batch_norm would take H for the channels
            boolean conv2d = conv.target() == ConvOps.CONV2D && conv.val() instanceof Tensor out && out.dim() == 4;
            if (!convolution && !conv2d) return null;
            if (!(conv.arg(1) instanceof Node weight) || !(bn.arg(3) instanceof Node mean) || !(bn.arg(4) instanceof Node var)) return null;
            // the folded conv runs where batch_norm ran: its input must hold the value it had at the conv
            for (Node n = conv.next(); n != bn; n = n.next()) if (Aliasing.writes(n)) return null;
            return new Match(conv, bn, weight, optional(conv, 2), optional(bn, 1), optional(bn, 2), mean, var, ((Number) bn.arg(7)).doubleValue());
        }

        private static Node optional(Node n, int i) { return i < n.args().size() && n.arg(i) instanceof Node v ? v : null; }
    }

    private static void fold(Graph g, Match m) {
        Node folded;
        try (InsertPoint at = g.insertingBefore(m.bn())) {
            NodeEmitter e = new NodeEmitter(g, m.conv().sourceLocation());
            // batch_norm's own scale and shift (float64), applied to the weight and bias in float64 and
            // each folded value rounded once to the weight's dtype: float32 steps rounded the weight three times
            DType dtype = e.meta(m.weight()).dtype();
            Object[] scaleShift = NormOps.evaluationScaleAndShift(e, m.gamma(), m.beta(), m.mean(), m.var(), m.eps());
            Object scale = scaleShift[0], shift = scaleShift[1];
            int[] perOutChannel = new int[e.meta(m.weight()).dim()];
            Arrays.fill(perOutChannel, 1);
            perOutChannel[0] = -1;
            Object weight = narrow(e, e.call(PointwiseOps.MUL_TENSOR, NormOps.float64(e, m.weight()), e.call(ShapeOps.VIEW, scale, perOutChannel)), dtype);
            Object bias = m.bias() == null ? shift
                    : e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_TENSOR, NormOps.float64(e, m.bias()), scale), shift);
            bias = narrow(e, bias, dtype);
            List<Object> args = new ArrayList<>(m.conv().args());
            while (args.size() < 3) args.add(null);
            args.set(1, weight);
            args.set(2, bias);
            folded = (Node) e.call((OpOverload) m.conv().target(), args.toArray());
        }
        m.bn().replaceAllUsesWith(folded);
        g.eraseIfUnused(m.bn());
    }

    private static Object narrow(NodeEmitter e, Object x, DType dtype) {
        return dtype == DType.FLOAT64 ? x : e.call(ShapeOps.TO_COPY, x, dtype);
    }
}
