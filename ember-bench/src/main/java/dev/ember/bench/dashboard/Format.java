package dev.ember.bench.dashboard;

import java.util.Locale;

/** Number formatting for the page: three significant figures, as docs/benchmarks.md writes times and ratios. */
final class Format {
    private Format() {}

    /** Three significant figures: {@code 168}, {@code 56.4}, {@code 8.95}, {@code 0.781}; integral digits are never cut. */
    static String millis(double v) {
        double a = Math.abs(v);
        if (a >= 100) return String.format(Locale.ROOT, "%.0f", v);
        if (a >= 10) return String.format(Locale.ROOT, "%.1f", v);
        if (a >= 1) return String.format(Locale.ROOT, "%.2f", v);
        if (a >= 0.1) return String.format(Locale.ROOT, "%.3f", v);
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /** A ratio as {@code 1.37x}. */
    static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2fx", r);
    }
}
