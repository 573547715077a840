package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.FrameFailed;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.PhaseEnded;
import dev.ember.events.CompileEvent.PhaseStarted;
import dev.ember.logging.Trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * Where compile time goes, per traced function and phase. Compiles are timed from their events (a
 * function's scope from {@code FrameStarted} to {@code FrameCompiled} or {@code FrameFailed}, a phase's
 * from {@code PhaseStarted} to {@code PhaseEnded}); other code brackets its work with scopes:
 * <pre>{@code
 * try (var f = CompileProfiler.function("MyApp.fn")) {
 *     try (var t = CompileProfiler.phase("tracing")) { ... }
 *     try (var t = CompileProfiler.phase("passes"))  { ... }
 *     try (var t = CompileProfiler.phase("backend")) { ... }
 * }
 * }</pre>
 * {@code EMBER_COMPILE_PROFILER=1} prints a table per function at exit; {@code EMBER_COMPILE_PROFILER=<file>}
 * writes a speedscope profile (open it at speedscope.app, or any viewer of its format). While a structured trace
 * is on, each scope also becomes a pair of {@code chromium_event}s in it. Otherwise a scope costs one check and
 * returns a shared no-op.
 */
public final class CompileProfiler {
    private CompileProfiler() {}

    /** The environment variable: {@code 1} for a table at exit, a file path for a speedscope profile. */
    public static final String ENV = "EMBER_COMPILE_PROFILER";

    /** A timed region; close it on the thread that opened it (try-with-resources does). */
    public sealed interface Scope extends AutoCloseable permits Timer, NoScope {
        @Override
        void close();
    }

    private enum NoScope implements Scope {
        INSTANCE;

        @Override
        public void close() {}
    }

    private record Config(boolean enabled, Path speedscopeFile, IllegalArgumentException error) {}

    private static final ProfileData DATA = new ProfileData();
    private static final ThreadLocal<Deque<Timer>> OPEN = ThreadLocal.withInitial(ArrayDeque::new);
    /** The scopes opened for compile events on this thread, innermost first; {@code function} marks a compile's own. */
    private record EventScope(Scope scope, boolean function) {}
    private static final ThreadLocal<Deque<EventScope>> EVENT_SCOPES = ThreadLocal.withInitial(ArrayDeque::new);
    private static volatile Config config = fromEnvironment(System.getenv(ENV));

    static {
        Config c = config;
        if (c.enabled) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> reportAtExit(c.speedscopeFile), "ember-compile-profiler"));
        }
    }

    static Config fromEnvironment(String value) {
        if (value == null || value.isBlank() || value.equals("0")) return new Config(false, null, null);
        if (value.equals("1")) return new Config(true, null, null);
        try {
            return new Config(true, checkWritableFile(Path.of(value), ENV + "=" + value), null);
        } catch (InvalidPathException e) {
            return new Config(false, null, new IllegalArgumentException(ENV + "=" + value + ": not a valid path: " + e.getMessage()
                    + " (use 1 for a table on stderr, or a file path for a speedscope profile)"));
        } catch (IllegalArgumentException e) {
            return new Config(false, null, e);
        }
    }

    private static Path checkWritableFile(Path file, String origin) {
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(origin + ": " + file + " is a directory; name a file for the speedscope profile"
                    + " (or use 1 for a table on stderr)");
        }
        Path parent = file.toAbsolutePath().getParent();
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new IllegalArgumentException(origin + ": cannot create the folder " + parent + " for the profile (" + e + ")");
        }
        if (!Files.isWritable(parent) || (Files.exists(file) && !Files.isWritable(file))) {
            throw new IllegalArgumentException(origin + ": cannot write the profile to " + file + ": not writable");
        }
        return file;
    }

    /** Opens and closes scopes for the compile events: its subscription to them. */
    static void accept(CompileEvent event) {
        Deque<EventScope> open = EVENT_SCOPES.get();
        switch (event) {
            case FrameStarted f -> open.push(new EventScope(function(f.function()), true));
            case PhaseStarted p -> open.push(new EventScope(phase(p.phase().text()), false));
            case PhaseEnded p when open.peek() != null && !open.peek().function() -> open.pop().scope().close();
            case FrameCompiled f -> closeFunction(open);
            case FrameFailed f -> closeFunction(open);
            default -> { }
        }
    }

    /** Closes the innermost compile's scope, and any phase left open inside it. */
    private static void closeFunction(Deque<EventScope> open) {
        while (!open.isEmpty()) {
            EventScope s = open.pop();
            s.scope().close();
            if (s.function()) return;
        }
    }

    /** Opens the scope of one traced function (a compile of it); phases opened inside are charged to it. */
    public static Scope function(String name) {
        return open(name, true);
    }

    /** Opens a phase ({@code tracing}, {@code passes}, {@code backend}, …) of the current function; phases nest. */
    public static Scope phase(String name) {
        return open(name, false);
    }

    private static Scope open(String name, boolean function) {
        Config c = config;
        if (c.error != null) throw new IllegalArgumentException(c.error.getMessage(), c.error);
        boolean tracing = Trace.isEnabled();
        if (!c.enabled && !tracing) return NoScope.INSTANCE;
        Deque<Timer> stack = OPEN.get();
        Timer t = new Timer(name, function, stack, c.enabled, tracing);
        stack.push(t);
        t.start();
        return t;
    }

    /** Whether scopes are being timed for the table or profile. */
    public static boolean isEnabled() {
        return config.enabled;
    }

    /** Starts timing (as EMBER_COMPILE_PROFILER=1 does, but without the table at exit). */
    public static void enable() {
        config = new Config(true, null, null);
    }

    /** Stops timing; what was measured stays until {@link #reset()}. */
    public static void disable() {
        config = new Config(false, null, null);
    }

    /** Forgets everything measured. */
    public static void reset() {
        DATA.clear();
    }

    /** The per-function table: compiles, time per top-level phase, other, total, in milliseconds. */
    public static String table() {
        return DATA.table();
    }

    /** The measured scopes as a speedscope file (evented profiles, one per thread). */
    public static String speedscopeJson() {
        return DATA.speedscope();
    }

    /** Writes {@link #speedscopeJson()} to {@code file}. */
    public static void writeSpeedscope(Path file) {
        try {
            Files.writeString(file, speedscopeJson(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the compile profile to " + file + ": " + e.getMessage(), e);
        }
    }

    private static void reportAtExit(Path speedscopeFile) {
        if (speedscopeFile == null) {
            System.err.print(table());
            return;
        }
        try {
            writeSpeedscope(speedscopeFile);
            System.err.println("ember: compile profile written to " + speedscopeFile.toAbsolutePath()
                    + " (speedscope format: open it at speedscope.app)");
        } catch (UncheckedIOException e) {
            System.err.println("ember: " + ENV + ": " + e.getMessage());
        }
    }

    /** An open scope. */
    static final class Timer implements Scope {
        private final String name;
        private final boolean function;
        private final Deque<Timer> stack;
        private final Timer parent;
        private final boolean record;
        private final boolean chromium;
        private final Thread thread = Thread.currentThread();
        private long start;
        private boolean closed;

        private Timer(String name, boolean function, Deque<Timer> stack, boolean record, boolean chromium) {
            this.name = name;
            this.function = function;
            this.stack = stack;
            this.parent = stack.peek();
            this.record = record;
            this.chromium = chromium;
        }

        private void start() {
            start = System.nanoTime();
            if (record) DATA.event(thread, name, true, start);
            if (chromium) Trace.chromiumEvent(name, "B", wallNanos(), Map.of("kind", function ? "function" : "phase"));
        }

        @Override
        public void close() {
            if (closed) return;
            if (Thread.currentThread() != thread) {
                throw new IllegalStateException("CompileProfiler scope '" + name + "' closed on " + Thread.currentThread().getName()
                        + " but opened on " + thread.getName());
            }
            // Scopes left open by an exception inside are closed first, so the stack stays balanced.
            while (!stack.isEmpty() && stack.peek() != this) stack.peek().close();
            closed = true;
            stack.pop();
            long end = System.nanoTime();
            if (record) {
                DATA.event(thread, name, false, end);
                Timer owner = function ? this : enclosingFunction();
                String fn = owner == null ? "<no function>" : owner.name;
                if (function) DATA.function(fn, end - start, enclosingFunction() != null);
                else if (parent == owner) DATA.phase(fn, name, end - start, owner == null);
            }
            if (chromium) Trace.chromiumEvent(name, "E", wallNanos(), Map.of("kind", function ? "function" : "phase"));
        }

        private Timer enclosingFunction() {
            for (Timer t = parent; t != null; t = t.parent) if (t.function) return t;
            return null;
        }

        private static long wallNanos() {
            java.time.Instant now = java.time.Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
    }

    /** What the scopes measured, shared by all threads. */
    static final class ProfileData {
        private record Event(long threadId, String threadName, String frame, boolean open, long nanos) {}

        private final List<Event> events = new ArrayList<>();
        private final CompileProfilerTable table = new CompileProfilerTable();

        synchronized void event(Thread t, String frame, boolean open, long nanos) {
            events.add(new Event(t.threadId(), t.getName(), frame, open, nanos));
        }

        synchronized void function(String fn, long nanos, boolean nested) {
            table.function(fn, nanos, nested);
        }

        synchronized void phase(String fn, String phase, long nanos, boolean noFunction) {
            table.phase(fn, phase, nanos, noFunction);
        }

        synchronized void clear() {
            events.clear();
            table.clear();
        }

        synchronized String table() {
            return table.render();
        }

        synchronized String speedscope() {
            return CompileProfilerSpeedscope.write(events.stream()
                    .map(e -> new CompileProfilerSpeedscope.Event(e.threadId, e.threadName, e.frame, e.open, e.nanos))
                    .toList());
        }
    }
}
