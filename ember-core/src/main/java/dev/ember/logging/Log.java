package dev.ember.logging;

import java.util.List;
import java.util.function.Supplier;

/**
 * A named log ({@code dynamo}, {@code graph_breaks}, …; see {@link LogRegistry}). Messages are suppliers, so
 * nothing is built when the log is off:
 * <pre>{@code
 * Log.of("graph_breaks").info(() -> "Graph break in user code at " + where);
 * Log.artifact("graph_code", () -> graph.toReadableString());
 * if (Log.of("dynamo").isEnabled(Level.DEBUG)) { ...expensive walk... }
 * }</pre>
 * Lines go to {@link Logs#output()} (stderr), tagged with level, time, the current {@link CompileId} and the name.
 */
public final class Log {
    private static final List<Loggable> ENTRIES = LogRegistry.all();
    private static final Log[] LOGS = new Log[ENTRIES.size()];

    static {
        for (int i = 0; i < LOGS.length; i++) LOGS[i] = new Log(ENTRIES.get(i), i);
    }

    private final Loggable entry;
    private final int index;

    private Log(Loggable entry, int index) {
        this.entry = entry;
        this.index = index;
    }

    /** The log of a registered name. @throws IllegalArgumentException for a name not in {@link LogRegistry} */
    public static Log of(String name) {
        for (Log log : LOGS) if (log.entry.name().equals(name)) return log;
        String hint = LogRegistry.nearest(name).map(n -> " Did you mean '" + n + "'?").orElse("");
        throw new IllegalArgumentException("Log.of: unknown log name '" + name + "'." + hint
                + " Registered: " + String.join(", ", ENTRIES.stream().map(Loggable::name).toList()));
    }

    /**
     * Prints an artifact (a graph, guards, bytecode…) when that artifact is switched on.
     *
     * @throws IllegalArgumentException when {@code name} is a component, not an artifact
     */
    public static void artifact(String name, Supplier<String> text) {
        Log log = of(name);
        if (!log.entry.artifact()) {
            throw new IllegalArgumentException("Log.artifact: '" + name + "' is a component log, not an artifact; use Log.of(\""
                    + name + "\").info(...)");
        }
        log.info(text);
    }

    /** The registered name. */
    public String name() { return entry.name(); }

    /** Bound while the compiler repeats work whose logs were printed once already. */
    private static final ScopedValue<Boolean> QUIET = ScopedValue.newInstance();

    /**
     * Runs {@code work} with every log off: for work that repeats what was just logged (a graph
     * lowered again at other sizes to make it generic in them).
     */
    public static <T> T quietly(Supplier<T> work) { return ScopedValue.where(QUIET, true).call(work::get); }

    /** Whether a message at {@code level} would be printed: one volatile read and a compare. */
    public boolean isEnabled(Level level) {
        return Logs.enabled(index, level) && !QUIET.isBound();
    }

    /** Prints the message if this log shows {@code level}. */
    public void log(Level level, Supplier<String> message) {
        if (isEnabled(level)) Logs.emit(level, entry.name(), message.get());
    }

    public void debug(Supplier<String> message) { log(Level.DEBUG, message); }

    public void info(Supplier<String> message) { log(Level.INFO, message); }

    public void warning(Supplier<String> message) { log(Level.WARNING, message); }

    public void error(Supplier<String> message) { log(Level.ERROR, message); }

    public void debug(String message) { log(Level.DEBUG, () -> message); }

    public void info(String message) { log(Level.INFO, () -> message); }

    public void warning(String message) { log(Level.WARNING, () -> message); }

    public void error(String message) { log(Level.ERROR, () -> message); }

    @Override
    public String toString() { return "Log[" + entry.name() + "]"; }
}
