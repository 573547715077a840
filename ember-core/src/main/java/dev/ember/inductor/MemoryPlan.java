package dev.ember.inductor;

import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
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
 * keep a view of them) get fresh arrays; every other intermediate takes a slot of a per-thread arena
 * that is reused by liveness — a slot freed after a buffer's last reader is taken by the next buffer
 * of that dtype that fits — and kept across calls, so a warm call allocates only its outputs.
 *
 * <p>With {@code reuseOutputs} (mode {@code reduce-overhead}) the outputs too get arena slots, one
 * each, shared with nothing: a warm call allocates nothing, and its outputs are the arrays of the
 * previous call's (which {@link InductorGraph} marks overwritten).
 */
public final class MemoryPlan {
    /** One arena array; {@code output} when it holds a graph output (reduce-overhead). */
    public record Slot(DType dtype, int size, boolean output) {}

    private final Map<Buffer, Integer> slotOf = new HashMap<>();
    private final List<Slot> slots = new ArrayList<>();

    public List<Slot> slots() { return slots; }

    /** The arena slot of {@code b}, or -1 when it gets a fresh array. */
    public int slot(Buffer b) { return slotOf.getOrDefault(b, -1); }

    static MemoryPlan plan(List<Kernel> kernels, Object output, boolean reuseOutputs) {
        Set<Buffer> outputs = new HashSet<>();
        collectOutputs(output, outputs);
        Set<Buffer> fresh = new HashSet<>(outputs);
        Map<Buffer, Integer> first = new LinkedHashMap<>(), last = new HashMap<>();
        for (int i = 0; i < kernels.size(); i++) {
            for (Stage s : stages(kernels.get(i))) {
                if (s instanceof Stage.Extern) fresh.addAll(Scheduler.reads(s));
                for (Buffer b : Scheduler.reads(s)) last.put(b.storage(), i);
                Buffer w = written(s);
                if (w != null) first.putIfAbsent(w.storage(), i);
            }
            if (kernels.get(i) instanceof Kernel.Loop loop) for (Buffer b : loop.locals()) fresh.add(b);
        }
        MemoryPlan plan = new MemoryPlan();
        List<int[]> busyUntil = new ArrayList<>();   // per slot: {last kernel using it}
        if (reuseOutputs) {
            Set<Buffer> handedOn = new HashSet<>(fresh);
            handedOn.removeAll(outputs);
            for (Buffer b : first.keySet()) {
                if (outputs.contains(b) && b.kind() == Buffer.Kind.COMPUTED && handedOn.stream().noneMatch(f -> f.storage() == b)) {
                    plan.slots.add(new Slot(b.dtype(), b.size(), true));
                    busyUntil.add(new int[] {Integer.MAX_VALUE});
                    plan.slotOf.put(b, plan.slots.size() - 1);
                }
            }
        }
        for (var e : first.entrySet()) {
            Buffer b = e.getKey();
            int def = e.getValue();
            if (b.kind() != Buffer.Kind.COMPUTED || plan.slotOf.containsKey(b) || fresh.contains(b) || fresh.stream().anyMatch(f -> f.storage() == b)) continue;
            int end = last.getOrDefault(b, def);
            int chosen = -1;
            for (int s = 0; s < plan.slots.size(); s++) {
                if (!plan.slots.get(s).output() && plan.slots.get(s).dtype() == b.dtype() && busyUntil.get(s)[0] < def
                        && (chosen < 0 || Math.abs(plan.slots.get(s).size() - b.size()) < Math.abs(plan.slots.get(chosen).size() - b.size()))) {
                    chosen = s;
                }
            }
            if (chosen < 0) {
                plan.slots.add(new Slot(b.dtype(), b.size(), false));
                busyUntil.add(new int[] {end});
                chosen = plan.slots.size() - 1;
            } else {
                Slot old = plan.slots.get(chosen);
                plan.slots.set(chosen, new Slot(old.dtype(), Math.max(old.size(), b.size()), false));
                busyUntil.get(chosen)[0] = end;
            }
            plan.slotOf.put(b, chosen);
        }
        return plan;
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

    static Buffer written(Stage s) {
        return switch (s) {
            case Stage.Pointwise p -> p.out();
            case Stage.Reduction r -> r.out();
            case Stage.Gemm g -> g.out();
            case Stage.Extern e -> null;
        };
    }

    private static void collectOutputs(Object o, Set<Buffer> out) {
        if (o instanceof Value.Stored s) out.add(s.buffer().storage());
        if (o instanceof List<?> l) for (Object x : l) collectOutputs(x, out);
    }
}
