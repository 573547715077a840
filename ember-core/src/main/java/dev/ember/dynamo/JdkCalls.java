package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * JDK methods while tracing: the ones known to be pure are evaluated on constant arguments (Math,
 * boxing and unboxing, String, Objects, parts of Arrays and Collections, List.of); the natural and
 * reverse-order comparators are constants that List.sort, Collections.sort and Stream.sorted sort
 * by; any other JDK call is a graph break.
 */
final class JdkCalls {
    private JdkCalls() {}

    /** Classes whose public static methods are pure functions of their arguments (with the exceptions below). */
    private static final Set<Class<?>> PURE_STATIC = Set.of(Math.class, StrictMath.class, Integer.class, Long.class, Double.class,
            Float.class, Short.class, Byte.class, Character.class, Boolean.class, String.class, Objects.class);
    private static final Set<String> IMPURE_STATIC = Set.of("random", "getInteger", "getLong", "getBoolean", "requireNonNull");
    /**
     * Whether {@code owner.name(args)} only holds its symbolic arguments, as a container's elements
     * or a map's values, without reading them: List.of, Map.of and Map.entry with every symbolic
     * number in a value's place (a key's hash code needs its value). The container holds the symbol
     * and the code after reads it as it is, so nothing is specialized.
     */
    static boolean holdsAsValues(Class<?> owner, String name, List<dev.ember.dynamo.variables.VariableTracker> args) {
        if (owner == List.class && name.equals("of")) return true;
        if (owner != java.util.Map.class || !(name.equals("of") || name.equals("entry"))) return false;
        for (int i = 0; i < args.size(); i += 2) if (args.get(i) instanceof dev.ember.dynamo.variables.SymScalarVariable) return false;
        return true;
    }

    private static final Set<String> PURE_ARRAYS = Set.of("copyOf", "copyOfRange", "equals", "hashCode", "toString", "deepToString", "deepEquals",
            "compare", "mismatch");
    /** Collections' static methods that only read their collections (of values known while tracing; a comparator given is no constant, and breaks). */
    private static final Set<String> PURE_COLLECTIONS = Set.of("disjoint", "frequency", "min", "max");
    /** Immutable value classes whose instance methods are pure. */
    private static final Set<Class<?>> VALUE_CLASSES = Set.of(String.class, Integer.class, Long.class, Double.class, Float.class,
            Short.class, Byte.class, Character.class, Boolean.class, Class.class);

    static boolean isJdk(Class<?> c) {
        while (c.isArray()) c = c.getComponentType();
        if (c.isPrimitive()) return true;
        String n = c.getName();
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.") || n.startsWith("com.sun.");
    }

    static VariableTracker invokeStatic(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, List<VariableTracker> args) {
        if (owner == Objects.class && name.equals("requireNonNull")) {
            if (args.getFirst() instanceof ConstantVariable c && c.value() == null) {
                throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws NullPointerException from Objects.requireNonNull");
            }
            return args.getFirst();
        }
        if (owner == Objects.class && (name.equals("isNull") || name.equals("nonNull")) && args.size() == 1) {
            // only a null constant is null (a tensor, a list, an object the trace holds never is): the answer is known, whatever the value
            boolean isNull = args.getFirst() instanceof ConstantVariable c && c.value() == null;
            return ConstantVariable.of(isNull == name.equals("isNull") ? 1 : 0);
        }
        if (owner == List.class && name.equals("of")) {
            List<VariableTracker> items = type.parameterCount() == 1 && type.parameterType(0).isArray()
                    ? Containers.itemsOf(ctx, args.getFirst()) : args;
            return ListVariable.immutable(items, dev.ember.dynamo.variables.ImmutableListKind.LIST_OF);
        }
        if ((owner == java.util.Map.class || owner == java.util.Set.class) && name.equals("of")) return KeyedContainers.immutableOf(ctx, owner, type, args);
        if (owner == List.class && name.equals("copyOf")) {
            // the copy is List.of's whatever it copies (List.of's own list is copied as itself)
            return ListVariable.immutable(Containers.itemsOf(ctx, args.getFirst()), dev.ember.dynamo.variables.ImmutableListKind.LIST_OF);
        }
        if ((owner == java.util.Map.class || owner == java.util.Set.class) && name.equals("copyOf")) {
            return KeyedContainers.immutableCopyOf(ctx, owner, args.getFirst());
        }
        if (owner == System.class && name.equals("arraycopy")) return arraycopy(ctx, args);
        if (owner == java.util.EnumSet.class) return KeyedContainers.enumSet(ctx, name, type, args);
        VariableTracker stream = StreamCalls.invokeStatic(ctx, owner, name, type, args);
        if (stream != null) return stream;
        if (owner == Arrays.class && name.equals("fill") && args.size() == 2) {
            ArrayVariable a = mutableArray(ctx, args.get(0), "Arrays.fill");
            a.items().replaceAll(x -> args.get(1));
            return null;
        }
        if (owner == Arrays.class && name.equals("asList") && args.getFirst() instanceof ArrayVariable a) return ListVariable.fixedSizeView(a);
        if (owner == Arrays.class && name.equals("sort") && (args.size() == 1 || args.size() == 3) && args.getFirst() instanceof ArrayVariable a
                && a.items().stream().allMatch(ConstantVariable.class::isInstance)) {
            return sortInPlace(ctx, a, type, args);
        }
        if (owner == java.util.Map.class && name.equals("entry") && args.size() == 2) {
            for (VariableTracker a : args) {
                if (a instanceof ConstantVariable c && c.value() == null) {
                    throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws NullPointerException: Map.entry() of a null key or value");
                }
            }
            return new dev.ember.dynamo.variables.ImmutableEntryVariable(args.get(0), args.get(1));
        }
        if (owner == java.util.Collections.class && name.equals("nCopies") && args.getFirst() instanceof ConstantVariable c && c.value() instanceof Integer n) {
            if (n < 0) throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws IllegalArgumentException: List length = " + n);
            return ListVariable.immutable(new ArrayList<>(java.util.Collections.nCopies(n, args.get(1))), dev.ember.dynamo.variables.ImmutableListKind.N_COPIES);
        }
        if ((owner == String.class && name.equals("valueOf") || owner == Objects.class && name.equals("toString")) && args.size() == 1
                && type.parameterType(0).equals(java.lang.constant.ConstantDescs.CD_Object)) {
            // the object's text as concatenation makes it: a builder's, a list's, a user object's own toString
            return ConstantVariable.of(Indy.text(ctx, args.getFirst(), java.lang.constant.ConstantDescs.CD_Object, owner.getSimpleName() + "." + name + "() of"));
        }
        if ((owner == java.util.Comparator.class && (name.equals("naturalOrder") || name.equals("reverseOrder"))
                || owner == java.util.Collections.class && name.equals("reverseOrder")) && args.isEmpty()) {
            return ConstantVariable.of(name.equals("naturalOrder") ? java.util.Comparator.naturalOrder() : java.util.Collections.reverseOrder());
        }
        if (owner == java.util.Comparator.class && args.size() == 1
                && (name.equals("comparingInt") || name.equals("comparingLong") || name.equals("comparingDouble") || name.equals("comparing"))) {
            // a key comparator: the JDK's comparison, inlined from KeyComparators (same descriptor)
            return Invoker.invokeStatic(ctx, KeyComparators.class, name, type, args);
        }
        if (owner == java.util.Collections.class && name.equals("addAll") && args.size() == 2 && args.get(1) instanceof ArrayVariable elements) {
            return addAll(ctx, args.getFirst(), elements);
        }
        if (owner == java.util.Collections.class && name.equals("reverse") && args.size() == 1 && args.getFirst() instanceof ListVariable l) {
            // as the JDK's: swap the ends towards the middle, each through the list's own set (an immutable list throws there, a 0- or 1-element one never sets)
            List<VariableTracker> items = List.copyOf(Containers.itemsOf(ctx, l));
            for (int i = 0, j = items.size() - 1; i < j; i++, j--) {
                Invoker.invokeVirtual(ctx, List.class, "set", LIST_SET, l, List.of(ConstantVariable.of(i), items.get(j)));
                Invoker.invokeVirtual(ctx, List.class, "set", LIST_SET, l, List.of(ConstantVariable.of(j), items.get(i)));
            }
            return null;
        }
        if (owner == java.util.Collections.class && (name.equals("swap") || name.equals("rotate")) && args.getFirst() instanceof ListVariable l
                && args.stream().skip(1).allMatch(a -> a instanceof ConstantVariable c && c.value() instanceof Integer)) {
            return swapOrRotate(ctx, l, name, args.stream().skip(1).map(a -> (Integer) ((ConstantVariable) a).value()).toList());
        }
        if (owner == java.util.Collections.class && name.equals("unmodifiableList") && args.getFirst() instanceof ListVariable l && !l.isArrayDeque()) {
            // a live read-only view: the list's later changes show through it, its writes throw UnsupportedOperationException
            return ListVariable.viewOf(l, ListVariable.ViewKind.UNMODIFIABLE, 0, 0);
        }
        if (owner == java.util.Collections.class && name.equals("unmodifiableCollection") && args.getFirst() instanceof ListVariable l && !l.isArrayDeque()) {
            // the same live read-only view, seen as a Collection only; one of its own class is returned as it is, as the JDK does
            return l.isCollectionOnly() ? l : ListVariable.viewOf(l, ListVariable.ViewKind.UNMODIFIABLE_COLLECTION, 0, 0);
        }
        if (owner == java.util.Collections.class && name.startsWith("unmodifiable")) {
            VariableTracker readOnly = readOnlyView(name, args.getFirst());
            if (readOnly != null) return readOnly;
        }
        if (owner == java.util.Collections.class && name.equals("sort") && args.getFirst() instanceof ListVariable l) {
            return Containers.listMethod(ctx, l, "sort", MethodTypeDesc.of(java.lang.constant.ConstantDescs.CD_void, java.lang.constant.ClassDesc.of("java.util.Comparator")), List.of(args.size() == 2 ? args.get(1) : ConstantVariable.of(null)));
        }
        if (owner == Arrays.class && name.equals("equals") && args.size() == 2 && args.get(0) instanceof ArrayVariable a && args.get(1) instanceof ArrayVariable b
                && (a.items().stream().anyMatch(SymSizeVariable.class::isInstance) || b.items().stream().anyMatch(SymSizeVariable.class::isInstance))) {
            return ConstantVariable.of(sameSizes(ctx, a.items(), b.items()) ? 1 : 0);
        }
        boolean pure = (PURE_STATIC.contains(owner) && !IMPURE_STATIC.contains(name)) || (owner == Arrays.class && PURE_ARRAYS.contains(name))
                // Color.valueOf("RED") (javac's Enum.valueOf(Color.class, name)): the constant of a name, or IllegalArgumentException
                || (owner == Enum.class && name.equals("valueOf"))
                || (owner == java.util.Collections.class && PURE_COLLECTIONS.contains(name));
        if (!pure) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "call to " + owner.getName() + "." + name + "() (not known to be pure)");
        return reflect(ctx, owner, name, type, null, args);
    }

    /**
     * {@code Collections.unmodifiableMap(m)}, {@code unmodifiableSet(s)} or {@code unmodifiableCollection(c)}
     * of a tracked map, set or map view: a live read-only view ({@link dev.ember.dynamo.variables.ReadOnlyVariable});
     * the wrapper of its own kind is returned as it is, as the JDK does. Null for anything else (a list's
     * unmodifiableCollection, a wrapper of another kind), which breaks the graph as an unknown call.
     */
    private static VariableTracker readOnlyView(String name, VariableTracker of) {
        var wrapper = switch (name) {
            case "unmodifiableMap" -> dev.ember.dynamo.variables.ReadOnlyVariable.Wrapper.UNMODIFIABLE_MAP;
            case "unmodifiableSet" -> dev.ember.dynamo.variables.ReadOnlyVariable.Wrapper.UNMODIFIABLE_SET;
            case "unmodifiableCollection" -> dev.ember.dynamo.variables.ReadOnlyVariable.Wrapper.UNMODIFIABLE_COLLECTION;
            default -> null;
        };
        if (wrapper == null) return null;
        if (of instanceof dev.ember.dynamo.variables.ReadOnlyVariable u) {
            boolean sameClass = u.wrapper() == wrapper && !(u.of() instanceof dev.ember.dynamo.variables.MapViewVariable);
            return sameClass ? u : null;
        }
        boolean fits = switch (wrapper) {
            case UNMODIFIABLE_MAP -> of instanceof dev.ember.dynamo.variables.MapVariable;
            case UNMODIFIABLE_SET -> of instanceof dev.ember.dynamo.variables.SetVariable || of instanceof dev.ember.dynamo.variables.MapViewVariable v && v.view() != dev.ember.dynamo.variables.MapViewVariable.View.VALUES;
            case UNMODIFIABLE_COLLECTION -> of instanceof dev.ember.dynamo.variables.SetVariable || of instanceof dev.ember.dynamo.variables.MapViewVariable;
        };
        return fits ? new dev.ember.dynamo.variables.ReadOnlyVariable(of, wrapper) : null;
    }

    private static final MethodTypeDesc LIST_GET = MethodTypeDesc.of(java.lang.constant.ConstantDescs.CD_Object, java.lang.constant.ConstantDescs.CD_int);

    /**
     * {@code Collections.swap(l, i, j)} and {@code Collections.rotate(l, distance)} as the JDK runs
     * them on a list of fewer than 100 elements or a random-access one: through the list's own get
     * and set, in the same order (an immutable list throws at the first set, a bad index at its get).
     */
    private static VariableTracker swapOrRotate(TraceContext ctx, ListVariable l, String name, List<Integer> ints) {
        java.util.function.IntFunction<VariableTracker> get = i -> Invoker.invokeVirtual(ctx, List.class, "get", LIST_GET, l, List.of(ConstantVariable.of(i)));
        java.util.function.BiFunction<Integer, VariableTracker, VariableTracker> set =
                (i, v) -> Invoker.invokeVirtual(ctx, List.class, "set", LIST_SET, l, List.of(ConstantVariable.of(i), v));
        if (name.equals("swap")) {
            int i = ints.get(0), j = ints.get(1);
            set.apply(i, set.apply(j, get.apply(i)));
            return null;
        }
        int size = Containers.itemsOf(ctx, l).size();
        if (size == 0) return null;
        int distance = ints.getFirst() % size;
        if (distance < 0) distance += size;
        if (distance == 0) return null;
        for (int cycleStart = 0, moved = 0; moved != size; cycleStart++) {
            VariableTracker displaced = get.apply(cycleStart);
            int i = cycleStart;
            do {
                i += distance;
                if (i >= size) i -= size;
                displaced = set.apply(i, displaced);
                moved++;
            } while (i != cycleStart);
        }
        return null;
    }

    private static final MethodTypeDesc LIST_SET = MethodTypeDesc.of(java.lang.constant.ConstantDescs.CD_Object, java.lang.constant.ConstantDescs.CD_int,
            java.lang.constant.ConstantDescs.CD_Object);
    private static final MethodTypeDesc COLLECTION_ADD = MethodTypeDesc.of(java.lang.constant.ConstantDescs.CD_boolean, java.lang.constant.ConstantDescs.CD_Object);

    /**
     * {@code Collections.addAll(c, e...)}: {@code c.add(e)} for each element in order, as the JDK's
     * loop does, each add traced as the collection's own (a list appends, a set inserts a key); true
     * when one of them changed {@code c}.
     */
    private static VariableTracker addAll(TraceContext ctx, VariableTracker c, ArrayVariable elements) {
        boolean changed = false;
        for (VariableTracker e : List.copyOf(elements.items())) {
            VariableTracker added = Invoker.invokeVirtual(ctx, java.util.Collection.class, "add", COLLECTION_ADD, c, List.of(e));
            if (!(added instanceof ConstantVariable k && k.value() instanceof Number n)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Collections.addAll() into " + c.describe() + ", whose add() result is not known while tracing");
            }
            changed |= n.intValue() != 0;
        }
        return ConstantVariable.of(changed ? 1 : 0);
    }

    /**
     * {@code Arrays.equals} of two shapes holding symbolic sizes: element by element, each equality
     * decided as a branch on the sizes is ({@link SymSizes#compare}: equal polynomials are equal at
     * every size, a range may decide the rest), stopping at the first difference as Java does.
     */
    private static boolean sameSizes(TraceContext ctx, List<VariableTracker> a, List<VariableTracker> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) {
            if (!SymSizes.compare(ctx, a.get(i), b.get(i), SymSizes.Relation.EQ)) return false;
        }
        return true;
    }

    /** System.arraycopy between tracked arrays; the destination must be an array made during the trace. */
    private static VariableTracker arraycopy(TraceContext ctx, List<VariableTracker> args) {
        List<VariableTracker> src = Containers.itemsOf(ctx, args.get(0));
        ArrayVariable dst = mutableArray(ctx, args.get(2), "System.arraycopy");
        int from = intArg(ctx, args.get(1)), to = intArg(ctx, args.get(3)), n = intArg(ctx, args.get(4));
        if (from < 0 || to < 0 || n < 0 || from + n > src.size() || to + n > dst.items().size()) {
            throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws ArrayIndexOutOfBoundsException from System.arraycopy");
        }
        List<VariableTracker> copied = List.copyOf(src.subList(from, from + n));
        for (int i = 0; i < n; i++) dst.items().set(to + i, copied.get(i));
        return null;
    }

    /**
     * {@code Arrays.sort(a)} or {@code Arrays.sort(a, from, to)} of an array of values known while tracing
     * (an int[] of sizes, a String[]): the JDK's own sort of a copy, written back into the array in place,
     * so a bad range throws its exception and equal elements keep the JDK's order.
     */
    private static VariableTracker sortInPlace(TraceContext ctx, ArrayVariable a, MethodTypeDesc type, List<VariableTracker> args) {
        Object copy = concrete(ctx, a, a.componentType().arrayType(), Arrays.class, "sort");
        reflectOn(ctx, type, args.size() == 1 ? List.of(copy) : List.of(copy, concrete(ctx, args.get(1), int.class, Arrays.class, "sort"),
                concrete(ctx, args.get(2), int.class, Arrays.class, "sort")));
        ArrayVariable target = mutableArray(ctx, a, "Arrays.sort");
        for (int i = 0; i < target.items().size(); i++) target.items().set(i, Fields.constantOf(java.lang.reflect.Array.get(copy, i), a.componentType()));
        return null;
    }

    /** Arrays.sort with real arguments: what it throws is raised for the traced handlers. */
    private static void reflectOn(TraceContext ctx, MethodTypeDesc type, List<Object> jargs) {
        Class<?>[] ptypes = new Class<?>[type.parameterCount()];
        for (int i = 0; i < ptypes.length; i++) ptypes[i] = Values.resolve(type.parameterType(i), Arrays.class);
        try {
            Arrays.class.getMethod("sort", ptypes).invoke(null, jargs.toArray());
        } catch (InvocationTargetException e) {
            throw Exceptions.raise(ctx, e.getCause(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e.getCause() + " from Arrays.sort");
        } catch (ReflectiveOperationException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "cannot evaluate java.util.Arrays.sort: " + e, e);
        }
    }

    private static ArrayVariable mutableArray(TraceContext ctx, VariableTracker v, String what) {
        if (v instanceof ArrayVariable a) {
            if (a.source() != null) ctx.sideEffects.mutated(a);
            return a;
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " on " + v.describe());
    }

    private static int intArg(TraceContext ctx, VariableTracker v) {
        if (v instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected an int known while tracing, got " + v.describe());
    }

    /** Calls the real method on constant arguments and wraps the result as a constant. */
    static VariableTracker reflect(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, Object receiver, List<VariableTracker> args) {
        boolean enumMethod = receiver instanceof Enum<?> && (owner == Enum.class || owner == Object.class);
        // natural, reverse and case-insensitive order compare values known while tracing as they would when run (thenComparing(reverseOrder()) calls it)
        boolean knownComparison = name.equals("compare") && Containers.isKnownComparator(receiver);
        if (receiver != null && !enumMethod && !knownComparison && isJdk(receiver.getClass()) && !VALUE_CLASSES.contains(receiver.getClass())) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "call to " + receiver.getClass().getName() + "." + name + "()");
        }
        Class<?>[] ptypes = new Class<?>[type.parameterCount()];
        Object[] jargs = new Object[ptypes.length];
        for (int i = 0; i < ptypes.length; i++) {
            ptypes[i] = Values.resolve(type.parameterType(i), owner);
            jargs[i] = concrete(ctx, args.get(i), ptypes[i], owner, name);
        }
        Class<?> ret = Values.resolve(type.returnType(), owner);
        try {
            Method m = findPublic(receiver == null ? owner : receiver.getClass(), owner, name, ptypes);
            Object r = m.invoke(receiver, jargs);
            return Fields.constantOf(r, ret);
        } catch (InvocationTargetException e) {
            throw Exceptions.raise(ctx, e.getCause(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e.getCause() + " from " + owner.getSimpleName() + "." + name);
        } catch (ReflectiveOperationException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "cannot evaluate " + owner.getName() + "." + name + ": " + e, e);
        }
    }

    private static Method findPublic(Class<?> cls, Class<?> owner, String name, Class<?>[] ptypes) throws NoSuchMethodException {
        try {
            Method m = owner.getMethod(name, ptypes);
            if (Modifier.isPublic(m.getDeclaringClass().getModifiers())) return m;
        } catch (NoSuchMethodException ignored) {
            // fall through to the receiver's own class
        }
        Method m = cls.getMethod(name, ptypes);
        m.setAccessible(true);
        return m;
    }

    /** A variable as a real Java value for a reflective call; only constants (and containers of them) qualify. */
    static Object concrete(TraceContext ctx, VariableTracker v, Class<?> ptype, Class<?> owner, String name) {
        switch (v) {
            case ConstantVariable c -> {
                return Values.fromStack(c.value(), ptype);
            }
            case ArrayVariable a -> {
                Object arr = Array.newInstance(a.componentType(), a.items().size());
                for (int i = 0; i < a.items().size(); i++) Array.set(arr, i, concrete(ctx, a.items().get(i), a.componentType(), owner, name));
                return arr;
            }
            case ListVariable l -> {
                List<Object> out = new ArrayList<>();
                for (VariableTracker item : l.items()) out.add(concrete(ctx, item, Object.class, owner, name));
                return out;
            }
            case dev.ember.dynamo.variables.StringBuilderVariable sb when ptype.isAssignableFrom(String.class) -> {
                // a pure method given a CharSequence or an Object reads a builder's text only
                return StringBuilders.read(ctx, sb);
            }
            case dev.ember.dynamo.variables.SetVariable s when s.hasIdentityKeys() ->
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "passing " + v.describe() + ", a set holding values equal by identity, to "
                            + owner.getName() + "." + name + "()");
            case dev.ember.dynamo.variables.SetVariable s -> {
                // a set's elements are values known while tracing; a copy keeps its iteration order (when the trace knows it)
                java.util.Set<Object> out = new java.util.LinkedHashSet<>();
                for (VariableTracker item : KeyedContainers.elements(ctx, s)) out.add(concrete(ctx, item, Object.class, owner, name));
                return out;
            }
            case dev.ember.dynamo.variables.MapViewVariable view when view.view() != dev.ember.dynamo.variables.MapViewVariable.View.ENTRIES -> {
                // a map's keySet() or values() (String.join(",", m.keySet())): its items in the map's order, each a value known while tracing
                List<Object> out = new ArrayList<>();
                for (VariableTracker item : KeyedContainers.elements(ctx, view)) out.add(concrete(ctx, item, Object.class, owner, name));
                return out;
            }
            case SymSizeVariable s -> throw SymSizes.specialize(ctx, s, null, "passing it to " + owner.getName() + "." + name + "()");
            default -> {
                GraphBreakType t = v instanceof dev.ember.dynamo.variables.TensorVariable ? GraphBreakType.TENSOR_TO_STRING : GraphBreakType.UNSUPPORTED_CALL;
                if (t == GraphBreakType.TENSOR_TO_STRING && !(owner == String.class || name.equals("toString") || name.equals("valueOf"))) {
                    t = GraphBreakType.UNSUPPORTED_CALL;
                }
                throw ctx.unsupported(t, "passing " + v.describe() + " to " + owner.getName() + "." + name + "()");
            }
        }
    }
}
