package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A StringBuilder made in a compiled function is traced, not a graph break: what it is given
 * (constants, sizes, shapes as Arrays.toString, lists, a user object's own toString) is text known
 * while tracing, so a function that builds a message while computing tensors is one graph, and
 * its string is eager's. Appending a tensor's values is a graph break that says so.
 */
class StringBuilderCaptureTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final Tensor X = Tensor.randn(3, 4), Y = Tensor.randn(5, 4);

    record Point(int x, int y) {
        @Override
        public String toString() { return "(" + x + ", " + y + ")"; }
    }

    static final class Plain {}

    // ------------------------------------------------------------------ programs

    /** A report built from shapes and sizes while the tensors are computed, returned with the result. */
    static List<Object> describe(Tensor x, Tensor y) {
        StringBuilder sb = new StringBuilder("shapes: ");
        Tensor z = x.matmul(y.t()).relu();
        sb.append(Arrays.toString(x.shape())).append(" x ").append(y.size(0)).append(',').append(y.size(1));
        sb.append(" -> ").append(z.dim()).append("-d ").append(true).append(' ').append(2.5f).append(' ').append(7L).append(' ').append(List.of(1, 2));
        sb.append(' ').append(new Point(z.size(0), z.size(1)));
        return List.of(z.sum().mul(2), sb.toString());
    }

    /** The builder only feeds an exception's message. */
    static Tensor checked(Tensor x, Tensor y) {
        if (x.size(1) != y.size(1)) {
            throw new IllegalArgumentException(new StringBuilder().append("size mismatch: ").append(x.size(1)).append(" vs ").append(y.size(1)).toString());
        }
        return x.add(y).mul(2);
    }

    /** The builder itself returned, twice: one object, made again after the graph. */
    static List<Object> returnsTheBuilder(Tensor x) {
        StringBuilder sb = new StringBuilder().append("n=").append(x.numel());
        return List.of(x.exp(), sb, sb);
    }

    /** A builder live across a graph break goes on with its text. */
    static String acrossABreak(Tensor x) {
        StringBuilder sb = new StringBuilder("before ").append(x.size(0));
        Tensor y = x.sin();
        Ember.graphBreak();
        sb.append(", after ").append(y.cos().dim());
        return sb.toString();
    }

    /** Edits of the text: insert, reverse, setLength, deleteCharAt, replace, and their answers. */
    static List<Object> edits(Tensor x) {
        StringBuilder sb = new StringBuilder(16).append("abc");
        sb.insert(0, x.dim()).reverse();
        int n = sb.length();
        char c = sb.charAt(1);
        sb.setLength(n - 1);
        sb.deleteCharAt(0).replace(0, 1, "Z").append(sb.indexOf("a"));
        return List.of(x.mul(n), sb.toString(), c, sb.isEmpty(), String.valueOf(sb) + "!", String.format("<%s>", sb), "Zc".contentEquals(sb));
    }

    /** The caller's builder, only appended to: its text is not guarded, the appends are made to it after the graph. */
    static Tensor logInto(Tensor x, StringBuilder log) {
        log.append("in ").append(x.size(0));
        Tensor y = x.relu();
        log.append(" out ").append(y.dim()).append(';');
        return y;
    }

    /** The caller's builder, read: its text is guarded, and the caller's builder ends with the trace's final text. */
    static Tensor readsTheText(Tensor x, StringBuilder log) {
        if (log.length() > 3) return x.neg();
        log.insert(0, '>').append(x.dim());
        return x.exp();
    }

    static String outOfRange(Tensor x) {
        StringBuilder sb = new StringBuilder("ab");
        return sb.charAt(x.size(0)) + "";
    }

    static String appendsATensor(Tensor x) { return new StringBuilder("x = ").append(x.add(1)).toString(); }

    static String appendsAPlainObject(Tensor x) { return new StringBuilder().append(new Plain()).append(x.dim()).toString(); }

    // ------------------------------------------------------------------ tests

    private static ExplainOutput oneGraph(Object fn, Object... in) {
        ExplainOutput e = Ember.explain(fn).with(in);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        Ember.reset();
        return e;
    }

    @Test
    void aMessageBuiltWhileComputingIsOneGraphAndEagersString() {
        Fn2<Tensor, Tensor, List<Object>> fn = StringBuilderCaptureTest::describe;
        oneGraph(fn, X, Y);
        List<Object> eager = fn.apply(X, Y), compiled = Ember.compile(fn, Options.fullgraph()).apply(X, Y);
        assertTrue(((Tensor) eager.get(0)).sub((Tensor) compiled.get(0)).abs().item() <= 1e-4 * Math.max(1, ((Tensor) eager.get(0)).abs().item()));
        assertEquals(eager.get(1), compiled.get(1));
        assertEquals("shapes: [3, 4] x 5,4 -> 2-d true 2.5 7 [1, 2] (3, 5)", compiled.get(1));
    }

    @Test
    void aBuilderForAnExceptionMessageStaysInTheGraph() {
        Fn2<Tensor, Tensor, Tensor> fn = StringBuilderCaptureTest::checked;
        Tensor y = Tensor.randn(3, 4);
        oneGraph(fn, X, y);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile(fn);
        assertTrue(fn.apply(X, y).sameData(compiled.apply(X, y)));
        Tensor other = Tensor.randn(3, 2);
        IllegalArgumentException eager = assertThrows(IllegalArgumentException.class, () -> fn.apply(X, other));
        IllegalArgumentException got = assertThrows(IllegalArgumentException.class, () -> compiled.apply(X, other));
        assertEquals(eager.getMessage(), got.getMessage());
    }

    @Test
    void aReturnedBuilderIsMadeAgainOncePerCall() {
        Fn1<Tensor, List<Object>> fn = StringBuilderCaptureTest::returnsTheBuilder;
        oneGraph(fn, X);
        Fn1<Tensor, List<Object>> compiled = Ember.compile(fn);
        List<Object> first = compiled.apply(X), second = compiled.apply(X);
        assertEquals(fn.apply(X).get(1).toString(), first.get(1).toString());
        assertSame(first.get(1), first.get(2), "the builder returned twice is one object, as in eager");
        assertNotSame(first.get(1), second.get(1), "each call makes its own builder");
        ((StringBuilder) first.get(1)).append('!');
        assertEquals("n=12", second.get(1).toString());
    }

    @Test
    void aBuilderLiveAcrossABreakKeepsItsText() {
        Fn1<Tensor, String> fn = StringBuilderCaptureTest::acrossABreak;
        ExplainOutput e = Ember.explain(fn).with(X);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertEquals(2, e.graphCount(), e.toString());
        Ember.reset();
        assertEquals(fn.apply(X), Ember.compile(fn).apply(X));
    }

    @Test
    void appendingToTheCallersBuilderNeedsNoGuardOnItsText() {
        Fn2<Tensor, StringBuilder, Tensor> fn = StringBuilderCaptureTest::logInto;
        oneGraph(fn, X, new StringBuilder());
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, StringBuilder, Tensor> compiled = Ember.compile(fn, Options.fullgraph().withBackend(cc));
        StringBuilder eagerLog = new StringBuilder("a: "), compiledLog = new StringBuilder("a: ");
        for (String next : List.of("", "b: ", "longer text: ")) {
            eagerLog.append(next);
            compiledLog.append(next);
            assertTrue(fn.apply(X, eagerLog).sameData(compiled.apply(X, compiledLog)));
            assertEquals(eagerLog.toString(), compiledLog.toString());
        }
        assertEquals(1, cc.frameCount(), "the text was never read: no recompile when it differs");
    }

    @Test
    void readingTheCallersBuilderGuardsItsText() {
        Fn2<Tensor, StringBuilder, Tensor> fn = StringBuilderCaptureTest::readsTheText;
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, StringBuilder, Tensor> compiled = Ember.compile(fn, Options.fullgraph().withBackend(cc));
        for (String start : List.of("", "ab", "abcd", "")) {
            StringBuilder eagerLog = new StringBuilder(start), compiledLog = new StringBuilder(start);
            assertTrue(fn.apply(X, eagerLog).sameData(compiled.apply(X, compiledLog)), start);
            assertEquals(eagerLog.toString(), compiledLog.toString(), start);
        }
        assertEquals(3, cc.frameCount(), "one graph per text, the last call hits the first");
    }

    @Test
    void editsAnswerAsJavasBuilder() {
        Fn1<Tensor, List<Object>> fn = StringBuilderCaptureTest::edits;
        oneGraph(fn, X);
        List<Object> eager = fn.apply(X), compiled = Ember.compile(fn).apply(X);
        assertTrue(((Tensor) eager.get(0)).sameData((Tensor) compiled.get(0)));
        assertEquals(eager.subList(1, 7), compiled.subList(1, 7));
    }

    @Test
    void anIndexOutOfRangeThrowsAsInEager() {
        Fn1<Tensor, String> fn = StringBuilderCaptureTest::outOfRange;
        StringIndexOutOfBoundsException eager = assertThrows(StringIndexOutOfBoundsException.class, () -> fn.apply(X));
        StringIndexOutOfBoundsException got = assertThrows(StringIndexOutOfBoundsException.class, () -> Ember.compile(fn).apply(X));
        assertEquals(eager.getMessage(), got.getMessage());
    }

    @Test
    void appendingATensorsValuesBreaksSayingWhy() {
        Fn1<Tensor, String> fn = StringBuilderCaptureTest::appendsATensor;
        ExplainOutput e = Ember.explain(fn).with(X);
        assertEquals(1, e.graphBreakCount(), e.toString());
        String reason = e.breakReasons().getFirst().reason();
        assertTrue(reason.contains("StringBuilder.append() of a tensor") && reason.contains("Tensor.toString(), which reads its data"), reason);
        Ember.reset();
        assertEquals(fn.apply(X), Ember.compile(fn).apply(X));
    }

    @Test
    void appendingAnObjectWithoutItsOwnToStringBreaks() {
        Fn1<Tensor, String> fn = StringBuilderCaptureTest::appendsAPlainObject;
        ExplainOutput e = Ember.explain(fn).with(X);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertTrue(e.breakReasons().getFirst().reason().contains("identity hash code"), e.toString());
        Ember.reset();
        assertEquals(fn.apply(X).split("@")[0], Ember.compile(fn).apply(X).split("@")[0]);
    }
}
