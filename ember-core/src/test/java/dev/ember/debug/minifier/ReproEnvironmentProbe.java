package dev.ember.debug.minifier;

import dev.ember.BackendCompilerFailed;
import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.Backends;
import dev.ember.tensor.Tensor;

/** Run in a child JVM by {@link ReproEnvironmentTest}: compiles with a backend that cannot compile exp, so the EMBER_ variables are read for real. */
public final class ReproEnvironmentProbe {
    public static void main(String[] args) {
        Backends.register("no_exp", new SeededBugBackend(SeededBug.CRASH_COMPILING));
        try {
            Tensor out = Ember.compile(ReproLevelsTest::fn, Options.backend("no_exp")).apply(Tensor.randn(3, 4), Tensor.randn(3, 4));
            System.out.println("ran: " + out.describe());
        } catch (BackendCompilerFailed e) {
            System.out.println("failed; repro: " + e.repro());
            System.exit(1);
        } catch (IllegalArgumentException e) {
            System.out.println("error: " + e.getMessage());
            System.exit(3);
        }
    }
}
