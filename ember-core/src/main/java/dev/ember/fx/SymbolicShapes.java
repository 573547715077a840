package dev.ember.fx;

import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Symbolic metadata for a graph generic in some input sizes, without a symbolic meta function per
 * op: every op's meta function runs on concrete sizes, at the hints and at a few other assignments
 * of the symbols ("worlds"); each output size, stride and offset is then the unique polynomial of
 * degree at most 2 in the symbols through those points, checked exactly at two more. A size that
 * is no such polynomial (a floor division, a {@code max}) makes the graph {@link NotGeneric}, and
 * the caller specializes those sizes instead.
 *
 * <p>Sampling proves nothing about sizes it did not sample, so a compiled frame also re-runs the
 * meta functions at every new assignment it meets and compares ({@link #check}) before it runs
 * generated code for it: a polynomial that fitted the samples by coincidence costs a recompile,
 * never a wrong answer.
 *
 * <p>The same interpolation makes a lowered graph generic ({@link #generalize}): AOT's
 * decompositions compute int arguments from concrete sizes, so the graph is lowered once per world
 * and the int arguments that differ become polynomials.
 */
public final class SymbolicShapes {

    /**
     * The graph is not generic in its symbols: some size is no polynomial of them, or ops disagree
     * between worlds, or (a subclass) a backend can only compile part of it for particular sizes.
     * The caller compiles the graph for its example sizes instead.
     */
    public static class NotGeneric extends RuntimeException {
        public NotGeneric(String message) { super(message, null, false, false); }
    }

    private final SizeSymbols symbols;
    /** The monomials of degree <= 2 over the symbols: {@code [] , [0], [1], [0,0], [0,1], [1,1]}. */
    private final List<int[]> basis = new ArrayList<>();
    /** worlds.get(0) holds the hints. */
    private final List<long[]> worlds = new ArrayList<>();
    /** The inverse of the basis evaluated at the first {@code basis.size()} worlds. */
    private final double[][] inverse;

    public SymbolicShapes(SizeSymbols symbols) {
        this.symbols = Objects.requireNonNull(symbols, "symbols");
        int k = symbols.size();
        basis.add(new int[0]);
        for (int i = 0; i < k; i++) basis.add(new int[] {i});
        for (int i = 0; i < k; i++) for (int j = i; j < k; j++) basis.add(new int[] {i, j});
        worlds.add(symbols.hints());
        SplittableRandom random = new SplittableRandom(0x5EED_5A9E5L);
        int attempts = 0;
        double[][] inv = null;
        while (inv == null) {
            while (worlds.size() < basis.size()) worlds.add(randomWorld(random, 61));
            inv = invert(basisMatrix());
            if (inv == null) {
                if (++attempts == 20) throw new NotGeneric("the ranges of " + describeRanges() + " leave too few sizes to tell polynomials apart");
                worlds.subList(1, worlds.size()).clear();
            }
        }
        // the two checking assignments reach further, so that a size whose rule changes past the small ones shows
        worlds.add(randomWorld(random, 127));
        worlds.add(randomWorld(random, 509));
        this.inverse = inv;
    }

    public SizeSymbols symbols() { return symbols; }

    /** The symbol assignments the graph is evaluated at, the hints first. */
    public List<long[]> worlds() { return List.copyOf(worlds); }

    /** Each symbol drawn from its range, at most {@code spread} above its least size. */
    private long[] randomWorld(SplittableRandom random, long spread) {
        long[] v = new long[symbols.size()];
        for (SizeSymbols.Symbol s : symbols.symbols()) {
            long lo = Math.max(s.min(), 2), hi = Math.min(s.max(), lo + spread);
            v[s.id()] = lo + random.nextLong(hi - lo + 1);
        }
        return v;
    }

    private double[][] basisMatrix() {
        int b = basis.size();
        double[][] m = new double[b][b];
        for (int w = 0; w < b; w++) for (int j = 0; j < b; j++) m[w][j] = monomial(basis.get(j), worlds.get(w));
        return m;
    }

    private static double monomial(int[] ids, long[] values) {
        double p = 1;
        for (int id : ids) p *= values[id];
        return p;
    }

    /**
     * The polynomial through {@code values} (one per world, in world order), checked exactly at every
     * world, or null when there is none of degree <= 2.
     */
    SymInt fit(long[] values) {
        boolean constant = true;
        for (long v : values) constant &= v == values[0];
        if (constant) return SymInt.of(values[0]);
        int b = basis.size();
        SymInt p = SymInt.of(0);
        for (int j = 0; j < b; j++) {
            double c = 0;
            for (int w = 0; w < b; w++) c += inverse[j][w] * values[w];
            long rounded = Math.round(c);
            if (Math.abs(c - rounded) > 1e-6) return null;
            SymInt term = SymInt.of(rounded);
            for (int id : basis.get(j)) term = term.times(SymInt.symbol(id));
            p = p.plus(term);
        }
        for (int w = 0; w < worlds.size(); w++) if (p.eval(worlds.get(w)) != values[w]) return null;
        return p;
    }

    /**
     * Fills {@link Node#SYM_VAL} of every node of {@code gm}, whose placeholders carry theirs.
     *
     * @throws NotGeneric when some node's metadata is no polynomial of the symbols, or an op fails at some world
     */
    public void annotate(GraphModule gm) {
        List<GraphModule> perWorld = new ArrayList<>();
        perWorld.add(gm);
        for (int w = 1; w < worlds.size(); w++) perWorld.add(instantiate(gm, worlds.get(w)));
        fitValues(perWorld, gm);
    }

    /**
     * {@code gm} with every symbol replaced by its value in {@code values}: SymInt arguments become
     * ints and the fake values are propagated again from the placeholders' metadata at those sizes.
     *
     * @throws NotGeneric when an op's meta function refuses those sizes
     */
    public static GraphModule instantiate(GraphModule gm, long[] values) {
        Graph g = new Graph();
        Map<Node, Node> env = new java.util.HashMap<>();
        for (Node n : gm.graph().nodes()) {
            Node copy = g.nodeCopy(n, env::get);
            copy.meta().remove(Node.SYM_VAL);
            copy.setArgs((List<?>) ArgTrees.mapLeaves(copy.args(), v -> v instanceof SymInt s ? s.evalInt(values) : v));
            Map<String, Object> kwargs = new java.util.LinkedHashMap<>();
            copy.kwargs().forEach((k, v) -> kwargs.put(k, ArgTrees.mapLeaves(v, x -> x instanceof SymInt s ? s.evalInt(values) : x)));
            copy.setKwargs(kwargs);
            if (n.kind() == NodeKind.PLACEHOLDER && n.symVal() instanceof SymShape shape) {
                copy.setVal(new FakeTensor(shape.eval(((FakeTensor) n.val()).dtype(), values)));
            }
            env.put(n, copy);
        }
        GraphModule out = new GraphModule(gm.className(), g, gm.attributes(), gm.submodules());
        try {
            ShapeProp.propagate(out);
        } catch (RuntimeException e) {
            throw new NotGeneric("at " + describe(values) + " the graph fails: " + e.getMessage());
        }
        return out;
    }

    /**
     * One graph generic in the symbols from {@code perWorld}, the same program traced or lowered once
     * per world (in {@link #worlds()} order): int arguments that differ become polynomials, and
     * every node gets its symbolic metadata. The first graph is changed and returned.
     *
     * @throws NotGeneric when the graphs differ in anything but int arguments, or an int is no polynomial
     */
    public GraphModule generalize(List<GraphModule> perWorld) {
        if (perWorld.size() != worlds.size()) throw new IllegalArgumentException(perWorld.size() + " graphs for " + worlds.size() + " worlds");
        List<List<Node>> nodes = perWorld.stream().map(m -> m.graph().nodes()).toList();
        List<Node> first = nodes.get(0);
        for (int w = 1; w < nodes.size(); w++) {
            if (nodes.get(w).size() != first.size()) {
                throw new NotGeneric("lowered at " + describe(worlds.get(w)) + " the graph has " + nodes.get(w).size() + " nodes, at the hints " + first.size());
            }
        }
        for (int i = 0; i < first.size(); i++) {
            Node n = first.get(i);
            List<Node> same = new ArrayList<>();
            for (List<Node> ns : nodes) same.add(ns.get(i));
            for (Node o : same) {
                if (o.kind() != n.kind() || !o.target().equals(n.target())) {
                    throw new NotGeneric("lowered at other sizes, node " + i + " is " + o.format() + " instead of " + n.format());
                }
            }
            List<Object> args = new ArrayList<>(n.args());
            for (int a = 0; a < args.size(); a++) {
                final int at = a;
                args.set(a, unify(n, same.stream().map(o -> o.args().get(at)).toList()));
            }
            n.setArgs(args);
            Map<String, Object> kwargs = new java.util.LinkedHashMap<>(n.kwargs());
            for (String key : kwargs.keySet()) kwargs.put(key, unify(n, same.stream().map(o -> o.kwargs().get(key)).toList()));
            n.setKwargs(kwargs);
        }
        GraphModule gm = perWorld.get(0);
        gm.setSizeSymbols(symbols);
        fitValues(perWorld, gm);
        return gm;
    }

    /**
     * {@code transform} (a rewrite that computes int arguments from concrete sizes: functionalization,
     * decomposition) applied to {@code gm} at every world, generalized into one graph. Logs are
     * printed for the example sizes' run only.
     *
     * @throws NotGeneric when the results differ in more than int arguments
     */
    public GraphModule transformed(GraphModule gm, java.util.function.UnaryOperator<GraphModule> transform) {
        List<GraphModule> perWorld = new ArrayList<>();
        for (int w = 0; w < worlds.size(); w++) {
            GraphModule at = instantiate(gm, worlds.get(w));
            perWorld.add(w == 0 ? transform.apply(at) : dev.ember.logging.Log.quietly(() -> transform.apply(at)));
        }
        return generalize(perWorld);
    }

    /** One argument of a node, as each world's graph has it: equal values stay, differing ints become a polynomial. */
    private Object unify(Node n, List<Object> perWorld) {
        Object first = perWorld.get(0);
        if (first instanceof Node node) {
            for (Object o : perWorld) {
                if (!(o instanceof Node other) || !other.name().equals(node.name())) throw new NotGeneric(n.format() + " reads other values at other sizes");
            }
            return first;
        }
        if (first instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                final int at = i;
                out.add(unify(n, perWorld.stream().map(o -> {
                    if (!(o instanceof List<?> l) || l.size() != list.size()) throw new NotGeneric(n.format() + " has arguments of another length at other sizes");
                    return (Object) l.get(at);
                }).toList()));
            }
            return out;
        }
        if (first instanceof int[] arr) {
            Object unified = unify(n, perWorld.stream().map(o -> o instanceof int[] a ? (Object) java.util.Arrays.stream(a).boxed().toList() : o).toList());
            return unified instanceof List<?> l && l.stream().allMatch(x -> x instanceof Integer) ? arr : unified;
        }
        boolean allEqual = perWorld.stream().allMatch(o -> Objects.equals(o, first));
        if (allEqual) return first;
        if (first instanceof Integer || first instanceof Long) {
            long[] values = new long[perWorld.size()];
            for (int w = 0; w < values.length; w++) {
                if (!(perWorld.get(w) instanceof Integer || perWorld.get(w) instanceof Long)) throw new NotGeneric(n.format() + ": argument " + first + " changes kind");
                values[w] = ((Number) perWorld.get(w)).longValue();
            }
            SymInt p = fit(values);
            if (p == null) throw new NotGeneric(n.format() + ": the argument " + first + " is no polynomial of " + describeSymbols() + " (values " + java.util.Arrays.toString(values) + ")");
            return p;
        }
        throw new NotGeneric(n.format() + ": the argument " + first + " differs at other sizes (" + perWorld.get(1) + ") and is not an int");
    }

    private void fitValues(List<GraphModule> perWorld, GraphModule target) {
        List<List<Node>> nodes = perWorld.stream().map(m -> m.graph().nodes()).toList();
        List<Node> out = target.graph().nodes();
        for (int i = 0; i < out.size(); i++) {
            Node n = out.get(i);
            if (n.kind() == NodeKind.OUTPUT) continue;
            final int at = i;
            n.setSymVal(fitValue(n, nodes.stream().map(ns -> ns.get(at).val()).toList()));
        }
    }

    private Object fitValue(Node n, List<Object> perWorld) {
        Object first = perWorld.get(0);
        if (first instanceof FakeTensor f) {
            List<TensorMeta> metas = perWorld.stream().map(v -> ((FakeTensor) v).meta()).toList();
            int dim = f.dim();
            SymInt[] sizes = new SymInt[dim], strides = new SymInt[dim];
            for (int d = 0; d < dim; d++) {
                final int at = d;
                sizes[d] = fitOrThrow(n, "size " + d, metas.stream().mapToLong(m -> m.shape()[at]).toArray());
                strides[d] = fitOrThrow(n, "stride " + d, metas.stream().mapToLong(m -> m.strides()[at]).toArray());
            }
            return new SymShape(sizes, strides, fitOrThrow(n, "offset", metas.stream().mapToLong(TensorMeta::storageOffset).toArray()));
        }
        if (first instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof FakeTensor) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                final int at = i;
                out.add(fitValue(n, perWorld.stream().map(v -> ((List<?>) v).get(at)).map(x -> (Object) x).toList()));
            }
            return List.copyOf(out);
        }
        return null;
    }

    private SymInt fitOrThrow(Node n, String what, long[] values) {
        SymInt p = fit(values);
        if (p == null) {
            throw new NotGeneric("the " + what + " of " + n.name() + " (" + n.format() + ") is no polynomial of " + describeSymbols()
                    + ": " + java.util.Arrays.toString(values) + " at " + describeWorlds());
        }
        return p;
    }

    /**
     * Null when {@code gm}'s fake values at {@code values} (propagated from its placeholders) equal
     * its symbolic metadata evaluated there, else what differs: the run-time check that keeps
     * interpolation honest at sizes it never sampled.
     */
    public static String check(GraphModule gm, long[] values) {
        GraphModule at;
        try {
            at = instantiate(gm, values);
        } catch (NotGeneric e) {
            return e.getMessage();
        }
        List<Node> sym = gm.graph().nodes(), concrete = at.graph().nodes();
        for (int i = 0; i < sym.size(); i++) {
            String diff = compare(sym.get(i).symVal(), concrete.get(i).val(), values);
            if (diff != null) return "at " + describe(values) + ", " + sym.get(i).name() + " is " + diff;
        }
        return null;
    }

    private static String compare(Object symbolic, Object concrete, long[] values) {
        if (symbolic instanceof SymShape s && concrete instanceof FakeTensor f) {
            TensorMeta expected = s.eval(f.dtype(), values);
            return expected.equals(f.meta()) ? null : f.meta() + ", its symbolic metadata says " + expected;
        }
        if (symbolic instanceof List<?> l && concrete instanceof List<?> c && l.size() == c.size()) {
            for (int i = 0; i < l.size(); i++) {
                String d = compare(l.get(i), c.get(i), values);
                if (d != null) return d;
            }
        }
        return null;
    }

    private static String describe(long[] values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.length; i++) sb.append(i == 0 ? "" : ", ").append("s").append(i).append(" = ").append(values[i]);
        return sb.toString();
    }

    private String describeSymbols() { return symbols.symbols().stream().map(s -> "s" + s.id()).toList().toString(); }

    private String describeRanges() { return symbols.symbols().stream().map(SizeSymbols.Symbol::range).toList().toString(); }

    private String describeWorlds() { return worlds.stream().map(SymbolicShapes::describe).toList().toString(); }

    /** Gauss-Jordan elimination with partial pivoting; null for a (numerically) singular matrix. */
    private static double[][] invert(double[][] m) {
        int n = m.length;
        double[][] a = new double[n][2 * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(m[i], 0, a[i], 0, n);
            a[i][n + i] = 1;
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
            if (Math.abs(a[pivot][col]) < 1e-9) return null;
            double[] t = a[col];
            a[col] = a[pivot];
            a[pivot] = t;
            double p = a[col][col];
            for (int j = 0; j < 2 * n; j++) a[col][j] /= p;
            for (int r = 0; r < n; r++) {
                if (r == col || a[r][col] == 0) continue;
                double f = a[r][col];
                for (int j = 0; j < 2 * n; j++) a[r][j] -= f * a[col][j];
            }
        }
        double[][] inv = new double[n][n];
        for (int i = 0; i < n; i++) System.arraycopy(a[i], n, inv[i], 0, n);
        return inv;
    }
}
