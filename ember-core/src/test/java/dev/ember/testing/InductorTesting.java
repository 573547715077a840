package dev.ember.testing;

import dev.ember.inductor.InductorBackend;

import java.io.IOException;
import java.nio.file.Files;

/** Test setup for classes that compile with the inductor backend. */
public final class InductorTesting {
    private InductorTesting() {}

    /**
     * Registers the inductor backend with its on-disk artifact cache in a fresh temporary folder,
     * so that no test reads another run's kernels (call it from a {@code @BeforeAll}).
     */
    public static void registerWithFreshCache() throws IOException {
        System.setProperty("ember.cache.dir", Files.createTempDirectory("ember-cache").toString());
        InductorBackend.register();
    }
}
