package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.Collection;
import java.util.List;

/**
 * A map or a set whose keys are known while tracing (strings, numbers, enums, booleans): made during
 * the trace (HashMap, LinkedHashMap, TreeMap, Map.of; HashSet, LinkedHashSet, TreeSet, Set.of) or
 * from the frame's inputs. A class, not a record: two stack slots holding the same container must
 * see the same changes.
 * <p>
 * The keys are held in the program's iteration order. For a container made in the trace they are
 * in a real container of the same class, built by the same constructor and the same structural
 * changes, so the order is exactly eager's. For an input they are a copy in the input's order;
 * once the trace inserts a key into an input HashMap or HashSet, where the key lands depends on the
 * real table's size, so iterating it is refused ({@link #orderKnown()}).
 */
public abstract sealed class KeyedVariable implements VariableTracker permits MapVariable, SetVariable {
    private final Class<?> type;
    private Construction construction = Construction.DEFAULT;
    private final boolean mutable;
    private final Source source;
    private final Changes changes;
    /** For a view of a sorted container (headMap, tailSet, …): the container it shows, and how it was asked for; else null. */
    private final SortedView view;

    /**
     * How a view of a sorted container was made: {@code method} ({@code headMap}, {@code subSet},
     * {@code descendingMap}, …) called on {@code base} with {@code args}; the view shares its base's
     * changes, so an iterator over either fails fast on a change through the other, and a change
     * through the view is replayed on the base.
     */
    public record SortedView(KeyedVariable base, String method, List<VariableTracker> args) {}
    /** A TreeMap's or TreeSet's comparator as the program made it ({@code new TreeMap<>(comparator)}), or null for natural order. */
    private VariableTracker comparator;

    KeyedVariable(Class<?> type, boolean mutable, Source source) {
        this.type = type;
        this.mutable = mutable;
        this.source = source;
        this.changes = new Changes();
        this.view = null;
    }

    /** A view of {@code view.base()}, of class {@code type}. */
    KeyedVariable(Class<?> type, SortedView view) {
        this.type = type;
        this.mutable = view.base().isMutable();
        this.source = null;
        this.changes = view.base().changes();
        this.view = view;
        this.comparator = view.base().comparator();
    }

    /** How this view of a sorted container was made, or null for a container. */
    public SortedView sortedView() { return view; }

    /** The container this is, or that this view (of a view) shows. */
    public KeyedVariable root() { return view == null ? this : view.base().root(); }

    /** The class the program sees. */
    public Class<?> type() { return type; }

    /** The keys (a map's key set, a set itself), in iteration order. */
    public abstract Collection<Object> keys();

    public Construction construction() { return construction; }

    void construction(Construction how) { this.construction = how; }

    public boolean isMutable() { return mutable; }

    /** The comparator a sorted container made in the trace orders its keys by, or null for natural order. */
    public VariableTracker comparator() { return comparator; }

    public void comparator(VariableTracker comparator) { this.comparator = comparator; }

    public Changes changes() { return changes; }

    /**
     * Whether the trace knows the iteration order: not for a container made in the trace and
     * ordered by hash codes (HashMap, HashSet, Map.of, Set.of) holding an {@link IdentityKey},
     * whose hash code is the real object's; nor for an input HashMap or HashSet the trace inserted
     * keys into (an input's own keys are in the order the caller's container gave, guarded). A
     * container of at most one key has one order.
     */
    public boolean orderKnown() {
        // no key or one key: one order, whatever the hash codes (Set.of(t), a map of one tensor key)
        if (keys().size() <= 1) return true;
        // a TreeMap or TreeSet sorted by the program's comparator: its order is the comparator's, whatever the keys' hash codes
        if (comparator != null) return true;
        // an IdentityHashMap orders its keys by identity hash codes, enum constants' too
        if (type == java.util.IdentityHashMap.class) return false;
        boolean linked = java.util.LinkedHashMap.class.isAssignableFrom(type) || java.util.LinkedHashSet.class.isAssignableFrom(type);
        // an input's keys are in the caller's container's order (guarded), until the trace inserts one
        if (hasKeysOfUnknownHash() && !linked && (source == null || changes.inserted())) return false;
        return source == null || (type != java.util.HashMap.class && type != java.util.HashSet.class) || !changes.inserted();
    }

    /** Whether a key is an {@link IdentityKey}. */
    public boolean hasIdentityKeys() { return keys().stream().anyMatch(IdentityKey.class::isInstance); }

    /** Whether a key's hash code is not the program's object's: an identity key, or a record key holding one (see {@link IdentityKey#hashKnown()}). */
    public boolean hasKeysOfUnknownHash() { return keys().stream().anyMatch(k -> k instanceof IdentityKey ik && !ik.hashKnown()); }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() { return type.getSimpleName() + " of " + keys().size(); }
}
