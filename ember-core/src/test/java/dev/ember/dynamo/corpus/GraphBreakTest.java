package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CacheEntry;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.GraphBreakType;
import dev.ember.dynamo.Unsupported;
import dev.ember.events.UserFrame;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graph breaks: with fullgraph the first unsupported thing throws Unsupported naming the GB id,
 * the user's file:line (found here by searching the source text) and a hint; without it the frame
 * gives eager's result (the code before the break as a graph, the rest in a resume method, or all of
 * it eagerly where no resume can start) and does not trace again for the same inputs.
 */
class GraphBreakTest {

    record Break(String name, Object fn, Supplier<Object[]> inputs, GraphBreakType type, String lineMarker) {}

    private static final Path PROGRAMS = Path.of("src/test/java/dev/ember/dynamo/corpus/Programs.java");

    static List<Break> breaks() {
        Supplier<Object[]> x34 = () -> new Object[] {Tensor.randn(3, 4)};
        List<Break> bs = new ArrayList<>();
        bs.add(new Break("item", (Fn1<Tensor, Tensor>) Programs::readsItem, x34, GraphBreakType.TENSOR_DATA_ACCESS, ".item();"));
        bs.add(new Break("asBoolean", (Fn1<Tensor, Tensor>) Programs::branchesOnData, x34, GraphBreakType.DATA_DEPENDENT_BRANCH, ".asBoolean()) return x.t();"));
        bs.add(new Break("println", (Fn1<Tensor, Tensor>) Programs::prints, x34, GraphBreakType.PRINT, "System.out.println(\"debug: \""));
        bs.add(new Break("tensorToString", (Fn1<Tensor, Tensor>) Programs::concatsTensor, x34, GraphBreakType.TENSOR_TO_STRING, "String s = \"x=\" + x;"));
        bs.add(new Break("graphBreak", (Fn1<Tensor, Tensor>) Programs::explicitBreak, x34, GraphBreakType.EXPLICIT_GRAPH_BREAK, "Ember.graphBreak();"));
        bs.add(new Break("mutatesVector", (Fn2<java.util.Vector<Tensor>, Tensor, Tensor>) Programs::mutatesVector,
                () -> new Object[] {new java.util.Vector<Tensor>(), Tensor.randn(3, 4)}, GraphBreakType.SIDE_EFFECT, "xs.add(0, x);"));
        bs.add(new Break("readsClock", (Fn1<Tensor, Tensor>) Programs::readsClock, x34, GraphBreakType.UNSUPPORTED_CALL, "System.nanoTime();"));
        bs.add(new Break("runawayLoop", (Fn1<Tensor, Tensor>) Programs::runawayLoop, x34, GraphBreakType.INSTRUCTION_BUDGET, "n += i;"));
        bs.add(new Break("deepRecursion", (Fn1<Tensor, Tensor>) Programs::deepRecursion, x34, GraphBreakType.INLINE_DEPTH, "depth == 1000 ? x"));
        bs.add(new Break("returnsIterator", (Fn1<Tensor, java.util.Iterator<Tensor>>) Programs::returnsIterator, x34, GraphBreakType.UNSUPPORTED_RETURN, "return it;"));
        bs.add(new Break("readsStorage", (Fn1<Tensor, Tensor>) Programs::readsStorage, x34, GraphBreakType.UNSUPPORTED_TENSOR_METHOD, "x.storage() == null"));
        return bs;
    }

    @AfterEach
    void reset() { Ember.reset(); }

    @TestFactory
    Stream<DynamicTest> fullgraphThrowsUnsupported() {
        return breaks().stream().map(b -> DynamicTest.dynamicTest(b.name(), () -> {
            Function<Object[], Object> f = Compiled.compile(b.fn(), Options.fullgraph().reorderableLogging(false));
            Unsupported u = assertThrows(Unsupported.class, () -> f.apply(b.inputs().get()));
            assertEquals(b.type().id(), u.gbId(), u.getMessage());
            UserFrame at = u.userFrame();
            assertNotNull(at, u.getMessage());
            assertEquals("Programs.java", at.fileName(), u.getMessage());
            assertEquals(lineOf(b.lineMarker()), at.line(), u.getMessage());
            assertFalse(u.hints().isEmpty());
            assertTrue(u.getMessage().contains("Graph break in user code at Programs.java:" + at.line()), u.getMessage());
            assertTrue(u.getMessage().contains(b.type().docsPath()), u.getMessage());
        }));
    }

    @TestFactory
    Stream<DynamicTest> withoutFullgraphMatchesEagerAndTracesOnce() {
        return breaks().stream().filter(b -> !b.name().equals("mutatesVector"))
                .map(b -> DynamicTest.dynamicTest(b.name(), () -> {
                    CompileCounter cc = new CompileCounter();
                    Options opts = Options.backend(cc).reorderableLogging(false);
                    Function<Object[], Object> f = Compiled.compile(b.fn(), opts);
                    Object[] in = b.inputs().get();
                    Compiled.assertSame(Compiled.call(b.fn(), in), f.apply(in), b.name());
                    int graphs = cc.frameCount();
                    // The same inputs: a value read at the break (item(), the clock) is a guarded constant after it.
                    f.apply(in);
                    // (The clock reads a new long each call, so the resume method after it is re-specialised.)
                    if (!b.name().equals("readsClock")) assertEquals(graphs, cc.frameCount(), "the second call must not compile again");
                    List<CacheEntry> entries = CorpusTest.frameOf(opts).entries();
                    assertEquals(1, entries.size(), "the second call must reuse the entry");
                    assertEquals(b.type().id(), entries.getFirst().graphBreak().gbId());
                }));
    }

    @Test
    void unreplayableSideEffectRunsEagerlyOnce() {
        var f = Ember.compile((Fn2<java.util.Vector<Tensor>, Tensor, Tensor>) Programs::mutatesVector);
        java.util.Vector<Tensor> xs = new java.util.Vector<>();
        Tensor x = Tensor.randn(3, 4);
        f.apply(xs, x);
        assertEquals(List.of(x), xs);
    }

    @Test
    void exceptionOnTheTracedPathIsEagersException() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::throwsOnPath);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.apply(Tensor.randn(3, 4)));
        assertEquals("two dims not allowed", e.getMessage());
        var full = Ember.compile((Fn1<Tensor, Tensor>) Programs::throwsOnPath, Options.fullgraph());
        Unsupported u = assertThrows(Unsupported.class, () -> full.apply(Tensor.randn(3, 4)));
        assertEquals("GB0008", u.gbId());
        assertTrue(u.reason().contains("IllegalStateException: two dims not allowed"), u.reason());
        assertEquals(Tensor.randn(2).dim(), full.apply(Tensor.randn(2)).dim(), "another path compiles fine");
    }

    @Test
    void opErrorOnFakesIsTheEagerError() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::badView);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.apply(Tensor.randn(3, 4)));
        assertTrue(e.getMessage().startsWith("view:"), e.getMessage());
        var full = Ember.compile((Fn1<Tensor, Tensor>) Programs::badView, Options.fullgraph());
        Unsupported u = assertThrows(Unsupported.class, () -> full.apply(Tensor.randn(3, 4)));
        assertEquals("GB0007", u.gbId());
        assertTrue(u.reason().contains("aten.view.default failed on fake tensors"), u.reason());
        assertEquals(lineOf("return x.view(5, 5);"), u.userFrame().line());
    }

    @Test
    void breakInsideHelperNamesTheWholeUserStack() {
        var full = Ember.compile((Fn1<Tensor, Tensor>) x -> Programs.readsItem(x.t()), Options.fullgraph());
        Unsupported u = assertThrows(Unsupported.class, () -> full.apply(Tensor.randn(4, 3)));
        assertEquals(2, u.userStack().size(), u.getMessage());
        assertEquals("readsItem", u.userFrame().methodName());
        assertEquals("GraphBreakTest.java", u.userStack().getFirst().fileName());
        assertTrue(u.userFrame().sourceText().contains(".item()"), "source text of the line: " + u.userFrame().sourceText());
    }

    static int lineOf(String marker) {
        try {
            List<String> lines = Files.readAllLines(PROGRAMS);
            int found = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(marker)) {
                    if (found >= 0) throw new AssertionError("marker '" + marker + "' is not unique in Programs.java");
                    found = i + 1;
                }
            }
            if (found < 0) throw new AssertionError("marker '" + marker + "' not found in Programs.java");
            return found;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
