package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.logging.Trace;
import dev.ember.report.Report;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compilations write the structured trace (EMBER_TRACE) that `ember report` reads. */
class StructuredTraceTest {

    @AfterEach
    void stop() {
        Trace.stop();
        Ember.reset();
    }

    @Test
    void compilesRecompilesAndBreaksAreTraced(@TempDir Path dir) throws Exception {
        Path file = Trace.start(dir.resolve("trace"));
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT);
        f.apply(Tensor.randn(2, 3));
        f.apply(Tensor.randn(5, 3));
        Ember.compile((Fn1<Tensor, Tensor>) Programs::readsItem).apply(Tensor.randn(3, 4));
        Trace.stop();
        String text = Files.readString(file);
        for (String event : new String[] {"dynamo_start", "dynamo_output_graph", "dynamo_guards", "compilation_metrics", "recompile_reasons",
                "dynamo_graph_break_reason"}) {
            assertTrue(text.contains(event), event + " missing from the trace:\n" + text);
        }
        assertTrue(text.contains("tensor 'x' size mismatch at index 0. expected 2, actual 5"), text);
        Report.Result r = Report.generate(file, dir.resolve("report"));
        // tOfT twice, readsItem up to its break, and readsItem's resume method after it (v > 0 on the double
        // v, a graph input, is guarded by the comparison: no restart)
        assertEquals(4, r.compilations());
        assertEquals(1, r.graphBreaks());
        assertTrue(r.problems().isEmpty(), r.problems().toString());
    }
}
