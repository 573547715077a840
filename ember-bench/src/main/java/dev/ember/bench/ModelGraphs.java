package dev.ember.bench;

import java.util.List;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.OpRegistry;


/**
 * The benchmark workloads as FX graphs of ATen ops, written as Dynamo would capture them from
 * ordinary Ember code (the same ops, in the same order). Parameters are graph inputs.
 */
final class ModelGraphs {
    private ModelGraphs() {}

    private static Node call(Graph g, String op, Object... args) { return g.callFunction(OpRegistry.get("aten." + op), args); }

    /** {@code -((|relu(x*y + 1.5) - x|).maximum(y)) * 0.25}: 8 ops, memory-bound. */
    static GraphModule arithmeticChain() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), y = g.placeholder("y", null);
        Node v = call(g, "mul.Tensor", x, y);
        v = call(g, "add.Scalar", v, 1.5);
        v = call(g, "relu.default", v);
        v = call(g, "sub.Tensor", v, x);
        v = call(g, "abs.default", v);
        v = call(g, "maximum.default", v, y);
        v = call(g, "neg.default", v);
        g.output(call(g, "mul.Scalar", v, 0.25));
        return new GraphModule(g);
    }

    /** {@code ((x*1.5+2).relu().sin()*x).exp().neg().sigmoid() - 0.5}: compute-bound. */
    static GraphModule transcendentalChain() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node v = call(g, "mul.Scalar", x, 1.5);
        v = call(g, "add.Scalar", v, 2.0);
        v = call(g, "relu.default", v);
        v = call(g, "sin.default", v);
        v = call(g, "mul.Tensor", v, x);
        v = call(g, "exp.default", v);
        v = call(g, "neg.default", v);
        v = call(g, "sigmoid.default", v);
        g.output(call(g, "sub.Scalar", v, 0.5));
        return new GraphModule(g);
    }

    static GraphModule softmax() {
        Graph g = new Graph();
        g.output(call(g, "_softmax.default", g.placeholder("x", null), -1L, false));
        return new GraphModule(g);
    }

    static GraphModule layerNorm(int d) {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        g.output(call(g, "layer_norm.default", x, new int[] {d}, w, b, 1e-5));
        return new GraphModule(g);
    }

    /** Inputs: x, then (weight, bias) per layer; ReLU between layers. */
    static GraphModule mlp(int layers) {
        Graph g = new Graph();
        Node h = g.placeholder("x", null);
        for (int i = 0; i < layers; i++) {
            Node w = g.placeholder("w" + i, null), b = g.placeholder("b" + i, null);
            h = call(g, "linear.default", h, w, b);
            if (i < layers - 1) h = call(g, "relu.default", h);
        }
        g.output(h);
        return new GraphModule(g);
    }

    /** Inputs: x, then per block (conv weight, bn weight, bn bias, running mean, running var); eval mode. */
    static GraphModule convBnRelu(int blocks) {
        Graph g = new Graph();
        Node h = g.placeholder("x", null);
        for (int i = 0; i < blocks; i++) {
            Node w = g.placeholder("conv" + i, null);
            Node gamma = g.placeholder("gamma" + i, null), beta = g.placeholder("beta" + i, null);
            Node mean = g.placeholder("mean" + i, null), var = g.placeholder("var" + i, null);
            h = call(g, "conv2d.default", h, w, null, new int[] {1, 1}, new int[] {1, 1});
            h = call(g, "batch_norm.default", h, gamma, beta, mean, var, false, 0.1, 1e-5, true);
            h = call(g, "relu.default", h);
        }
        g.output(h);
        return new GraphModule(g);
    }

    /**
     * A post-norm transformer encoder layer (PyTorch's TransformerEncoderLayer, batch_first, ReLU,
     * no dropout). Inputs: x, in_proj (w, b), out_proj (w, b), linear1 (w, b), linear2 (w, b),
     * norm1 (w, b), norm2 (w, b).
     */
    static GraphModule encoderLayer(int batch, int seq, int d, int heads) { return encoderLayer((Object) batch, seq, d, heads); }

    /**
     * The encoder layer for a batch given as an int or as a size symbol ({@link dev.ember.tensor.SymInt}),
     * for a graph generic in its batch.
     */
    static GraphModule encoderLayer(Object batch, int seq, int d, int heads) {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node inW = g.placeholder("in_proj_weight", null), inB = g.placeholder("in_proj_bias", null);
        Node outW = g.placeholder("out_proj_weight", null), outB = g.placeholder("out_proj_bias", null);
        Node w1 = g.placeholder("linear1_weight", null), b1 = g.placeholder("linear1_bias", null);
        Node w2 = g.placeholder("linear2_weight", null), b2 = g.placeholder("linear2_bias", null);
        Node n1w = g.placeholder("norm1_weight", null), n1b = g.placeholder("norm1_bias", null);
        Node n2w = g.placeholder("norm2_weight", null), n2b = g.placeholder("norm2_bias", null);
        int dh = d / heads;
        Node qkv = call(g, "linear.default", x, inW, inB);
        Node[] parts = new Node[3];
        for (int i = 0; i < 3; i++) {
            Node s = call(g, "slice.Tensor", qkv, 2L, (long) i * d, (long) (i + 1) * d, 1L);
            Node v = call(g, "view.default", s, List.of(batch, seq, heads, dh));
            parts[i] = call(g, "transpose.int", v, 1L, 2L);
        }
        // attention as nn.MultiheadAttention calls it: one scaled_dot_product_attention over [B, H, L, dh] views
        Node ctx = call(g, "scaled_dot_product_attention.default", parts[0], parts[1], parts[2]);
        ctx = call(g, "transpose.int", ctx, 1L, 2L);
        ctx = call(g, "reshape.default", ctx, List.of(batch, seq, d));
        Node sa = call(g, "linear.default", ctx, outW, outB);
        Node h = call(g, "layer_norm.default", call(g, "add.Tensor", x, sa), new int[] {d}, n1w, n1b, 1e-5);
        Node ff = call(g, "linear.default", call(g, "relu.default", call(g, "linear.default", h, w1, b1)), w2, b2);
        g.output(call(g, "layer_norm.default", call(g, "add.Tensor", h, ff), new int[] {d}, n2w, n2b, 1e-5));
        return new GraphModule(g);
    }

}
