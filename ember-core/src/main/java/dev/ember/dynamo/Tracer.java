package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.fx.Node;
import dev.ember.logging.Log;
import dev.ember.dynamo.guards.GlobalStateMatch;
import dev.ember.dynamo.source.LocalSource;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.classfile.Instruction;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Traces one call of a compiled method: wraps the frame's inputs (installing guards), runs the
 * root translator, and turns the returned variable into graph outputs plus an {@link OutputRebuilder}.
 */
final class Tracer {
    private Tracer() {}

    /**
     * The graph, its guards and how to rebuild the return value; {@code errorOnGraphBreak}: whether
     * the graph break (if any) happened where breaks are errors ({@link ErrorOnGraphBreak}).
     */
    record Result(OutputGraph graph, OutputRebuilder rebuilder, List<SideEffect> sideEffects, int instructions, Unsupported graphBreak,
                  int breakStep, int breakIndex, Set<String> specialized, Set<String> changedInputs, boolean errorOnGraphBreak) {
        /** Whether the break happened at an instruction of the compiled method itself (where a resume can start). */
        boolean resumable() { return graphBreak != null && breakStep >= 0 && graphBreak.type() != GraphBreakType.INSTRUCTION_BUDGET
                && graphBreak.noResume() == null; }
    }

    /**
     * The trace up to a graph break: the graph of everything before it, whose outputs are the live
     * values (locals, then the operand stack) the break code restores, and the side effects to replay.
     */
    record Partial(OutputGraph graph, MethodCode code, int index, int last, FrameTypes.Around types, LiveValues live, List<SideEffect> sideEffects,
                   List<String> stackNames, List<dev.ember.tensor.SymShape> localShapes) {}

    /**
     * Traces the call; when the code needs the value of an unspecialized input (a branch on a double
     * argument), traces again with that input specialized, until a trace needs none it has not.
     */
    static Result trace(FunctionTarget target, Object[] frame, Options options, Set<String> changedInputs, Set<String> specializedAtStart,
                        Consumer<String> restarted) {
        return trace(target, frame, options, changedInputs, specializedAtStart, restarted, false);
    }

    /**
     * As {@link #trace(FunctionTarget, Object[], Options, Set, Set, Consumer)}; {@code everyArgument}: every
     * argument is wrapped at entry, in order, read or not (a program exported takes every input, as
     * torch.export's does), where a compiled frame wraps each as the code first reads it.
     */
    static Result trace(FunctionTarget target, Object[] frame, Options options, Set<String> changedInputs, Set<String> specializedAtStart,
                        Consumer<String> restarted, boolean everyArgument) {
        Set<String> specialized = new LinkedHashSet<>(specializedAtStart);
        while (true) {
            try {
                return traceOnce(target, frame, options, Set.copyOf(specialized), changedInputs, everyArgument);
            } catch (SpecializeAndRestart r) {
                boolean grew = false;
                for (String name : r.names()) grew |= specialized.add(name);
                if (!grew) throw InternalTraceError.of(target.method().toString(), r.use + " needs " + r.sources + ", already specialized", r.where, r);
                String what = (r.multiple == 0 ? "specializing " : "making multiples of " + r.multiple + ": ")
                        + r.sources.stream().map(x -> x.shortName()).toList() + ": " + r.use;
                Log.of("dynamic").info(() -> what + (r.where == null ? "" : " at " + r.where.fileName() + ":" + r.where.line()));
                restarted.accept(what);
            }
        }
    }

    private static Result traceOnce(FunctionTarget target, Object[] frame, Options options, Set<String> specialized, Set<String> changedInputs,
                                    boolean everyArgument) {
        TraceContext ctx = new TraceContext(options, specialized, changedInputs);
        MethodCode code = code(target, frame);
        FrameArguments args = arguments(ctx, target, frame, code);
        if (everyArgument) args.readAll();
        try {
            if (DisabledFunctions.isDisabled(resolve(target, frame))) {
                throw ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, target.method() + " is disabled for compilation; it runs eagerly");
            }
            VariableTracker ret = new InstructionTranslator(ctx, code, args).run();
            args.guardDistinctReads();
            ctx.graph.removeUnusedScalarInputs();
            Rebuilders rebuilders = new Rebuilders(ctx);
            OutputRebuilder rebuilder = ret == null ? new OutputRebuilder.Constant(null) : rebuilders.of(ret, code.type.returnType());
            List<SideEffect> effects = rebuilders.replays();
            GradModes.dropIfAlone(ctx);
            ctx.graph.output(rebuilders.outputs());
            ctx.graph.removeUnusedScalarCompute();
            ctx.ints.finish();
            finishShapes(ctx);
            return new Result(ctx.graph, rebuilder, effects, ctx.instructionsExecuted(), null, -1, -1, specialized, changedInputs, false);
        } catch (Unsupported u) {
            args.guardDistinctReads();
            // the graph before the break must be generic in its sizes too, or the trace restarts with them static
            ctx.graph.output(List.of());
            ctx.ints.finish();
            finishShapes(ctx);
            return new Result(ctx.graph, null, List.of(), ctx.instructionsExecuted(), u, ctx.breakStep, ctx.breakIndex, specialized, changedInputs,
                    ctx.errorOnGraphBreak);
        }
    }

    /** Traces again, stopping where {@code first} broke; throws {@link CannotResume} when no resume can start there. */
    static Partial traceToBreak(FunctionTarget target, Object[] frame, Result first, Options options) {
        TraceContext ctx = new TraceContext(options, first.specialized(), first.changedInputs());
        ctx.haltAtStep = first.breakStep();
        MethodCode code = code(target, frame);
        FrameArguments args = arguments(ctx, target, frame, code);
        InstructionTranslator root = new InstructionTranslator(ctx, code, args);
        try {
            root.run();
            throw new CannotResume("the second trace did not reach the graph break again");
        } catch (InstructionTranslator.Halt h) {
            // the state of the root frame right before the breaking instruction
        } catch (Unsupported u) {
            throw new CannotResume("the second trace broke earlier: " + u.reason());
        } catch (SpecializeAndRestart r) {
            throw new CannotResume("the second trace needed to specialize " + r.sources + " again: " + r.use);
        }
        int index = root.currentIndex();
        if (index != first.breakIndex()) throw new CannotResume("the second trace stopped at another instruction");
        Instruction breaking = code.instructions.get(index);
        // a break in a resume method is a break in the user's method: its resume method is the one made for that position
        ResumeCodegen.Origin origin = ResumeCodegen.originOf(code, index);
        FrameTypes.Around types = FrameTypes.at(origin.code(), origin.index(), ResumeCodegen.fallsThrough(breaking));
        // a break that opens an Ember.disabled() block: the break code runs the whole block, the resume method starts after it
        int last = DisabledFunctions.blockEnd(origin.code(), origin.index());
        if (last != origin.index()) types = new FrameTypes.Around(types.before(), FrameTypes.at(origin.code(), last, true).after());
        args.guardDistinctReads();
        List<VariableTracker> values = new ArrayList<>();
        // an argument the trace never read is handed to the resume method as the caller passed it, unguarded
        Map<Integer, dev.ember.dynamo.source.Source> unread = new java.util.HashMap<>();
        for (FrameTypes.Local l : types.before().locals()) {
            dev.ember.dynamo.source.Source argument = l.slot() < root.locals.length ? root.unreadReference(l.slot()) : null;
            VariableTracker v = argument != null || l.slot() >= root.locals.length ? null : root.local(l.slot());
            if (argument != null) unread.put(values.size(), argument);
            else if (v == null) throw new CannotResume("local slot " + l.slot() + " is live for the verifier but unknown to the tracer");
            values.add(v);
        }
        List<VariableTracker> stack = root.stack();
        if (stack.size() != types.before().stack().size()) throw new CannotResume("operand stack depth differs from the verifier's");
        List<VariableTracker> carried = new ArrayList<>();
        for (int i = 0; i < stack.size(); i++) if (!types.before().stack().get(i).isPending()) carried.add(stack.get(i));
        values.addAll(carried);
        ctx.graph.removeUnusedScalarInputs();
        Rebuilders rebuilders = new Rebuilders(ctx);
        List<JvmType> valueTypes = types.before().valueTypes();
        OutputRebuilder[] live = new OutputRebuilder[values.size()];
        for (int i = 0; i < values.size(); i++) {
            VariableTracker v = values.get(i);
            JvmType t = valueTypes.get(i);
            if (unread.containsKey(i)) {
                live[i] = new OutputRebuilder.FromSource(unread.get(i));
                continue;
            }
            try {
                live[i] = t.isNull() ? new OutputRebuilder.Constant(null) : rebuilders.live(v, t);
            } catch (Unsupported u) {
                throw new CannotResume("the live value " + v.describe() + " cannot be rebuilt after the graph: " + u.reason());
            }
        }
        List<SideEffect> effects;
        try {
            effects = rebuilders.replays();
        } catch (Unsupported u) {
            throw new CannotResume("a side effect cannot be replayed: " + u.reason());
        }
        GradModes.leaveScopesAtBreak(ctx);
        GradModes.dropIfAlone(ctx);
        ctx.graph.output(rebuilders.outputs());
        ctx.graph.removeUnusedScalarCompute();
        try {
            ctx.ints.finish();
            finishShapes(ctx);
        } catch (SpecializeAndRestart r) {
            throw new CannotResume("the graph before the break is not generic in its sizes: " + r.use);
        }
        List<dev.ember.tensor.SymShape> localShapes = new ArrayList<>();
        for (int i = 0; i < types.before().locals().size(); i++) {
            localShapes.add(values.get(i) instanceof TensorVariable t && t.node().symVal() instanceof dev.ember.tensor.SymShape sh && sh.isSymbolic() ? sh : null);
        }
        return new Partial(ctx.graph, origin.code(), origin.index(), last, types, new LiveValues(live), effects, stack.stream().map(Tracer::nameOf).toList(), localShapes);
    }

    /**
     * What a value on the operand stack at a break is called in the resume method (and so in its
     * guards and graph): the local it was read from, or the graph value it is ({@code sum}); null
     * when nothing names it.
     */
    private static String nameOf(VariableTracker v) {
        if (v.source() instanceof LocalSource l) return l.localName();
        if (v instanceof TensorVariable t) return t.node().name();
        if (v instanceof SymScalarVariable s) return s.tensor().node().name();
        return null;
    }

    /**
     * A trace with size symbols: the graph learns them, every node its symbolic metadata, and the
     * guards what the graph assumed of the sizes (with the graph itself, to re-check its shapes at
     * each new size). A graph that is not generic restarts the trace with every size static.
     */
    private static void finishShapes(TraceContext ctx) {
        ShapeEnv shapes = ctx.shapes;
        if (shapes.isEmpty()) return;
        dev.ember.fx.SizeSymbols symbols = shapes.sizeSymbols(ctx.graph.graph().placeholders());
        ctx.graph.setSizeSymbols(symbols);
        dev.ember.fx.GraphModule gm = ctx.graph.toGraphModule();
        try {
            new dev.ember.fx.SymbolicShapes(symbols).annotate(gm);
        } catch (dev.ember.fx.SymbolicShapes.NotGeneric e) {
            throw new SpecializeAndRestart(shapes.sourcesToSpecialize(), "the graph is not generic in its sizes (" + e.getMessage() + ")", ctx.returnLocation);
        }
        List<dev.ember.dynamo.guards.SymbolicShapeGuard.Symbol> defs = new ArrayList<>();
        for (ShapeEnv.Symbol s : shapes.symbols()) defs.add(new dev.ember.dynamo.guards.SymbolicShapeGuard.Symbol(s.id(), s.source(), s.min(), s.max(), s.narrowedBy(), s.divisor()));
        List<dev.ember.dynamo.guards.SymbolicShapeGuard.SameSize> same = new ArrayList<>();
        for (ShapeEnv.Occurrence o : shapes.occurrences()) same.add(new dev.ember.dynamo.guards.SymbolicShapeGuard.SameSize(o.source(), o.symbol()));
        List<dev.ember.dynamo.guards.SymbolicShapeGuard.StrideIs> strides = new ArrayList<>();
        for (ShapeEnv.DynamicInput in : shapes.inputs()) {
            for (int d = 0; d < in.shape().dim(); d++) {
                if (!in.shape().strides()[d].isConstant()) strides.add(new dev.ember.dynamo.guards.SymbolicShapeGuard.StrideIs(in.source(), d, in.shape().strides()[d]));
            }
        }
        ctx.graph.addGuard(new dev.ember.dynamo.guards.SymbolicShapeGuard(defs, same, strides, gm));
    }

    private static MethodCode code(FunctionTarget target, Object[] frame) {
        try {
            return MethodCode.of(resolve(target, frame));
        } catch (ClassFiles.ClassFileNotFound e) {
            throw new IllegalArgumentException("Ember.compile cannot read the bytecode of " + target.method() + ": " + e.getMessage()
                    + ". Compile classes from class files on the class path (not generated at run time).", e);
        }
    }

    private static FrameArguments arguments(TraceContext ctx, FunctionTarget target, Object[] frame, MethodCode code) {
        ctx.graph.addGuard(GlobalStateMatch.current(GlobalStateMatch.State.GRAD_MODE));
        ctx.graph.addGuard(GlobalStateMatch.current(GlobalStateMatch.State.DEFAULT_DTYPE));
        List<String> names = argumentNames(target, frame.length, code);
        List<LocalSource> sources = new ArrayList<>();
        for (int i = 0; i < frame.length; i++) sources.add(new LocalSource(i, names.get(i)));
        GradModes.enterScopesInForce(ctx, frame);
        return new FrameArguments(ctx, frame, sources, paramTypes(target));
    }

    /** The frame's values as the source names them ({@code self} for the receiver), captured values first. */
    static List<String> argumentNames(FunctionTarget target, int frameLength, MethodCode code) {
        List<Class<?>> types = paramTypes(target);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < frameLength; i++) {
            String name = code.slotName(slotOf(types, i));
            if (name == null) name = i < target.captured().length ? "captured" + i : "arg" + (i - target.captured().length);
            names.add(name.equals("this") ? "self" : name);
        }
        return names;
    }

    /** {@link #argumentNames(FunctionTarget, int, MethodCode)} for a call with this frame. */
    static List<String> argumentNames(FunctionTarget target, Object[] frame) { return argumentNames(target, frame.length, code(target, frame)); }

    /** The method that runs: for an unbound or bound instance method reference, the override for the receiver's class. */
    private static ClassFiles.Resolved resolve(FunctionTarget target, Object[] frame) {
        var m = target.method();
        ClassFiles.Resolved r;
        if (m.isStatic() || frame.length == 0 || frame[0] == null) {
            r = ClassFiles.exact(m.owner(), m.name(), m.type());
        } else {
            r = ClassFiles.virtual(frame[0].getClass(), m.name(), m.type());
        }
        if (r == null) throw new IllegalArgumentException("cannot find the method " + m + " to compile");
        if (!r.hasCode()) throw new IllegalArgumentException("cannot compile " + m + ": it has no bytecode (abstract or native)");
        return r;
    }

    private static List<Class<?>> paramTypes(FunctionTarget target) {
        var m = target.method();
        List<Class<?>> out = new ArrayList<>();
        if (!m.isStatic()) out.add(m.owner());
        for (ClassDesc p : m.type().parameterList()) out.add(Values.resolve(p, m.owner()));
        return out;
    }

    private static int slotOf(List<Class<?>> types, int index) {
        int slot = 0;
        for (int i = 0; i < index; i++) slot += types.get(i) == long.class || types.get(i) == double.class ? 2 : 1;
        return slot;
    }
}
