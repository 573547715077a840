package dev.ember.dynamo;

import java.util.function.Supplier;

/**
 * Who runs a compiled frame's cache entry on this thread once its guards passed: the entry itself,
 * or, while the bytecode debugger ({@code dev.ember.debug.bytecode}) is on for this thread, the
 * debugger, which takes the entry's steps one at a time and interprets the generated code. The
 * debugger sits above capture, so capture calls it through {@link Hook}.
 */
public final class FrameDebug {
    private FrameDebug() {}

    /** Runs a compiled frame's entry in place of the entry itself. */
    public interface Hook {
        /** Runs {@code entry} of {@code frame} for this call ({@code args}: captured values, then arguments), as {@code entry} would. */
        Object enter(CompiledFrame frame, CacheEntry entry, Object[] args, Supplier<Object> eager);
    }

    private static final ThreadLocal<Hook> CURRENT = new ThreadLocal<>();

    /** Runs {@code body} with {@code hook} taking every compiled frame's entry on this thread. */
    public static <T> T with(Hook hook, Supplier<T> body) {
        Hook before = CURRENT.get();
        CURRENT.set(hook);
        try {
            return body.get();
        } finally {
            if (before == null) CURRENT.remove();
            else CURRENT.set(before);
        }
    }

    /** {@code entry} run by this thread's hook, or by itself when none is on. */
    static Object run(CompiledFrame frame, CacheEntry entry, Object[] args, Supplier<Object> eager) {
        Hook hook = CURRENT.get();
        return hook == null ? entry.run(args, eager) : hook.enter(frame, entry, args, eager);
    }
}
