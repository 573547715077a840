package dev.ember.dynamo.comptime;

import dev.ember.dynamo.Comptime;
import dev.ember.tensor.Tensor;

/** Compiled functions with a breakpoint, for the tests of the console (user code: outside Ember's packages, whose frames messages leave out). */
public final class ComptimePrograms {
    private ComptimePrograms() {}

    public static Tensor scaled(Tensor x, int n) {
        Tensor y = x.relu().mul(n);
        Comptime.breakpoint();
        return y.sum();
    }
}
