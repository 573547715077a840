package dev.ember.export;

/**
 * The values a size symbol may take in an exported program, inclusive: torch.export's
 * {@code range_constraints} entry {@code s0: VR[2, 1024]}. Programs exported today have static
 * shapes only, so their map of these is empty.
 */
public record ValueRange(long min, long max) {
    public ValueRange {
        if (min > max) throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
    }

    public boolean contains(long v) { return v >= min && v <= max; }

    @Override
    public String toString() { return "VR[" + min + ", " + max + "]"; }
}
