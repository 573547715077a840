package dev.ember.inductor;

import dev.ember.aot.Aot;
import dev.ember.events.CompileEvent.CacheHit;
import dev.ember.events.CompileEvent.CacheMiss;
import dev.ember.events.CompileEvents;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompilerSteps;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NanAsserts;
import dev.ember.fx.ShapeProp;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.inductor.cache.BuildStamp;
import dev.ember.inductor.codegen.BytecodeWriter;
import dev.ember.inductor.codegen.GraphWriter;
import dev.ember.inductor.codegen.VectorApi;
import dev.ember.jvm.HiddenClasses;
import dev.ember.logging.Trace;
import dev.ember.passes.PassManager;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The inductor: decomposes a graph to core ops, lowers it to loops, fuses, writes the loops as a
 * class file (printed as Java source for {@code output_code}) and loads it as a hidden class — or
 * loads the class from the on-disk cache when the same graph with the same input layouts was
 * compiled before, by any process.
 *
 * <p>A graph generic in some input sizes ({@link GraphModule#sizeSymbols()}) compiles to one class
 * that serves every size in the symbols' ranges: it reads the sizes from its inputs at each call.
 * A graph part of which can only be compiled for particular sizes throws
 * {@link Lowering.NotSizeGeneric}, saying which node and why; the caller then compiles the graph
 * specialized to its example sizes.
 *
 * <pre>{@code
 * InductorGraph g = Inductor.compile(gm, exampleInputs);
 * Tensor y = (Tensor) g.run(x);
 * }</pre>
 */
public final class Inductor {
    private Inductor() {}

    /**
     * Bumped whenever generated code changes for the same graph, so old cache entries are not used;
     * keys also carry the {@link BuildStamp}, so an entry from another build is never used even when
     * a bump is forgotten.
     */
    static final String VERSION = "ember-inductor-29";

    public static InductorGraph compile(GraphModule gm, List<? extends Tensor> exampleInputs) {
        return compile(gm, exampleInputs, CompileMode.DEFAULT);
    }

    public static InductorGraph compile(GraphModule gm, List<? extends Tensor> exampleInputs, CompileMode mode) {
        // While ember bisect counts the compiler's steps, a cached class would take none of them.
        ArtifactCache cache = CompilerSteps.counting() ? null : CACHES.computeIfAbsent(ArtifactCache.defaultDir(), d -> new ArtifactCache(d, InductorLog::cache));
        // what compiling allocates (autotuning's inputs, folded constants) is the graph's, not a TensorScope's around the first call
        return dev.ember.tensor.TensorScope.untracked(() -> compile(gm, exampleInputs, mode, cache));
    }

    static boolean hasGemm(GraphModule gm) { return Aot.reachesGemm(gm); }

    /** One cache per folder for the life of the process, so that a folder or key it refuses is warned about once. */
    private static final Map<Path, ArtifactCache> CACHES = new ConcurrentHashMap<>();

    static InductorGraph compile(GraphModule gm, List<? extends Tensor> exampleInputs, CompileMode mode, ArtifactCache cache) {
        return compile(gm, exampleInputs, mode, cache, Autotune::faster);
    }

    /** How max-autotune decides whether variant {@code a} beats {@code b} (tests pass a fixed choice). */
    interface Chooser {
        boolean faster(InductorGraph a, InductorGraph b, List<? extends Tensor> exampleInputs);
    }

    static InductorGraph compile(GraphModule gm, List<? extends Tensor> exampleInputs, CompileMode mode, ArtifactCache cache, Chooser chooser) {
        List<TensorMeta> metas = new ArrayList<>();
        for (Tensor t : exampleInputs) metas.add(t.meta());
        String graphText = canonical(gm);
        List<String> attrMeta = gm.attributes().entrySet().stream().map(e -> e.getKey() + ":" + e.getValue().meta()).toList();
        boolean nanAsserts = NanAsserts.enabled();
        String key = ArtifactCache.key(VERSION, BuildStamp.of(Inductor.class), mode.name(), String.valueOf(VectorApi.AVAILABLE), graphText,
                metas.toString(), attrMeta.toString(), symbolicKey(gm), writtenBackKey(gm), nanAssertsKey(nanAsserts, gm), PassManager.configuration(Aot.compilingForTraining()));
        if (cache != null) {
            InductorGraph hit = fromCache(gm, metas, mode, cache, chooser, key, nanAsserts);
            if (hit != null) return hit;
        }
        return generate(gm, exampleInputs, metas, mode, cache, chooser, key, nanAsserts);
    }

    /**
     * The graph stored under {@code key}, or null on a miss. An entry that cannot be decoded or whose
     * class does not verify is rejected (deleted, with a warning). Every class loaded from the cache
     * is verified: by the JVM as it defines it, or — when verification was switched off — here.
     * One that loads but fails when run is replaced by a fresh compile ({@link InductorGraph.CachedEntry}).
     */
    private static InductorGraph fromCache(GraphModule gm, List<TensorMeta> metas, CompileMode mode, ArtifactCache cache, Chooser chooser, String key,
                                           boolean nanAsserts) {
        byte[] cached = cache.get(key);
        if (cached == null) {
            if (cache.enabled()) CompileEvents.global().publish(new CacheMiss(key));
            return null;
        }
        Artifact a;
        try {
            a = Artifact.decode(cached);
        } catch (IOException | RuntimeException e) {
            cache.reject(key, "cannot be decoded: " + e);
            return null;
        }
        if (!HiddenClasses.jvmVerifies()) {
            List<String> errors = BytecodeWriter.verify(a.classBytes(), Inductor.class.getClassLoader());
            if (!errors.isEmpty()) {
                cache.reject(key, "its class does not verify: " + errors);
                return null;
            }
        }
        InductorGraph.CachedEntry entry = new InductorGraph.CachedEntry(cache.path(key), inputs -> {
            cache.evict(key);
            List<Tensor> tensors = Arrays.stream(inputs).map(Tensor.class::cast).toList();
            return generate(gm, tensors, metas, mode, cache, chooser, key, nanAsserts);
        });
        InductorGraph graph;
        try {
            graph = load(gm, a, withAttributes(metas, gm, a.attributePaths()), new Object[0], entry);
        } catch (LinkageError | RuntimeException e) {
            cache.reject(key, "its class cannot be loaded: " + e);
            return null;
        }
        CompileEvents.global().publish(new CacheHit(key, cache.path(key)));
        return graph;
    }

    private static InductorGraph generate(GraphModule gm, List<? extends Tensor> exampleInputs, List<TensorMeta> metas, CompileMode mode,
                                          ArtifactCache cache, Chooser chooser, String key, boolean nanAsserts) {
        Aot.Prepared prepared = Aot.prepare(gm, exampleInputs);
        if (!prepared.functional()) {
            InductorLog.log("perf_hints", () -> "graph runs in the interpreter: " + prepared.keptMutation());
            return new InductorGraph(gm, null, metas, null, null, null);
        }
        GraphModule work = prepared.graph();
        if (gm.sizeSymbols() != null && work.sizeSymbols() == null) {
            // code for the hint sizes only would be run at every size in range
            throw new Lowering.NotSizeGeneric("the graph decomposed for the inductor is no longer generic in " + gm.sizeSymbols().symbols().stream()
                    .map(s -> s.source()).toList() + "; it can only be compiled for its example sizes");
        }
        Lowering.Result lowered;
        try {
            lowered = Lowering.lower(work);
        } catch (Lowering.Unsupported e) {
            InductorLog.log("perf_hints", () -> "graph runs in the interpreter: " + e.getMessage());
            return new InductorGraph(gm, null, metas, null, null, null);
        }
        lowered.perfHints().forEach(h -> InductorLog.log("perf_hints", () -> h));
        Scheduler scheduler = Scheduler.schedule(lowered);
        InductorLog.log("fusion", () -> String.join("\n", scheduler.decisions()));
        Trace.artifact(Trace.FUSION_DECISIONS, () -> String.join("\n", scheduler.decisions()));
        InductorLog.log("schedule", () -> scheduleText(scheduler.kernels()));
        if (Trace.isEnabled()) {
            // fusion as a pass of its own in the report's diffs: every op a kernel before, the kernels after
            Trace.graphPass("inductor", "fusion", scheduler.decisions().size() + " fusion decision(s) (inductor_fusion_decisions says why)",
                    unfusedText(scheduler.kernels()), () -> scheduleText(scheduler.kernels()));
        }
        List<String> writeBacks = InputWriteBack.apply(gm, scheduler.kernels(), lowered.output());
        if (!writeBacks.isEmpty()) InductorLog.log("fusion", () -> String.join("\n", writeBacks));
        long[] hints = lowered.sizeSymbols() == null ? new long[0] : lowered.sizeSymbols().hints();
        MemoryPlan plan = MemoryPlan.plan(scheduler.kernels(), lowered.output(), mode == CompileMode.REDUCE_OVERHEAD, hints);
        LiveOverwriteCheck.check(scheduler.kernels(), plan, lowered.output());
        String className = "Graph_" + key.substring(0, 16);

        Candidate best = candidate(className, scheduler, plan, lowered, VectorApi.AVAILABLE, false, nanAsserts);
        InductorGraph graph = load(gm, best.artifact, lowered.inputMetas(), best.constants, null);
        if (mode == CompileMode.MAX_AUTOTUNE && nanAsserts) {
            // Variants are timed on random inputs, which would trip the checks of a graph that is fine on the real ones.
            InductorLog.log("inductor", () -> "max-autotune times no variants while " + NanAsserts.ENV + " is on: the default code is used");
        } else if (mode == CompileMode.MAX_AUTOTUNE) {
            // Variants: scalar loops instead of Vector API ones, and weights kept transposed for few-row GEMMs.
            List<Candidate> others = new ArrayList<>();
            if (VectorApi.AVAILABLE) others.add(candidate(className, scheduler, plan, lowered, false, false, nanAsserts));
            if (GraphWriter.hasTransposableWeights(scheduler.kernels())) others.add(candidate(className, scheduler, plan, lowered, VectorApi.AVAILABLE, true, nanAsserts));
            for (Candidate c : others) {
                InductorGraph other = load(gm, c.artifact, lowered.inputMetas(), c.constants, null);
                if (chooser.faster(other, graph, exampleInputs)) {
                    graph = other;
                    best = c;
                }
            }
        }
        if (cache != null && best.constants.length == 0) cache.putLater(key, best.artifact::encode);
        return graph;
    }

    /** Which inputs' final values the caller copies back from which output: the code stores them in place, so a graph differing only there differs in code. */
    private static String writtenBackKey(GraphModule gm) {
        List<String> out = new ArrayList<>();
        List<dev.ember.fx.Node> ps = gm.graph().placeholders();
        for (int i = 0; i < ps.size(); i++) {
            Object j = ps.get(i).meta().get(dev.ember.aot.Functionalize.WRITTEN_BACK_FROM_OUTPUT);
            if (j != null) out.add(i + "<-" + j);
        }
        return out.toString();
    }

    private record Candidate(Artifact artifact, Object[] constants) {}

    private static Candidate candidate(String className, Scheduler s, MemoryPlan plan, Lowering.Result r, boolean vectorize, boolean transposeWeights,
                                       boolean nanAsserts) {
        GraphWriter writer = new GraphWriter(className, s.kernels(), plan, r.output(), r.inputMetas().size(), r.sizeSymbols(), vectorize, transposeWeights,
                nanAsserts);
        GraphWriter.Generated code = writer.generate(Inductor.class.getClassLoader());
        assert verified(className, code);
        return new Candidate(new Artifact(className, code.source(), code.classBytes(), plan.slots(), r.attributePaths(), r.perfHints()),
                writer.constants().toArray());
    }

    /**
     * With assertions on (every test run), each generated class goes through the class-file
     * verifier before it is loaded, so that a bad stack map or type shows as the verifier's message
     * with the source next to it, not as a {@code VerifyError} at first call.
     */
    private static boolean verified(String className, GraphWriter.Generated code) {
        List<String> errors = BytecodeWriter.verify(code.classBytes(), Inductor.class.getClassLoader());
        if (!errors.isEmpty()) throw new AssertionError("generated class " + className + " does not verify: " + errors + "\n" + code.source().get());
        return true;
    }

    private static List<TensorMeta> withAttributes(List<TensorMeta> inputs, GraphModule gm, List<String> paths) {
        List<TensorMeta> all = new ArrayList<>(inputs);
        for (String p : paths) all.add(gm.attribute(p).meta());
        return all;
    }

    /** @param cached where the class came from when it was loaded from the cache, else null */
    static InductorGraph load(GraphModule gm, Artifact a, List<TensorMeta> metas, Object[] constants, InductorGraph.CachedEntry cached) {
        try {
            MethodHandles.Lookup lookup = HiddenClasses.define(MethodHandles.lookup(), a.classBytes(), null);
            MethodHandle call = lookup.findStatic(lookup.lookupClass(), "call",
                    MethodType.methodType(Object.class, Tensor[].class, Object[].class, Object[].class));
            return new InductorGraph(gm, call, metas, a, constants, cached);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load generated class " + a.className(), e);
        }
    }

    /**
     * The graph as the cache key sees it: every node's kind, target and arguments (nodes by name,
     * constants by value). Cheaper than the printed graph, and all that decides the code.
     */
    static String canonical(GraphModule gm) {
        StringBuilder sb = new StringBuilder();
        for (dev.ember.fx.Node n : gm.graph().nodes()) {
            sb.append(n.name()).append('=').append(n.kind()).append(' ').append(n.target()).append('(');
            for (Object a : n.args()) appendArg(sb, a).append(',');
            n.kwargs().forEach((k, v) -> appendArg(sb.append(k).append(':'), v).append(','));
            sb.append(")\n");
        }
        return sb.toString();
    }

    /**
     * The size symbols' part of the cache key: each symbol (where it is read, its range, its source
     * for the comments of the code) and every node's symbolic metadata. A static graph has none, so
     * it never shares an entry with a graph generic in sizes traced at the same example sizes.
     */
    private static String symbolicKey(GraphModule gm) {
        if (gm.sizeSymbols() == null) return "static";
        StringBuilder sb = new StringBuilder(gm.sizeSymbols().symbols().toString()).append('\n');
        for (dev.ember.fx.Node n : gm.graph().nodes()) sb.append(n.name()).append(' ').append(n.symVal()).append('\n');
        return sb.toString();
    }

    /**
     * The NaN asserts' part of the cache key: with them on, generated code holds each node's source
     * line for its messages, and the canonical graph has none, so the lines join the key.
     */
    private static String nanAssertsKey(boolean on, GraphModule gm) {
        if (!on) return "nan_asserts=0";
        StringBuilder sb = new StringBuilder("nan_asserts=1\n");
        for (dev.ember.fx.Node n : gm.graph().nodes()) sb.append(n.name()).append(' ').append(NanAsserts.sourceLine(n)).append('\n');
        return sb.toString();
    }

    private static StringBuilder appendArg(StringBuilder sb, Object a) {
        return switch (a) {
            case null -> sb.append("None");
            case int[] v -> sb.append(java.util.Arrays.toString(v));
            case long[] v -> sb.append(java.util.Arrays.toString(v));
            case double[] v -> sb.append(java.util.Arrays.toString(v));
            case List<?> l -> {
                sb.append('[');
                for (Object x : l) appendArg(sb, x).append(',');
                yield sb.append(']');
            }
            case Double d -> sb.append(Double.doubleToRawLongBits(d)).append('d');
            default -> sb.append(a.getClass().getSimpleName()).append(':').append(a);
        };
    }

    /** The kernels' ops, one a line, as if none were fused: the "before" of fusion. */
    private static String unfusedText(List<Kernel> kernels) {
        List<String> ops = kernels.stream().flatMap(k -> MemoryPlan.stages(k).stream()).map(s -> "  " + (s.node() == null ? "?" : s.node().name())).toList();
        return ops.size() + " ops, one kernel each:\n" + String.join("\n", ops);
    }

    private static String scheduleText(List<Kernel> kernels) {
        return kernels.stream().map(k -> "  " + GraphWriter.describe(k)).collect(Collectors.joining("\n", kernels.size() + " kernels:\n", ""));
    }
}
