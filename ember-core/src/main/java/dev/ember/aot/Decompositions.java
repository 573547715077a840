package dev.ember.aot;

import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.TensorMeta;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The decomposition table: composite ops written with a small core opset (PyTorch's core ATen
 * idea) — pointwise ops, {@code sum}/{@code amax}/{@code amin} reductions, views, {@code mm},
 * {@code bmm}, {@code convolution}. What the compiler cannot fuse stays opaque (GEMM, conv);
 * everything else (softmax, norms, linear, mean, var) becomes ops it can.
 *
 * <p>{@link #install()} also registers each one on its op ({@link OpOverload#setDecomposition}),
 * so eager callers can run an op through its decomposition.
 */
public final class Decompositions {
    private Decompositions() {}

    private static final Map<String, Decomposition> TABLE = new LinkedHashMap<>();

    // Softmax of a tensor with no elements is that empty tensor: the max-shift formula's amax would
    // refuse an empty reduction dim, where eager's kernel returns an empty result.
    static {
        TABLE.put("aten._softmax.default", (e, a) -> {
            if (e.meta(a[0]).numel() == 0) return e.call("aten.clone.default", a[0]);
            int[] dim = {wrap(e, a[0], a[1])};
            Object max = e.call("aten.amax.default", a[0], dim, true);
            Object exp = e.call("aten.exp.default", e.call("aten.sub.Tensor", a[0], max));
            return e.call("aten.div.Tensor", exp, e.call("aten.sum.dim_IntList", exp, dim, true));
        });
        TABLE.put("aten._log_softmax.default", (e, a) -> {
            if (e.meta(a[0]).numel() == 0) return e.call("aten.clone.default", a[0]);
            int[] dim = {wrap(e, a[0], a[1])};
            Object shifted = e.call("aten.sub.Tensor", a[0], e.call("aten.amax.default", a[0], dim, true));
            Object sumExp = e.call("aten.sum.dim_IntList", e.call("aten.exp.default", shifted), dim, true);
            return e.call("aten.sub.Tensor", shifted, e.call("aten.log.default", sumExp));
        });
        TABLE.put("aten.sum.default", (e, a) -> e.call("aten.sum.dim_IntList", a[0], null, false, a[1]));
        TABLE.put("aten.mean.default", (e, a) -> e.call("aten.mean.dim", a[0], null, false, a[1]));
        TABLE.put("aten.mean.dim", (e, a) -> {
            Object x = a[3] == null ? a[0] : e.call("aten._to_copy.default", a[0], a[3]);
            if (!e.meta(x).dtype().isFloatingPoint()) return null;
            int[] dims = dims(e, x, a[1]);
            return e.call("aten.div.Scalar", e.call("aten.sum.dim_IntList", x, dims, a[2]), (double) count(e, x, dims));
        });
        TABLE.put("aten.var.correction", (e, a) -> variance(e, a[0], a[1], a[2], (Boolean) a[3]));
        TABLE.put("aten.std.correction", (e, a) -> {
            Object var = variance(e, a[0], a[1], a[2], (Boolean) a[3]);
            return var == null ? null : e.call("aten.sqrt.default", var);
        });
        TABLE.put("aten.layer_norm.default", (e, a) -> {
            Object x = a[0];
            int nd = e.meta(x).dim(), k = toInts(a[1]).length;
            int[] dims = new int[k];
            for (int i = 0; i < k; i++) dims[i] = nd - k + i;
            double n = count(e, x, dims);
            Object mean = e.call("aten.div.Scalar", e.call("aten.sum.dim_IntList", x, dims, true), n);
            Object centered = e.call("aten.sub.Tensor", x, mean);
            Object var = e.call("aten.div.Scalar", e.call("aten.sum.dim_IntList", e.call("aten.mul.Tensor", centered, centered), dims, true), n);
            Object rstd = e.call("aten.rsqrt.default", e.call("aten.add.Scalar", var, a[4]));
            Object out = e.call("aten.mul.Tensor", centered, rstd);
            if (a[2] != null) out = e.call("aten.mul.Tensor", out, a[2]);
            if (a[3] != null) out = e.call("aten.add.Tensor", out, a[3]);
            return out;
        });
        TABLE.put("aten.batch_norm.default", (e, a) -> {
            boolean training = (Boolean) a[5];
            if (training || a[3] == null || a[4] == null) return null;
            int[] paramShape = channelShape(e.meta(a[0]));
            Object mean = e.call("aten.view.default", a[3], paramShape);
            Object scale = e.call("aten.rsqrt.default", e.call("aten.add.Scalar", a[4], a[7]));
            if (a[1] != null) scale = e.call("aten.mul.Tensor", scale, a[1]);
            Object out = e.call("aten.mul.Tensor", e.call("aten.sub.Tensor", a[0], mean), e.call("aten.view.default", scale, paramShape));
            if (a[2] != null) out = e.call("aten.add.Tensor", out, e.call("aten.view.default", a[2], paramShape));
            return out;
        });
        TABLE.put("aten.silu.default", (e, a) -> e.call("aten.mul.Tensor", a[0], e.call("aten.sigmoid.default", a[0])));
        TABLE.put("aten.linear.default", (e, a) -> {
            TensorMeta x = e.meta(a[0]);
            Object wt = e.call("aten.t.default", a[1]);
            if (x.dim() == 2) return a[2] == null ? e.call("aten.mm.default", a[0], wt) : e.call("aten.addmm.default", a[2], a[0], wt);
            if (x.dim() < 2) return null;
            int in = x.shape()[x.dim() - 1], out = e.meta(a[1]).shape()[0];
            Object flat = e.call("aten.reshape.default", a[0], new int[] {leadingRows(x), in});
            Object y = a[2] == null ? e.call("aten.mm.default", flat, wt) : e.call("aten.addmm.default", a[2], flat, wt);
            int[] shape = x.shape();
            shape[shape.length - 1] = out;
            return e.call("aten.reshape.default", y, shape);
        });
        TABLE.put("aten.addmm.default", (e, a) -> {
            Object prod = e.call("aten.mm.default", a[1], a[2]);
            if (!isOne(a[4])) prod = e.call("aten.mul.Scalar", prod, a[4]);
            Object bias = isOne(a[3]) ? a[0] : e.call("aten.mul.Scalar", a[0], a[3]);
            return e.call("aten.add.Tensor", prod, bias);
        });
        TABLE.put("aten.matmul.default", (e, a) -> {
            TensorMeta x = e.meta(a[0]), w = e.meta(a[1]);
            if (x.dim() == 2 && w.dim() == 2) return e.call("aten.mm.default", a[0], a[1]);
            if (x.dim() == 3 && w.dim() == 3 && x.shape()[0] == w.shape()[0]) return e.call("aten.bmm.default", a[0], a[1]);
            if (x.dim() >= 3 && w.dim() == 2) {
                int k = x.shape()[x.dim() - 1];
                Object y = e.call("aten.mm.default", e.call("aten.reshape.default", a[0], new int[] {leadingRows(x), k}), a[1]);
                int[] shape = x.shape();
                shape[shape.length - 1] = w.shape()[1];
                return e.call("aten.reshape.default", y, shape);
            }
            return null;
        });
        TABLE.put("aten.conv2d.default", (e, a) -> {
            boolean batched = e.meta(a[0]).dim() == 4;
            Object x = batched ? a[0] : e.call("aten.unsqueeze.default", a[0], 0);
            Object out = e.call("aten.convolution.default", x, a[1], a[2], a[3], a[4], a[5], false, new int[] {0, 0}, a[6]);
            return batched ? out : e.call("aten.squeeze.dim", out, 0);
        });
    }

    /**
     * The rows of a tensor flattened to 2-D over its last dim, counted rather than written as -1:
     * with a zero-size dim, -1 is ambiguous and reshape refuses it ([0, 5, 0] to [-1, 0]).
     */
    private static int leadingRows(TensorMeta x) {
        int rows = 1;
        for (int d = 0; d < x.dim() - 1; d++) rows *= x.shape()[d];
        return rows;
    }

    private static volatile boolean installed;

    /** The decompositions, by op name. */
    public static Map<String, Decomposition> table() { return java.util.Collections.unmodifiableMap(TABLE); }

    /**
     * Registers every decomposition on its op (ops not defined in this build are skipped, and so are
     * ops that define their own: installing must not change what an op already does). Idempotent.
     */
    public static void install() {
        if (installed) return;
        synchronized (Decompositions.class) {
            if (installed) return;
            Set<String> defined = OpRegistry.all().stream().map(OpOverload::name).collect(Collectors.toSet());
            TABLE.forEach((name, d) -> {
                if (!defined.contains(name) || OpRegistry.get(name).decomposition() != null) return;
                OpRegistry.get(name).setDecomposition(args -> {
                    Object out = d.apply(EagerEmitter.INSTANCE, args.toArray());
                    return out != null ? out : args.op().call(args.toArray());
                });
            });
            installed = true;
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Object variance(OpEmitter e, Object x, Object dimArg, Object correction, boolean keepdim) {
        if (!e.meta(x).dtype().isFloatingPoint()) return null;
        int[] dims = dims(e, x, dimArg);
        double n = count(e, x, dims);
        double c = correction == null ? 1 : ((Number) correction).doubleValue();
        Object mean = e.call("aten.div.Scalar", e.call("aten.sum.dim_IntList", x, dims, true), n);
        Object centered = e.call("aten.sub.Tensor", x, mean);
        Object sq = e.call("aten.sum.dim_IntList", e.call("aten.mul.Tensor", centered, centered), dims, keepdim);
        return e.call("aten.div.Scalar", sq, Math.max(0, n - c));
    }

    private static int wrap(OpEmitter e, Object x, Object dim) {
        int nd = Math.max(1, e.meta(x).dim());
        int d = ((Number) dim).intValue();
        return d < 0 ? d + nd : d;
    }

    /** The reduced dims, wrapped; null or empty means all of them. */
    private static int[] dims(OpEmitter e, Object x, Object dimArg) {
        int nd = e.meta(x).dim();
        int[] given = dimArg == null ? new int[0] : toInts(dimArg);
        if (given.length == 0) {
            int[] all = new int[nd];
            for (int i = 0; i < nd; i++) all[i] = i;
            return all;
        }
        int[] out = new int[given.length];
        for (int i = 0; i < given.length; i++) out[i] = given[i] < 0 ? given[i] + nd : given[i];
        return out;
    }

    private static double count(OpEmitter e, Object x, int[] dims) {
        int[] shape = e.meta(x).shape();
        double n = 1;
        for (int d : dims) n *= shape[d];
        return n;
    }

    /** An int-list argument as graphs may hold it: {@code int[]}, {@code long[]} or a list of numbers. */
    static int[] toInts(Object v) {
        return switch (v) {
            case int[] a -> a;
            case long[] a -> java.util.Arrays.stream(a).mapToInt(Math::toIntExact).toArray();
            case java.util.List<?> l -> l.stream().mapToInt(x -> ((Number) x).intValue()).toArray();
            case Number n -> new int[] {n.intValue()};
            default -> throw new IllegalArgumentException("expected an int list, got " + v);
        };
    }

    private static int[] channelShape(TensorMeta input) {
        int[] s = new int[Math.max(1, input.dim() - 1)];
        java.util.Arrays.fill(s, 1);
        s[0] = input.shape()[1];
        return s;
    }

    private static boolean isOne(Object scalar) { return scalar instanceof Number n && n.doubleValue() == 1.0; }
}
