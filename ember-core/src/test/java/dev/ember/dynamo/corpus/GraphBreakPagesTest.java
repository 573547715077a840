package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.dynamo.GraphBreakType;
import dev.ember.dynamo.Unsupported;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docs/graph-breaks/GBnnnn.md: every page has its sections, shows the code of its programs
 * ({@link GraphBreakPagePrograms}), and says what they do: the example breaks with the page's id,
 * resumes (or not) as the page says, and the fix compiles into fewer graph breaks with eager's result.
 */
class GraphBreakPagesTest {
    private static final Path PAGES = Path.of("..", "docs", "graph-breaks");
    private static final Path PROGRAMS = Path.of("src", "test", "java", "dev", "ember", "dynamo", "corpus", "GraphBreakPagePrograms.java");
    /** Pages written before this test, whose "What Ember does" section says how execution continues. */
    private static final Set<String> OLDER_LAYOUT = Set.of("GB0003", "GB0008", "GB0012");

    private static final Tensor X = Tensor.randn(3, 4);

    @Test
    void everyPageHasItsSections() throws IOException {
        for (GraphBreakType t : GraphBreakType.values()) {
            String page = page(t.id());
            assertTrue(page.startsWith("# " + t.id() + ": " + t.shortType() + "\n"), t.id() + " title");
            for (String s : List.of("## What triggers it", "## Example", "## Fixes")) assertTrue(page.contains("\n" + s + "\n"), t.id() + " lacks " + s);
            String resume = OLDER_LAYOUT.contains(t.id()) ? "## What Ember does" : "## Does execution resume after it";
            assertTrue(page.contains("\n" + resume + "\n"), t.id() + " lacks " + resume);
            String fixes = page.substring(page.indexOf("\n## Fixes\n"));
            if (!OLDER_LAYOUT.contains(t.id())) assertTrue(fixes.contains("```java"), t.id() + ": a fix shown as code");
            for (String h : t.hints()) assertTrue(page.contains(h), t.id() + " lacks the hint " + h);
        }
    }

    @Test
    void pagesShowTheirPrograms() throws IOException {
        String[][] shown = {
                {"GB0001", "gb0001Example", "gb0001Fix"}, {"GB0002", "gb0002Example", "gb0002Fix", "gb0002FixCond", "firstIsThree"},
                {"GB0004", "gb0004Example"}, {"GB0005", "gb0005Example", "gb0005Fix"}, {"GB0006", "gb0006Example", "gb0006Fix"},
                {"GB0007", "gb0007Example", "gb0007Fix"}, {"GB0009", "gb0009Example", "gb0009Fix"}, {"GB0010", "gb0010Example", "gb0010Fix"},
                {"GB0011", "gb0011Example", "gb0011Fix"}, {"GB0013", "gb0013Example", "gb0013Fix"}, {"GB0014", "gb0014Fix"},
                {"GB0015", "gb0015ConstructorRef", "gb0015ConstructorLambda"}, {"GB0016", "gb0016Example", "gb0016Fix"}, {"GB0018", "gb0018Example", "gb0018Fix"},
                {"GB0019", "gb0019Example", "gb0019Fix"}, {"GB0020", "gb0020Example"},
                {"GB0021", "gb0021Example", "gb0021Fix"},
        };
        String source = Files.readString(PROGRAMS);
        for (String[] row : shown) {
            String page = page(row[0]);
            for (int i = 1; i < row.length; i++) assertShows(page, row[0], row[i], body(source, row[i]));
        }
    }

    // ------------------------------------------------------------------ the programs do what their pages say

    @Test
    void gb0001() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0001Example;
        assertResumes(ex, "GB0001", 2);
        assertFixed(ex, GraphBreakPagePrograms::gb0001Fix);
        assertEquals(0, Ember.explain(ex, Options.defaults().captureScalarOutputs(true)).with(X).graphBreakCount());
        ExplainOutput loop = Ember.explain((Fn1<Tensor, Tensor>) GraphBreakPagePrograms::gb0001LoopBound, Options.defaults().captureScalarOutputs(true))
                .with(Tensor.ones(2).mul(3));
        assertBreak(loop, "GB0001");
        assertTrue(loop.breakReasons().getFirst().reason().contains("needs the value of a data-dependent scalar"), loop.toString());
        assertEquals(2, loop.graphCount(), loop.toString());
    }

    @Test
    void gb0002() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0002Example;
        assertResumes(ex, "GB0002", 2);
        assertFixed(ex, GraphBreakPagePrograms::gb0002Fix);
        assertFixed(ex, GraphBreakPagePrograms::gb0002FixCond);
        // each side the branch takes is compiled in the resume method: 3 graphs once both ran
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(ex, Options.backend(cc));
        Tensor pos = Tensor.ones(2, 2), neg = Tensor.ones(2, 2).neg();
        assertTrue(f.apply(pos).sameData(ex.apply(pos)));
        assertTrue(f.apply(neg).sameData(ex.apply(neg)));
        assertEquals(3, cc.frameCount());
        // an assert is no branch: one graph, and the compiled assert fails as eager's does (surefire runs with -ea)
        Fn1<Tensor, Tensor> asserts = GraphBreakPagePrograms::firstIsThree;
        Tensor three = Tensor.of(new float[] {3, 1}, 2), four = Tensor.of(new float[] {4, 1}, 2);
        ExplainOutput e = Ember.explain(asserts).with(three);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        var compiled = Ember.compile(asserts);
        assertTrue(compiled.apply(three).sameData(asserts.apply(three)));
        AssertionError failed = assertThrows(AssertionError.class, () -> compiled.apply(four));
        assertEquals("First dim need to be 3", failed.getMessage());
    }

    @Test
    void gb0004() {
        Fn2<Tensor, List<Tensor>, Tensor> ex = GraphBreakPagePrograms::gb0004Example;
        Vector<Tensor> vector = new Vector<>();
        ExplainOutput e = Ember.explain(ex).with(X, vector);
        assertBreak(e, "GB0004");
        assertEquals(2, e.graphCount(), e.toString());
        assertEquals(1, vector.size());
        List<Tensor> list = new ArrayList<>();
        ExplainOutput fixed = Ember.explain(ex).with(X, list);
        assertEquals(0, fixed.graphBreakCount(), fixed.toString());
        assertEquals(1, fixed.graphCount());
        assertEquals(1, list.size());
        assertTrue(list.getFirst().sameData(X.relu()));
    }

    @Test
    void gb0005() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0005Example;
        assertResumes(ex, "GB0005", 2);
        assertFixed(ex, GraphBreakPagePrograms::gb0005Fix);
        assertBreak(Ember.explain((Fn1<Tensor, Tensor>) GraphBreakPagePrograms::gb0005Flush).with(X), "GB0005");
        assertBreak(Ember.explain((Fn1<Tensor, Tensor>) GraphBreakPagePrograms::gb0005Fix, Options.defaults().reorderableLogging(false)).with(X), "GB0005");
    }

    @Test
    void gb0006() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0006Example;
        assertResumes(ex, "GB0006", 2);
        assertFixed(ex, GraphBreakPagePrograms::gb0006Fix);
        assertFixed(ex, GraphBreakPagePrograms::gb0006FixShape);
    }

    @Test
    void gb0007() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0007Example;
        Unsupported u = assertThrows(Unsupported.class, () -> Ember.compile(ex, Options.fullgraph()).apply(X));
        assertEquals("GB0007", u.gbId());
        // without fullgraph the op runs eagerly and throws eager's own error
        IllegalArgumentException eager = assertThrows(IllegalArgumentException.class, () -> ex.apply(X));
        IllegalArgumentException compiled = assertThrows(IllegalArgumentException.class, () -> Ember.compile(ex).apply(X));
        assertEquals(eager.getMessage(), compiled.getMessage());
        ExplainOutput fixed = Ember.explain((Fn1<Tensor, Tensor>) GraphBreakPagePrograms::gb0007Fix).with(X);
        assertEquals(0, fixed.graphBreakCount());
    }

    @Test
    void gb0009() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0009Example;
        // does not resume: the graph before the block (relu) only; a resume would compile a second one
        ExplainOutput e = assertBreaks(ex, "GB0009");
        assertEquals(List.of(1), e.opsPerGraph(), e.toString());
        assertFixed(ex, GraphBreakPagePrograms::gb0009Fix);
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(ex, Options.backend(cc));
        for (int i = 0; i < 3; i++) assertTrue(f.apply(X).sameData(ex.apply(X)));
        assertEquals(1, cc.frameCount());
        // nothing before the block: nothing compiled
        ExplainOutput first = assertBreaks(GraphBreakPagePrograms::gb0009LockFirst, "GB0009");
        assertEquals(0, first.graphCount(), first.toString());
        // a synchronized method is traced (no break)
        assertEquals(0, Ember.explain((Fn1<Tensor, Tensor>) GraphBreakPagePrograms::gb0009SynchronizedMethod).with(X).graphBreakCount());
        // multianewarray resumes; an array of arrays made row by row does not break
        Fn1<Tensor, Tensor> multi = GraphBreakPagePrograms::gb0009MultiArray;
        assertResumes(multi, "GB0009", 2);
        assertFixed(multi, GraphBreakPagePrograms::gb0009MultiArrayFix);
    }

    @Test
    void gb0010() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0010Example;
        ExplainOutput e = assertBreaks(ex, "GB0010");
        assertEquals(0, e.graphCount(), "does not resume: nothing compiled\n" + e);
        assertFixed(ex, GraphBreakPagePrograms::gb0010Fix);
    }

    @Test
    void gb0011() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0011Example;
        ExplainOutput e = assertResumes(ex, "GB0011", 2);
        assertEquals(List.of(1, 1), e.opsPerGraph(), "relu, then add; down runs eagerly\n" + e);
        assertFixed(ex, GraphBreakPagePrograms::gb0011Fix);
    }

    @Test
    void gb0013() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0013Example;
        ExplainOutput e = assertBreaks(ex, "GB0013");
        assertEquals(List.of(1), e.opsPerGraph(), "does not resume: the rest runs eagerly\n" + e);
        assertFixed(ex, GraphBreakPagePrograms::gb0013Fix);
    }

    @Test
    void gb0014() {
        Fn2<Tensor, String, Tensor> fix = GraphBreakPagePrograms::gb0014Fix;
        for (String mode : List.of("relu", "tanh")) {
            ExplainOutput e = Ember.explain(fix).with(X, mode);
            assertEquals(0, e.graphBreakCount(), e.toString());
            assertTrue(Ember.compile(fix).apply(X, mode).sameData(fix.apply(X, mode)));
        }
    }

    @Test
    void gb0015() {
        // what the page shows as once breaking is traced now: a record's generated equals (RecordMethods) and a constructor
        // reference (Lambdas.targetOf): no break, the answer eager gives
        for (Fn1<Tensor, Tensor> traced : List.<Fn1<Tensor, Tensor>>of(GraphBreakPagePrograms::gb0015Example, GraphBreakPagePrograms::gb0015ConstructorRef,
                GraphBreakPagePrograms::gb0015ConstructorLambda)) {
            Ember.reset();
            ExplainOutput e = Ember.explain(traced).with(X);
            assertEquals(0, e.graphBreakCount(), e.toString());
            assertClose(traced.apply(X), Ember.compile(traced).apply(X), "traced as eager computes it");
        }
    }

    @Test
    void gb0016() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0016Example;
        assertResumes(ex, "GB0016", 2);
        assertFixed(ex, GraphBreakPagePrograms::gb0016Fix);
    }

    @Test
    void gb0018() {
        // requiresGrad() of a computed tensor is answered from the graph unless grad mode changed in the trace
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0018Example, fix = GraphBreakPagePrograms::gb0018Fix;
        Tensor xg = X.detach().requiresGrad(true);
        assertBreak(Ember.explain(ex).with(xg), "GB0018");
        assertClose(ex.apply(xg), Ember.compile(ex).apply(xg), "GB0018: compiled result differs from eager's");
        assertEquals(0, Ember.explain(fix).with(xg).graphBreakCount());
        assertClose(ex.apply(xg), Ember.compile(fix).apply(xg), "the fix computes something else");
        assertResumes(GraphBreakPagePrograms::gb0018Version, "GB0018", 2);
    }

    @Test
    void gb0019() {
        Fn2<Tensor, Tensor, Tensor> ex = GraphBreakPagePrograms::gb0019Example;
        Fn2<Tensor, Tensor, Tensor> fix = GraphBreakPagePrograms::gb0019Fix;
        Tensor w = Tensor.randn(3, 4);
        ExplainOutput e = Ember.explain(ex).with(X, w);
        assertBreak(e, "GB0019");
        ExplainOutput f = Ember.explain(fix).with(X, w);
        assertEquals(0, f.graphBreakCount(), f.toString());
        assertTrue(Ember.compile(ex).apply(X, w).sameData(ex.apply(X, w)));
        assertTrue(Ember.compile(fix).apply(X, w).sameData(ex.apply(X, w)));
    }

    @Test
    void gb0020() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0020Example;
        assertResumes(ex, "GB0020", 2);
        assertFixed(ex, GraphBreakPagePrograms::gb0020Fix);
    }

    @Test
    void gb0021() {
        Fn1<Tensor, Tensor> ex = GraphBreakPagePrograms::gb0021Example;
        ExplainOutput e = assertResumes(ex, "GB0021", 2);
        ExplainOutput.BreakReason b = e.breakReasons().getFirst();
        assertTrue(e.toString().contains("Reason: Dynamic shape operator: aten.masked_select.default; its output's shape depends"), e.toString());
        assertEquals("gb0021Example", b.userFrame().methodName(), b.userFrame().toString());
        assertTrue(b.userFrame().sourceText().contains("maskedSelect"), b.userFrame().toString());
        Unsupported u = assertThrows(Unsupported.class, () -> Ember.compile(ex, Options.fullgraph()).apply(X));
        assertEquals("GB0021", u.gbId());
        assertTrue(u.getMessage().contains("aten.masked_select.default"), u.getMessage());
        assertFixed(ex, GraphBreakPagePrograms::gb0021Fix);
    }

    // ------------------------------------------------------------------ helpers

    private static ExplainOutput assertBreaks(Fn1<Tensor, Tensor> fn, String id) {
        ExplainOutput e = Ember.explain(fn).with(X);
        assertBreak(e, id);
        assertClose(fn.apply(X), Ember.compile(fn).apply(X), id + ": compiled result differs from eager's");
        return e;
    }

    private static ExplainOutput assertResumes(Fn1<Tensor, Tensor> fn, String id, int graphs) {
        ExplainOutput e = assertBreaks(fn, id);
        assertEquals(graphs, e.graphCount(), id + " resumes: the graph after the break is compiled\n" + e);
        return e;
    }

    private static void assertBreak(ExplainOutput e, String id) {
        assertTrue(!e.breakReasons().isEmpty() && e.breakReasons().getFirst().gbId().equals(id), "expected a break " + id + "\n" + e);
    }

    /** The fix compiles with fewer breaks (here: none) and gives eager's result. */
    private static void assertFixed(Fn1<Tensor, Tensor> example, Fn1<Tensor, Tensor> fix) {
        ExplainOutput e = Ember.explain(example).with(X);
        ExplainOutput f = Ember.explain(fix).with(X);
        assertTrue(f.graphBreakCount() < e.graphBreakCount(), "the fix breaks no less\n" + f);
        assertEquals(0, f.graphBreakCount(), f.toString());
        assertClose(example.apply(X), Ember.compile(fix).apply(X), "the fix computes something else");
    }

    /** Equal up to float rounding (a fix may divide by a float tensor where the example divided by a double). */
    private static void assertClose(Tensor want, Tensor got, String what) {
        assertTrue(java.util.Arrays.equals(want.shape(), got.shape()), what);
        double[] a = want.toDoubleArray(), b = got.toDoubleArray();
        for (int i = 0; i < a.length; i++) assertTrue(Math.abs(a[i] - b[i]) <= 1e-5 * (1 + Math.abs(a[i])), what + " at " + i + ": " + a[i] + " vs " + b[i]);
    }

    private static String page(String id) throws IOException {
        return Files.readString(PAGES.resolve(id + ".md"));
    }

    /** The body lines of a method of GraphBreakPagePrograms, trimmed. */
    private static List<String> body(String source, String method) {
        List<String> lines = source.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("    static ") && l.contains(" " + method + "(") && l.endsWith("{")) {
                List<String> body = new ArrayList<>();
                for (int j = i + 1; !lines.get(j).equals("    }"); j++) if (!lines.get(j).isBlank()) body.add(lines.get(j).trim());
                return body;
            }
        }
        throw new AssertionError("no method " + method);
    }

    /** Each body line begins a line of the page, in order (the page may add a comment after the code). */
    private static void assertShows(String page, String id, String method, List<String> body) {
        List<String> pageLines = page.lines().map(String::trim).toList();
        int at = 0;
        for (String b : body) {
            while (at < pageLines.size() && !pageLines.get(at).startsWith(b)) at++;
            if (at == pageLines.size()) fail(id + ".md does not show " + method + "'s line: " + b);
            at++;
        }
    }
}
