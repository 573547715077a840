package dev.ember.report;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.logging.Trace;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recompile names the cached entry that came closest (fewest failing guards), not only the newest:
 * in the recompiles log, and in the report with both entries' guards side by side, what differs marked.
 */
class ClosestEntryTest {
    @TempDir
    Path tmp;

    private final PrintStream stderr = Logs.output();

    @AfterEach
    void restore() {
        Trace.stop();
        Logs.set("");
        Logs.setOutput(stderr);
        Ember.reset();
    }

    static Tensor total(Tensor x, Tensor y) {
        return x.sum().add(y.sum());
    }

    @Test
    void theOldestEntryIsClosestWhenOnlyOneOfItsGuardsFails() throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        Ember.setLogs("recompiles");
        Trace.start(tmp.resolve("trace"));
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(ClosestEntryTest::total, Options.defaults().dynamic(false));
        f.apply(Tensor.randn(2), Tensor.randn(2));   // entry A
        f.apply(Tensor.randn(4), Tensor.randn(4));   // entry B: x and y differ from A
        f.apply(Tensor.randn(2), Tensor.randn(5));   // B fails on x and y, A on y only
        Trace.stop();

        String out = log.toString(StandardCharsets.UTF_8);
        Matcher first = Pattern.compile("\\[(\\d+)/0\\]").matcher(out);
        assertTrue(first.find(), out);
        String frame = first.group(1);
        String third = out.substring(out.lastIndexOf("Recompiling function"));
        assertTrue(third.contains("- tensor 'x' size mismatch at index 0. expected 4, actual 2\n"), "the newest entry's first failure: " + third);
        assertTrue(third.contains("[recompiles]     closest cache entry [" + frame + "/0] differs only in: tensor 'y' size mismatch at index 0. expected 2, actual 5\n"),
                third);

        Report.generate(tmp.resolve("trace"), tmp.resolve("out"));
        String page = Files.readString(tmp.resolve("out").resolve(frame + "_2_0/index.html"));
        String closest = page.substring(page.indexOf("<h3>Closest cached entry [" + frame + "/0]</h3>"));
        assertTrue(closest.contains("href=\"../" + frame + "_0_0/index.html\""), "links the cached entry's compilation: " + closest);
        Matcher marked = Pattern.compile("<mark class=\"diff\">([^<]*)</mark>").matcher(closest.substring(0, closest.indexOf("</div></div>")));
        int n = 0;
        while (marked.find()) {
            n++;
            assertTrue(marked.group(1).contains("L[&#39;y&#39;]"), "only y's guard differs: " + marked.group(1));
        }
        assertEquals(2, n, "y's guard in each list: " + closest);
        String failures = Files.readString(tmp.resolve("out").resolve("failures_and_restarts.html"));
        assertTrue(failures.contains("<code>[" + frame + "/0]</code> differs in<ul><li><code>tensor &#39;y&#39; size mismatch at index 0. expected 2, actual 5"),
                failures);
    }
}
