package dev.ember.inductor;

import dev.ember.fx.GraphModule;
import dev.ember.fx.NanAsserts;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.fx.SizeSymbols;
import dev.ember.tensor.Storage;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A graph compiled by the inductor: {@link #run} calls the generated code. Inputs whose layout
 * differs from the one compiled for (dtype, shape or strides; the storage offset may vary) run
 * through the interpreter instead — a perf hint, never a wrong answer. A graph generic in some
 * input sizes takes every input whose layout is its symbolic one at the sizes of the call, each
 * size symbol in its range. Intermediates live in a per-thread arena allocated on a thread's first
 * call (see {@link MemoryPlan}).
 *
 * <p>In mode {@code reduce-overhead} the outputs live in that arena too, so each call of a thread
 * writes its outputs into the arrays of the previous call's. Before it does, the previous outputs'
 * storages are marked overwritten (reading them throws, saying so), except where the previous
 * output is one of this call's inputs ({@code x = f(x)}): that array is left to its tensors and the
 * arena takes a fresh one, so the input is read intact and stays valid. The same holds for a previous
 * output someone keeps from reuse ({@link Storage#keepFromReuse}): a training forward's outputs and
 * saved values while its backward is pending, as PyTorch's CUDA graph trees start no new generation
 * then (two forwards before one backward).
 */
public final class InductorGraph {
    private final GraphModule original;
    private final MethodHandle call;
    private final List<TensorMeta> inputMetas;
    /** The size symbols of a graph generic in sizes (else null), and its placeholders' symbolic layouts. */
    private final SizeSymbols symbols;
    private final List<SymShape> inputShapes;
    private final Artifact artifact;
    private final Object[] constants;
    private final ThreadLocal<ThreadState> state;
    /** The arena slots that hold outputs (reduce-overhead), empty otherwise. */
    private final int[] outputSlots;
    /** Where the code came from when it was loaded from the cache, else null. */
    private final CachedEntry cached;
    /** The fresh compile that took over from cached code that failed at run time, or null. */
    private volatile InductorGraph replacement;
    /** The graph as a NaN assert names it ({@code Model.fn [0/0]}), or null when values are not checked. */
    private final String nanAssertsGraph;
    private volatile boolean warnedLayout;

    /**
     * A cache entry this graph's code was loaded from, and how to compile the graph afresh (for the
     * inputs of a call, deleting the entry and storing the new one) should the cached code fail.
     */
    record CachedEntry(Path path, Function<Object[], InductorGraph> recompile) {}

    InductorGraph(GraphModule original, MethodHandle call, List<TensorMeta> inputMetas, Artifact artifact, Object[] constants, CachedEntry cached) {
        this.original = original;
        this.call = call;
        this.inputMetas = inputMetas;
        this.symbols = original.sizeSymbols();
        this.inputShapes = original.graph().placeholders().stream().map(p -> p.symVal() instanceof SymShape s ? s : null).toList();
        this.artifact = artifact;
        this.constants = constants;
        this.cached = cached;
        this.nanAssertsGraph = NanAsserts.enabled() ? NanAsserts.graphLabel(original) : null;
        this.state = artifact == null ? null : ThreadLocal.withInitial(() -> new ThreadState(artifact.slots().stream()
                .map(s -> s.dtype().allocate(s.size())).toArray()));
        this.outputSlots = artifact == null ? new int[0]
                : java.util.stream.IntStream.range(0, artifact.slots().size()).filter(i -> artifact.slots().get(i).output()).toArray();
    }

    /** One thread's arena and, when outputs are reused, its previous call's output storages. */
    private static final class ThreadState {
        final Object[] arena;
        List<Storage> previousOutputs = List.of();
        long calls;

        ThreadState(Object[] arena) { this.arena = arena; }
    }

    /**
     * Runs the graph on one value per placeholder; returns what the graph's output returns. Code
     * loaded from the cache that throws (it passed the MAC and the verifier, so it was written by
     * this user's Ember, but a disk or an older bug may have damaged it before it was signed) is
     * replaced once, see {@link #recompileAndRun}.
     */
    public Object run(Object... inputs) {
        InductorGraph fresh = replacement;
        if (fresh != null) return fresh.run(inputs);
        if (call == null) return interpret(inputs);
        int n = original.graph().placeholders().size();
        if (inputs.length != n) throw new IllegalArgumentException("the graph takes " + n + " input(s), but " + inputs.length + " were given");
        int notMatching = inputNotMatching(inputs);
        if (notMatching >= 0) return mismatch(notMatching, inputs);
        List<String> attrs = artifact.attributePaths();
        Tensor[] all = new Tensor[n + attrs.size()];
        for (int i = 0; i < n; i++) all[i] = (Tensor) inputs[i];
        for (int i = 0; i < attrs.size(); i++) all[n + i] = original.attribute(attrs.get(i));
        ThreadState st;
        Object result;
        try {
            st = state.get();
            if (outputSlots.length > 0) releaseOutputs(st, all);
            result = (Object) call.invokeExact(all, st.arena, constants);
        } catch (NonFiniteValueError e) {
            // A NaN assert is the user's answer, not a sign of damaged cached code.
            throw e.graph() == null && nanAssertsGraph != null ? e.inGraph(nanAssertsGraph) : e;
        } catch (RuntimeException | LinkageError e) {
            if (cached == null) throw e;
            return recompileAndRun(e, inputs);
        } catch (Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (outputSlots.length > 0) {
            List<Storage> outputs = new ArrayList<>();
            collectOutputStorages(result, st.arena, outputs);
            st.previousOutputs = outputs;
        }
        return result;
    }

    /**
     * Whether {@link #run} on {@code inputs} runs the generated code (rather than the interpreter,
     * for inputs of a layout or of sizes it was not compiled for).
     */
    public boolean compiledFor(Object... inputs) { return current().call != null && current().inputNotMatching(inputs) < 0; }

    /**
     * The first input (the placeholders', then the attributes' read) the generated code was not
     * compiled for, or -1: of another dtype or layout, or — in a graph generic in sizes — of sizes
     * outside a symbol's range or a layout other than its symbolic one at the call's sizes.
     */
    private int inputNotMatching(Object[] inputs) {
        int n = inputs.length;
        long[] sizes = null;
        if (symbols != null) {
            for (SizeSymbols.Symbol s : symbols.symbols()) {
                if (s.dim() < 0) {
                    // an int input that is a size: its value in range
                    if (!(inputs[s.input()] instanceof Tensor t) || t.dim() != 0) return s.input();
                    long v = SizeSymbols.valueIn(s, t);
                    if (v < s.min() || v > s.max()) return s.input();
                    continue;
                }
                if (!(inputs[s.input()] instanceof Tensor t) || t.dim() <= s.dim() || t.size(s.dim()) % s.divisor() != 0
                        || t.size(s.dim()) / s.divisor() < s.min() || t.size(s.dim()) / s.divisor() > s.max()) return s.input();
            }
            sizes = symbols.valuesIn(inputs);
        }
        for (int i = 0; i < n; i++) {
            TensorMeta expected = sizes == null || inputShapes.get(i) == null ? inputMetas.get(i) : inputShapes.get(i).eval(inputMetas.get(i).dtype(), sizes);
            if (!(inputs[i] instanceof Tensor t) || !matches(t, expected)) return i;
        }
        List<String> attrs = artifact.attributePaths();
        for (int i = 0; i < attrs.size(); i++) if (!matches(original.attribute(attrs.get(i)), inputMetas.get(n + i))) return n + i;
        return -1;
    }

    /**
     * The cached code failed: compile the graph afresh (which deletes and rewrites the entry) and run
     * that, from now on, on every thread. Eager code may throw for these inputs too (an index out of
     * range), so the fresh graph decides: if it runs, the cache was at fault and one warning says so;
     * if it throws, that is the answer eager would give, and it is thrown, with no warning about the cache.
     */
    private synchronized Object recompileAndRun(Throwable failure, Object[] inputs) {
        if (replacement != null) return replacement.run(inputs);
        InductorGraph fresh = cached.recompile().apply(inputs);
        replacement = fresh;
        Object result = fresh.run(inputs);
        InductorLog.warning(() -> "compiled code loaded from the cache entry " + cached.path() + " failed at run time (" + failure
                + "); deleted the entry and compiled the graph again, which ran. If this happens again, delete the cache folder "
                + cached.path().getParent() + " and report it as an Ember bug");
        return result;
    }

    /**
     * Before a reduce-overhead call writes its outputs: an output array that one of the inputs
     * holds, or that a previous output someone keeps from reuse holds (a pending backward reads
     * it), is left to it (the arena takes a fresh array), and the previous call's other outputs
     * still in the arena are marked overwritten.
     */
    private void releaseOutputs(ThreadState st, Tensor[] inputs) {
        st.calls++;
        for (int slot : outputSlots) {
            for (Tensor t : inputs) {
                if (t.storage().holds(st.arena[slot])) {
                    MemoryPlan.Slot s = artifact.slots().get(slot);
                    st.arena[slot] = s.dtype().allocate(s.size());
                    break;
                }
            }
        }
        long call = st.calls;
        String thread = Thread.currentThread().getName();
        java.util.function.Supplier<String> why = () -> "this tensor is an output of call " + (call - 1)
                + " of a graph compiled with mode(\"reduce-overhead\"), and call " + call + " on thread '" + thread
                + "' has written its own outputs into the same memory. "
                + "That mode reuses output arrays from call to call: clone() an output you keep across calls, or compile with mode(\"default\")";
        for (Storage s : st.previousOutputs) {
            for (int slot : outputSlots) {
                if (!s.holds(st.arena[slot])) continue;
                if (s.keptFromReuse()) {
                    MemoryPlan.Slot planned = artifact.slots().get(slot);
                    st.arena[slot] = planned.dtype().allocate(planned.size());
                } else {
                    s.markOverwritten(why);
                }
            }
        }
    }

    private void collectOutputStorages(Object result, Object[] arena, List<Storage> out) {
        if (result instanceof Tensor t) {
            for (int slot : outputSlots) if (t.storage().holds(arena[slot])) out.add(t.storage());
        } else if (result instanceof List<?> l) {
            for (Object o : l) collectOutputStorages(o, arena, out);
        } else if (result instanceof Object[] a) {
            for (Object o : a) collectOutputStorages(o, arena, out);
        }
    }

    private Object mismatch(int i, Object[] inputs) {
        if (!warnedLayout) {
            warnedLayout = true;
            InductorLog.log("perf_hints", () -> "input " + i + " does not have the layout the graph was compiled for "
                    + (symbols == null || i >= inputShapes.size() || inputShapes.get(i) == null ? inputMetas.get(i)
                            : inputShapes.get(i).describe(inputMetas.get(i).dtype()) + " with " + symbols.symbols().stream().map(SizeSymbols.Symbol::range).toList())
                    + " (it is " + (i < inputs.length && inputs[i] instanceof Tensor t ? (t.isFake() ? "a fake tensor " : "") + t.meta()
                            : i < inputs.length ? describe(inputs[i]) : "attribute " + artifact.attributePaths().get(i - inputs.length) + " " + original.attribute(artifact.attributePaths().get(i - inputs.length)).meta())
                    + "); running the graph in the interpreter");
        }
        return interpret(inputs);
    }

    private static String describe(Object o) {
        return o == null ? "null" : o.getClass().getSimpleName() + " " + o;
    }

    /** The graph run node by node, checking every value when NaN asserts are on (as the generated code would). */
    private Object interpret(Object[] inputs) {
        return nanAssertsGraph == null ? original.run(inputs) : NanAsserts.checkingInterpreter(original, nanAssertsGraph).run(inputs);
    }

    private static boolean matches(Tensor t, TensorMeta m) {
        return !t.isFake() && t.dtype() == m.dtype() && Arrays.equals(t.shape(), m.shape()) && Arrays.equals(t.strides(), m.strides());
    }

    /**
     * This graph running {@code classBytes} in place of the generated class (for tests: the class
     * javac makes of {@link #sourceCode()}, which must compute exactly the same).
     */
    InductorGraph withClassBytes(byte[] classBytes) {
        Artifact a = new Artifact(artifact.className(), artifact.sourceText(), classBytes, artifact.slots(), artifact.attributePaths(), artifact.perfHints());
        return Inductor.load(original, a, inputMetas, constants, cached);
    }

    /** The graph whose code runs: this one, or the fresh compile that replaced its failed cached code. */
    private InductorGraph current() {
        InductorGraph fresh = replacement;
        return fresh == null ? this : fresh;
    }

    /** The generated Java source, or null when the graph runs in the interpreter. */
    public String sourceCode() {
        Artifact a = current().artifact;
        return a == null ? null : a.source();
    }

    /** Why parts of the graph run eager kernels (empty when everything has generated code). */
    public List<String> perfHints() {
        Artifact a = current().artifact;
        return a == null ? List.of("the whole graph runs in the interpreter") : a.perfHints();
    }

    /** Whether the code that runs was loaded from the on-disk cache rather than generated. */
    public boolean fromCache() { return current().cached != null; }
}
