package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.ops.OpRegistry;
import dev.ember.fx.GraphModule;
import dev.ember.fx.NanAsserts;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** NaN asserts in the inductor's special cases: an epilogue written in place, the interpreter, code from the disk cache. */
class NanAssertsInductorTest {
    @TempDir
    Path dir;

    @AfterEach
    void off() { System.clearProperty(NanAsserts.PROPERTY); }

    @Test
    void aValueAnEpilogueOverwroteInPlaceIsTheEpiloguesNode() {
        System.setProperty(NanAsserts.PROPERTY, "1");
        Graph g = new Graph();
        var x = g.placeholder("x", null);
        var w = g.placeholder("w", null);
        var mm = g.callFunction(OpRegistry.get("aten.mm.default"), x, w);
        g.output(g.callFunction(OpRegistry.get("aten.log.default"), mm));
        Tensor xs = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2), ws = Tensor.of(new float[] {1, 0, 0, -1}, 2, 2);
        InductorGraph c = Inductor.compile(new GraphModule(g), List.of(xs, ws), CompileMode.DEFAULT, null);
        assertTrue(c.sourceCode().contains("gemm + epilogue: mm, log"), c.sourceCode());
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> c.run(xs, ws));
        assertEquals("node log", e.node(), "mm's values are not in memory any more: log wrote over them");
        assertEquals("[0, 1]", e.index());
    }

    @Test
    void aNaNFromCachedCodeIsReportedAndTheCodeKept() {
        System.setProperty(NanAsserts.PROPERTY, "1");
        List<String> problems = new ArrayList<>();
        Graph g = new Graph();
        var x = g.placeholder("x", null);
        g.output(g.callFunction(OpRegistry.get("aten.log.default"), x));
        GraphModule gm = new GraphModule(g);
        Inductor.compile(gm, List.of(Tensor.of(1f, 2f)), CompileMode.DEFAULT, new ArtifactCache(dir, p -> problems.add(p.message())));
        InductorGraph cached = Inductor.compile(gm, List.of(Tensor.of(1f, 2f)), CompileMode.DEFAULT, new ArtifactCache(dir, p -> problems.add(p.message())));
        assertTrue(cached.fromCache());
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> cached.run(Tensor.of(1f, -1f)));
        assertEquals("[1]", e.index());
        assertEquals("GraphModule", e.graph());
        assertTrue(cached.fromCache(), "a NaN is the program's, not a sign of damaged cached code: the code is not replaced");
        assertEquals(List.of(), problems);
    }

    @Test
    void aGraphRunInTheInterpreterIsCheckedToo() {
        System.setProperty(NanAsserts.PROPERTY, "1");
        Graph g = new Graph();
        var x = g.placeholder("x", null);
        g.output(g.callMethod("log", List.of(x), Map.of()));   // a call_method node: not lowered
        InductorGraph c = Inductor.compile(new GraphModule(g), List.of(Tensor.of(1f)), CompileMode.DEFAULT, null);
        assertTrue(c.perfHints().contains("the whole graph runs in the interpreter"), c.perfHints()::toString);
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> c.run(Tensor.of(1f, -1f)));
        assertEquals("op log", e.ranAfter());
        assertEquals("[1]", e.index());
        assertEquals("GraphModule", e.graph(), "outside a compilation, the module's class name");
    }
}
