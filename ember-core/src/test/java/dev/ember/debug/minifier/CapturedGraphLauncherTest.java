package dev.ember.debug.minifier;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
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

/** Graphs Dynamo really captures (views, reductions, lists, getitem, GEMMs), saved at level 3 and reloaded: they parse back and still agree with eager. */
class CapturedGraphLauncherTest {
    @TempDir
    Path tmp;

    static Tensor block(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).gelu("tanh");
        Tensor centred = h.sub(h.mean(1, true));
        Tensor norm = centred.div(centred.pow(2.0).sum(new int[] {1}, true).add(1e-5).sqrt());
        Tensor t = norm.view(2, -1).permute(1, 0).unsqueeze(0);
        Tensor s = Tensor.cat(List.of(t.softmax(1), t.amax(1, true)), 1);
        return s.where(s.gt(0.1), s.mul(0.5)).transpose(1, 2).contiguous();
    }

    @AfterEach
    void clear() {
        for (String p : List.of("ember.repro.dir", "ember.repro.level", "ember.repro.after")) System.clearProperty(p);
        Ember.reset();
    }

    @Test
    void capturedAndPostAotGraphsRoundTrip() throws IOException {
        for (String after : List.of("dynamo", "aot")) {
            Ember.reset();
            Path dir = tmp.resolve(after);
            System.setProperty("ember.repro.dir", dir.toString());
            System.setProperty("ember.repro.level", "3");
            System.setProperty("ember.repro.after", after);
            Tensor x = Tensor.randn(4, 6), w = Tensor.randn(6, 6).t();     // a transposed weight: a non-contiguous input
            Tensor out = Ember.compile(CapturedGraphLauncherTest::block, Options.backend("inductor")).apply(x, w);
            assertEquals(block(x, w).toDoubleArray()[3], out.toDoubleArray()[3], 1e-5);
            Path launcher;
            try (var dirs = Files.list(dir)) {
                launcher = dirs.findFirst().orElseThrow();
            }
            Launcher l = Launcher.read(launcher);
            assertEquals(after, l.after().text());
            assertTrue(l.graph().graph().size() > 10, l.graph().code());
            Outcome now = FailureCheck.check(l.graph(), l.inputs(), Backends.get("inductor"), CompileMode.DEFAULT, l.tolerance());
            assertFalse(now.failed(), after + ": " + now.describe() + "\n" + l.graph().code());
            assertFalse(((Tensor) l.inputs().get(1)).isContiguous(), "the transposed weight stays transposed");
        }
    }
}
