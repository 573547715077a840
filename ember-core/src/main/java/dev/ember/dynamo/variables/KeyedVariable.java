package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.Collection;

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
    private final Changes changes = new Changes();

    KeyedVariable(Class<?> type, boolean mutable, Source source) {
        this.type = type;
        this.mutable = mutable;
        this.source = source;
    }

    /** The class the program sees. */
    public Class<?> type() { return type; }

    /** The keys (a map's key set, a set itself), in iteration order. */
    public abstract Collection<Object> keys();

    public Construction construction() { return construction; }

    void construction(Construction how) { this.construction = how; }

    public boolean isMutable() { return mutable; }

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
