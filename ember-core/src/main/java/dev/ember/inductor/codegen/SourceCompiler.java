package dev.ember.inductor.codegen;

import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles generated source in memory with the JDK's javac (no files): the source is a string,
 * class files land in byte arrays. The standard file manager is created once and reused — it
 * caches the platform's class index, which is most of a warm compile's cost.
 */
public final class SourceCompiler {
    private SourceCompiler() {}

    private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();
    private static StandardJavaFileManager standard;

    /** Whether the Vector API module is present at run time (generated code may then use it). */
    public static final boolean VECTOR_API = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    /** Compiles {@code source} (one top-level class {@code packageName.className}) and returns its class file. */
    public static synchronized byte[] compile(String qualifiedName, String source) {
        if (JAVAC == null) throw new IllegalStateException("inductor needs javac (a JDK, not a JRE) to compile generated code");
        if (standard == null) standard = JAVAC.getStandardFileManager(null, null, null);
        Map<String, ByteArrayOutputStream> out = new HashMap<>();
        JavaFileManager fm = new ForwardingJavaFileManager<>(standard) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + ".class"), kind) {
                    @Override
                    public OutputStream openOutputStream() { return out.computeIfAbsent(className, k -> new ByteArrayOutputStream()); }
                };
            }
        };
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + qualifiedName.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) { return source; }
        };
        List<String> options = new ArrayList<>(List.of("-proc:none", "-g:none", "-nowarn", "-XDuseUnsharedTable=true", "-classpath", classPath()));
        if (VECTOR_API) options.addAll(List.of("--add-modules", "jdk.incubator.vector"));
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean ok = JAVAC.getTask(null, fm, diagnostics, options, null, List.of(file)).call();
        if (!ok || !out.containsKey(qualifiedName)) {
            throw new IllegalStateException("inductor generated code that does not compile (a compiler bug): " + diagnostics.getDiagnostics()
                    + "\n" + numbered(source));
        }
        if (out.size() != 1) throw new IllegalStateException("generated code compiled to several classes " + out.keySet());
        return out.get(qualifiedName).toByteArray();
    }

    /** Where Ember's own classes are: all generated code refers to besides the JDK. */
    private static String classPath() {
        try {
            Path p = Path.of(dev.ember.tensor.Tensor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return p.toString();
        } catch (Exception e) {
            return System.getProperty("java.class.path");
        }
    }

    private static String numbered(String source) {
        String[] lines = source.split("\n");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines.length; i++) sb.append(String.format("%4d  %s%n", i + 1, lines[i]));
        return sb.toString();
    }
}
