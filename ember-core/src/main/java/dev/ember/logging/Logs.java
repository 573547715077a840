package dev.ember.logging;

import java.io.PrintStream;
import java.time.Instant;

/**
 * What {@code EMBER_LOGS} switched on, and where log lines go. {@code EMBER_LOGS} is read once, when Ember first
 * logs; {@link #set(String)} (what {@code Ember.setLogs} calls) changes the settings in code, except that a set
 * {@code EMBER_LOGS} wins, as {@code TORCH_LOGS} wins over {@code torch._logging.set_logs}: the person running
 * the program can always turn logs up or down without editing it.
 */
public final class Logs {
    private Logs() {}

    /** The environment variable holding the log settings. */
    public static final String ENV = "EMBER_LOGS";

    /** Settings in force, with each registry entry's lowest enabled level, or why EMBER_LOGS could not be used. */
    private record State(LogSettings settings, Level[] thresholds, IllegalArgumentException error) {
        static State of(LogSettings settings) {
            return new State(settings, settings.thresholds(), null);
        }
    }

    private static final String ENV_VALUE = System.getenv(ENV);
    private static volatile PrintStream out = System.err;
    private static volatile State state = fromEnvironment(ENV_VALUE);

    static State fromEnvironment(String value) {
        if (value == null) return State.of(LogSettings.DEFAULT);
        try {
            LogSettings s = LogSettings.parse(value, ENV);
            if (s.help()) out.print(LogRegistry.help());
            return State.of(s);
        } catch (IllegalArgumentException e) {
            return new State(LogSettings.DEFAULT, null, e);
        }
    }

    /**
     * Sets which logs are on, e.g. {@code "graph_breaks,+dynamo"}; {@code ""} turns all but warnings off.
     * Ignored, with a warning, when {@code EMBER_LOGS} is set.
     *
     * @throws IllegalArgumentException on an unknown name, listing the valid ones
     */
    public static void set(String spec) {
        LogSettings parsed = LogSettings.parse(spec, "Ember.setLogs");
        if (ENV_VALUE != null) {
            emit(Level.WARNING, "logging", "EMBER_LOGS=\"" + ENV_VALUE + "\" is set and wins: ignoring setLogs(\"" + spec + "\")");
            return;
        }
        install(parsed);
    }

    /** Installs settings whatever EMBER_LOGS says (tests, and the CLI's own flags). */
    static void install(LogSettings settings) {
        if (settings.help()) out.print(LogRegistry.help());
        state = State.of(settings);
    }

    /** The settings in force. @throws IllegalArgumentException when EMBER_LOGS holds an unknown name */
    public static LogSettings settings() {
        return checked().settings;
    }

    /** Whether a message of {@code level} on the log {@code name} would be printed; builds no strings. */
    public static boolean isEnabled(String name, Level level) {
        return Log.of(name).isEnabled(level);
    }

    /** Where log lines go (stderr unless changed). */
    public static PrintStream output() {
        return out;
    }

    /** Sends log lines to {@code stream} instead of stderr (tests, tools that capture them). */
    public static void setOutput(PrintStream stream) {
        if (stream == null) throw new IllegalArgumentException("Logs.setOutput: stream is null");
        out = stream;
    }

    private static State checked() {
        State s = state;
        if (s.error != null) throw new IllegalArgumentException(s.error.getMessage(), s.error);
        return s;
    }

    static boolean enabled(int index, Level level) {
        Level threshold = checked().thresholds[index];
        return threshold != null && level.atLeast(threshold);
    }

    static void emit(Level level, String name, String message) {
        String text = LogFormat.format(level, Instant.now(), CompileContext.current(), name, message);
        PrintStream stream = out;
        synchronized (stream) {
            stream.print(text);
            stream.flush();
        }
    }
}
