package dev.ember.debug.minifier;

import dev.ember.debug.BuildIdentity;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.GraphText;
import dev.ember.fx.NodeKind;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A minifier launcher: one failing (or, at repro level 3, any) graph as a folder of data that
 * {@code ember minify <dir>} reloads, so that a repro outlives the process and the classes that
 * made it:
 * <pre>
 * graph.txt          the graph ({@link GraphText}: ops by registry name, typed arguments)
 * inputs.bin         one value per placeholder, bit-exact with layouts ({@link ValueFile})
 * attributes.bin     the tensors get_attr nodes read (paths in repro.properties)
 * repro.properties   backend, mode, after, the failure seen, tolerance, graph name, source lines
 * README.txt         what this is and the two commands that use it
 * </pre>
 *
 * @param failure what was seen when the launcher was written ({@link Outcome.Passed} at level 3)
 * @param graphName the function and compile id, {@code MyApp.fn [0/1]}
 * @param sourceLines where the graph came from in user code, {@code MyApp.java:12-19} (or empty)
 */
public record Launcher(GraphModule graph, List<Object> inputs, String backend, CompileMode mode, ReproStage after, Outcome failure,
                       double tolerance, String graphName, String sourceLines) {

    static final String GRAPH = "graph.txt", INPUTS = "inputs.bin", ATTRIBUTES = "attributes.bin", PROPERTIES = "repro.properties",
            README = "README.txt";

    /** The same launcher for another graph and inputs (a reduction of this one). */
    public Launcher with(GraphModule g, List<Object> in, Outcome seen) {
        return new Launcher(g, in, backend, mode, after, seen, tolerance, graphName, sourceLines);
    }

    /** Writes the folder {@code dir} (made when missing; files there of the same names are replaced). */
    public void write(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(GRAPH), GraphText.write(graph.graph()), StandardCharsets.UTF_8);
            ValueFile.write(dir.resolve(INPUTS), inputs);
            ValueFile.write(dir.resolve(ATTRIBUTES), new ArrayList<>(graph.attributes().values()));
            Properties p = new Properties();
            p.setProperty("backend", backend);
            p.setProperty("mode", mode.text());
            p.setProperty("after", after.text());
            p.setProperty("failure", failure.kind());
            p.setProperty("failure.description", failure.describe());
            switch (failure) {
                case Outcome.CompileError(String c, String m) -> { p.setProperty("exception", c); p.setProperty("message", m); }
                case Outcome.RuntimeError(String c, String m) -> { p.setProperty("exception", c); p.setProperty("message", m); }
                default -> { }
            }
            p.setProperty("tolerance", Double.toString(tolerance));
            p.setProperty("graph", graphName);
            p.setProperty("source", sourceLines);
            p.setProperty("attributes", String.join(",", graph.attributes().keySet()));
            p.setProperty("ember.build", BuildIdentity.describe());
            try (Writer w = Files.newBufferedWriter(dir.resolve(PROPERTIES), StandardCharsets.UTF_8)) {
                p.store(w, "Ember minifier launcher: ./ember minify " + dir + "   (run once: ./ember minify " + dir + " run)");
            }
            Files.writeString(dir.resolve(README), readme(dir), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the minifier launcher " + dir + ": " + e.getMessage(), e);
        }
    }

    private String readme(Path dir) {
        return """
                Ember minifier launcher for %s (%s)
                Backend '%s', mode %s, graph after %s; seen: %s
                Written by %s

                  ./ember minify %s          reduce it to the smallest graph that still fails this way
                  ./ember minify %s run      compile and run it once and say whether it still fails

                The graph, as text that parses back (graph.txt):

                %s""".formatted(graphName, sourceLines.isEmpty() ? "no source lines" : sourceLines, backend, mode, after.text(),
                failure.describe(), BuildIdentity.line(), dir, dir, GraphText.write(graph.graph()));
    }

    /** The {@link BuildIdentity} of the Ember that wrote the launcher in {@code dir}, or "not recorded" (written by an older Ember). */
    public static String writtenBy(Path dir) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve(PROPERTIES), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            return "not recorded (" + PROPERTIES + " unreadable)";
        }
        return p.getProperty("ember.build", "not recorded");
    }

    /**
     * Reads the launcher in {@code dir}.
     *
     * @throws IllegalArgumentException naming the folder or file that is missing or not what it should be
     */
    public static Launcher read(Path dir) {
        if (!Files.exists(dir)) throw new IllegalArgumentException(dir + " does not exist; pass the folder a repro level wrote (ember_minifier/<compile id>/)");
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException(dir + " is a file; pass the launcher's folder (the one holding " + PROPERTIES + ")");
        Path props = dir.resolve(PROPERTIES);
        if (!Files.isRegularFile(props)) {
            throw new IllegalArgumentException(dir + " is not a minifier launcher: it has no " + PROPERTIES
                    + " (launchers are written with EMBER_REPRO_AFTER=dynamo and EMBER_REPRO_LEVEL=2, 3 or 4)");
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(props, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot read " + props + ": " + e.getMessage());
        }
        Path graphFile = dir.resolve(GRAPH);
        if (!Files.isRegularFile(graphFile)) throw new IllegalArgumentException(graphFile + " is missing: a launcher keeps its graph there");
        Graph g;
        try {
            g = GraphText.parse(Files.readString(graphFile, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + graphFile + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(graphFile + " is not a graph: " + e.getMessage());
        }
        List<Object> inputs = ValueFile.read(dir.resolve(INPUTS));
        int placeholders = g.placeholders().size();
        if (inputs.size() != placeholders) {
            throw new IllegalArgumentException(dir.resolve(INPUTS) + " holds " + inputs.size() + " value(s) but " + graphFile + " has "
                    + placeholders + " placeholder(s): the two files are not from the same launcher");
        }
        Map<String, Tensor> attributes = attributes(dir, required(p, props, "attributes"), g);
        ReproStage after = ReproStage.parse(required(p, props, "after"), props + ": after");
        double tolerance;
        try {
            tolerance = Double.parseDouble(required(p, props, "tolerance"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(props + ": tolerance=" + p.getProperty("tolerance") + " is not a number");
        }
        Outcome failure = switch (required(p, props, "failure")) {
            case "compile_error" -> new Outcome.CompileError(required(p, props, "exception"), p.getProperty("message", ""));
            case "runtime_error" -> new Outcome.RuntimeError(required(p, props, "exception"), p.getProperty("message", ""));
            case "accuracy" -> new Outcome.Inaccurate(p.getProperty("failure.description", ""));
            case "none" -> new Outcome.Passed(p.getProperty("failure.description", ""));
            case String other -> throw new IllegalArgumentException(props + ": failure=" + other
                    + " is not one of compile_error, runtime_error, accuracy, none");
        };
        GraphModule gm = new GraphModule(g);
        attributes.forEach(gm::setAttribute);
        return new Launcher(gm, inputs, required(p, props, "backend"), mode(p, props), after, failure, tolerance,
                p.getProperty("graph", dir.getFileName().toString()), p.getProperty("source", ""));
    }

    private static CompileMode mode(Properties p, Path file) {
        try {
            return CompileMode.parse(p.getProperty("mode", CompileMode.DEFAULT.text()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage());
        }
    }

    private static String required(Properties p, Path file, String key) {
        String v = p.getProperty(key);
        if (v == null) throw new IllegalArgumentException(file + " has no '" + key + "' entry: it is not a complete launcher");
        return v;
    }

    private static Map<String, Tensor> attributes(Path dir, String list, Graph g) {
        List<String> paths = list.isBlank() ? List.of() : List.of(list.split(","));
        Path file = dir.resolve(ATTRIBUTES);
        List<Object> values = ValueFile.read(file);
        if (values.size() != paths.size()) {
            throw new IllegalArgumentException(file + " holds " + values.size() + " tensor(s) but " + PROPERTIES + " names " + paths.size() + " attribute(s)");
        }
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (int i = 0; i < paths.size(); i++) {
            if (!(values.get(i) instanceof Tensor t)) throw new IllegalArgumentException(file + ": attribute '" + paths.get(i) + "' is not a tensor");
            out.put(paths.get(i), t);
        }
        for (var n : g.findNodes(NodeKind.GET_ATTR, null)) {
            if (!out.containsKey((String) n.target())) {
                throw new IllegalArgumentException(dir.resolve(GRAPH) + ": node '" + n + "' reads attribute '" + n.target() + "', which " + file + " does not hold");
            }
        }
        return out;
    }
}
