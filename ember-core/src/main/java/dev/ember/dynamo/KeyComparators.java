package dev.ember.dynamo;

import java.util.Comparator;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The trace's stand-ins for {@code Comparator.comparingInt/Long/Double(key)} and
 * {@code Comparator.comparing(key)}: the same comparisons as the JDK's, written here so the trace
 * inlines them as it does a program's own code (the JDK's lambdas are made inside the JDK, where
 * the trace does not follow). The comparator made is this class's lambda, so it can be made again
 * after a graph.
 */
final class KeyComparators {
    private KeyComparators() {}

    static <T> Comparator<T> comparingInt(ToIntFunction<? super T> key) {
        Objects.requireNonNull(key);
        return (a, b) -> Integer.compare(key.applyAsInt(a), key.applyAsInt(b));
    }

    static <T> Comparator<T> comparingLong(ToLongFunction<? super T> key) {
        Objects.requireNonNull(key);
        return (a, b) -> Long.compare(key.applyAsLong(a), key.applyAsLong(b));
    }

    static <T> Comparator<T> comparingDouble(ToDoubleFunction<? super T> key) {
        Objects.requireNonNull(key);
        return (a, b) -> Double.compare(key.applyAsDouble(a), key.applyAsDouble(b));
    }

    static <T, U extends Comparable<? super U>> Comparator<T> comparing(Function<? super T, ? extends U> key) {
        Objects.requireNonNull(key);
        return (a, b) -> key.apply(a).compareTo(key.apply(b));
    }

    // Comparator's default methods on a comparator the trace made, as the JDK writes them (first is the comparator they are called on)

    static <T> Comparator<T> thenComparing(Comparator<T> first, Comparator<? super T> other) {
        Objects.requireNonNull(other);
        return (a, b) -> {
            int res = first.compare(a, b);
            return res != 0 ? res : other.compare(a, b);
        };
    }

    static <T, U extends Comparable<? super U>> Comparator<T> thenComparing(Comparator<T> first, Function<? super T, ? extends U> key) {
        return thenComparing(first, comparing(key));
    }

    static <T> Comparator<T> thenComparingInt(Comparator<T> first, ToIntFunction<? super T> key) { return thenComparing(first, comparingInt(key)); }

    static <T> Comparator<T> thenComparingLong(Comparator<T> first, ToLongFunction<? super T> key) { return thenComparing(first, comparingLong(key)); }

    static <T> Comparator<T> thenComparingDouble(Comparator<T> first, ToDoubleFunction<? super T> key) { return thenComparing(first, comparingDouble(key)); }

    /** Collections.reverseOrder(first): the arguments swapped. */
    static <T> Comparator<T> reversed(Comparator<T> first) { return (a, b) -> first.compare(b, a); }
}
