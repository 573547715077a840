package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * A {@code java.util.stream} pipeline made during the trace over known items (a tracked list, set
 * or array, {@code Stream.of}, {@code IntStream.range}), or an {@code Optional} a terminal operation
 * gave. Intermediate operations are recorded as {@link Step}s and run when a terminal operation
 * pulls the items, element by element through every step as Java's sequential streams do, so the
 * lambdas see the items in Java's order and are traced like any call. A stream may be operated on
 * once, as in Java.
 */
public final class PipelineVariable implements VariableTracker {

    /** What the variable is: a stream of objects or of a primitive, or an optional. */
    public enum Kind {
        STREAM(Stream.class), INT_STREAM(IntStream.class), LONG_STREAM(LongStream.class), DOUBLE_STREAM(DoubleStream.class),
        OPTIONAL(Optional.class), OPTIONAL_INT(OptionalInt.class), OPTIONAL_LONG(OptionalLong.class), OPTIONAL_DOUBLE(OptionalDouble.class);

        private final Class<?> type;

        Kind(Class<?> type) { this.type = type; }

        public Class<?> type() { return type; }

        public boolean isOptional() { return ordinal() >= OPTIONAL.ordinal(); }
    }

    /** One intermediate operation: its name ({@code map}, {@code filter}, …), its function (or null) and its count (limit, skip). */
    public record Step(String op, VariableTracker function, long count, Kind from) {}

    private final Kind kind;
    /** Where the items come from: a tracked list, set or array (read when the terminal operation runs), or null with {@link #items}. */
    private final VariableTracker container;
    private final List<VariableTracker> items;
    private final List<Step> steps;
    /** Whether the source knows its size before it is traversed (Java's SIZED: a collection, an array, Stream.of, a range), so count() may skip the steps. */
    private final boolean sizedSource;
    /** A supplier each item is asked of, one call per item pulled ({@code Stream.generate}), or null. */
    private final VariableTracker generator;
    /** The first item of {@code Stream.iterate(seed, f)}, whose {@link #generator} is then {@code f}, applied to the item before; null otherwise. */
    private final VariableTracker seed;
    private boolean used;

    private PipelineVariable(Kind kind, VariableTracker container, List<VariableTracker> items, List<Step> steps, boolean sizedSource, VariableTracker generator) {
        this(kind, container, items, steps, sizedSource, generator, null);
    }

    private PipelineVariable(Kind kind, VariableTracker container, List<VariableTracker> items, List<Step> steps, boolean sizedSource, VariableTracker generator,
                             VariableTracker seed) {
        this.kind = kind;
        this.container = container;
        this.items = items;
        this.steps = steps;
        this.sizedSource = sizedSource;
        this.generator = generator;
        this.seed = seed;
    }

    /** The endless {@code Stream.iterate(seed, next)}: seed, next(seed), next(next(seed)), … each made as it is pulled. */
    public static PipelineVariable iterated(VariableTracker seed, VariableTracker next, Kind kind) {
        return new PipelineVariable(kind, null, null, List.of(), false, next, seed);
    }

    /** The seed of {@link #iterated}, or null for any other stream. */
    public VariableTracker seed() { return seed; }

    /** A stream over a tracked container's items. */
    public static PipelineVariable over(VariableTracker container, Kind kind) { return new PipelineVariable(kind, container, null, List.of(), true, null); }

    /** A stream over these items. */
    public static PipelineVariable of(List<VariableTracker> items, Kind kind) { return new PipelineVariable(kind, null, List.copyOf(items), List.of(), true, null); }

    /** A stream over these items, whose size Java's stream does not know before it runs ({@code Stream.iterate}). */
    public static PipelineVariable unsized(List<VariableTracker> items, Kind kind) { return new PipelineVariable(kind, null, List.copyOf(items), List.of(), false, null); }

    /** An endless stream of what {@code supplier} gives, called as each item is pulled ({@code Stream.generate}). */
    public static PipelineVariable generated(VariableTracker supplier, Kind kind) { return new PipelineVariable(kind, null, null, List.of(), false, supplier); }

    /** An optional holding {@code value}, or empty when it is null. */
    public static PipelineVariable optional(VariableTracker value, Kind kind) {
        return new PipelineVariable(kind, null, value == null ? List.of() : List.of(value), List.of(), true, null);
    }

    /** This pipeline with one more step, whose output is of {@code to}; this one is used up. */
    public PipelineVariable then(Step step, Kind to) {
        used = true;
        List<Step> more = new ArrayList<>(steps);
        more.add(step);
        return new PipelineVariable(to, container, items, List.copyOf(more), sizedSource, generator, seed);
    }

    public Kind kind() { return kind; }

    public VariableTracker container() { return container; }

    /** The items given when made, or null when they are read from {@link #container()}. */
    public List<VariableTracker> items() { return items; }

    public List<Step> steps() { return steps; }

    /** Whether the source knows its size before it runs (see {@link #sizedSource}). */
    public boolean sizedSource() { return sizedSource; }

    /** The supplier of an endless generated stream, or null. */
    public VariableTracker generator() { return generator; }

    /** Whether an operation already ran on this stream (a second one throws IllegalStateException, as in Java). */
    public boolean isUsed() { return used; }

    public void markUsed() { used = true; }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() {
        if (kind.isOptional()) return kind.type().getSimpleName() + (items.isEmpty() ? ".empty" : " of " + items.getFirst().describe());
        return kind.type().getSimpleName() + " pipeline" + (steps.isEmpty() ? "" : " (" + steps.stream().map(Step::op).toList() + ")");
    }
}
