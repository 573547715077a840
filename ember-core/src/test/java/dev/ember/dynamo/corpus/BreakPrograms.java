package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Programs with graph breaks, built from ops that exist today: the code before each break and
 * the code after it are captured in graphs of their own.
 */
final class BreakPrograms {
    private BreakPrograms() {}

    /** The seed's example; needs the pointwise ops (add, relu, mul). */
    static Tensor printsBetween(Tensor x, Tensor y, double scale) {
        Tensor z = x.add(y);
        System.out.println("z has shape " + java.util.Arrays.toString(z.shape()));
        return z.relu().mul(scale);
    }

    static Tensor printsShape(Tensor x, Tensor w) {
        Tensor z = x.matmul(w);
        System.out.println("z has shape " + java.util.Arrays.toString(z.shape()));
        return z.t().softmax(0);
    }

    static Tensor explicitBetween(Tensor x) {
        Tensor a = x.matmul(x.t());
        Ember.graphBreak();
        return a.softmax(1).sum(0, false);
    }

    static Tensor twoBreaks(Tensor x) {
        Tensor a = x.t().softmax(0);
        Ember.graphBreak();
        Tensor b = a.matmul(x);
        Ember.graphBreak();
        return b.sum(1, true);
    }

    static Tensor itemDecides(Tensor x) {
        double m = x.amax().item();
        return m > 0 ? x.t().softmax(0) : x.softmax(1);
    }

    static Tensor itemThenMore(Tensor x) {
        Tensor s = x.sum(0, false);
        double first = s.select(0, 0).item();
        return first > 0 ? s.unsqueeze(0).matmul(x.t()) : s.unsqueeze(1);
    }

    static Tensor asBooleanBranch(Tensor x) {
        Tensor m = x.amax();
        if (m.asBoolean()) return x.t().softmax(1);
        return x.softmax(0);
    }

    static Tensor longItemIndex(Tensor x) {
        long i = x.sum(1, false).argmax().longItem();
        return x.select(0, (int) i).unsqueeze(0).matmul(x.t());
    }

    static Tensor toArrayLength(Tensor x) {
        float[] a = x.sum(0, false).toFloatArray();
        return x.narrow(1, 0, a.length > 2 ? 2 : 1).t().softmax(0);
    }

    static Tensor getElement(Tensor x) {
        double v = x.get(0, 0);
        return v > 0 ? x.t() : x.transpose(0, 1).contiguous();
    }

    static Tensor appendsToWriter(Tensor x, StringWriter out) {
        Tensor a = x.t().softmax(0);
        out.append("rows=").append(String.valueOf(a.size(0)));
        return a.matmul(x);
    }

    static Tensor readsClockBetween(Tensor x) {
        Tensor a = x.matmul(x.t());
        String v = System.getProperty("java.version");
        return v != null ? a.softmax(0) : a;
    }

    static final Object LOCK = new Object();

    static Tensor synchronizedBlock(Tensor x) {
        Tensor a = x.matmul(x.t());
        synchronized (LOCK) {
            a = a.softmax(0);
        }
        return a.sum(0, false);
    }

    static Tensor throwsAfterGraph(Tensor x) {
        Tensor a = x.matmul(x.t());
        if (a.dim() == 2) throw new IllegalStateException("rank " + a.dim());
        return a;
    }

    static Tensor stringOfTensor(Tensor x) {
        Tensor a = x.t().softmax(0);
        String s = "a=" + a;
        return s.isEmpty() ? a : a.matmul(x);
    }

    static Tensor helperPrints(Tensor x) {
        Tensor a = x.matmul(x.t());
        Tensor b = noisy(a);
        return b.sum(0, true);
    }

    private static Tensor noisy(Tensor a) {
        System.out.println("noisy " + a.dim());
        return a.softmax(1);
    }

    static Tensor breakWithOperandOnStack(Tensor x) {
        return x.matmul(noisy(x.t()));
    }

    static Tensor breakInLoop(Tensor x) {
        Tensor y = x;
        for (int i = 0; i < 3; i++) {
            y = y.t().softmax(0);
            System.out.println("step " + i);
        }
        return y.sum(0, false);
    }

    static Tensor wideLocals(Tensor x, double scale, long n) {
        double s = scale * 2;
        long m = n + 1;
        Tensor a = x.t();
        Ember.graphBreak();
        return s > 1 && m > 2 ? a.softmax(0).sum((int) (m - n - 1), false) : a;
    }

    static Tensor nullLocal(Tensor x) {
        Tensor none = null;
        Tensor a = x.t();
        Ember.graphBreak();
        return none == null ? a.softmax(0) : none;
    }

    static Tensor privateAfterBreak(Tensor x) {
        Tensor a = x.t();
        Ember.graphBreak();
        return secret(a);
    }

    private static Tensor secret(Tensor a) { return a.softmax(0).sum(1, true); }

    static Tensor lambdaAfterBreak(Tensor x) {
        Tensor a = x.matmul(x.t());
        Ember.graphBreak();
        UnaryOperator<Tensor> f = t -> t.softmax(1);
        return f.apply(a).sum(0, false);
    }

    static Tensor tryCatchAround(Tensor x) {
        Tensor a = x.t();
        try {
            Ember.graphBreak();
            a = a.softmax(0);
        } catch (IllegalStateException e) {
            a = x;
        }
        return a.sum(0, false);
    }

    static Tensor switchAfterBreak(Tensor x, int mode) {
        Tensor a = x.t();
        Ember.graphBreak();
        switch (mode) {
            case 0: return a.softmax(0);
            case 1: return a.sum(0, false);
            default: return a.matmul(x);
        }
    }

    static Tensor inplaceOnInputThenBreak(Tensor x, Tensor y) {
        x.copy_(y.t());
        System.out.println("copied");
        return x.softmax(0);
    }

    static Tensor dtypeAcrossBreak(Tensor x) {
        Tensor d = x.to(DType.FLOAT64);
        Ember.graphBreak();
        return d.sum(0, false).to(DType.FLOAT32);
    }

    static List<Tensor> listAcrossBreak(Tensor x) {
        List<Tensor> out = new ArrayList<>();
        out.add(x.t());
        Ember.graphBreak();
        out.add(x.softmax(0));
        return out;
    }

    static Tensor mapAcrossBreak(Tensor x) {
        Map<String, Tensor> m = Map.of("a", x.t());
        Ember.graphBreak();
        return m.get("a").softmax(0);
    }

    static Tensor arrayAcrossBreak(Tensor x) {
        Tensor[] parts = {x.narrow(0, 0, 1), x.narrow(0, 1, 1)};
        Ember.graphBreak();
        return Tensor.cat(List.of(parts[1], parts[0]), 0);
    }

    static Tensor catAfterPrint(Tensor x, Tensor y) {
        Tensor c = Tensor.cat(List.of(x, y), 0);
        System.out.println("cat " + c.size(0));
        return c.t().matmul(c);
    }

    static Tensor meanStdBreak(Tensor x) {
        Tensor m = x.mean(0, true);
        double spread = x.std().item();
        return spread > 0 ? x.matmul(m.t()) : m;
    }

    static Tensor printOnlyAtEnd(Tensor x) {
        Tensor a = x.t().softmax(0);
        System.out.println("done");
        return a;
    }

    static Tensor printOnlyAtStart(Tensor x) {
        System.out.println("start");
        return x.t().softmax(0);
    }

    static Tensor breakInHelperTwice(Tensor x) {
        return noisy(noisy(x.matmul(x.t())));
    }

    static double returnsItem(Tensor x) {
        Tensor a = x.t().matmul(x);
        return a.sum().item();
    }

    static int returnsIntAfterBreak(Tensor x) {
        Tensor a = x.t();
        Ember.graphBreak();
        return a.size(0) * 10;
    }

    static Tensor viewAfterBreak(Tensor x) {
        Tensor f = x.flatten();
        Ember.graphBreak();
        return f.view(x.size(1), x.size(0)).softmax(0);
    }

    static Tensor reshapeBeforeItem(Tensor x) {
        Tensor r = x.reshape(-1);
        double v = r.amax().item() - r.amin().item();
        return v >= 0 ? r.unsqueeze(0) : r;
    }

    static Tensor argmaxBranches(Tensor x) {
        long i = x.argmax().longItem();
        if (i % 2 == 0) return x.t();
        return x.softmax(1);
    }

    static Tensor stackAfterBreak(Tensor x) {
        Tensor a = x.t();
        Ember.graphBreak();
        return Tensor.stack(List.of(a, a), 0).sum(0, false);
    }

    static Tensor logSoftmaxAcross(Tensor x) {
        Tensor l = x.logSoftmax(1);
        System.out.println("log-softmax rows: " + l.size(0));
        return l.amax(1, false);
    }

    static Tensor varThenBranch(Tensor x) {
        double v = x.var().item();
        Tensor out = x;
        if (v > 0) out = out.t();
        if (v > -1) out = out.softmax(0);
        return out;
    }

    static Tensor unknownLibraryCall(Tensor x) {
        Tensor a = x.t();
        int h = Integer.getInteger("ember.test.unset", a.size(0));
        return h != 0 ? a.softmax(0) : a;
    }

    @dev.ember.dynamo.Disable
    static Tensor disabledHelper(Tensor a) { return a.softmax(0); }

    static Tensor callsDisabled(Tensor x) {
        Tensor a = x.matmul(x.t());
        return disabledHelper(a).sum(0, false);
    }

    static Tensor helperDisabledAtRunTime(Tensor a) { return a.softmax(1); }

    static Tensor callsDisabledAtRunTime(Tensor x) {
        return helperDisabledAtRunTime(x.t()).sum(0, false);
    }

    /** A user object whose state the program changes before and after a break. */
    static final class Recorder {
        final List<String> events = new ArrayList<>();
        final StringWriter sink = new StringWriter();
        int count;
        Tensor last;
        final double[] scales = new double[2];
    }

    static Tensor mutatesAroundBreak(Tensor x, Recorder r) {
        r.events.add("before");
        r.count++;
        r.scales[0] = 1.5;
        r.last = x.t();
        r.sink.append("break ").append(String.valueOf(r.count));
        r.events.add("after");
        r.count += 10;
        r.scales[1] = 2.5;
        return r.last.softmax(0);
    }

    /** An instance method: {@code this} and private fields stay live across the break. */
    static final class Model {
        private final Tensor weight;
        private int calls;

        Model(Tensor weight) { this.weight = weight; }

        Tensor forward(Tensor x) {
            Tensor h = x.matmul(weight);
            calls++;
            System.out.println("forward call " + calls);
            return h.softmax(1).matmul(weight.t());
        }

        int calls() { return calls; }
    }
}
