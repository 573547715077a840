package dev.ember.dynamo;

import dev.ember.dynamo.guards.EqualsMatch;
import dev.ember.dynamo.guards.IdMatch;
import dev.ember.dynamo.guards.KeysMatch;
import dev.ember.dynamo.guards.LengthCheck;
import dev.ember.dynamo.guards.SameObject;
import dev.ember.dynamo.guards.TensorMatch;
import dev.ember.dynamo.guards.TypeMatch;
import dev.ember.dynamo.source.FieldSource;
import dev.ember.dynamo.source.IndexSource;
import dev.ember.dynamo.source.IteratorPartSource;
import dev.ember.dynamo.source.ReversedViewBaseSource;
import dev.ember.dynamo.source.KeySource;
import dev.ember.dynamo.source.LocalSource;
import dev.ember.dynamo.source.ScalarTensorSource;
import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.variables.ImmutableListKind;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.KeyedVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.SetVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;

import java.io.Serializable;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns real values read from the frame's inputs into variables, installing the guards that make
 * the trace valid for them: TENSOR_MATCH on tensors (which become graph inputs), EQUALS_MATCH on
 * numbers and strings, ID_MATCH on enums and ops, TYPE_MATCH + LENGTH_CHECK on lists and arrays,
 * TYPE_MATCH + DICT_KEYS_MATCH on maps and sets, TYPE_MATCH on objects.
 */
final class VariableBuilder {
    private final TraceContext ctx;
    private final OutputGraph graph;
    private final Map<Object, VariableTracker> seen = new IdentityHashMap<>();
    /** The tensors made graph inputs, in the order first read, by their source (see {@link #inputTensors}). */
    private final Map<Source, Tensor> inputTensors = new java.util.LinkedHashMap<>();

    VariableBuilder(TraceContext ctx) {
        this.ctx = ctx;
        this.graph = ctx.graph;
    }

    /** Wraps {@code value} read from {@code source}; {@code declared} is the static type at the read (primitives use stack form). */
    VariableTracker wrap(Object value, Source source, Class<?> declared) {
        // a Double read where the static type is wider (List.get, Object) is a boxed double too
        if ((declared == double.class || value instanceof Double && !declared.isPrimitive()) && unspecialized(source)) {
            return scalarInput(source, double.class, !declared.isPrimitive(), value);
        }
        // an Integer or Long read where the static type is wider (Object, Number) is a boxed int too: it may have been a tensor before
        Class<?> integral = declared.isPrimitive() ? declared : value instanceof Integer ? int.class : value instanceof Long ? long.class : declared;
        if ((integral == int.class || integral == long.class) && value != null && dynamicInteger(source)) {
            return scalarInput(source, integral, !declared.isPrimitive(), value);
        }
        if (declared == int.class && value instanceof Integer i && source instanceof LocalSource && !Boolean.FALSE.equals(ctx.options.dynamicSetting())) {
            return ctx.ints.wrap(i, source);
        }
        if (declared.isPrimitive()) {
            graph.addGuard(new EqualsMatch(source, value));
            return new ConstantVariable(Values.toStack(value, declared), source);
        }
        if (value == null) {
            graph.addGuard(new IdMatch(source, null));
            return new ConstantVariable(null, source);
        }
        VariableTracker known = seen.get(value);
        if (known != null && known.source() != null && !isValue(value)) {
            if (!known.source().name().equals(source.name())) graph.addGuard(new SameObject(source, known.source()));
            return known;
        }
        VariableTracker v = build(value, source);
        seen.put(value, v);
        return v;
    }

    /**
     * The tensors the trace made graph inputs, read through fields, elements and map values from
     * the arguments or static fields: they must stay distinct objects on later calls, as they were
     * while tracing (a global, a list's element or an object's field taken for a tensor other than
     * an argument; the same tensor passed for both recompiles, as Dynamo's NO_TENSOR_ALIASING covers
     * every tensor source). Reached another way (a module query), a tensor is left out: its read
     * runs the program's code.
     */
    Map<Source, Tensor> inputTensors() { return inputTensors; }

    /** Whether {@code s} reads fields, elements and map values only, from an argument or a static field. */
    private static boolean plainPath(Source s) {
        return switch (s) {
            case LocalSource l -> true;
            case dev.ember.dynamo.source.StaticFieldSource f -> true;
            case FieldSource f -> plainPath(f.base());
            case IndexSource i -> plainPath(i.base());
            case KeySource k -> plainPath(k.base());
            case dev.ember.dynamo.source.GradSource g -> plainPath(g.tensor());
            default -> false;
        };
    }

    private VariableTracker build(Object value, Source source) {
        if (value instanceof Tensor t) {
            if (plainPath(source)) inputTensors.put(source, t);
            // parameters keep static sizes, as PyTorch's force_parameter_static_shapes
            dev.ember.tensor.SymShape symbolic = ctx.shapes.shapeOf(source, t, t instanceof dev.ember.nn.Parameter);
            graph.addGuard(symbolic == null ? TensorMatch.of(source, t) : TensorMatch.of(source, t, symbolic));
            // a symbolic input's fake has the strides its symbolic metadata gives at the hints (they may
            // differ from the real tensor's only in dimensions of size 1, whose strides address nothing)
            FakeTensor fake = symbolic == null ? FakeTensor.like(t) : new FakeTensor(symbolic.eval(t.dtype(), ctx.shapes.hints()));
            dev.ember.fx.Node node = graph.placeholder(placeholderName(source), fake, source);
            if (symbolic != null) node.setSymVal(symbolic);
            ctx.inputRequiresGrad.put(node, t.requiresGrad());
            if (t.requiresGrad() && t.isLeaf()) ctx.inputLeavesRequiringGrad.add(node);
            // eager's autograd (as ATen's check_inplace) refuses an in-place op on a view that requires grad and whose base (the
            // root its storage belongs to) has no history: views of this input require grad when it does
            Tensor root = t.isDifferentiableView() ? t.viewBase() : t;
            if (t.requiresGrad() && root.isLeaf()) {
                ctx.viewBasesRefusingInPlace.put(node, root.meta().describe());
                if (root != t) ctx.viewsRefusingInPlace.put(node, root.meta().describe());
            }
            ctx.inputClass.put(node, t.getClass());
            ctx.inputTensorOf.put(node, t);
            return new TensorVariable(node, fake, source);
        }
        if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof Character) {
            graph.addGuard(new EqualsMatch(source, value));
            return new ConstantVariable(value, source);
        }
        if (value instanceof Enum<?> || value instanceof Class<?>) {
            graph.addGuard(new IdMatch(source, value));
            return new ConstantVariable(value, source);
        }
        if (value instanceof OpOverload op) {
            graph.addGuard(new IdMatch(source, value));
            return new OpOverloadVariable(op);
        }
        if (value instanceof dev.ember.autograd.GradMode.Scope || value instanceof ErrorOnGraphBreak.Scope) {
            // a scope handed to resumed code: its close() is traced (GradModes, ErrorOnGraphBreak), for this very scope
            graph.addGuard(new IdMatch(source, value));
            return new ConstantVariable(value, source);
        }
        if (value instanceof dev.ember.dynamo.resume.ResumedIterator<?> it
                && (it.iterable() instanceof List<?> && JdkCalls.isJdk(it.iterable().getClass()) || KeyedContainers.tracksInput(it.iterable()))) {
            return resumedIterator(it, source);
        }
        if (KeyedContainers.tracksInput(value)) return keyed(value, source);
        if (value instanceof java.util.Optional<?> optional) {
            // an Optional argument: guarded on being present or empty, its value wrapped as read from it (as Optional.ofNullable made in the trace)
            graph.addGuard(new TypeMatch(source, value.getClass()));
            graph.addGuard(new LengthCheck(source, optional.isPresent() ? 1 : 0));
            VariableTracker inside = optional.isPresent() ? wrap(optional.get(), new IndexSource(source, 0), Object.class) : null;
            return dev.ember.dynamo.variables.PipelineVariable.optional(inside, dev.ember.dynamo.variables.PipelineVariable.Kind.OPTIONAL);
        }
        if (value instanceof java.util.ArrayDeque<?> deque && value.getClass() == java.util.ArrayDeque.class) {
            graph.addGuard(new TypeMatch(source, value.getClass()));
            return ListVariable.unread(() -> listContents(List.copyOf(deque), source), java.util.ArrayDeque.class, source);
        }
        if (value instanceof List<?> list && JdkCalls.isJdk(list.getClass())) {
            // a List class of the user's (a subclass of ArrayList, an AbstractList) is an object of the user's: its own
            // methods are traced and the JDK's inherited ones break, rather than being modelled as ArrayList's
            // the list's class, exactly: the trace depends on it (an ArrayList's changes are replayed; List.of throws on set
            // and add, Arrays.asList on add only), as Dynamo guards a list and a tuple apart
            graph.addGuard(new TypeMatch(source, list.getClass()));
            // The caller's ArrayList/LinkedList may be mutated: the compiled frame replays the appends, or the final contents once read.
            boolean replayable = value instanceof java.util.ArrayList<?> || value instanceof java.util.LinkedList<?>;
            if (replayable) return ListVariable.unread(() -> listContents(list, source), list.getClass(), source);
            if (ReversedViewBaseSource.isReversedView(list)) {
                // a reversed() view's class is the same over any list: its base's class, guarded, says what it does
                Class<?> base = list.reversed().getClass();
                graph.addGuard(new TypeMatch(new ReversedViewBaseSource(source), base));
                if (isImmutable(base)) {
                    // ImmutableCollections' reversed() views refuse every write; one of a List.of list throws what a List.of(…).reversed() throws
                    ImmutableListKind kind = ImmutableListKind.ofClass(base, list.size());
                    return ListVariable.ofInputRefusingWrites(listContents(list, source), source, kind == null ? null : kind.reversed(), null);
                }
                if (isUnmodifiableWrapper(base)) return ListVariable.ofInputRefusingWrites(listContents(list, source), source, null, list.getClass());
            }
            if (isUnmodifiableWrapper(list.getClass())) return ListVariable.ofInputRefusingWrites(listContents(list, source), source, null, list.getClass());
            if (isViewOfAnother(list)) return ListVariable.ofInputView(listContents(list, source), source, list.getClass());
            if (isImmutable(list.getClass())) {
                return ListVariable.ofInputRefusingWrites(listContents(list, source), source, ImmutableListKind.ofClass(list.getClass(), list.size()), null);
            }
            return ListVariable.ofInput(listContents(list, source), source, list.getClass());
        }
        if (value.getClass().isArray()) {
            graph.addGuard(new TypeMatch(source, value.getClass()));
            int n = Array.getLength(value);
            graph.addGuard(new LengthCheck(source, n));
            Class<?> comp = value.getClass().getComponentType();
            List<VariableTracker> items = new ArrayList<>();
            for (int i = 0; i < n; i++) items.add(wrap(Array.get(value, i), new IndexSource(source, i), comp));
            return new ArrayVariable(comp, items, source);
        }
        graph.addGuard(new TypeMatch(source, value.getClass()));
        // its text is guarded only once the trace reads it (StringBuilders.read); appending needs none
        if (value.getClass() == StringBuilder.class || value.getClass() == StringBuffer.class) {
            return new dev.ember.dynamo.variables.StringBuilderVariable(value.getClass().asSubclass(CharSequence.class), source, value.toString());
        }
        if (Modules.isModule(value)) return new ModuleVariable(value, source, modulePath(source));
        Lambdas.Made remade = Lambdas.made(value.getClass());
        if (remade != null) return new LambdaVariable(remade.target(), remade.interfaceMethod(), capturedOf(value, source, remade.target()), source, null);
        // a lambda whose package is not open to Ember (the JDK's own: Comparator.comparingInt's) is an opaque object
        boolean readable = FunctionTarget.readable(value.getClass());
        if (value.getClass().isHidden() && value instanceof Serializable && readable) {
            LambdaVariable lambda = lambdaOf(value, source);
            if (lambda != null) return lambda;
        }
        if (value.getClass().isHidden() && readable) {
            Lambdas.Made plain = Lambdas.ofHidden(value.getClass());
            if (plain != null) return new LambdaVariable(plain.target(), plain.interfaceMethod(), capturedOf(value, source, plain.target()), source, null);
        }
        return new UserObjectVariable(value.getClass(), value, source);
    }

    /** Whether lists of this class are the JDK's immutable ones (List.of, List.copyOf, toList and their subLists): every write throws at once. */
    static boolean isImmutable(Class<?> cls) { return cls.getName().startsWith("java.util.ImmutableCollections$"); }

    /** Whether lists of this class are Collections.unmodifiableList's wrappers: every write throws at once, whatever they wrap. */
    static boolean isUnmodifiableWrapper(Class<?> cls) {
        return cls.getName().equals("java.util.Collections$UnmodifiableList") || cls.getName().equals("java.util.Collections$UnmodifiableRandomAccessList");
    }

    /**
     * Whether a list is one of the JDK's views of another container (subList, reversed, the
     * unmodifiable, synchronized and checked wrappers, Arrays.asList over an array): a change of
     * that container, traced through another variable, shows through it. The immutable lists
     * (List.of, toList, copies) own their elements and never change.
     */
    static boolean isViewOfAnother(List<?> list) {
        String name = list.getClass().getName();
        if (!name.startsWith("java.util.") || name.startsWith("java.util.ImmutableCollections$")) return false;
        return name.contains("SubList") || name.contains("View") || name.startsWith("java.util.Collections$Unmodifiable")
                || name.startsWith("java.util.Collections$Synchronized") || name.startsWith("java.util.Collections$Checked")
                || name.equals("java.util.Arrays$ArrayList");
    }

    private static final java.lang.constant.MethodTypeDesc ITERATOR = java.lang.constant.MethodTypeDesc.of(java.lang.constant.ClassDesc.of("java.util.Iterator"));

    /**
     * The iterator a resume method received from a graph break: traced as an iterator over its list
     * or set (wrapped, with their own guards) made afresh and moved to the same position, which is
     * guarded, with the item its last move returned: a call where the break came at another item,
     * or after a remove, recompiles.
     */
    private VariableTracker resumedIterator(dev.ember.dynamo.resume.ResumedIterator<?> it, Source source) {
        graph.addGuard(new TypeMatch(source, it.getClass()));
        graph.addGuard(new EqualsMatch(new IteratorPartSource(source, IteratorPartSource.Part.POSITION), it.position()));
        VariableTracker over = wrap(it.iterable(), new IteratorPartSource(source, IteratorPartSource.Part.ITERABLE), Object.class);
        if (!(Invoker.invokeVirtual(ctx, Iterable.class, "iterator", ITERATOR, over, List.of()) instanceof IteratorVariable traced)) {
            throw new IllegalStateException("iterator() of " + over.describe() + " is not traced as an iterator");
        }
        for (int i = 0; i < it.position(); i++) traced.next();
        // remove and set act on the item the last move returned, or refuse: guarded, as the position is
        graph.addGuard(new EqualsMatch(new IteratorPartSource(source, IteratorPartSource.Part.LAST_RETURNED), it.lastReturned()));
        traced.restoreLastReturned(it.lastReturned());
        return traced;
    }

    /** An input list's contents: its length guarded now, element {@code i} wrapped from {@code source[i]} when the trace first reads it. */
    private ListVariable.Contents listContents(List<?> list, Source source) {
        graph.addGuard(new LengthCheck(source, list.size()));
        Object[] elements = list.toArray();   // the values this call passed, whenever the trace reads them
        return new ListVariable.Contents(elements.length, i -> wrap(elements[i], new IndexSource(source, i), Object.class));
    }

    /**
     * A map or set from the inputs: guarded on its class and on its keys in iteration order (a call
     * with other keys, or the same keys in another order, recompiles); a map's values are wrapped
     * as read from {@code source[key]} when the trace first reads them, so unread values are not guarded.
     */
    private KeyedVariable keyed(Object value, Source source) {
        graph.addGuard(new TypeMatch(source, value.getClass()));
        boolean replayable = KeyedContainers.MAP_CLASSES.contains(value.getClass()) || KeyedContainers.SET_CLASSES.contains(value.getClass())
                || KeyedContainers.isEnumKeyed(value);
        if (value instanceof Map<?, ?> map) {
            graph.addGuard(new KeysMatch(source, List.copyOf(map.keySet())));
            Map<Object, VariableTracker> entries = value instanceof TreeMap<?, ?> || value instanceof java.util.EnumMap<?, ?> ? new TreeMap<>() : new LinkedHashMap<>();
            Map<Object, java.util.function.Supplier<VariableTracker>> unread = new java.util.HashMap<>();
            int index = 0;
            for (var e : map.entrySet()) {
                Object key = e.getKey(), v = e.getValue();   // the value this call passed, whenever the trace reads it
                Object traced = tracedKey(key, source, index++);
                entries.put(traced, null);
                unread.put(traced, () -> wrap(v, new KeySource(source, key), Object.class));
            }
            return new MapVariable(value.getClass(), entries, unread, replayable, source);
        }
        Set<?> set = (Set<?>) value;
        graph.addGuard(new KeysMatch(source, List.copyOf(set)));
        Set<Object> elements = value instanceof TreeSet<?> || value instanceof java.util.EnumSet<?> ? new TreeSet<>() : new LinkedHashSet<>();
        int index = 0;
        for (Object element : set) elements.add(tracedKey(element, source, index++));
        return new SetVariable(value.getClass(), elements, replayable, source);
    }

    /**
     * A key of an input map or set as the trace holds it: a value key as it is; a tensor key (the
     * same object as the caller's, which {@link KeysMatch} guards) as an identity key of the graph
     * input read from its position in the container.
     */
    private Object tracedKey(Object key, Source container, int index) {
        if (!(key instanceof Tensor)) return key;
        return dev.ember.dynamo.variables.IdentityKey.of(wrap(key, new dev.ember.dynamo.source.KeyAtSource(container, index), Object.class));
    }

    /**
     * Whether the double at {@code source} becomes a graph input: unless {@code Options.specializeFloat}
     * or a restarted trace specializes it, an argument, an array or list element is one from the
     * first call; any other (a field, an object's or a static one; a map's value) stays a guarded
     * constant until its value changes, and is an input from that recompile on (automatic dynamic, as Dynamo treats a float
     * attribute; from the first call with {@code Options.dynamic(true)}, never with {@code dynamic(false)}).
     * A module's fields stay constants, as its ints do ({@link #isModuleField}).
     */
    private boolean unspecialized(Source source) {
        if (ctx.options.isSpecializeFloat() || ctx.specialized.contains(source.name())) return false;
        if (source instanceof LocalSource || source instanceof dev.ember.dynamo.source.IndexSource) return true;
        Boolean dynamic = ctx.options.dynamicSetting();
        return !Boolean.FALSE.equals(dynamic) && (Boolean.TRUE.equals(dynamic) || ctx.changedInputs.contains(source.name())) && !isModuleField(source);
    }

    /**
     * Whether the int or long at {@code source} becomes a graph input: after it changed between calls
     * (automatic dynamic: the frame recompiled because its value guard failed), or from the first
     * call with {@code Options.dynamic(true)}; never with {@code dynamic(false)} or once a restarted
     * trace specialized it.
     */
    private boolean dynamicInteger(Source source) {
        Boolean dynamic = ctx.options.dynamicSetting();
        if (Boolean.FALSE.equals(dynamic) || ctx.specialized.contains(source.name())) return false;
        return Boolean.TRUE.equals(dynamic) || ctx.changedInputs.contains(source.name()) && !isModuleField(source);
    }

    /**
     * An int field of a module ({@code this.counter} of an nn.Module): specialized even when it
     * changes, as Dynamo keeps a module's int attributes static (each value recompiles).
     */
    static boolean isModuleField(Source source) {
        return source instanceof FieldSource f && Modules.isModuleClass(f.field().getDeclaringClass());
    }

    /** A number of {@code javaType} as a 0-d graph input of its dtype, read at each call from {@code source}. */
    private VariableTracker scalarInput(Source source, Class<?> javaType, boolean boxed, Object value) {
        if (boxed) graph.addGuard(new TypeMatch(source, SymScalarVariable.boxedTypeOf(javaType)));
        dev.ember.tensor.DType dtype = SymScalarVariable.dtypeOf(javaType);
        FakeTensor fake = new FakeTensor(dev.ember.tensor.TensorMeta.contiguous(dtype));
        TensorVariable t = new TensorVariable(graph.placeholder(placeholderName(source), fake, new ScalarTensorSource(source, dtype)), fake, null);
        return SymScalarVariable.input(t, javaType, source, boxed, value);
    }

    private static boolean isValue(Object v) {
        return v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof Character || v instanceof Enum<?>;
    }

    /** A serializable lambda seen as a value: its implementation method, and its captured values read from the lambda object's fields. */
    private LambdaVariable lambdaOf(Object lambda, Source source) {
        FunctionTarget target = FunctionTarget.of(lambda);
        long fields = java.util.Arrays.stream(lambda.getClass().getDeclaredFields()).filter(f -> !java.lang.reflect.Modifier.isStatic(f.getModifiers())).count();
        if (fields != target.captured().length) return null;
        return new LambdaVariable(target.method(), target.interfaceMethod(), capturedOf(lambda, source, target.method()), source, null);
    }

    /**
     * A lambda's captured values, in order, read from its fields; each named as the variable it
     * captured (the implementation method's leading parameters, when its class has their names).
     */
    private List<VariableTracker> capturedOf(Object lambda, Source source, dev.ember.dynamo.variables.MethodTarget implementation) {
        List<VariableTracker> captured = new ArrayList<>();
        List<String> names = capturedNames(implementation);
        int i = 0;
        for (Field f : lambda.getClass().getDeclaredFields()) {
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
            String name = i < names.size() ? names.get(i) : null;
            i++;
            FieldSource fs = new FieldSource(source, f, name != null && !name.equals("this") ? name : null);
            try {
                captured.add(wrap(f.get(lambda), fs, f.getType()));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read the captured value " + fs.name(), e);
            }
        }
        return captured;
    }

    /** The names of {@code m}'s parameters (the receiver first as "this"), from its class's debug information; null where unknown. */
    private static List<String> capturedNames(dev.ember.dynamo.variables.MethodTarget m) {
        List<String> names = new ArrayList<>();
        try {
            ClassFiles.Resolved r = ClassFiles.declared(m.owner(), m.name(), m.type());
            if (r == null || !r.hasCode()) return names;
            MethodCode code = MethodCode.of(r);
            int slot = 0;
            if (!m.isStatic()) names.add(code.slotName(slot++));
            for (var p : m.type().parameterList()) {
                names.add(code.slotName(slot));
                slot += p.descriptorString().equals("J") || p.descriptorString().equals("D") ? 2 : 1;
            }
        } catch (RuntimeException e) {
            // no class file or no debug information: the JDK's field names stay
        }
        return names;
    }

    /** Placeholder names as Dynamo makes them: {@code L['x']} → {@code l_x_}, {@code L['self'].fc.weight} → {@code l_self_fc_weight}. */
    static String placeholderName(Source s) {
        String n = s.name().replace("L['", "l_").replace("G['", "g_").replace("']", "_").replaceAll("[^A-Za-z0-9_]", "_");
        return n.replaceAll("_+", "_").replaceAll("_$", "_");
    }

    private static String modulePath(Source s) {
        if (s instanceof FieldSource f) {
            String base = modulePath(f.base());
            // A container module's own list of children is not a level of the path: Sequential's child 0 is "seq.0".
            if (Modules.isModuleClass(f.field().getDeclaringClass()) && !Modules.isModuleClass(f.field().getType())
                    && !Tensor.class.isAssignableFrom(f.field().getType())) {
                return base;
            }
            return base.isEmpty() ? f.field().getName() : base + "." + f.field().getName();
        }
        if (s instanceof IndexSource i) {
            String base = modulePath(i.base());
            return base.isEmpty() ? String.valueOf(i.index()) : base + "." + i.index();
        }
        if (s instanceof KeySource k) {
            String base = modulePath(k.base());
            return base.isEmpty() ? String.valueOf(k.key()) : base + "." + k.key();
        }
        if (s instanceof LocalSource l && !l.localName().equals("self")) return l.localName();
        return "";
    }
}
