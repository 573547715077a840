package dev.ember.dynamo;

import dev.ember.autograd.CustomFunction;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.GraphModule;
import dev.ember.fx.GraphText;
import dev.ember.fx.Node;
import dev.ember.fx.PreparedGraph;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.OpEmitter;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link CustomFunction#apply} and {@code applyAll} while tracing, as Dynamo treats a
 * {@code torch.autograd.Function}: its {@code forward} and {@code backward} are traced into graphs
 * of their own, and the call becomes one node of an op made for this trace, whose kernel and
 * decomposition are the forward graph and whose derivative is the backward graph. So the forward's
 * ops join the caller's graph (the inductor fuses them with their neighbours once AOT decomposes
 * the op), and a gradient through it is the one the user's {@code backward} computes: eagerly
 * (the eager backend records the op like any other), and in AOT's joint graph.
 *
 * <p>What a traced function may do is what a graph can hold: tensor ops on its inputs, reads of
 * its own fields and of constants, the {@link CustomFunction.Context} methods (tensors saved for
 * backward, values put, non-differentiable outputs, {@code needsInputGrad}). Anything else — a
 * print, a write to a field, an in-place op, a tensor it did not get as an input (a module's
 * parameter), a graph break inside, a wrong number or shape of gradients, symbolic sizes — keeps
 * the previous behaviour, one eager call between two graphs (GB0020), whose reason says why, so
 * that everything happens exactly as eagerly, errors included, at the same point.
 */
final class CustomFunctionOp {
    private CustomFunctionOp() {}

    private static final ClassDesc TENSOR = ClassDesc.of(Tensor.class.getName());
    private static final ClassDesc TENSORS = TENSOR.arrayType();
    private static final MethodTypeDesc FORWARD = MethodTypeDesc.of(TENSORS, ClassDesc.of(CustomFunction.Context.class.getName()), TENSORS);
    private static final MethodTypeDesc BACKWARD = FORWARD;

    private static final java.util.concurrent.atomic.AtomicInteger UNNAMED = new java.util.concurrent.atomic.AtomicInteger();

    /** Whether {@code r} is {@code CustomFunction.apply} or {@code applyAll}. */
    static boolean isApply(ClassFiles.Resolved r) {
        String name = r.method().methodName().stringValue();
        return r.declaringClass() == CustomFunction.class && (name.equals("apply") || name.equals("applyAll"));
    }

    /** Why a traced function falls back to one eager call. */
    private static final class NotTraceable extends RuntimeException {
        NotTraceable(String why) { super(why, null, false, false); }
    }

    /** {@code receiver.apply(inputs)} (or {@code applyAll}): one node of a traced op, or GB0020 with the reason tracing it failed. */
    static VariableTracker trace(TraceContext ctx, ClassFiles.Resolved r, List<VariableTracker> args) {
        boolean all = r.method().methodName().equalsString("applyAll");
        String oneCall = DisabledFunctions.runAsOneCall(r);
        try {
            return traceOrExplain(ctx, all, args.getFirst(), Containers.itemsOf(ctx, args.get(1)));
        } catch (NotTraceable e) {
            throw ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, oneCall + ": " + e.getMessage());
        } catch (Unsupported e) {
            throw ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, oneCall + ": tracing it: " + e.reason(), e);
        } catch (Raised e) {
            throw ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, oneCall + ": tracing it: " + e.uncaught.reason(), e);
        }
    }

    private static VariableTracker traceOrExplain(TraceContext ctx, boolean all, VariableTracker function, List<VariableTracker> inputs) {
        if (!ctx.shapes.isEmpty()) throw new NotTraceable("the trace has symbolic sizes, which a traced function's graphs do not take yet");
        if (!(function instanceof UserObjectVariable)) {
            throw new NotTraceable("the function is " + function.describe());
        }
        String name = TypeOf.runtimeClass(function) == null ? "CustomFunction" : TypeOf.runtimeClass(function).getSimpleName();
        List<TensorVariable> in = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            if (!(inputs.get(i) instanceof TensorVariable t)) throw new NotTraceable("input " + i + " is " + inputs.get(i).describe() + ", not a tensor");
            in.add(t);
        }
        boolean[] needs = new boolean[in.size()];
        for (int i = 0; i < needs.length; i++) needs[i] = ctx.gradEnabled && requiresGrad(ctx, in.get(i));

        // forward: a graph of the inputs, returning the outputs and then whatever is saved that is neither
        TraceContext fwd = new TraceContext(ctx.options, ctx.specialized, ctx.changedInputs);
        fwd.gradEnabled = false;   // eager runs forward with recording off
        List<VariableTracker> fwdIn = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            FakeTensor f = in.get(i).fake();
            Node p = fwd.graph.placeholder("input_" + i, f, null);
            fwd.inputRequiresGrad.put(p, requiresGrad(ctx, in.get(i)));   // what in[i].requiresGrad() answers in forward
            fwdIn.add(new TensorVariable(p, f, null));
        }
        TracedContext fctx = new TracedContext(needs, true);
        VariableTracker ret = Invoker.invokeVirtual(fwd, CustomFunction.class, "forward", FORWARD, function,
                List.of(ConstantVariable.of(fctx), new ArrayVariable(Tensor.class, new ArrayList<>(fwdIn), null)));
        List<TensorVariable> outs = tensors(ret, "forward");
        if (outs.isEmpty()) throw new NotTraceable("its forward returns no outputs");
        if (!all && outs.size() != 1) throw new NotTraceable("apply on a forward of " + outs.size() + " outputs (use applyAll)");
        checkGraph(fwd, "forward", in.size());
        for (int k = 0; k < outs.size(); k++) {
            if (aliasesAnInput(outs.get(k).node())) {
                // eagerly the output shares the input's memory (a write through either shows in the other); the op's output would be
                // a tensor of its own, so a later in-place op on the input left it unchanged (fuzzer seed 900211)
                throw new NotTraceable("its forward returns " + (outs.get(k).node().kind() == dev.ember.fx.NodeKind.PLACEHOLDER ? "an input" : "a view of an input")
                        + " (output " + k + "), which shares the input's memory; a graph's op returns a tensor of its own");
            }
        }

        // the saved tensors (and tensors put in the context) as inputs, outputs or extra outputs of the forward graph
        List<TensorVariable> saved = new ArrayList<>(fctx.saved);
        for (VariableTracker v : fctx.values.values()) if (v instanceof TensorVariable t) saved.add(t);
        Map<Node, Integer> fwdInputIndex = new IdentityHashMap<>(), outputIndex = new IdentityHashMap<>();
        for (int i = 0; i < fwdIn.size(); i++) fwdInputIndex.putIfAbsent(((TensorVariable) fwdIn.get(i)).node(), i);
        for (int k = 0; k < outs.size(); k++) outputIndex.putIfAbsent(outs.get(k).node(), k);
        List<Node> fwdOutputs = new ArrayList<>();
        for (TensorVariable o : outs) fwdOutputs.add(o.node());
        Map<Node, Slot> slots = new IdentityHashMap<>();
        for (TensorVariable s : saved) {
            Node n = s.node();
            if (slots.containsKey(n)) continue;
            if (fwdInputIndex.containsKey(n)) slots.put(n, new Slot(true, fwdInputIndex.get(n)));
            else if (outputIndex.containsKey(n)) slots.put(n, new Slot(false, outputIndex.get(n)));
            else {
                slots.put(n, new Slot(false, fwdOutputs.size()));
                fwdOutputs.add(n);
            }
        }
        fwd.graph.output(fwdOutputs);
        GraphModule fwdGraph = fwd.graph.toGraphModule();

        // backward: a graph of the outputs' gradients and the saved tensors, returning one gradient per input (or none)
        GraphModule bwdGraph = null;
        boolean[] gradientGiven = new boolean[in.size()];
        boolean anyNeeded = false;
        for (boolean b : needs) anyNeeded |= b;
        TraceContext bwd = null;
        if (anyNeeded) {
            bwd = new TraceContext(ctx.options, ctx.specialized, ctx.changedInputs);
            bwd.gradEnabled = false;
            List<VariableTracker> grads = new ArrayList<>();
            for (int k = 0; k < outs.size(); k++) {
                FakeTensor f = FakeTensor.like(outs.get(k).fake());
                grads.add(new TensorVariable(bwd.graph.placeholder("grad_" + k, f, null), f, null));
            }
            Map<Node, TensorVariable> savedInBackward = new IdentityHashMap<>();
            int m = 0;
            for (Node n : slots.keySet().stream().sorted(java.util.Comparator.comparingInt(x -> slotOrder(slots.get(x), in.size()))).toList()) {
                FakeTensor f = (FakeTensor) n.val();
                savedInBackward.put(n, new TensorVariable(bwd.graph.placeholder("saved_" + m++, f, null), f, null));
            }
            TracedContext bctx = fctx.forBackward(savedInBackward);
            VariableTracker gradsBack = Invoker.invokeVirtual(bwd, CustomFunction.class, "backward", BACKWARD, function,
                    List.of(ConstantVariable.of(bctx), new ArrayVariable(Tensor.class, grads, null)));
            if (!(gradsBack instanceof ArrayVariable a)) throw new NotTraceable("its backward returns " + gradsBack.describe());
            if (a.items().size() != in.size()) {
                throw new NotTraceable("its backward returns " + a.items().size() + " gradients for " + in.size() + " inputs");
            }
            List<Node> bwdOutputs = new ArrayList<>();
            for (int i = 0; i < in.size(); i++) {
                VariableTracker g = a.items().get(i);
                if (g instanceof ConstantVariable c && c.value() == null) continue;
                if (!(g instanceof TensorVariable t)) throw new NotTraceable("its backward returns " + g.describe() + " as gradient " + i);
                if (!needs[i]) continue;
                int[] got = t.fake().shape(), want = in.get(i).fake().shape();
                if (!Shapes.same(got, want) && !broadcastsTo(got, want)) {
                    throw new NotTraceable("its backward returns a gradient of shape " + Shapes.format(got) + " for input " + i + " of shape " + Shapes.format(want));
                }
                gradientGiven[i] = true;
                bwdOutputs.add(t.node());
            }
            checkGraph(bwd, "backward", outs.size() + slots.size());
            bwd.graph.output(bwdOutputs);
            bwdGraph = bwd.graph.toGraphModule();
        }
        fwd.graph.guards().forEach(ctx.graph::addGuard);
        if (bwd != null) bwd.graph.guards().forEach(ctx.graph::addGuard);

        List<Integer> nonDifferentiable = new ArrayList<>();
        for (int k = 0; k < fwdOutputs.size(); k++) {
            if (k >= outs.size() || fctx.nonDifferentiable.contains(fwdOutputs.get(k))) nonDifferentiable.add(k);
        }
        List<Slot> savedSlots = slots.keySet().stream().map(slots::get).sorted(java.util.Comparator.comparingInt(s -> slotOrder(s, in.size()))).toList();
        OpOverload op = op(name, in.size(), outs.size(), fwdGraph, bwdGraph, savedSlots, gradientGiven, nonDifferentiable);
        VariableTracker result = OpCalls.call(ctx, op, new ArrayList<>(in));
        // nothing above the call may refuse the trace any more: the node and the guards are in the caller's graph
        List<VariableTracker> items = ((ListVariable) result).items().subList(0, outs.size());
        return all ? new ListVariable(new ArrayList<>(items), ArrayList.class, null) : items.getFirst();
    }

    /** Whether {@code n}, a node of a traced half, is one of its inputs or a view of one (through view ops and pieces of split-like ops). */
    private static boolean aliasesAnInput(Node n) {
        while (n.kind() == dev.ember.fx.NodeKind.CALL_FUNCTION) {
            if (n.aliasesFirstArgument() && n.arg(0) instanceof Node base) {
                n = base;
            } else if (n.target() == BuiltinFunctions.GETITEM && n.arg(0) instanceof Node list && list.target() instanceof OpOverload op && op.returnsAlias()
                    && !list.args().isEmpty() && list.arg(0) instanceof Node base) {
                n = base;
            } else {
                return false;
            }
        }
        return n.kind() == dev.ember.fx.NodeKind.PLACEHOLDER;
    }

    /** A saved tensor: input {@code index} of the function, or output {@code index} of the forward graph (extras after the user's). */
    private record Slot(boolean input, int index) {}

    /** Placeholders of the backward graph in a fixed order: saved inputs, then saved outputs. */
    private static int slotOrder(Slot s, int inputs) { return s.input ? s.index : inputs + s.index; }

    /** Whether a traced input requires grad (autograd's rules on the graph, {@link TracedGrad}); unknown is no trace. */
    private static boolean requiresGrad(TraceContext ctx, TensorVariable t) {
        Boolean r = TracedGrad.requiresGrad(ctx, t.node());
        if (r == null) throw new NotTraceable("whether an input requires grad is not known while tracing (grad mode changed in the trace)");
        return r;
    }

    /** The items of a returned {@code Tensor[]}, each a tensor. */
    private static List<TensorVariable> tensors(VariableTracker v, String what) {
        if (!(v instanceof ArrayVariable a)) throw new NotTraceable("its " + what + " returns " + v.describe());
        List<TensorVariable> out = new ArrayList<>();
        for (VariableTracker item : a.items()) {
            if (!(item instanceof TensorVariable t)) throw new NotTraceable("its " + what + " returns " + item.describe() + " among its outputs");
            out.add(t);
        }
        return out;
    }

    /** A traced half must be ops on its own placeholders: nothing written, printed or read from elsewhere. */
    private static void checkGraph(TraceContext sub, String what, int placeholders) {
        if (!sub.sideEffects.isEmpty()) throw new NotTraceable("its " + what + " has side effects (a field written, a print, a mutated container)");
        int seen = 0;
        for (Node n : sub.graph.graph().nodes()) {
            switch (n.kind()) {
                case PLACEHOLDER -> seen++;
                case CALL_FUNCTION -> {
                    if (n.target() instanceof OpOverload op) {
                        if (op.writtenArg() >= 0) throw new NotTraceable("its " + what + " writes a tensor in place (" + op.name() + ")");
                        if (!OpRegistry.isRegistered(op)) throw new NotTraceable("its " + what + " calls another CustomFunction");
                    } else if (n.target() != BuiltinFunctions.GETITEM) {
                        throw new NotTraceable("its " + what + " calls " + n.target() + ", which its graph cannot hold");
                    }
                }
                case OUTPUT -> { }
                default -> throw new NotTraceable("its " + what + " reads a tensor it was not given (" + n.kind() + " " + n.target()
                        + "): pass it as an input of apply");
            }
        }
        if (seen != placeholders) throw new NotTraceable("its " + what + " reads a tensor it was not given: pass it as an input of apply");
    }

    private static boolean broadcastsTo(int[] got, int[] want) {
        if (got.length < want.length) return false;
        for (int i = 1; i <= want.length; i++) {
            int g = got[got.length - i], w = want[want.length - i];
            if (g != w && w != 1) return false;
        }
        return true;
    }

    // ------------------------------------------------------------------ the op

    /**
     * The op of one traced function: {@code inputs} tensors in, the forward graph's outputs out (the
     * user's {@code outputs}, then the saved extras, which carry no gradient). Named by the class and
     * a hash of both graphs, so two functions with different code or constants never share a name
     * (graphs and caches name ops); it is not in the registry: only this process knows it.
     */
    private static OpOverload op(String name, int inputs, int outputs, GraphModule fwd, GraphModule bwd, List<Slot> saved,
                                 boolean[] gradientGiven, List<Integer> nonDifferentiable) {
        String hash;
        try {
            String text = GraphText.write(fwd.graph()) + (bwd == null ? "" : GraphText.write(bwd.graph()));
            hash = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)), 0, 6);
        } catch (IllegalArgumentException | java.security.NoSuchAlgorithmException e) {
            hash = "u" + UNNAMED.incrementAndGet();   // a constant the text format cannot write: a name unique in this process
        }
        StringBuilder params = new StringBuilder();
        for (int i = 0; i < inputs; i++) params.append(i == 0 ? "" : ", ").append("Tensor input_").append(i);
        String schema = "autograd_function." + name + "_" + hash + "(" + params + ") -> Tensor[]";
        PreparedGraph fwdRun = new PreparedGraph(fwd);
        OpOverload.Builder b = OpOverload.define(schema)
                .meta(args -> {
                    Object out = ShapeProp.propagate(fwd, args.toArray());
                    List<TensorMeta> metas = new ArrayList<>();
                    for (Object o : (List<?>) out) metas.add(((Tensor) o).meta());
                    return metas;
                })
                .kernel((args, meta) -> {
                    Object[] in = args.toArray();
                    return Arrays.stream(fwdRun.run(in)).map(o -> aliasIfInput((Tensor) o, in)).toList();
                })
                .decomposition((e, args) -> emit(fwd, e, Arrays.asList(args)))
                .nonDifferentiableOutputs(nonDifferentiable.stream().mapToInt(Integer::intValue).toArray());
        if (bwd != null) {
            b.derivative(g -> {
                List<Object> bwdIn = new ArrayList<>();
                for (int k = 0; k < outputs; k++) bwdIn.add(g.hasGrad(k) ? g.grad(k) : g.zeros(g.resultMeta(k)));
                for (Slot s : saved) bwdIn.add(s.input ? g.arg(s.index) : g.result(s.index));
                List<Object> given = emit(bwd, g.emitter(), bwdIn);
                Object[] grads = new Object[inputs];
                int next = 0;
                for (int i = 0; i < inputs; i++) {
                    if (!gradientGiven[i]) continue;
                    Object grad = given.get(next++);
                    if (g.needs(i)) grads[i] = grad;
                }
                return grads;
            });
        }
        return b.build();
    }

    /**
     * An output that is one of the inputs itself becomes a new tensor viewing it, as eager's apply
     * makes it: the op's result is then the op's own (its requiresGrad and gradient function are
     * the op's, not the input's; a non-differentiable one does not require grad).
     */
    private static Tensor aliasIfInput(Tensor out, Object[] args) {
        for (Object a : args) if (a == out) return out.viewAs(out.meta());
        return out;
    }

    /** Runs {@code gm}'s nodes through {@code e} on {@code inputs}; returns its outputs. */
    private static List<Object> emit(GraphModule gm, OpEmitter e, List<Object> inputs) {
        Map<Node, Object> env = new IdentityHashMap<>();
        int next = 0;
        for (Node n : gm.graph().nodes()) {
            switch (n.kind()) {
                case PLACEHOLDER -> env.put(n, inputs.get(next++));
                case CALL_FUNCTION -> {
                    Object[] args = n.args().stream().map(a -> resolve(a, env)).toArray();
                    env.put(n, n.target() == BuiltinFunctions.GETITEM
                            ? ((List<?>) args[0]).get(((Number) args[1]).intValue())
                            : e.call((OpOverload) n.target(), args));
                }
                case OUTPUT -> {
                    return ((List<?>) n.arg(0)).stream().map(a -> resolve(a, env)).toList();
                }
                default -> throw new IllegalStateException("a traced CustomFunction's graph holds " + n.kind() + " " + n);
            }
        }
        throw new IllegalStateException("a traced CustomFunction's graph has no output");
    }

    private static Object resolve(Object a, Map<Node, Object> env) {
        if (a instanceof Node n) return env.get(n);
        if (a instanceof List<?> l) return l.stream().map(x -> resolve(x, env)).toList();
        return a;
    }

    // ------------------------------------------------------------------ the context while tracing

    /**
     * The {@link CustomFunction.Context} a traced forward or backward is given: what it saves and
     * puts is kept as the trace's variables. A plain constant to the translator (it has no source,
     * so no guard), whose methods {@link Invoker} sends here.
     */
    static final class TracedContext {
        private final boolean[] needsInputGrad;
        private final boolean forward;
        final List<TensorVariable> saved = new ArrayList<>();
        final Map<String, VariableTracker> values = new LinkedHashMap<>();
        final java.util.Set<Node> nonDifferentiable = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        /** In backward: each saved forward node's placeholder. */
        private Map<Node, TensorVariable> savedInBackward;

        TracedContext(boolean[] needsInputGrad, boolean forward) {
            this.needsInputGrad = needsInputGrad;
            this.forward = forward;
        }

        TracedContext forBackward(Map<Node, TensorVariable> savedInBackward) {
            TracedContext b = new TracedContext(needsInputGrad, false);
            b.saved.addAll(saved);
            b.values.putAll(values);
            b.savedInBackward = savedInBackward;
            return b;
        }

        VariableTracker call(TraceContext ctx, String name, List<VariableTracker> args) {
            switch (name) {
                case "needsInputGrad" -> {
                    int i = ((Number) constant(ctx, args.getFirst(), name)).intValue();
                    if (i < 0 || i >= needsInputGrad.length) throw refuse(ctx, "needsInputGrad(" + i + ") of a function of " + needsInputGrad.length + " inputs");
                    return ConstantVariable.of(needsInputGrad[i] ? 1 : 0);
                }
                case "saveForBackward" -> {
                    if (!forward) throw refuse(ctx, "its backward calls saveForBackward");
                    saved.clear();
                    for (VariableTracker v : Containers.itemsOf(ctx, args.getFirst())) {
                        if (!(v instanceof TensorVariable t)) throw refuse(ctx, "it saves " + v.describe() + " for backward");
                        saved.add(t);
                    }
                    return null;
                }
                case "markNonDifferentiable" -> {
                    if (!forward) throw refuse(ctx, "its backward calls markNonDifferentiable");
                    for (VariableTracker v : Containers.itemsOf(ctx, args.getFirst())) {
                        if (!(v instanceof TensorVariable t)) throw refuse(ctx, "it marks " + v.describe() + " non-differentiable");
                        nonDifferentiable.add(t.node());
                    }
                    return null;
                }
                case "put" -> {
                    if (!forward) throw refuse(ctx, "its backward puts a value in the context");
                    String key = (String) constant(ctx, args.get(0), name);
                    VariableTracker v = args.get(1);
                    if (!(v instanceof ConstantVariable) && !(v instanceof TensorVariable)) throw refuse(ctx, "it puts " + v.describe() + " in the context");
                    values.put(key, v);
                    return null;
                }
                case "get" -> {
                    String key = (String) constant(ctx, args.getFirst(), name);
                    VariableTracker v = values.get(key);
                    if (v == null) throw refuse(ctx, "it gets '" + key + "', which its forward did not put");
                    return inBackward(v);
                }
                case "savedTensors" -> {
                    List<VariableTracker> items = new ArrayList<>();
                    for (TensorVariable t : saved) items.add(inBackward(t));
                    return new ListVariable(items, false, null);
                }
                default -> throw refuse(ctx, "it calls Context." + name + "()");
            }
        }

        private VariableTracker inBackward(VariableTracker v) {
            if (forward || !(v instanceof TensorVariable t)) return v;
            return savedInBackward.get(t.node());
        }

        private static Object constant(TraceContext ctx, VariableTracker v, String method) {
            if (v instanceof ConstantVariable c && c.value() != null) return c.value();
            throw refuse(ctx, "Context." + method + " is given " + v.describe() + ", not a constant");
        }

        /** Inside a traced half the translator turns any other exception into an internal error: a break it is. */
        private static Unsupported refuse(TraceContext ctx, String why) { return ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, why); }

        @Override
        public String toString() { return "CustomFunction.Context"; }
    }
}
