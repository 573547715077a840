package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.Construction;
import dev.ember.dynamo.variables.EntryVariable;
import dev.ember.dynamo.variables.IdentityKey;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.KeyedVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapVariable;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.dynamo.variables.ReadOnlyVariable;
import dev.ember.dynamo.variables.SetVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * java.util.Map and Set methods on tracked maps and sets, their key/value/entry views and entries.
 * Lookups run on real Java containers of the keys, so equality, ordering and exceptions are Java's;
 * mutations of a container from the inputs are logged and replayed after the graph.
 */
final class KeyedContainers {
    private KeyedContainers() {}

    private static final MethodTypeDesc BI_CONSUMER_ACCEPT = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_Object, ConstantDescs.CD_Object);
    private static final MethodTypeDesc CONSUMER_ACCEPT = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_Object);
    private static final MethodTypeDesc FUNCTION_APPLY = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_Object);
    private static final MethodTypeDesc BI_FUNCTION_APPLY = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_Object, ConstantDescs.CD_Object);

    /** Map and set classes made during the trace; each has a no-argument, a capacity (not TreeMap/TreeSet) and a copy constructor. */
    static final Set<Class<?>> MAP_CLASSES = Set.of(java.util.HashMap.class, java.util.LinkedHashMap.class, java.util.TreeMap.class);
    static final Set<Class<?>> SET_CLASSES = Set.of(java.util.HashSet.class, java.util.LinkedHashSet.class, java.util.TreeSet.class);

    /** Whether {@code v} can be a tracked key: its equality (and hash and order) are those of a value known while tracing. */
    static boolean isKeyValue(Object v) {
        return v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Character || v instanceof Enum<?>;
    }

    /**
     * A key or set element as the real container holds it: a value known while tracing (equal by
     * value), or an {@link IdentityKey} for a value whose equality is identity (a tensor, a module,
     * an object of a class with Object's equals), which a TreeMap or TreeSet cannot hold.
     */
    static Object key(TraceContext ctx, VariableTracker v, String method) {
        if (v instanceof ConstantVariable c && isKeyValue(c.value())) return c.value();
        if (v instanceof ConstantVariable c && c.value() == null) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, method + "(null): a null key is looked up in the real container "
                    + "(a HashMap allows it, a TreeMap or Map.of throws)");
        }
        IdentityKey identity = IdentityKey.of(v);
        if (identity != null) return identity;
        if (v instanceof ListVariable l && !l.isArrayDeque() && !l.isCollectionOnly()) return listKey(ctx, l, method);
        // a record made in the trace whose equals and hashCode are javac's: equal to another by its components' keys
        if (v instanceof dev.ember.dynamo.variables.UserObjectVariable u && u.isFresh() && u.type().isRecord() && RecordMethods.generatesEquality(u.type())) {
            List<Object> components = new java.util.ArrayList<>();
            components.add(u.type());
            for (var rc : u.type().getRecordComponents()) {
                VariableTracker c = u.fields().get(rc.getName());
                components.add(c == null ? Values.zero(rc.getType()) : key(ctx, c, method));
            }
            Integer hash = RecordMethods.hashCodeOf(u.type(), components.subList(1, components.size()));
            return hash == null ? IdentityKey.byValue(components, v) : IdentityKey.byValue(components, v, hash);
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, method + " with the key " + v.describe()
                + ": a tracked map's keys and a set's elements must be strings, numbers, enums or booleans (equal by value), records made in "
                + "the function of such values, or tensors, modules and objects whose class keeps Object's equals and hashCode (equal by identity)");
    }

    /**
     * A list as a key (Map&lt;List&lt;Integer&gt;, Tensor&gt;): equal, as Java's lists are, to any list of
     * equal elements in the same order (an ArrayList to a List.of), and hashed as List.hashCode
     * hashes them (31 h + each element's hash), known when each element's is; the key the
     * container holds is the program's list itself.
     */
    private static Object listKey(TraceContext ctx, ListVariable l, String method) {
        List<Object> equality = new ArrayList<>();
        equality.add(List.class);
        Integer hash = 1;
        for (VariableTracker item : Containers.itemsOf(ctx, l)) {
            Object k = key(ctx, item, method);
            equality.add(k);
            Integer h = k instanceof IdentityKey ik ? (ik.hashKnown() ? Integer.valueOf(ik.hashCode()) : null) : Integer.valueOf(k.hashCode());
            hash = hash == null || h == null ? null : 31 * hash + h;
        }
        return hash == null ? IdentityKey.byValue(equality, l) : IdentityKey.byValue(equality, l, hash);
    }

    /**
     * A list put in a container as a key must not change afterwards (Java's HashMap would no longer
     * find it where its new hash points, a trace's key keeps its elements as they were): an
     * immutable list is traced, a list the program can still change breaks the graph.
     */
    private static void keptKey(TraceContext ctx, Object key, String what) {
        if (key instanceof IdentityKey ik && ik.value() instanceof ListVariable l && (l.isMutable() || l.isView() || l.isFixedSize())) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " with the key " + l.describe() + ", a list the program can still change: "
                    + "a key is traced when it is an immutable list (List.of, List.copyOf, toList())");
        }
    }

    /** {@link #key} for a container of class {@code type}: a sorted one compares its keys, which an identity key cannot be. */
    static Object key(TraceContext ctx, KeyedVariable container, VariableTracker v, String method) {
        Object k = key(ctx, v, method);
        if (k instanceof IdentityKey && container.comparator() == null
                && (java.util.SortedMap.class.isAssignableFrom(container.type()) || java.util.SortedSet.class.isAssignableFrom(container.type()))) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, method + " with the key " + v.describe() + " on a " + container.type().getSimpleName()
                    + ", which compares its keys: the trace does not evaluate the comparison (eager throws ClassCastException for a tensor)");
        }
        return k;
    }

    /** The variable a key stands for: an identity key's value, or the constant. */
    static VariableTracker keyVariable(Object k) { return k instanceof IdentityKey ik ? ik.value() : ConstantVariable.of(k); }

    /** Input maps and sets tracked: the mutable classes (their changes are replayed) and Java's immutable ones (Map.of, Set.of). */
    private static final Set<Class<?>> IMMUTABLE_CLASSES = Set.copyOf(List.of(Map.of().getClass(), Map.of(1, 1).getClass(),
            Map.of(1, 1, 2, 2).getClass(), Set.of().getClass(), Set.of(1).getClass(), Set.of(1, 2, 3).getClass()));

    /** Whether an input value is tracked as a {@link KeyedVariable}: a map or set of a known class, natural order, keys known by value. */
    static boolean tracksInput(Object value) { return whyUntracked(value, null).isEmpty() && (value instanceof Map<?, ?> || value instanceof Set<?>); }

    /** Why the map or set {@code value} (read from {@code source}) is not tracked, as a parenthesis for a message; empty when it is, or is no map or set. */
    static String whyUntracked(Object value, dev.ember.dynamo.source.Source source) {
        if (value instanceof java.util.Iterator<?> && value.getClass().getEnclosingClass() == java.util.HashMap.class) {
            // a HashSet's or HashMap's own iterator, made eagerly at a break (its iterator() call, whose order the trace could not know)
            return " (" + (source == null ? "an iterator" : source.name() + ", an iterator") + " of a HashSet or HashMap, handed on past a graph break: it "
                    + "walks the hash table in the order of its keys' hash codes, which for tensors (and other objects with Object's hashCode) are "
                    + "identity hash codes, known only when the program runs, so the trace cannot follow it and each step of the loop runs "
                    + "eagerly. Use a LinkedHashSet or LinkedHashMap: it iterates in insertion order, which the trace follows in one graph)";
        }
        Collection<?> keys = value instanceof Map<?, ?> m ? m.keySet() : value instanceof Set<?> s ? s : null;
        if (keys == null) return "";
        String name = source == null ? "the " + value.getClass().getSimpleName() : source.name();
        Class<?> cls = value.getClass();
        if (!JdkCalls.isJdk(cls) && jdkBase(cls) != null) {
            // the user's subclass of a HashMap, …: modelled as the container when it adds methods only (its own are traced)
            String why = whyNotModelledSubclass(cls);
            if (why != null) return " (" + name + " is a " + cls.getName() + ": " + why + ")";
        } else if (!MAP_CLASSES.contains(cls) && !SET_CLASSES.contains(cls) && !IMMUTABLE_CLASSES.contains(cls) && !isEnumKeyed(value)) {
            return " (" + name + " is a " + cls.getName() + "; Ember tracks HashMap, LinkedHashMap, TreeMap, EnumMap and Map.of maps and HashSet, "
                    + "LinkedHashSet, TreeSet, EnumSet and Set.of sets)";
        }
        if (value instanceof java.util.SortedMap<?, ?> sm && sm.comparator() != null || value instanceof java.util.SortedSet<?> ss && ss.comparator() != null) {
            return " (" + name + " is sorted by a comparator: a TreeMap or TreeSet made in the function with one is traced, one passed in"
                    + " or handed on past a graph break is not)";
        }
        for (Object k : keys) {
            if (!isKeyValue(k) && !(k instanceof dev.ember.tensor.Tensor && !(value instanceof java.util.SortedMap<?, ?> || value instanceof java.util.SortedSet<?>))) {
                return " (" + name + " has the key " + (k == null ? "null" : "of class " + k.getClass().getName()) + ": a tracked map's keys and a set's "
                        + "elements must be strings, numbers, enums, booleans or tensors, whose equality is known while tracing; key it by name instead)";
            }
        }
        return "";
    }

    /**
     * An EnumMap or EnumSet: keys are the constants of one enum, iterated in their declaration order
     * (a TreeMap or TreeSet of them iterates alike, so the trace keeps their order under inserts).
     */
    static boolean isEnumKeyed(Object value) { return value instanceof java.util.EnumMap<?, ?> || value instanceof java.util.EnumSet<?>; }

    /**
     * {@code EnumSet.allOf/noneOf/of/range/copyOf/complementOf}, run on the real values: a mutable
     * EnumSet made in the trace, whose iteration is the enum's order.
     */
    @SuppressWarnings("unchecked")
    static SetVariable enumSet(TraceContext ctx, String name, MethodTypeDesc type, List<VariableTracker> args) {
        String what = "EnumSet." + name + "()";
        Object[] values = new Object[args.size()];
        Class<?>[] types = new Class<?>[args.size()];
        for (int i = 0; i < values.length; i++) {
            VariableTracker a = args.get(i);
            Class<?> param = Values.resolve(type.parameterType(i), java.util.EnumSet.class);
            types[i] = param;
            values[i] = switch (a) {
                case SetVariable s -> {
                    Collection<Object> elements = ordered(ctx, s, what).elements();
                    if (!java.util.EnumSet.class.isAssignableFrom(s.type())) yield new ArrayList<>(elements);
                    if (elements.isEmpty()) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " of an empty EnumSet: its enum is not known while tracing");
                    yield java.util.EnumSet.copyOf((Collection<Enum>) (Collection<?>) elements);
                }
                case ListVariable l when param == Collection.class -> {
                    List<Object> elements = new ArrayList<>();
                    for (VariableTracker item : Containers.itemsOf(ctx, l)) elements.add(key(ctx, item, what));
                    yield elements;
                }
                case ArrayVariable arr -> {
                    Object array = java.lang.reflect.Array.newInstance(param.getComponentType(), arr.items().size());
                    for (int j = 0; j < arr.items().size(); j++) java.lang.reflect.Array.set(array, j, JdkCalls.concrete(ctx, arr.items().get(j), param.getComponentType(), java.util.EnumSet.class, name));
                    yield array;
                }
                default -> JdkCalls.concrete(ctx, a, param, java.util.EnumSet.class, name);
            };
        }
        Set<Object> made = real(ctx, what, () -> {
            try {
                return (Set<Object>) java.util.EnumSet.class.getMethod(name, types).invoke(null, values);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw (RuntimeException) e.getCause();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        SetVariable set = new SetVariable(made.getClass(), made, true, null);
        set.constructed(made, Construction.copyOf(List.copyOf(made)));
        return set;
    }

    /** A fresh map or set for {@code new cls} (a JDK class, or a user class extending one): its constructor call ({@link #construct}) may replace the container. */
    static KeyedVariable fresh(Class<?> cls) {
        Class<?> base = jdkBase(cls);
        if (MAP_CLASSES.contains(base)) return new MapVariable(cls, newInstance(base), true, null);
        return new SetVariable(cls, newInstance(base), true, null);
    }

    /** The map or set class of {@link #MAP_CLASSES} and {@link #SET_CLASSES} that {@code cls} is or extends, or null. */
    static Class<?> jdkBase(Class<?> cls) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            if (MAP_CLASSES.contains(c) || SET_CLASSES.contains(c)) return c;
            if (JdkCalls.isJdk(c)) return null;
        }
        return null;
    }

    /**
     * Why objects of the user's subclass {@code cls} of a HashMap, LinkedHashMap, HashSet, … are not
     * modelled as that container, or null when they are: the subclass may add methods (traced, with
     * the container as {@code this}), but not fields (the container holds none of its own) nor an
     * override of a method of the JDK class (whose other methods may call it, as HashSet.addAll
     * calls add, and LinkedHashMap.put calls removeEldestEntry).
     */
    static String whyNotModelledSubclass(Class<?> cls) {
        Class<?> base = jdkBase(cls);
        for (Class<?> c = cls; c != base; c = c.getSuperclass()) {
            for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                if (!java.lang.reflect.Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                    return "it declares the field " + f.getName() + ", and a subclass of " + base.getSimpleName() + " is modelled as the container alone";
                }
            }
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                // a bridge counts: put(String, Integer) overrides HashMap.put through the bridge put(Object, Object) javac adds
                if (java.lang.reflect.Modifier.isStatic(m.getModifiers()) || m.isSynthetic() && !m.isBridge()) continue;
                for (Class<?> j = base; j != null; j = j.getSuperclass()) {
                    try {
                        java.lang.reflect.Method over = j.getDeclaredMethod(m.getName(), m.getParameterTypes());
                        if (!java.lang.reflect.Modifier.isPrivate(over.getModifiers()) && !java.lang.reflect.Modifier.isStatic(over.getModifiers())) {
                            return "it overrides " + j.getSimpleName() + "." + m.getName() + ", which the JDK's own methods may call";
                        }
                    } catch (NoSuchMethodException e) {
                        // not declared there: look further up
                    }
                }
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static <T> T newInstance(Class<?> cls) {
        try {
            return (T) cls.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code Map.of(k1, v1, …)} or {@code Set.of(…)}: the real immutable container of the keys, in the order Java gives it. */
    static KeyedVariable immutableOf(TraceContext ctx, Class<?> owner, MethodTypeDesc type, List<VariableTracker> args) {
        String what = owner.getSimpleName() + ".of()";
        if (owner == Set.class) {
            List<VariableTracker> items = type.parameterCount() == 1 && type.parameterType(0).isArray() ? Containers.itemsOf(ctx, args.getFirst()) : args;
            Object[] elements = new Object[items.size()];
            for (int i = 0; i < elements.length; i++) elements[i] = key(ctx, items.get(i), what);
            Set<Object> made = real(ctx, what, () -> Set.of(elements));
            SetVariable set = new SetVariable(made.getClass(), made, false, null);
            set.constructed(made, Construction.copyOf(List.of(elements)));
            return set;
        }
        Object[] kv = new Object[args.size()];
        for (int i = 0; i < kv.length; i += 2) {
            kv[i] = key(ctx, args.get(i), what);
            kv[i + 1] = args.get(i + 1);
        }
        Map<Object, VariableTracker> made = real(ctx, what, () -> mapOf(kv));
        MapVariable map = new MapVariable(made.getClass(), made, false, null);
        List<Object> order = new ArrayList<>();
        for (int i = 0; i < kv.length; i += 2) order.add(kv[i]);
        map.constructed(made, Construction.copyOf(order));
        return map;
    }

    /**
     * {@code Set.copyOf(c)} or {@code Map.copyOf(m)}, as Java computes them: an immutable container
     * given is returned as it is; otherwise Set.copyOf makes {@code Set.of(new HashSet<>(c).toArray())}
     * (duplicates dropped, elements in that HashSet's order) and Map.copyOf {@code Map.ofEntries}
     * of the map's entries in its order; the rebuilt container after the graph is made the same way.
     */
    static KeyedVariable immutableCopyOf(TraceContext ctx, Class<?> owner, VariableTracker arg) {
        String what = owner.getSimpleName() + ".copyOf()";
        if (arg instanceof KeyedVariable k && !k.isMutable() && (owner == Set.class ? k instanceof SetVariable : k instanceof MapVariable)) return k;
        if (owner == Set.class) {
            Collection<Object> elements = collectionOf(ctx, arg, what);
            Object[] distinct = new java.util.HashSet<>(elements).toArray();
            Set<Object> made = real(ctx, what, () -> Set.of(distinct));
            SetVariable set = new SetVariable(made.getClass(), made, false, null);
            set.constructed(made, Construction.copyOf(List.of(distinct)));
            return set;
        }
        if (!(arg instanceof MapVariable source)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " of " + arg.describe() + " (a tracked map is copied)");
        }
        Map<Object, VariableTracker> entries = ordered(ctx, source, what).entries();
        List<Object> order = new ArrayList<>(entries.keySet());
        @SuppressWarnings("unchecked")
        Map<Object, VariableTracker> made = real(ctx, what, () -> Map.ofEntries(order.stream().map(key -> Map.entry(key, entries.get(key))).toArray(Map.Entry[]::new)));
        MapVariable map = new MapVariable(made.getClass(), made, false, null);
        map.constructed(made, Construction.copyOf(order));
        return map;
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, VariableTracker> mapOf(Object[] kv) {
        try {
            return (Map<Object, VariableTracker>) Map.class.getMethod("of", java.util.Collections.nCopies(kv.length, Object.class).toArray(Class<?>[]::new)).invoke(null, kv);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw (RuntimeException) e.getCause();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code <init>} of a map or set made in the trace: the default, capacity or copy constructor, run on the real container. */
    static void construct(TraceContext ctx, KeyedVariable k, MethodTypeDesc type, List<VariableTracker> args) {
        if (args.isEmpty()) return;
        String what = "new " + k.type().getSimpleName() + "(" + args.stream().map(VariableTracker::describe).toList() + ")";
        String declared = type.parameterType(0).descriptorString();
        if (args.size() == 1 && declared.equals("Ljava/util/Comparator;")) {
            sortedBy(ctx, k, args.getFirst(), what);
            return;
        }
        // new TreeMap<>(sortedMap), new TreeSet<>(sortedSet): the copy keeps the source's comparator
        if (args.size() == 1 && (declared.equals("Ljava/util/SortedMap;") || declared.equals("Ljava/util/SortedSet;"))
                && args.getFirst() instanceof KeyedVariable from && from.comparator() != null) {
            // the JDK's copy takes the source's comparator and its sorted entries without comparing them
            Object made = switch (from) {
                case MapVariable m -> newWith(jdkBase(k.type()), java.util.SortedMap.class, m.entries());
                case SetVariable set -> newWith(jdkBase(k.type()), java.util.SortedSet.class, set.elements());
            };
            k.comparator(from.comparator());
            install(k, made, Construction.DEFAULT);
            return;
        }
        if (k.type() == java.util.IdentityHashMap.class) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " (new IdentityHashMap<>() is traced; a size or a copy is not)");
        }
        if (k.type() == java.util.EnumMap.class) {
            if (args.size() == 1 && args.getFirst() instanceof ConstantVariable c && c.value() instanceof Class<?> keyType) {
                Object made = real(ctx, what, () -> newWith(java.util.EnumMap.class, Class.class, keyType));
                install(k, made, Construction.ofKeyType(keyType));
                return;
            }
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " (new EnumMap<>(Key.class) is traced; a copy of a map is not)");
        }
        if (args.size() != 1) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " (a load factor or comparator is not tracked)");
        VariableTracker arg = args.getFirst();
        Class<?> base = jdkBase(k.type());
        if (arg instanceof ConstantVariable c && c.value() instanceof Integer capacity && !base.getSimpleName().startsWith("Tree")) {
            Object made = real(ctx, what, () -> newWith(base, int.class, capacity));
            install(k, made, Construction.withCapacity(capacity));
            return;
        }
        Object from = k instanceof MapVariable ? (arg instanceof MapVariable m ? ordered(ctx, m, what).entries() : userMapEntries(ctx, arg, what))
                : collectionOf(ctx, arg, what);
        if (from == null) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " (only a tracked map, a map of the user's, or a capacity, is copied)");
        Class<?> param = k instanceof MapVariable ? Map.class : Collection.class;
        for (Object key : from instanceof Map<?, ?> fm ? fm.keySet() : (Collection<?>) from) {
            sortable(ctx, k, key, what);
            keptKey(ctx, key, what);
        }
        Object made = real(ctx, what, () -> newWith(base, param, from));
        List<Object> keys = new ArrayList<>(from instanceof Map<?, ?> m ? m.keySet() : (Collection<?>) from);
        install(k, made, Construction.copyOf(keys));
    }

    private static final MethodTypeDesc COMPARATOR_COMPARE = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_Object, ConstantDescs.CD_Object);

    /**
     * {@code new TreeMap<>(comparator)} or {@code new TreeSet<>(comparator)}: the real container
     * sorts by the program's comparator, asked through the trace ({@link #traced}), so it asks the
     * same pairs in the same order as eager's TreeMap.
     */
    private static void sortedBy(TraceContext ctx, KeyedVariable k, VariableTracker comparator, String what) {
        if (!java.util.SortedMap.class.isAssignableFrom(k.type()) && !java.util.SortedSet.class.isAssignableFrom(k.type())) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " (a comparator orders a TreeMap or TreeSet)");
        }
        if (comparator instanceof ConstantVariable c && c.value() == null) return;    // a null comparator is natural order
        Class<?> base = jdkBase(k.type());
        Object made = newWith(base, java.util.Comparator.class, traced(ctx, comparator));
        k.comparator(comparator);
        install(k, made, Construction.DEFAULT);
    }

    /**
     * The program's comparator as the real container calls it: natural, reverse or case-insensitive
     * order ({@link Containers#KNOWN_COMPARATORS}) compares values known while tracing itself; any other, and any key that is a value of the trace (a tensor), has its
     * {@code compare} traced, whose answer must be an int known while tracing. What the comparator
     * throws is the program's exception, thrown out of the container's method as eager's is.
     */
    @SuppressWarnings("unchecked")
    private static java.util.Comparator<Object> traced(TraceContext ctx, VariableTracker comparator) {
        // one real comparator per traced one: TreeMap.putAll and new TreeMap<>(sortedMap) copy without comparing when the comparators are equal
        return ctx.realComparators.computeIfAbsent(comparator, c -> tracedComparator(ctx, c));
    }

    @SuppressWarnings("unchecked")
    private static java.util.Comparator<Object> tracedComparator(TraceContext ctx, VariableTracker comparator) {
        return (a, b) -> {
            if (comparator instanceof ConstantVariable c && c.value() instanceof java.util.Comparator<?> jdk && Containers.isKnownComparator(jdk)
                    && !(a instanceof IdentityKey) && !(b instanceof IdentityKey)) {
                return ((java.util.Comparator<Object>) jdk).compare(a, b);
            }
            VariableTracker r = Invoker.invokeVirtual(ctx, java.util.Comparator.class, "compare", COMPARATOR_COMPARE, comparator, List.of(keyVariable(a), keyVariable(b)));
            if (r instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "the comparator of a sorted container gave " + r.describe()
                    + ": the trace orders keys by ints it knows (compare sizes or names, not tensor values)");
        };
    }

    private static final MethodTypeDesc ENTRY_SET = MethodTypeDesc.of(java.lang.constant.ClassDesc.of("java.util.Set"));
    private static final MethodTypeDesc ENTRY_PART = MethodTypeDesc.of(ConstantDescs.CD_Object);

    /**
     * The entries of a map of the user's (a subclass of AbstractMap, a Map implemented over a field),
     * in its entry set's order, as {@code new HashMap<>(m)} reads them: the user's {@code entrySet()},
     * its iterator and each entry's {@code getKey()}/{@code getValue()} traced. Null for any other value.
     */
    private static Map<Object, VariableTracker> userMapEntries(TraceContext ctx, VariableTracker arg, String what) {
        if (!(arg instanceof dev.ember.dynamo.variables.UserObjectVariable u) || JdkCalls.isJdk(u.type()) || !Map.class.isAssignableFrom(u.type())) return null;
        VariableTracker entrySet = Invoker.invokeVirtual(ctx, Map.class, "entrySet", ENTRY_SET, u, List.of());
        Map<Object, VariableTracker> out = new java.util.LinkedHashMap<>();
        for (VariableTracker e : Containers.copiedElements(ctx, entrySet, what)) {
            VariableTracker key = Invoker.invokeVirtual(ctx, Map.Entry.class, "getKey", ENTRY_PART, e, List.of());
            VariableTracker value = Invoker.invokeVirtual(ctx, Map.Entry.class, "getValue", ENTRY_PART, e, List.of());
            out.put(key(ctx, key, what), value);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void install(KeyedVariable k, Object made, Construction how) {
        switch (k) {
            case MapVariable m -> m.constructed((Map<Object, VariableTracker>) made, how);
            case SetVariable s -> s.constructed((Set<Object>) made, how);
        }
    }

    private static Object newWith(Class<?> cls, Class<?> param, Object arg) {
        try {
            return cls.getConstructor(param).newInstance(arg);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw (RuntimeException) e.getCause();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The elements of a collection (a list, a deque, a set, a map's view, a collection of the user's), as the real container's keys, in their order. */
    private static Collection<Object> collectionOf(TraceContext ctx, VariableTracker v, String method) {
        List<Object> out = new ArrayList<>();
        switch (v) {
            case SetVariable s -> out.addAll(ordered(ctx, s, method).elements());
            case MapViewVariable view when view.view() == MapViewVariable.View.KEYS -> out.addAll(ordered(ctx, view.map(), method).keys());
            default -> {
                for (VariableTracker item : Containers.copiedElements(ctx, v, method)) out.add(key(ctx, item, method));
            }
        }
        return out;
    }

    /**
     * The methods that may change a map or set: on an immutable one (Map.of, Set.of) Java throws
     * UnsupportedOperationException whatever the arguments, even where nothing would change
     * ({@code putIfAbsent} of a present key, {@code removeAll} of nothing), so the check comes first.
     */
    private static final Set<String> MAP_MUTATORS = Set.of("put", "putAll", "putIfAbsent", "remove", "clear", "compute", "computeIfAbsent",
            "computeIfPresent", "merge", "replace", "replaceAll");
    private static final Set<String> SET_MUTATORS = Set.of("add", "addAll", "remove", "removeAll", "retainAll", "removeIf", "clear");

    static VariableTracker mapMethod(TraceContext ctx, MapVariable m, String name, List<VariableTracker> args) {
        // queries of keys and the reads of one value leave the input map's other values unread (unguarded)
        Map<Object, VariableTracker> keyed = m.keyedEntries();
        String what = "Map." + name + "()";
        if (!m.isMutable() && MAP_MUTATORS.contains(name)) mutable(ctx, m, what);
        switch (name) {
            case "size", "isEmpty" -> { return sizeQuery(name, keyed.size()); }
            case "containsKey" -> { return bool(real(ctx, what, () -> keyed.containsKey(key(ctx, m, args.getFirst(), what)))); }
            case "get", "getOrDefault" -> {
                Object k = key(ctx, m, args.getFirst(), what);
                if (m.comparator() != null) {
                    // the lookups eager's make, so the program's comparator is asked as often: TreeMap.get descends once; Map's
                    // getOrDefault (TreeMap keeps it) asks containsKey too when get gave null (a value held here is never Java's
                    // null: a null value is ConstantVariable.NULL)
                    VariableTracker found = real(ctx, what, () -> keyed.get(k));
                    if (name.equals("get")) return orNull(found);
                    if (found != null && !isNull(found)) return found;
                    return real(ctx, what, () -> keyed.containsKey(k)) ? found : args.get(1);
                }
                if (real(ctx, what, () -> keyed.containsKey(k))) return orNull(m.value(k));
                return name.equals("get") ? orNull(null) : args.get(1);
            }
            default -> { }
        }
        Map<Object, VariableTracker> e = m.entries();
        return switch (name) {
            case "put" -> put(ctx, m, key(ctx, m, args.get(0), what), args.get(1), what);
            case "putIfAbsent" -> {
                Object k = key(ctx, m, args.get(0), what);
                if (m.comparator() != null) yield sortedRemap(ctx, m, name, k, args, what);
                VariableTracker old = real(ctx, what, () -> e.get(k));
                // Java's putIfAbsent also replaces a null value
                yield old == null || isNull(old) ? put(ctx, m, k, args.get(1), what) : old;
            }
            case "remove" -> {
                if (args.size() != 1) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Map.remove(key, value) on a tracked map");
                yield orNull(remove(ctx, m, key(ctx, m, args.getFirst(), what), what));
            }
            case "clear" -> {
                mutable(ctx, m, what);
                e.clear();
                m.changes().cleared();
                yield null;
            }
            case "putAll" -> {
                if (!(args.getFirst() instanceof MapVariable from)) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Map.putAll() with " + args.getFirst().describe() + " (a tracked map is copied)");
                }
                for (var entry : List.copyOf(ordered(ctx, from, what).entries().entrySet())) put(ctx, m, entry.getKey(), entry.getValue(), what);
                yield null;
            }
            case "computeIfAbsent" -> m.comparator() != null ? sortedRemap(ctx, m, name, key(ctx, m, args.get(0), what), args, what)
                    : computeIfAbsent(ctx, m, key(ctx, m, args.get(0), what), args.get(1), what);
            case "computeIfPresent", "compute", "merge" -> m.comparator() != null ? sortedRemap(ctx, m, name, key(ctx, m, args.get(0), what), args, what)
                    : remap(ctx, m, name, key(ctx, m, args.get(0), what), args, what);
            case "replaceAll" -> {
                int before = m.changes().count();
                for (var entry : List.copyOf(ordered(ctx, m, what).entries().entrySet())) {
                    VariableTracker made = Invoker.invokeVirtual(ctx, java.util.function.BiFunction.class, "apply", BI_FUNCTION_APPLY, args.getFirst(),
                            List.of(keyVariable(entry.getKey()), entry.getValue()));
                    if (m.changes().count() != before) throw concurrentModification(ctx, what);
                    replaceValue(ctx, m, entry.getKey(), made, what);
                }
                yield null;
            }
            case "equals" -> {
                if (m.type() == java.util.IdentityHashMap.class) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " of an IdentityHashMap (it compares values by identity)");
                yield bool(mapEquals(ctx, m, args.getFirst(), what));
            }
            case "hashCode" -> {
                // AbstractMap's: the sum of each entry's key hash XOR value hash, known when every key and value hashes by value
                if (m.type() == java.util.IdentityHashMap.class) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " of an IdentityHashMap (it hashes by identity)");
                int h = 0;
                for (var entry : m.entries().entrySet()) {
                    int keyHash = switch (entry.getKey()) {
                        case IdentityKey k when k.hashKnown() -> k.hashCode();
                        case IdentityKey k -> Containers.valueHashCode(ctx, k.value(), what + " of a map with the key ");
                        case Object k -> Containers.valueHashCode(ctx, ConstantVariable.of(k), what + " of a map with the key ");
                    };
                    h += keyHash ^ Containers.valueHashCode(ctx, entry.getValue(), what + " of a map with the value ");
                }
                yield ConstantVariable.of(h);
            }
            case "firstKey", "lastKey", "higherKey", "lowerKey", "ceilingKey", "floorKey" -> {
                if (!(e instanceof java.util.NavigableMap<Object, VariableTracker> nm)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a tracked map");
                yield navigate(ctx, nm.navigableKeySet(), name.substring(0, name.length() - 3), args.isEmpty() ? null : key(ctx, m, args.getFirst(), what), what);
            }
            case "firstEntry", "lastEntry", "higherEntry", "lowerEntry", "ceilingEntry", "floorEntry" -> {
                // TreeMap's: a snapshot of the entry (an immutable pair; setValue refuses), or null where there is none
                if (!(e instanceof java.util.NavigableMap<Object, VariableTracker> nm)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a tracked map");
                String direction = name.substring(0, name.length() - "Entry".length());
                if (nm.isEmpty()) yield ConstantVariable.NULL;
                Object at = args.isEmpty() ? null : key(ctx, m, args.getFirst(), what);
                Map.Entry<Object, VariableTracker> found = real(ctx, what, () -> switch (direction) {
                    case "first" -> nm.firstEntry();
                    case "last" -> nm.lastEntry();
                    case "higher" -> nm.higherEntry(at);
                    case "lower" -> nm.lowerEntry(at);
                    case "ceiling" -> nm.ceilingEntry(at);
                    default -> nm.floorEntry(at);
                });
                yield found == null ? ConstantVariable.NULL : new dev.ember.dynamo.variables.ImmutableEntryVariable(keyVariable(found.getKey()), found.getValue());
            }
            case "comparator" -> comparatorOf(ctx, m, what);
            case "headMap", "tailMap", "subMap", "descendingMap" -> sortedView(ctx, m, name, args, what);
            case "keySet" -> m.view(MapViewVariable.View.KEYS);
            case "values" -> m.view(MapViewVariable.View.VALUES);
            case "entrySet" -> m.view(MapViewVariable.View.ENTRIES);
            case "forEach" -> {
                int before = m.changes().count();
                for (var entry : List.copyOf(ordered(ctx, m, what).entries().entrySet())) {
                    Invoker.invokeVirtual(ctx, java.util.function.BiConsumer.class, "accept", BI_CONSUMER_ACCEPT, args.getFirst(),
                            List.of(keyVariable(entry.getKey()), entry.getValue()));
                }
                if (m.changes().count() != before) throw concurrentModification(ctx, what);
                yield null;
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a tracked map");
        };
    }

    private static VariableTracker put(TraceContext ctx, MapVariable m, Object key, VariableTracker value, String what) {
        return put(ctx, m, key, value, what, false);
    }

    /**
     * {@code put}, or ({@code computed}) the insertion compute, computeIfAbsent and merge make,
     * which a HashMap puts at the head of the key's bin rather than at its tail: made on the real
     * map the same way, so keys sharing a bin iterate in eager's order.
     */
    private static VariableTracker put(TraceContext ctx, MapVariable m, Object key, VariableTracker value, String what, boolean computed) {
        mutable(ctx, m, what);
        if (m.type() == java.util.IdentityHashMap.class && !(key instanceof IdentityKey || key instanceof Enum<?>)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " of the key " + key + " into an IdentityHashMap, which tells keys apart by "
                    + "identity: a string's or a number's identity is not known while tracing (enum constants, tensors and objects are traced)");
        }
        sortable(ctx, m, key, what);
        if (m.comparator() != null) {
            keptKey(ctx, key, what);
            // one descent, as eager's TreeMap.put: the program's comparator is asked as often as eager asks it
            VariableTracker old = real(ctx, what, () -> m.entries().put(key, value));
            if (old == null) m.changes().inserted(key);
            return orNull(old);
        }
        boolean present = real(ctx, what, () -> m.entries().containsKey(key));
        // a present key stays the one the map holds (Java's put keeps it)
        if (!present) keptKey(ctx, key, what);
        if (computed && !present) {
            real(ctx, what, () -> m.entries().compute(key, (k, v) -> value));
            m.changes().computed(key);
            return ConstantVariable.NULL;
        }
        VariableTracker old = real(ctx, what, () -> m.entries().put(key, value));
        if (!present) m.changes().inserted(key);
        return orNull(old);
    }

    /**
     * The value of a key present in {@code m} replaced, as an entry's setValue or replaceAll does:
     * in place, without looking the key up (so a comparator map's comparator is not asked, as eager's is not).
     */
    private static void replaceValue(TraceContext ctx, MapVariable m, Object key, VariableTracker value, String what) {
        if (m.comparator() == null) {
            put(ctx, m, key, value, what);
            return;
        }
        mutable(ctx, m, what);
        m.replaceHeldValue(key, value);
    }

    /**
     * putIfAbsent, computeIfAbsent, computeIfPresent, compute and merge on a map sorted by the
     * program's comparator: run as one {@code compute} on the real TreeMap (one descent, as each of
     * eager's does), the function traced inside it with Java's rules for each method (a null value
     * counts as absent; a null result removes); a function that changes the map makes the real
     * TreeMap throw ConcurrentModificationException, as eager's does.
     */
    private static VariableTracker sortedRemap(TraceContext ctx, MapVariable m, String name, Object key, List<VariableTracker> args, String what) {
        mutable(ctx, m, what);
        sortable(ctx, m, key, what);
        keptKey(ctx, key, what);
        VariableTracker fn = args.getLast();
        if (!name.equals("putIfAbsent") && (isNull(fn) || name.equals("merge") && isNull(args.get(1)))) {
            throw Exceptions.raise(ctx, new NullPointerException(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws NullPointerException: " + what
                    + " with a null " + (isNull(fn) ? "function" : "value"));
        }
        VariableTracker[] before = new VariableTracker[1];
        VariableTracker after = real(ctx, what, () -> m.entries().compute(key, (k, old) -> {
            before[0] = old;
            boolean hasValue = old != null && !isNull(old);
            VariableTracker made = switch (name) {
                case "putIfAbsent" -> hasValue ? old : args.get(1);
                case "computeIfAbsent" -> hasValue ? old : Invoker.invokeVirtual(ctx, java.util.function.Function.class, "apply", FUNCTION_APPLY, fn, List.of(keyVariable(key)));
                case "computeIfPresent" -> !hasValue ? old : Invoker.invokeVirtual(ctx, java.util.function.BiFunction.class, "apply", BI_FUNCTION_APPLY, fn, List.of(keyVariable(key), old));
                case "merge" -> !hasValue ? args.get(1) : Invoker.invokeVirtual(ctx, java.util.function.BiFunction.class, "apply", BI_FUNCTION_APPLY, fn, List.of(old, args.get(1)));
                default -> Invoker.invokeVirtual(ctx, java.util.function.BiFunction.class, "apply", BI_FUNCTION_APPLY, fn, List.of(keyVariable(key), hasValue ? old : ConstantVariable.NULL));
            };
            // computeIfAbsent's null keeps what was there (a key mapped to null stays); the others' null removes the key
            if (made == null || isNull(made)) return name.equals("computeIfAbsent") || name.equals("computeIfPresent") && !hasValue ? old : null;
            return made;
        }));
        if (before[0] == null && after != null) m.changes().inserted(key);
        if (before[0] != null && after == null) m.changes().removed(key);
        return switch (name) {
            case "putIfAbsent" -> orNull(before[0]);
            default -> orNull(after);
        };
    }

    /** A new key put in {@code m} as computeIfAbsent puts it (first in its HashMap bin), for collectors that build maps that way. */
    static void computedInsert(TraceContext ctx, MapVariable m, Object key, VariableTracker value, String what) { put(ctx, m, key, value, what, true); }

    private static VariableTracker remove(TraceContext ctx, KeyedVariable k, Object key, String what) {
        mutable(ctx, k, what);
        VariableTracker removed = switch (k) {
            // a comparator map: one descent, as eager's TreeMap.remove (its values are never Java's null)
            case MapVariable m when m.comparator() != null -> real(ctx, what, () -> m.entries().remove(key));
            case MapVariable m -> real(ctx, what, () -> m.entries().containsKey(key)) ? orNull(m.entries().remove(key)) : null;
            case SetVariable s -> real(ctx, what, () -> s.elements().remove(key)) ? keyVariable(key) : null;
        };
        if (removed != null) k.changes().removed(key);
        return removed;
    }

    /**
     * A sorted set's (or sorted map's keys') first, last, higher, lower, ceiling or floor, read from
     * the real sorted keys: keys are values known while tracing, so their order is too. first and
     * last of an empty one throw NoSuchElementException, the others answer null, as Java's do.
     */
    private static VariableTracker navigate(TraceContext ctx, java.util.NavigableSet<Object> keys, String name, Object arg, String what) {
        if ((name.equals("first") || name.equals("last")) && keys.isEmpty()) {
            throw Exceptions.raise(ctx, new java.util.NoSuchElementException(), GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws NoSuchElementException: " + what + " of an empty sorted container");
        }
        Object found = real(ctx, what, () -> switch (name) {
            case "first" -> keys.first();
            case "last" -> keys.last();
            case "higher" -> keys.higher(arg);
            case "lower" -> keys.lower(arg);
            case "ceiling" -> keys.ceiling(arg);
            default -> keys.floor(arg);
        });
        return found == null ? ConstantVariable.NULL : keyVariable(found);
    }

    /**
     * Map.computeIfPresent, compute and merge, as HashMap's: the remapping function is traced (given
     * the key and the old value; merge: the old value and the given one); a null result removes the
     * key; a function that changes the map throws ConcurrentModificationException.
     */
    private static VariableTracker remap(TraceContext ctx, MapVariable m, String name, Object key, List<VariableTracker> args, String what) {
        boolean present = real(ctx, what, () -> m.entries().containsKey(key));
        VariableTracker old = present ? m.entries().get(key) : ConstantVariable.NULL;
        boolean hasValue = present && !isNull(old);
        VariableTracker fn = args.getLast();
        if (name.equals("merge") && isNull(args.get(1)) || isNull(fn)) {
            throw Exceptions.raise(ctx, new NullPointerException(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws NullPointerException: " + what
                    + " with a null " + (isNull(fn) ? "function" : "value"));
        }
        if (name.equals("computeIfPresent") && !hasValue) return ConstantVariable.NULL;
        if (name.equals("merge") && !hasValue) {
            put(ctx, m, key, args.get(1), what, true);
            return args.get(1);
        }
        int before = m.changes().count();
        List<VariableTracker> fnArgs = name.equals("merge") ? List.of(old, args.get(1)) : List.of(keyVariable(key), old);
        VariableTracker made = Invoker.invokeVirtual(ctx, java.util.function.BiFunction.class, "apply", BI_FUNCTION_APPLY, fn, fnArgs);
        if (m.changes().count() != before) throw changedByFunction(ctx, m, what);
        if (isNull(made)) {
            if (present) remove(ctx, m, key, what);
            return ConstantVariable.NULL;
        }
        put(ctx, m, key, made, what, true);
        return made;
    }

    /**
     * A compute, computeIfAbsent, computeIfPresent or merge function changed the map: HashMap,
     * LinkedHashMap and TreeMap throw ConcurrentModificationException; EnumMap and IdentityHashMap
     * run Map's default methods, which do not check, so the call runs eagerly.
     */
    private static RuntimeException changedByFunction(TraceContext ctx, MapVariable m, String what) {
        if (m.type() == java.util.EnumMap.class || m.type() == java.util.IdentityHashMap.class) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " whose function changed the " + m.type().getSimpleName()
                    + " (Map's default method, which does not check for it, is not traced)");
        }
        return concurrentModification(ctx, what);
    }

    /** Map.equals with another tracked map: the same keys, and each value equal as {@code Objects.equals} (when the trace knows it). */
    private static boolean mapEquals(TraceContext ctx, MapVariable m, VariableTracker other, String what) {
        if (other instanceof TensorVariable || other instanceof ListVariable || other instanceof SetVariable || other instanceof ConstantVariable) return false;
        if (!(other instanceof MapVariable o)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " with " + other.describe());
        Map<Object, VariableTracker> a = m.entries(), b = o.entries();
        if (!real(ctx, what, () -> a.keySet().equals(b.keySet()))) return false;
        for (Object k : a.keySet()) if (!Containers.equal(ctx, a.get(k), b.get(k))) return false;
        return true;
    }

    /** Map.computeIfAbsent: the mapping function is traced; a function that changes the map throws, as HashMap's does. */
    private static VariableTracker computeIfAbsent(TraceContext ctx, MapVariable m, Object key, VariableTracker fn, String what) {
        VariableTracker old = real(ctx, what, () -> m.entries().get(key));
        if (old != null && !isNull(old)) return old;
        int before = m.changes().count();
        VariableTracker made = Invoker.invokeVirtual(ctx, java.util.function.Function.class, "apply", FUNCTION_APPLY, fn, List.of(keyVariable(key)));
        if (m.changes().count() != before) throw changedByFunction(ctx, m, what);
        if (isNull(made)) return ConstantVariable.NULL;
        put(ctx, m, key, made, what, true);
        return made;
    }

    static VariableTracker setMethod(TraceContext ctx, SetVariable s, String name, List<VariableTracker> args) {
        Set<Object> e = s.elements();
        String what = "Set." + name + "()";
        if (!s.isMutable() && SET_MUTATORS.contains(name)) mutable(ctx, s, what);
        return switch (name) {
            case "size", "isEmpty" -> sizeQuery(name, e.size());
            case "add" -> bool(add(ctx, s, key(ctx, s, args.getFirst(), what), what));
            case "contains" -> bool(real(ctx, what, () -> e.contains(key(ctx, s, args.getFirst(), what))));
            case "containsAll" -> bool(real(ctx, what, () -> e.containsAll(collectionOf(ctx, args.getFirst(), what))));
            // Set.equals: the same elements, whatever the classes; a list or any other non-set is never equal
            case "equals" -> switch (args.getFirst()) {
                case SetVariable other -> bool(real(ctx, what, () -> e.equals(other.elements())));
                case MapViewVariable view when view.view() == MapViewVariable.View.KEYS -> bool(real(ctx, what, () -> e.equals(view.map().entries().keySet())));
                case ListVariable l -> bool(false);
                case TensorVariable t -> bool(false);
                case ConstantVariable c -> bool(false);
                default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " with " + args.getFirst().describe());
            };
            case "hashCode" -> {
                if (e.stream().anyMatch(IdentityKey.class::isInstance)) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " of a set holding " + e.stream().filter(IdentityKey.class::isInstance).findFirst().orElseThrow()
                            + ": its identity hash code is not known while tracing");
                }
                yield ConstantVariable.of(real(ctx, what, e::hashCode));
            }
            case "addAll" -> {
                boolean changed = false;
                for (Object x : collectionOf(ctx, args.getFirst(), what)) changed |= add(ctx, s, x, what);
                yield bool(changed);
            }
            case "remove" -> bool(remove(ctx, s, key(ctx, s, args.getFirst(), what), what) != null);
            // the set that results, and whether it changed, do not depend on the order AbstractSet and AbstractCollection visit in
            case "removeAll" -> {
                boolean changed = false;
                for (Object x : collectionOf(ctx, args.getFirst(), what)) changed |= remove(ctx, s, x, what) != null;
                yield bool(changed);
            }
            case "retainAll" -> {
                Set<Object> keep = new java.util.HashSet<>(collectionOf(ctx, args.getFirst(), what));
                boolean changed = false;
                for (Object x : List.copyOf(e)) if (!keep.contains(x)) changed |= remove(ctx, s, x, what) != null;
                yield bool(changed);
            }
            case "clear" -> {
                mutable(ctx, s, what);
                e.clear();
                s.changes().cleared();
                yield null;
            }
            case "iterator" -> new IteratorVariable(constants(ordered(ctx, s, what).elements()), s, s);
            case "stream" -> StreamCalls.streamOf(s);
            case "comparator" -> comparatorOf(ctx, s, what);
            case "headSet", "tailSet", "subSet", "descendingSet" -> sortedView(ctx, s, name, args, what);
            case "forEach" -> forEach(ctx, s, constants(ordered(ctx, s, what).elements()), args.getFirst(), what);
            case "first", "last", "higher", "lower", "ceiling", "floor" -> {
                if (!(e instanceof java.util.NavigableSet<Object> ns)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a tracked set");
                yield navigate(ctx, ns, name, args.isEmpty() ? null : key(ctx, s, args.getFirst(), what), what);
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a tracked set");
        };
    }

    private static boolean add(TraceContext ctx, SetVariable s, Object x, String what) {
        mutable(ctx, s, what);
        sortable(ctx, s, x, what);
        if (s.comparator() != null || !real(ctx, what, () -> s.elements().contains(x))) keptKey(ctx, x, what);
        boolean added = real(ctx, what, () -> s.elements().add(x));
        if (added) s.changes().inserted(x);
        return added;
    }

    static VariableTracker viewMethod(TraceContext ctx, MapViewVariable v, String name, List<VariableTracker> args) {
        MapVariable m = v.map();
        String what = m.type().getSimpleName() + "." + v.view().method() + "()." + name + "()";
        return switch (name) {
            case "size", "isEmpty" -> sizeQuery(name, m.entries().size());
            case "iterator" -> new IteratorVariable(items(ctx, v, what), m, v);
            case "stream" -> StreamCalls.streamOf(v);
            case "forEach" -> forEach(ctx, m, items(ctx, v, what), args.getFirst(), what);
            case "contains", "remove" -> {
                if (v.view() != MapViewVariable.View.KEYS) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " (only a key set looks up by key)");
                Object k = key(ctx, m, args.getFirst(), what);
                yield bool(name.equals("contains") ? real(ctx, what, () -> m.entries().containsKey(k)) : remove(ctx, m, k, what) != null);
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a tracked map's view");
        };
    }

    /**
     * A method of a read-only view ({@code Collections.unmodifiableMap}, …): every write throws
     * UnsupportedOperationException (no message, as the JDK's wrappers), before reading anything;
     * a read is the wrapped container's, and the views, entries and iterators it gives are read-only too.
     */
    static VariableTracker readOnlyMethod(TraceContext ctx, ReadOnlyVariable u, String name, List<VariableTracker> args) {
        if (MAP_MUTATORS.contains(name) || SET_MUTATORS.contains(name)) {
            throw Exceptions.raise(ctx, new UnsupportedOperationException(), GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws UnsupportedOperationException: " + name + "() on " + u.describe());
        }
        if (isObjectsIdentity(u) && (name.equals("equals") || name.equals("hashCode"))) return objectIdentityMethod(ctx, u, name, args);
        if (name.equals("stream")) {
            // over the wrapper itself: the items are read through it when the stream runs, entries refusing setValue
            return StreamCalls.streamOf(u);
        }
        if (u.of() instanceof MapViewVariable v && v.view() == MapViewVariable.View.ENTRIES && name.equals("forEach")) {
            return forEach(ctx, v.map(), readOnlyElements(items(ctx, v, "forEach() of " + u.describe())), args.getFirst(), "forEach() of " + u.describe());
        }
        VariableTracker r = switch (u.of()) {
            case MapVariable m -> mapMethod(ctx, m, name, args);
            case SetVariable s -> setMethod(ctx, s, name, args);
            case MapViewVariable v -> viewMethod(ctx, v, name, args);
            default -> throw new IllegalStateException(u.describe());
        };
        return switch (r) {
            case MapViewVariable view -> new ReadOnlyVariable(view, u.wrapper());
            case IteratorVariable it -> it.readThrough(KeyedContainers::readOnlyElement, u);
            case null, default -> r;
        };
    }

    /**
     * Whether the wrapper keeps Object's equals and hashCode: Collections.UnmodifiableCollection does
     * (what unmodifiableCollection makes, and an unmodifiable map's values()), whatever it wraps.
     */
    private static boolean isObjectsIdentity(ReadOnlyVariable u) {
        return u.wrapper() == ReadOnlyVariable.Wrapper.UNMODIFIABLE_COLLECTION || u.of() instanceof MapViewVariable v && v.view() == MapViewVariable.View.VALUES;
    }

    /** Object's equals (the same object) and hashCode (its identity hash code, which only the run knows: a graph break). */
    static VariableTracker objectIdentityMethod(TraceContext ctx, VariableTracker self, String name, List<VariableTracker> args) {
        if (name.equals("equals")) return bool(InstructionTranslator.sameReference(self, args.getFirst()));
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "hashCode() of " + self.describe() + ": Object's identity hash code, known only when the program runs");
    }

    /** An entry read through a read-only view: one whose setValue throws; any other item as it is. */
    private static VariableTracker readOnlyElement(VariableTracker item) {
        return item instanceof EntryVariable e && !e.readOnly() ? new EntryVariable(e.map(), e.key(), true) : item;
    }

    private static List<VariableTracker> readOnlyElements(List<VariableTracker> items) { return items.stream().map(KeyedContainers::readOnlyElement).toList(); }

    static VariableTracker entryMethod(TraceContext ctx, EntryVariable e, String name, List<VariableTracker> args) {
        if (name.equals("getKey")) return keyVariable(e.key());
        if (name.equals("setValue") && e.readOnly()) {
            throw Exceptions.raise(ctx, new UnsupportedOperationException(), GraphBreakType.EXCEPTION_THROWN,
                    "the traced path throws UnsupportedOperationException: Map.Entry.setValue() on an entry of an unmodifiable map");
        }
        if (!e.attached()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Map.Entry." + name + "() on an entry of a map that had keys removed since "
                    + "the entry was read (the entry may be detached; its value is not tracked)");
        }
        return switch (name) {
            case "getValue" -> e.value();
            case "setValue" -> {
                VariableTracker old = e.value();
                replaceValue(ctx, e.map(), e.key(), args.getFirst(), "Map.Entry.setValue()");
                yield old;
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Map.Entry." + name + "() on an entry of a tracked map");
        };
    }

    /** What iterating a set or a map's view yields, in its order: {@code new ArrayList<>(m.values())}, {@code List.copyOf(set)}. */
    static List<VariableTracker> elements(TraceContext ctx, VariableTracker v) {
        return switch (v) {
            case SetVariable s -> constants(ordered(ctx, s, "copying a set").elements());
            case MapViewVariable view -> items(ctx, view, "copying " + view.describe());
            case ReadOnlyVariable u -> readOnlyElements(elements(ctx, u.of()));
            default -> throw new IllegalArgumentException(v.describe());
        };
    }

    /** What iterating the view yields, in the map's order. */
    private static List<VariableTracker> items(TraceContext ctx, MapViewVariable v, String what) {
        MapVariable m = ordered(ctx, v.map(), what);
        return switch (v.view()) {
            case KEYS -> constants(m.keys());
            case VALUES -> List.copyOf(m.entries().values());
            case ENTRIES -> m.keys().stream().map(k -> (VariableTracker) new EntryVariable(m, k)).toList();
        };
    }

    private static VariableTracker forEach(TraceContext ctx, KeyedVariable container, List<VariableTracker> items, VariableTracker action, String what) {
        int before = container.changes().count();
        for (VariableTracker item : items) {
            Invoker.invokeVirtual(ctx, java.util.function.Consumer.class, "accept", CONSUMER_ACCEPT, action, List.of(item));
            if (container.changes().count() != before) throw concurrentModification(ctx, what);
        }
        return null;
    }

    /**
     * {@code next()} on an iterator over a map or set changed since the iterator was made throws, as
     * Java's fail-fast iterators do.
     */
    static RuntimeException concurrentModification(TraceContext ctx, String what) {
        // raised in the trace, so the program's own catch handles it as eager's does (Java's fail-fast iterators give no message)
        return Exceptions.raise(ctx, new java.util.ConcurrentModificationException(), GraphBreakType.EXCEPTION_THROWN,
                "the traced path throws ConcurrentModificationException: " + what + " after the container was changed while being iterated");
    }

    private static List<VariableTracker> constants(Collection<Object> keys) {
        List<VariableTracker> out = new ArrayList<>(keys.size());
        for (Object k : keys) out.add(keyVariable(k));
        return out;
    }

    /** The container, when its iteration order is known (see {@link KeyedVariable#orderKnown()}). */
    private static <K extends KeyedVariable> K ordered(TraceContext ctx, K k, String what) {
        if (k.orderKnown()) return k;
        String name = k.source() == null ? "a " + k.type().getSimpleName() + " made in the function" : k.source().name() + ", a " + k.type().getSimpleName()
                + " from the inputs";
        if (k.hasKeysOfUnknownHash()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " iterates " + name + " holding " + k.keys().stream()
                    .filter(key -> key instanceof IdentityKey ik && !ik.hashKnown()).findFirst().orElseThrow() + ": it orders its keys by their identity "
                    + "hash codes, which are not known while tracing (a LinkedHashMap or LinkedHashSet iterates in insertion order, and is traced; so "
                    + "is a HashMap of records of strings, numbers, booleans and enums)");
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " iterates " + name
                + " that the trace inserted keys into: their order depends on the real table's size, unknown while tracing");
    }

    /** A sorted container compares its keys: an identity key (a tensor) is not comparable, and the trace does not evaluate the comparison. */
    private static void sortable(TraceContext ctx, KeyedVariable k, Object key, String what) {
        if (key instanceof IdentityKey ik && k.comparator() == null && (java.util.SortedMap.class.isAssignableFrom(k.type()) || java.util.SortedSet.class.isAssignableFrom(k.type()))) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " with the key " + ik + " on a " + k.type().getSimpleName()
                    + ", which compares its keys: the trace does not evaluate the comparison");
        }
    }

    private static void mutable(TraceContext ctx, KeyedVariable k, String what) {
        if (!k.isMutable()) {
            throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws UnsupportedOperationException: " + what
                    + " on an immutable " + k.type().getSimpleName());
        }
        // a change through a view of a sorted container is its base's (their changes are one log, replayed on the base)
        if (k.root().source() != null) ctx.sideEffects.mutated(k.root());
    }

    /** comparator() of a TreeMap or TreeSet or a view of one: the program's comparator, or null for natural order. */
    private static VariableTracker comparatorOf(TraceContext ctx, KeyedVariable k, String what) {
        for (KeyedVariable v = k; v.sortedView() != null; v = v.sortedView().base()) {
            if (v.sortedView().method().startsWith("descending")) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " of a descending view (its comparator is the JDK's reverse of the container's)");
            }
        }
        return orNull(k.comparator());
    }

    /**
     * headMap, tailMap, subMap and descendingMap of a TreeMap (headSet, tailSet, subSet and
     * descendingSet of a TreeSet), or of such a view: the JDK's live view of the real container,
     * so reads see the container's later changes, a key out of the view's range throws eager's
     * IllegalArgumentException, and a change through the view is the container's (one log of
     * changes: replayed on it, and failing iterators over either fast).
     */
    private static KeyedVariable sortedView(TraceContext ctx, KeyedVariable k, String name, List<VariableTracker> args, String what) {
        Object real = k instanceof MapVariable m ? m.keyedEntries() : ((SetVariable) k).elements();
        if (!(real instanceof java.util.NavigableMap<?, ?>) && !(real instanceof java.util.NavigableSet<?>)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " on a " + k.type().getSimpleName() + " (a TreeMap's or TreeSet's views are traced)");
        }
        Object[] jargs = new Object[args.size()];
        Class<?>[] types = new Class<?>[args.size()];
        for (int i = 0; i < jargs.length; i++) {
            // subMap(from, fromInclusive, to, toInclusive), headMap(to, inclusive): the booleans at the odd places
            boolean flag = i % 2 == 1 && (args.size() == 2 && !name.startsWith("sub") || args.size() == 4);
            if (flag) {
                if (!(args.get(i) instanceof ConstantVariable c && c.value() instanceof Number n)) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " with " + args.get(i).describe() + " (an inclusive flag known while tracing)");
                }
                jargs[i] = n.intValue() != 0;
                types[i] = boolean.class;
            } else {
                jargs[i] = key(ctx, k, args.get(i), what);
                types[i] = Object.class;
            }
        }
        Class<?> api = real instanceof java.util.NavigableMap<?, ?> ? java.util.NavigableMap.class : java.util.NavigableSet.class;
        Object view = real(ctx, what, () -> {
            try {
                return api.getMethod(name, types).invoke(real, jargs);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw (RuntimeException) e.getCause();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        KeyedVariable.SortedView how = new KeyedVariable.SortedView(k, name, List.copyOf(args));
        @SuppressWarnings("unchecked")
        KeyedVariable made = view instanceof Map<?, ?> vm ? new MapVariable((Map<Object, VariableTracker>) vm, how) : new SetVariable((Set<Object>) view, how);
        return made;
    }

    /** Runs an operation on a real container; what it throws is the traced program's exception. */
    private static <T> T real(TraceContext ctx, String what, Supplier<T> op) {
        try {
            return op.get();
        } catch (Unsupported | Raised u) {
            // a graph break in a traced comparator, or what it threw: the program's, as it is
            throw u;
        } catch (RuntimeException e) {
            throw Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e + " from " + what);
        }
    }

    private static boolean isNull(VariableTracker v) { return v instanceof ConstantVariable c && c.value() == null; }

    private static VariableTracker orNull(VariableTracker v) { return v == null ? ConstantVariable.NULL : v; }

    private static ConstantVariable bool(boolean b) { return ConstantVariable.of(b ? 1 : 0); }

    /** {@code size()} or {@code isEmpty()} of a map, a set or a map's view holding {@code size} keys. */
    private static ConstantVariable sizeQuery(String name, int size) { return name.equals("size") ? ConstantVariable.of(size) : bool(size == 0); }
}
