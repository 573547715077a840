package dev.ember.ops;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler that sees every op call on its thread before the op runs (PyTorch's
 * {@code TorchDispatchMode}, what {@code make_fx} traces with): non-strict export runs the user's
 * Java code with one installed and records each op into a graph. Off the tracing thread nothing
 * changes, and while no handler is installed anywhere an op call pays one read of a counter.
 */
public final class DispatchMode {
    private DispatchMode() {}

    /** What an installed mode does with one op call. */
    @FunctionalInterface
    public interface Handler {
        /** The call's result, or null to let the op run as usual; {@code meta} is the op's output metadata for these arguments. */
        Object intercept(OpOverload op, Args args, Object meta);
    }

    /** Uninstalls the handler: {@code try (var s = DispatchMode.enter(h)) { … }}. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    private static final ThreadLocal<Handler> CURRENT = new ThreadLocal<>();
    /** Handlers installed on any thread: zero in every program that never traces this way. */
    private static final AtomicInteger ACTIVE = new AtomicInteger();

    /** Installs {@code handler} on this thread until the scope closes (the previous one, if any, comes back). */
    public static Scope enter(Handler handler) {
        Handler previous = CURRENT.get();
        CURRENT.set(handler);
        ACTIVE.incrementAndGet();
        return () -> {
            ACTIVE.decrementAndGet();
            CURRENT.set(previous);
        };
    }

    /** The installed handler's result for this call, or null. The handler runs uninstalled, so ops it calls run as usual. */
    static Object intercept(OpOverload op, Args args, Object meta) {
        if (ACTIVE.get() == 0) return null;
        Handler h = CURRENT.get();
        if (h == null) return null;
        CURRENT.set(null);
        try {
            return h.intercept(op, args, meta);
        } finally {
            CURRENT.set(h);
        }
    }
}
