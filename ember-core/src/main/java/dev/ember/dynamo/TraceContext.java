package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.events.UserFrame;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * State shared by the translators of one trace (the root frame and every inlined call): the graph
 * being built, the variable builder, the instruction budget and the stack of frames for messages.
 */
final class TraceContext {
    static final int INSTRUCTION_BUDGET = 100_000;
    static final int MAX_INLINE_DEPTH = 32;
    private static final Set<String> LIBRARY_PACKAGES = Set.of("dev.ember", "dev.ember.tensor", "dev.ember.ops",
            "dev.ember.ops.eager", "dev.ember.kernels", "dev.ember.nn", "dev.ember.fx", "dev.ember.dynamo");

    final Options options;
    final OutputGraph graph = new OutputGraph();
    /** The int inputs whose value guards wait until the trace reads them. */
    final DeferredInts ints = new DeferredInts(graph);
    /** Per symbolic int's inputs, how many branches this trace guarded on them ({@link SymScalars#compare}). */
    final java.util.Map<java.util.List<String>, Integer> symIntBranches = new java.util.HashMap<>();
    final VariableBuilder builder = new VariableBuilder(this);
    /** Names of the inputs a restarted trace takes as guarded constants, not graph inputs ({@link SpecializeAndRestart}). */
    final Set<String> specialized;
    /**
     * Names of the int and long inputs and of the tensor sizes that changed between calls: this trace
     * makes the numbers graph inputs and the sizes symbols (automatic dynamic).
     */
    final Set<String> changedInputs;
    /** The size symbols of this trace. */
    final ShapeEnv shapes;
    final SideEffects sideEffects = new SideEffects();
    /** The real comparator each sorted container made in the trace sorts by, per the program's comparator (see KeyedContainers). */
    final java.util.Map<dev.ember.dynamo.variables.VariableTracker, java.util.Comparator<Object>> realComparators = new java.util.IdentityHashMap<>();
    /** Graph inputs (placeholders) made from real tensors, and whether each requires grad. */
    final java.util.Map<dev.ember.fx.Node, Boolean> inputRequiresGrad = new java.util.IdentityHashMap<>();
    /** Graph inputs whose real tensor is a leaf that requires grad: an in-place op on one raises, as eager's autograd does. */
    final java.util.Set<dev.ember.fx.Node> inputLeavesRequiringGrad = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /**
     * Inputs whose views eager's autograd refuses to write in place (their root, a leaf that
     * requires grad, described), and the views (inputs, or views made with grad mode on) it refuses
     * to write, each with that root described.
     */
    final java.util.Map<dev.ember.fx.Node, String> viewBasesRefusingInPlace = new java.util.IdentityHashMap<>();
    final java.util.Map<dev.ember.fx.Node, String> viewsRefusingInPlace = new java.util.IdentityHashMap<>();
    /** The class of each such input (Tensor or a subclass such as Parameter), for checkcast and instanceof. */
    final java.util.Map<dev.ember.fx.Node, Class<?>> inputClass = new java.util.IdentityHashMap<>();
    /** The real tensor behind each input placeholder (its gradient is read while tracing: {@link TensorMethods}). */
    final java.util.Map<dev.ember.fx.Node, dev.ember.tensor.Tensor> inputTensorOf = new java.util.IdentityHashMap<>();
    final List<InstructionTranslator> frames = new ArrayList<>();
    private int instructions;
    /** Instructions the root frame has started; a re-trace halts when it is about to start step {@link #haltAtStep}. */
    int rootSteps;
    int haltAtStep = -1;
    /** Where in the root frame the first graph break happened (step and instruction index), or -1. */
    int breakStep = -1;
    int breakIndex = -1;
    /** Where the root method returned: the location of errors found while building its return value. */
    UserFrame returnLocation;

    /** Grad mode as the traced code has set it so far (traced noGrad()/enableGrad() scopes), and as the call found it. */
    boolean gradEnabled = dev.ember.autograd.GradMode.isEnabled();
    final boolean gradEnabledAtEntry = gradEnabled;
    /**
     * Grad mode outside the grad-mode scopes this frame runs in: the entry mode, or for a resume
     * method that starts inside a scope an earlier frame opened, the mode that scope found. A graph
     * that a break ends inside a scope restores it last, and one that starts inside a scope sets the
     * scope's mode first, as Dynamo's graphs do: each graph says the grad mode its ops run in.
     */
    boolean gradEnabledOutsideScopes = gradEnabled;
    /** Whether a graph break here is an error, as traced {@code Ember.errorOnGraphBreak} regions have set it so far ({@link ErrorOnGraphBreak}). */
    boolean errorOnGraphBreak;

    TraceContext(Options options, Set<String> specialized, Set<String> changedInputs) {
        this.options = options;
        this.specialized = specialized;
        this.changedInputs = changedInputs;
        this.shapes = new ShapeEnv(options.dynamicSetting(), changedInputs, specialized);
        this.errorOnGraphBreak = ErrorOnGraphBreak.atEntry(options);
    }

    void tick() {
        if (++instructions > INSTRUCTION_BUDGET) {
            throw unsupported(GraphBreakType.INSTRUCTION_BUDGET, "tracing executed more than " + INSTRUCTION_BUDGET
                    + " bytecode instructions (loops are unrolled while tracing; is a trip count huge or not constant?)");
        }
    }

    int instructionsExecuted() { return instructions; }

    Unsupported unsupported(GraphBreakType type, String reason) { return unsupported(type, reason, null); }

    Unsupported unsupported(GraphBreakType type, String reason, Throwable cause) {
        return new Unsupported(type, reason, userStack(), cause);
    }

    /** Frames of user code, outermost first; library frames (Tensor, ops, nn) are left out. */
    List<UserFrame> userStack() {
        List<UserFrame> out = new ArrayList<>();
        for (InstructionTranslator f : frames) {
            if (!isLibrary(f.code.owner)) out.add(f.location());
        }
        if (out.isEmpty() && !frames.isEmpty()) out.add(frames.getLast().location());
        if (out.isEmpty() && returnLocation != null) out.add(returnLocation);
        return out;
    }

    /** Where a node being added comes from: the innermost user frame. */
    UserFrame currentLocation() {
        List<UserFrame> s = userStack();
        return s.isEmpty() ? null : s.getLast();
    }

    static boolean isLibrary(Class<?> c) { return LIBRARY_PACKAGES.contains(c.getPackageName()); }
}
