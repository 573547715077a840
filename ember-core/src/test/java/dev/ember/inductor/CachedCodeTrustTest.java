package dev.ember.inductor;

import dev.ember.testing.ChildJvm;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.inductor.cache.EntryForger;
import dev.ember.jvm.HiddenClasses;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import static dev.ember.inductor.Graphs.call;
import static java.lang.constant.ConstantDescs.CD_Object;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Code from the cache runs as the user, so it is loaded only when authenticated and verified, and
 * cached code that still fails at run time is replaced once, never failing on every later run.
 */
class CachedCodeTrustTest {
    @TempDir
    Path dir;

    private final List<ArtifactCache.Problem> problems = new ArrayList<>();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream previous;

    @BeforeEach
    void captureLog() {
        previous = Logs.output();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLog() { Logs.setOutput(previous); }

    private List<String> loggedWarnings() {
        return log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("W")).toList();
    }

    private static GraphModule graph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, "sigmoid.default", call(g, "mul.Scalar", x, 3.0)));
        return new GraphModule(g);
    }

    /** Each compile opens the folder anew, as a new process would. */
    private InductorGraph compile() {
        return Inductor.compile(graph(), List.of(Tensor.randn(4, 5)), CompileMode.DEFAULT, new ArtifactCache(dir, problems::add));
    }

    private Path onlyEntry() throws Exception {
        ArtifactCache.awaitWrites();
        try (var files = Files.list(dir)) {
            List<Path> entries = files.filter(p -> p.toString().endsWith(".emberc")).toList();
            assertEquals(1, entries.size(), "one entry: " + entries);
            return entries.getFirst();
        }
    }

    /** A class with the generated graph's entry point whose body is {@code body}. */
    private static byte[] graphClass(Consumer<CodeBuilder> body) {
        MethodTypeDesc call = MethodTypeDesc.of(CD_Object, ClassDesc.of(Tensor.class.getName()).arrayType(), CD_Object.arrayType(), CD_Object.arrayType());
        return ClassFile.of().build(ClassDesc.of("dev.ember.inductor.Tampered"),
                cb -> cb.withMethodBody("call", call, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, body));
    }

    /** Sound bytecode that reads input 99 of the one it has: it throws ArrayIndexOutOfBoundsException. */
    private static byte[] throwingClass() { return graphClass(c -> c.aload(0).bipush(99).aaload().areturn()); }

    /** Returns the int 0 as an Object: the verifier refuses it. */
    private static byte[] unverifiableClass() { return graphClass(c -> c.iconst_0().areturn()); }

    /** The cached artifact with its class replaced, re-signed through the cache (as this user's own Ember would write it). */
    private void storeWithClass(byte[] classBytes) throws Exception {
        storeWithClass(new ArtifactCache(dir, problems::add), onlyEntry(), classBytes);
    }

    private static void storeWithClass(ArtifactCache c, Path entry, byte[] classBytes) {
        String key = entry.getFileName().toString().replace(".emberc", "");
        c.put(key, withClass(c.get(key), classBytes));
    }

    private static byte[] withClass(byte[] artifact, byte[] classBytes) {
        try {
            Artifact a = Artifact.decode(artifact);
            return new Artifact(a.className(), a.sourceText(), classBytes, a.slots(), a.attributePaths(), a.perfHints()).encode();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertComputes(InductorGraph g, Tensor x) {
        assertArrayEquals(((Tensor) graph().run(x)).toFloatArray(), ((Tensor) g.run(x)).toFloatArray(), 1e-6f);
    }

    @Test
    void theIssuesAttackAForgedClassWithARecomputedHashIsNeverLoaded() throws Exception {
        compile();
        Path entry = onlyEntry();
        EntryForger.rewrite(entry, payload -> {
            int keyEnd = 2 + ByteBuffer.wrap(payload).getShort();
            byte[] forged = withClass(Arrays.copyOfRange(payload, keyEnd, payload.length), throwingClass());
            ByteBuffer b = ByteBuffer.allocate(keyEnd + forged.length).put(payload, 0, keyEnd).put(forged);
            return b.array();
        });
        List<InductorGraph> compiled = new ArrayList<>();
        var defined = HiddenClasses.recording(() -> compiled.add(compile()));
        assertFalse(compiled.getFirst().fromCache());
        assertTrue(defined.stream().noneMatch(d -> d.name().contains("Tampered")), "the forged class is never defined: " + defined);
        assertTrue(problems.stream().anyMatch(p -> p.message().startsWith("rejected cache entry " + entry + " (not authenticated:")), problems.toString());
        assertComputes(compiled.getFirst(), Tensor.randn(4, 5));
        assertTrue(compile().fromCache(), "the rebuilt entry is signed and loads");
    }

    @Test
    void cachedCodeThatThrowsIsReplacedOnceWithOneWarningAndLaterRunsAreFine() throws Exception {
        compile();
        Path entry = onlyEntry();
        storeWithClass(throwingClass());
        InductorGraph g = compile();
        assertTrue(g.fromCache(), "signed and verified, so it loads");
        Tensor x = Tensor.randn(4, 5);
        for (int i = 0; i < 3; i++) assertComputes(g, x);
        assertFalse(g.fromCache(), "the graph now runs freshly compiled code");
        assertEquals(1, loggedWarnings().size(), log.toString(StandardCharsets.UTF_8));
        String w = loggedWarnings().getFirst();
        assertTrue(w.contains("compiled code loaded from the cache entry " + entry + " failed at run time (java.lang.ArrayIndexOutOfBoundsException"), w);
        assertTrue(w.contains("deleted the entry and compiled the graph again, which ran. If this happens again, delete the cache folder " + dir), w);

        InductorGraph next = compile();
        assertTrue(next.fromCache(), "the entry was rewritten with the fresh code");
        assertComputes(next, x);
        assertEquals(1, loggedWarnings().size(), "no second warning: " + log.toString(StandardCharsets.UTF_8));
        assertTrue(problems.isEmpty(), problems.toString());
    }

    @Test
    void threadsThatHitFailingCachedCodeTogetherRecompileItOnce() throws Exception {
        compile();
        storeWithClass(throwingClass());
        InductorGraph g = compile();
        Tensor x = Tensor.randn(4, 5);
        float[] want = ((Tensor) graph().run(x)).toFloatArray();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<float[]>> runs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            runs.add(pool.submit(() -> {
                start.await();
                return ((Tensor) g.run(x)).toFloatArray();
            }));
        }
        start.countDown();
        for (var r : runs) assertArrayEquals(want, r.get(), 1e-6f);
        pool.shutdown();
        assertEquals(1, loggedWarnings().size(), log.toString(StandardCharsets.UTF_8));
    }

    /** index_select(x, 0, idx) * 2: an index out of range throws, in eager and in compiled code alike. */
    private static GraphModule selectGraph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), idx = g.placeholder("idx", null);
        g.output(call(g, "mul.Scalar", call(g, "index_select.default", x, 0L, idx), 2.0));
        return new GraphModule(g);
    }

    @Test
    void whenCachedCodeThrowsForInputsEagerRejectsTooTheFreshCodesErrorSurfacesWithoutAWarning() {
        Tensor x = Tensor.randn(4, 5), good = Tensor.of(new long[] {0, 2}, 2), bad = Tensor.of(new long[] {0, 9}, 2);
        Inductor.compile(selectGraph(), List.of(x, good), CompileMode.DEFAULT, new ArtifactCache(dir, problems::add));
        InductorGraph g = Inductor.compile(selectGraph(), List.of(x, good), CompileMode.DEFAULT, new ArtifactCache(dir, problems::add));
        assertTrue(g.fromCache());
        RuntimeException eager = assertThrows(RuntimeException.class, () -> selectGraph().run(x, bad));
        RuntimeException compiled = assertThrows(RuntimeException.class, () -> g.run(x, bad));
        assertEquals(eager.getClass(), compiled.getClass(), compiled.toString());
        assertEquals(List.of(), loggedWarnings(), "the cache was not at fault");
        assertArrayEquals(((Tensor) selectGraph().run(x, good)).toFloatArray(), ((Tensor) g.run(x, good)).toFloatArray(), 1e-6f);
        assertTrue(problems.isEmpty(), problems.toString());
    }

    @Test
    void freshCodeThatThrowsIsNotRecompiledTheErrorSurfaces() {
        InductorGraph broken = compile().withClassBytes(throwingClass());
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> broken.run(Tensor.randn(4, 5)));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> broken.run(Tensor.randn(4, 5)));
        assertEquals(List.of(), loggedWarnings());
    }

    @Test
    void aCachedClassThatDoesNotVerifyIsRejectedAndRebuilt() throws Exception {
        assertTrue(HiddenClasses.jvmVerifies(), "the test JVM verifies the classes Ember defines");
        compile();
        Path entry = onlyEntry();
        storeWithClass(unverifiableClass());
        InductorGraph g = compile();
        assertFalse(g.fromCache());
        assertTrue(problems.stream().anyMatch(p -> p.message().startsWith("rejected cache entry " + entry + " (its class cannot be loaded: java.lang.VerifyError")),
                problems.toString());
        assertComputes(g, Tensor.randn(4, 5));
        assertTrue(compile().fromCache(), "rebuilt");
    }

    @Test
    void aCachedArtifactWithANegativeArenaSizeIsRejectedBeforeAnythingRuns() throws Exception {
        compile();
        Path entry = onlyEntry();
        String key = entry.getFileName().toString().replace(".emberc", "");
        ArtifactCache c = new ArtifactCache(dir, problems::add);
        Artifact a = Artifact.decode(c.get(key));
        List<MemoryPlan.Slot> slots = new ArrayList<>(a.slots());
        slots.addFirst(new MemoryPlan.Slot(dev.ember.tensor.DType.FLOAT32, -1, false));
        c.put(key, new Artifact(a.className(), a.sourceText(), a.classBytes(), slots, a.attributePaths(), a.perfHints()).encode());
        InductorGraph g = compile();
        assertFalse(g.fromCache());
        assertTrue(problems.stream().anyMatch(p -> p.message().equals("rejected cache entry " + entry
                + " (cannot be decoded: java.io.IOException: arena slot 0 has size -1); deleted it, the graph is compiled again")), problems.toString());
        assertComputes(g, Tensor.randn(4, 5));
    }

    /** With {@code -Xverify:none} the JVM checks nothing, so Ember verifies a cached class itself before defining it. */
    @Test
    void withTheJvmVerifierOffEmberVerifiesCachedClassesItself() throws Exception {
        ChildJvm.Run r = ChildJvm.main(WithoutJvmVerifier.class).flags("-Xverify:none", "-ea").args(dir.toString()).run();
        String out = r.said();
        assertEquals(0, r.exit(), out);
        assertTrue(out.contains("jvmVerifies=false"), out);
        assertTrue(out.contains("rejected cache entry " + onlyEntry() + " (its class does not verify: [Bad type on operand stack in dev/ember/inductor/Tampered::call"), out);
        assertTrue(out.contains("fromCache=false, computes=true"), out);
    }

    /** Run in a JVM started with {@code -Xverify:none}: stores an unverifiable class in the cache and compiles again. */
    static final class WithoutJvmVerifier {
        public static void main(String[] args) {
            Path dir = Path.of(args[0]);
            Consumer<ArtifactCache.Problem> print = pr -> System.out.println(pr.message());
            System.out.println("jvmVerifies=" + HiddenClasses.jvmVerifies());
            List<Tensor> example = List.of(Tensor.randn(4, 5));
            Inductor.compile(graph(), example, CompileMode.DEFAULT, new ArtifactCache(dir, print));
            ArtifactCache.awaitWrites();
            try (var files = Files.list(dir)) {
                storeWithClass(new ArtifactCache(dir, print), files.filter(f -> f.toString().endsWith(".emberc")).findFirst().orElseThrow(), unverifiableClass());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            InductorGraph g = Inductor.compile(graph(), example, CompileMode.DEFAULT, new ArtifactCache(dir, print));
            Tensor x = Tensor.randn(4, 5);
            float[] want = ((Tensor) graph().run(x)).toFloatArray(), got = ((Tensor) g.run(x)).toFloatArray();
            boolean computes = true;
            for (int i = 0; i < want.length; i++) computes &= Math.abs(want[i] - got[i]) <= 1e-6f;
            System.out.println("fromCache=" + g.fromCache() + ", computes=" + computes);
        }
    }
}
