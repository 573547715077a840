package dev.ember.dynamo;

import dev.ember.dynamo.source.LocalSource;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.KeyedVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapVariable;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.StreamVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.Node;

import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * For one trace, how each Java value that leaves it (the return value, the live values at a break,
 * the values of replayed side effects) is rebuilt after the graph runs: tensors become graph
 * outputs, values from the inputs are re-read from their sources, and each value made during the
 * trace knows how to make itself again. A variable reached along several paths gets one rebuilder
 * node, so the call rebuilds it once and every path shares the object, as in eager.
 */
final class Rebuilders {
    private final TraceContext ctx;
    private final List<Node> outputs = new ArrayList<>();
    private final Map<Node, Integer> outputIndex = new IdentityHashMap<>();
    private final Map<VariableTracker, OutputRebuilder> made = new IdentityHashMap<>();
    private final Set<VariableTracker> inProgress = Collections.newSetFromMap(new IdentityHashMap<>());

    Rebuilders(TraceContext ctx) { this.ctx = ctx; }

    /** The graph's outputs the rebuilders read, in output order. */
    List<Node> outputs() { return outputs; }

    /** A live value for a state array: primitives in their boxed stack form, references rebuilt from graph outputs and sources. */
    OutputRebuilder live(VariableTracker v, JvmType t) {
        if (v instanceof SymScalarVariable s) return scalar(s);
        if (v instanceof dev.ember.dynamo.variables.SymSizeVariable s) return symbolicSize(s);
        if (v instanceof ConstantVariable c && c.deferred() != null) {
            // read from the input at each call: the graph did not guard its value
            var d = c.deferred();
            return new OutputRebuilder.SymbolicSize(dev.ember.tensor.SymInt.symbol(0).plus(d.offset()), List.of(d.source()), int.class);
        }
        if (t.kind() != TypeKind.REFERENCE) {
            if (v instanceof ConstantVariable c && c.value() instanceof Number) return new OutputRebuilder.Constant(c.value());
            throw new CannotResume("a " + t + " value is tracked as " + v.describe());
        }
        if (v instanceof IteratorVariable it && it.unchangedIterable() != null) return resumedIterator(it);
        return of(v, null);
    }

    /**
     * An iterator live across the break, for the resume method only: returned to the caller, an
     * iterator of Ember's class would not be the one eager returns, so returning one stays a break.
     */
    private OutputRebuilder resumedIterator(IteratorVariable it) {
        OutputRebuilder known = made.get(it);
        if (known != null) return known;
        OutputRebuilder r = new OutputRebuilder.IteratorAt(of(it.unchangedIterable(), null), it.position(), it.lastReturned());
        made.put(it, r);
        return r;
    }

    /** The rebuilder of {@code v}; {@code declared} is the static type it is read as (a primitive converts a constant), or null. */
    OutputRebuilder of(VariableTracker v, ClassDesc declared) {
        OutputRebuilder known = made.get(v);
        if (known != null) return known;
        if (!inProgress.add(v)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_RETURN, "returning " + v.describe() + ", which contains itself");
        try {
            OutputRebuilder r = build(v, declared);
            if (r.hasIdentity()) made.put(v, r);
            // a number the trace did not know (an input, a graph output) leaves in the declared primitive's box
            if (declared != null && declared.isPrimitive() && !(r instanceof OutputRebuilder.Constant)) {
                r = new OutputRebuilder.AsPrimitive(r, Values.resolve(declared, Object.class));
            }
            return r;
        } finally {
            inProgress.remove(v);
        }
    }

    private OutputRebuilder build(VariableTracker v, ClassDesc declared) {
        return switch (v) {
            case TensorVariable t -> tensor(t.node());
            case ConstantVariable c when c.value() instanceof GradientHooks.Pending hook -> registration(hook);
            case ConstantVariable c -> new OutputRebuilder.Constant(declared != null && declared.isPrimitive()
                    ? Values.fromStack(c.value(), Values.resolve(declared, Object.class)) : c.value());
            case ListVariable l when l.source() != null -> new OutputRebuilder.FromSource(l.source());
            case ListVariable l when l.isView() && l.isStale() ->
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_RETURN, "handing on " + l.describe() + ", whose list changed under it (its every use throws ConcurrentModificationException)");
            case ListVariable l when l.isView() -> new OutputRebuilder.ListViewOf(of(l.base(), null), l.viewKind(), l.viewFrom(), l.size());
            case ListVariable l when l.isFixedSize() -> new OutputRebuilder.ArrayAsListOf(of(l.backing(), null));
            case ListVariable l -> new OutputRebuilder.ListOf(all(l.items()), l.type(), l.immutableKind());
            case ArrayVariable a when a.source() != null -> new OutputRebuilder.FromSource(a.source());
            case ArrayVariable a -> new OutputRebuilder.ArrayOf(a.componentType(), all(a.items()));
            case KeyedVariable k when k.source() != null -> new OutputRebuilder.FromSource(k.source());
            case KeyedVariable k when k.sortedView() != null -> {
                yield new OutputRebuilder.SortedViewOf(of(k.sortedView().base(), null), k.sortedView().method(), all(k.sortedView().args()));
            }
            case KeyedVariable k -> new OutputRebuilder.KeyedOf(k.type(), k.isMutable(), k.construction(), k.changes().log(), List.copyOf(k.keys()),
                    k instanceof MapVariable m ? all(m.entries().values()) : null, keyValues(k), k.comparator() == null ? null : of(k.comparator(), null));
            case MapViewVariable view -> new OutputRebuilder.ViewOf(of(view.map(), null), view.view());
            case dev.ember.dynamo.variables.ReadOnlyVariable u when u.of() instanceof MapViewVariable view
                    && u.wrapper() == dev.ember.dynamo.variables.ReadOnlyVariable.Wrapper.UNMODIFIABLE_MAP ->
                    new OutputRebuilder.ReadOnlyOf(of(view.map(), null), u.wrapper(), view.view());
            case dev.ember.dynamo.variables.ReadOnlyVariable u -> new OutputRebuilder.ReadOnlyOf(of(u.of(), null), u.wrapper(), null);
            case dev.ember.dynamo.variables.ImmutableEntryVariable pair -> new OutputRebuilder.EntryOf(of(pair.key(), null), of(pair.value(), null));
            case UserObjectVariable u when !u.isFresh() -> new OutputRebuilder.FromSource(u.source());
            case UserObjectVariable u when u.type().isRecord() -> {
                List<OutputRebuilder> comps = new ArrayList<>();
                for (var rc : u.type().getRecordComponents()) {
                    VariableTracker field = u.fields().get(rc.getName());
                    ClassDesc fd = rc.getType().describeConstable().orElseThrow();
                    comps.add(field == null ? new OutputRebuilder.Constant(Values.zero(rc.getType())) : of(field, fd));
                }
                yield OutputRebuilder.RecordOf.of(u.type(), comps);
            }
            case UserObjectVariable u when Exceptions.madeAgain(u) != null -> exception(u, Exceptions.madeAgain(u));
            case UserObjectVariable u when Throwable.class.isAssignableFrom(u.type()) || u.type().isHidden() ->
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_RETURN, "returning " + v.describe() + " (an exception or hidden class is not made again after the graph)");
            case UserObjectVariable u -> object(u);
            case ModuleVariable m when m.source() != null -> new OutputRebuilder.FromSource(m.source());
            case LambdaVariable l when l.source() != null -> new OutputRebuilder.FromSource(l.source());
            case LambdaVariable l when l.site() != null ->
                    new OutputRebuilder.LambdaOf(Lambdas.factory(l.site()), all(l.captured()), new Lambdas.Made(l.target(), l.interfaceMethod()));
            case OpOverloadVariable o -> new OutputRebuilder.Constant(o.op());
            case StreamVariable s -> new OutputRebuilder.Stream(s.name());
            case dev.ember.dynamo.variables.StringBuilderVariable sb when sb.source() != null -> new OutputRebuilder.FromSource(sb.source());
            case dev.ember.dynamo.variables.StringBuilderVariable sb -> new OutputRebuilder.StringBuilderOf(sb.text().toString(), sb.type() == StringBuffer.class);
            case SymScalarVariable s when !s.dataDependent() -> scalar(s);
            case SymScalarVariable s -> throw SymScalars.dataDependent(ctx, s, "returning it");
            case dev.ember.dynamo.variables.SymSizeVariable s -> symbolicSize(s);
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_RETURN, "returning " + v.describe());
        };
    }

    /** An exception made in the trace (thrown out of the function after the graph, or returned): made again with its message, cause and fields. */
    private OutputRebuilder exception(UserObjectVariable u, Exceptions.Made how) {
        Map<Field, OutputRebuilder> fields = new LinkedHashMap<>();
        OutputRebuilder.ExceptionOf e = new OutputRebuilder.ExceptionOf(u.type(), how.message() != null, how.message() == null ? null : (String) how.message().value(),
                how.cause() == null ? null : of(how.cause(), null), fields, how.madeAt());
        made.put(u, e);
        addFields(u.type(), how.fields(), fields);
        return e;
    }

    /** A user object made in the trace; registered before its fields are, so a field holding the object itself is the same object. */
    private OutputRebuilder object(UserObjectVariable u) {
        Map<Field, OutputRebuilder> fields = new LinkedHashMap<>();
        OutputRebuilder.ObjectOf obj = new OutputRebuilder.ObjectOf(u.type(), fields);
        made.put(u, obj);
        addFields(u.type(), u.fields(), fields);
        return obj;
    }

    /** The rebuilders of a made object's field values, by field (after the object is registered, so a field may hold it). */
    private void addFields(Class<?> type, Map<String, VariableTracker> values, Map<Field, OutputRebuilder> into) {
        for (var e : values.entrySet()) {
            Field f = Fields.find(type, e.getKey());
            f.setAccessible(true);
            into.put(f, of(e.getValue(), f.getType().describeConstable().orElseThrow()));
        }
    }

    private List<OutputRebuilder> all(java.util.Collection<VariableTracker> items) {
        List<OutputRebuilder> out = new ArrayList<>(items.size());
        for (VariableTracker item : items) out.add(of(item, null));
        return out;
    }

    /**
     * A tensor leaving the trace: the caller's own tensor for a graph input; a view of another graph
     * value made again from that value after the graph ran ({@code v3 = v2.narrow(…)} returned or live
     * with {@code v2}), so the two share memory as in eager, whatever the backend made of the view (the
     * inductor computes a view it returns into a buffer of its own, and a write through one would not
     * reach the other, as AOTAutograd regenerates an output that aliases another); else the graph's output.
     */
    private OutputRebuilder tensor(Node n) {
        int input = graphInput(n);
        if (input >= 0) return new OutputRebuilder.GraphInput(input, output(n));
        if (n.aliasesFirstArgument()) {
            OutputRebuilder view = viewOf(n, -1, n);
            if (view != null) return view;
        }
        // a piece of split/chunk/unbind (a list of views), made again as that piece of the same op (fuzzer seed 82633)
        if (n.target() == dev.ember.fx.BuiltinFunctions.GETITEM && n.arg(0) instanceof Node list && n.arg(1) instanceof Integer item) {
            OutputRebuilder view = viewOf(list, item, n);
            if (view != null) return view;
        }
        return new OutputRebuilder.GraphOutput(output(n));
    }

    /** {@code made} (a view op's call, or its list's piece {@code item}) made again from its rebuilt base, or null when it cannot be. */
    private OutputRebuilder viewOf(Node made, int item, Node n) {
        if (!(made.target() instanceof dev.ember.ops.OpOverload op) || !op.returnsAlias() || !made.kwargs().isEmpty() || made.args().isEmpty()
                || !(made.arg(0) instanceof Node base) || !(base.kind() == dev.ember.fx.NodeKind.CALL_FUNCTION || graphInput(base) >= 0)
                || !made.args().stream().skip(1).allMatch(Rebuilders::isPlainConstant)) {
            return null;
        }
        return new OutputRebuilder.TensorViewOf(tensor(base), op, new ArrayList<>(made.args().subList(1, made.args().size())), item, output(n));
    }

    /** A view op's argument that holds no graph value and no symbolic size: an int, a list of ints, a boolean, null. */
    private static boolean isPlainConstant(Object a) {
        if (a instanceof List<?> l) return l.stream().allMatch(Rebuilders::isPlainConstant);
        if (a instanceof int[] || a instanceof long[]) return true;
        return a == null || a instanceof Integer || a instanceof Long || a instanceof Boolean || a instanceof dev.ember.tensor.DType;
    }

    /** The graph input {@code n} is as it was passed (a tensor placeholder, not a number's 0-d input), or -1. */
    private int graphInput(Node n) {
        if (n.kind() != dev.ember.fx.NodeKind.PLACEHOLDER) return -1;
        int index = ctx.graph.graph().placeholders().indexOf(n);
        return index >= 0 && !(ctx.graph.inputSources().get(index) instanceof dev.ember.dynamo.source.ScalarTensorSource) ? index : -1;
    }

    private int output(Node n) {
        return outputIndex.computeIfAbsent(n, k -> {
            outputs.add(k);
            return outputs.size() - 1;
        });
    }

    /**
     * A symbolic number leaving the graph: an unchanged argument is re-read from the call's frame;
     * anything else is a graph output read back as the Java number (a field is not re-read: a
     * replayed store may have changed it since the graph read it).
     */
    private OutputRebuilder scalar(SymScalarVariable s) {
        Node n = s.tensor().node();
        if (n.kind() == dev.ember.fx.NodeKind.PLACEHOLDER && s.roots().size() == 1 && s.roots().getFirst() instanceof LocalSource) {
            return new OutputRebuilder.FromSource(s.roots().getFirst());
        }
        return new OutputRebuilder.ScalarItem(output(n), s.javaType());
    }

    /** A symbolic size handed on (returned, or live across a break): computed from this call's input sizes. */
    private OutputRebuilder symbolicSize(dev.ember.dynamo.variables.SymSizeVariable s) {
        List<dev.ember.dynamo.source.Source> symbols = ctx.shapes.symbols().stream().map(x -> (dev.ember.dynamo.source.Source) x.source()).toList();
        return new OutputRebuilder.SymbolicSize(s.expr(), symbols, s.javaType());
    }

    /** The final state of every mutated input object, to be written back after the graph runs. */
    List<SideEffect> replays() {
        List<SideEffect> out = new ArrayList<>();
        if (ctx.gradEnabled != ctx.gradEnabledAtEntry) out.add(new SideEffect.SetGradMode(ctx.gradEnabled));
        for (SideEffects.Store s : ctx.sideEffects.stores()) {
            ClassDesc type = s.field().getType().describeConstable().orElseThrow();
            out.add(new SideEffect.SetField(s.owner(), s.field(), of(s.value(), type)));
        }
        for (ListVariable l : ctx.sideEffects.lists()) {
            if (l.isRead()) out.add(new SideEffect.ResetList(l.source(), of(new ListVariable(l.items(), true, null), null), l.structuralChanges() > 0));
            else out.add(new SideEffect.AppendToList(l.source(), of(new ListVariable(l.appended(), true, null), null)));
        }
        for (ArrayVariable a : ctx.sideEffects.arrays()) {
            out.add(new SideEffect.ResetArray(a.source(), of(new ArrayVariable(a.componentType(), a.items(), null), null)));
        }
        for (KeyedVariable k : ctx.sideEffects.keyed()) out.add(replay(k));
        for (var b : ctx.sideEffects.builders()) {
            String now = b.text().toString();
            out.add(b.isRead() ? new SideEffect.SetText(b.source(), now) : new SideEffect.AppendText(b.source(), now.substring(b.initial().length())));
        }
        for (SideEffects.LogCall l : ctx.sideEffects.logs()) {
            List<OutputRebuilder> args = new ArrayList<>();
            List<VariableTracker> values = LoggingCalls.snapshotArgs(ctx, l);
            Class<?>[] types = l.method().getParameterTypes();
            for (int i = 0; i < types.length; i++) args.add(of(values.get(i), types[i].describeConstable().orElseThrow()));
            out.add(new SideEffect.Log(l.receiver(), l.method(), args));
        }
        for (GradientHooks.Op op : ctx.sideEffects.hookOps()) out.add(new SideEffect.HookOp(registration(op.registration()), op.remove()));
        return out;
    }

    private final Map<GradientHooks.Pending, OutputRebuilder.HookRegistration> registrations = new IdentityHashMap<>();

    /** The registration of a hook on an input: one per call, however many paths reach its handle. */
    private OutputRebuilder.HookRegistration registration(GradientHooks.Pending p) {
        OutputRebuilder.HookRegistration known = registrations.get(p);
        if (known != null) return known;
        OutputRebuilder.HookRegistration r = new OutputRebuilder.HookRegistration(of(p.tensor, null), of(p.hook, null));
        registrations.put(p, r);
        return r;
    }

    /** The rebuilders of the keys of {@code k} that are values of the trace, wherever the container's history holds them. */
    private OutputRebuilder.KeyValues keyValues(KeyedVariable k) {
        Map<dev.ember.dynamo.variables.IdentityKey, OutputRebuilder> out = new java.util.HashMap<>();
        List<Object> all = new ArrayList<>(k.keys());
        for (var c : k.changes().log()) all.add(c.key());
        if (k.construction().copiedKeys() != null) all.addAll(k.construction().copiedKeys());
        for (Object key : all) {
            if (key instanceof dev.ember.dynamo.variables.IdentityKey ik && !out.containsKey(ik)) out.put(ik, of(ik.value(), null));
        }
        return out.isEmpty() ? OutputRebuilder.KeyValues.NONE : new OutputRebuilder.KeyValues(out);
    }

    /** An input map's or set's changes; a map's values are set again only for keys whose value the trace changed. */
    private SideEffect replay(KeyedVariable k) {
        if (!(k instanceof MapVariable m)) return new SideEffect.ReplayChanges(k.source(), k.changes().log(), List.of(), null, keyValues(k));
        Set<Object> touched = new java.util.HashSet<>();
        for (var c : k.changes().log()) touched.add(c.key());
        List<Object> keys = new ArrayList<>();
        List<OutputRebuilder> values = new ArrayList<>();
        for (var e : m.entries().entrySet()) {
            boolean unchanged = e.getValue().source() instanceof dev.ember.dynamo.source.KeySource ks && ks.base().equals(k.source())
                    && ks.key().equals(e.getKey()) && !touched.contains(e.getKey());
            if (unchanged) continue;
            keys.add(e.getKey());
            values.add(of(e.getValue(), null));
        }
        return new SideEffect.ReplayChanges(k.source(), k.changes().log(), keys, values, keyValues(k));
    }
}
