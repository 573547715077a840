package dev.ember.debug.fuzz;

import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles generated programs with javac, in memory, many classes per javac task (javac's start-up
 * dominates the cost of one small class). Programs are Java source rather than bytecode written
 * directly because the source is what a user writes and what a failure's repro shows: javac's
 * bytecode is exactly what capture meets in user code (its lambdas, its boxing, its
 * {@code invokedynamic} string concatenation), so nothing is tested that users never run.
 */
public final class ProgramCompiler {
    private ProgramCompiler() {}

    /** A class that could not be compiled: the generator wrote an ill-typed program (a bug of the fuzzer). */
    public static final class CompileError extends RuntimeException {
        CompileError(String message) { super(message); }
    }

    /**
     * Compiles {@code sources} (class name → source, default package) and loads them in a fresh
     * class loader that also serves their class files as resources, as a class path does: capture
     * reads the bytecode of the method it compiles through the class's loader.
     */
    public static Map<String, Class<?>> compile(Map<String, String> sources) {
        Map<String, byte[]> bytes;
        try {
            bytes = classFiles(sources, List.of("-g"));
        } catch (IllegalArgumentException e) {
            throw new CompileError("generated program does not compile: " + e.getMessage());
        }
        Loader loader = new Loader(bytes);
        Map<String, Class<?>> classes = new HashMap<>();
        for (String name : sources.keySet()) {
            try {
                classes.put(name, loader.loadClass(name));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("javac wrote no class " + name, e);
            }
        }
        return classes;
    }

    /**
     * javac in memory: the class files of {@code sources} (binary name → source) compiled against
     * this JVM's class path with {@code options} added; each class file by its binary name.
     *
     * @throws IllegalArgumentException with javac's diagnostics when a source does not compile
     */
    public static Map<String, byte[]> classFiles(Map<String, String> sources, List<String> options) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) throw new IllegalStateException("compiling Java needs javac: run on a JDK, not a JRE");
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
        List<JavaFileObject> files = new ArrayList<>();
        sources.forEach((name, source) -> files.add(new SimpleJavaFileObject(URI.create("string:///" + name.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) { return source; }
        }));
        List<String> all = new ArrayList<>(List.of("-proc:none", "-nowarn", "-classpath", System.getProperty("java.class.path")));
        all.addAll(options);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        if (!javac.getTask(null, fm, diagnostics, all, null, files).call()) throw new IllegalArgumentException(String.valueOf(diagnostics.getDiagnostics()));
        Map<String, byte[]> bytes = new HashMap<>();
        out.forEach((k, v) -> bytes.put(k, v.toByteArray()));
        return bytes;
    }

    /** Defines the compiled classes and serves their bytes as {@code Name.class} resources. */
    private static final class Loader extends ClassLoader {
        private final Map<String, byte[]> classes;

        Loader(Map<String, byte[]> classes) {
            super(ProgramCompiler.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) throw new ClassNotFoundException(name);
            return defineClass(name, b, 0, b.length);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            if (name.endsWith(".class")) {
                byte[] b = classes.get(name.substring(0, name.length() - 6).replace('/', '.'));
                if (b != null) return new ByteArrayInputStream(b);
            }
            return super.getResourceAsStream(name);
        }
    }
}
