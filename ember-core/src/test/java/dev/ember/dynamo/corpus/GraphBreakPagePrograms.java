package dev.ember.dynamo.corpus;

import dev.ember.Cond;
import dev.ember.Ember;
import dev.ember.dynamo.Disable;
import dev.ember.tensor.Tensor;

import java.util.PriorityQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The example and fix programs of docs/graph-breaks/GBnnnn.md. GraphBreakPagesTest runs them and
 * checks that each page shows the body of its programs line for line (a line of the page may add a
 * comment after the code), so a page and what it claims cannot drift apart.
 */
final class GraphBreakPagePrograms {
    private GraphBreakPagePrograms() {}

    // ---------------------------------------------------------------- GB0001

    static Tensor gb0001Example(Tensor x) {
        double m = x.amax().item();
        return x.div(m);
    }

    static Tensor gb0001Fix(Tensor x) {
        Tensor m = x.amax();          // a 0-d tensor: stays in the graph
        return x.div(m);
    }

    /** A number read from a tensor as a loop bound: a break even with captureScalarOutputs. */
    static Tensor gb0001LoopBound(Tensor x) {
        long n = x.amax().longItem();
        Tensor y = x;
        for (int i = 0; i < n; i++) y = y.mul(0.5);
        return y;
    }

    // ---------------------------------------------------------------- GB0002

    static Tensor gb0002Example(Tensor x) {
        if (x.sum().gt(0).asBoolean()) return x.relu();
        return x.neg();
    }

    static Tensor gb0002Fix(Tensor x) {
        return Tensor.where(x.sum().gt(0), x.relu(), x.neg());
    }

    static Tensor firstIsThree(Tensor x) {
        assert x.select(0, 0).eq(3).asBoolean() : "First dim need to be 3";   // in the graph: no break
        return x.cos().add(x.sin());
    }

    static Tensor gb0002FixCond(Tensor x) {
        return Cond.cond(x.sum().gt(0), ops -> ops.get(0).relu(), ops -> ops.get(0).neg(), List.of(x));
    }

    // ---------------------------------------------------------------- GB0004 (the fix passes an ArrayList)

    static Tensor gb0004Example(Tensor x, List<Tensor> seen) {
        Tensor y = x.relu();
        seen.add(y);
        return y.mul(2);
    }

    // ---------------------------------------------------------------- GB0005

    static Tensor gb0005Example(Tensor x) {
        Tensor z = x.relu();
        System.out.println(List.of(z.size(0)));
        return z.mul(2);
    }

    static Tensor gb0005Fix(Tensor x) {
        Tensor z = x.relu();
        System.out.println("rows: " + z.size(0));
        return z.mul(2);
    }

    static Tensor gb0005Flush(Tensor x) {
        Tensor z = x.relu();
        System.out.flush();
        return z.mul(2);
    }

    // ---------------------------------------------------------------- GB0006

    static Tensor gb0006Example(Tensor x) {
        Tensor z = x.relu();
        String msg = "z = " + z;
        System.out.println(msg);
        return z.mul(2);
    }

    static Tensor gb0006Fix(Tensor x) {
        Tensor z = x.relu();
        System.out.println(z);
        return z.mul(2);
    }

    static Tensor gb0006FixShape(Tensor x) {
        Tensor z = x.relu();
        System.out.println("z: " + Arrays.toString(z.shape()));
        return z.mul(2);
    }

    // ---------------------------------------------------------------- GB0007

    static Tensor gb0007Example(Tensor x) {
        Tensor y = x.relu();
        return y.view(5, 5);
    }

    static Tensor gb0007Fix(Tensor x) {
        Tensor y = x.relu();
        return y.view(4, 3);
    }

    // ---------------------------------------------------------------- GB0009

    static final Object LOCK = new Object();

    static Tensor gb0009Example(Tensor x) {
        Tensor y = x.relu();
        synchronized (LOCK) {
            y = y.softmax(0);
        }
        return y.mul(2);
    }

    static Tensor gb0009Fix(Tensor x) {
        Tensor y = x.relu();
        y = y.softmax(0);
        return y.mul(2);
    }

    /** No op before the block: nothing is compiled, the whole method runs eagerly. */
    static Tensor gb0009LockFirst(Tensor x) {
        synchronized (LOCK) {
            x = x.softmax(0);
        }
        return x.mul(2);
    }

    static synchronized Tensor gb0009SynchronizedMethod(Tensor x) {
        return x.relu().mul(2);
    }

    static Tensor gb0009MultiArray(Tensor x) {
        Tensor y = x.relu();
        long[][] a = new long[2][2];
        return y.mul(a.length);
    }

    static Tensor gb0009MultiArrayFix(Tensor x) {
        Tensor y = x.relu();
        long[][] a = { new long[2], new long[2] };
        return y.mul(a.length);
    }

    // ---------------------------------------------------------------- GB0010

    static Tensor gb0010Example(Tensor x) {
        Tensor y = x.relu();
        long n = 0;
        for (long i = 0; i < 1_000_000; i++) n += i;
        return y.mul(n);
    }

    static Tensor gb0010Fix(Tensor x) {
        Tensor y = x.relu();
        long n = 999_999L * 1_000_000L / 2;
        return y.mul(n);
    }

    // ---------------------------------------------------------------- GB0011

    static Tensor down(Tensor x, int depth) { return depth == 0 ? x : down(x.mul(0.5), depth - 1); }

    static Tensor gb0011Example(Tensor x) {
        Tensor y = x.relu();
        return down(y, 40).add(1);
    }

    static Tensor gb0011Fix(Tensor x) {
        Tensor y = x.relu();
        for (int i = 0; i < 40; i++) y = y.mul(0.5);
        return y.add(1);
    }

    // ---------------------------------------------------------------- GB0013

    static Tensor gb0013Example(Tensor x) {
        Tensor y = x.relu();
        PriorityQueue<Integer> sizes = new PriorityQueue<>();
        for (int d : y.shape()) sizes.add(d);
        return y.mul(sizes.peek());
    }

    static Tensor gb0013Fix(Tensor x) {
        Tensor y = x.relu();
        List<Integer> sizes = new ArrayList<>();
        for (int d : y.shape()) sizes.add(d);
        Collections.sort(sizes);
        return y.mul(sizes.getFirst());
    }

    // ---------------------------------------------------------------- GB0014 (no program reaches it: only the fix runs)

    static Tensor gb0014Fix(Tensor y, String mode) {
        return switch (mode) {
            case "relu" -> y.relu();
            default -> y.neg();
        };
    }

    // ---------------------------------------------------------------- GB0015

    record Shape(int rows, int cols) {}

    static final Shape SMALL = new Shape(3, 4);

    static Tensor gb0015Example(Tensor x) {
        Tensor y = x.relu();
        Shape s = new Shape(x.size(0), x.size(1));
        if (s.equals(SMALL)) return y.mul(2);
        return y;
    }

    static Tensor gb0015Fix(Tensor x) {
        Tensor y = x.relu();
        Shape s = new Shape(x.size(0), x.size(1));
        if (s.rows() == SMALL.rows() && s.cols() == SMALL.cols()) return y.mul(2);
        return y;
    }

    static final class Box {
        final Tensor t;
        Box(Tensor t) { this.t = t; }
    }

    static Tensor gb0015ConstructorRef(Tensor x) {
        Tensor y = x.relu();
        java.util.function.Function<Tensor, Box> mk = Box::new;      // a constructor reference: traced
        return mk.apply(y).t.mul(2);
    }

    static Tensor gb0015ConstructorLambda(Tensor x) {
        Tensor y = x.relu();
        java.util.function.Function<Tensor, Box> mk = t -> new Box(t);
        return mk.apply(y).t.mul(2);
    }

    // ---------------------------------------------------------------- GB0016

    static Tensor gb0016Example(Tensor x) {
        Tensor a = x.matmul(x.t());
        Ember.graphBreak();
        return a.softmax(1);
    }

    static Tensor gb0016Fix(Tensor x) {
        Tensor a = x.matmul(x.t());
        return a.softmax(1);
    }

    // ---------------------------------------------------------------- GB0018

    static Tensor gb0018Example(Tensor x) {
        Tensor y;
        try (var off = Ember.noGrad()) {
            y = x.relu();
        }
        if (y.requiresGrad()) return y.mul(2);     // GB0018: grad mode changed in the trace
        return y;
    }

    static Tensor gb0018Fix(Tensor x) {
        Tensor y;
        try (var off = Ember.noGrad()) {
            y = x.relu();
        }
        return y;                                   // made under noGrad: it never requires grad
    }

    static Tensor gb0018Version(Tensor x) {
        Tensor y = x.relu();
        int v = x.version();
        return y.mul(2);
    }

    // ---------------------------------------------------------------- GB0019

    static Tensor gb0019Example(Tensor x, Tensor w) {
        Tensor y = x.relu();
        return Cond.cond(y.sum().gt(0), ops -> ops.get(0).mul(w), ops -> ops.get(0).neg(), List.of(y));
    }

    static Tensor gb0019Fix(Tensor x, Tensor w) {
        Tensor y = x.relu();
        return Cond.cond(y.sum().gt(0), ops -> ops.get(0).mul(ops.get(1)), ops -> ops.get(0).neg(), List.of(y, w));
    }

    // ---------------------------------------------------------------- GB0020

    @Disable
    static Tensor helper(Tensor x) { return x.mul(2); }

    static Tensor helperTraced(Tensor x) { return x.mul(2); }

    static Tensor gb0020Example(Tensor x) {
        Tensor y = x.relu();
        return helper(y).add(1);
    }

    static Tensor gb0020Fix(Tensor x) {
        Tensor y = x.relu();
        return helperTraced(y).add(1);
    }

    // ---------------------------------------------------------------- GB0021

    static Tensor gb0021Example(Tensor x) {
        Tensor y = x.relu();
        return y.maskedSelect(y.gt(0.5)).sum();   // GB0021: masked_select runs eagerly
    }

    static Tensor gb0021Fix(Tensor x) {
        Tensor y = x.relu();
        return Tensor.where(y.gt(0.5), y, 0.0).sum();   // 1 graph: the same sum
    }
}
