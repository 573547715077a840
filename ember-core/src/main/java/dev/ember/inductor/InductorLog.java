package dev.ember.inductor;

import dev.ember.logging.Log;

import java.util.function.Supplier;

/**
 * Where the inductor reports: the {@code output_code}, {@code schedule}, {@code fusion} and
 * {@code perf_hints} artifacts, and the {@code inductor} log (cache hits and misses), all switched
 * on through {@code EMBER_LOGS}.
 */
final class InductorLog {
    private InductorLog() {}

    static void log(String name, Supplier<String> text) {
        if (name.equals("inductor")) Log.of("inductor").info(text);
        else Log.artifact(name, text);
    }
}
