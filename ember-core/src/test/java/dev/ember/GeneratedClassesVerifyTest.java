package dev.ember;

import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.jvm.HiddenClasses;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.Opcode;
import java.lang.constant.ClassDesc;
import java.lang.invoke.MethodHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every class Ember generates — compiled guards, resume code after a graph break, inductor graphs
 * (pointwise, reductions, a GEMM with its epilogue, an extern fallback; modes default, max-autotune
 * and reduce-overhead; fresh and loaded from the disk cache) — passes the verifier: the JVM's, as
 * it defines each one (this JVM verifies them, {@link HiddenClasses#jvmVerifies}), and the
 * class-file API's, run here on the recorded bytes so a failure names the class and the error.
 */
class GeneratedClassesVerifyTest {
    private static String savedCacheDir;

    @BeforeAll
    static void freshCache() throws Exception {
        savedCacheDir = System.getProperty("ember.cache.dir");
        System.setProperty("ember.cache.dir", Files.createTempDirectory("ember-verify-cache").toString());
    }

    @AfterAll
    static void restoreCache() {
        if (savedCacheDir == null) System.clearProperty("ember.cache.dir");
        else System.setProperty("ember.cache.dir", savedCacheDir);
    }

    static Tensor withBreak(Tensor x, Tensor y) {
        Tensor z = x.add(y).relu();
        Ember.graphBreak();
        return z.mul(2).sum(1, true);
    }

    static Tensor gemmEpilogue(Tensor x, Tensor w, Tensor b) { return x.matmul(w.t()).add(b).relu(); }

    static Tensor reductions(Tensor x, Tensor y) { return x.softmax(-1).mul(y.sum(1, true)); }

    static Tensor externFallback(Tensor x, Tensor y) { return Tensor.cat(List.of(x.relu(), y.sigmoid()), 0).mul(3); }

    private static void runPrograms() {
        Tensor x = Tensor.randn(8, 32), y = Tensor.randn(8, 32), w = Tensor.randn(16, 32), b = Tensor.randn(16);
        for (String mode : List.of("default", "max-autotune", "reduce-overhead")) {
            Options o = Options.backend("inductor").mode(mode);
            Ember.compile(GeneratedClassesVerifyTest::withBreak, o).apply(x, y);
            Ember.compile(GeneratedClassesVerifyTest::gemmEpilogue, o).apply(x, w, b);
            Ember.compile(GeneratedClassesVerifyTest::reductions, o).apply(x, y);
            Ember.compile(GeneratedClassesVerifyTest::externFallback, o).apply(x, y);
        }
    }

    private static List<String> verifyErrors(HiddenClasses.Defined c) {
        ClassHierarchyResolver resolver = ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(c.loader()));
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver)).verify(c.bytes()).stream().map(Throwable::getMessage).toList();
    }

    @Test
    void everyGeneratedClassPassesTheVerifier() throws Exception {
        assertTrue(HiddenClasses.jvmVerifies(), "this JVM verifies every class Ember defines (run it without -Xverify:none)");
        Ember.reset();
        List<HiddenClasses.Defined> fresh = HiddenClasses.recording(GeneratedClassesVerifyTest::runPrograms);
        ArtifactCache.awaitWrites();
        try (var entries = Files.list(Path.of(System.getProperty("ember.cache.dir")))) {
            assertTrue(entries.filter(p -> p.toString().endsWith(".emberc")).count() >= 4, "the graphs were stored, so the second round loads them");
        }
        Ember.reset();
        List<HiddenClasses.Defined> cached = HiddenClasses.recording(GeneratedClassesVerifyTest::runPrograms);
        Ember.reset();

        List<HiddenClasses.Defined> all = new ArrayList<>(fresh);
        all.addAll(cached);
        for (String kind : List.of("CompiledGuards", "$Resume", "Graph_")) {
            assertTrue(all.stream().anyMatch(c -> c.name().contains(kind)), "a generated " + kind + " class among " + all.stream().map(HiddenClasses.Defined::name).toList());
        }
        assertTrue(cached.stream().filter(c -> c.name().contains("Graph_")).count() >= 4, "graphs loaded from the disk cache are recorded too");
        List<String> failures = new ArrayList<>();
        for (HiddenClasses.Defined c : all) {
            List<String> errors = verifyErrors(c);
            if (!errors.isEmpty()) failures.add(c.name() + ": " + errors);
        }
        assertEquals(List.of(), failures);
    }

    /** The check above can fail: a compiled guard made to return null where it returns true fails both verifiers. */
    @Test
    void aCorruptedGeneratedClassFailsBothVerifiers() {
        Ember.reset();
        Tensor x = Tensor.randn(4, 4), y = Tensor.randn(4, 4);
        List<HiddenClasses.Defined> defined = HiddenClasses.recording(() -> Ember.compile(GeneratedClassesVerifyTest::reductions).apply(x, y));
        Ember.reset();
        HiddenClasses.Defined guards = defined.stream().filter(c -> c.name().contains("CompiledGuards")).findFirst().orElseThrow();
        assertEquals(List.of(), verifyErrors(guards));

        CodeTransform trueBecomesNull = (code, e) -> {
            if (e instanceof ConstantInstruction ci && ci.opcode() == Opcode.ICONST_1) code.aconst_null();
            else code.with(e);
        };
        ClassFile withStackMaps = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.ofClassLoading(guards.loader())));
        byte[] corrupted = withStackMaps.transformClass(ClassFile.of().parse(guards.bytes()),
                ClassTransform.transformingMethodBodies(m -> m.methodName().equalsString("check"), trueBecomesNull));
        List<String> errors = verifyErrors(new HiddenClasses.Defined(guards.name(), corrupted, guards.loader()));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.getFirst().contains("CompiledGuards::check(Object[])") && errors.getFirst().contains("integer_type is not assignable from null_type"),
                errors.getFirst());

        byte[] here = withStackMaps.transformClass(ClassFile.of().parse(corrupted),
                ClassDesc.of(GeneratedClassesVerifyTest.class.getPackageName() + ".CorruptedGuards"), ClassTransform.ACCEPT_ALL);
        VerifyError e = assertThrows(VerifyError.class, () -> HiddenClasses.define(MethodHandles.lookup(), here, List.of()));
        assertTrue(e.getMessage().contains("Bad type on operand stack"), e.getMessage());
    }
}
