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
    /** 0: make the sources constants; else make each (a tensor size) this multiple of a symbol instead. */
    final long multiple;

    SpecializeAndRestart(List<Source> sources, String use, UserFrame where) { this(sources, use, where, 0); }

    SpecializeAndRestart(List<Source> sources, String use, UserFrame where, long multiple) {
        super(use, null, false, false);
        this.sources = sources;
        this.use = use;
        this.where = where;
        this.multiple = multiple;
    }

    /** The names the restarted trace takes as specialized ({@link ShapeEnv#multipleName} for a multiple). */
    List<String> names() {
        return sources.stream().map(s -> multiple == 0 ? s.name() : ShapeEnv.multipleName((dev.ember.dynamo.source.SizeSource) s, multiple)).toList();
    }
}
