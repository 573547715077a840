package dev.ember.tensor;

/**
 * Formats tensors as PyTorch does: {@code tensor([[ 1.0000, -0.5000], [ 2.0000,  3.0000]])},
 * integers without a decimal point, {@code 1.} for whole floats, scientific notation for wide
 * ranges, and "..." summaries past 1000 elements (three items at each edge).
 */
final class TensorPrinter {
    private static final int THRESHOLD = 1000, EDGE = 3, LINE_WIDTH = 80;

    private TensorPrinter() {}

    static String format(Tensor t) {
        if (t.isFake()) return "FakeTensor(" + t.meta() + ")";
        String prefix = "tensor(";
        StringBuilder sb = new StringBuilder(prefix);
        boolean summarize = t.numel() > THRESHOLD;
        double[] values = t.toDoubleArray();
        long[] longs = t.dtype().isIntegral() ? t.toLongArray() : null;
        Fmt fmt = new Fmt(t.dtype(), values, longs);
        if (t.numel() == 0) sb.append("[]");
        else if (t.dim() == 0) sb.append(fmt.format(0));
        else appendDim(sb, t.shape(), 0, 0, fmt, summarize, prefix.length());
        if (t.numel() == 0 && t.dim() != 1) sb.append(", size=").append(Shapes.format(t.shape()).replace('[', '(').replace(']', ')'));
        boolean defaultType = t.dtype() == Defaults.dtype() || t.dtype() == DType.INT64 || t.dtype() == DType.BOOL;
        if (!defaultType) sb.append(", dtype=").append(t.dtype().torchName());
        if (t.requiresGrad()) sb.append(", requires_grad=True");
        return sb.append(')').toString();
    }

    private static void appendDim(StringBuilder sb, int[] shape, int d, int base, Fmt fmt, boolean summarize, int indent) {
        int n = shape[d];
        int inner = 1;
        for (int k = d + 1; k < shape.length; k++) inner *= shape[k];
        sb.append('[');
        boolean last = d == shape.length - 1;
        int lineStart = sb.length();
        for (int i = 0; i < n; i++) {
            if (summarize && n > 2 * EDGE && i == EDGE) {
                sb.append(last ? " ..., " : "...,\n" + " ".repeat(indent + d + 1) + (d < shape.length - 2 ? "\n" + " ".repeat(indent + d + 1) : ""));
                i = n - EDGE - 1;
                continue;
            }
            if (last) {
                String item = fmt.format(base + i);
                if (i > 0 && sb.length() - lineStart + item.length() + 2 > LINE_WIDTH - indent) {
                    sb.setLength(sb.length() - 1);   // the separator's space, as PyTorch ends wrapped lines with ","
                    sb.append('\n').append(" ".repeat(indent + d + 1));
                    lineStart = sb.length();
                }
                sb.append(item);
                if (i < n - 1) sb.append(", ");
            } else {
                appendDim(sb, shape, d + 1, base + i * inner, fmt, summarize, indent);
                if (i < n - 1) sb.append(",\n").append("\n".repeat(shape.length - d - 2)).append(" ".repeat(indent + d + 1));
            }
        }
        sb.append(']');
    }

    /** One width and style for every element, as PyTorch picks per tensor. */
    private static final class Fmt {
        private final DType dtype;
        private final double[] values;
        private final long[] longs;
        private final boolean wholeFloats, sci;
        private final int width;

        Fmt(DType dtype, double[] values, long[] longs) {
            this.dtype = dtype;
            this.values = values;
            this.longs = longs;
            double maxAbs = 0, minAbs = Double.MAX_VALUE;
            boolean whole = true;
            for (double v : values) {
                if (!Double.isFinite(v)) continue;
                double a = Math.abs(v);
                maxAbs = Math.max(maxAbs, a);
                if (a != 0) minAbs = Math.min(minAbs, a);
                if (v != Math.rint(v)) whole = false;
            }
            this.wholeFloats = whole;
            this.sci = dtype.isFloatingPoint() && !whole && (maxAbs > 1e8 || (minAbs != Double.MAX_VALUE && (maxAbs / minAbs > 1000 || minAbs < 1e-4)));
            int w = 0;
            for (int i = 0; i < values.length; i++) w = Math.max(w, raw(i).length());
            this.width = w;
        }

        private String raw(int i) {
            if (dtype == DType.BOOL) return values[i] != 0 ? "True" : "False";
            if (longs != null) return Long.toString(longs[i]);
            double v = values[i];
            if (Double.isNaN(v)) return "nan";
            if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
            if (sci) return String.format(java.util.Locale.ROOT, "%.4e", v);
            if (wholeFloats) return String.format(java.util.Locale.ROOT, "%.0f.", v);
            return String.format(java.util.Locale.ROOT, "%.4f", v);
        }

        String format(int i) {
            String s = raw(i);
            return " ".repeat(Math.max(0, width - s.length())) + s;
        }
    }
}
