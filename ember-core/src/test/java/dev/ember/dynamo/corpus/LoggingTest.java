package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The frame evaluator reports graph breaks, recompiles (with the failed guard and the user line), guards and graphs. */
class LoggingTest {
    private final PrintStream stderr = Logs.output();

    @AfterEach
    void restore() {
        Logs.set("");
        Logs.setOutput(stderr);
        Ember.reset();
    }

    private static String capture(String logs, Runnable body) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(buf, true, StandardCharsets.UTF_8));
        Ember.setLogs(logs);
        body.run();
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void recompilesAndGuards() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT);
        String out = capture("recompiles,guards,graph_code", () -> {
            f.apply(Tensor.randn(2, 3));
            f.apply(Tensor.randn(4, 3));
        });
        assertTrue(out.contains("Recompiling function Programs.tOfT in Programs.java:" + GraphBreakTest.lineOf("static Tensor tOfT(")), out);
        assertTrue(out.contains("- tensor 'x' size mismatch at index 0. expected 2, actual 4"), out);
        // the recompile makes the size that changed a symbol: the inductor compiles that graph for every size
        assertTrue(out.contains("TENSOR_MATCH: L['x'] f32[?, 3]") && out.contains("SYMBOLIC_SHAPE: 2 <= x.size(0)"), out);
        assertTrue(out.contains("aten.t.default"), out);
        assertTrue(out.contains("[0/1]") || out.matches("(?s).*\\[\\d+/1\\].*"), "lines carry the compile id: " + out);
    }

    @Test
    void recompilesNamesTheNewestEntryOnlyAndVerboseNamesEvery() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, Options.defaults().dynamic(false));
        Runnable threeSizes = () -> {
            f.apply(Tensor.randn(2, 3));
            f.apply(Tensor.randn(4, 3));
            f.apply(Tensor.randn(6, 3));
        };
        String out = capture("recompiles", threeSizes);
        String third = out.substring(out.lastIndexOf("Recompiling function"));
        assertTrue(third.contains("- tensor 'x' size mismatch at index 0. expected 4, actual 6"), "the entry tried last: " + out);
        assertTrue(!third.contains("expected 2, actual 6"), "an older entry's failure is recompiles_verbose only: " + out);
        Ember.reset();
        String verbose = capture("recompiles_verbose", threeSizes);
        assertTrue(verbose.contains("expected 4, actual 6") && verbose.contains("expected 2, actual 6"), verbose);
    }

    @Test
    void graphBreaks() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::readsItem, Options.defaults());
        String out = capture("graph_breaks", () -> f.apply(Tensor.randn(3, 4)));
        assertTrue(out.contains("Graph break in user code at Programs.java:" + GraphBreakTest.lineOf(".item();")), out);
        assertTrue(out.contains("GB0001"), out);
    }
}
