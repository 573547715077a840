package dev.ember.ops;

import java.util.List;

/**
 * ATen's names for the normalizations with their statistics: {@code native_layer_norm} and
 * {@code native_group_norm} return the normalized tensor (layer_norm's and group_norm's own
 * definitions compute it) with the mean and the reciprocal standard deviation they normalized by
 * (var_mean's, population variance), shaped as ATen shapes them.
 */
public final class NativeNormOps {
    private NativeNormOps() {}

    /** out, then mean and rstd of the input's batch shape followed by ones for the normalized dims. */
    public static final OpOverload NATIVE_LAYER_NORM = ComposedOps.define(
            "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
            (e, a) -> {
                Object out = e.call(NormOps.LAYER_NORM, a[0], a[1], a[2], a[3], a[4], true);
                int nd = e.meta(a[0]).dim(), k = Composites.toInts(a[1]).length;
                int[] dims = new int[k];
                for (int i = 0; i < k; i++) dims[i] = nd - k + i;
                return withStatistics(e, out, a[0], dims, a[4]);
            });

    /** out, then mean and rstd of shape [N, group]. */
    public static final OpOverload NATIVE_GROUP_NORM = ComposedOps.define(
            "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, int group, float eps) -> (Tensor, Tensor, Tensor)",
            (e, a) -> {
                Object out = e.call(NormOps.GROUP_NORM, a[0], a[6], a[1], a[2], a[7], true);
                long n = ((Number) a[3]).longValue(), groups = ((Number) a[6]).longValue();
                Object grouped = e.call(ShapeOps.RESHAPE, a[0], new int[] {(int) n, (int) groups, -1});
                return withStatistics(e, out, grouped, new int[] {2}, a[7]).stream()
                        .map(x -> x == out ? x : e.call(ShapeOps.RESHAPE, x, new int[] {(int) n, (int) groups})).toList();
            });

    /** [out, mean, 1/sqrt(var + eps)] with the statistics of {@code x} over {@code dims}, kept as size-1 dims. */
    private static List<Object> withStatistics(OpEmitter e, Object out, Object x, int[] dims, Object eps) {
        @SuppressWarnings("unchecked")
        List<Object> varMean = (List<Object>) e.call(MathOps.VAR_MEAN, x, dims, 0L, true);
        Object rstd = e.call(PointwiseOps.RSQRT, e.call(PointwiseOps.ADD_SCALAR, varMean.get(0), eps));
        return List.of(out, varMean.get(1), rstd);
    }
}
