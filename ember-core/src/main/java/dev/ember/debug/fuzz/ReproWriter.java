package dev.ember.debug.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a failure as {@code FuzzRepro_<seed>.java}: the (minimized) program as the class a user
 * would write, plus a {@code main} that runs it eagerly and under the failing configuration and
 * prints both and the verdict. It is an ordinary class compiled with javac, not a single-file
 * source program: the source launcher's class loader cannot host the resume classes a graph break
 * generates.
 */
public final class ReproWriter {
    private ReproWriter() {}

    public static String className(Program p) { return "FuzzRepro_" + Long.toUnsignedString(p.seed()); }

    /** The repro's source for {@code failure}, shown as {@code minimized}. */
    public static String source(Failure failure, Program minimized) {
        String name = className(minimized);
        String cp = System.getProperty("java.class.path");
        String header = "/*\n * Differential fuzzer repro: seed " + minimized.seed() + ", " + failure.config().name() + ".\n"
                + " * Found by " + dev.ember.debug.BuildIdentity.line() + ".\n"
                + " * " + failure.what().toString().replace("\n", "\n * ") + "\n"
                + " * Regenerate the original program: ./ember fuzz --graphs 1 --seed " + minimized.seed() + " --backends " + failure.config().name() + "\n"
                + " * Run this one:\n"
                + " *   javac -cp \"" + cp + "\" " + name + ".java\n"
                + " *   java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp \"" + cp + java.io.File.pathSeparator + ".\" " + name + "\n"
                + " * It prints eager's and the compiled result and the verdict, and exits 1 while the failure reproduces.\n */\n";
        String main = "\n    public static int reproduce() { return dev.ember.debug.fuzz.Repro.check(" + name + ".class, \"" + failure.config().name() + "\"); }\n\n"
                + "    public static void main(String[] args) { System.exit(reproduce()); }\n";
        return header + minimized.source(name, main);
    }

    /** Writes {@link #source} into {@code dir} and returns its path. */
    public static Path write(Path dir, Failure failure, Program minimized) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(className(minimized) + ".java");
            Files.writeString(file, source(failure, minimized));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the repro into " + dir + ": " + e.getMessage(), e);
        }
    }
}
