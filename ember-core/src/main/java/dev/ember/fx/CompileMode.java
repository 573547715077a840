package dev.ember.fx;

import java.util.Arrays;
import java.util.List;

/**
 * How a backend compiles, as the user chose with {@code Options.mode}: parsed once from its name
 * there (or from a minifier launcher's file) and passed on typed. Only the inductor has modes; the
 * other backends compile in {@link #DEFAULT} and refuse the others ({@link Backend}).
 */
public enum CompileMode {
    /** The generated code as it is. */
    DEFAULT("default"),
    /** Also times code variants and keeps the fastest. */
    MAX_AUTOTUNE("max-autotune"),
    /**
     * A compiled graph writes its outputs into the same arrays every call, so a warm call
     * allocates nothing; the previous call's outputs are overwritten (reading one throws).
     */
    REDUCE_OVERHEAD("reduce-overhead");

    private final String text;

    CompileMode(String text) { this.text = text; }

    /** The name {@code Options.mode} takes: {@code "max-autotune"}. */
    public String text() { return text; }

    /**
     * The mode named {@code text}.
     *
     * @throws IllegalArgumentException naming the modes when there is no such mode
     */
    public static CompileMode parse(String text) {
        for (CompileMode m : values()) if (m.text.equals(text)) return m;
        throw new IllegalArgumentException("unknown mode '" + text + "'; Ember supports " + quoted("and"));
    }

    /** {@code "default", "max-autotune" or "reduce-overhead"}. */
    public static String names() { return quoted("or"); }

    private static String quoted(String conjunction) {
        List<String> quoted = Arrays.stream(values()).map(m -> '"' + m.text + '"').toList();
        return String.join(", ", quoted.subList(0, quoted.size() - 1)) + " " + conjunction + " " + quoted.getLast();
    }

    @Override
    public String toString() { return text; }
}
