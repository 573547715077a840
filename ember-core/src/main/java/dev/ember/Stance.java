package dev.ember;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How compiled functions behave when called: PyTorch's {@code torch.compiler.set_stance}. Set it for
 * the whole process with {@link Ember#setStance(Stance)}, or for a block with
 * {@code try (var s = Ember.stance(Stance.FORCE_EAGER)) { … }}; it is read at each call of a
 * compiled function. See docs/stances.md.
 */
public enum Stance {
    /** Compile on a cache miss, recompile when guards fail (up to the recompile limit). */
    DEFAULT,
    /** Run every compiled function eagerly: nothing is traced, the caches are neither read nor changed. */
    FORCE_EAGER,
    /** Use a cache entry whose guards pass; where a recompile would be needed, run eagerly instead. A first compile still happens. */
    EAGER_ON_RECOMPILE,
    /** Use a cache entry whose guards pass; where a recompile would be needed, throw {@code RecompileError} naming the guard that failed. */
    FAIL_ON_RECOMPILE,
    /**
     * Run the first call of each compiled method eagerly, and compile from the second: the sizes and
     * ints that differ between the two calls are dynamic from that first compile on.
     */
    EAGER_THEN_COMPILE;

    /** PyTorch's name for it: {@code force_eager}. */
    public String torchName() { return name().toLowerCase(Locale.ROOT); }

    /**
     * The stance PyTorch names {@code name} ({@code "force_eager"}; the enum's own name is accepted too).
     *
     * @throws IllegalArgumentException for any other name, listing the valid ones
     */
    public static Stance parse(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        for (Stance s : values()) if (s.torchName().equals(n)) return s;
        throw new IllegalArgumentException("unknown stance '" + name + "'; valid stances: "
                + Arrays.stream(values()).map(Stance::torchName).collect(Collectors.joining(", ")));
    }
}
