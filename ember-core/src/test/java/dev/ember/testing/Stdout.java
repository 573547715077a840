package dev.ember.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** What code prints on System.out (or System.err) while it runs (tests of printed output: Comptime, docs examples, warnings). */
public final class Stdout {
    private Stdout() {}

    public static String of(Runnable r) { return captured(r, () -> System.out, System::setOut); }

    /** What {@code r} prints on System.err. */
    public static String errOf(Runnable r) { return captured(r, () -> System.err, System::setErr); }

    private static String captured(Runnable r, Supplier<PrintStream> stream, Consumer<PrintStream> set) {
        PrintStream before = stream.get();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        set.accept(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            set.accept(before);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
