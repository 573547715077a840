package dev.ember.fx;

import dev.ember.testing.ChildJvm;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.fake;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class JavaSourceGenTest {
    @TempDir
    Path dir;

    /** The generated program, compiled in-process against ember-core's classes and loaded. */
    private Class<?> compile(String className, String source) throws Exception {
        Path file = dir.resolve(className + ".java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, null, diagnostics, "-d", dir.toString(), "-cp", coreClasses().toString(),
                "-Xlint:all", "-Werror", file.toString());
        assertEquals(0, rc, () -> "generated source does not compile:\n" + diagnostics + "\n" + source);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader()).loadClass(className);
    }

    private static Path coreClasses() throws Exception {
        return Path.of(Graph.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static String runMain(Class<?> program) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            program.getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** What the program should print for these outputs ("out", "out[0]", "out[1][0]", …), written independently of the generator. */
    private static String expectedPrint(String label, Object value) {
        if (value instanceof List<?> l) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < l.size(); i++) sb.append(expectedPrint(label + "[" + i + "]", l.get(i)));
            return sb.toString();
        }
        Tensor t = (Tensor) value;
        return label + ": " + t.describe() + System.lineSeparator() + t + System.lineSeparator();
    }

    private static void assertSameOutputs(Object expected, Object actual) {
        if (expected instanceof List<?> e) {
            List<?> a = assertInstanceOf(List.class, actual);
            assertEquals(e.size(), a.size());
            for (int i = 0; i < e.size(); i++) assertSameOutputs(e.get(i), a.get(i));
            return;
        }
        Tensor et = (Tensor) expected, at = (Tensor) actual;
        assertTrue(et.sameData(at), "expected " + et + " but got " + at);
    }

    /** A transposed input, cat, split + getitem, a kwarg'd factory, a method call and an attribute. */
    private static GraphModule sample() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(3, 4));
        Node y = g.placeholder("yT", new dev.ember.tensor.FakeTensor(new TensorMeta(DType.FLOAT32, new int[] {4, 3}, new int[] {1, 4}, 0)));
        Node t = g.callFunction(op("aten.transpose.int"), x, 0L, 1L)
                .setSourceLocation(new SourceLocation("MyApp", "fn", "MyApp.java", 13, 4, "Tensor t = x.transpose(0, 1); // \"quoted\" \\ and ünicode"));
        Node w = g.getAttr("block.weight", null);
        Node cat = g.callFunction(op("aten.cat.default"), List.of(List.of(t, y, w)), Map.of("dim", 1L));
        Node parts = g.callFunction(op("aten.split.Tensor"), cat, 4L, 1L);
        Node first = g.callFunction(BuiltinFunctions.GETITEM, parts, 0L);
        Node z = g.callFunction(op("aten.zeros.default"), List.of(new int[] {4, 1}), Map.of("dtype", DType.FLOAT32));
        Node joined = g.callFunction(op("aten.cat.default"), List.of(first, z), -1L);
        Node flat = g.callMethod("reshape", List.of(joined, -1L), Map.of());
        g.output(List.of(flat, parts));
        GraphModule gm = new GraphModule("Sample", g, Map.of("block.weight", Tensor.arange(0, 8, 1).reshape(4, 2).to(DType.FLOAT32)), Map.of());
        ShapeProp.propagate(gm);
        return gm;
    }

    @Test
    void randomInputsRebuildRunAndPrintLikeTheInterpreter() throws Exception {
        GraphModule gm = sample();
        String source = JavaSourceGen.generate(gm, "SampleRepro");
        Class<?> program = compile("SampleRepro", source);

        GraphModule rebuilt = (GraphModule) program.getMethod("build").invoke(null);
        assertEquals(gm.graph().toString(), rebuilt.graph().toString());
        assertEquals(gm.code(), rebuilt.code());
        Object[] inputs = (Object[]) program.getMethod("inputs").invoke(null);

        // The inputs the generated program makes: randn from a fresh Generator(0), in placeholder order, strides as recorded.
        Generator gen = new Generator(0);
        Tensor x = Tensor.randn(gen, 3, 4);
        Tensor yT = Tensor.randn(gen, 12).viewAs(new TensorMeta(DType.FLOAT32, new int[] {4, 3}, new int[] {1, 4}, 0));
        assertTrue(x.sameData((Tensor) inputs[0]));
        assertTrue(yT.sameData((Tensor) inputs[1]));
        assertArrayEquals(new int[] {1, 4}, ((Tensor) inputs[1]).strides());

        Object expected = gm.run(x, yT);
        assertSameOutputs(expected, rebuilt.run(inputs));
        assertEquals(expectedPrint("out", expected), runMain(program));
    }

    @Test
    void recordedInputsAreWrittenExactlyWithTheirStrides() throws Exception {
        Graph g = new Graph();
        Node a = g.placeholder("a", null);
        Node b = g.placeholder("b", null);
        Node c = g.placeholder("c", null);
        Node d = g.placeholder("d", null);
        Node ab = g.callFunction(op("aten.cat.default"), List.of(List.of(a, b)), Map.of());
        Node cf = g.callFunction(op("aten._to_copy.default"), List.of(c), Map.of("dtype", DType.INT64));
        Node df = g.callFunction(op("aten._to_copy.default"), List.of(d), Map.of("dtype", DType.FLOAT64));
        g.output(List.of(ab, cf, df));
        GraphModule gm = new GraphModule(g);

        Generator gen = new Generator(42);
        Tensor big = Tensor.randn(gen, 10, 30).to(DType.FLOAT64);                   // 300 elements: written as base64
        Tensor bigT = big.transpose(0, 1).slice(0, 1, 30, 2);                        // strided, with an offset
        Tensor small = Tensor.of(new double[] {Double.NaN, -0.0, 1e-300, Double.POSITIVE_INFINITY, 0.1, 2}, 3, 2).transpose(0, 1);
        Tensor flags = Tensor.of(new boolean[] {true, false, true}, 3);
        Tensor ints = Tensor.of(new int[] {Integer.MIN_VALUE, -1, 0, 7}, 2, 2);
        // a: 15x3 strided with an offset, written as base64; b: 2x3 transposed, written as a literal
        List<Object> inputs = List.of(bigT.slice(1, 0, 3, 1), small, flags, ints);
        Tensor a0 = (Tensor) inputs.get(0);
        assertFalse(a0.isContiguous());
        assertTrue(a0.storageOffset() > 0);
        assertFalse(small.isContiguous());

        String source = JavaSourceGen.generate(gm, "Exact", inputs);
        assertTrue(source.contains("decode(DType.FLOAT64"), "large tensors as base64");
        assertTrue(source.contains("new boolean[] {true, false, true}"), "small tensors as readable literals");
        Class<?> program = compile("Exact", source);
        Object[] made = (Object[]) program.getMethod("inputs").invoke(null);
        for (int i = 0; i < made.length; i++) {
            Tensor want = (Tensor) inputs.get(i), got = (Tensor) made[i];
            assertTrue(want.sameData(got), "input " + i);
            assertArrayEquals(want.strides(), got.strides(), "input " + i + " strides");
        }
        Object expected = gm.run(inputs.toArray());
        GraphModule rebuilt = (GraphModule) program.getMethod("build").invoke(null);
        assertSameOutputs(expected, rebuilt.run(made));
        assertEquals(expectedPrint("out", expected), runMain(program));
    }

    @Test
    void renamedNodesKeepTheirNames() throws Exception {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 2));
        Node dead = g.callFunction(op("aten.clone.default"), x);
        Node kept = g.callFunction(op("aten.clone.default"), x);
        g.rename(kept, "result");
        g.output(kept);
        g.eraseNode(dead);
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm);
        Class<?> program = compile("Renamed", JavaSourceGen.generate(gm, "Renamed"));
        GraphModule rebuilt = (GraphModule) program.getMethod("build").invoke(null);
        assertEquals(g.toString(), rebuilt.graph().toString());
    }

    @Test
    void theProgramRunsWithTheSourceLauncher() throws Exception {
        GraphModule gm = sample();
        Path file = dir.resolve("Launched.java");
        Files.writeString(file, JavaSourceGen.generate(gm, "Launched"));
        ChildJvm.Run r = ChildJvm.sourceFile(file).classPath(coreClasses().toString()).run();
        String output = r.said();
        assertEquals(0, r.exit(), output);
        Class<?> program = compile("Launched", Files.readString(file));
        assertEquals(runMain(program), output.lines().filter(l -> !l.startsWith("WARNING")).map(l -> l + System.lineSeparator()).reduce("", String::concat));
    }

    @Test
    void liveObjectsCannotBeWrittenOut() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2));
        g.output(g.callModule("encoder", List.of(x), Map.of()));
        var e = assertThrows(IllegalArgumentException.class, () -> JavaSourceGen.generate(new GraphModule(g), "Repro"));
        assertEquals("cannot write node 'encoder' as Java source: it calls module 'encoder', a live object with no source; inline the module's graph first", e.getMessage());

        Graph h = new Graph();
        Node y = h.placeholder("y", null);
        h.output(y);
        var noVal = assertThrows(IllegalArgumentException.class, () -> JavaSourceGen.generate(new GraphModule(h), "Repro"));
        assertEquals("placeholder 'y' has no fake value to make a random input from; run ShapeProp first or pass example inputs", noVal.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JavaSourceGen.generate(new GraphModule(h), "class"));
    }
}
