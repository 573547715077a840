package dev.ember.inductor;

import dev.ember.debug.fuzz.ProgramCompiler;

import java.util.List;
import java.util.Map;

/** Compiles the printed {@code output_code} with javac, in memory: a test checks it is Java that computes what the bytecode does. */
final class Javac {
    private Javac() {}

    static byte[] compile(String qualifiedName, String source) {
        Map<String, byte[]> out;
        try {
            out = ProgramCompiler.classFiles(Map.of(qualifiedName, source), List.of("--add-modules", "jdk.incubator.vector"));
        } catch (IllegalArgumentException e) {
            throw new AssertionError("the printed source does not compile: " + e.getMessage() + "\n" + source);
        }
        // javac puts each lambda body in a synthetic method of the same class, as the bytecode writer does: one class file.
        if (out.size() != 1) throw new AssertionError("the printed source compiled to several classes " + out.keySet());
        return out.get(qualifiedName);
    }
}
