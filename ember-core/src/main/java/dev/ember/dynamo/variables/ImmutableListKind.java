package dev.ember.dynamo.variables;

import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * The JDK's immutable lists, by how they were made: List.of (also List.copyOf and
 * toUnmodifiableList), Stream.toList (which allows nulls), a subList or reversed() of either, nCopies,
 * emptyList, singletonList. What such a list does (the exception and message an index out of range
 * gets, whether {@code contains(null)} throws) depends only on how it was made and on its
 * elements, so the trace asks a stand-in made the same way what the program's list would do, and
 * a list handed on past a graph break is made again as eager's was.
 */
public enum ImmutableListKind {
    LIST_OF {
        public List<Object> make(Object[] e) { return noNulls(e) ? List.of(e) : null; }
    },
    STREAM_TO_LIST {
        public List<Object> make(Object[] e) { return Stream.of(e).toList(); }
    },
    SUB_LIST_OF_LIST_OF {
        public List<Object> make(Object[] e) { return noNulls(e) ? List.of(e).subList(0, e.length) : null; }
    },
    SUB_LIST_OF_STREAM_TO_LIST {
        public List<Object> make(Object[] e) { return Stream.of(e).toList().subList(0, e.length); }
    },
    REVERSED_OF_LIST_OF {
        public List<Object> make(Object[] e) { return noNulls(e) ? List.of(backwards(e)).reversed() : null; }
    },
    REVERSED_OF_STREAM_TO_LIST {
        public List<Object> make(Object[] e) { return Stream.of(backwards(e)).toList().reversed(); }
    },
    N_COPIES {
        public List<Object> make(Object[] e) { return allSame(e) ? Collections.nCopies(e.length, e.length == 0 ? null : e[0]) : null; }
    },
    EMPTY_LIST {
        public List<Object> make(Object[] e) { return e.length == 0 ? Collections.emptyList() : null; }
    },
    SINGLETON_LIST {
        public List<Object> make(Object[] e) { return e.length == 1 ? Collections.singletonList(e[0]) : null; }
    };

    /** A list made this way holding {@code e} in order, or null when this way cannot hold them (List.of refuses nulls, …). */
    public abstract List<Object> make(Object[] e);

    /** A list made this way of length {@code n} whose elements are placeholders, for asking what a call on it throws; null when this way makes none of that length. */
    public List<Object> standIn(int n) { return make(Collections.nCopies(n, (Object) "").toArray()); }

    /** How a subList of a list made this way was made, or null when it is no list of these. */
    public ImmutableListKind subList() {
        return switch (this) {
            case LIST_OF, SUB_LIST_OF_LIST_OF -> SUB_LIST_OF_LIST_OF;
            case STREAM_TO_LIST, SUB_LIST_OF_STREAM_TO_LIST -> SUB_LIST_OF_STREAM_TO_LIST;
            default -> null;
        };
    }

    /** How reversed() of a list made this way was made, or null when it is no list of these. */
    public ImmutableListKind reversed() {
        return switch (this) {
            case LIST_OF -> REVERSED_OF_LIST_OF;
            case STREAM_TO_LIST -> REVERSED_OF_STREAM_TO_LIST;
            case REVERSED_OF_LIST_OF -> LIST_OF;
            case REVERSED_OF_STREAM_TO_LIST -> STREAM_TO_LIST;
            default -> null;
        };
    }

    /**
     * A way that makes lists of {@code l}'s class (an input's: for these classes the class alone
     * decides what an index out of range throws; List.of's and toList's ListN differ only in
     * whether a query for null throws), or null when none does.
     */
    public static ImmutableListKind ofClass(Class<?> c, int size) {
        for (ImmutableListKind kind : values()) {
            List<Object> standIn = kind.standIn(size);
            if (standIn != null && standIn.getClass() == c) return kind;
        }
        return null;
    }

    private static boolean noNulls(Object[] e) {
        for (Object o : e) if (o == null) return false;
        return true;
    }

    private static Object[] backwards(Object[] e) {
        Object[] r = new Object[e.length];
        for (int i = 0; i < e.length; i++) r[i] = e[e.length - 1 - i];
        return r;
    }

    private static boolean allSame(Object[] e) {
        for (Object o : e) if (o != e[0]) return false;
        return true;
    }
}
