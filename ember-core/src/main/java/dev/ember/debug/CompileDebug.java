package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.GraphCaptured;
import dev.ember.events.CompileEvent.GraphCompiled;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Logs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Supplier;

/**
 * The debug folder ({@code TORCH_COMPILE_DEBUG}'s counterpart). {@code EMBER_COMPILE_DEBUG=1} writes, for every
 * compilation, a folder {@code <run>/ember/model__<frame>_<compile>/} with fx_graph_readable.txt,
 * fx_graph_transformed.txt, fx_graph_runnable.java, output_code.java (when the backend generated code),
 * guards.txt, bytecode_original.txt, bytecode_transformed.txt and, after a graph break, graph_break.txt.
 * {@code <run>} is {@code run_<timestamp>-pid_<pid>} under {@code EMBER_COMPILE_DEBUG_DIR}, or under
 * {@code ./ember_compile_debug} when that is unset. A bad value of either variable is an
 * {@link IllegalArgumentException} naming it, at the first compilation.
 */
public final class CompileDebug {
    private CompileDebug() {}

    /** {@code 1} writes the debug folder, {@code 0} (or unset) does not. */
    public static final String ENV = "EMBER_COMPILE_DEBUG";
    /** Where run folders go instead of {@code ./ember_compile_debug}. */
    public static final String DIR_ENV = "EMBER_COMPILE_DEBUG_DIR";

    private static final Path DEFAULT_BASE = Path.of("ember_compile_debug");

    /** On or off; {@code base} is where run folders go; {@code origin} names the setting in errors. */
    private record Config(boolean enabled, Path base, String origin, IllegalArgumentException error) {}

    private static volatile Config config = fromEnvironment(System.getenv(ENV), System.getenv(DIR_ENV));
    private static Path runDirectory;

    static Config fromEnvironment(String value, String dir) {
        boolean on;
        if (value == null || value.isBlank() || value.strip().equals("0")) on = false;
        else if (value.strip().equals("1")) on = true;
        else return new Config(false, null, ENV, new IllegalArgumentException(ENV + "=" + value
                + ": expected 1 (write the debug folder) or 0 (do not); the folder's place is set by " + DIR_ENV));
        if (dir == null) return new Config(on, DEFAULT_BASE, ENV + "=1", null);
        try {
            if (dir.isBlank()) throw new InvalidPathException(dir, "empty");
            return new Config(on, Path.of(dir), DIR_ENV + "=" + dir, null);
        } catch (InvalidPathException e) {
            return new Config(false, null, DIR_ENV, new IllegalArgumentException(DIR_ENV + "=" + dir + ": not a valid folder path ("
                    + e.getReason() + "); name a writable folder for the debug runs"));
        }
    }

    /** Writes debug folders under {@code base} from now on (a new run folder), whatever the environment says. */
    public static synchronized void enable(Path base) {
        config = new Config(true, base, "CompileDebug.enable(" + base + ")", null);
        runDirectory = null;
    }

    /** Stops writing debug folders. */
    public static synchronized void disable() {
        config = new Config(false, null, null, null);
        runDirectory = null;
    }

    /**
     * Whether compilations write their folder.
     *
     * @throws IllegalArgumentException when EMBER_COMPILE_DEBUG or EMBER_COMPILE_DEBUG_DIR holds a bad value
     */
    public static boolean isEnabled() {
        Config c = config;
        if (c.error != null) throw new IllegalArgumentException(c.error.getMessage(), c.error);
        return c.enabled;
    }

    /** This run's folder ({@code run_<timestamp>-pid_<pid>}), made on first use; null when off. */
    public static synchronized Path runDirectory() {
        if (!isEnabled()) return null;
        if (runDirectory == null) {
            Config c = config;
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy_MM_dd_HH_mm_ss_SSSSSS"));
            Path run = c.base.resolve("run_" + stamp + "-pid_" + ProcessHandle.current().pid()).toAbsolutePath();
            try {
                Files.createDirectories(run);
            } catch (IOException e) {
                throw new IllegalArgumentException(c.origin + ": cannot create the debug folder " + run + " (" + e
                        + "); set " + DIR_ENV + " to a writable folder");
            }
            if (!Files.isWritable(run)) {
                throw new IllegalArgumentException(c.origin + ": the debug folder " + run + " is not writable; set " + DIR_ENV
                        + " to a writable folder");
            }
            runDirectory = run;
            Logs.output().println("ember: " + ENV + ": writing compile artifacts to " + run);
        }
        return runDirectory;
    }

    /** The folder of the current compilation: {@code ember/model__<frame>_<compile>} (plus {@code _<attempt>} after a restart). */
    public static Path compileDirectory() {
        CompileId id = CompileContext.current();
        if (id == null) throw new IllegalStateException("CompileDebug: no compilation is current on this thread");
        String name = "model__" + id.frameId() + "_" + id.frameCompileId() + (id.attempt() == 0 ? "" : "_" + id.attempt());
        return runDirectory().resolve("ember").resolve(name);
    }

    /** Writes the files of a compile event, when the folder is on: its subscription to the compile events. */
    static void accept(CompileEvent event) {
        switch (event) {
            case GraphBreak b -> graphBreak(b.message());
            case Bytecode b -> bytecode(b.function(), b.original(), b.generated());
            case GraphCaptured g -> graph(g.function(), g.graph(), g.inputs(), g.backend(), g.guards());
            case GraphCompiled g -> compiled(g.function(), g.graph(), g.compiled(), g.backend());
            default -> { }
        }
    }

    /**
     * The captured graph, before the backend: fx_graph_readable.txt, fx_graph_runnable.java (with the graph's
     * inputs, when small; null when they could not be read) and guards.txt.
     */
    private static void graph(String function, GraphModule gm, List<Object> inputs, String backend, List<String> guards) {
        if (!isEnabled()) return;
        write("fx_graph_readable.txt", "// The graph Ember captured from " + function + ", with the source line of each node.\n" + gm.code());
        write("fx_graph_runnable.java", RunnableRepro.source(gm, inputs, backend));
        write("guards.txt", "Guards of the cache entry for " + function + " (all must hold for a call to reuse this graph):\n"
                + String.join("\n", guards.stream().map(g -> "  " + g).toList()) + "\n");
    }

    /** What the backend made of the graph: fx_graph_transformed.txt, and output_code.java when it generated code. */
    private static void compiled(String function, GraphModule captured, CompiledGraph compiled, String backend) {
        if (!isEnabled()) return;
        GraphModule transformed = compiled.transformedGraph();
        write("fx_graph_transformed.txt", transformed != null
                ? "// The graph of " + function + " after backend '" + backend + "' ran its passes and decompositions.\n" + transformed.code()
                : "// No pass or decomposition ran on the graph of " + function + " (backend '" + backend
                        + "'): this is the captured graph, the same as fx_graph_readable.txt.\n" + captured.code());
        String code = compiled.outputCode();
        if (code != null) write("output_code.java", code);
    }

    /**
     * The compiled method's bytecode as written, and the code Ember generated for it: after a graph break, the
     * class that runs the breaking instruction and calls the resume method; null when nothing was generated.
     */
    private static void bytecode(String function, Supplier<String> original, String transformed) {
        if (!isEnabled()) return;
        write("bytecode_original.txt", "// The bytecode of " + function + " as compiled by javac.\n" + original.get());
        write("bytecode_transformed.txt", transformed != null
                ? "// The code Ember generated for " + function + " after its graph break: the graph's outputs are restored, the breaking"
                        + " instruction runs eagerly, and the rest continues in a resume method (its own compile folder).\n" + transformed
                : "// Ember generated no bytecode for " + function + " in this compilation: the frame evaluator checks the guards,"
                        + " calls the compiled graph (or the original method, for an eager entry) and rebuilds the return value."
                        + " Only a graph break with a resume generates code.\n");
    }

    /** The graph break that ended this compilation's trace, in full. */
    private static void graphBreak(String message) {
        if (isEnabled()) write("graph_break.txt", message + "\n");
    }

    private static void write(String file, String text) {
        Path dir = compileDirectory();
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(file), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + " to the compile debug folder " + dir + ": " + e.getMessage(), e);
        }
    }
}
