package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;

/** Programs that break inside loops, and with an object under construction on the operand stack. */
final class LoopBreakPrograms {
    private LoopBreakPrograms() {}

    static Tensor breakInCountedLoop(Tensor x, int n) {
        Tensor y = x;
        for (int i = 0; i < n; i++) {
            y = y.mul(0.5).add(1.0);
            Ember.graphBreak();
        }
        return y.relu();
    }

    static Tensor breakInNestedLoops(Tensor x, int n) {
        Tensor y = x;
        for (int i = 0; i < n; i++) {
            Tensor dead = y.neg();
            for (int j = 0; j < 2; j++) {
                y = y.mul(0.5).add(dead.mul(0.0));
                Ember.graphBreak();
                for (int k = 0; k < 2; k++) {
                    y = y.add(1.0);
                    Ember.graphBreak();
                }
            }
        }
        return y.relu();
    }

    static Tensor throwsWithItemInMessage(Tensor x) {
        Tensor y = x.add(1.0);
        if (y.dim() > 1) throw new AssertionError("bad " + y.sum().item());
        return y;
    }

    /** A value class built from a number the graph computes. */
    record Scale(double value) {}

    static Tensor constructsWithItem(Tensor x) {
        Tensor y = x.mul(2.0);
        Scale s = new Scale(y.sum().item());
        return y.mul(s.value()).relu();
    }

    static String buildsStringWithItem(Tensor x) {
        Tensor y = x.mul(2.0);
        return new StringBuilder().append("sum=").append(y.sum().item()).toString();
    }

    static java.util.List<Scale> constructsInLoop(Tensor x, int n) {
        java.util.List<Scale> out = new java.util.ArrayList<>();
        Tensor y = x;
        for (int i = 0; i < n; i++) {
            y = y.mul(0.5);
            out.add(new Scale(y.sum().item()));
        }
        return out;
    }

    record Checked(double value) {
        Checked {
            if (value < 0) throw new IllegalArgumentException("negative: " + value);
        }
    }

    record Pair(Scale scale, int index) {}

    /** The constructor after the break throws for some iterations: the handler around it catches, as eager's does. */
    static java.util.List<Object> constructsUnderATry(Tensor x, int n) {
        java.util.List<Object> out = new java.util.ArrayList<>();
        Tensor y = x;
        for (int i = 0; i < n; i++) {
            y = y.mul(-0.5);
            try {
                out.add(new Checked(y.sum().item()));
            } catch (IllegalArgumentException e) {
                out.add(e.getMessage());
            }
        }
        return out;
    }

    /** Two objects under construction at the break, one inside the other's arguments. */
    static java.util.List<Pair> constructsNestedInLoop(Tensor x, int n) {
        java.util.List<Pair> out = new java.util.ArrayList<>();
        Tensor y = x;
        for (int i = 0; i < n; i++) {
            y = y.add(1.0);
            out.add(new Pair(new Scale(y.sum().item()), i * 2));
        }
        return out;
    }

    static Tensor usesCounterInGraph(Tensor x, int n) {
        Tensor y = x;
        for (int i = 0; i < n; i++) {
            y = y.add((double) i);
            Ember.graphBreak();
        }
        return y;
    }

    static Tensor branchesOnIntInput(Tensor x, int n) {
        return n > 3 ? x.mul(2.0) : x.add(1.0);
    }

    static Tensor stridedLoop(Tensor x, int from, int to) {
        Tensor y = x;
        for (int i = from; i < to; i += 2) {
            y = y.add(1.0);
            Ember.graphBreak();
        }
        return y.mul(2.0);
    }

    static Tensor countdown(Tensor x, int n) {
        Tensor y = x;
        for (int i = n; i > 0; i--) {
            y = y.mul(0.5);
            Ember.graphBreak();
        }
        return y;
    }

    static Tensor comparesTwoInts(Tensor x, int a, int b) {
        if (a + 3 <= b - 1) return x.mul(2.0);
        if (a > 10) return x.neg();
        return x.add(a - b);
    }
}
