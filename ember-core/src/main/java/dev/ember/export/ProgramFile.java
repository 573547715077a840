package dev.ember.export;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.GraphText;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.fx.SizeSymbols;
import dev.ember.fx.SymbolicShapes;
import dev.ember.logging.JsonReader;
import dev.ember.logging.JsonWriter;
import dev.ember.tensor.AtomicFiles;
import dev.ember.tensor.DType;
import dev.ember.tensor.SafeTensors;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.FileSystems;
import java.util.zip.ZipFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An exported program's file: a zip archive of three entries (documented in docs/export.md) —
 * {@code program.json} (format name and version, the function, the graph signature, range
 * constraints), {@code graph.txt} (the graph in {@link GraphText}'s form, which parses back), and
 * {@code weights.safetensors} (the state, by target name; {@link SafeTensors}, the format
 * {@code Module.save} writes). Every check is made before a program is returned, so a bad file
 * fails here in one line, never later inside a kernel.
 */
final class ProgramFile {
    private ProgramFile() {}

    static final String FORMAT = "ember.exported_program";
    static final int VERSION = 1;
    static final String PROGRAM = "program.json";
    static final String GRAPH = "graph.txt";
    static final String WEIGHTS = "weights.safetensors";

    // ------------------------------------------------------------------ save

    static void save(ExportedProgram ep, Path file) throws IOException {
        String graph;
        try {
            graph = GraphText.write(ep.graphModule().graph());
        } catch (IllegalArgumentException e) {
            throw new ExportError("ExportedProgram.save(" + file + "): " + e.getMessage(), e);
        }
        Path abs = file.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName(), ".tmp");
        Files.delete(tmp);   // the zip file system creates it
        try {
            try (FileSystem zip = FileSystems.newFileSystem(tmp, Map.of("create", "true"))) {
                Files.writeString(zip.getPath(PROGRAM), programJson(ep));
                Files.writeString(zip.getPath(GRAPH), graph);
                SafeTensors.save(ep.state(), zip.getPath(WEIGHTS));
            }
            AtomicFiles.moveIntoPlace(tmp, abs);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** One key per line and one spec per line, so a diff of two programs reads. */
    private static String programJson(ExportedProgram ep) {
        GraphSignature sig = ep.graphSignature();
        Map<String, Object> ranges = new LinkedHashMap<>();
        ep.rangeConstraints().forEach((k, r) -> ranges.put(k, List.of(r.min(), r.max())));
        List<String> inputs = sig.inputs().stream().map(i -> spec(i.kind().name(), i.name(), i.target(), i.spec())).toList();
        List<String> outputs = sig.outputs().stream().map(o -> spec(o.kind().name(), o.name(), o.target(), o.spec())).toList();
        return "{\n"
                + "  \"format\": " + JsonWriter.write(FORMAT) + ",\n"
                + "  \"version\": " + VERSION + ",\n"
                + "  \"function\": " + JsonWriter.write(ep.function()) + ",\n"
                + "  \"strict\": " + ep.strict() + ",\n"
                + "  \"inputs\": [\n    " + String.join(",\n    ", inputs) + "\n  ],\n"
                + "  \"outputs\": [\n    " + String.join(",\n    ", outputs) + "\n  ],\n"
                + "  \"specialized\": " + JsonWriter.write(sig.specialized()) + ",\n"
                + "  \"range_constraints\": " + JsonWriter.write(ranges) + ",\n"
                + "  \"symbols\": " + JsonWriter.write(symbols(ep)) + "\n"
                + "}\n";
    }

    /** Per size symbol: its id, the user's name for it, the example size it was traced with, and its range. */
    private static List<Object> symbols(ExportedProgram ep) {
        List<Object> out = new ArrayList<>();
        SizeSymbols symbols = ep.graphModule().sizeSymbols();
        if (symbols == null) return out;
        for (SizeSymbols.Symbol s : symbols.symbols()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", s.id());
            m.put("source", s.source());
            m.put("hint", s.hint());
            m.put("min", s.min());
            m.put("max", s.max());
            if (s.divisor() != 1) m.put("divisor", s.divisor());
            out.add(m);
        }
        return out;
    }

    private static String spec(String kind, String name, String target, TensorSpec spec) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", kind);
        m.put("name", name);
        m.put("target", target);
        m.put("dtype", spec.dtype().shortName());
        m.put("shape", spec.shape());
        if (spec.isSymbolic()) m.put("dims", spec.dims().stream().map(SymInt::toString).toList());
        return JsonWriter.write(m);
    }

    // ------------------------------------------------------------------ load

    static ExportedProgram load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new ProgramFileException(file, "no such file");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(4);
            if (head.length < 4 || head[0] != 'P' || head[1] != 'K' || head[2] != 3 || head[3] != 4) {
                throw new ProgramFileException(file, "not an Ember exported program: it is not a zip archive (ExportedProgram.save writes one)");
            }
        }
        FileSystem zip;
        try {
            // ZipFile says what is wrong with a damaged archive; the zip file system, which reads entries as paths, only refuses it
            new ZipFile(file.toFile()).close();
            zip = FileSystems.newFileSystem(file);
        } catch (IOException e) {
            throw new ProgramFileException(file, "the zip archive is damaged or truncated (" + e.getMessage() + ")", e);
        }
        try (zip) {
            Map<String, Object> program = program(file, zip);
            GraphSignature sig = signature(file, program);
            Graph graph = graph(file, zip, sig);
            Map<String, Tensor> state = state(file, zip, sig);
            GraphModule gm = new GraphModule(graph);
            List<Node> placeholders = graph.placeholders();
            for (int i = 0; i < placeholders.size(); i++) placeholders.get(i).setSymVal(sig.inputs().get(i).spec().symShape());
            gm.setSizeSymbols(sizeSymbols(file, program, placeholders));
            try {
                ShapeProp.propagate(gm, sig.inputs().stream().map(s -> (Object) s.spec().fake()).toArray());
                if (gm.sizeSymbols() != null) new SymbolicShapes(gm.sizeSymbols()).annotate(gm);
            } catch (RuntimeException e) {
                throw new ProgramFileException(file, GRAPH + " does not fit the inputs " + PROGRAM + " describes: " + firstLine(e.getMessage()), e);
            }
            Map<String, ValueRange> ranges = new LinkedHashMap<>();
            Map<String, Object> rc = Fields.object(file, program, "range_constraints");
            for (Map.Entry<String, Object> e : rc.entrySet()) {
                List<Object> r = Fields.list(file, e.getValue(), "range_constraints." + e.getKey());
                if (r.size() != 2) throw new ProgramFileException(file, PROGRAM + ": range_constraints." + e.getKey() + " must be [min, max]");
                ranges.put(e.getKey(), new ValueRange(Fields.integer(file, r.get(0), "range_constraints." + e.getKey()), Fields.integer(file, r.get(1), "range_constraints." + e.getKey())));
            }
            return new ExportedProgram(Fields.string(file, program, "function"), Fields.bool(file, program, "strict"), gm, sig, state, ranges, "inductor");
        } catch (IOException e) {
            if (e instanceof ProgramFileException) throw e;
            throw new ProgramFileException(file, "the zip archive is damaged or truncated (" + e.getMessage() + ")", e);
        }
    }

    /** The size symbols {@code program.json} lists (none in a program of static shapes, or one written before they existed). */
    private static SizeSymbols sizeSymbols(Path file, Map<String, Object> program, List<Node> placeholders) throws ProgramFileException {
        if (!program.containsKey("symbols")) return null;
        List<SizeSymbols.Symbol> out = new ArrayList<>();
        int k = 0;
        for (Object o : Fields.list(file, program.get("symbols"), "symbols")) {
            String where = "symbols[" + k++ + "]";
            Map<String, Object> m = Fields.object(file, o, where);
            out.add(new SizeSymbols.Symbol((int) Fields.integer(file, m.get("id"), where + ".id"), Fields.string(file, m, "source"), -1, -1,
                    Fields.integer(file, m.get("hint"), where + ".hint"), Fields.integer(file, m.get("min"), where + ".min"), Fields.integer(file, m.get("max"), where + ".max"),
                    m.containsKey("divisor") ? Fields.integer(file, m.get("divisor"), where + ".divisor") : 1));
        }
        if (out.isEmpty()) return null;
        try {
            return new SizeSymbols(out).readFrom(placeholders);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ProgramFileException(file, PROGRAM + ": symbols: " + e.getMessage());
        }
    }

    private static Map<String, Object> program(Path file, FileSystem zip) throws IOException {
        String text = entry(file, zip, PROGRAM, "not an Ember exported program: the archive has no " + PROGRAM);
        Map<String, Object> program;
        try {
            program = JsonReader.parseObject(text);
        } catch (IllegalArgumentException e) {
            throw new ProgramFileException(file, PROGRAM + " is not valid JSON: " + e.getMessage());
        }
        if (!FORMAT.equals(program.get("format"))) {
            throw new ProgramFileException(file, "not an Ember exported program: " + PROGRAM + "'s format is " + JsonWriter.write(program.get("format")) + ", not \"" + FORMAT + "\"");
        }
        long version = Fields.integer(file, program.get("version"), "version");
        if (version != VERSION) {
            throw new ProgramFileException(file, "the program was saved in format version " + version + ", but this Ember reads version " + VERSION
                    + (version > VERSION ? "; load it with the Ember that saved it, or export it again with this one" : ""));
        }
        return program;
    }

    private static GraphSignature signature(Path file, Map<String, Object> program) throws ProgramFileException {
        List<InputSpec> inputs = new ArrayList<>();
        int k = 0;
        for (Object o : Fields.list(file, program.get("inputs"), "inputs")) {
            Map<String, Object> m = Fields.object(file, o, "inputs[" + k++ + "]");
            String where = "inputs[" + (k - 1) + "]";
            inputs.add(new InputSpec(Fields.enumOf(file, InputSpec.Kind.class, m, where), Fields.string(file, m, "name"), Fields.string(file, m, "target"), tensorSpec(file, m, where)));
        }
        List<OutputSpec> outputs = new ArrayList<>();
        k = 0;
        for (Object o : Fields.list(file, program.get("outputs"), "outputs")) {
            Map<String, Object> m = Fields.object(file, o, "outputs[" + k++ + "]");
            String where = "outputs[" + (k - 1) + "]";
            outputs.add(new OutputSpec(Fields.enumOf(file, OutputSpec.Kind.class, m, where), Fields.string(file, m, "name"), Fields.string(file, m, "target"), tensorSpec(file, m, where)));
        }
        Map<String, String> specialized = new LinkedHashMap<>();
        Fields.object(file, program, "specialized").forEach((n, v) -> specialized.put(n, String.valueOf(v)));
        return new GraphSignature(inputs, outputs, specialized);
    }

    private static TensorSpec tensorSpec(Path file, Map<String, Object> m, String where) throws ProgramFileException {
        DType dtype;
        try {
            dtype = DType.parse(Fields.string(file, m, "dtype"));
        } catch (IllegalArgumentException e) {
            throw new ProgramFileException(file, PROGRAM + ": " + where + ".dtype: " + e.getMessage());
        }
        List<Integer> shape = new ArrayList<>();
        for (Object d : Fields.list(file, m.get("shape"), where + ".shape")) {
            long size = Fields.integer(file, d, where + ".shape");
            if (size < 0 || size > Integer.MAX_VALUE) throw new ProgramFileException(file, PROGRAM + ": " + where + ".shape has the size " + size);
            shape.add((int) size);
        }
        if (!m.containsKey("dims")) return new TensorSpec(dtype, shape);
        List<SymInt> dims = new ArrayList<>();
        for (Object d : Fields.list(file, m.get("dims"), where + ".dims")) {
            try {
                dims.add(SymInt.parse(String.valueOf(d)));
            } catch (IllegalArgumentException e) {
                throw new ProgramFileException(file, PROGRAM + ": " + where + ".dims: " + e.getMessage());
            }
        }
        if (dims.size() != shape.size()) throw new ProgramFileException(file, PROGRAM + ": " + where + ".dims has " + dims.size() + " sizes, its shape " + shape.size());
        return new TensorSpec(dtype, shape, dims);
    }

    private static Graph graph(Path file, FileSystem zip, GraphSignature sig) throws IOException {
        Graph g;
        try {
            g = GraphText.parse(entry(file, zip, GRAPH, "the archive has no " + GRAPH));
        } catch (GraphText.ParseError e) {
            throw new ProgramFileException(file, GRAPH + ": " + firstLine(e.getMessage()), e);
        }
        List<String> placeholders = g.placeholders().stream().map(Node::name).toList();
        List<String> expected = sig.inputs().stream().map(InputSpec::name).toList();
        if (!placeholders.equals(expected)) {
            throw new ProgramFileException(file, GRAPH + "'s inputs " + placeholders + " are not the inputs " + expected + " that " + PROGRAM + " describes");
        }
        List<String> outputs = ProgramBuilder.outputNodes(g).stream().map(Node::name).toList();
        List<String> expectedOut = sig.outputs().stream().map(OutputSpec::name).toList();
        if (!outputs.equals(expectedOut)) {
            throw new ProgramFileException(file, GRAPH + " returns " + outputs + ", not the outputs " + expectedOut + " that " + PROGRAM + " describes");
        }
        return g;
    }

    private static Map<String, Tensor> state(Path file, FileSystem zip, GraphSignature sig) throws IOException {
        Path weights = zip.getPath(WEIGHTS);
        if (!Files.exists(weights)) throw new ProgramFileException(file, "the archive has no " + WEIGHTS);
        Map<String, Tensor> tensors;
        try {
            tensors = SafeTensors.load(weights);
        } catch (SafeTensors.FormatException e) {
            throw new ProgramFileException(file, e.getMessage().replaceFirst("^/", ""), e);
        }
        Map<String, Tensor> state = new LinkedHashMap<>();
        for (InputSpec s : sig.inputs()) {
            if (s.kind() == InputSpec.Kind.USER_INPUT) continue;
            Tensor t = tensors.get(s.target());
            if (t == null) throw new ProgramFileException(file, WEIGHTS + " has no tensor '" + s.target() + "' (the " + s.kind() + " input " + s.name() + ")");
            if (!TensorSpec.of(t).equals(s.spec())) {
                throw new ProgramFileException(file, WEIGHTS + "'s tensor '" + s.target() + "' is " + TensorSpec.of(t) + ", but " + PROGRAM + " says " + s.spec());
            }
            state.put(s.target(), t);
        }
        return state;
    }

    private static String entry(Path file, FileSystem zip, String name, String missing) throws IOException {
        Path p = zip.getPath(name);
        if (!Files.exists(p)) throw new ProgramFileException(file, missing);
        return Files.readString(p);
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Typed reads of program.json's values, each failure naming the key. */
    private static final class Fields {
        private Fields() {}

        static String string(Path file, Map<String, Object> m, String key) throws ProgramFileException {
            if (!(m.get(key) instanceof String s)) throw new ProgramFileException(file, PROGRAM + ": \"" + key + "\" must be a string, got " + JsonWriter.write(m.get(key)));
            return s;
        }

        static boolean bool(Path file, Map<String, Object> m, String key) throws ProgramFileException {
            if (!(m.get(key) instanceof Boolean b)) throw new ProgramFileException(file, PROGRAM + ": \"" + key + "\" must be true or false, got " + JsonWriter.write(m.get(key)));
            return b;
        }

        static long integer(Path file, Object v, String where) throws ProgramFileException {
            if (!(v instanceof Long l)) throw new ProgramFileException(file, PROGRAM + ": \"" + where + "\" must be an integer, got " + JsonWriter.write(v));
            return l;
        }

        static List<Object> list(Path file, Object v, String where) throws ProgramFileException {
            if (!(v instanceof List<?> l)) throw new ProgramFileException(file, PROGRAM + ": \"" + where + "\" must be an array, got " + JsonWriter.write(v));
            return new ArrayList<>(l);
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(Path file, Object v, String where) throws ProgramFileException {
            if (!(v instanceof Map<?, ?> m)) throw new ProgramFileException(file, PROGRAM + ": \"" + where + "\" must be an object, got " + JsonWriter.write(v));
            return (Map<String, Object>) m;
        }

        static Map<String, Object> object(Path file, Map<String, Object> m, String key) throws ProgramFileException { return object(file, m.get(key), key); }

        static <E extends Enum<E>> E enumOf(Path file, Class<E> type, Map<String, Object> m, String where) throws ProgramFileException {
            String name = string(file, m, "kind");
            try {
                return Enum.valueOf(type, name);
            } catch (IllegalArgumentException e) {
                throw new ProgramFileException(file, PROGRAM + ": " + where + ".kind is \"" + name + "\"; expected one of " + java.util.Arrays.toString(type.getEnumConstants()));
            }
        }
    }
}
