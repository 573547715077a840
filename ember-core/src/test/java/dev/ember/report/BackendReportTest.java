package dev.ember.report;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.logging.Trace;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the inductor did reaches the report: on a cache miss the pass diffs (the graph before and
 * after each pass that changed it, changed lines marked; fusion's kernels), the fusion decisions and the output code;
 * on a hit, that the class came from the cache, with its code.
 */
class BackendReportTest {
    @TempDir
    Path tmp;

    @AfterEach
    void restore() {
        Trace.stop();
        System.clearProperty("ember.cache.dir");
        Ember.reset();
    }

    static Tensor withDeadCode(Tensor x) {
        Tensor unused = x.exp();
        return x.softmax(0).mul(2);
    }

    @Test
    void aMissShowsThePassDiffsAndFusionAHitShowsTheCachedClass() throws IOException {
        System.setProperty("ember.cache.dir", tmp.resolve("cache").toString());
        Trace.start(tmp.resolve("trace"));
        Ember.compile(BackendReportTest::withDeadCode, Options.backend("inductor")).apply(Tensor.randn(4));
        Ember.reset();   // a new frame: compiled again, its class from the cache
        Ember.compile(BackendReportTest::withDeadCode, Options.backend("inductor")).apply(Tensor.randn(4));
        Trace.stop();

        ReportModel m = ReportModel.read(tmp.resolve("trace"));
        List<Compilation> cs = List.copyOf(m.compilations.values());
        assertEquals(2, cs.size(), "two frames, one compile each");
        Compilation miss = cs.get(0), hit = cs.get(1);
        Report.generate(tmp.resolve("trace"), tmp.resolve("out"));

        String missPage = Files.readString(tmp.resolve("out").resolve(miss.folder).resolve("index.html"));
        assertTrue(missPage.contains("<a href=\"passes.html\">Pass diffs</a>"), missPage);
        assertTrue(missPage.contains("<h3>Fusion decisions</h3>"), missPage);
        assertTrue(missPage.contains("<h3>Output code</h3>"), missPage);
        String passes = Files.readString(tmp.resolve("out").resolve(miss.folder).resolve("passes.html"));
        assertTrue(passes.contains("<h2>pre_grad.dead_code_elimination</h2>"), passes);
        String dce = passes.substring(passes.indexOf("<h2>pre_grad.dead_code_elimination</h2>"));
        dce = dce.substring(0, dce.indexOf("</div></div>"));
        assertTrue(dce.matches("(?s).*<mark class=\"del\">[^<]*aten\\.exp[^<]*</mark>.*"), "the dead exp is marked removed: " + dce);
        assertFalse(dce.contains("<mark class=\"add\">"), "DCE adds nothing: " + dce);
        assertTrue(passes.contains("<h2>aot.decompositions</h2>"), "softmax decomposes: " + passes);
        String fusion = passes.substring(passes.indexOf("<h2>inductor.fusion</h2>"));
        assertTrue(fusion.contains(" ops, one kernel each:") && fusion.contains(" kernels:"), "every op a kernel before, the kernels after: " + fusion);

        String hitPage = Files.readString(tmp.resolve("out").resolve(hit.folder).resolve("index.html"));
        assertTrue(hitPage.contains("<span class=\"badge status-empty\">cached</span> The compiled class was loaded from the inductor's cache, <code>"
                + tmp.resolve("cache")), hitPage);
        assertTrue(hitPage.contains("<h3>Output code (cached)</h3>"), hitPage);
        assertFalse(hitPage.contains("Pass diffs") || hitPage.contains("Fusion decisions"), "nothing of the pipeline ran: " + hitPage);
    }
}
