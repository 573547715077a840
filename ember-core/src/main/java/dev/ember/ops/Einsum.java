package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * einsum's equation and its computation with other ops, as ATen's einsum does without a path:
 * each operand is permuted and unsqueezed to one common order of subscripts (the output's first),
 * subscripts only one operand has and the output lacks are summed out at once, and the operands
 * are contracted left to right, two at a time, by one bmm each (batch, left-only, contracted and
 * right-only subscripts folded into its three dims).
 *
 * <p>Subscripts are {@code a-z A-Z}; {@code ...} stands for the dims no letter names (broadcast
 * across operands, right-aligned); without {@code ->} the output is the ellipsis dims, then the
 * letters used once, in alphabetical order (upper case first). A subscript repeated within one
 * operand (a diagonal, {@code ii->i}) is refused.
 */
final class Einsum {
    private static final int LETTERS = 52;

    /** Per operand, the label of each dim (letters 0-51, ellipsis dims 52 on); the output's labels; each label's size. */
    private record Equation(int[][] inputs, int[] output, int[] sizes) {}

    private Einsum() {}

    /** ATen's checks of the equation against the operands' ranks, sizes and dtypes. */
    static void check(String equation, List<TensorMeta> operands) {
        parse(equation, operands);
    }

    /** The equation over the operands (tensors, or graph values), with the emitter's ops; checked as {@link #check} does. */
    static Object compute(OpEmitter e, String equation, List<?> operands) {
        List<TensorMeta> metas = new ArrayList<>(operands.size());
        for (Object x : operands) metas.add(e.meta(x));
        Equation eq = parse(equation, metas);
        int[] order = commonOrder(eq);
        int rank = order.length;
        int[] position = new int[eq.sizes.length];
        for (int i = 0; i < rank; i++) position[order[i]] = i;
        int[] lastUse = new int[eq.sizes.length];
        for (int i = 0; i < eq.inputs.length; i++) for (int label : eq.inputs[i]) lastUse[label] = i;
        boolean[] inOutput = new boolean[eq.sizes.length];
        for (int label : eq.output) inOutput[label] = true;
        DType dtype = metas.getFirst().dtype();

        Object result = null;
        for (int i = 0; i < eq.inputs.length; i++) {
            Object x = aligned(e, operands.get(i), eq.inputs[i], position, rank);
            List<Integer> done = new ArrayList<>();
            for (int d = 0; d < rank; d++) if (!inOutput[order[d]] && lastUse[order[d]] == i) done.add(d);
            if (result == null) {
                result = sum(e, x, done.stream().filter(d -> e.meta(x).shape()[d] != 1).toList(), dtype);
            } else {
                result = contract(e, result, x, done, dtype);
            }
        }
        int[] shape = new int[eq.output.length];
        for (int i = 0; i < shape.length; i++) shape[i] = e.meta(result).shape()[i];
        return e.call(ShapeOps.RESHAPE, result, shape);
    }

    /** The output's labels first, in its order, then the summed ones in label order. */
    private static int[] commonOrder(Equation eq) {
        boolean[] used = new boolean[eq.sizes.length];
        List<Integer> order = new ArrayList<>();
        for (int label : eq.output) {
            order.add(label);
            used[label] = true;
        }
        for (int label = 0; label < eq.sizes.length; label++) if (eq.sizes[label] >= 0 && !used[label]) order.add(label);
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The operand with its dims in the common order and a size-1 dim for each label it lacks (a permute, then a view). */
    private static Object aligned(OpEmitter e, Object x, int[] labels, int[] position, int rank) {
        Integer[] dims = new Integer[labels.length];
        for (int i = 0; i < dims.length; i++) dims[i] = i;
        Arrays.sort(dims, (p, q) -> Integer.compare(position[labels[p]], position[labels[q]]));
        int[] perm = Arrays.stream(dims).mapToInt(Integer::intValue).toArray();
        int[] shape = new int[rank];
        Arrays.fill(shape, 1);
        int[] sizes = e.meta(x).shape();
        for (int i = 0; i < labels.length; i++) shape[position[labels[i]]] = sizes[i];
        return e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, x, perm), shape);
    }

    private static Object sum(OpEmitter e, Object x, List<Integer> dims, DType dtype) {
        if (dims.isEmpty()) return x;
        return e.call(ReductionOps.SUM_DIM, x, dims.stream().mapToInt(Integer::intValue).toArray(), true, dtype);
    }

    /**
     * {@code Σ left · right} over dims {@code summed}, both aligned to the common order; the result is
     * aligned too (size 1 at the summed dims). ATen's sumproduct_pair: one bmm of
     * [batch, left-only, summed] by [batch, summed, right-only].
     */
    private static Object contract(OpEmitter e, Object left, Object right, List<Integer> summed, DType dtype) {
        int[] ls = e.meta(left).shape(), rs = e.meta(right).shape();
        int rank = ls.length;
        // a summed dim only one side has is summed on that side alone
        left = sum(e, left, summed.stream().filter(d -> ls[d] != 1 && rs[d] == 1).toList(), dtype);
        right = sum(e, right, summed.stream().filter(d -> rs[d] != 1 && ls[d] == 1).toList(), dtype);
        List<Integer> batch = new ArrayList<>(), leftOnly = new ArrayList<>(), rightOnly = new ArrayList<>(), inner = new ArrayList<>(), rest = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            boolean l = ls[d] != 1, r = rs[d] != 1;   // a size-1 dim is one the operand lacks (or broadcasts)
            if (summed.contains(d)) (l && r ? inner : rest).add(d);
            else if (l && r) batch.add(d);
            else if (l) leftOnly.add(d);
            else if (r) rightOnly.add(d);
            else rest.add(d);
        }
        int b = product(ls, batch), m = product(ls, leftOnly), k = product(ls, inner), n = product(rs, rightOnly);
        Object l3 = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, left, concat(batch, leftOnly, inner, rightOnly, rest)), new int[] {b, m, k});
        Object r3 = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, right, concat(batch, inner, rightOnly, leftOnly, rest)), new int[] {b, k, n});
        Object out = e.call(LinalgOps.BMM, l3, r3);
        // back to the common order: [batch, left-only, right-only, the rest as 1s], then permuted
        int[] resultOrder = concat(batch, leftOnly, rightOnly, inner, rest);
        int[] shape = new int[rank], inverse = new int[rank];
        for (int i = 0; i < rank; i++) {
            int d = resultOrder[i];
            shape[i] = ls[d] != 1 ? ls[d] : rs[d];
            if (summed.contains(d)) shape[i] = 1;
            inverse[d] = i;
        }
        return e.call(ShapeOps.PERMUTE, e.call(ShapeOps.RESHAPE, out, shape), inverse);
    }

    private static int product(int[] shape, List<Integer> dims) {
        int p = 1;
        for (int d : dims) p *= shape[d];
        return p;
    }

    @SafeVarargs
    private static int[] concat(List<Integer>... parts) {
        return Arrays.stream(parts).flatMap(List::stream).mapToInt(Integer::intValue).toArray();
    }

    // ------------------------------------------------------------------ the equation

    private static Equation parse(String equation, List<TensorMeta> operands) {
        if (operands.isEmpty()) throw error("must provide at least one operand");
        int arrow = equation.indexOf("->");
        String lhs = arrow < 0 ? equation : equation.substring(0, arrow);
        String[] terms = lhs.split(",", -1);
        if (terms.length > operands.size()) throw error("fewer operands were provided than specified in the equation");
        if (terms.length < operands.size()) throw error("more operands were provided than specified in the equation");
        DType dtype = operands.getFirst().dtype();
        // first pass: letters, where each operand's ellipsis is, and how many dims it covers
        List<List<Integer>> letters = new ArrayList<>();
        int[] ellipsisAt = new int[terms.length], ellipsisDims = new int[terms.length];
        int ellipsisRank = 0, offset = 0;
        for (int i = 0; i < terms.length; i++) {
            TensorMeta op = operands.get(i);
            if (op.dtype() != dtype) {
                throw error("expected all operands to have the same dtype, but operand " + i + " is " + op.dtype().scalarTypeName()
                        + " and operand 0 is " + dtype.scalarTypeName());
            }
            List<Integer> labels = new ArrayList<>();
            ellipsisAt[i] = readTerm(equation, terms[i], offset, labels, "operand " + i);
            offset += terms[i].length() + 1;
            for (int j = 0; j < labels.size(); j++) {
                if (labels.subList(0, j).contains(labels.get(j))) {
                    throw error("the subscript " + letter(labels.get(j)) + " appears more than once in operand " + i + " of '" + equation
                            + "': Ember's einsum does not take diagonals; take them with diagonal() first");
                }
            }
            if (ellipsisAt[i] < 0 && labels.size() != op.dim()) {
                throw error("the number of subscripts in the equation (" + labels.size() + ") does not match the number of dimensions (" + op.dim()
                        + ") for operand " + i + " and no ellipsis was given");
            }
            if (ellipsisAt[i] >= 0 && labels.size() > op.dim()) {
                throw error("the number of subscripts in the equation (" + labels.size() + ") is more than the number of dimensions (" + op.dim()
                        + ") for operand " + i);
            }
            ellipsisDims[i] = op.dim() - labels.size();
            ellipsisRank = Math.max(ellipsisRank, ellipsisDims[i]);
            letters.add(labels);
        }
        int[] sizes = new int[LETTERS + ellipsisRank];
        Arrays.fill(sizes, -1);
        int[][] inputs = new int[terms.length][];
        int[] uses = new int[LETTERS];
        for (int i = 0; i < terms.length; i++) {
            List<Integer> labels = new ArrayList<>(letters.get(i));
            // an operand's ellipsis dims are the last ones of the common ellipsis (broadcast right-aligned)
            List<Integer> ellipsis = new ArrayList<>();
            for (int j = ellipsisRank - ellipsisDims[i]; j < ellipsisRank; j++) ellipsis.add(LETTERS + j);
            if (ellipsisAt[i] >= 0) labels.addAll(ellipsisAt[i], ellipsis);
            inputs[i] = labels.stream().mapToInt(Integer::intValue).toArray();
            int[] shape = operands.get(i).shape();
            for (int d = 0; d < shape.length; d++) {
                int label = inputs[i][d];
                if (label < LETTERS) uses[label]++;
                if (sizes[label] == -1 || sizes[label] == 1) sizes[label] = shape[d];
                else if (shape[d] != 1 && shape[d] != sizes[label]) {
                    String what = label < LETTERS ? "subscript " + letter(label) : "the dim " + (label - LETTERS) + " of the ellipsis";
                    throw error(what + " has size " + shape[d] + " for operand " + i + " which does not broadcast with previously seen size " + sizes[label]);
                }
            }
        }
        List<Integer> output = new ArrayList<>();
        if (arrow >= 0) {
            int at = readTerm(equation, equation.substring(arrow + 2), arrow + 2, output, "the output");
            for (int j = 0; j < output.size(); j++) {
                int label = output.get(j);
                if (uses[label] == 0) throw error("output subscript " + letter(label) + " does not appear in the equation for any input operand");
                if (output.subList(0, j).contains(label)) throw error("output subscript " + letter(label) + " appears more than once in the output");
            }
            if (at >= 0) for (int j = ellipsisRank - 1; j >= 0; j--) output.add(at, LETTERS + j);
        } else {
            for (int j = 0; j < ellipsisRank; j++) output.add(LETTERS + j);
            for (int label = 0; label < LETTERS; label++) if (uses[label] == 1) output.add(label);
        }
        return new Equation(inputs, output.stream().mapToInt(Integer::intValue).toArray(), sizes);
    }

    /** Reads one term's letters into {@code labels}; returns where its ellipsis is among them, or -1. */
    private static int readTerm(String equation, String term, int offset, List<Integer> labels, String what) {
        int ellipsis = -1;
        for (int i = 0; i < term.length(); i++) {
            char c = term.charAt(i);
            if (c == ' ') continue;
            if (c == '.') {
                if (!term.startsWith("...", i)) throw error("found '.' for " + what + " that is not part of any ellipsis");
                if (ellipsis >= 0) throw error("found more than one ellipsis (\"...\") for " + what);
                ellipsis = labels.size();
                i += 2;
            } else if (c >= 'A' && c <= 'Z') {
                labels.add(c - 'A');
            } else if (c >= 'a' && c <= 'z') {
                labels.add(26 + c - 'a');
            } else {
                throw error("invalid subscript given at index " + (offset + i) + " in the equation string, subscripts must be in [a-zA-Z]");
            }
        }
        return ellipsis;
    }

    private static char letter(int label) { return (char) (label < 26 ? 'A' + label : 'a' + label - 26); }

    private static IllegalArgumentException error(String message) { return new IllegalArgumentException("einsum: einsum(): " + message); }
}
