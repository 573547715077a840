package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;
import dev.ember.events.UserFrame;

import java.util.List;

/**
 * Thrown while tracing when code needs the value of a number that is a graph input (an
 * unspecialized double): the trace starts over with {@link #sources} as constants guarded by their
 * values, as Dynamo restarts analysis after specializing. Not a graph break; never leaves the tracer.
 */
final class SpecializeAndRestart extends RuntimeException {
    final List<Source> sources;
    final String use;
    final UserFrame where;

    SpecializeAndRestart(List<Source> sources, String use, UserFrame where) {
        super(use, null, false, false);
        this.sources = sources;
        this.use = use;
        this.where = where;
    }
}
