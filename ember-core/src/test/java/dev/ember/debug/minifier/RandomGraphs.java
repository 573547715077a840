package dev.ember.debug.minifier;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random MLP-like graphs on [6, 8] activations: blocks of GEMMs with bias and activation,
 * residual adds, normalizations (x - mean), softmaxes, row sums and gates, each block reading the
 * latest value and sometimes an earlier one. The graph returns its last value and two earlier ones.
 */
final class RandomGraphs {
    static final int ROWS = 6, COLS = 8;

    private RandomGraphs() {}

    record Program(GraphModule gm, List<Object> inputs) {}

    /** At least {@code minOps} ops, with every op a {@link SeededBug} breaks present at least once. */
    static Program build(long seed, int minOps) {
        Random rnd = new Random(seed);
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node w1 = g.placeholder("w1", null);
        Node w2 = g.placeholder("w2", null);
        Node b = g.placeholder("b", null);
        List<Node> values = new ArrayList<>(List.of(x));
        // Every kind of block once, in random order, then random blocks up to the size asked for.
        List<Integer> kinds = new ArrayList<>();
        for (int k = 0; k < BLOCKS; k++) kinds.add(k);
        java.util.Collections.shuffle(kinds, rnd);
        int i = 0;
        while (i < kinds.size() || count(g) < minOps) {
            int kind = i < kinds.size() ? kinds.get(i) : rnd.nextInt(BLOCKS);
            i++;
            Node last = values.getLast();
            Node other = values.get(rnd.nextInt(values.size()));
            values.add(block(g, kind, last, other, rnd.nextBoolean() ? w1 : w2, b));
        }
        Node last = values.getLast();
        Node a = values.get(1 + rnd.nextInt(values.size() - 2));
        Node c = values.get(1 + rnd.nextInt(values.size() - 2));
        g.output(List.of(last, a, c));
        Generator gen = new Generator(seed);
        List<Object> inputs = List.of(Tensor.randn(gen, ROWS, COLS), Tensor.randn(gen, COLS, COLS).mul(0.4),
                Tensor.randn(gen, COLS, COLS).mul(0.4), Tensor.randn(gen, COLS));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm, inputs.toArray());
        return new Program(gm, inputs);
    }

    private static final int BLOCKS = 9;

    private static Node block(Graph g, int kind, Node last, Node other, Node w, Node b) {
        return switch (kind) {
            case 0 -> { // linear + relu epilogue
                Node mm = call(g, "aten.mm.default", last, w);
                yield call(g, "aten.relu.default", mm);
            }
            case 1 -> { // linear with transposed weight, bias, tanh
                Node t = call(g, "aten.transpose.int", w, 0L, 1L);
                Node mm = call(g, "aten.mm.default", last, t);
                yield call(g, "aten.tanh.default", call(g, "aten.add.Tensor", mm, b));
            }
            case 2 -> call(g, "aten.add.Tensor", last, call(g, "aten.mul.Scalar", other, 0.5)); // scaled residual
            case 3 -> { // centre each row
                Node mean = call(g, "aten.mean.dim", last, List.of(1L), true);
                yield call(g, "aten.sub.Tensor", last, mean);
            }
            case 4 -> call(g, "aten._softmax.default", last, 1L, false);
            case 5 -> { // gate: sigmoid(other) * last
                yield call(g, "aten.mul.Tensor", call(g, "aten.sigmoid.default", other), last);
            }
            case 6 -> { // divide each row by 1 + its sum of squares
                Node sq = call(g, "aten.mul.Tensor", last, last);
                Node s = call(g, "aten.sum.dim_IntList", sq, List.of(1L), true);
                yield call(g, "aten.div.Tensor", last, call(g, "aten.add.Scalar", s, 1.0));
            }
            case 7 -> call(g, "aten.exp.default", call(g, "aten.neg.default", call(g, "aten.relu.default", last)));
            case 8 -> call(g, "aten.tanh.default", call(g, "aten.sub.Tensor", last, other));
            default -> throw new IllegalArgumentException("block " + kind);
        };
    }

    private static Node call(Graph g, String op, Object... args) { return g.callFunction(OpRegistry.get(op), args); }

    private static int count(Graph g) { return g.size() - g.placeholders().size(); }
}
