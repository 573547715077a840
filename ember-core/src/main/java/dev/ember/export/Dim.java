package dev.ember.export;

/**
 * A dynamic dimension of an exported program's input, as torch.export's {@code Dim("batch", min=2,
 * max=1024)}: the program is traced with that dimension a symbol and runs for every size in
 * {@code [min, max]}. Giving two inputs' dimensions the same {@code Dim} says they are equal.
 */
public record Dim(String name, long min, long max) {
    public Dim {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a Dim needs a name (it appears in errors and range constraints)");
        if (min < 0 || max < min) throw new IllegalArgumentException("Dim '" + name + "': the range [" + min + ", " + max + "] is empty or negative");
    }

    /** Sizes 2 and up (0 and 1 broadcast, so they are never symbols by default). */
    public static Dim of(String name) { return new Dim(name, 2, Long.MAX_VALUE); }

    public static Dim of(String name, long min, long max) { return new Dim(name, min, max); }

    @Override
    public String toString() { return name + " in [" + min + ", " + (max == Long.MAX_VALUE ? "int_oo" : String.valueOf(max)) + "]"; }
}
