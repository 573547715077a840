package dev.ember.debug;

import dev.ember.debug.minifier.ReproStage;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The repro switches, PyTorch's {@code repro_after} and {@code repro_level}: {@code EMBER_REPRO_AFTER}
 * ({@code dynamo} or {@code aot}) turns repros on; {@code EMBER_REPRO_LEVEL} says when one is
 * written: 1 a runnable repro.java when the backend fails to compile, 2 (the default) a minifier
 * launcher when it fails, 3 a launcher for every compiled graph, 4 a launcher when a compiled
 * graph's first call is less accurate than eager (or throws). A level without a stage means
 * {@code dynamo}. Launchers go to {@code EMBER_REPRO_DIR}, else to {@code minifier/} in the
 * {@code EMBER_COMPILE_DEBUG} run folder when that is on, else to {@code ./ember_minifier}. Each
 * variable has a system property that wins over it ({@code ember.repro.after}, {@code .level},
 * {@code .dir}); they are read at every compile, so a test or a long-lived process can change them.
 *
 * @param after null when repros are off
 */
record ReproSettings(ReproStage after, int level, Path dir) {
    static final String AFTER_ENV = "EMBER_REPRO_AFTER", LEVEL_ENV = "EMBER_REPRO_LEVEL", DIR_ENV = "EMBER_REPRO_DIR";

    boolean on() { return after != null; }

    /**
     * The settings now.
     *
     * @throws IllegalArgumentException naming the variable that holds a bad value
     */
    static ReproSettings current() {
        String after = read("ember.repro.after", AFTER_ENV), level = read("ember.repro.level", LEVEL_ENV);
        if (after == null && level == null) return new ReproSettings(null, 0, null);
        ReproStage stage = after == null ? ReproStage.DYNAMO : ReproStage.parse(after, AFTER_ENV);
        int l = level == null ? 2 : parseLevel(level);
        return new ReproSettings(l == 0 ? null : stage, l, directory());
    }

    private static int parseLevel(String text) {
        try {
            int l = Integer.parseInt(text.strip());
            if (l >= 0 && l <= 4) return l;
        } catch (NumberFormatException e) {
            // reported below, with the values that are allowed
        }
        throw new IllegalArgumentException(LEVEL_ENV + "=" + text + ": expected 1 (repro.java when the backend fails), 2 (a minifier"
                + " launcher when it fails), 3 (a launcher for every graph), 4 (a launcher when accuracy fails) or 0 (off)");
    }

    private static Path directory() {
        String dir = read("ember.repro.dir", DIR_ENV);
        if (dir == null) return CompileDebug.isEnabled() ? CompileDebug.runDirectory().resolve("minifier") : Path.of("ember_minifier");
        try {
            return Path.of(dir);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(DIR_ENV + "=" + dir + ": not a folder path (" + e.getReason() + "); name a writable folder for repros");
        }
    }

    private static String read(String property, String env) {
        String v = System.getProperty(property, System.getenv(env));
        return v == null || v.isBlank() ? null : v;
    }
}
