package dev.ember.inductor;

import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Compiles the printed {@code output_code} with javac, in memory: a test checks it is Java that computes what the bytecode does. */
final class Javac {
    private Javac() {}

    static byte[] compile(String qualifiedName, String source) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Map<String, ByteArrayOutputStream> out = new HashMap<>();
        JavaFileManager fm = new ForwardingJavaFileManager<>(javac.getStandardFileManager(null, null, null)) {
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
        List<String> options = List.of("-proc:none", "-nowarn", "--add-modules", "jdk.incubator.vector", "-classpath", System.getProperty("java.class.path"));
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        if (!javac.getTask(null, fm, diagnostics, options, null, List.of(file)).call()) {
            throw new AssertionError("the printed source does not compile: " + diagnostics.getDiagnostics() + "\n" + source);
        }
        // javac puts each lambda body in a synthetic method of the same class, as the bytecode writer does: one class file.
        if (out.size() != 1) throw new AssertionError("the printed source compiled to several classes " + out.keySet());
        return out.get(qualifiedName).toByteArray();
    }
}
