package dev.ember.debug.fuzz;

import dev.ember.Ember;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CI's fixed budget of the differential fuzzer (docs/reliability.md): a fixed seed and count of
 * programs, every backend and mode, cold and from the cache; zero failures. Longer runs:
 * {@code ./ember fuzz --minutes M}. A failure here names its seed and repro.
 */
class DifferentialFuzzTest {
    static final long SEED = 20261125;
    static final int PROGRAMS = 320;

    @TempDir
    Path out;

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void compiledAgreesWithEagerOnTheCiBudget() {
        StringBuilder report = new StringBuilder();
        FuzzStats stats = Fuzzer.run(new Fuzzer.Settings(SEED, PROGRAMS, null, Config.ALL, out), new Fuzzer.Listener() {
            @Override
            public void progress(FuzzStats s, Duration elapsed) {}

            @Override
            public void failure(Failure f, Program minimized, Path repro) {
                report.append(f).append("\n  repro ").append(repro).append('\n').append(minimized.source(ReproWriter.className(minimized))).append('\n');
            }
        });
        assertEquals(PROGRAMS, stats.programs());
        assertEquals(List.of(), stats.failures(), report + stats.table());
    }
}
