package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;

/** Run in a child JVM by {@link DebugEnvironmentTest}: compiles and runs one program, so the EMBER_ variables are read for real. */
public final class DebugEnvironmentProbe {
    public static void main(String[] args) {
        try {
            var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
            f.apply(Tensor.randn(3, 4), Tensor.randn(4));
            System.out.println("probe done");
        } catch (IllegalArgumentException e) {
            System.out.println("error: " + e.getMessage());
            System.exit(3);
        }
    }
}
