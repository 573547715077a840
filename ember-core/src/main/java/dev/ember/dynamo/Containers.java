package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.IdentityKey;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.dynamo.variables.SetVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/** java.util.List and Iterator methods on tracked lists; mutations are allowed only on lists made during the trace. Maps and sets: {@link KeyedContainers}. */
final class Containers {
    private Containers() {}

    static List<VariableTracker> itemsOf(TraceContext ctx, VariableTracker v) {
        if (v instanceof ArrayVariable a) return a.items();
        if (v instanceof ListVariable l) return liveItems(ctx, l, "reading");
        if (v instanceof SetVariable || v instanceof MapViewVariable || v instanceof dev.ember.dynamo.variables.ReadOnlyVariable u && !(u.of() instanceof dev.ember.dynamo.variables.MapVariable)) {
            return KeyedContainers.elements(ctx, v);
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected a list, an array or a set, got " + v.describe());
    }

    /** {@code l}'s items; a subList whose list changed under it throws ConcurrentModificationException, as Java's does at any use. */
    private static List<VariableTracker> liveItems(TraceContext ctx, ListVariable l, String what) {
        if (l.isStale()) throw KeyedContainers.concurrentModification(ctx, what + " " + l.describe());
        return l.items();
    }

    /**
     * Deque methods (an ArrayDeque's, a LinkedList's) are list operations at its ends, as
     * {@code collections.deque} is a list to Dynamo: the name of the list method each is, with its
     * arguments; null for a method that is not one of them.
     */
    private static String asListMethod(String name, int arity) {
        return switch (name) {
            case "addFirst", "offerFirst", "push" -> "addFirst";
            case "addLast", "offerLast", "offer" -> "add";
            case "pollFirst", "poll" -> "pollFirst";
            case "pop" -> "removeFirst";
            case "remove" -> arity == 0 ? "removeFirst" : null;
            case "element" -> "getFirst";
            case "peek" -> "peekFirst";
            default -> null;
        };
    }

    /** What a deque method that adds returns: offer* true, add* and push nothing, add true. */
    private static VariableTracker addResult(String name) {
        return name.startsWith("offer") || name.equals("add") ? ConstantVariable.of(1) : null;
    }

    private static final MethodTypeDesc ITERATOR = MethodTypeDesc.of(java.lang.constant.ClassDesc.of("java.util.Iterator"));
    private static final MethodTypeDesc HAS_NEXT = MethodTypeDesc.of(ConstantDescs.CD_boolean);
    private static final MethodTypeDesc NEXT = MethodTypeDesc.of(ConstantDescs.CD_Object);

    /**
     * The elements a copy constructor ({@code new ArrayList<>(c)}, {@code new HashSet<>(c)}, …)
     * takes from {@code c}, in its order: a traced list, deque, set or map view, or an object of a
     * user class implementing Collection, whose {@code iterator()} is traced as the JDK's copy
     * iterates it; null throws NullPointerException, as the constructor does.
     */
    static List<VariableTracker> copiedElements(TraceContext ctx, VariableTracker c, String what) {
        if (c instanceof ConstantVariable k && k.value() == null) {
            throw Exceptions.raiseFromJvm(ctx, NullPointerException.class, "the traced path throws NullPointerException: " + what + " of null");
        }
        if (!(c instanceof UserObjectVariable u) || JdkCalls.isJdk(u.type()) || !java.util.Collection.class.isAssignableFrom(u.type())) return itemsOf(ctx, c);
        List<VariableTracker> out = new ArrayList<>();
        VariableTracker it = Invoker.invokeVirtual(ctx, java.util.Collection.class, "iterator", ITERATOR, u, List.of());
        while (true) {
            ctx.tick();
            VariableTracker more = Invoker.invokeVirtual(ctx, java.util.Iterator.class, "hasNext", HAS_NEXT, it, List.of());
            if (!(more instanceof ConstantVariable b && b.value() instanceof Integer i)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " of " + u.describe() + ": its iterator's hasNext() gave " + more.describe());
            }
            if (i == 0) return out;
            out.add(Invoker.invokeVirtual(ctx, java.util.Iterator.class, "next", NEXT, it, List.of()));
        }
    }

    static VariableTracker listMethod(TraceContext ctx, ListVariable l, String name, MethodTypeDesc type, List<VariableTracker> args) {
        if (name.equals("getClass") && args.isEmpty() && listClass(l) != null) return ConstantVariable.of(listClass(l));
        if (l.isView()) return viewMethod(ctx, l, name, type, args);
        return listOrViewMethod(ctx, l, name, type, args);
    }

    /**
     * The class the program's list has, when the trace knows it: a mutable list's (an input's is
     * guarded), an Arrays.asList's, an immutable one's made as the JDK makes it (List.of's List12 or
     * ListN, a subList's, …); null for a view or an op's list of outputs.
     */
    private static Class<?> listClass(ListVariable l) {
        if (l.isView()) return null;
        if (l.type() != null) return l.type();
        if (l.isFixedSize()) return java.util.Arrays.asList().getClass();
        List<Object> standIn = l.immutableKind() == null ? null : l.immutableKind().standIn(l.size());
        return standIn == null ? null : standIn.getClass();
    }

    /** Methods a live view (subList, reversed, unmodifiableList) traces; others break the graph and run as Java runs them. */
    private static final java.util.Set<String> VIEW_METHODS = java.util.Set.of("size", "isEmpty", "get", "getFirst", "getLast", "iterator", "listIterator",
            "stream", "add", "addFirst", "addLast", "addAll", "set", "remove", "removeFirst", "removeLast", "clear", "contains", "indexOf", "lastIndexOf",
            "equals", "hashCode", "toArray", "subList", "reversed", "sort", "replaceAll", "removeIf");

    /**
     * A method of a live view: a subList whose base changed in structure other than through it
     * throws ConcurrentModificationException at any use, as Java's do; a change through the view
     * reaches the base (and an argument list under it is replayed), and the view follows its own
     * length. An unmodifiable view refuses every write, as Collections' wrappers do.
     */
    private static VariableTracker viewMethod(TraceContext ctx, ListVariable l, String name, MethodTypeDesc type, List<VariableTracker> args) {
        if (l.isStale()) throw KeyedContainers.concurrentModification(ctx, "List." + name + "() on a subList");
        if (l.isCollectionOnly() && (name.equals("equals") || name.equals("hashCode"))) return KeyedContainers.objectIdentityMethod(ctx, l, name, args);
        if (!VIEW_METHODS.contains(name) && l.viewKind() != ListVariable.ViewKind.UNMODIFIABLE && !l.isCollectionOnly()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "List." + name + "() on " + l.describe() + ": a view's " + name + " is not traced");
        }
        if (l.viewKind() == ListVariable.ViewKind.REVERSED && (name.equals("replaceAll") || name.equals("removeIf"))) {
            // ReverseOrderListView's are its base's own, run in the base's order
            return listMethod(ctx, l.base(), name, type, args);
        }
        int rootSize = l.root().items().size();
        // a sort of the view in place, stably: what ReverseOrderListView's sort of its base by the reversed order leaves too
        VariableTracker result = listOrViewMethod(ctx, l, name, type, args);
        if (name.equals("sort") && sortCountsAsAChange(l)) l.root().changedStructure();
        l.changedThroughView(l.root().items().size() - rootSize);
        return result;
    }

    /**
     * Whether {@code sort} through {@code l} bumps its root's modCount: a reversed() view sorts its
     * base, and an ArrayList's own sort counts; a subList's sorts a range of the ArrayList
     * (sortRange) or sets through a ListIterator (a LinkedList's), neither of which counts.
     */
    private static boolean sortCountsAsAChange(ListVariable l) {
        if (!l.isView()) return l.type() == ArrayList.class;
        return l.viewKind() == ListVariable.ViewKind.REVERSED && sortCountsAsAChange(l.base());
    }

    private static VariableTracker listOrViewMethod(TraceContext ctx, ListVariable l, String name, MethodTypeDesc type, List<VariableTracker> args) {
        String asList = asListMethod(name, args.size());
        if (asList != null && !asList.equals(name)) {
            VariableTracker r = listMethod(ctx, l, asList, type, args);
            return asList.equals("add") || asList.equals("addFirst") ? addResult(name) : r;
        }
        if (l.isArrayDeque() && (name.startsWith("add") || name.equals("push") || name.startsWith("offer")) && !args.isEmpty()
                && args.getLast() instanceof ConstantVariable c && c.value() == null) {
            throw Exceptions.raise(ctx, new NullPointerException(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws NullPointerException: "
                    + "ArrayDeque." + name + "(null)");
        }
        if (!l.isRead() && (name.equals("add") && args.size() == 1 || name.equals("addAll") && args.size() == 1)) {
            // appending reads nothing of the list: recorded, replayed on the caller's list, no guard on its contents
            mutable(ctx, l, name);
            List<VariableTracker> more = name.equals("add") ? List.of(args.getFirst()) : List.copyOf(copiedElements(ctx, args.getFirst(), "addAll"));
            more.forEach(l::append);
            modified(l, name, !more.isEmpty());
            return ConstantVariable.of(name.equals("add") || !more.isEmpty() ? 1 : 0);
        }
        if (l.isViewOfAnother() && ctx.sideEffects.changedContainers()) throw changedUnderAView(ctx, l, "List." + name + "()");
        // reads of the size or of one element wrap only what they read (an input list's other elements stay unguarded)
        switch (name) {
            case "size" -> { return ConstantVariable.of(l.size()); }
            case "isEmpty" -> { return ConstantVariable.of(l.size() == 0 ? 1 : 0); }
            case "get" -> { return l.get(index(ctx, l, name, args.getFirst(), l.size())); }
            case "getFirst", "getLast" -> {
                if (l.size() == 0) throw noSuchElement(ctx, name);
                return l.get(name.equals("getFirst") ? 0 : l.size() - 1);
            }
            case "peekFirst", "peekLast" -> { return l.size() == 0 ? ConstantVariable.NULL : l.get(name.equals("peekFirst") ? 0 : l.size() - 1); }
            default -> { }
        }
        if ((name.equals("contains") || name.equals("indexOf") || name.equals("lastIndexOf")) && args.size() == 1
                && args.getFirst() instanceof ConstantVariable c && c.value() == null && nullQueryError(l) instanceof NullPointerException refused) {
            if (l.root().source() != null) {
                // an input's class is guarded, not how it was made: List.of's and toList's ListN share a class, and only List.of's refuses
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "List." + name + "(null) on " + l.describe()
                        + ", an input list whose class does not say whether it refuses nulls (List.of's does, toList's does not)");
            }
            throw Exceptions.raise(ctx, refused, GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws NullPointerException: List." + name + "(null) on " + l.describe() + ", which refuses nulls");
        }
        List<VariableTracker> items = l.items();
        return switch (name) {
            case "iterator", "listIterator" -> {
                if (args.isEmpty()) yield new IteratorVariable(l);
                // listIterator(index): the cursor before the item at index (index == size: after the last), nothing returned yet
                int at = intArg(ctx, args.getFirst());
                if (at < 0 || at > items.size()) throw indexError(ctx, l, name, at);
                yield new IteratorVariable(l, at);
            }
            case "stream" -> StreamCalls.streamOf(l);
            // a LinkedList's or ArrayDeque's iterator from the last element to the first: its reversed() view's (Deque.reversed()'s
            // iterator is the descendingIterator), which reads the list live and fails fast alike (an ArrayDeque's: see iteratorMethod)
            case "descendingIterator" -> {
                if (l.type() != java.util.LinkedList.class && !l.isArrayDeque()) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, l.describe() + ".descendingIterator() is not traced");
                }
                yield new IteratorVariable(ListVariable.viewOf(l, ListVariable.ViewKind.REVERSED, 0, items.size()));
            }
            case "add" -> {
                mutable(ctx, l, name);
                if (args.size() == 1) {
                    items.add(args.getFirst());
                    modified(l, name, true);
                    yield ConstantVariable.of(1);
                }
                int at = intArg(ctx, args.getFirst());
                if (at < 0 || at > items.size()) throw indexError(ctx, l, name, at, items.size());
                items.add(at, args.get(1));
                modified(l, name, true);
                yield null;
            }
            case "addFirst" -> {
                mutable(ctx, l, name);
                items.addFirst(args.getFirst());
                modified(l, name, true);
                yield null;
            }
            case "pollFirst", "pollLast" -> {
                mutable(ctx, l, name);
                modified(l, name, !items.isEmpty());
                yield items.isEmpty() ? ConstantVariable.NULL : name.equals("pollFirst") ? items.removeFirst() : items.removeLast();
            }
            case "removeFirstOccurrence", "removeLastOccurrence" -> {
                mutable(ctx, l, name);
                int at = name.equals("removeFirstOccurrence") ? indexOf(ctx, items, args.getFirst()) : lastIndexOf(ctx, items, args.getFirst());
                if (at >= 0) items.remove(at);
                modified(l, name, at >= 0);
                yield ConstantVariable.of(at >= 0 ? 1 : 0);
            }
            case "addAll" -> {
                // an Arrays.asList list (or a writable view of one) refuses in its first add: after the index's check, and not at all for nothing to add
                boolean refusesOnlyAChange = refusesOnlyAChangeOfSize(l);
                if (!refusesOnlyAChange) mutable(ctx, l, name);
                int at = items.size();
                if (args.size() == 2) {
                    at = intArg(ctx, args.getFirst());
                    if (at < 0 || at > items.size()) throw indexError(ctx, l, name, at, items.size());
                }
                List<VariableTracker> more = List.copyOf(copiedElements(ctx, args.getLast(), "addAll"));
                if (refusesOnlyAChange) {
                    if (more.isEmpty()) yield ConstantVariable.of(0);
                    mutable(ctx, l, name);
                }
                items.addAll(at, more);
                modified(l, name, !more.isEmpty());
                yield ConstantVariable.of(more.isEmpty() ? 0 : 1);
            }
            case "set" -> {
                mutable(ctx, l, name);
                int at = index(ctx, l, name, args.getFirst(), items.size());
                yield items.set(at, args.get(1));
            }
            case "remove" -> {
                boolean byIndex = type.parameterType(0).equals(ConstantDescs.CD_int);
                // an Arrays.asList list refuses remove(Object) only when it finds the element (AbstractCollection's)
                if (byIndex || !l.root().isFixedSize()) mutable(ctx, l, name);
                if (byIndex) {
                    VariableTracker removed = items.remove(index(ctx, l, name, args.getFirst(), items.size()));
                    modified(l, name, true);
                    yield removed;
                }
                // remove(Object): the first element equal to it
                int at = indexOf(ctx, items, args.getFirst());
                if (at >= 0 && l.root().isFixedSize()) mutable(ctx, l, name);
                if (at >= 0) items.remove(at);
                modified(l, name, at >= 0);
                yield ConstantVariable.of(at >= 0 ? 1 : 0);
            }
            case "removeFirst", "removeLast" -> {
                mutable(ctx, l, name);
                if (items.isEmpty()) throw noSuchElement(ctx, name);
                modified(l, name, true);
                yield items.remove(name.equals("removeFirst") ? 0 : items.size() - 1);
            }
            case "clear" -> {
                // an Arrays.asList list (or a writable view of one) refuses only when there is something to remove (AbstractList.removeRange)
                if (refusesOnlyAChangeOfSize(l) && items.isEmpty()) yield null;
                mutable(ctx, l, name);
                items.clear();
                modified(l, name, true);
                yield null;
            }
            case "sort" -> {
                mutable(ctx, l, name);
                List<VariableTracker> sorted = sorted(ctx, items, args.getFirst(), "List.sort()");
                for (int i = 0; i < sorted.size(); i++) items.set(i, sorted.get(i));
                modified(l, name, true);
                yield null;
            }
            case "replaceAll" -> {
                // ArrayList's: each element replaced in order, through the list's own set; an operator that changes the list throws
                mutable(ctx, l, name);
                for (int i = 0; i < items.size(); i++) {
                    int before = l.structuralChanges();
                    VariableTracker made = Invoker.invokeVirtual(ctx, java.util.function.Function.class, "apply", FUNCTION_APPLY, args.getFirst(), List.of(items.get(i)));
                    if (l.structuralChanges() != before) throw KeyedContainers.concurrentModification(ctx, "List.replaceAll()");
                    items.set(i, made);
                }
                modified(l, name, true);
                yield null;
            }
            case "removeIf" -> {
                // ArrayList's: the predicate is asked of every element first, in order, then the matches go together
                // (an immutable list refuses before asking). An Arrays.asList list has Collection's removeIf: its
                // iterator's remove refuses at the first match, so the elements after it are never asked.
                boolean refusesOnlyAChange = refusesOnlyAChangeOfSize(l);
                if (!l.isMutable() && !refusesOnlyAChange) mutable(ctx, l, name);
                List<VariableTracker> keep = new ArrayList<>();
                int before = l.structuralChanges();
                for (VariableTracker item : List.copyOf(items)) {
                    VariableTracker test = Invoker.invokeVirtual(ctx, java.util.function.Predicate.class, "test", PREDICATE_TEST, args.getFirst(), List.of(item));
                    if (!(test instanceof ConstantVariable c && c.value() instanceof Integer b)) {
                        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "List.removeIf() with a predicate that gave " + test.describe());
                    }
                    // Collection's removeIf (a LinkedList's, an Arrays.asList list's) meets a change at its iterator's next step;
                    // ArrayList's and ArrayDeque's ask every element first and compare their modCount after
                    if (l.structuralChanges() != before && (refusesOnlyAChange || l.root().type() == java.util.LinkedList.class)) {
                        throw KeyedContainers.concurrentModification(ctx, "List.removeIf()");
                    }
                    if (b != 0 && refusesOnlyAChange) mutable(ctx, l, name);
                    if (b == 0) keep.add(item);
                }
                if (l.structuralChanges() != before) throw KeyedContainers.concurrentModification(ctx, "List.removeIf()");
                if (keep.size() == items.size()) yield ConstantVariable.of(0);
                mutable(ctx, l, name);
                items.clear();
                items.addAll(keep);
                modified(l, name, true);
                yield ConstantVariable.of(1);
            }
            case "hashCode" -> ConstantVariable.of(listHashCode(ctx, items));
            case "toArray" -> new ArrayVariable(!args.isEmpty() && args.getFirst() instanceof ArrayVariable a ? a.componentType() : Object.class, items, null);
            case "contains" -> ConstantVariable.of(indexOf(ctx, items, args.getFirst()) >= 0 ? 1 : 0);
            case "equals" -> ConstantVariable.of(listEquals(ctx, l, args.getFirst()) ? 1 : 0);
            case "indexOf" -> ConstantVariable.of(indexOf(ctx, items, args.getFirst()));
            case "lastIndexOf" -> ConstantVariable.of(lastIndexOf(ctx, items, args.getFirst()));
            case "reversed" -> {
                if (liveView(ctx, l, name)) yield ListVariable.viewOf(l, ListVariable.ViewKind.REVERSED, 0, items.size());
                yield l.immutableKind() == null ? new ListVariable(items.reversed(), false, null)
                        : ListVariable.immutable(items.reversed(), l.immutableKind().reversed());
            }
            case "subList" -> {
                int from = intArg(ctx, args.get(0)), to = intArg(ctx, args.get(1));
                if (from < 0 || to > items.size() || from > to) throw indexError(ctx, l, name, from, to);
                if (liveView(ctx, l, name)) yield ListVariable.viewOf(l, ListVariable.ViewKind.SUB_LIST, from, to);
                yield l.immutableKind() == null ? new ListVariable(items.subList(from, to), false, null)
                        : ListVariable.immutable(items.subList(from, to), l.immutableKind().subList());
            }
            // AbstractCollection's "[a, b]", as string concatenation prints a list (a tensor element's text reads its data: a break)
            case "toString" -> ConstantVariable.of(Indy.text(ctx, l, ConstantDescs.CD_Object, "List.toString() of"));
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, l.describe() + "." + name + "() is not traced");
        };
    }

    /** What an empty list's or deque's getFirst, removeFirst, pop, element (and the Last ones) throw: NoSuchElementException, no message. */
    private static Raised noSuchElement(TraceContext ctx, String method) {
        return Exceptions.raise(ctx, new java.util.NoSuchElementException(), GraphBreakType.EXCEPTION_THROWN,
                "the traced path throws NoSuchElementException: " + method + "() on an empty list or deque");
    }

    private static final MethodTypeDesc FUNCTION_APPLY = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_Object);
    private static final MethodTypeDesc PREDICATE_TEST = MethodTypeDesc.of(ConstantDescs.CD_boolean, ConstantDescs.CD_Object);
    private static final MethodTypeDesc COMPARATOR_COMPARE = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_Object, ConstantDescs.CD_Object);

    /** List.hashCode as Java's lists compute it, of elements whose hash codes the trace knows ({@link #valueHashCode}). */
    private static int listHashCode(TraceContext ctx, List<VariableTracker> items) {
        int h = 1;
        for (VariableTracker v : items) h = 31 * h + valueHashCode(ctx, v, "List.hashCode() of a list holding ");
        return h;
    }

    /**
     * {@code Objects.hashCode(v)} when the trace knows it: null, a string, boxed number, boolean or
     * character, or a list of such (List's hash code, computed as Java's lists do). A tensor, module,
     * enum or object with Object's hashCode has its identity hash code, which only the run knows: a graph
     * break whose reason says so ({@code what} names the call, then the value).
     */
    static int valueHashCode(TraceContext ctx, VariableTracker v, String what) {
        if (v instanceof ListVariable l && !l.isArrayDeque() && !l.isCollectionOnly()) return listHashCode(ctx, liveItems(ctx, l, what));
        Object o = v instanceof ConstantVariable c ? c.value() : v;
        if (!(o == null || o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Character)) {
            String identity = IdentityKey.hasIdentityEquals(v) ? ": Object's identity hash code, known only when the program runs (equals of it is"
                    + " identity and is traced; key a map by a name or an index instead of hashing it)" : ": its hash code is not a value known while tracing";
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + v.describe() + identity);
        }
        return java.util.Objects.hashCode(o);
    }

    /**
     * The comparators of the JDK the trace sorts by: natural order (also a null comparator), its
     * reverse (Comparator's and Collections'), and String's case-insensitive order.
     */
    static final List<Comparator<?>> KNOWN_COMPARATORS = List.of(Comparator.naturalOrder(), Collections.reverseOrder(), String.CASE_INSENSITIVE_ORDER);

    /** Whether {@code c} is one of {@link #KNOWN_COMPARATORS} (by identity: no equals of an unknown object runs while tracing). */
    static boolean isKnownComparator(Object c) { return c != null && KNOWN_COMPARATORS.stream().anyMatch(k -> k == c); }

    /**
     * {@code items} sorted by {@code comparator} (a null constant is natural order), stably as
     * Java's sorts are: items are values known while tracing (numbers, strings, enums) and the
     * comparator one of {@link #KNOWN_COMPARATORS}; anything else breaks the graph, and
     * incomparable values throw ClassCastException as Java's sort does.
     */
    @SuppressWarnings("unchecked")
    static List<VariableTracker> sorted(TraceContext ctx, List<VariableTracker> items, VariableTracker comparator, String what) {
        Object known = comparator instanceof ConstantVariable c ? (c.value() == null ? Comparator.naturalOrder() : c.value()) : null;
        if (!(comparator instanceof ConstantVariable)) return sortedByTracedComparator(ctx, items, comparator);
        if (known == null || !isKnownComparator(known)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " by " + comparator.describe() + " (natural, reverse and case-insensitive order are traced)");
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

    /**
     * {@code items} sorted by a comparator of the program's (a lambda), traced: Java's own stable
     * sort runs over the items, so it asks the comparator about the same pairs in the same order as
     * eager's sort of a list of that length; each answer must be an int known while tracing.
     */
    private static List<VariableTracker> sortedByTracedComparator(TraceContext ctx, List<VariableTracker> items, VariableTracker comparator) {
        List<VariableTracker> out = new ArrayList<>(items);
        out.sort((a, b) -> {
            VariableTracker r = Invoker.invokeVirtual(ctx, Comparator.class, "compare", COMPARATOR_COMPARE, comparator, List.of(a, b));
            if (r instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "List.sort() by a comparator that gave " + r.describe() + ": the trace orders by ints it knows");
        });
        return out;
    }

    /**
     * List.indexOf (contains, remove(Object)): by equals, which the trace knows for constants (their
     * own equals) and for values whose equals is identity (tensors, modules, objects of classes that
     * do not override equals); an object with an equals of its own breaks the graph.
     */
    private static int indexOf(TraceContext ctx, List<VariableTracker> items, VariableTracker needle) {
        for (int i = 0; i < items.size(); i++) if (equal(ctx, needle, items.get(i))) return i;
        return -1;
    }

    private static int lastIndexOf(TraceContext ctx, List<VariableTracker> items, VariableTracker needle) {
        for (int i = items.size() - 1; i >= 0; i--) if (equal(ctx, needle, items.get(i))) return i;
        return -1;
    }

    /**
     * {@code l.equals(other)}: a List equals another List of equal elements in order, whatever the
     * classes (List.of, ArrayList, LinkedList, Arrays.asList); nothing else. An ArrayDeque keeps
     * Object's equals: identity.
     */
    private static boolean listEquals(TraceContext ctx, ListVariable l, VariableTracker other) {
        if (l == other) return true;
        if (l.isArrayDeque() || !(other instanceof ListVariable o) || o.isArrayDeque()) {
            if (other instanceof ListVariable || other instanceof ConstantVariable || other instanceof dev.ember.dynamo.variables.TensorVariable
                    || other instanceof dev.ember.dynamo.variables.KeyedVariable || other instanceof dev.ember.dynamo.variables.ArrayVariable) {
                return false;
            }
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "List.equals() with " + other.describe());
        }
        List<VariableTracker> a = liveItems(ctx, l, "List.equals() of"), b = liveItems(ctx, o, "List.equals() with");
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) if (!equal(ctx, a.get(i), b.get(i))) return false;
        return true;
    }

    /** Integer or Long: the boxed class of an int or long value (a symbolic one or a constant), else null. */
    private static Class<?> boxedIntegral(VariableTracker v) {
        if (v instanceof dev.ember.dynamo.variables.SymScalarVariable s) return s.javaType() == int.class ? Integer.class : s.javaType() == long.class ? Long.class : null;
        if (v instanceof ConstantVariable c && (c.value() instanceof Integer || c.value() instanceof Long)) return c.value().getClass();
        return null;
    }

    /** {@code Objects.equals(a, b)} as Java computes it, when the trace knows it. */
    static boolean equal(TraceContext ctx, VariableTracker a, VariableTracker b) {
        if (a == b) return true;
        if (a instanceof ConstantVariable x && b instanceof ConstantVariable y) return java.util.Objects.equals(x.value(), y.value());
        if (a instanceof ConstantVariable x && x.value() == null || b instanceof ConstantVariable y && y.value() == null) return false;
        if (a instanceof ListVariable x && b instanceof ListVariable) return listEquals(ctx, x, b);
        if (a instanceof dev.ember.dynamo.variables.SymSizeVariable || b instanceof dev.ember.dynamo.variables.SymSizeVariable) {
            return SymSizes.compare(ctx, a, b, SymSizes.Relation.EQ);
        }
        Class<?> ca = boxedIntegral(a), cb = boxedIntegral(b);
        if ((a instanceof dev.ember.dynamo.variables.SymScalarVariable || b instanceof dev.ember.dynamo.variables.SymScalarVariable) && ca != null && ca == cb) {
            // Integer.equals(Integer) (Long's) of an int that became symbolic: the comparison a == branch makes, guarded by its outcome
            Boolean same = SymScalars.compare(ctx, a, b, dev.ember.dynamo.guards.IntRelation.Relation.EQ);
            if (same != null) return same;
        }
        for (VariableTracker v : List.of(a, b)) {
            if (!IdentityKey.hasIdentityEquals(v) && !(v instanceof ConstantVariable)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "comparing " + a.describe() + " with " + b.describe()
                        + " by equals: " + v.describe() + " has an equals the trace does not evaluate");
            }
        }
        return InstructionTranslator.sameReference(a, b);
    }

    static VariableTracker iteratorMethod(TraceContext ctx, IteratorVariable it, String name, List<VariableTracker> args) {
        if (name.equals("remove") && it.isStreamIterator()) {
            // a stream's iterator has Iterator's default remove: UnsupportedOperationException("remove")
            throw Exceptions.raise(ctx, new UnsupportedOperationException("remove"), GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws UnsupportedOperationException: Iterator.remove() on a stream's iterator");
        }
        boolean overDeque = it.overArrayDeque() || it.list() != null && it.list().isView() && it.list().base().isArrayDeque();
        if (overDeque && it.containerChanged() && (name.equals("hasNext") || name.equals("next"))) {
            // the JDK's ArrayDeque iterators (DeqIterator, DescendingIterator) never fail fast on hasNext: it is remaining > 0,
            // the elements the iterator was made with less those returned, whatever the deque did since
            if (name.equals("hasNext")) return ConstantVariable.of(it.dequeHasNext() ? 1 : 0);
            if (!it.dequeHasNext()) {
                throw Exceptions.raise(ctx, new java.util.NoSuchElementException(), GraphBreakType.EXCEPTION_THROWN,
                        "the traced path throws NoSuchElementException: Iterator.next() past the elements the ArrayDeque's iterator was made with");
            }
            // next() reads the slot of the deque's array where its cursor stands (ConcurrentModificationException only where that slot
            // is empty): which element that is depends on the array's capacity and head, which the trace does not model. Rebuilt past
            // a break the deque's array would differ from the program's, so the whole frame runs eagerly instead
            String why = (it.overArrayDeque() ? "ArrayDeque.iterator()" : "ArrayDeque.descendingIterator()") + ".next() after the deque changed: "
                    + "it reads the deque's array where its cursor stands, which the trace does not model (change the deque after the loop)";
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, why).withoutResume(why + ", so the frame runs eagerly");
        }
        return switch (name) {
            case "remove", "set", "add" -> iteratorWrite(ctx, it, name, args);
            case "hasNext" -> {
                yield ConstantVariable.of(it.hasNext() ? 1 : 0);
            }
            // PrimitiveIterator's (an IntStream's iterator): the item, an int, long or double already
            case "next", "nextInt", "nextLong", "nextDouble" -> {
                if (it.containerChanged()) throw KeyedContainers.concurrentModification(ctx, "Iterator.next()");
                if (it.unchangedIterable() instanceof ListVariable l && l.isViewOfAnother() && ctx.sideEffects.changedContainers()) {
                    throw changedUnderAView(ctx, l, "Iterator.next()");
                }
                // raised for the frame's handlers, as the JDK's iterators throw it (no message): a catch in the traced code catches it
                if (!it.hasNext()) {
                    throw Exceptions.raise(ctx, new java.util.NoSuchElementException(), GraphBreakType.EXCEPTION_THROWN,
                            "the traced path throws NoSuchElementException: Iterator.next() past the last element");
                }
                yield it.next();
            }
            case "previous" -> {
                if (it.containerChanged()) throw KeyedContainers.concurrentModification(ctx, "ListIterator.previous()");
                if (it.position() == 0) {
                    throw Exceptions.raise(ctx, new java.util.NoSuchElementException(), GraphBreakType.EXCEPTION_THROWN,
                            "the traced path throws NoSuchElementException: ListIterator.previous() before the first element");
                }
                yield it.previous();
            }
            // a ListIterator's cursor, which the JDK's list iterators read without checking for changes of the list
            case "nextIndex" -> ConstantVariable.of(it.position());
            case "previousIndex" -> ConstantVariable.of(it.position() - 1);
            case "hasPrevious" -> ConstantVariable.of(it.position() > 0 ? 1 : 0);
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Iterator." + name + "()");
        };
    }

    private static final MethodTypeDesc LIST_REMOVE_AT = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_int);
    private static final MethodTypeDesc LIST_SET = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_int, ConstantDescs.CD_Object);
    private static final MethodTypeDesc LIST_ADD_AT = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, ConstantDescs.CD_Object);

    /**
     * Iterator.remove and ListIterator.set and add over an ArrayList or LinkedList (or an immutable
     * list, which throws UnsupportedOperationException first), as the JDK's list iterators run them:
     * remove and set act on the item next() or previous() last returned (none: IllegalStateException,
     * which ArrayList's checks before a concurrent change and LinkedList's remove after), add inserts
     * at the cursor; each goes through the list's own method, so an argument list changed in the
     * graph is replayed on the caller's, and remove and add leave the iterator expecting the change
     * it made, where any other change still fails the next step.
     */
    private static VariableTracker iteratorWrite(TraceContext ctx, IteratorVariable it, String name, List<VariableTracker> args) {
        ListVariable l = it.list();
        if (l == null || l.isArrayDeque() || l.isFixedSize() || l.isViewOfAnother()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Iterator." + name + "() over " + (l == null ? "a map or set" : l.describe())
                    + " (traced over an ArrayList, a LinkedList or an immutable list)");
        }
        if (!l.isMutable()) mutable(ctx, l, name);      // an immutable list's iterator refuses first
        boolean linked = l.type() == java.util.LinkedList.class;
        String what = "ListIterator." + name + "()";
        if ((linked && name.equals("remove") || name.equals("add")) && it.containerChanged()) throw KeyedContainers.concurrentModification(ctx, what);
        if (!name.equals("add") && it.lastReturned() < 0) {
            throw Exceptions.raise(ctx, new IllegalStateException(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws IllegalStateException: "
                    + what + " with no element returned by next() or previous() since the iterator's last remove or add");
        }
        if (it.containerChanged()) throw KeyedContainers.concurrentModification(ctx, what);
        switch (name) {
            case "remove" -> {
                listMethod(ctx, l, "remove", LIST_REMOVE_AT, List.of(ConstantVariable.of(it.lastReturned())));
                it.removedLastReturned();
            }
            case "set" -> listMethod(ctx, l, "set", LIST_SET, List.of(ConstantVariable.of(it.lastReturned()), args.getFirst()));
            default -> {
                listMethod(ctx, l, "add", LIST_ADD_AT, List.of(ConstantVariable.of(it.position()), args.getFirst()));
                it.addedAtCursor();
            }
        }
        return null;
    }

    /**
     * Whether subList or reversed of {@code l} is a live view ({@link ListVariable#viewOf}): a write
     * through it changes the list, and a change of the list shows through it. Of an ArrayList or
     * LinkedList or Arrays.asList list (or a view of one) it is; of a list that never changes (List.of,
     * an op's outputs) a copy is the same. An ArrayDeque's reversed() is a Deque: it breaks the graph
     * and runs as Java runs it.
     */
    private static boolean liveView(TraceContext ctx, ListVariable l, String method) {
        if (l.isView() || l.isFixedSize()) return true;
        if (l.isArrayDeque()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "ArrayDeque." + method + "() of " + l.describe() + ": the result is a Deque view that writes "
                    + "through to it and sees its changes, which the trace models only over an ArrayList, LinkedList or Arrays.asList list; it runs outside the graph");
        }
        return l.isMutable();
    }

    /** A read of an input list that views another container, after the trace changed one: the change may show through it. */
    private static Unsupported changedUnderAView(TraceContext ctx, ListVariable l, String what) {
        return ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on " + (l.source() == null ? "a list" : l.source().name())
                + ", a view of another container (a subList, an unmodifiable wrapper, Arrays.asList: " + l.inputClassName() + "), after a list or array changed in this "
                + "frame: the change may show through the view, so the read runs outside the graph");
    }

    /**
     * Whether the list is an Arrays.asList list or a writable view of one: AbstractList's size-changing
     * methods refuse in the first element they would add or remove, so a call that changes nothing
     * (clear of an empty range, addAll of nothing, remove of an absent element) returns as usual.
     */
    private static boolean refusesOnlyAChangeOfSize(ListVariable l) {
        return !l.isReadOnlyView() && l.root().isFixedSize();
    }

    /** The writes an Arrays.asList list takes (they keep its size): Arrays.ArrayList's own set, sort and replaceAll. */
    private static final java.util.Set<String> FIXED_SIZE_WRITES = java.util.Set.of("set", "sort", "replaceAll");

    private static void mutable(TraceContext ctx, ListVariable l, String method) {
        if (l.isView() && !l.isReadOnlyView()) {
            // a write through a subList or reversed view is a write to the list under it (an Arrays.asList list's rules hold through it)
            ListVariable root = l.root();
            if (root.isFixedSize()) mutable(ctx, root, method);
            else if (root.source() != null) ctx.sideEffects.mutated(root);
            return;
        }
        if (l.isView()) {
            // a subList or reversed() of an unmodifiableList refuses as the wrapper does (no message), caught by the traced code's handlers
            throw Exceptions.raise(ctx, new UnsupportedOperationException(), GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws UnsupportedOperationException: List." + method + "() through " + l.describe());
        }
        if (l.isFixedSize()) {
            // Arrays.asList: set, sort and replaceAll write through to the array; a change of size throws (no message), as Java's does
            if (!FIXED_SIZE_WRITES.contains(method)) {
                throw Exceptions.raise(ctx, new UnsupportedOperationException(), GraphBreakType.EXCEPTION_THROWN,
                        "the traced path throws UnsupportedOperationException: List." + method + "() on a fixed-size Arrays.asList list");
            }
            if (l.backing().source() != null) ctx.sideEffects.mutated(l.backing());
            return;
        }
        if (l.isMutable()) {
            if (l.source() != null) ctx.sideEffects.mutated(l);
            return;
        }
        if (l.source() != null && l.refusesWrites()) {
            // its class (guarded; a reversed() view's base class too) refuses every write at once, without a message
            throw Exceptions.raise(ctx, new UnsupportedOperationException(), GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws UnsupportedOperationException: List." + method + "() on " + l.source().name() + ", a list the caller passed in that cannot change");
        }
        if (l.source() != null) {
            throw ctx.unsupported(GraphBreakType.SIDE_EFFECT, "List." + method + "() on " + l.source().name() + ", a list the caller passed in whose class ("
                    + "not ArrayList or LinkedList) cannot be replayed");
        }
        // raised for the frame's handlers as the JDK's immutable lists throw it (no message): a catch in the traced code catches it
        throw Exceptions.raise(ctx, new UnsupportedOperationException(), GraphBreakType.EXCEPTION_THROWN,
                "the traced path throws UnsupportedOperationException: List." + method + "() on an immutable list");
    }

    /**
     * Counts a change of {@code l} as Java's modCount does, so that an iterator (or view) made before
     * it fails fast exactly where eager's does. A call that changes nothing counts only where the
     * JDK bumps modCount regardless: ArrayList's sort, replaceAll, clear and addAll, LinkedList's
     * clear. ArrayList's sort and replaceAll are structural (an iterator made before them throws
     * ConcurrentModificationException); LinkedList's, List's defaults, write through a ListIterator's
     * set, which is not; an Arrays.asList list has no modCount its iterators read.
     */
    private static void modified(ListVariable l, String method, boolean changedSomething) {
        if (l.isFixedSize() || !l.isMutable()) return;
        boolean arrayList = l.type() == ArrayList.class;
        boolean counts = switch (method) {
            case "set" -> false;
            case "sort", "replaceAll" -> arrayList;
            case "clear" -> true;
            case "addAll" -> changedSomething || arrayList;
            default -> changedSomething;
        };
        if (counts) l.changedStructure();
    }

    private static int intArg(TraceContext ctx, VariableTracker v) {
        if (v instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected an int index, got " + v.describe());
    }

    /** The index argument of {@code l.name(index, …)}, in [0, size), or the JDK's exception for it ({@link #indexError}). */
    private static int index(TraceContext ctx, ListVariable l, String name, VariableTracker v, int size) {
        int i = intArg(ctx, v);
        if (i < 0 || i >= size) throw indexError(ctx, l, name, i, size);
        return i;
    }

    /**
     * What {@code l.name(ints…)} throws for an index or range out of bounds: the same call run on a
     * stand-in of the list's class and length ({@link #standIn}), so the exception's class and message are
     * the JDK's own (ArrayList's "Index: 5, Size: 1", Objects.checkIndex's "Index 5 out of bounds for length 1",
     * subList's IllegalArgumentException), raised for the traced code's handlers to catch as eager's would be.
     * A list whose class the trace does not know (an op's list of outputs, an input view) breaks the graph instead, and eager throws.
     */
    private static RuntimeException indexError(TraceContext ctx, ListVariable l, String name, int... ints) {
        List<Object> standIn = standIn(l);
        if (standIn != null) {
            try {
                switch (name) {
                    case "get" -> standIn.get(ints[0]);
                    case "set" -> standIn.set(ints[0], null);
                    case "remove" -> standIn.remove(ints[0]);
                    case "add" -> standIn.add(ints[0], null);
                    case "addAll" -> standIn.addAll(ints[0], List.of());
                    case "subList" -> standIn.subList(ints[0], ints[1]);
                    case "listIterator" -> standIn.listIterator(ints[0]);
                    default -> { }
                }
            } catch (RuntimeException thrown) {
                // an array read out of range (ListN's get) that the JIT made hot throws its preallocated exception, without a
                // message (OmitStackTraceInFastThrow): the one the bounds check throws elsewhere is the JVM's, with its text
                RuntimeException jdk = thrown instanceof ArrayIndexOutOfBoundsException && thrown.getMessage() == null
                        ? new ArrayIndexOutOfBoundsException("Index " + ints[0] + " out of bounds for length " + standIn.size()) : thrown;
                return Exceptions.raise(ctx, jdk, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + jdk.getClass().getName()
                        + ": " + jdk.getMessage() + " (List." + name + "() on " + l.describe() + ")");
            }
        }
        return ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws IndexOutOfBoundsException: List." + name + "() with index "
                + ints[0] + " on " + l.describe() + " of length " + l.size());
    }

    /** What a query for null on {@code l} throws (List.of's lists, their subLists and reversed views refuse it), or null. */
    private static NullPointerException nullQueryError(ListVariable l) {
        List<Object> standIn = standIn(l);
        if (standIn == null) return null;
        try {
            standIn.indexOf(null);
            return null;
        } catch (NullPointerException e) {
            return e;
        }
    }

    /** A list of {@code l}'s class and length, its elements nulls, through the same views; null when its class is not known. */
    private static List<Object> standIn(ListVariable l) {
        if (l.isView()) {
            List<Object> base = standIn(l.base());
            if (base == null) return null;
            return switch (l.viewKind()) {
                case SUB_LIST -> base.subList(l.viewFrom(), l.viewFrom() + l.size());
                case REVERSED -> base.reversed();
                case UNMODIFIABLE -> Collections.unmodifiableList(base);
                case UNMODIFIABLE_COLLECTION -> null;
            };
        }
        int n = l.size();
        if (l.immutableKind() != null) return l.immutableKind().standIn(n);
        if (l.isFixedSize()) return java.util.Arrays.asList(new Object[n]);
        if (l.type() == ArrayList.class) return new ArrayList<>(Collections.nCopies(n, null));
        if (l.type() == java.util.LinkedList.class) return new java.util.LinkedList<>(Collections.nCopies(n, null));
        return null;
    }
}
