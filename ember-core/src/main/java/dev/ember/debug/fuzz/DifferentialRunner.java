package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.debug.Accuracy;
import dev.ember.fx.CompileMode;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.inductor.runtime.KernelTier;
import dev.ember.ops.DispatchMode;
import dev.ember.tensor.Allocation;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Runs one program eagerly, as its float64 reference, and compiled under each {@link Config}, and
 * says where compiled disagrees with eager. Every run gets fresh inputs from the program's own
 * factory (programs write their inputs in place); what is compared is the returned values and the
 * inputs' final contents, copied right after the call (reduce-overhead reuses its output arrays on
 * the next call). Each configuration is compiled after {@code Ember.reset()} and called twice:
 * the second call runs the cached entry (and reuses reduce-overhead's arrays). Then come calls with
 * new values, twice, and with a larger batch, twice (see {@link #renewedRuns}, {@link #resizedRuns}). Values are judged by
 * {@link Accuracy#compare} with {@link Accuracy#DEFAULT_TOLERANCE}: the same rule as the accuracy
 * checker and the minifier. When eager throws, every configuration must throw the same class.
 */
public final class DifferentialRunner {
    private static final int CALLS = 2;
    private static final String CACHE_PROPERTY = "ember.cache.dir";

    private DifferentialRunner() {}

    /** How a compiled run disagreed with eager, in words ({@code Accuracy.Verdict}'s text for a mismatch). */
    public record Disagreement(Kind kind, String detail) {
        public enum Kind {
            /** Values differ beyond the float64-referenced rule (returned values or the inputs' final contents). */
            MISMATCH,
            /** Compiled threw where eager returned, or threw another exception class than eager. */
            EXCEPTION,
            /** The warm run did not find on disk a graph the cold run had stored. */
            CACHE_MISS
        }

        @Override
        public String toString() { return kind + ": " + detail; }
    }

    /** A program's verdicts: per configuration, how it disagreed with eager, or null when it agreed. */
    public record Result(Throwable eagerError, Map<Config, Disagreement> outcomes) {}

    /**
     * What one run gave: the returned values then the distinct arguments' final contents (copies;
     * {@code distinctArgs} are their positions), or what it threw; {@code choices}, per returned
     * value, the argmax or argmin it came from as is ({@link IndexTies}) or null, empty unless
     * recorded (eager runs).
     */
    private record Observed(List<Object> values, int outputs, List<Integer> distinctArgs, Throwable error, List<IndexTies.Choice> choices,
                            List<String> labels) {
        /** What threw instead. */
        static Observed threw(Throwable t) { return new Observed(List.of(), 0, List.of(), t, List.of(), List.of()); }
    }

    /**
     * A program to run: its function, its arguments, the modules it holds (null when none) and,
     * when not null, a change to their parameters after each reset (the rounding floor moves them).
     */
    private record LoadedRun(Object fn, Supplier<Object[]> inputs, ProgramModules modules, Consumer<List<Tensor>> parameterChange,
                             StepRounding stepRounding) {
        LoadedRun(Object fn, Supplier<Object[]> inputs, ProgramModules modules) { this(fn, inputs, modules, null, null); }

        /** The same program on other arguments. */
        LoadedRun on(Supplier<Object[]> otherInputs) { return new LoadedRun(fn, otherInputs, modules, parameterChange, stepRounding); }

        /** Whether the training configurations train its modules' parameters. */
        boolean trainsParameters() { return modules != null && modules.trained(); }
    }

    /** Runs {@code fn} (an {@code Fn1}…{@code Fn5}) on arguments from {@code inputs}, eagerly and under each configuration. */
    public static Result run(Object fn, Supplier<Object[]> inputs, List<Config> configs) { return run(fn, inputs, null, configs); }

    /** Runs a loaded program's function on its own arguments, its modules (if it holds any) trained as it says, eagerly and under each configuration. */
    public static Result run(LoadedProgram program, List<Config> configs) {
        return run(program.fn(), program::inputs, ProgramModules.of(program.cls()), configs);
    }

    /**
     * Runs {@code fn} on arguments from {@code inputs}, eagerly and under each configuration;
     * {@code modules}: the modules it holds (null when none), whose parameters start every run from
     * their first values, and train in the training configurations when the program says how.
     */
    public static Result run(Object fn, Supplier<Object[]> inputs, ProgramModules modules, List<Config> configs) {
        try {
            return runAll(new LoadedRun(fn, inputs, modules), configs);
        } finally {
            if (modules != null) modules.reset(false);
        }
    }

    private static Result runAll(LoadedRun p, List<Config> configs) {
        Observed eager = observeEager(p, false);
        List<Variant> variants = new ArrayList<>(renewedRuns(p));
        variants.addAll(resizedRuns(p, false));
        Observed eagerTraining = configs.stream().anyMatch(Config::training) ? observeEager(p, true) : null;
        References trainingRefs = eagerTraining != null && eagerTraining.error == null ? new References(p, true) : References.NONE;
        // the training configurations' new batch sizes: the recompile makes the batch a symbol in the forward and backward graphs
        List<Variant> trainingVariants = eagerTraining != null && eagerTraining.error == null ? resizedRuns(p, true) : List.of();
        References refs = eager.error == null ? new References(p, false) : References.NONE;
        boolean loops = p.trainsParameters() && configs.stream().anyMatch(Config::steps);
        Observed eagerSteps = loops ? observeSteps(p, args -> Calls.apply(p.fn(), args), opt -> opt) : null;
        References stepsRefs = eagerSteps != null && eagerSteps.error == null ? new References(p, References.Kind.STEPS) : References.NONE;
        if (p.modules() != null) {
            // the float64 runs replace the modules' parameters (Module.to): done before any compiled run, which must see the same ones throughout
            refs.float64Now();
            trainingRefs.float64Now();
            stepsRefs.float64Now();
            for (Variant v : variants) v.refs().float64Now();
            for (Variant v : trainingVariants) v.refs().float64Now();
        }
        Map<Config, Disagreement> outcomes = new java.util.LinkedHashMap<>();
        Path cacheDir;
        try {
            cacheDir = Files.createTempDirectory("ember-fuzz-cache");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a cache folder for the fuzzer's inductor runs", e);
        }
        String before = System.getProperty(CACHE_PROPERTY);
        System.setProperty(CACHE_PROPERTY, cacheDir.toString());
        Set<CompileMode> coldModes = new HashSet<>();
        try {
            for (Config c : configs) {
                if (c.steps()) {
                    // a training loop only where the program trains its modules: the others are not counted in the configuration's row
                    if (eagerSteps != null) outcomes.put(c, runSteps(p, c, eagerSteps, stepsRefs));
                    continue;
                }
                if (c.scoped()) scopedAllocation(true);
                try {
                    outcomes.put(c, c.training() ? runTraining(p, c, eagerTraining, trainingRefs, trainingVariants)
                            : runConfig(p, c, eager, refs, cacheDir, coldModes, variants));
                } finally {
                    if (c.scoped()) scopedAllocation(false);
                }
                if (c.backend().equals("inductor") && !c.fromCache()) coldModes.add(c.mode());
            }
        } finally {
            Ember.reset();
            if (before == null) System.clearProperty(CACHE_PROPERTY);
            else System.setProperty(CACHE_PROPERTY, before);
            ArtifactCache.awaitWrites();
            delete(cacheDir);
        }
        return new Result(eager.error, outcomes);
    }

    private static Disagreement runConfig(LoadedRun p, Config c, Observed eager, References refs, Path cacheDir, Set<CompileMode> coldModes,
                                          List<Variant> variants) {
        Ember.reset();
        Map<String, Object> stored = null;
        if (c.fromCache()) {
            if (!coldModes.contains(c.mode())) {
                Object coldCompiled = Calls.compile(p.fn(), c.options());
                Observed cold = observe(p, args -> Calls.apply(coldCompiled, args), false);
                Disagreement f = judge("cold call", eager, cold, refs);
                if (f != null) return f;
                // the new values and batch sizes too: the warm run must find every graph they compile on disk as well
                for (Variant v : variants) observe(v.run(), args -> Calls.apply(coldCompiled, args), false);
                Ember.reset();
            }
            stored = entries(cacheDir);
        }
        Object compiled = Calls.compile(p.fn(), c.options());
        for (int call = 1; call <= CALLS; call++) {
            Observed got = call == 1 ? observe(p, args -> Calls.apply(compiled, args), false, c.scoped())
                    : observeSimd(p, args -> Calls.apply(compiled, args), false, c.scoped());
            Disagreement f = judge(callName(call), eager, got, refs);
            if (f != null) return f;
        }
        for (Variant v : variants) {
            Observed got = observeSimd(v.run(), args -> Calls.apply(compiled, args), false, c.scoped());
            Disagreement f = judge(v.what(), v.eager(), got, v.refs());
            if (f != null) return f;
        }
        if (stored != null) {
            Map<String, Object> after = entries(cacheDir);
            if (!after.equals(stored)) {
                Set<String> written = new java.util.TreeSet<>(after.keySet());
                Map<String, Object> cold = stored;
                written.removeIf(k -> after.get(k).equals(cold.get(k)));
                return new Disagreement(Disagreement.Kind.CACHE_MISS, "the warm run compiled and stored " + written
                        + " again: a graph the cold run stored was not loaded from " + cacheDir);
            }
        }
        return null;
    }

    /**
     * For a scoped configuration ({@link Config#scopedCalls}): every released array pooled, however
     * small (the programs' tensors are), and every uninitialized one NaN-poisoned; the pool emptied
     * after, so that the other configurations allocate as users do.
     */
    private static void scopedAllocation(boolean on) {
        Allocation.setPoolMinBytes(on ? 0 : Allocation.POOL_MIN_BYTES);
        Allocation.setPoisoning(on || Boolean.getBoolean("ember.alloc.poison"));
        if (!on) Allocation.clearPool();
    }

    /** A training configuration: outputs, inputs after the call and the inputs' gradients against eager training's and its references. */
    private static Disagreement runTraining(LoadedRun p, Config c, Observed eager, References refs, List<Variant> variants) {
        Ember.reset();
        Object compiled = Calls.compile(p.fn(), c.options());
        for (int call = 1; call <= CALLS; call++) {
            Observed got = call == 1 ? observe(p, args -> Calls.apply(compiled, args), true, c.scoped())
                    : observeSimd(p, args -> Calls.apply(compiled, args), true, c.scoped());
            // past the refusal, the compiled call may return, or meet a refusal eager would have met further on
            if (eager.error != null && liftedByFunctionalization(eager.error) && (got.error == null || isAutogradRefusal(got.error))) continue;
            Disagreement f = judge(callName(call), eager, got, refs);
            if (f != null) return f;
        }
        for (Variant v : variants) {
            Observed got = observeSimd(v.run(), args -> Calls.apply(compiled, args), true, c.scoped());
            Disagreement f = judge(v.what() + " (forward and backward)", v.eager(), got, v.refs());
            if (f != null) return f;
        }
        return null;
    }

    /**
     * A training loop's configuration: the program compiled under {@code c}, its optimizer's step
     * compiled with the same options ({@code Ember.compile(optimizer)}), and {@link ProgramModules#steps}
     * steps of forward, backward and step from the parameters' first values, against eager's loop
     * step by step: each step's returned values, the parameters' gradients and the parameters after
     * the optimizer's step.
     */
    private static Disagreement runSteps(LoadedRun p, Config c, Observed eager, References refs) {
        Ember.reset();
        Object compiled = Calls.compile(p.fn(), c.options());
        Observed got = observeSteps(p, args -> Calls.apply(compiled, args), opt -> Ember.compile(opt, c.options()));
        if (eager.error != null && liftedByFunctionalization(eager.error) && (got.error == null || isAutogradRefusal(got.error))) return null;
        Disagreement d = judge("the training loop", eager, got, refs);
        if (d == null || d.kind() != Disagreement.Kind.MISMATCH) return d;
        Disagreement stepwise = fromEagerStateEachStep(p, c);
        if (stepwise == null) {
            SENSITIVE_LOOPS.incrementAndGet();
            return null;
        }
        return stepwise;
    }

    /**
     * Training loops whose runs parted from eager's though each compiled step, given eager's state,
     * agreed with eager's ({@link #fromEagerStateEachStep}): passed, and counted for the summary.
     */
    private static final java.util.concurrent.atomic.AtomicInteger SENSITIVE_LOOPS = new java.util.concurrent.atomic.AtomicInteger();

    /** How many training loops in this JVM passed only step by step from eager's state ({@link #fromEagerStateEachStep}). */
    public static int sensitiveLoops() { return SENSITIVE_LOOPS.get(); }

    /**
     * A compiled call with every generated kernel in its SIMD form. In a JVM with kernel tiers
     * ({@link KernelTier}) a kernel's first calls run its scalar form, and a program is called here
     * fewer times than that: so the first call is judged in the scalar forms and the later calls in
     * the SIMD forms, and the judge sees both.
     */
    private static Observed observeSimd(LoadedRun p, Function<Object[], Object> call, boolean training, boolean scoped) {
        KernelTier.forceForm(true);
        try {
            return observe(p, call, training, null, scoped);
        } finally {
            KernelTier.forceForm(null);
        }
    }

    /** The name a disagreement gives a call: which call, and in which of the kernels' forms when tiers are on. */
    private static String callName(int call) {
        if (!KernelTier.enabled()) return "call " + call;
        return "call " + call + (call == 1 ? " (scalar first-call kernels)" : " (SIMD kernels)");
    }

    /**
     * Eager autograd's refusals that compiled code does not meet, as PyTorch's torch.compile does
     * not: functionalization removed the in-place write they guard against (a saved tensor changed
     * in place), and the compiled gradients are those of the program without it. Not counted as a
     * disagreement.
     */
    private static boolean liftedByFunctionalization(Throwable eagerError) {
        return String.valueOf(eagerError.getMessage()).startsWith("one of the variables needed for gradient computation has been modified by an inplace operation");
    }

    /** Autograd's refusal of an in-place op on a leaf that requires grad ({@code Autograd.leafInPlace}), as capture raises it too. */
    private static boolean isAutogradRefusal(Throwable t) {
        return t instanceof IllegalStateException && String.valueOf(t.getMessage()).startsWith("a leaf Variable that requires grad is being used in an in-place operation");
    }

    private static Disagreement judge(String call, Observed eager, Observed got, References refs) {
        if (eager.error != null) {
            if (got.error == null) return new Disagreement(Disagreement.Kind.EXCEPTION, call + ": eager threw " + describe(eager.error) + ", compiled returned");
            if (got.error.getClass() != eager.error.getClass()) {
                return new Disagreement(Disagreement.Kind.EXCEPTION, call + ": eager threw " + describe(eager.error) + ", compiled threw " + describe(got.error));
            }
            return null;
        }
        if (got.error != null) return new Disagreement(Disagreement.Kind.EXCEPTION, call + ": compiled threw " + describe(got.error));
        got = withTiesResolved(eager, got);
        Accuracy.Verdict v = Accuracy.compare(eager.values, got.values, null, List.of(), Accuracy.DEFAULT_TOLERANCE);
        if (v.passed()) return null;
        // a training loop without a float64 run (a module that cannot run in float64): eager is the reference, so the floor is
        // how far eager's runs one rounding away at each step land from eager, the distance of two eager loops
        Object reference = refs.fp64() == null && refs.kind == References.Kind.STEPS ? eager.values : refs.fp64();
        v = Accuracy.compare(eager.values, got.values, reference, refs.nearby(), Accuracy.DEFAULT_TOLERANCE);
        if (v.passed()) return null;
        return new Disagreement(Disagreement.Kind.MISMATCH, call + ", " + leafName(eager, v.output()) + ": " + v);
    }

    /** {@code got} with each returned index that differs from eager's only by a tie in what it indexes set to eager's ({@link IndexTies}). */
    private static Observed withTiesResolved(Observed eager, Observed got) {
        List<Object> values = null;
        for (int i = 0; i < eager.choices.size() && i < got.outputs; i++) {
            if (eager.choices.get(i) == null || !(eager.values.get(i) instanceof Tensor e) || !(got.values.get(i) instanceof Tensor c)) continue;
            Tensor r = IndexTies.resolved(eager.choices.get(i), e, c, Accuracy.DEFAULT_TOLERANCE);
            if (r == c) continue;
            if (values == null) values = new ArrayList<>(got.values);
            values.set(i, r);
        }
        return values == null ? got : new Observed(values, got.outputs, got.distinctArgs, got.error, got.choices, got.labels);
    }

    /** "returned value 0", "argument 1 after the call", "gradient of m3.weight_ih_l0": which compared value a verdict's index names. */
    private static String leafName(Observed eager, int index) {
        if (index < 0) return "returned values";
        if (index < eager.outputs) return "returned value " + index;
        if (index - eager.outputs < eager.distinctArgs.size()) return "argument " + eager.distinctArgs.get(index - eager.outputs) + " after the call";
        int extra = index - eager.outputs - eager.distinctArgs.size();
        return extra < eager.labels.size() ? eager.labels.get(extra) : "value " + index;
    }

    private static String describe(Throwable t) {
        return t.getClass().getName() + (t.getMessage() == null ? "" : ": " + firstLine(t.getMessage()));
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl) + " …";
    }

    /**
     * One run. {@code training}: every distinct float input requires grad, and so do the modules'
     * parameters where the program trains them, and after the call the returned float tensors'
     * weighted sum ({@code Σ (k+1)·out_k.sum()}) is differentiated; the inputs' gradients (or the
     * word "none"), then the parameters', follow the other values.
     */
    private static Observed observe(LoadedRun p, Function<Object[], Object> call, boolean training) {
        return observe(p, call, training, null, false);
    }

    /** One run, inside its own TensorScope when {@code scoped} (see {@link Config#scopedCalls}). */
    private static Observed observe(LoadedRun p, Function<Object[], Object> call, boolean training, boolean scoped) {
        return observe(p, call, training, null, scoped);
    }

    /** The program run eagerly, recording the argmax and argmin calls whose results it returns ({@link IndexTies}). */
    private static Observed observeEager(LoadedRun p, boolean training) {
        return observe(p, args -> Calls.apply(p.fn(), args), training, IndexTies.recorder(), false);
    }

    private static Observed observe(LoadedRun p, Function<Object[], Object> call, boolean training, IndexTies.Recorder indexOps, boolean scoped) {
        Object[] args = p.inputs().get();
        TensorScope scope = null;
        try {
            boolean trainsParameters = training && p.trainsParameters();
            startParameters(p, trainsParameters);
            List<Object> distinctIn = distinct(args);
            if (training) for (Object a : distinctIn) if (a instanceof Tensor t && t.dtype().isFloatingPoint() && t.isLeaf()) t.requiresGrad(true);
            // the inputs and parameters are the caller's, made before the scope; the call, its backward and the copies run inside
            if (scoped) scope = TensorScope.open();
            Object result;
            if (indexOps == null) {
                result = call.apply(args);
            } else {
                try (var recording = DispatchMode.enter(indexOps)) {
                    result = call.apply(args);
                }
            }
            List<IndexTies.Choice> choices = indexOps == null ? List.of() : indexOps.choicesOf(Accuracy.leaves(result));
            List<Object> values = copies(Accuracy.leaves(result));
            int outputs = values.size();
            List<Object> distinct = distinct(args);
            values.addAll(copies(distinct));
            List<Integer> positions = new ArrayList<>();
            for (Object d : distinct) for (int i = 0; i < args.length; i++) if (args[i] == d) { positions.add(i); break; }
            List<String> labels = new ArrayList<>();
            if (training) {
                Tensor loss = weightedLoss(Accuracy.leaves(result));
                if (loss != null) loss.backward();
                for (int k = 0; k < distinct.size(); k++) {
                    if (distinct.get(k) instanceof Tensor t && t.requiresGrad()) {
                        values.add(gradientOf(t));
                        labels.add("gradient of argument " + positions.get(k));
                    }
                }
                if (trainsParameters) {
                    List<Tensor> ps = p.modules().parameters();
                    for (int k = 0; k < ps.size(); k++) {
                        values.add(gradientOf(ps.get(k)));
                        labels.add("gradient of " + p.modules().names().get(k));
                    }
                }
            }
            for (Object v : values) if (v instanceof Tensor t) TensorScope.escape(t);   // the copies outlive the scope
            return new Observed(values, outputs, positions, null, choices, labels);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            return Observed.threw(t);
        } finally {
            if (scope != null) scope.close();
        }
    }

    /** The training runs' loss: the returned tensors that require grad, weighted {@code Σ (k+1)·out_k.sum()} in float64; null when none does. */
    private static Tensor weightedLoss(List<Object> returned) {
        Tensor loss = null;
        int k = 1;
        for (Object v : returned) {
            if (v instanceof Tensor t && t.requiresGrad()) {
                Tensor part = t.to(dev.ember.tensor.DType.FLOAT64).mul((double) k++).sum();
                loss = loss == null ? part : loss.add(part);
            }
        }
        return loss;
    }

    private static Object gradientOf(Tensor t) { return t.grad() == null ? "none" : t.grad().clone(); }

    /** The program's modules' parameters at their first values, no gradients, requiring grad or not, then moved as the run says. */
    private static void startParameters(LoadedRun p, boolean requiresGrad) {
        if (p.modules() == null) return;
        p.modules().reset(requiresGrad);
        if (p.parameterChange() != null) p.parameterChange().accept(p.modules().parameters());
    }

    /**
     * How a floor run of a training loop moves its state by one rounding at every step (the
     * {@code +steps} floor, {@link References}): a loop's later steps depend on its earlier ones, so
     * eager's sensitivity to one rounding must be sampled at each step, through the same optimizer,
     * not only at the start. {@code gradients} moves the parameters' gradients before the
     * optimizer's step, {@code parameters} the parameters after it.
     */
    private interface StepRounding {
        void gradients(List<Tensor> parameters);

        void parameters(List<Tensor> parameters);
    }

    /**
     * A training loop over the program's modules: from the parameters' first values (requiring
     * grad; the float inputs do not, as a model's data), {@link ProgramModules#steps} times: the
     * program on fresh arguments, the weighted loss of its returned values backward, the
     * optimizer's step, and the gradients set to none. {@code prepare} gets the program's optimizer
     * first (compiles it, or not). Per step, the values are the returned ones, the parameters'
     * gradients and the parameters after the step.
     */
    private static Observed observeSteps(LoadedRun p, Function<Object[], Object> call, java.util.function.UnaryOperator<dev.ember.optim.Optimizer> prepare) {
        try {
            startParameters(p, true);
            dev.ember.optim.Optimizer opt = prepare.apply(p.modules().optimizer());
            List<Object> values = new ArrayList<>();
            List<String> labels = new ArrayList<>();
            for (int step = 1; step <= p.modules().steps(); step++) oneStep(p, step, call, opt, values, labels, false);
            return new Observed(values, 0, List.of(), null, List.of(), labels);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            return Observed.threw(t);
        }
    }

    /**
     * One step of a training loop ({@link #observeSteps}): the program on fresh arguments, the
     * weighted loss of its returned values backward, the optimizer's step, the gradients set to
     * none; what it observes is added to {@code values} under {@code labels}: the returned values,
     * the gradients, the parameters after the step and, when {@code withState}, the optimizer's state after it.
     */
    private static void oneStep(LoadedRun p, int step, Function<Object[], Object> call, dev.ember.optim.Optimizer opt,
                                List<Object> values, List<String> labels, boolean withState) {
        List<String> names = p.modules().names();
        List<Object> returned = Accuracy.leaves(call.apply(p.inputs().get()));
        values.addAll(copies(returned));
        for (int i = 0; i < returned.size(); i++) labels.add("step " + step + ", returned value " + i);
        Tensor loss = weightedLoss(returned);
        if (loss != null) loss.backward();
        List<Tensor> ps = p.modules().parameters();
        for (int k = 0; k < ps.size(); k++) {
            values.add(gradientOf(ps.get(k)));
            labels.add("step " + step + ", gradient of " + names.get(k));
        }
        if (p.stepRounding() != null) p.stepRounding().gradients(ps);
        opt.step();
        values.addAll(copies(new ArrayList<>(ps)));
        for (String name : names) labels.add("step " + step + ", " + name + " after the optimizer's step");
        if (withState) {
            for (int k = 0; k < ps.size(); k++) {
                for (var entry : opt.state(ps.get(k)).entrySet()) {
                    values.add(contents(entry.getValue()));
                    labels.add("step " + step + ", the optimizer's " + entry.getKey() + " of " + names.get(k));
                }
            }
        }
        opt.zeroGrad();
        if (p.stepRounding() != null) p.stepRounding().parameters(ps);
    }

    /**
     * A training loop whose run disagreed with eager's, judged again one step at a time from
     * eager's state: before each step the compiled loop is given the parameters and the optimizer
     * state eager's loop has then, and the step's returned values, gradients, parameters and
     * optimizer state after it are compared with eager's step from that same state, at the plain
     * tolerance. Where every step agrees, the loops parted only through the loop's own sensitivity:
     * an ulp of a reduction's order, grown step after step (seed 973788: a width-2 layer norm, whose
     * gradient is rounding noise times 1/std, under momentum), which a float64 run or eager's runs
     * one rounding away do not bound when they happen to miss the sensitive direction. A wrong step
     * (a wrong formula, a state write-back lost, a stale buffer) still disagrees at the step it is in.
     * Null when every step agrees.
     */
    private static Disagreement fromEagerStateEachStep(LoadedRun p, Config c) {
        Ember.reset();
        Object compiled = Calls.compile(p.fn(), c.options());
        startParameters(p, true);
        dev.ember.optim.Optimizer eagerOpt = p.modules().optimizer();
        dev.ember.optim.Optimizer compiledOpt = Ember.compile(p.modules().optimizer(), c.options());
        for (int step = 1; step <= p.modules().steps(); step++) {
            List<Tensor> ps = p.modules().parameters();
            List<Object> before = copies(new ArrayList<>(ps));
            compiledOpt.loadStateDict(eagerOpt.stateDict());   // copies eager's state as it is before the step
            List<Object> eagerValues = new ArrayList<>(), gotValues = new ArrayList<>();
            List<String> labels = new ArrayList<>();
            Throwable eagerError = null, gotError = null;
            try {
                oneStep(p, step, args -> Calls.apply(p.fn(), args), eagerOpt, eagerValues, labels, true);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable t) {
                eagerError = t;
            }
            List<Object> eagerAfter = copies(new ArrayList<>(ps));
            setParameters(ps, before);
            try {
                oneStep(p, step, args -> Calls.apply(compiled, args), compiledOpt, gotValues, new ArrayList<>(), true);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable t) {
                gotError = t;
            }
            Observed eager = eagerError != null ? Observed.threw(eagerError) : new Observed(eagerValues, 0, List.of(), null, List.of(), labels);
            Observed got = gotError != null ? Observed.threw(gotError) : new Observed(gotValues, 0, List.of(), null, List.of(), labels);
            Disagreement d = judge("the training loop from eager's state before step " + step, eager, got, References.NONE);
            if (d != null || eagerError != null) return d;
            setParameters(ps, eagerAfter);
        }
        return null;
    }

    /** The parameters' values set to {@code values} (copies of them), outside autograd. */
    private static void setParameters(List<Tensor> ps, List<Object> values) {
        try (var unused = dev.ember.autograd.GradMode.noGrad()) {
            for (int k = 0; k < ps.size(); k++) ps.get(k).copy_((Tensor) values.get(k));
        }
    }

    /**
     * What a compiled run is judged against besides eager (see {@link Accuracy}): the program run
     * on float64 copies of the inputs, and run eagerly on inputs one rounding away in each of
     * {@link #ROUNDING_PATTERNS} ways; each is the observed values (returned, inputs' final contents,
     * and in training the gradients), or null / left out when that run threw. Computed on first use:
     * only a result beyond the plain tolerance needs them, so most programs never pay for the runs.
     */
    private static final class References {
        /** What the runs observe: one call, one training call, or the training loop ({@link #observeSteps}). */
        enum Kind { CALL, TRAINING, STEPS }

        static final References NONE = new References(null, Kind.CALL);
        private final LoadedRun run;
        private final Kind kind;
        private boolean fp64Done;
        private Object fp64;
        private List<Object> nearby;

        References(LoadedRun run, boolean training) { this(run, training ? Kind.TRAINING : Kind.CALL); }

        References(LoadedRun run, Kind kind) {
            this.run = run;
            this.kind = kind;
        }

        Object fp64() {
            compute();
            return fp64;
        }

        List<Object> nearby() {
            compute();
            return nearby;
        }

        /** The float64 run now rather than on first use: where it replaces the modules' parameters, before any compiled run. */
        void float64Now() {
            if (fp64Done || run == null) return;
            fp64 = float64Values(run, kind);
            fp64Done = true;
        }

        private void compute() {
            if (nearby != null) return;
            nearby = new ArrayList<>();
            if (run == null) return;
            float64Now();
            for (int pattern = 0; pattern < ROUNDING_PATTERNS; pattern++) {
                int chosen = pattern;
                // the modules' parameters are the program's inputs as much as its arguments: they move too
                Consumer<List<Tensor>> moveParameters = ps -> {
                    java.util.function.IntUnaryOperator direction = direction(chosen);
                    changeFloats(ps.toArray(), (i, f) -> moved(f, direction.applyAsInt(i)), (i, d) -> moved(d, direction.applyAsInt(i)));
                };
                StepRounding eachStep = kind != Kind.STEPS ? null : new StepRounding() {
                    @Override
                    public void gradients(List<Tensor> ps) { moveGradients(ps, chosen); }

                    @Override
                    public void parameters(List<Tensor> ps) { moveParameters.accept(ps); }
                };
                LoadedRun moved = new LoadedRun(run.fn(), () -> oneRoundingAway(run.inputs().get(), chosen), run.modules(), moveParameters, eachStep);
                Observed o = observe(moved, kind, run.fn());
                if (o.error == null) nearby.add(o.values);
            }
        }
    }

    /** {@code p} run eagerly as {@code kind} says. */
    private static Observed observe(LoadedRun p, References.Kind kind, Object fn) {
        return kind == References.Kind.STEPS ? observeSteps(p, args -> Calls.apply(fn, args), opt -> opt)
                : observe(p, args -> Calls.apply(fn, args), kind == References.Kind.TRAINING);
    }

    /**
     * The program's values on float64 copies of its inputs (the same tensor passed twice stays one),
     * its modules' parameters converted to float64 meanwhile (and back after), or null when it cannot
     * run in float64.
     */
    private static Object float64Values(LoadedRun p, References.Kind kind) {
        Object[] args = p.inputs().get();
        List<Object> distinct = distinct(args);
        int[] slot = new int[args.length];
        for (int i = 0; i < args.length; i++) for (int k = 0; k < distinct.size(); k++) if (distinct.get(k) == args[i]) slot[i] = k;
        try {
            if (p.modules() != null) p.modules().to(dev.ember.tensor.DType.FLOAT64);
            Observed o = (Observed) Accuracy.float64Reference(distinct.toArray(), conv -> {
                Object[] a = new Object[args.length];
                for (int i = 0; i < a.length; i++) a[i] = conv[slot[i]];
                return observe(p.on(() -> a), kind, p.fn());
            });
            return o.error == null ? o.values : null;
        } catch (RuntimeException e) {
            return null;
        } finally {
            if (p.modules() != null) {
                p.modules().to(dev.ember.tensor.DType.FLOAT32);
                p.modules().reset(false);
            }
        }
    }

    /**
     * How many ways of moving the inputs by one rounding sample the floor. Where a result is a
     * difference of large terms, eager lands on the exact answer for some of them and on rounding
     * noise for others (seed 27631: about half and half), so one sample can make the compiled
     * code's noise look like an error; eight leave that to chance about once in 250.
     */
    static final int ROUNDING_PATTERNS = 8;

    /**
     * The arguments with every floating-point element moved by one unit in the last place, in their
     * storage (so layouts and aliasing stay): rounding's own size. Pattern 0 moves elements up and
     * down in turn, 1 down and up, 2 all up, 3 all down; the others move each element up, down or
     * not at all, at random from a seed of the pattern.
     */
    private static Object[] oneRoundingAway(Object[] args, int pattern) {
        java.util.function.IntUnaryOperator direction = direction(pattern);
        return changeFloats(ownElements(args), (i, f) -> moved(f, direction.applyAsInt(i)), (i, d) -> moved(d, direction.applyAsInt(i)));
    }

    /** Which way pattern {@code pattern} moves element {@code i} (see {@link #oneRoundingAway}); the random patterns draw afresh from their seed. */
    private static java.util.function.IntUnaryOperator direction(int pattern) {
        java.util.Random random = new java.util.Random(pattern);
        return i -> switch (pattern) {
            case 0 -> (i & 1) == 0 ? 1 : -1;
            case 1 -> (i & 1) == 0 ? -1 : 1;
            case 2 -> 1;
            case 3 -> -1;
            default -> random.nextInt(3) - 1;
        };
    }

    /**
     * The arguments with each expanded tensor (a dimension of stride 0: one stored value seen many
     * times) replaced by a copy that stores every element, so that moving the inputs by one
     * rounding moves its elements independently, as a gradient with respect to each of them
     * measures (seed 49235: layer_norm of one value seen seven times is ill-conditioned in each
     * element, which moving the one stored value hides). The same tensor passed twice stays one.
     */
    private static Object[] ownElements(Object[] args) {
        IdentityHashMap<Object, Object> copies = new IdentityHashMap<>();
        try (var unused = dev.ember.autograd.GradMode.noGrad()) {
            for (int i = 0; i < args.length; i++) {
                if (!(args[i] instanceof Tensor t) || !expanded(t)) continue;
                args[i] = copies.computeIfAbsent(t, k -> t.clone());
            }
        }
        return args;
    }

    private static boolean expanded(Tensor t) {
        for (int d = 0; d < t.dim(); d++) if (t.stride(d) == 0 && t.size(d) > 1) return true;
        return false;
    }

    /**
     * Each parameter's gradient moved by one rounding of the gradient as a whole: every element by
     * one unit in the last place of the tensor's largest magnitude, in pattern {@code pattern}'s
     * directions. That is the size of the rounding of each element's sum (its terms are of the
     * tensor's scale), and it is what decides an element whose exact value is 0: the class of seed
     * 976372, an attention's key bias, whose gradient is rounding noise of either sign, which Adam's first step
     * ({@code lr·g/(|g|+eps)}) turns into a move of up to lr. Moving such an element by one unit of
     * itself would keep its sign and hide that.
     */
    private static void moveGradients(List<Tensor> parameters, int pattern) {
        java.util.function.IntUnaryOperator direction = direction(pattern);
        try (var unused = dev.ember.autograd.GradMode.noGrad()) {
            for (Tensor p : parameters) {
                Tensor g = p.grad();
                if (g == null || !g.dtype().isFloatingPoint()) continue;
                Tensor own = g.clone().contiguous();
                if (own.storageOffset() != 0 || own.storage().length() != own.numel()) continue;
                switch (own.storage().data()) {
                    case float[] f -> {
                        float largest = 0;
                        for (float x : f) if (Float.isFinite(x)) largest = Math.max(largest, Math.abs(x));
                        float unit = Math.ulp(largest);
                        for (int i = 0; i < f.length; i++) f[i] += direction.applyAsInt(i) * unit;
                    }
                    case double[] d -> {
                        double largest = 0;
                        for (double x : d) if (Double.isFinite(x)) largest = Math.max(largest, Math.abs(x));
                        double unit = Math.ulp(largest);
                        for (int i = 0; i < d.length; i++) d[i] += direction.applyAsInt(i) * unit;
                    }
                    default -> { }
                }
                p.setGrad(own);
            }
        }
    }

    private static float moved(float f, int direction) {
        return direction > 0 ? Math.nextUp(f) : direction < 0 ? Math.nextDown(f) : f;
    }

    private static double moved(double d, int direction) {
        return direction > 0 ? Math.nextUp(d) : direction < 0 ? Math.nextDown(d) : d;
    }

    /** A call after the first ones, with other values or sizes ({@code what} it is, in words): eager's result and its references. */
    private record Variant(String what, LoadedRun run, Observed eager, References refs) {}

    /**
     * The same layouts and aliasing with new values, twice: a value the compiled code baked in
     * without a guard shows at the first; a number that recompiled there as a graph input (automatic
     * dynamic) runs that new graph at the second, so an input made differently at call time than it
     * was traced (the {@code f64[1]} class of bug) shows there. None when eager throws on them.
     */
    private static List<Variant> renewedRuns(LoadedRun p) {
        List<Variant> out = new ArrayList<>();
        LoadedRun once = p.on(() -> newValues(p.inputs().get()));
        LoadedRun twice = p.on(() -> newValues(newValues(p.inputs().get())));
        for (var run : List.of(Map.entry("a call with new input values", once), Map.entry("a second call with other new input values", twice))) {
            Observed eager = observeEager(run.getValue(), false);
            out.add(new Variant(run.getKey(), run.getValue(), eager, eager.error == null ? new References(run.getValue(), false) : References.NONE));
        }
        return out;
    }

    /**
     * The program run eagerly with the batch grown by 3, then by 7 (each a new size, so automatic
     * dynamic makes it a symbol at the first and reuses the symbolic graph at the second); none
     * where eager refuses the new sizes (the program depends on them) or an input is not floating point.
     */
    private static List<Variant> resizedRuns(LoadedRun p, boolean training) {
        List<Variant> out = new ArrayList<>();
        for (int grow : new int[] {3, 7}) {
            if (resizedBatch(p.inputs().get(), grow) == null) break;
            LoadedRun run = p.on(() -> resizedBatch(p.inputs().get(), grow));
            Observed eager = observeEager(run, training);
            if (eager.error != null) break;
            out.add(new Variant("a call with dimension 0 grown by " + grow, run, eager, new References(run, training)));
        }
        return out;
    }

    /**
     * New inputs whose dimension 0 is {@code grow} larger wherever it is 2 or more (the same tensor
     * passed twice stays one tensor), filled from a fixed seed; null when an input is no floating-point tensor.
     */
    private static Object[] resizedBatch(Object[] args, int grow) {
        dev.ember.tensor.Generator g = new dev.ember.tensor.Generator(1000 + grow);
        Map<Object, Object> made = new IdentityHashMap<>();
        Object[] out = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            if (!(args[i] instanceof Tensor t)) {
                out[i] = args[i];
                continue;
            }
            Object again = made.get(t);
            if (again == null) {
                if (!t.dtype().isFloatingPoint()) return null;
                int[] shape = t.shape();
                if (shape.length > 0 && shape[0] >= 2) shape[0] += grow;
                Tensor fresh = Tensor.randn(g, shape).to(t.dtype());
                again = t.requiresGrad() ? fresh.requiresGrad(true) : fresh;
                made.put(t, again);
            }
            out[i] = again;
        }
        return out;
    }

    /**
     * The arguments with every floating-point value changed ({@code x ↦ 0.5 − 1.25·x}) in their
     * storage, so layouts, views and aliasing are those of {@code args}, and every Java number
     * argument made anew with other values ({@link ScalarInput#renewed}): what changes is only what
     * a guard does not check, or what it checks and must send to another entry.
     */
    private static Object[] newValues(Object[] args) {
        for (int i = 0; i < args.length; i++) if (!(args[i] instanceof Tensor)) args[i] = ScalarInput.renewed(args[i]);
        return changeFloats(args, (i, f) -> 0.5f - 1.25f * f, (i, d) -> 0.5 - 1.25 * d);
    }

    private interface FloatChange { float apply(int index, float value); }

    private interface DoubleChange { double apply(int index, double value); }

    /** Changes every float32 and float64 element of the arguments in their storage, each storage once. */
    private static Object[] changeFloats(Object[] args, FloatChange onFloat, DoubleChange onDouble) {
        Set<Object> done = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object a : args) {
            if (!(a instanceof Tensor t) || !done.add(t.storage())) continue;
            switch (t.storage().data()) {
                case float[] f -> { for (int i = 0; i < f.length; i++) f[i] = onFloat.apply(i, f[i]); }
                case double[] d -> { for (int i = 0; i < d.length; i++) d[i] = onDouble.apply(i, d[i]); }
                default -> { }
            }
        }
        return args;
    }

    /** The arguments with repeats (the same tensor passed twice) removed, in order. */
    private static List<Object> distinct(Object[] args) {
        Set<Object> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        List<Object> out = new ArrayList<>();
        for (Object a : args) if (seen.add(a)) out.add(a);
        return out;
    }

    /**
     * What each value holds now, as something compared by content: a tensor's clone, a
     * {@code double[]}'s elements, a settings object's public fields; numbers, strings and
     * immutable lists as they are.
     */
    private static List<Object> copies(List<Object> values) {
        List<Object> out = new ArrayList<>();
        try (var unused = dev.ember.autograd.GradMode.noGrad()) {
            for (Object v : values) out.add(contents(v));
        }
        return out;
    }

    private static Object contents(Object v) {
        return switch (v) {
            case Tensor t -> t.clone();
            case double[] a -> java.util.Arrays.stream(a).boxed().toList();
            case int[] a -> java.util.Arrays.stream(a).boxed().toList();
            case null -> null;
            case Number n -> n;
            case CharSequence c -> c.toString();
            case List<?> l -> List.copyOf(l);
            default -> {
                List<Object> fields = new ArrayList<>();
                for (var f : v.getClass().getFields()) {
                    if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
                    try {
                        fields.add(f.getName() + "=" + f.get(v));
                    } catch (IllegalAccessException e) {
                        fields.add(f.getName() + "=?");
                    }
                }
                yield fields.isEmpty() ? v : fields;
            }
        };
    }

    /** The cache folder's entries and each file's identity: a rewritten entry is a new file (written then renamed). */
    private static Map<String, Object> entries(Path dir) {
        ArtifactCache.awaitWrites();
        Map<String, Object> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".emberc")).toList()) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                out.put(f.getFileName().toString(), a.fileKey() != null ? a.fileKey() : a.lastModifiedTime());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the cache folder " + dir, e);
        }
        return out;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the fuzzer's cache folder " + dir, e);
        }
    }
}
