package dev.ember.export;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The saved form: what loads back, and a one-line error naming the file, the entry and the problem for what does not. */
class ProgramFileTest {
    @TempDir
    Path dir;
    Path file;
    final Tensor x = Tensor.randn(2, 4);

    @BeforeEach
    void save() throws IOException {
        file = dir.resolve("mlp.ember");
        Ember.export(new ExportTest.Mlp(), x).save(file);
    }

    @Test
    void aLoadedProgramPrintsAndRunsAsTheSavedOne() throws IOException {
        ExportedProgram saved = Ember.export(new ExportTest.Mlp(), x);
        saved.save(file);
        ExportedProgram loaded = ExportedProgram.load(file);
        // the same graph, types and source lines; the line's text stays with the source, the file keeps file:line and method
        assertEquals(saved.toString().replace("ExportTest.java:28  public Tensor forward(Tensor x) { return body.forward(x).softmax(-1); }",
                "ExportTest.java:28 in forward"), loaded.toString());
        assertTrue(saved.run(x).getFirst().sameData(loaded.run(x).getFirst()));
        assertEquals(saved.parameters().keySet(), loaded.parameters().keySet());
        String json = entry("program.json");
        assertTrue(json.startsWith("{\n  \"format\": \"ember.exported_program\",\n  \"version\": 1,\n  \"function\": \"ExportTest$Mlp.forward\","), json);
        assertTrue(json.contains("    {\"kind\": \"PARAMETER\", \"name\": \"p_body_0_weight\", \"target\": \"body.0.weight\", \"dtype\": \"f32\", \"shape\": [8, 4]},\n"), json);
    }

    @Test
    void aFileThatIsNotAZipIsNotAProgram() throws IOException {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "hello");
        assertEquals(text + ": not an Ember exported program: it is not a zip archive (ExportedProgram.save writes one)", message(text));
    }

    @Test
    void aTruncatedFileIsNamedDamaged() throws IOException {
        byte[] all = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(all, all.length / 2));
        assertTrue(message(file).startsWith(file + ": the zip archive is damaged or truncated ("), message(file));
    }

    @Test
    void aZipWithoutTheProgramEntryIsNotAProgram() throws IOException {
        edit(zip -> Files.delete(zip.getPath("program.json")));
        assertEquals(file + ": not an Ember exported program: the archive has no program.json", message(file));
    }

    @Test
    void anotherFormatOrAnUnknownVersionIsNamed() throws IOException {
        String json = entry("program.json");
        edit(zip -> Files.writeString(zip.getPath("program.json"), json.replace("\"version\": 1", "\"version\": 7")));
        assertEquals(file + ": the program was saved in format version 7, but this Ember reads version 1; load it with the Ember that saved it, or export it again with this one",
                message(file));
        edit(zip -> Files.writeString(zip.getPath("program.json"), json.replace("ember.exported_program", "something.else")));
        assertEquals(file + ": not an Ember exported program: program.json's format is \"something.else\", not \"ember.exported_program\"", message(file));
    }

    @Test
    void aCorruptGraphNamesItsLine() throws IOException {
        String graph = entry("graph.txt");
        edit(zip -> Files.writeString(zip.getPath("graph.txt"), graph.replace("aten.relu.default", "aten.no_such_op.default")));
        String m = message(file);
        int line = (int) graph.substring(0, graph.indexOf("aten.relu.default")).lines().count();
        assertTrue(m.startsWith(file + ": graph.txt: line " + line + ": "), m);
        assertTrue(m.contains("aten.no_such_op.default"), m);
    }

    @Test
    void missingWeightsAreNamed() throws IOException {
        edit(zip -> dev.ember.tensor.SafeTensors.save(java.util.Map.of("other", Tensor.zeros(1)), zip.getPath("weights.safetensors")));
        assertEquals(file + ": weights.safetensors has no tensor 'body.0.weight' (the PARAMETER input p_body_0_weight)", message(file));
        edit(zip -> Files.write(zip.getPath("weights.safetensors"), new byte[] {1, 2, 3}));
        assertTrue(message(file).startsWith(file + ": weights.safetensors: not a valid safetensors file: truncated"), message(file));
    }

    private interface ZipEdit {
        void apply(FileSystem zip) throws IOException;
    }

    private void edit(ZipEdit change) throws IOException {
        try (FileSystem zip = FileSystems.newFileSystem(file)) {
            change.apply(zip);
        }
    }

    private String entry(String name) throws IOException {
        try (FileSystem zip = FileSystems.newFileSystem(file)) {
            return Files.readString(zip.getPath(name));
        }
    }

    /** The load error's message, checked to be one line. */
    private static String message(Path p) {
        String m = assertThrows(ProgramFileException.class, () -> ExportedProgram.load(p)).getMessage();
        assertFalse(m.contains("\n"), m);
        return m;
    }
}
