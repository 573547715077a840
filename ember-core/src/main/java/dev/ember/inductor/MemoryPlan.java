package dev.ember.inductor;

import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.ops.ConvOps;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.DType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where each computed buffer lives. Graph outputs (and buffers handed to eager kernels, which might
 * keep a view of them, unless {@link #KEEP_NO_VIEW} says they do not) get fresh arrays; every other
 * intermediate, a convolution's output too ({@link #WRITE_INTO}), takes a slot of a per-thread arena
 * that is reused by liveness — a slot freed after a buffer's last reader is taken by the next buffer
 * of that dtype that fits — and kept across calls, so a warm call allocates only its outputs.
 *
 * <p>With {@code reuseOutputs} (mode {@code reduce-overhead}) the outputs too get arena slots, one
 * each, shared with nothing: a warm call allocates nothing, and its outputs are the arrays of the
 * previous call's (which {@link InductorGraph} marks overwritten).
 *
 * <p>A slot holding a buffer whose size depends on a size symbol {@link Slot#grows grows}: it starts
 * empty, and generated code replaces its array with a larger one when a call needs more, so the
 * slot serves every size in range. Which free slot a buffer takes is chosen by its size at the
 * symbols' hints (a choice of memory only, right for every size).
 */
public final class MemoryPlan {
    /**
     * One arena array of {@code size} elements; {@code output} when it holds a graph output
     * (reduce-overhead); {@code grows} when it holds a buffer of symbolic size (then {@code size} is 0).
     */
    public record Slot(DType dtype, int size, boolean output, boolean grows) {
        public Slot(DType dtype, int size, boolean output) { this(dtype, size, output, false); }
    }

    private final Map<Buffer, Integer> slotOf = new HashMap<>();
    private final List<Slot> slots = new ArrayList<>();

    public List<Slot> slots() { return slots; }

    /** The arena slot of {@code b}, or -1 when it gets a fresh array. */
    public int slot(Buffer b) { return slotOf.getOrDefault(b, -1); }

    /** @param hints each size symbol's hint, by id (empty for a static graph) */
    static MemoryPlan plan(List<Kernel> kernels, Object output, boolean reuseOutputs, long[] hints) {
        Set<Buffer> outputs = new HashSet<>();
        collectOutputs(output, outputs);
        Set<Buffer> fresh = new HashSet<>(outputs);
        Map<Buffer, Integer> first = new LinkedHashMap<>(), last = new HashMap<>();
        for (int i = 0; i < kernels.size(); i++) {
            for (Stage s : stages(kernels.get(i))) {
                if (s instanceof Stage.Extern e && !KEEP_NO_VIEW.contains(e.op())) fresh.addAll(Scheduler.reads(s));
                for (Buffer b : Scheduler.reads(s)) last.put(b.storage(), i);
                Buffer w = written(s);
                if (w != null) first.putIfAbsent(w.storage(), i);
            }
            if (kernels.get(i) instanceof Kernel.Loop loop) for (Buffer b : loop.locals()) fresh.add(b);
        }
        MemoryPlan plan = new MemoryPlan();
        List<int[]> busyUntil = new ArrayList<>();   // per slot: {last kernel using it}
        List<Long> hintSizes = new ArrayList<>();     // per slot: its size at the hints
        if (reuseOutputs) {
            Set<Buffer> handedOn = new HashSet<>(fresh);
            handedOn.removeAll(outputs);
            for (Buffer b : first.keySet()) {
                if (outputs.contains(b) && b.kind() == Buffer.Kind.COMPUTED && handedOn.stream().noneMatch(f -> f.storage() == b)) {
                    plan.slots.add(slotFor(b, true));
                    busyUntil.add(new int[] {Integer.MAX_VALUE});
                    hintSizes.add(b.size().eval(hints));
                    plan.slotOf.put(b, plan.slots.size() - 1);
                }
            }
        }
        for (var e : first.entrySet()) {
            Buffer b = e.getKey();
            int def = e.getValue();
            boolean planned = b.kind() == Buffer.Kind.COMPUTED || b.kind() == Buffer.Kind.EXTERN && b.size().isConstant();
            if (!planned || plan.slotOf.containsKey(b) || fresh.contains(b) || fresh.stream().anyMatch(f -> f.storage() == b)) continue;
            int end = last.getOrDefault(b, def);
            long size = b.size().eval(hints);
            int chosen = -1;
            for (int s = 0; s < plan.slots.size(); s++) {
                if (!plan.slots.get(s).output() && plan.slots.get(s).dtype() == b.dtype() && busyUntil.get(s)[0] < def
                        && (chosen < 0 || Math.abs(hintSizes.get(s) - size) < Math.abs(hintSizes.get(chosen) - size))) {
                    chosen = s;
                }
            }
            if (chosen < 0) {
                plan.slots.add(slotFor(b, false));
                busyUntil.add(new int[] {end});
                hintSizes.add(size);
                chosen = plan.slots.size() - 1;
            } else {
                Slot old = plan.slots.get(chosen);
                Slot joined = slotFor(b, false);
                plan.slots.set(chosen, old.grows() || joined.grows() ? new Slot(old.dtype(), 0, false, true)
                        : new Slot(old.dtype(), Math.max(old.size(), joined.size()), false));
                hintSizes.set(chosen, Math.max(hintSizes.get(chosen), size));
                busyUntil.get(chosen)[0] = end;
            }
            plan.slotOf.put(b, chosen);
        }
        return plan;
    }

    /** A slot for {@code b} alone: of its size, or growing when that depends on a symbol. */
    private static Slot slotFor(Buffer b, boolean output) {
        return b.size().isConstant() ? new Slot(b.dtype(), Math.toIntExact(b.size().constant()), output) : new Slot(b.dtype(), 0, output, true);
    }

    public static List<Stage> stages(Kernel k) {
        return switch (k) {
            case Kernel.Loop l -> l.stages();
            case Kernel.Host h -> {
                List<Stage> all = new ArrayList<>();
                all.add(h.host());
                all.addAll(h.epilogue());
                yield all;
            }
        };
    }

    /** What the stage writes into memory the plan may choose: for an extern kernel, only an output it can write into a given array ({@link #WRITE_INTO}). */
    static Buffer written(Stage s) {
        return switch (s) {
            case Stage.Pointwise p -> p.out();
            case Stage.Reduction r -> r.out();
            case Stage.Gemm g -> g.out();
            case Stage.Extern e -> WRITE_INTO.containsKey(e.op()) && e.outs().size() == 1 ? e.outs().get(0) : null;
        };
    }

    /**
     * Extern ops that return no view of their inputs and keep none (their results are fresh, and
     * autograd does not run inside a compiled graph): a buffer they read may live in the arena. Any
     * other eager kernel gets fresh arrays, since it might return or keep a view of them.
     */
    static final Set<OpOverload> KEEP_NO_VIEW = Set.of(ConvOps.CONVOLUTION, ConvOps.CONVOLUTION_BACKWARD);

    /**
     * Extern ops with an out= form that computes into a given array, by the functional op: their
     * result, when only later kernels of the graph read it, takes an arena slot like a generated
     * kernel's (a 6.4 MB convolution output zeroed by the JVM each call was 11% of a Conv-BN-ReLU
     * inference graph's samples, session 40).
     */
    public static final Map<OpOverload, OpOverload> WRITE_INTO = Map.of(ConvOps.CONVOLUTION, ConvOps.CONVOLUTION_OUT);

    private static void collectOutputs(Object o, Set<Buffer> out) {
        if (o instanceof Value.Stored s) out.add(s.buffer().storage());
        if (o instanceof List<?> l) for (Object x : l) collectOutputs(x, out);
    }
}
