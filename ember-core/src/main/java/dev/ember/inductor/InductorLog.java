package dev.ember.inductor;

import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.logging.Log;

import java.util.function.Supplier;

/**
 * Where the inductor reports: the {@code schedule}, {@code fusion} and {@code perf_hints} artifacts,
 * and the {@code inductor} log (warnings about the cache), all switched on through {@code EMBER_LOGS}.
 * Its generated code and its cache hits and misses are compile events ({@code GraphCompiled},
 * {@code CacheHit}, {@code CacheMiss}), which the logs print with the rest.
 */
final class InductorLog {
    private InductorLog() {}

    static void log(String name, Supplier<String> text) {
        if (name.equals("inductor")) Log.of("inductor").info(text);
        else Log.artifact(name, text);
    }

    /** Shown with the default settings: something the user should know went wrong, and what Ember did about it. */
    static void warning(Supplier<String> text) { Log.of("inductor").warning(text); }

    /** What the artifact cache reports, at the level it chose. */
    static void cache(ArtifactCache.Problem p) { Log.of("inductor").log(p.level(), p::message); }
}
