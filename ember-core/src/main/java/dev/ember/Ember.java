package dev.ember;

import dev.ember.debug.NanHunt;
import dev.ember.debug.NanReport;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.DisabledFunctions;
import dev.ember.dynamo.InGraphFunctions;
import dev.ember.dynamo.Explainer;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.events.CompileEvents;
import dev.ember.export.ExportOptions;
import dev.ember.export.ExportedProgram;
import dev.ember.export.Exporter;
import dev.ember.kernels.Autotuner;
import dev.ember.kernels.Blas;
import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.TuningRun;
import dev.ember.logging.Logs;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * Ember's front door: {@code Ember.compile(fn)} captures the bytecode of a Java function into a
 * graph (guarded, cached, recompiled when the guards fail) and returns a function of the same type
 * that runs the compiled graph.
 *
 * <pre>{@code
 * var f = Ember.compile(MyApp::fn);                  // Fn2<Tensor, Tensor, Tensor>
 * f.apply(x, y);                                     // traces, compiles, runs
 * Ember.compile(MyApp::fn, Options.fullgraph());     // a graph break throws Unsupported
 * Ember.explain(MyApp::fn).with(x, y);               // graphs, breaks, guards
 * }</pre>
 */
public final class Ember {
    private Ember() {}

    /**
     * Stops autograd recording until the scope closes (PyTorch's {@code torch.no_grad()}):
     * {@code try (var s = Ember.noGrad()) { … }}.
     */
    public static dev.ember.autograd.GradMode.Scope noGrad() { return dev.ember.autograd.GradMode.noGrad(); }

    /** Turns autograd recording on until the scope closes ({@code torch.enable_grad()}). */
    public static dev.ember.autograd.GradMode.Scope enableGrad() { return dev.ember.autograd.GradMode.enableGrad(); }

    /**
     * Whether the calling code is being traced into a graph (PyTorch's
     * {@code torch.compiler.is_compiling()}): true in a compiled function's trace, where it is a
     * constant and the branch not taken is left out of the graph; false when the code runs
     * eagerly, including code a graph break runs outside the graph and {@code Ember.disabled()} blocks.
     * {@code if (!Ember.isCompiling()) check(x);} keeps an eager-only check out of graphs.
     */
    public static boolean isCompiling() { return false; }

    /**
     * Makes dimension {@code dim} of {@code t} dynamic from the first compile on: the graph takes
     * its size as a symbol ({@code s0}) and one compile serves every size of 2 or more (PyTorch's
     * {@code torch._dynamo.mark_dynamic}). Without it, a dimension becomes dynamic when its size
     * changes between calls (automatic dynamic). See docs/dynamic.md.
     */
    public static void markDynamic(dev.ember.tensor.Tensor t, int dim) { dev.ember.dynamo.DimMarks.markDynamic(t, dim, 2, Long.MAX_VALUE); }

    /** {@link #markDynamic(dev.ember.tensor.Tensor, int)} for sizes in {@code [min, max]} only; a size outside recompiles. */
    public static void markDynamic(dev.ember.tensor.Tensor t, int dim, long min, long max) { dev.ember.dynamo.DimMarks.markDynamic(t, dim, min, max); }

    /** Keeps dimension {@code dim} of {@code t} specialized to its size, even when it changes ({@code mark_static}). */
    public static void markStatic(dev.ember.tensor.Tensor t, int dim) { dev.ember.dynamo.DimMarks.markStatic(t, dim); }

    /** No recording, for inference ({@code torch.inference_mode()}). */
    public static dev.ember.autograd.GradMode.Scope inferenceMode() { return dev.ember.autograd.GradMode.inferenceMode(); }

    public static <R> Fn0<R> compile(Fn0<R> fn) { return compile(fn, Options.defaults()); }

    public static <A, R> Fn1<A, R> compile(Fn1<A, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, R> Fn2<A, B, R> compile(Fn2<A, B, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, C, R> Fn3<A, B, C, R> compile(Fn3<A, B, C, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, C, D, R> Fn4<A, B, C, D, R> compile(Fn4<A, B, C, D, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, C, D, E, R> Fn5<A, B, C, D, E, R> compile(Fn5<A, B, C, D, E, R> fn) { return compile(fn, Options.defaults()); }

    @SuppressWarnings("unchecked")
    public static <R> Fn0<R> compile(Fn0<R> fn, Options options) {
        Bound b = bind(fn, options);
        return () -> (R) b.frame.call(b.target, b.args(), fn::apply);
    }

    @SuppressWarnings("unchecked")
    public static <A, R> Fn1<A, R> compile(Fn1<A, R> fn, Options options) {
        Bound b = bind(fn, options);
        return a -> (R) b.frame.call(b.target, b.args(a), () -> fn.apply(a));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, R> Fn2<A, B, R> compile(Fn2<A, B, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y) -> (R) b.frame.call(b.target, b.args(x, y), () -> fn.apply(x, y));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, R> Fn3<A, B, C, R> compile(Fn3<A, B, C, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y, z) -> (R) b.frame.call(b.target, b.args(x, y, z), () -> fn.apply(x, y, z));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, D, R> Fn4<A, B, C, D, R> compile(Fn4<A, B, C, D, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y, z, w) -> (R) b.frame.call(b.target, b.args(x, y, z, w), () -> fn.apply(x, y, z, w));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, D, E, R> Fn5<A, B, C, D, E, R> compile(Fn5<A, B, C, D, E, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y, z, w, v) -> (R) b.frame.call(b.target, b.args(x, y, z, w, v), () -> fn.apply(x, y, z, w, v));
    }

    /**
     * An optimizer whose {@code step()} runs each parameter group's updates as one compiled function
     * of the parameter lists (every optimizer in {@code dev.ember.optim}): the inductor fuses each
     * parameter's chain of updates, and the step's numbers (learning rate, bias corrections) are
     * graph inputs, so it compiles once however they change (docs/training.md).
     */
    public static dev.ember.optim.Optimizer compile(dev.ember.optim.Optimizer optimizer, Options options) {
        optimizer.compileUpdatesWith(update -> {
            Bound b = bind(update, options);   // the update is a serializable lambda: its implementation method is what is captured
            @SuppressWarnings("unchecked")
            dev.ember.optim.ForeachUpdate compiled = (ps, gs, st, h) ->
                    (List<Tensor>) b.frame.call(b.target, b.args(ps, gs, st, h), () -> update.apply(ps, gs, st, h));
            return compiled;
        });
        return optimizer;
    }

    /**
     * Lets Ember define the code that resumes after a graph break next to your classes, when they are
     * loaded in a module of their own: a program run from source ({@code java Prog.java}) is, and
     * without this every function with a graph break in it runs eagerly (a warning says so). Call it
     * once, before compiling, with a lookup made in your code:
     * {@code Ember.grantAccess(MethodHandles.lookup());}. On the class path it is not needed.
     */
    public static void grantAccess(java.lang.invoke.MethodHandles.Lookup lookup) { dev.ember.jvm.Access.grant(lookup); }

    /** {@link #compile(dev.ember.optim.Optimizer, Options)} with the default options. */
    public static dev.ember.optim.Optimizer compile(dev.ember.optim.Optimizer optimizer) { return compile(optimizer, Options.defaults()); }

    /**
     * A module called as {@code module.call(x)}, compiled: its forward hooks and {@code forward(Tensor)}
     * (the module's fields, parameters and hooks are read on every call, so later changes to them
     * are seen, and guarded). Without hooks on the module the compiled frame is its {@code forward}.
     */
    public static Fn1<Tensor, Tensor> compile(Module module) { return compile(module, Options.defaults()); }

    public static Fn1<Tensor, Tensor> compile(Module module, Options options) {
        FunctionTarget forward = FunctionTarget.forModule(module), withHooks = FunctionTarget.tensorMethod(module, Module.class, "call");
        CompiledFrame forwardFrame = FrameRegistry.frameFor(forward.method(), options);
        return x -> module.hasForwardHooks()
                ? (Tensor) FrameRegistry.frameFor(withHooks.method(), options).call(withHooks, new Object[] {module, x}, () -> module.call(x))
                : (Tensor) forwardFrame.call(forward, new Object[] {module, x}, () -> module.forward(x));
    }

    /**
     * Exports {@code fn} for these example arguments as one functional ATen graph with its signature
     * and state (torch.export): strict, through bytecode capture, so a graph break is an
     * {@link dev.ember.export.ExportError} that names it. The program runs without the Java code
     * ({@code ep.run(x)}), saves to one file and loads in another JVM; see docs/export.md.
     */
    public static <A, R> ExportedProgram export(Fn1<A, R> fn, A a) { return export(ExportOptions.defaults(), fn, a); }

    public static <A, B, R> ExportedProgram export(Fn2<A, B, R> fn, A a, B b) { return export(ExportOptions.defaults(), fn, a, b); }

    public static <A, B, C, R> ExportedProgram export(Fn3<A, B, C, R> fn, A a, B b, C c) { return export(ExportOptions.defaults(), fn, a, b, c); }

    public static <A, B, C, D, R> ExportedProgram export(Fn4<A, B, C, D, R> fn, A a, B b, C c, D d) {
        return export(ExportOptions.defaults(), fn, a, b, c, d);
    }

    public static <A, B, C, D, E, R> ExportedProgram export(Fn5<A, B, C, D, E, R> fn, A a, B b, C c, D d, E e) {
        return export(ExportOptions.defaults(), fn, a, b, c, d, e);
    }

    /** A module's forward, its parameters and buffers lifted as PARAMETER and BUFFER inputs under their qualified names. */
    public static ExportedProgram export(Module module, Tensor x) { return export(ExportOptions.defaults(), module, x); }

    /** {@link #export(Fn1, Object)} with options: {@code ExportOptions.nonStrict()} runs the Java code on fake tensors instead. */
    @SuppressWarnings("unchecked")
    public static <A, R> ExportedProgram export(ExportOptions options, Fn1<A, R> fn, A a) {
        return Exporter.export(fn, options, new Object[] {a}, v -> fn.apply((A) v[0]));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, R> ExportedProgram export(ExportOptions options, Fn2<A, B, R> fn, A a, B b) {
        return Exporter.export(fn, options, new Object[] {a, b}, v -> fn.apply((A) v[0], (B) v[1]));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, R> ExportedProgram export(ExportOptions options, Fn3<A, B, C, R> fn, A a, B b, C c) {
        return Exporter.export(fn, options, new Object[] {a, b, c}, v -> fn.apply((A) v[0], (B) v[1], (C) v[2]));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, D, R> ExportedProgram export(ExportOptions options, Fn4<A, B, C, D, R> fn, A a, B b, C c, D d) {
        return Exporter.export(fn, options, new Object[] {a, b, c, d}, v -> fn.apply((A) v[0], (B) v[1], (C) v[2], (D) v[3]));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, D, E, R> ExportedProgram export(ExportOptions options, Fn5<A, B, C, D, E, R> fn, A a, B b, C c, D d, E e) {
        return Exporter.export(fn, options, new Object[] {a, b, c, d, e}, v -> fn.apply((A) v[0], (B) v[1], (C) v[2], (D) v[3], (E) v[4]));
    }

    public static ExportedProgram export(ExportOptions options, Module module, Tensor x) {
        return Exporter.export(module, options, new Object[] {x}, v -> module.forward((Tensor) v[0]));
    }

    /**
     * Runs {@code fn} compiled, in a cache of its own, for given arguments and reports graphs, graph
     * breaks, guards and compile times: {@code Ember.explain(MyApp::fn).with(x, y)}. {@code fn} is a
     * serializable {@code Fn0}…{@code Fn5} (the typed overloads below let method references be passed
     * without a cast) or a {@code Module}.
     */
    public static Explainer explain(Object fn) { return new Explainer(FunctionTarget.of(fn), Options.defaults()); }

    public static <R> Explainer explain(Fn0<R> fn) { return explain((Object) fn); }

    public static <A, R> Explainer explain(Fn1<A, R> fn) { return explain((Object) fn); }

    public static <A, B, R> Explainer explain(Fn2<A, B, R> fn) { return explain((Object) fn); }

    public static <A, B, C, R> Explainer explain(Fn3<A, B, C, R> fn) { return explain((Object) fn); }

    public static <A, B, C, D, R> Explainer explain(Fn4<A, B, C, D, R> fn) { return explain((Object) fn); }

    public static <A, B, C, D, E, R> Explainer explain(Fn5<A, B, C, D, E, R> fn) { return explain((Object) fn); }

    /** {@link #explain(Object)} compiling with these options (e.g. {@code Options.defaults().reorderableLogging(false)}). */
    public static Explainer explain(Object fn, Options options) { return new Explainer(FunctionTarget.of(fn), options); }

    public static <A, R> Explainer explain(Fn1<A, R> fn, Options options) { return explain((Object) fn, options); }

    public static <A, B, R> Explainer explain(Fn2<A, B, R> fn, Options options) { return explain((Object) fn, options); }

    public static <A, B, C, R> Explainer explain(Fn3<A, B, C, R> fn, Options options) { return explain((Object) fn, options); }

    /**
     * The NaN hunt: runs {@code fn} on these arguments with every captured graph (those after graph
     * breaks too) run op by op in eager, and stops at the first op whose output holds a NaN or an
     * infinity that none of its inputs held. The report names the op, its graph and user line, and
     * each input's min/max/mean and NaN/Inf counts; print it to read it (nothing is printed here).
     * The function runs up to that op for real; see docs/nans-and-bisect.md.
     */
    public static <R> NanReport debugNans(Fn0<R> fn) { return NanHunt.run(FunctionTarget.of(fn), new Object[0], fn::apply); }

    public static <A, R> NanReport debugNans(Fn1<A, R> fn, A a) { return NanHunt.run(FunctionTarget.of(fn), new Object[] {a}, () -> fn.apply(a)); }

    public static <A, B, R> NanReport debugNans(Fn2<A, B, R> fn, A a, B b) { return NanHunt.run(FunctionTarget.of(fn), new Object[] {a, b}, () -> fn.apply(a, b)); }

    public static <A, B, C, R> NanReport debugNans(Fn3<A, B, C, R> fn, A a, B b, C c) {
        return NanHunt.run(FunctionTarget.of(fn), new Object[] {a, b, c}, () -> fn.apply(a, b, c));
    }

    public static <A, B, C, D, R> NanReport debugNans(Fn4<A, B, C, D, R> fn, A a, B b, C c, D d) {
        return NanHunt.run(FunctionTarget.of(fn), new Object[] {a, b, c, d}, () -> fn.apply(a, b, c, d));
    }

    public static <A, B, C, D, E, R> NanReport debugNans(Fn5<A, B, C, D, E, R> fn, A a, B b, C c, D d, E e) {
        return NanHunt.run(FunctionTarget.of(fn), new Object[] {a, b, c, d, e}, () -> fn.apply(a, b, c, d, e));
    }

    /** {@link #debugNans(Fn1, Object)} for a module's forward. */
    public static NanReport debugNans(Module module, Tensor x) {
        return NanHunt.run(FunctionTarget.forModule(module), new Object[] {x}, () -> module.forward(x));
    }

    /**
     * Switches logs on, like {@code TORCH_LOGS}: {@code "graph_breaks,recompiles"}, {@code "+dynamo,graph_code"};
     * {@code "help"} lists the names. {@code EMBER_LOGS}, when set, wins.
     */
    public static void setLogs(String spec) { Logs.set(spec); }

    /**
     * What Ember does while it compiles, one event each, published where it happens: a frame's compile
     * starting and ending, graph breaks, recompiles with the guards that failed, graphs captured and
     * compiled, the inductor's cache hits. The logs, the structured trace and the debug folder are
     * written from these events; subscribe to see them too (see docs/logging.md):
     * {@code try (var s = Ember.events().subscribe(GraphBreak.class, b -> ...)) { f.apply(x); }}
     */
    public static CompileEvents events() { return CompileEvents.global(); }

    /** Forgets every compiled function's cache entries: the next call of each traces again. */
    public static void reset() { FrameRegistry.reset(); }

    /**
     * The matrix-multiply backend this process uses: OpenBLAS with its version and threads, or
     * Ember's Java GEMM and why OpenBLAS is not in use (what {@code ember doctor} and the demo print).
     */
    public static String gemmBackend() { return Blas.backendDescription(); }

    /**
     * The kernel tuning this JVM's GEMMs follow: the {@code ember tune} file (or {@code EMBER_TUNING})
     * when it was measured against the native BLAS in use, else that BLAS's defaults (docs/tuning.md).
     */
    public static dev.ember.tuning.KernelTuning kernelTuning() { return dev.ember.kernels.Gemm.tuning(); }

    /**
     * Whether the kernels the inductor generates run a scalar form on their first calls in this
     * JVM, and if not, why and how to turn it on (what {@code ember doctor} prints; docs/tuning.md).
     */
    public static String compiledKernelWarmUp() {
        if (dev.ember.inductor.runtime.KernelTier.enabled()) {
            return "compiled kernels run a scalar form on their first " + dev.ember.inductor.runtime.KernelTier.SCALAR_CALLS + " calls (docs/tuning.md)";
        }
        if (!dev.ember.kernels.ColdStart.enabled()) return "every kernel runs its SIMD form from the first call (EMBER_COLD_START=java)";
        return "every compiled kernel runs its SIMD form from the first call: start the JVM with -XX:CompileCommand=quiet '"
                + dev.ember.inductor.runtime.KernelTier.INLINE_VECTOR_MATH + "' for faster first calls (README, \"Flags the JVM needs\")";
    }

    /**
     * Measures, on this machine, where Ember's own few-row GEMM kernels beat the native BLAS and how thin
     * a batched product's bands may be (a minute or less; {@code progress} gets a line per sweep).
     * The result's {@link TuningRun#tuning()} is not used until written to
     * {@link KernelTuning#file} (what {@code ember tune} does) and a new JVM starts. docs/tuning.md.
     */
    public static TuningRun tuneKernels(java.io.PrintStream progress) { return Autotuner.run(progress); }

    /**
     * Marks a place where capture must stop (a graph break). Does nothing when run eagerly; inside a
     * compiled function the translator breaks the graph here (GB0016).
     */
    public static void graphBreak() {
        // Intentionally empty: the translator recognises the call; eager code just continues.
    }

    /**
     * Marks {@code fn}'s method as never traced (like {@code torch.compiler.disable}): compiled code
     * that calls it breaks the graph there (GB0020) and runs it eagerly; compiling it directly runs it
     * eagerly. Returns {@code fn}. The annotation {@link dev.ember.dynamo.Disable} does the same.
     */
    public static <F extends java.io.Serializable> F disable(F fn) {
        DisabledFunctions.disable(fn);
        return fn;
    }

    /**
     * A block that is never traced: {@code try (var s = Ember.disabled()) { … }}. Compiled functions
     * called in it run eagerly (on this thread, until the block closes). Inside a compiled function
     * the graph breaks at the block (GB0020), the block runs eagerly and the code after it is
     * captured again.
     * The scope form of {@link #disable(java.io.Serializable)}; see docs/escape-hatches.md.
     */
    public static dev.ember.dynamo.DisabledFunctions.Region disabled() { return dev.ember.dynamo.DisabledFunctions.enterRegion(); }

    /**
     * Sets how every compiled function behaves when called, for the whole process, as
     * {@code torch.compiler.set_stance}: {@link Stance#FORCE_EAGER}, {@link Stance#EAGER_ON_RECOMPILE},
     * {@link Stance#FAIL_ON_RECOMPILE}, {@link Stance#EAGER_THEN_COMPILE} or back to
     * {@link Stance#DEFAULT}. It is read at each call; see docs/stances.md.
     */
    public static void setStance(Stance stance) { dev.ember.dynamo.Stances.set(stance); }

    /**
     * {@link #setStance(Stance)} by PyTorch's name: {@code "force_eager"}, {@code "eager_on_recompile"}, …
     *
     * @throws IllegalArgumentException for an unknown name, listing the valid ones
     */
    public static void setStance(String stance) { setStance(Stance.parse(stance)); }

    /** The stance in force. */
    public static Stance stance() { return dev.ember.dynamo.Stances.current(); }

    /**
     * A stance for a block: {@code try (var s = Ember.stance(Stance.FORCE_EAGER)) { … }} puts back the
     * stance it replaced when it closes, so scopes nest. Like {@link #setStance(Stance)} it is the
     * process's stance while the block runs, seen by other threads too (as PyTorch's is).
     */
    public static dev.ember.dynamo.Stances.Scope stance(Stance stance) { return dev.ember.dynamo.Stances.enter(stance); }

    /** {@link #stance(Stance)} by PyTorch's name; an unknown name throws IllegalArgumentException listing the valid ones. */
    public static dev.ember.dynamo.Stances.Scope stance(String stance) { return stance(Stance.parse(stance)); }

    /**
     * Whether a graph break is an error in a region (PyTorch's {@code error_on_graph_break}):
     * {@code try (var s = Ember.errorOnGraphBreak(true)) { … }}. Inside a compiled function it is
     * traced without a break and covers the code of the block; around calls it covers the functions
     * compiled in it on this thread whose options do not set {@link Options#errorOnGraphBreak}.
     * A break where it is on throws the {@code Unsupported} that fullgraph throws; fullgraph wins.
     */
    public static dev.ember.dynamo.ErrorOnGraphBreak.Scope errorOnGraphBreak(boolean on) { return dev.ember.dynamo.ErrorOnGraphBreak.enter(on); }

    /**
     * Puts every call of {@code fn}'s method into graphs as one call_function node instead of
     * tracing into it (like {@code torch._dynamo.allow_in_graph}): while tracing it runs on fake
     * tensors to get its output's metadata, at run time on the real tensors. Use it for a helper
     * whose body the translator cannot trace but whose tensor ops work on fake tensors. {@code fn} is
     * a method reference to a static method (or a lambda capturing nothing). Returns {@code fn}.
     */
    public static <F extends java.io.Serializable> F allowInGraph(F fn) {
        InGraphFunctions.allowInGraph(fn);
        return fn;
    }

    /**
     * Makes {@code fn}'s method a leaf: compiled code never traces it; each call is one opaque
     * call_function node that runs {@code fn} eagerly on real tensors, and while tracing
     * {@code fake} (same signature) gives the output's dtype and shape: it gets fake tensors and
     * returns any tensor with the output's metadata (e.g. {@code Tensor.empty(x.shape())}). The leaf
     * may read tensor data or call anything. Returns {@code fn}.
     */
    public static <F extends java.io.Serializable> F leafFunction(F fn, F fake) {
        InGraphFunctions.leafFunction(fn, fake);
        return fn;
    }

    /** A compiled function's target and frame cache; the frame array is captured values then arguments. */
    private record Bound(FunctionTarget target, CompiledFrame frame) {
        Object[] args(Object... call) {
            Object[] cap = target.captured();
            if (cap.length == 0) return call;
            Object[] all = new Object[cap.length + call.length];
            System.arraycopy(cap, 0, all, 0, cap.length);
            System.arraycopy(call, 0, all, cap.length, call.length);
            return all;
        }
    }

    private static Bound bind(Object fn, Options options) {
        FunctionTarget target = FunctionTarget.of(fn);
        return new Bound(target, FrameRegistry.frameFor(target.method(), options));
    }
}
