package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * torch.histogram: counts (or summed weights) of self's elements in bins given by their edges, or
 * by a count of equal bins over a range (the data's own range by default, widened by 0.5 each way
 * when it is one value; [0, 1] for no data), as ATen's CPU kernel bins them: an element falls in the
 * bin whose left edge is the last one not above it, the last bin also takes its right edge, elements
 * outside the edges and NaNs are left out. Returns the histogram and the edges, both in self's
 * (floating) dtype; density divides by the total and by each bin's width. Not differentiable (ATen
 * gives it no formula).
 */
public final class HistogramOps {
    private HistogramOps() {}

    public static final OpOverload HISTOGRAM_BINS_TENSOR = OpOverload.define(
                    "histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)")
            .meta(a -> {
                Tensor self = a.tensor(0), bins = a.tensor(1);
                checkInput(self, a.optTensor(2));
                if (bins.dtype() != self.dtype()) {
                    throw new IllegalArgumentException("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype "
                            + PointwiseOps.typeMetaName(self.dtype()) + " and bins for dimension 0 with dtype " + PointwiseOps.typeMetaName(bins.dtype()));
                }
                if (bins.dim() != 1) {
                    throw new IllegalArgumentException("torch.histogramdd: bins tensor should have one dimension, but got " + bins.dim()
                            + " dimensions in the bins tensor for dimension 0");
                }
                if (bins.numel() == 0) {
                    throw new IllegalArgumentException("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins tensor for dimension 0");
                }
                if (bins.numel() < 2) throw new IllegalArgumentException("torch.histogram(): bins must be > 0, but got " + (bins.numel() - 1) + " for dimension 0");
                return results(self.dtype(), bins.numel());
            })
            .kernel((a, m) -> {
                Tensor edges = a.tensor(1).contiguous().clone();
                return List.of(histogram(a.tensor(0), edges, a.optTensor(2), a.bool(3)), edges);
            })
            .register();

    public static final OpOverload HISTOGRAM_BIN_CT = OpOverload.define(
                    "histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                checkInput(self, a.optTensor(3));
                int bins = a.integer(1);
                if (bins <= 0) throw new IllegalArgumentException("torch.histogram(): bins must be > 0, but got " + bins + " for dimension 0");
                double[] range = doubles(a.get(2));
                if (range != null && range.length != 2) {
                    throw new IllegalArgumentException("torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got " + range.length);
                }
                return results(self.dtype(), bins + 1);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                double[] range = doubles(a.get(2)), outer = outerEdges(self, range);
                Tensor edges = CreationOps.LINSPACE.callTensor(outer[0], outer[1], (long) a.integer(1) + 1, self.dtype());
                return List.of(histogram(self, edges, a.optTensor(3), a.bool(4)), edges);
            })
            .register();

    private static void checkInput(Tensor self, Tensor weight) {
        if (!self.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("\"histogramdd\" not implemented for '" + self.dtype().scalarTypeName() + "'");
        }
        if (weight != null && !Arrays.equals(weight.shape(), self.shape()) && weight.numel() != self.numel()) {
            throw new IllegalArgumentException("torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got input with shape "
                    + Shapes.format(new int[] {self.numel(), 1}) + " and weight with shape " + Shapes.format(weight.shape()));
        }
        if (weight != null && weight.dtype() != self.dtype()) {
            throw new IllegalArgumentException("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got input("
                    + PointwiseOps.typeMetaName(self.dtype()) + "), and weight(" + PointwiseOps.typeMetaName(weight.dtype()) + ")");
        }
    }

    private static List<TensorMeta> results(DType dtype, int edges) {
        return List.of(TensorMeta.contiguous(dtype, edges - 1), TensorMeta.contiguous(dtype, edges));
    }

    /** The range's two ends, or the data's extremes (widened by 0.5 each way when equal), or [0, 1] for no data; ATen's checks. */
    private static double[] outerEdges(Tensor self, double[] range) {
        double lo = 0, hi = 1;
        if (range != null) {
            lo = range[0];
            hi = range[1];
        } else if (self.numel() > 0) {
            lo = Double.POSITIVE_INFINITY;
            hi = Double.NEGATIVE_INFINITY;
            for (double x : self.contiguous().toDoubleArray()) {
                if (Double.isNaN(x)) {
                    lo = hi = Double.NaN;
                    break;
                }
                lo = Math.min(lo, x);
                hi = Math.max(hi, x);
            }
        }
        if (!Double.isFinite(lo) || !Double.isFinite(hi)) {
            throw new IllegalArgumentException("torch.histogramdd: dimension 0's range [" + cNumber(lo) + ", " + cNumber(hi) + "] is not finite");
        }
        if (lo > hi) {
            throw new IllegalArgumentException("torch.histogramdd: min should not exceed max, but got min " + cNumber(lo) + " max " + cNumber(hi) + " for dimension 0");
        }
        return lo == hi ? new double[] {lo - 0.5, hi + 0.5} : new double[] {lo, hi};
    }

    /** ATen's histogramdd kernel in one dimension: sums in self's dtype, then density's divisions. */
    private static Tensor histogram(Tensor self, Tensor edges, Tensor weight, boolean density) {
        double[] e = edges.toDoubleArray(), x = self.contiguous().toDoubleArray();
        double[] w = weight == null ? null : weight.contiguous().toDoubleArray();
        boolean single = self.dtype() == DType.FLOAT32;
        int bins = e.length - 1;
        double[] hist = new double[Math.max(bins, 0)];
        for (int i = 0; i < x.length && bins > 0; i++) {
            double v = x[i];
            if (!(v >= e[0] && v <= e[bins])) continue;
            int pos = upperBound(e, v) - 1;
            if (pos == bins) pos--;
            hist[pos] = single ? (float) (hist[pos] + (w == null ? 1 : w[i])) : hist[pos] + (w == null ? 1 : w[i]);
        }
        Tensor out = Tensor.of(hist, hist.length).to(self.dtype());
        if (!density) return out;
        Tensor widths = edges.narrow(0, 1, bins).sub(edges.narrow(0, 0, bins));
        return out.div(out.sum()).div(widths);
    }

    /** The first index whose edge exceeds {@code v} (std::upper_bound). */
    private static int upperBound(double[] e, double v) {
        int lo = 0, hi = e.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (e[mid] <= v) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private static double[] doubles(Object range) {
        return switch (range) {
            case null -> null;
            case double[] d -> d;
            case List<?> l -> l.stream().mapToDouble(v -> ((Number) v).doubleValue()).toArray();
            default -> throw new IllegalArgumentException("torch.histogram: range must be a list of floats, got " + range);
        };
    }


    /** A double as C++'s stream prints it in ATen's messages. */
    private static String cNumber(double x) {
        if (Double.isNaN(x)) return "nan";
        if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
        return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
    }
}
