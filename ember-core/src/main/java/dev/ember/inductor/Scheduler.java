package dev.ember.inductor;

import dev.ember.fx.CompilerSteps;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Sizes;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.ops.ConvOps;
import dev.ember.ops.NnOps;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.SymInt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Groups stages into kernels, in order, each stage joining the kernel before it when that is legal:
 * <ul>
 *   <li>pointwise after pointwise of the same shape (one loop writes both);</li>
 *   <li>reductions and pointwise stages over the same leading "row" dims (softmax and layer_norm
 *       become one kernel per row: reduce, reduce again, write) — a stage may read what an earlier
 *       stage of the kernel wrote only within the current row;</li>
 *   <li>pointwise epilogues over a GEMM or convolution output (bias, activation, residual add),
 *       written in place into that output when nothing else reads it.</li>
 * </ul>
 * Every decision is recorded in {@link #decisions()} (the {@code fusion} log); each legal fusion is
 * one {@link CompilerSteps} step ({@code ember bisect} can skip it).
 */
final class Scheduler {
    private final List<Kernel> kernels = new ArrayList<>();
    private final List<String> decisions = new ArrayList<>();
    private final Map<Buffer, Stage> producer = new HashMap<>();
    private final Map<Buffer, Integer> readers = new HashMap<>();
    private final Set<Buffer> outputs;
    /** The stage being added was not fused for a reason already logged (a full kernel, or {@link CompilerSteps} skipped it). */
    private boolean noFusionExplained;

    private Scheduler(Set<Buffer> outputs) { this.outputs = outputs; }

    static Scheduler schedule(Lowering.Result r) {
        Set<Buffer> outs = new HashSet<>();
        collectOutputs(r.output(), outs);
        Scheduler s = new Scheduler(outs);
        for (Stage st : r.stages()) for (Buffer b : reads(st)) s.readers.merge(b, 1, Integer::sum);
        for (Stage st : r.stages()) s.add(st);
        s.finish();
        return s;
    }

    List<Kernel> kernels() { return kernels; }

    List<String> decisions() { return decisions; }

    private static void collectOutputs(Object o, Set<Buffer> out) {
        if (o instanceof Value.Stored s) out.add(s.buffer());
        if (o instanceof List<?> l) for (Object x : l) collectOutputs(x, out);
    }

    /** The buffers a stage reads (each once). */
    static Set<Buffer> reads(Stage s) {
        Set<Buffer> out = new LinkedHashSet<>();
        switch (s) {
            case Stage.Pointwise p -> Expr.forEachLoad(p.body(), l -> out.add(l.buffer()));
            case Stage.Reduction r -> Expr.forEachLoad(r.body(), l -> out.add(l.buffer()));
            case Stage.Gemm g -> { out.add(g.a().buffer()); out.add(g.b().buffer()); }
            case Stage.Extern e -> collectOperands(e.args(), out);
        }
        return out;
    }

    private static void collectOperands(Object o, Set<Buffer> out) {
        if (o instanceof Stage.Operand op) out.add(op.buffer());
        if (o instanceof List<?> l) for (Object x : l) collectOperands(x, out);
    }

    private static Buffer written(Stage s) {
        return switch (s) {
            case Stage.Pointwise p -> p.out();
            case Stage.Reduction r -> r.out();
            case Stage.Gemm g -> g.out();
            case Stage.Extern e -> e.outs().size() == 1 ? e.outs().get(0) : null;
        };
    }

    private void add(Stage st) {
        Buffer w = written(st);
        if (w != null) producer.put(w, st);
        Kernel last = kernels.isEmpty() ? null : kernels.get(kernels.size() - 1);
        switch (st) {
            case Stage.Pointwise p when last instanceof Kernel.Host h && joinsHost(h, p) && fitsOneKernel(hostStages(h), p) && fusionAllowed(p, h.host()) -> {
                kernels.set(kernels.size() - 1, new Kernel.Host(h.host(), append(h.epilogue(), p)));
                decisions.add("fuse " + name(p) + " as an epilogue of " + name(h.host()) + inPlaceNote(h, p));
            }
            case Stage.Pointwise p when last instanceof Kernel.Loop k && joinsLoop(k, p, p.shape()) && fitsOneKernel(k.stages(), p) && fusionAllowed(p, k.stages().get(0)) -> {
                kernels.set(kernels.size() - 1, new Kernel.Loop(k.outer(), append(k.stages(), p), k.locals()));
                decisions.add("fuse " + name(p) + " into the loop of " + name(k.stages().get(0)));
            }
            case Stage.Reduction r when last instanceof Kernel.Loop k && joinsLoop(k, r, null) && fitsOneKernel(k.stages(), r) && fusionAllowed(r, k.stages().get(0)) -> {
                kernels.set(kernels.size() - 1, new Kernel.Loop(k.outer(), append(k.stages(), r), k.locals()));
                decisions.add("fuse reduction " + name(r) + " into the row loop of " + name(k.stages().get(0)));
            }
            case Stage.Pointwise p when earlierLoopFor(p) instanceof Integer at && fusionAllowed(p, ((Kernel.Loop) kernels.get(at)).stages().get(0)) -> {
                Kernel.Loop k = (Kernel.Loop) kernels.get(at);
                kernels.set(at, new Kernel.Loop(k.outer(), append(k.stages(), p), k.locals()));
                int skipped = kernels.size() - 1 - at;
                decisions.add("fuse " + name(p) + " into the loop of " + name(k.stages().get(0)) + ", " + skipped + " kernel" + (skipped == 1 ? "" : "s")
                        + " earlier: none between them writes what it reads");
            }
            case Stage.Pointwise p -> {
                explainNoFusion(last, st);
                SymInt[] outer = p.shape().length == 0 ? new SymInt[0] : Arrays.copyOf(p.shape(), p.shape().length - 1);
                kernels.add(new Kernel.Loop(outer, List.of(p), new HashSet<>()));
            }
            case Stage.Reduction r -> {
                explainNoFusion(last, st);
                kernels.add(new Kernel.Loop(r.outer(), List.of(r), new HashSet<>()));
            }
            case Stage.Gemm g -> kernels.add(new Kernel.Host(g, List.of()));
            case Stage.Extern e -> kernels.add(new Kernel.Host(e, List.of()));
        }
    }

    /** How many kernels back a pointwise stage looks for a loop of its shape to join ({@link #earlierLoopFor}). */
    static final int FUSION_LOOKBACK = 16;

    /**
     * The index of an earlier loop kernel (not the last one, which the caller tried) that {@code p}
     * can join by moving ahead of the kernels after it: each of those is a loop (an extern kernel
     * or GEMM may write memory its operands do not name, so it is never crossed), none writes a
     * buffer {@code p} reads, and {@code p}'s output is a fresh buffer, which nothing before
     * {@code p} reads. An optimizer's step lowers each parameter's moment updates before the
     * parameters' own updates (which read the new moments): this puts each parameter's update in
     * the loop of its moments, one pass over memory instead of two. Null when there is none.
     */
    private Integer earlierLoopFor(Stage.Pointwise p) {
        if (kernels.size() < 2 || p.out().storage() != p.out()) return null;
        Set<Buffer> reads = reads(p);
        int stop = Math.max(0, kernels.size() - 1 - FUSION_LOOKBACK);
        for (int at = kernels.size() - 1; at > stop; at--) {
            if (!(kernels.get(at) instanceof Kernel.Loop crossed)) return null;
            for (Stage s : crossed.stages()) if (reads.contains(written(s))) return null;
            if (kernels.get(at - 1) instanceof Kernel.Loop k && joinsLoop(k, p, p.shape()) && fits(k.stages(), p)) return at - 1;
        }
        return null;
    }

    /** Whether {@code st} joins {@code stages} within {@link #MAX_KERNEL_STAGES} and {@link #MAX_KERNEL_BUFFERS}, silently. */
    private static boolean fits(List<? extends Stage> stages, Stage st) {
        return stages.size() + 1 <= MAX_KERNEL_STAGES && bufferCount(stages, st) <= MAX_KERNEL_BUFFERS;
    }

    private static int bufferCount(List<? extends Stage> stages, Stage st) {
        Set<Buffer> buffers = new HashSet<>();
        for (Stage s : stages) {
            buffers.addAll(reads(s));
            buffers.add(written(s));
        }
        buffers.addAll(reads(st));
        buffers.add(written(st));
        return buffers.size();
    }

    /**
     * The most stages one kernel holds (PyTorch's inductor: {@code max_fusion_size = 64}): a long
     * unrolled loop (an LSTM's steps, their backward) otherwise chains hundreds of same-shape stages
     * into one method past the JVM's limits.
     */
    static final int MAX_KERNEL_STAGES = 64;
    /**
     * The most distinct buffers one kernel reads and writes. Each becomes a parameter of the kernel's
     * method (an array, and for a strided read its offset: two slots), and a JVM method takes at most
     * 255 parameter slots; fused past this, the class fails to load ("Too many arguments in method
     * signature").
     */
    static final int MAX_KERNEL_BUFFERS = 100;

    /** Whether {@code st} joins {@code stages} within {@link #MAX_KERNEL_STAGES} and {@link #MAX_KERNEL_BUFFERS}. */
    private boolean fitsOneKernel(List<? extends Stage> stages, Stage st) {
        if (fits(stages, st)) return true;
        int buffers = bufferCount(stages, st);
        decisions.add("no fusion of " + name(st) + " with the kernel of " + name(stages.get(0)) + ": the kernel is full (" + stages.size() + " stages, "
                + buffers + " buffers; at most " + MAX_KERNEL_STAGES + " and " + MAX_KERNEL_BUFFERS + ")");
        noFusionExplained = true;
        return false;
    }

    private static List<Stage> hostStages(Kernel.Host h) {
        List<Stage> out = new ArrayList<>();
        out.add(h.host());
        out.addAll(h.epilogue());
        return out;
    }

    /**
     * A legal fusion of {@code st} into the kernel of {@code first} is one {@link CompilerSteps} step;
     * skipped, {@code st} starts a kernel of its own.
     */
    private boolean fusionAllowed(Stage st, Stage first) {
        if (CompilerSteps.apply(CompilerSteps.Kind.FUSION, () -> "fuse " + (st.node() == null ? "?" : CompilerSteps.describe(st.node())) + " into the kernel of " + name(first))) {
            return true;
        }
        decisions.add("no fusion of " + name(st) + " with the kernel of " + name(first) + ": skipped by " + CompilerSteps.LIMIT_ENV + " (ember bisect)");
        noFusionExplained = true;
        return false;
    }

    private void explainNoFusion(Kernel last, Stage st) {
        if (noFusionExplained) {
            noFusionExplained = false;
            return;
        }
        if (last != null && !(last instanceof Kernel.Host h && h.host() instanceof Stage.Extern e && e.outs().size() != 1)) {
            decisions.add("no fusion of " + name(st) + " with the kernel before it: different iteration space or a cross-row read");
        }
    }

    private static <T> List<T> append(List<T> list, T x) {
        List<T> out = new ArrayList<>(list);
        out.add(x);
        return out;
    }

    /**
     * A pointwise stage over the host's output, reading it (or an earlier epilogue's output) element
     * for element. A stage that reads none of them is no epilogue, however its shape matches: fused,
     * it would be written in place over a result that later kernels still need.
     */
    /** Extern kernels whose result is a fresh contiguous tensor, which an epilogue may overwrite in place. */
    private static final Set<OpOverload> EPILOGUE_HOSTS = Set.of(ConvOps.CONVOLUTION, NnOps.SCALED_DOT_PRODUCT_ATTENTION);

    private boolean joinsHost(Kernel.Host h, Stage.Pointwise p) {
        Buffer hostOut = written(h.host());
        if (hostOut == null || h.host() instanceof Stage.Extern e && !EPILOGUE_HOSTS.contains(e.op())) return false;
        SymInt[] hostShape = h.host() instanceof Stage.Gemm g ? gemmShape(g)
                : Lowering.symShape(h.host().node(), (dev.ember.tensor.Tensor) h.host().node().val()).sizes();
        // the first epilogue may view the output in another shape of the same elements (a linear layer's
        // [B·L, N] product read as [B, L, N] by its bias and activation); the later ones share its loop
        if (h.epilogue().isEmpty() ? !Sizes.numel(hostShape).equals(Sizes.numel(p.shape())) : !Arrays.equals(h.epilogue().get(0).shape(), p.shape())) return false;
        Affine same = Affine.contiguous(p.shape(), 0);
        Set<Buffer> group = new HashSet<>();
        group.add(hostOut);
        for (Stage.Pointwise e : h.epilogue()) group.add(e.out());
        boolean[] ok = {true}, readsGroup = {false};
        Expr.forEachLoad(p.body(), l -> {
            if (!group.contains(l.buffer())) return;
            readsGroup[0] = true;
            if (!l.index().equals(same)) ok[0] = false;
        });
        return ok[0] && readsGroup[0];
    }

    private static SymInt[] gemmShape(Stage.Gemm g) {
        return !Sizes.is(g.batch(), 1) || g.node().val() instanceof dev.ember.tensor.Tensor t && t.dim() == 3
                ? new SymInt[] {g.batch(), g.m(), g.n()} : new SymInt[] {g.m(), g.n()};
    }

    /**
     * Writes the first epilogue in place over the host's output when the epilogue is that output's
     * only reader: every element is read just before the same element is overwritten.
     */
    private String inPlaceNote(Kernel.Host h, Stage.Pointwise p) {
        Buffer hostOut = written(h.host());
        if (h.epilogue().isEmpty() && readers.getOrDefault(hostOut, 0) == 1 && reads(p).contains(hostOut) && !outputs.contains(hostOut)
                && hostOut.dtype() == p.out().dtype()) {
            p.out().aliasTo(hostOut);
            return " (in place)";
        }
        return "";
    }

    /**
     * Whether {@code st} can run inside loop kernel {@code k}: same rows, and every read of a buffer
     * the kernel writes stays in the current row (for pointwise-only kernels: the same element).
     */
    private boolean joinsLoop(Kernel.Loop k, Stage st, SymInt[] pointwiseShape) {
        int p = k.outer().length;
        if (!k.hasReduction() && !(st instanceof Stage.Reduction)) {
            Stage.Pointwise first = (Stage.Pointwise) k.stages().get(0);
            if (pointwiseShape == null || !Arrays.equals(first.shape(), pointwiseShape)) return false;
        }
        // A kernel without row dims runs on one thread: keep big pointwise work out of it (work
        // that depends on a symbol counts as big: it is, for some value in range).
        if (p == 0 && pointwiseShape != null && !Sizes.provablyAtLeast(SymInt.of(dev.ember.kernels.Parallel.GRAIN), Sizes.numel(pointwiseShape))) return false;
        SymInt[] inner;
        Expr body;
        if (st instanceof Stage.Reduction r) {
            if (!Arrays.equals(r.outer(), k.outer())) return false;
            inner = r.reduce();
            body = r.body();
        } else {
            Stage.Pointwise pw = (Stage.Pointwise) st;
            if (pw.shape().length < p || !Arrays.equals(Arrays.copyOf(pw.shape(), p), k.outer())) return false;
            inner = Arrays.copyOfRange(pw.shape(), p, pw.shape().length);
            body = pw.body();
        }
        Map<Buffer, Stage> inKernel = new HashMap<>();
        for (Stage s : k.stages()) inKernel.put(written(s), s);
        boolean pointwiseOnly = !k.hasReduction() && !(st instanceof Stage.Reduction);
        boolean[] ok = {true};
        Expr.forEachLoad(body, l -> {
            Stage prod = inKernel.get(l.buffer());
            if (prod != null && !rowLocal(l.index(), prod, p, inner, pointwiseOnly)) ok[0] = false;
        });
        return ok[0];
    }

    /**
     * Whether {@code load} reads within the current row of {@code prod}'s output, for every value of
     * the symbols: {@code 0 <= lo} and {@code hi < rowSize}, each provably.
     */
    static boolean rowLocal(Affine load, Stage prod, int p, SymInt[] inner, boolean sameElement) {
        if (prod instanceof Stage.Reduction r) return load.equals(Affine.contiguous(r.outer(), 0));
        SymInt[] shape = ((Stage.Pointwise) prod).shape();
        if (sameElement) return load.equals(Affine.contiguous(shape, 0));
        SymInt[] cs = Sizes.contiguousStrides(shape);
        for (int d = 0; d < p; d++) if (!load.coeff(d).equals(cs[d])) return false;
        SymInt rowSize = Sizes.numel(Arrays.copyOfRange(shape, p, shape.length));
        SymInt lo = load.constant(), hi = load.constant();
        for (var t : load.terms().entrySet()) {
            int v = t.getKey();
            if (v < p) continue;
            if (v - p >= inner.length) return false;
            if (!t.getValue().isConstant()) return false;   // its sign is not known
            SymInt span = Sizes.times(t.getValue(), Sizes.minus(inner[v - p], Sizes.ONE));
            if (t.getValue().constant() < 0) lo = Sizes.plus(lo, span); else hi = Sizes.plus(hi, span);
        }
        return Sizes.provablyAtLeast(lo, Sizes.ZERO) && Sizes.provablyAtLeast(Sizes.minus(rowSize, Sizes.ONE), hi);
    }

    /** Reduction results read only inside their own kernel need no memory: they stay in registers. */
    private void finish() {
        for (Kernel k : kernels) {
            if (!(k instanceof Kernel.Loop loop)) continue;
            for (Stage s : loop.stages()) {
                if (!(s instanceof Stage.Reduction r) || outputs.contains(r.out())) continue;
                int readsInside = 0;
                for (Stage t : loop.stages()) if (reads(t).contains(r.out())) readsInside++;
                if (readsInside == readers.getOrDefault(r.out(), 0)) loop.locals().add(r.out());
            }
        }
    }

    static String name(Stage s) { return s.node() == null ? "?" : s.node().name(); }
}
