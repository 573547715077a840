package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.variables.Changes;
import dev.ember.dynamo.variables.Construction;
import dev.ember.dynamo.variables.IdentityKey;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.tensor.Tensor;

import java.lang.reflect.Array;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a compiled frame makes a Java value that leaves the trace (the return value, a value live at
 * a graph break, a value a replayed side effect stores) from the graph's outputs and the call's
 * inputs. Each kind of value knows how to make itself again; {@link Rebuilders} picks the kind.
 */
sealed interface OutputRebuilder {

    /** The value for this call; parts are rebuilt through {@link Rebuild#value}, never directly, so shared objects stay shared. */
    Object rebuild(Rebuild r);

    /** Whether the value is an object with identity (a container, a record, an object, a lambda), made once per call however often it is reached. */
    default boolean hasIdentity() { return false; }

    /** {@code Autograd.registerHook(tensor, hook)} made after the graph: its handle, made once per call. */
    record HookRegistration(OutputRebuilder tensor, OutputRebuilder hook) implements OutputRebuilder {
        @SuppressWarnings("unchecked")
        public Object rebuild(Rebuild r) {
            return dev.ember.autograd.Autograd.registerHook((Tensor) r.value(tensor), (java.util.function.UnaryOperator<Tensor>) r.value(hook));
        }

        @Override
        public boolean hasIdentity() { return true; }

        @Override
        public String toString() { return "registerHook(" + tensor + ", " + hook + ")"; }
    }

    /** Output {@code index} of the graph. */
    record GraphOutput(int index) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return r.outs[index]; }

        @Override
        public String toString() { return "out[" + index + "]"; }
    }

    /**
     * Input {@code input} of the graph, the object the call passed: a tensor the trace returns or
     * keeps as a value unchanged in identity ({@code return x}, also after {@code x.mul_(2)}) is the
     * caller's tensor, as in eager, not the graph's output {@code output} (which an AOT backend
     * makes a tensor of its own, with an autograd history of its own). The output stays in the graph
     * for what reads the graph's outputs by position (export's output paths).
     */
    record GraphInput(int input, int output) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return r.ins[input]; }

        @Override
        public String toString() { return "in[" + input + "]"; }
    }

    /**
     * A view of another rebuilt tensor, made again by the view op on it: its result, or piece
     * {@code item} of an op that returns a list of views (split, chunk, unbind; -1 for a single view).
     */
    record TensorViewOf(OutputRebuilder base, dev.ember.ops.OpOverload op, List<Object> args, int item, int output) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Object[] values = new Object[args.size() + 1];
            values[0] = r.value(base);
            for (int i = 0; i < args.size(); i++) values[i + 1] = args.get(i);
            Object made = op.call(values);
            return item < 0 ? made : ((List<?>) made).get(item);
        }

        @Override
        public boolean hasIdentity() { return true; }

        @Override
        public String toString() { return op.name() + "(" + base + ", …)" + (item < 0 ? "" : "[" + item + "]"); }
    }

    /** A symbolic scalar output: the graph's 0-d tensor read back as the Java number of {@code javaType} (boxed, as on a state array). */
    record ScalarItem(int index, Class<?> javaType) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Tensor t = (Tensor) r.outs[index];
            if (javaType == double.class) return t.item();
            long v = t.longItem();
            return javaType == int.class ? (Object) (int) v : (Object) v;
        }
    }

    /**
     * A value of a primitive Java type that the trace holds in its JVM stack form (a boolean, char,
     * byte or short as an int): an int argument of a resume method that became a graph input when it
     * changed, returned from a method declared {@code boolean}. Made again as {@code type} boxes it,
     * as the method's caller and a field of that type expect.
     */
    record AsPrimitive(OutputRebuilder value, Class<?> type) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return Values.fromStack(r.value(value), type); }

        @Override
        public String toString() { return "(" + type.getName() + ") " + value; }
    }

    /** A value known at trace time. */
    record Constant(Object value) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return value; }

        /** As Java writes it: {@code "y has 2 dims"}, {@code 3}. */
        @Override
        public String toString() { return value instanceof String s ? dev.ember.jvm.StringLiterals.quote(s) : String.valueOf(value); }
    }

    /** An object from the inputs returned as is (re-read from its source on every call). */
    record FromSource(Source source) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return source.read(r.frame); }
    }

    /** A symbolic size ({@code x.size(0) * 16}): its polynomial at the sizes of this call's inputs, read from {@code symbols} (by id). */
    record SymbolicSize(dev.ember.tensor.SymInt expr, List<Source> symbols, Class<?> javaType) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            long[] values = new long[symbols.size()];
            for (int i = 0; i < values.length; i++) values[i] = ((Number) symbols.get(i).read(r.frame)).longValue();
            long v = expr.eval(values);
            return javaType == long.class ? (Object) v : (Object) (int) v;
        }
    }

    /** {@code System.out} or {@code System.err}, read when the value is rebuilt (so System.setOut is seen). */
    record Stream(String name) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return name.equals("System.err") ? System.err : System.out; }

        @Override
        public String toString() { return name; }
    }

    /** {@code Map.entry(key, value)} made again: an immutable pair the trace made. */
    record EntryOf(OutputRebuilder key, OutputRebuilder value) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return java.util.Map.entry(r.value(key), r.value(value)); }

        @Override
        public boolean hasIdentity() { return true; }

        @Override
        public String toString() { return "Map.entry(" + key + ", " + value + ")"; }
    }

    /** A new list; {@code mutable} gives an ArrayList, otherwise an unmodifiable list. */
    record ListOf(List<OutputRebuilder> items, Class<?> type, dev.ember.dynamo.variables.ImmutableListKind immutableKind) implements OutputRebuilder {
        /** A mutable list is an ArrayList, an immutable one List.of's class. */
        ListOf(List<OutputRebuilder> items, boolean mutable) { this(items, mutable ? ArrayList.class : null, null); }

        public boolean mutable() { return type != null; }

        public Object rebuild(Rebuild r) {
            List<Object> out = new ArrayList<>(items.size());
            for (OutputRebuilder item : items) out.add(r.value(item));
            if (type == ArrayList.class) return out;
            if (type == java.util.LinkedList.class) return new java.util.LinkedList<>(out);
            if (type == java.util.ArrayDeque.class) return new java.util.ArrayDeque<>(out);
            // made again as eager's was (a subList, toList's that allows nulls, nCopies), when it can hold these elements
            List<Object> remade = immutableKind == null ? null : immutableKind.make(out.toArray());
            if (remade != null) return remade;
            // List.of's own class (what eager's List.of, toList and copies have) unless an element is null, which it refuses; an
            // unmodifiable wrapper would also read as a view of another list to a later trace (VariableBuilder.isViewOfAnother)
            return out.contains(null) ? Collections.unmodifiableList(out) : List.copyOf(out);
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** {@code Arrays.asList} of an array: Java's fixed-size view of the rebuilt array, so a write through either shows in the other. */
    record ArrayAsListOf(OutputRebuilder array) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return java.util.Arrays.asList((Object[]) r.value(array)); }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /**
     * Collections' read-only wrapper of a rebuilt map, set or map view: {@code of} rebuilds what it
     * wraps; for a view of an unmodifiable map ({@code view} not null), {@code of} is the map and the
     * view is the unmodifiable map's own, as eager's {@code u.entrySet()} is.
     */
    record ReadOnlyOf(OutputRebuilder of, dev.ember.dynamo.variables.ReadOnlyVariable.Wrapper wrapper,
                      dev.ember.dynamo.variables.MapViewVariable.View view) implements OutputRebuilder {
        @SuppressWarnings("unchecked")
        public Object rebuild(Rebuild r) {
            Object value = r.value(of);
            if (view != null) {
                java.util.Map<Object, Object> u = Collections.unmodifiableMap((java.util.Map<Object, Object>) value);
                return switch (view) {
                    case KEYS -> u.keySet();
                    case VALUES -> u.values();
                    case ENTRIES -> u.entrySet();
                };
            }
            return switch (wrapper) {
                case UNMODIFIABLE_MAP -> Collections.unmodifiableMap((java.util.Map<Object, Object>) value);
                case UNMODIFIABLE_SET -> Collections.unmodifiableSet((java.util.Set<Object>) value);
                case UNMODIFIABLE_COLLECTION -> Collections.unmodifiableCollection((java.util.Collection<Object>) value);
            };
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A live view of a list made in the trace (a subList, reversed(), Collections.unmodifiableList): Java's own view of the rebuilt list. */
    record ListViewOf(OutputRebuilder base, dev.ember.dynamo.variables.ListVariable.ViewKind kind, int from, int size) implements OutputRebuilder {
        @SuppressWarnings("unchecked")
        public Object rebuild(Rebuild r) {
            // an ArrayDeque's reversed view (what its descendingIterator walks) is Deque's, not List's
            if (kind == dev.ember.dynamo.variables.ListVariable.ViewKind.REVERSED && r.value(base) instanceof java.util.Deque<?> deque && !(deque instanceof List<?>)) {
                return deque.reversed();
            }
            List<Object> of = (List<Object>) r.value(base);
            return switch (kind) {
                case SUB_LIST -> of.subList(from, from + size);
                case REVERSED -> of.reversed();
                case UNMODIFIABLE -> Collections.unmodifiableList(of);
                case UNMODIFIABLE_COLLECTION -> Collections.unmodifiableCollection(of);
            };
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /**
     * A view of a rebuilt TreeMap or TreeSet ({@code headMap}, {@code subSet}, {@code descendingMap},
     * …), asked of it again with the same arguments: a live view, as the program's was. An inclusive
     * flag is at each odd place of a two-argument headMap/tailMap or a four-argument subMap.
     */
    record SortedViewOf(OutputRebuilder base, String method, List<OutputRebuilder> args) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Object of = r.value(base);
            Class<?> api = of instanceof java.util.NavigableMap<?, ?> ? java.util.NavigableMap.class : java.util.NavigableSet.class;
            Object[] values = new Object[args.size()];
            Class<?>[] types = new Class<?>[args.size()];
            for (int i = 0; i < values.length; i++) {
                boolean flag = i % 2 == 1 && (args.size() == 2 && !method.startsWith("sub") || args.size() == 4);
                Object v = r.value(args.get(i));
                values[i] = flag ? (Object) (v instanceof Boolean b ? b : ((Number) v).intValue() != 0) : v;
                types[i] = flag ? boolean.class : Object.class;
            }
            try {
                return api.getMethod(method, types).invoke(of, values);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("making " + method + " of a rebuilt " + of.getClass().getName() + " again failed", e);
            }
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A StringBuilder (or StringBuffer) made in the trace: a new one with the text it had when the graph ended. */
    record StringBuilderOf(String text, boolean buffer) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return buffer ? new StringBuffer(text) : new StringBuilder(text); }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /**
     * An iterator over a rebuilt list, set or map view, past the items the trace took: a
     * {@link dev.ember.dynamo.resume.ResumedIterator}, Java's own iterator underneath.
     */
    record IteratorAt(OutputRebuilder iterable, int position, int lastReturned) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return new dev.ember.dynamo.resume.ResumedIterator<>((Iterable<?>) r.value(iterable), position, lastReturned); }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A new array of {@code component}. */
    record ArrayOf(Class<?> component, List<OutputRebuilder> items) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Object arr = Array.newInstance(component, items.size());
            for (int i = 0; i < items.size(); i++) Array.set(arr, i, Values.fromStack(r.value(items.get(i)), component));
            return arr;
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A record built through its canonical constructor. */
    record RecordOf(Constructor<?> constructor, List<OutputRebuilder> components) implements OutputRebuilder {
        static RecordOf of(Class<?> type, List<OutputRebuilder> components) {
            RecordComponent[] rc = type.getRecordComponents();
            Class<?>[] types = new Class<?>[rc.length];
            for (int i = 0; i < rc.length; i++) types[i] = rc[i].getType();
            try {
                Constructor<?> c = type.getDeclaredConstructor(types);
                c.setAccessible(true);
                return new RecordOf(c, components);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("record " + type.getName() + " has no canonical constructor", e);
            }
        }

        public Object rebuild(Rebuild r) {
            Class<?>[] types = constructor.getParameterTypes();
            Object[] values = new Object[components.size()];
            for (int i = 0; i < values.length; i++) values[i] = Values.fromStack(r.value(components.get(i)), types[i]);
            try {
                return constructor.newInstance(values);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("rebuilding " + constructor.getDeclaringClass().getName() + " failed", e);
            }
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /**
     * A map ({@code values} non-null) or set made during the trace. A mutable one is made by the
     * constructor the program called, then given the trace's structural changes and final values,
     * so even a HashMap iterates as eager's does; an immutable one is made by Map.ofEntries or
     * Set.of from the keys in the order the program gave them, which fixes its iteration order too.
     */
    record KeyedOf(Class<?> type, boolean mutable, Construction how, List<Changes.Change> changes, List<Object> keys, List<OutputRebuilder> values,
                   KeyValues identities, OutputRebuilder comparator) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            boolean isMap = values != null;
            java.util.function.UnaryOperator<Object> key = identities.resolver(r);
            if (comparator != null) return sortedByComparator(r, isMap, key);
            if (!mutable && !isMap) return java.util.Set.of(how.copiedKeys().stream().map(key).toArray());
            if (type == StreamCalls.PARTITION) return StreamCalls.partitionOf(r.value(values.get(0)), r.value(values.get(1)));
            if (!mutable) {
                Map<Object, Object> byKey = new java.util.HashMap<>();
                for (int i = 0; i < keys.size(); i++) byKey.put(keys.get(i), r.value(values.get(i)));
                return Map.ofEntries(how.copiedKeys().stream().map(k -> Map.entry(key.apply(k), byKey.get(k))).toArray(Map.Entry[]::new));
            }
            Object container = construct(isMap, key);
            r.made(this, container);
            replay(container, changes, keys, isMap ? rebuildAll(r, values) : null, key);
            return container;
        }

        /**
         * A TreeMap or TreeSet sorted by the program's comparator, made with it and filled with the
         * final keys in the trace's (the comparator's) order without asking the comparator again:
         * TreeMap.putAll and TreeSet.addAll of a sorted container with the same comparator build the
         * tree from its order, so the comparator runs only as often as the program ran it.
         */
        @SuppressWarnings("unchecked")
        private Object sortedByComparator(Rebuild r, boolean isMap, java.util.function.UnaryOperator<Object> key) {
            java.util.Comparator<Object> order = (java.util.Comparator<Object>) r.value(comparator);
            Object container;
            try {
                container = Allocation.constructAs(type, java.util.Comparator.class, order);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("rebuilding a " + type.getName() + " failed", e);
            }
            r.made(this, container);
            List<Object> sortedKeys = keys.stream().map(key).toList();
            if (isMap) {
                Object[] vs = rebuildAll(r, values);
                java.util.SequencedMap<Object, Object> inOrder = new LinkedHashMap<>();
                for (int i = 0; i < sortedKeys.size(); i++) inOrder.put(sortedKeys.get(i), vs[i]);
                ((java.util.TreeMap<Object, Object>) container).putAll(new Presorted.OfMap(order, inOrder));
            } else {
                ((java.util.TreeSet<Object>) container).addAll(new Presorted.OfSet(order, sortedKeys));
            }
            return container;
        }

        private Object construct(boolean isMap, java.util.function.UnaryOperator<Object> key) {
            try {
                if (how.keyType() != null) return Allocation.constructAs(type, Class.class, how.keyType());
                if (how.copiedKeys() != null) {
                    Map<Object, Object> source = new LinkedHashMap<>();
                    for (Object k : how.copiedKeys()) source.put(key.apply(k), null);
                    return isMap ? Allocation.constructAs(type, Map.class, source) : Allocation.constructAs(type, Collection.class, source.keySet());
                }
                return how.capacity() >= 0 ? Allocation.constructAs(type, int.class, how.capacity()) : Allocation.constructAs(type, null, null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("rebuilding a " + type.getName() + " failed", e);
            }
        }

        /**
         * Applies the trace's structural changes to a real map or set, then sets {@code values} (a
         * map's final values, in {@code keys}' order; null for a set). Setting a value of a present
         * key does not move it, so the order is the changes' alone. {@code key} gives the real key
         * for a traced one (an identity key's object, rebuilt).
         */
        @SuppressWarnings("unchecked")
        static void replay(Object container, List<Changes.Change> changes, List<Object> keys, Object[] values, java.util.function.UnaryOperator<Object> key) {
            Collection<Object> keySet = container instanceof Map<?, ?> m ? ((Map<Object, Object>) m).keySet() : (Collection<Object>) container;
            for (Changes.Change c : changes) {
                switch (c.kind()) {
                    case INSERT -> {
                        if (container instanceof Map<?, ?> m) ((Map<Object, Object>) m).put(key.apply(c.key()), null);
                        else keySet.add(key.apply(c.key()));
                    }
                    // as the program inserted it (a HashMap's compute puts the key first in its bin); its value is set below
                    case COMPUTED -> ((Map<Object, Object>) container).compute(key.apply(c.key()), (k, v) -> Boolean.TRUE);
                    case REMOVE -> keySet.remove(key.apply(c.key()));
                    case CLEAR -> keySet.clear();
                }
            }
            if (values == null) return;
            Map<Object, Object> map = (Map<Object, Object>) container;
            for (int i = 0; i < keys.size(); i++) map.put(key.apply(keys.get(i)), values[i]);
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /**
     * The rebuilders of a container's keys that are values of the trace ({@link IdentityKey}s: a
     * tensor, an object); every other key is itself.
     */
    record KeyValues(Map<IdentityKey, OutputRebuilder> rebuilders) {
        static final KeyValues NONE = new KeyValues(Map.of());

        java.util.function.UnaryOperator<Object> resolver(Rebuild r) {
            if (rebuilders.isEmpty()) return k -> k;
            return k -> k instanceof IdentityKey ik ? r.value(rebuilders.get(ik)) : k;
        }
    }

    /** Rebuilds every value before any container is changed: a value may be read from a container the replay changes. */
    static Object[] rebuildAll(Rebuild r, List<OutputRebuilder> values) {
        Object[] out = new Object[values.size()];
        for (int i = 0; i < out.length; i++) out[i] = r.value(values.get(i));
        return out;
    }

    /** {@code keySet()}, {@code values()} or {@code entrySet()} of a rebuilt map: the real view, live as in eager. */
    record ViewOf(OutputRebuilder map, MapViewVariable.View view) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Map<?, ?> m = (Map<?, ?>) r.value(map);
            return switch (view) {
                case KEYS -> m.keySet();
                case VALUES -> m.values();
                case ENTRIES -> m.entrySet();
            };
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** Sets each field of a rebuilt object (a user object, an exception) to its rebuilt value. */
    private static void setFields(Rebuild r, Object o, Map<Field, OutputRebuilder> fields) {
        for (var e : fields.entrySet()) {
            try {
                e.getKey().set(o, Values.fromStack(r.value(e.getValue()), e.getKey().getType()));
            } catch (IllegalAccessException ex) {
                throw new IllegalStateException("setting " + e.getKey() + " on a rebuilt " + o.getClass().getName() + " failed", ex);
            }
        }
    }

    /**
     * An object of a user class made during the trace, made again as Dynamo makes one: allocated
     * without running a constructor (the trace already ran it, and replays what it did outside
     * the object), then given the fields the trace assigned. {@code fields} is filled after the
     * rebuilder is registered, so a field may refer back to its object.
     */
    record ObjectOf(Class<?> type, Map<Field, OutputRebuilder> fields) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Object o = Allocation.allocate(type);
            r.made(this, o);
            setFields(r, o, fields);
            return o;
        }

        @Override
        public boolean hasIdentity() { return true; }

        /** The field names only: a field may hold the object itself, and the record's own toString would not end. */
        @Override
        public String toString() { return "ObjectOf[" + type.getName() + " " + fields.keySet().stream().map(Field::getName).toList() + "]"; }
    }

    /**
     * An exception made during the trace: its class made by its nearest JDK class's constructor
     * taking the message (or none; a subclass's own constructors already ran in the trace), then
     * given the cause it was made with and the fields its subclass assigned.
     */
    record ExceptionOf(Class<?> type, boolean withMessage, String message, OutputRebuilder cause, Map<Field, OutputRebuilder> fields,
                       StackTraceElement madeAt) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Throwable t;
            try {
                t = (Throwable) (withMessage ? Allocation.constructAs(type, String.class, message) : Allocation.constructAs(type, null, null));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("making the exception " + type.getName() + " again failed", e);
            }
            r.made(this, t);
            t.setStackTrace(fromTheProgram(t.getStackTrace()));
            if (cause != null) t.initCause((Throwable) r.value(cause));
            setFields(r, t, fields);
            return t;
        }

        @Override
        public boolean hasIdentity() { return true; }

        /**
         * The stack without the frames of this rebuild (reflection, the capture's own), starting at
         * the program's line that made the exception, as eager's does (the compiled method's own
         * frame is not on the stack: the graph's code runs in its place).
         */
        private StackTraceElement[] fromTheProgram(StackTraceElement[] stack) {
            int first = 0;
            while (first < stack.length - 1 && isRebuildFrame(stack[first].getClassName())) first++;
            List<StackTraceElement> out = new ArrayList<>();
            if (madeAt != null) out.add(madeAt);
            out.addAll(List.of(stack).subList(first, stack.length));
            return out.toArray(StackTraceElement[]::new);
        }

        private static boolean isRebuildFrame(String cls) {
            if (cls.startsWith("jdk.internal.reflect.") || cls.startsWith("java.lang.reflect.")) return true;
            String pkg = cls.substring(0, Math.max(0, cls.lastIndexOf('.')));
            return pkg.equals("dev.ember.dynamo") || pkg.equals("dev.ember.dynamo.resume");
        }

        @Override
        public String toString() { return "ExceptionOf[" + type.getName() + " " + message + "]"; }
    }

    /** A lambda made during the trace: its call site's factory called again with the captured values rebuilt. */
    record LambdaOf(MethodHandle factory, List<OutputRebuilder> captured, Lambdas.Made made) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Object[] args = new Object[captured.size()];
            for (int i = 0; i < args.length; i++) args[i] = Values.fromStack(r.value(captured.get(i)), factory.type().parameterType(i));
            try {
                Object lambda = factory.invokeWithArguments(args);
                Lambdas.remember(lambda.getClass(), made);
                return lambda;
            } catch (Throwable e) {
                throw new IllegalStateException("making the lambda " + made.target() + " again failed", e);
            }
        }

        @Override
        public boolean hasIdentity() { return true; }
    }
}
