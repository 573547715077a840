package dev.ember.debug;

import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Programs whose compiler output the debug tests read; lines are found by their text, so edits here stay safe. */
final class DebugPrograms {
    private DebugPrograms() {}

    static Tensor scaleShift(Tensor x, Tensor y) {
        Tensor scaled = x.mul(2.0);
        Tensor shifted = scaled.add(y);
        return shifted.relu();
    }

    static Tensor softmaxRows(Tensor x) {
        return x.softmax(1);
    }

    static Tensor breaksOnItem(Tensor x) {
        Tensor s = x.sin();
        double v = s.select(0, 0).select(0, 0).item();
        return s.mul(v > 0 ? 2.0 : 3.0);
    }

    static Tensor scalesAfterLongLoop(Tensor x) {
        long n = 0;
        for (int i = 0; i < 10_000_000; i++) n += i;
        return x.mul(n > 0 ? 2.0 : 3.0);
    }

    private static final Object LOCK = new Object();

    static Tensor scalesUnderLock(Tensor x) {
        synchronized (LOCK) {
            return x.mul(3.0);
        }
    }

    static Tensor passesThrough(Tensor x) {
        return x;
    }

    private static final Path SOURCE = Path.of("src/test/java/dev/ember/debug/DebugPrograms.java");

    /** The 1-based line of this file holding {@code marker} (which must be unique). */
    static int lineOf(String marker) {
        try {
            List<String> lines = Files.readAllLines(Files.exists(SOURCE) ? SOURCE : Path.of("ember-core").resolve(SOURCE));
            int found = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(marker)) {
                    if (found >= 0) throw new AssertionError("marker '" + marker + "' is not unique in DebugPrograms.java");
                    found = i + 1;
                }
            }
            if (found < 0) throw new AssertionError("marker '" + marker + "' not found in DebugPrograms.java");
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
