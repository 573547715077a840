package dev.ember.debug;

import java.nio.file.Path;

/**
 * At {@code EMBER_REPRO_LEVEL=4}, a compiled graph whose outputs on its first call were not as
 * accurate as eager's ({@link Accuracy}'s float64-referenced rule): the message names the graph,
 * its source lines, the worst output and how far off it is, and the launcher written for it.
 * Thrown instead of returning the wrong values.
 */
public final class AccuracyError extends RuntimeException {
    private final Path launcher;

    AccuracyError(String message, Path launcher) {
        super(message);
        this.launcher = launcher;
    }

    /** The minifier launcher written for this failure ({@code ./ember minify <it>}). */
    public Path launcher() { return launcher; }
}
