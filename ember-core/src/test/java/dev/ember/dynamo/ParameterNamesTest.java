package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guards name arguments as the source does: from the LocalVariableTable ({@code -g}), else from the
 * MethodParameters attribute ({@code -parameters}, named methods only: javac writes none for a
 * lambda's method), else {@code arg0}, {@code arg1} as reflection names them. Each case compiles a
 * small class with javac's options in the test and loads it.
 */
class ParameterNamesTest {
    @TempDir
    Path dir;

    @AfterEach
    void reset() { Ember.reset(); }

    private static final String SOURCE = """
            import dev.ember.Fn2;
            import dev.ember.tensor.Tensor;
            public class Prog%s {
                static Tensor scale(Tensor x, int n) { return x.mul(n); }
                public static Fn2<Tensor, Integer, Tensor> method() { return Prog%s::scale; }
                public static Fn2<Tensor, Integer, Tensor> lambda() { return (x, n) -> x.mul(n); }
            }
            """;

    /** {@code ProgN} compiled with {@code options}, loaded from its class file. */
    private Class<?> compile(String suffix, String... options) throws Exception {
        Path out = Files.createDirectories(dir.resolve("out" + suffix));
        Path file = dir.resolve("Prog" + suffix + ".java");
        Files.writeString(file, SOURCE.formatted(suffix, suffix));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of("-d", out.toString(), "-cp", Path.of(Tensor.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(),
                file.toString()));
        assertEquals(0, javac.run(null, null, diagnostics, args.toArray(String[]::new)), diagnostics::toString);
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader()).loadClass("Prog" + suffix);
    }

    @SuppressWarnings("unchecked")
    private static List<String> guardsOf(Class<?> prog, String factory) throws Exception {
        Fn2<Tensor, Integer, Tensor> fn = (Fn2<Tensor, Integer, Tensor>) prog.getMethod(factory).invoke(null);
        Options opts = Options.backend(new CompileCounter());
        var f = Ember.compile(fn, opts);
        Tensor x = Tensor.randn(3);
        assertArrayEquals(fn.apply(x, 2).toFloatArray(), f.apply(x, 2).toFloatArray());
        CompiledFrame frame = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).findFirst().orElseThrow();
        return frame.entries().stream().flatMap(e -> e.graph().guards().stream()).map(g -> g.describe()).toList();
    }

    private static void assertNames(List<String> guards, String tensor, String integer) {
        assertTrue(guards.stream().anyMatch(g -> g.startsWith("TENSOR_MATCH: L['" + tensor + "']")), guards.toString());
        assertTrue(guards.contains("EQUALS_MATCH: L['" + integer + "'] == 2"), guards.toString());
    }

    @Test
    void theLocalVariableTableNamesMethodAndLambdaParameters() throws Exception {
        Class<?> prog = compile("Debug", "-g");
        assertNames(guardsOf(prog, "method"), "x", "n");
        assertNames(guardsOf(prog, "lambda"), "x", "n");
    }

    @Test
    void withoutDebugInformationMethodParametersNameAMethodsParameters() throws Exception {
        Class<?> prog = compile("Params", "-g:none", "-parameters");
        assertNames(guardsOf(prog, "method"), "x", "n");
        // javac writes no MethodParameters for a lambda's method: reflection's names remain
        assertNames(guardsOf(prog, "lambda"), "arg0", "arg1");
    }

    @Test
    void withNeitherTheFallbackIsReflectionsNames() throws Exception {
        Class<?> prog = compile("Bare", "-g:none");
        assertNames(guardsOf(prog, "method"), "arg0", "arg1");
    }
}
