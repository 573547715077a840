package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.dynamo.variables.SetVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/** java.util.List and Iterator methods on tracked lists; mutations are allowed only on lists made during the trace. Maps and sets: {@link KeyedContainers}. */
final class Containers {
    private Containers() {}

    static List<VariableTracker> itemsOf(TraceContext ctx, VariableTracker v) {
        if (v instanceof ArrayVariable a) return a.items();
        if (v instanceof ListVariable l) return l.items();
        if (v instanceof SetVariable || v instanceof MapViewVariable) return KeyedContainers.elements(ctx, v);
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected a list, an array or a set, got " + v.describe());
    }

    static VariableTracker listMethod(TraceContext ctx, ListVariable l, String name, List<VariableTracker> args) {
        if (!l.isRead() && (name.equals("add") && args.size() == 1 || name.equals("addAll") && args.size() == 1)) {
            // appending reads nothing of the list: recorded, replayed on the caller's list, no guard on its contents
            mutable(ctx, l, name);
            List<VariableTracker> more = name.equals("add") ? List.of(args.getFirst()) : List.copyOf(itemsOf(ctx, args.getFirst()));
            more.forEach(l::append);
            return ConstantVariable.of(name.equals("add") || !more.isEmpty() ? 1 : 0);
        }
        if (l.isViewOfAnother() && ctx.sideEffects.changedContainers()) throw changedUnderAView(ctx, l, "List." + name + "()");
        // reads of the size or of one element wrap only what they read (an input list's other elements stay unguarded)
        switch (name) {
            case "size" -> { return ConstantVariable.of(l.size()); }
            case "isEmpty" -> { return ConstantVariable.of(l.size() == 0 ? 1 : 0); }
            case "get" -> { return l.get(index(ctx, args.getFirst(), l.size())); }
            case "getFirst" -> { return l.get(index(ctx, ConstantVariable.of(0), l.size())); }
            case "getLast" -> { return l.get(index(ctx, ConstantVariable.of(l.size() - 1), l.size())); }
            default -> { }
        }
        List<VariableTracker> items = l.items();
        return switch (name) {
            case "iterator", "listIterator" -> new IteratorVariable(l);
            case "stream" -> StreamCalls.streamOf(l);
            case "add" -> {
                mutable(ctx, l, name);
                if (args.size() == 1) {
                    items.add(args.getFirst());
                    yield ConstantVariable.of(1);
                }
                int at = intArg(ctx, args.getFirst());
                if (at < 0 || at > items.size()) throw outOfBounds(ctx, at, items.size());
                items.add(at, args.get(1));
                yield null;
            }
            case "addAll" -> {
                mutable(ctx, l, name);
                List<VariableTracker> more = itemsOf(ctx, args.getLast());
                items.addAll(List.copyOf(more));
                yield ConstantVariable.of(more.isEmpty() ? 0 : 1);
            }
            case "set" -> {
                mutable(ctx, l, name);
                int at = index(ctx, args.getFirst(), items.size());
                yield items.set(at, args.get(1));
            }
            case "remove" -> {
                mutable(ctx, l, name);
                if (!(args.getFirst() instanceof ConstantVariable c && c.value() instanceof Integer)) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "List.remove(Object) on a tracked list");
                }
                yield items.remove(index(ctx, args.getFirst(), items.size()));
            }
            case "removeFirst", "removeLast" -> {
                mutable(ctx, l, name);
                if (items.isEmpty()) throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws NoSuchElementException: List." + name + "() on an empty list");
                yield items.remove(name.equals("removeFirst") ? 0 : items.size() - 1);
            }
            case "clear" -> {
                mutable(ctx, l, name);
                items.clear();
                yield null;
            }
            case "sort" -> {
                mutable(ctx, l, name);
                List<VariableTracker> sorted = sorted(ctx, items, args.getFirst(), "List.sort()");
                for (int i = 0; i < sorted.size(); i++) items.set(i, sorted.get(i));
                yield null;
            }
            case "toArray" -> new ArrayVariable(!args.isEmpty() && args.getFirst() instanceof ArrayVariable a ? a.componentType() : Object.class, items, null);
            case "contains" -> ConstantVariable.of(indexOf(items, args.getFirst()) >= 0 ? 1 : 0);
            case "indexOf" -> ConstantVariable.of(indexOf(items, args.getFirst()));
            case "reversed" -> {
                viewOfImmutable(ctx, l, name);
                yield new ListVariable(items.reversed(), false, null);
            }
            case "subList" -> {
                viewOfImmutable(ctx, l, name);
                int from = intArg(ctx, args.get(0)), to = intArg(ctx, args.get(1));
                if (from < 0 || to > items.size() || from > to) throw outOfBounds(ctx, from, items.size());
                yield new ListVariable(items.subList(from, to), false, null);
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "List." + name + "() on a tracked list");
        };
    }

    /** The comparators the trace sorts by: natural order (also a null comparator) and its reverse (Comparator's and Collections'). */
    static final List<Comparator<?>> KNOWN_COMPARATORS = List.of(Comparator.naturalOrder(), Collections.reverseOrder());

    /**
     * {@code items} sorted by {@code comparator} (a null constant is natural order), stably as
     * Java's sorts are: items are values known while tracing (numbers, strings, enums) and the
     * comparator one of {@link #KNOWN_COMPARATORS}; anything else breaks the graph, and
     * incomparable values throw ClassCastException as Java's sort does.
     */
    @SuppressWarnings("unchecked")
    static List<VariableTracker> sorted(TraceContext ctx, List<VariableTracker> items, VariableTracker comparator, String what) {
        Object known = comparator instanceof ConstantVariable c ? (c.value() == null ? Comparator.naturalOrder() : c.value()) : null;
        if (known == null || !KNOWN_COMPARATORS.contains(known)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " by " + comparator.describe() + " (natural and reverse order are traced)");
        Comparator<Object> order = (Comparator<Object>) known;
        for (VariableTracker v : items) {
            if (!(v instanceof ConstantVariable c && c.value() != null)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " of " + v.describe() + ": the trace sorts values known while tracing "
                        + "(numbers, strings, enums)");
            }
        }
        List<VariableTracker> out = new ArrayList<>(items);
        try {
            out.sort((a, b) -> order.compare(((ConstantVariable) a).value(), ((ConstantVariable) b).value()));
        } catch (ClassCastException e) {
            throw Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e + " from " + what);
        }
        return out;
    }

    /** List.indexOf on constants (by equals) and on other tracked values (by identity). */
    private static int indexOf(List<VariableTracker> items, VariableTracker needle) {
        for (int i = 0; i < items.size(); i++) {
            VariableTracker v = items.get(i);
            if (v == needle) return i;
            if (v instanceof ConstantVariable a && needle instanceof ConstantVariable b && java.util.Objects.equals(a.value(), b.value())) return i;
        }
        return -1;
    }

    static VariableTracker iteratorMethod(TraceContext ctx, IteratorVariable it, String name) {
        return switch (name) {
            case "hasNext" -> ConstantVariable.of(it.hasNext() ? 1 : 0);
            case "next" -> {
                if (it.containerChanged()) throw KeyedContainers.concurrentModification(ctx, "Iterator.next()");
                if (it.unchangedIterable() instanceof ListVariable l && l.isViewOfAnother() && ctx.sideEffects.changedContainers()) {
                    throw changedUnderAView(ctx, l, "Iterator.next()");
                }
                if (!it.hasNext()) throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws NoSuchElementException");
                yield it.next();
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Iterator." + name + "()");
        };
    }

    /**
     * subList and reversed return views: a write through one changes the list, and a change of the
     * list shows through it. The trace models them as copies, which is exact only for a list that
     * never changes; of a list that can (an ArrayList, LinkedList or Arrays.asList, made in the
     * frame or passed in) the call breaks the graph and runs as Java runs it (PyTorch corpus
     * {@code functions.list_slice_assignment}: {@code m.subList(1, m.size()).clear()} was refused
     * as a change of an immutable list).
     */
    private static void viewOfImmutable(TraceContext ctx, ListVariable l, String method) {
        if (l.isMutable() || l.isFixedSize()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "List." + method + "() of a list that can change: the result is a view that writes "
                    + "through to the list and sees its changes, which the trace does not model; it runs outside the graph");
        }
    }

    /** A read of an input list that views another container, after the trace changed one: the change may show through it. */
    private static Unsupported changedUnderAView(TraceContext ctx, ListVariable l, String what) {
        return ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on " + (l.source() == null ? "a list" : l.source().name())
                + ", a view of another container (a subList, an unmodifiable wrapper, Arrays.asList: " + l.inputClassName() + "), after a list or array changed in this "
                + "frame: the change may show through the view, so the read runs outside the graph");
    }

    private static void mutable(TraceContext ctx, ListVariable l, String method) {
        if (l.isFixedSize()) {
            // Arrays.asList: set writes through to the array; a change of size throws, as Java's does
            if (!method.equals("set") && !method.equals("sort")) {
                throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws UnsupportedOperationException: List." + method
                        + "() on a fixed-size Arrays.asList list");
            }
            if (l.backing().source() != null) ctx.sideEffects.mutated(l.backing());
            return;
        }
        if (l.isMutable()) {
            if (l.source() != null) ctx.sideEffects.mutated(l);
            if (!method.equals("set") && !method.equals("sort")) l.changedStructure();
            return;
        }
        if (l.source() != null) {
            throw ctx.unsupported(GraphBreakType.SIDE_EFFECT, "List." + method + "() on " + l.source().name() + ", a list the caller passed in whose class ("
                    + "not ArrayList or LinkedList) cannot be replayed");
        }
        throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws UnsupportedOperationException: List." + method + "() on an immutable list");
    }

    private static int intArg(TraceContext ctx, VariableTracker v) {
        if (v instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected an int index, got " + v.describe());
    }

    private static int index(TraceContext ctx, VariableTracker v, int size) {
        int i = intArg(ctx, v);
        if (i < 0 || i >= size) throw outOfBounds(ctx, i, size);
        return i;
    }

    private static Unsupported outOfBounds(TraceContext ctx, int i, int size) {
        return ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws IndexOutOfBoundsException: index " + i + " out of bounds for length " + size);
    }
}
