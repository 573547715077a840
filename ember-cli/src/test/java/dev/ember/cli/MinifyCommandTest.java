package dev.ember.cli;

import dev.ember.debug.Accuracy;
import dev.ember.debug.BuildIdentity;
import dev.ember.debug.minifier.Launcher;
import dev.ember.debug.minifier.Outcome;
import dev.ember.debug.minifier.ReproStage;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MinifyCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    /** A backend that cannot compile sin, and otherwise compiles like eager. */
    private static final Backend NO_SIN = (gm, inputs) -> {
        if (!gm.graph().findNodes(NodeKind.CALL_FUNCTION, OpRegistry.get("aten.sin.default")).isEmpty()) {
            throw new UnsupportedOperationException("no kernel for aten.sin.default");
        }
        return Backends.EAGER.compile(gm, inputs);
    };

    @BeforeAll
    static void register() { Backends.register("no_sin", NO_SIN); }

    private int ember(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    /** A chain of 12 pointwise ops with one sin in the middle, saved as a launcher for backend no_sin. */
    private Path launcher() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node v = x;
        List<String> ops = List.of("aten.relu.default", "aten.tanh.default", "aten.neg.default", "aten.exp.default", "aten.sigmoid.default",
                "aten.sin.default", "aten.abs.default", "aten.cos.default", "aten.tanh.default", "aten.neg.default", "aten.relu.default", "aten.exp.default");
        List<Node> all = new ArrayList<>();
        for (String op : ops) all.add(v = g.callFunction(OpRegistry.get(op), v));
        g.output(List.of(v));
        GraphModule gm = new GraphModule(g);
        Tensor input = Tensor.randn(new Generator(3), 4, 5).t();   // a transposed (non-contiguous) input
        Path dir = tmp.resolve("launcher");
        new Launcher(gm, List.of(input), "no_sin", CompileMode.DEFAULT, ReproStage.DYNAMO,
                new Outcome.CompileError(UnsupportedOperationException.class.getName(), "no kernel for aten.sin.default"),
                Accuracy.DEFAULT_TOLERANCE, "Demo.fn [0/0]", "Demo.java:10-14").write(dir);
        return dir;
    }

    @Test
    void minifyShrinksTheGraphToTheFaultyOp() {
        Path dir = launcher();
        assertEquals(0, ember("minify", dir.toString()), err());
        assertTrue(out().contains("minifying Demo.fn [0/0]: 12 ops, compile error: UnsupportedOperationException: no kernel for aten.sin.default"), out());
        assertTrue(out().contains("The smallest graph that still fails (1 of 12 ops)"), out());
        assertTrue(out().contains("aten.sin.default(sigmoid)"), out());
        assertTrue(Files.isDirectory(dir.resolve("checkpoints").resolve("001")), "checkpoints are kept");
        assertTrue(Files.isRegularFile(dir.resolve("minified").resolve("graph.txt")));
    }

    @Test
    void runReplaysAndExitsOneWhileItStillFails() {
        Path dir = launcher();
        assertEquals(1, ember("minify", dir.toString(), "run"), err());
        assertTrue(out().contains("graph     Demo.fn [0/0]  (Demo.java:10-14)"), out());
        assertTrue(out().contains("now       compile error: UnsupportedOperationException: no kernel for aten.sin.default"), out());
        assertTrue(out().contains("FAIL: it still fails"), out());
        assertTrue(out().contains("built     written and replayed by " + BuildIdentity.describe()), out());
        Backends.register("no_sin", Backends.EAGER);
        try {
            out.reset();
            assertEquals(0, ember("minify", dir.toString(), "run"), err());
            assertTrue(out().contains("PASS: the backend now agrees with eager"), out());
        } finally {
            Backends.register("no_sin", NO_SIN);
        }
    }

    @Test
    void aReplayByAnotherBuildSaysSo() throws Exception {
        Path dir = launcher();
        Path props = dir.resolve("repro.properties");
        String text = Files.readString(props);
        assertTrue(text.contains("ember.build="), "the launcher records the build that wrote it: " + text);
        Files.writeString(props, text.replaceAll("ember\\.build=[^\\n]*", "ember.build=0123456789ab"));
        assertEquals(1, ember("minify", dir.toString(), "run"), err());
        assertTrue(out().contains("built     written by 0123456789ab, replayed by " + BuildIdentity.describe() + ": other code than the one that failed"), out());
    }

    @Test
    void badInputIsAClearErrorNamingTheFile() throws Exception {
        assertEquals(2, ember("minify", tmp.resolve("nowhere").toString()));
        assertTrue(err().contains("nowhere does not exist"), err());

        err.reset();
        assertEquals(2, ember("minify", tmp.toString()));
        assertTrue(err().contains("is not a minifier launcher: it has no repro.properties"), err());

        Path dir = launcher();
        err.reset();
        assertEquals(2, ember("minify", dir.toString(), "shrink"));
        assertTrue(err().contains("unknown action 'shrink'"), err());

        Files.writeString(dir.resolve("graph.txt"), "%x = placeholder[x]\n%y = call_function[aten.nope.default](%x)\nreturn [%y]\n");
        err.reset();
        assertEquals(2, ember("minify", dir.toString(), "run"));
        assertTrue(err().contains("graph.txt is not a graph: line 2: no op named 'aten.nope.default'"), err());

        dir = launcher();
        Path props = dir.resolve("repro.properties");
        Files.writeString(props, Files.readString(props).replace("backend=no_sin", "backend=nobody"));
        err.reset();
        assertEquals(2, ember("minify", dir.toString()));
        assertTrue(err().contains("unknown backend 'nobody'") && err().contains("Backends.register(\"nobody\", backend) then Minifier.minify(dir, System.out)"), err());

        dir = launcher();
        byte[] bytes = Files.readAllBytes(dir.resolve("inputs.bin"));
        Files.write(dir.resolve("inputs.bin"), java.util.Arrays.copyOf(bytes, bytes.length - 7));
        err.reset();
        assertEquals(2, ember("minify", dir.toString()));
        assertTrue(err().contains("inputs.bin is truncated"), err());
    }
}
