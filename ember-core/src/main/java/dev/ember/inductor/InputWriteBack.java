package dev.ember.inductor;

import dev.ember.aot.Functionalize;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.tensor.SymInt;

import java.util.ArrayList;
import java.util.List;

/**
 * Stores the final value of an input the graph changes in place (an optimizer's parameters and
 * moments, a BatchNorm's running statistics) in the input's own memory, as PyTorch's inductor
 * lowers AOTAutograd's copy-back into an in-place store. Capture hands the backend a functional
 * graph that returns each such value as an extra output for the caller to copy in
 * ({@link Functionalize#WRITTEN_BACK_FROM_OUTPUT}); computed into a fresh array and copied, each
 * step of a compiled optimizer allocates, zeroes and copies three parameter-sized arrays per
 * parameter where eager writes in place.
 *
 * <p>The output's buffer is made an alias of the input's when that is invisible: it is written by a
 * pointwise stage that reads the input element for element (index for index the same layout, so the
 * value lands where the input's elements are), the input is not read by any stage after it nor by
 * an eager kernel (which might keep a view), it is not itself a graph output, and the types agree.
 * The compiled graph then returns the input's own memory as that output, and the caller only counts
 * the write. {@link LiveOverwriteCheck} checks the result with the rest of the schedule.
 */
final class InputWriteBack {
    private InputWriteBack() {}

    /** Aliases each eligible output buffer to its input; returns one line per decision, for the {@code fusion} log. */
    static List<String> apply(GraphModule gm, List<Kernel> kernels, Object output) {
        List<String> decisions = new ArrayList<>();
        if (!(output instanceof List<?> outs)) return decisions;
        List<Node> placeholders = gm.graph().placeholders();
        List<Stage> order = new ArrayList<>();
        List<Integer> kernelOf = new ArrayList<>();
        for (int k = 0; k < kernels.size(); k++) {
            for (Stage st : MemoryPlan.stages(kernels.get(k))) {
                order.add(st);
                kernelOf.add(k);
            }
        }
        for (int i = 0; i < placeholders.size(); i++) {
            if (!(placeholders.get(i).meta().get(Functionalize.WRITTEN_BACK_FROM_OUTPUT) instanceof Integer j) || j >= outs.size()) continue;
            if (!(outs.get(j) instanceof Value.Stored finalValue)) continue;
            String why = refusal(i, finalValue.buffer(), kernels, order, kernelOf, outs);
            String input = "input " + i + " (" + placeholders.get(i).name() + ")";
            if (why == null) {
                decisions.add("store the final value of " + input + " in place: " + Scheduler.name(producer(finalValue.buffer(), order))
                        + " writes it into the input's memory, nothing to copy back");
            } else {
                decisions.add("copy the final value of " + input + " back after the graph: " + why);
            }
        }
        return decisions;
    }

    /** Why output buffer {@code b} cannot be stored into input {@code input}'s memory, or null after aliasing it. */
    private static String refusal(int input, Buffer b, List<Kernel> kernels, List<Stage> order, List<Integer> kernelOf, List<?> outs) {
        if (b.kind() != Buffer.Kind.COMPUTED || b.storage() != b) return "its value is not a kernel's own result";
        Stage writer = producer(b, order);
        if (!(writer instanceof Stage.Pointwise p)) return "it is not computed by a pointwise kernel";
        Buffer in = null;
        boolean[] elementwise = {true};
        for (Buffer r : Scheduler.reads(p)) if (r.kind() == Buffer.Kind.INPUT && r.inputIndex() == input) in = r;
        if (in == null) return Scheduler.name(p) + " does not read the input";
        Buffer inBuffer = in;
        Affine same = Affine.contiguous(p.shape(), 0);
        Expr.forEachLoad(p.body(), l -> { if (l.buffer() == inBuffer && !l.index().equals(same)) elementwise[0] = false; });
        if (!elementwise[0]) return Scheduler.name(p) + " reads the input at other elements than it writes, or in another layout";
        if (in.dtype() != b.dtype()) return "the value's dtype differs from the input's";
        int at = order.indexOf(p);
        for (int s = 0; s < order.size(); s++) {
            Stage st = order.get(s);
            if (!Scheduler.reads(st).contains(in)) continue;
            if (st instanceof Stage.Extern) return Scheduler.name(st) + " hands the input to an eager kernel";
            if (s > at) return Scheduler.name(st) + " reads the input after " + Scheduler.name(p) + " writes it";
            // in p's own kernel every stage runs a whole row before the next stage starts it: an
            // earlier stage may read the input anywhere in the current row, which p has not written yet
            if (s < at && kernelOf.get(s).equals(kernelOf.get(at)) && !readsWithinTheRow(st, p, inBuffer, kernels.get(kernelOf.get(at)))) {
                return Scheduler.name(st) + " reads the input in the same kernel outside the row being written";
            }
        }
        for (Object o : outs) {
            if (o instanceof Value.Stored v && v.buffer().storage() == in) return "the graph returns the input itself too";
        }
        b.aliasTo(in);
        return null;
    }

    /** Whether {@code st}, in loop kernel {@code k} before {@code p}, reads {@code in} (laid out as {@code p} writes it) only in the current row. */
    private static boolean readsWithinTheRow(Stage st, Stage.Pointwise p, Buffer in, Kernel k) {
        if (!(k instanceof Kernel.Loop loop)) return false;   // a GEMM or eager host runs in blocks of its own
        int rows = loop.outer().length;
        SymInt[] inner;
        Expr body;
        switch (st) {
            case Stage.Pointwise q -> { inner = java.util.Arrays.copyOfRange(q.shape(), rows, q.shape().length); body = q.body(); }
            case Stage.Reduction r -> { inner = r.reduce(); body = r.body(); }
            default -> { return false; }
        }
        boolean[] ok = {true};
        Expr.forEachLoad(body, l -> { if (l.buffer() == in && !Scheduler.rowLocal(l.index(), p, rows, inner, false)) ok[0] = false; });
        return ok[0];
    }

    private static Stage producer(Buffer b, List<Stage> order) {
        for (Stage s : order) if (MemoryPlan.written(s) == b) return s;
        return null;
    }
}
