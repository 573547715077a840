package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.ember.inductor.Graphs.checkAgainstEager;

/**
 * Random graphs of pointwise, reduction and view ops over random shapes and layouts (broadcasting,
 * transposed, sliced and expanded inputs, 0-d tensors, size-1 dims), compiled and checked against
 * the interpreter. A failure prints the seed and the graph.
 */
class GraphFuzzTest {
    private static final int[] SIZES = {1, 2, 3, 5, 8, 17};

    @Test
    void randomGraphsMatchEager() {
        for (int seed = 0; seed < 150; seed++) {
            Random r = new Random(seed);
            Fuzz f = new Fuzz(r);
            GraphModule gm = f.build();
            try {
                checkAgainstEager(gm, 2e-4, f.inputs.toArray());
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage() + "\n" + gm.graph()
                        + "\ninputs " + f.inputs.stream().map(t -> t.meta().toString()).toList(), e);
            }
        }
    }

    private static final class Fuzz {
        final Random r;
        final Graph g = new Graph();
        final List<Tensor> inputs = new ArrayList<>();
        final List<Node> pool = new ArrayList<>();
        final Map<Node, Tensor> fake = new HashMap<>();

        Fuzz(Random r) { this.r = r; }

        GraphModule build() {
            int nInputs = 1 + r.nextInt(3);
            DType dtype = r.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32;
            int[] base = shape(r.nextInt(4));
            for (int i = 0; i < nInputs; i++) {
                int[] s = i == 0 ? base : broadcastable(base);
                Tensor t = layout(s, dtype);
                Node p = g.placeholder("x" + i, null);
                inputs.add(t);
                fake.put(p, FakeTensor.like(t));
                pool.add(p);
            }
            int steps = 2 + r.nextInt(7);
            for (int i = 0; i < steps; i++) step();
            Node last = pool.get(pool.size() - 1);
            Node other = pool.get(r.nextInt(pool.size()));
            g.output(other == last || r.nextBoolean() ? last : List.of(last, other));
            return new GraphModule(g);
        }

        int[] shape(int rank) {
            int[] s = new int[rank];
            for (int i = 0; i < rank; i++) s[i] = SIZES[r.nextInt(SIZES.length)];
            return s;
        }

        /** {@code s} with some dims set to 1 and maybe leading dims dropped. */
        int[] broadcastable(int[] s) {
            int drop = s.length == 0 ? 0 : r.nextInt(s.length + 1);
            int[] out = java.util.Arrays.copyOfRange(s, drop, s.length);
            for (int i = 0; i < out.length; i++) if (r.nextInt(3) == 0) out[i] = 1;
            return out;
        }

        Tensor layout(int[] s, DType dtype) {
            Tensor t;
            switch (s.length == 0 ? 0 : r.nextInt(4)) {
                case 1 -> {   // transposed: the dims in reverse order in memory
                    int[] rev = new int[s.length], perm = new int[s.length];
                    for (int i = 0; i < s.length; i++) { rev[i] = s[s.length - 1 - i]; perm[i] = s.length - 1 - i; }
                    t = Tensor.randn(rev).permute(perm);
                }
                case 2 -> {   // every other element of a wider tensor
                    int[] wide = s.clone();
                    wide[s.length - 1] *= 2;
                    t = Tensor.randn(wide).slice(s.length - 1, 1, wide[s.length - 1], 2);
                }
                case 3 -> {   // expanded from a size-1 first dim (stride 0)
                    int[] one = s.clone();
                    one[0] = 1;
                    t = Tensor.randn(one).expand(s);
                }
                default -> t = Tensor.randn(s);
            }
            return dtype == DType.FLOAT32 ? t : t.to(dtype);
        }

        Node pick() { return pool.get(r.nextInt(pool.size())); }

        void add(String op, Object... args) {
            Object[] fakes = new Object[args.length];
            for (int i = 0; i < args.length; i++) fakes[i] = args[i] instanceof Node n ? fake.get(n) : args[i];
            Tensor out;
            try {
                out = OpRegistry.get("aten." + op).callTensor(fakes);
            } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                return;   // e.g. shapes that do not broadcast: try another op
            }
            Node n = g.callFunction(OpRegistry.get("aten." + op), args);
            fake.put(n, out);
            pool.add(n);
        }

        void step() {
            Node x = pick();
            int nd = fake.get(x).dim();
            switch (r.nextInt(16)) {
                case 0 -> add("exp.default", call("tanh.default", x));
                case 1 -> add(r.nextBoolean() ? "sin.default" : "sigmoid.default", x);
                case 2 -> add(r.nextBoolean() ? "relu.default" : "neg.default", x);
                case 3 -> add("mul.Scalar", x, r.nextGaussian());
                case 4, 5 -> add(new String[] {"add.Tensor", "mul.Tensor", "sub.Tensor", "maximum.default"}[r.nextInt(4)], x, pick());
                case 6 -> add("div.Tensor", x, call("add.Scalar", call("abs.default", pick()), 1.0));
                case 7 -> { if (nd > 0) add("sum.dim_IntList", x, new int[] {r.nextInt(nd)}, r.nextBoolean()); }
                case 8 -> { if (nd > 0) add("amax.default", x, new int[] {r.nextInt(nd) - nd}, r.nextBoolean()); }
                case 9 -> { if (nd > 0) add("mean.dim", x, new int[] {r.nextInt(nd)}, r.nextBoolean()); }
                case 10 -> add("_softmax.default", x, (long) (nd == 0 ? 0 : r.nextInt(nd)), false);
                case 11 -> { if (nd >= 2) add("transpose.int", x, 0L, (long) (nd - 1)); }
                case 12 -> add("unsqueeze.default", x, (long) r.nextInt(nd + 1));
                case 13 -> {
                    int d = nd == 0 ? -1 : r.nextInt(nd);
                    int size = d < 0 ? 0 : fake.get(x).shape()[d];
                    if (size > 1) add(r.nextBoolean() ? "select.int" : "slice.Tensor", x, (long) d, (long) r.nextInt(size), (long) size);
                }
                case 14 -> add("reshape.default", x, new int[] {-1});
                default -> {
                    int[] s = fake.get(x).shape();
                    int d = -1;
                    for (int i = 0; i < s.length; i++) if (s[i] == 1) d = i;
                    if (d >= 0) {
                        s[d] = 4;
                        add("expand.default", x, s);
                    } else {
                        add("sum.default", x);
                    }
                }
            }
        }

        /** Adds an op and returns its node (or {@code x} itself when the op does not apply). */
        Node call(String op, Object x, Object... more) {
            Object[] args = new Object[1 + more.length];
            args[0] = x;
            System.arraycopy(more, 0, args, 1, more.length);
            int before = pool.size();
            add(op, args);
            return pool.size() > before ? pool.get(pool.size() - 1) : (Node) x;
        }
    }
}
