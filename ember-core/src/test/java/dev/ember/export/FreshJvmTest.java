package dev.ember.export;

import dev.ember.Ember;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.tensor.SafeTensors;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A saved program runs in a new JVM that has never seen the class it was exported from: the
 * child's class path is Ember's with the test classes left out, plus a folder holding only
 * {@link LoadAndRunMain}; its outputs equal this JVM's run of the same program.
 */
class FreshJvmTest {
    @TempDir
    Path dir;

    static final class Net extends Module {
        final Linear in = new Linear(6, 16), out = new Linear(16, 3);

        @Override
        public Tensor forward(Tensor x) { return out.forward(in.forward(x).tanh()).logSoftmax(-1); }
    }

    @Test
    void aSavedProgramRunsWithoutItsClassInANewJvm() throws Exception {
        Tensor x = Tensor.randn(5, 6);
        ExportedProgram ep = Ember.export(new Net(), x);
        Path program = dir.resolve("net.ember"), inputs = dir.resolve("in.safetensors"), outputs = dir.resolve("out.safetensors");
        ep.save(program);
        SafeTensors.save(Map.of("x", x), inputs);

        Path mainDir = dir.resolve("main");
        String mainPath = LoadAndRunMain.class.getName().replace('.', '/') + ".class";
        Files.createDirectories(mainDir.resolve(mainPath).getParent());
        try (InputStream in = LoadAndRunMain.class.getClassLoader().getResourceAsStream(mainPath)) {
            Files.copy(in, mainDir.resolve(mainPath));
        }
        String cp = Stream.concat(Stream.of(mainDir.toString()),
                Stream.of(System.getProperty("java.class.path").split(File.pathSeparator)).filter(e -> !e.endsWith("test-classes")))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-cp", cp, LoadAndRunMain.class.getName(),
                program.toString(), inputs.toString(), outputs.toString(), Net.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_"));
        Path log = dir.resolve("child.txt");
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child JVM did not finish");
        String said = Files.readString(log);
        assertEquals(0, p.exitValue(), said);
        assertTrue(said.matches("(?s).*load [0-9.]+ ms, first run [0-9.]+ ms\\s*"), said);

        Tensor child = SafeTensors.load(outputs).get("out0");
        // within a rounding, not bit for bit: tanh and exp run as the Vector API's intrinsics once C2 has compiled the kernel
        // and as its per-lane fallback before, which differ in the last bit (docs/reliability.md, "JIT tiers"); this JVM is warm, the child cold
        float[] here = ep.run(x).getFirst().toFloatArray(), there = child.toFloatArray();
        assertEquals(here.length, there.length);
        for (int i = 0; i < here.length; i++) {
            assertEquals(here[i], there[i], 4 * Math.ulp(Math.abs(here[i])) + 1e-7f, "the child's output differs from this JVM's run of the same program at " + i);
        }
    }
}
