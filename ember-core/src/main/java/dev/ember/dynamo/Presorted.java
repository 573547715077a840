package dev.ember.dynamo;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Keys already in a comparator's order, offered to TreeMap.putAll and TreeSet.addAll as a sorted
 * container with that comparator: the JDK then builds its tree from the order given, without
 * comparing (so a sorted container made again after a graph does not run the program's comparator
 * once more). Only what those two read is implemented.
 */
final class Presorted {
    private Presorted() {}

    /** The entries of {@code inOrder}, in its order, sorted by {@code comparator}. */
    static final class OfMap extends AbstractMap<Object, Object> implements SortedMap<Object, Object> {
        private final Comparator<Object> comparator;
        private final SequencedMap<Object, Object> inOrder;

        OfMap(Comparator<Object> comparator, SequencedMap<Object, Object> inOrder) {
            this.comparator = comparator;
            this.inOrder = inOrder;
        }

        @Override public Comparator<Object> comparator() { return comparator; }
        @Override public Set<Map.Entry<Object, Object>> entrySet() { return inOrder.entrySet(); }
        @Override public int size() { return inOrder.size(); }
        @Override public Object firstKey() { return inOrder.firstEntry().getKey(); }
        @Override public Object lastKey() { return inOrder.lastEntry().getKey(); }
        @Override public SortedMap<Object, Object> subMap(Object from, Object to) { throw new UnsupportedOperationException(); }
        @Override public SortedMap<Object, Object> headMap(Object to) { throw new UnsupportedOperationException(); }
        @Override public SortedMap<Object, Object> tailMap(Object from) { throw new UnsupportedOperationException(); }
    }

    /** The elements of {@code inOrder}, in its order, sorted by {@code comparator}. */
    static final class OfSet extends AbstractSet<Object> implements SortedSet<Object> {
        private final Comparator<Object> comparator;
        private final List<Object> inOrder;

        OfSet(Comparator<Object> comparator, List<Object> inOrder) {
            this.comparator = comparator;
            this.inOrder = inOrder;
        }

        @Override public Comparator<Object> comparator() { return comparator; }
        @Override public Iterator<Object> iterator() { return inOrder.iterator(); }
        @Override public int size() { return inOrder.size(); }
        @Override public Object first() { return inOrder.getFirst(); }
        @Override public Object last() { return inOrder.getLast(); }
        @Override public SortedSet<Object> subSet(Object from, Object to) { throw new UnsupportedOperationException(); }
        @Override public SortedSet<Object> headSet(Object to) { throw new UnsupportedOperationException(); }
        @Override public SortedSet<Object> tailSet(Object from) { throw new UnsupportedOperationException(); }
    }
}
