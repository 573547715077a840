package dev.ember.inductor;

import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The last word before code is written: replays the schedule against the memory plan and refuses
 * any kernel that writes over memory whose value is still to be read — the class of bug where a
 * fused epilogue or a reused arena slot silently hands a later kernel the wrong numbers. Fusion
 * (in-place epilogues) and the memory plan (slot reuse by liveness) each decide locally; this
 * checks their combined result in one place, so a wrong decision in either becomes a compile
 * error naming the nodes instead of a wrong answer.
 *
 * <p>Two values may share memory when the first is last read in an earlier kernel than the second
 * is written, or when the second is written in place by a pointwise stage that is the first's last
 * reader and reads it element for element. A graph output is read after every kernel.
 */
final class LiveOverwriteCheck {
    private LiveOverwriteCheck() {}

    /** Where a stage runs: kernel {@code k}, stage {@code j} within it. */
    private record At(int k, int j, Stage stage) {
        boolean before(At o) { return k < o.k || k == o.k && j < o.j; }
    }

    static void check(List<Kernel> kernels, MemoryPlan plan, Object output) {
        Map<Buffer, At> def = new LinkedHashMap<>(), lastRead = new HashMap<>(), inputLastRead = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (int k = 0; k < kernels.size(); k++) {
            List<Stage> stages = MemoryPlan.stages(kernels.get(k));
            for (int j = 0; j < stages.size(); j++) {
                Stage s = stages.get(j);
                At here = new At(k, j, s);
                for (Buffer b : Scheduler.reads(s)) {
                    if (b.kind() == Buffer.Kind.INPUT) inputLastRead.put(b, here);
                    // an extern kernel's result counts where the memory plan may place it (MemoryPlan.written)
                    if (b.kind() == Buffer.Kind.INPUT || b.kind() == Buffer.Kind.EXTERN && !def.containsKey(b)) continue;
                    At d = def.get(b);
                    if (d == null || !d.before(here)) {
                        problems.add(Scheduler.name(s) + " reads " + b + " before any kernel writes it");
                    }
                    lastRead.put(b, here);
                }
                Buffer w = MemoryPlan.written(s);
                if (w != null) def.put(w, here);
            }
        }
        Set<Buffer> outputs = new HashSet<>();
        collectOutputs(output, outputs);
        Map<Object, List<Buffer>> byLocation = new LinkedHashMap<>();
        for (Buffer b : def.keySet()) {
            int slot = plan.slot(b.storage());
            byLocation.computeIfAbsent(slot >= 0 ? (Object) ("slot " + slot) : b.storage(), x -> new ArrayList<>()).add(b);
        }
        for (List<Buffer> sharing : byLocation.values()) {
            for (int x = 0; x < sharing.size(); x++) {
                for (int y = x + 1; y < sharing.size(); y++) {
                    Buffer first = sharing.get(x), second = sharing.get(y);
                    if (def.get(second).before(def.get(first))) { Buffer t = first; first = second; second = t; }
                    String clash = clash(first, second, def, lastRead, outputs);
                    if (clash != null) problems.add(clash);
                }
            }
        }
        // a value stored in an input's own memory (InputWriteBack): the input's old value is gone once
        // it is written, so no later kernel may read it, nor the caller (as a graph output)
        for (var e : def.entrySet()) {
            Buffer b = e.getKey(), input = b.storage();
            if (b == input || input.kind() != Buffer.Kind.INPUT) continue;
            At written = e.getValue(), read = inputLastRead.get(input);
            String what = Scheduler.name(written.stage()) + " (" + b + ") is written over input " + input;
            if (outputs.contains(input)) problems.add(what + ", a graph output");
            if (read == null || read.k < written.k || read.k == written.k && read.before(written)) continue;
            if (read.equals(written) && inPlaceElementwise(written.stage(), input)) continue;
            problems.add(what + " while " + Scheduler.name(read.stage()) + " still reads it");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("inductor: the schedule would overwrite values still in use, so this graph is not compiled "
                    + "(a compiler bug; please report it with the graph):\n  " + String.join("\n  ", problems));
        }
    }

    private static String clash(Buffer first, Buffer second, Map<Buffer, At> def, Map<Buffer, At> lastRead, Set<Buffer> outputs) {
        At written = def.get(second), read = lastRead.get(first);
        String what = Scheduler.name(written.stage()) + " (" + second + ") is written over " + Scheduler.name(def.get(first).stage());
        if (outputs.contains(first)) return what + ", a graph output";
        if (read == null || read.k < written.k) return null;
        if (read.equals(written) && inPlaceElementwise(written.stage(), first)) return null;
        return what + " while " + Scheduler.name(read.stage()) + " still reads it";
    }

    /** A pointwise stage that reads {@code b} only at the element it writes. */
    private static boolean inPlaceElementwise(Stage s, Buffer b) {
        if (!(s instanceof Stage.Pointwise p)) return false;
        Affine same = Affine.contiguous(p.shape(), 0);
        boolean[] ok = {true};
        Expr.forEachLoad(p.body(), l -> { if (l.buffer() == b && !l.index().equals(same)) ok[0] = false; });
        return ok[0];
    }

    private static void collectOutputs(Object o, Set<Buffer> out) {
        if (o instanceof Value.Stored s) out.add(s.buffer());
        if (o instanceof List<?> l) for (Object x : l) collectOutputs(x, out);
    }
}
