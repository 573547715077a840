package dev.ember.optim;

import java.util.Arrays;

/** The numbers of one group's step, in the order its {@link ForeachUpdate} reads them: the group's, then each parameter's. */
final class StepNumbers {
    private double[] values = new double[16];
    private int size;

    StepNumbers add(double... vs) {
        if (size + vs.length > values.length) values = Arrays.copyOf(values, Math.max(2 * values.length, size + vs.length));
        System.arraycopy(vs, 0, values, size, vs.length);
        size += vs.length;
        return this;
    }

    /** A condition as a number: 1 for true, 0 for false (a branch on it in the update specializes the compiled code). */
    static double flag(boolean b) { return b ? 1 : 0; }

    double[] toArray() { return Arrays.copyOf(values, size); }
}
