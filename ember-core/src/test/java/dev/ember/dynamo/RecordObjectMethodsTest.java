package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record's equals, hashCode and toString (javac's invokedynamic to ObjectMethods.bootstrap) are
 * traced over its components, as Dynamo traces a dataclass's generated __eq__, __hash__ and
 * __repr__: no graph break, and the answers eager gives. Before, each was a break (GB0015), and
 * an equals called twice gave a wrong answer (see PrimitiveReturnAfterBreakTest).
 */
class RecordObjectMethodsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    enum Mode { FAST, EXACT }

    record Config(double scale, int repeats, boolean clamp, char tag, long seed, float eps, String name, Mode mode) {}

    record Nested(Config config, List<Integer> sizes) {}

    record Holder(Tensor weight, int rank) {}

    static final Config A = new Config(0.5, 2, true, 'x', 1L << 40, 1e-5f, "a", Mode.FAST);

    static List<Object> compareAndHash(Tensor x) {
        Config same = new Config(0.5, 2, true, 'x', 1L << 40, 1e-5f, "a", Mode.FAST);
        Config other = new Config(0.5, 2, false, 'x', 1L << 40, 1e-5f, "a", Mode.FAST);
        Config nan = new Config(Double.NaN, 0, false, 'y', 0, Float.NaN, null, Mode.EXACT);
        Config nan2 = new Config(Double.NaN, 0, false, 'y', 0, Float.NaN, null, Mode.EXACT);
        return List.of(A.equals(same), A.equals(other), A.equals(null), A.equals("a"), nan.equals(nan2),
                same.hashCode(), other.hashCode(), nan.hashCode(), A.hashCode() == same.hashCode(), x.mul(A.scale()));
    }

    static List<Object> nestedRecords(Tensor x) {
        Nested n1 = new Nested(A, List.of(1, 2)), n2 = new Nested(new Config(0.5, 2, true, 'x', 1L << 40, 1e-5f, "a", Mode.FAST), List.of(1, 2));
        Nested n3 = new Nested(A, List.of(2, 1));
        return List.of(n1.equals(n2), n1.equals(n3), n1.hashCode(), n1.toString(), x.add(1));
    }

    static List<Object> printed(Tensor x) {
        return List.of(A.toString(), "config: " + A, x.neg());
    }

    static List<Object> tensorsByIdentity(Tensor x, Tensor y) {
        Holder h = new Holder(x, 2);
        return List.of(h.equals(new Holder(x, 2)), h.equals(new Holder(y, 2)), x.add(y));
    }

    static String tensorComponentPrinted(Tensor x) {
        return "holder " + new Holder(x.add(1), 1);
    }

    private static ExplainOutput sameAsEager(Fn1<Tensor, ?> fn, Tensor x) {
        Object eager = fn.apply(x), compiled = Ember.compile(fn).apply(x);
        assertEquals(String.valueOf(eager), String.valueOf(compiled));
        Ember.reset();
        return Ember.explain(fn).with(x);
    }

    @Test
    void equalsAndHashCodeOverEveryKindOfComponent() {
        Tensor x = Tensor.randn(2, 3);
        ExplainOutput e = sameAsEager(RecordObjectMethodsTest::compareAndHash, x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        List<Object> got = Ember.compile((Fn1<Tensor, List<Object>>) RecordObjectMethodsTest::compareAndHash).apply(x);
        assertEquals(List.of(true, false, false, false, true), got.subList(0, 5), "NaN components compare equal, as Double.compare does");
        assertEquals(A.hashCode(), got.get(5));
    }

    @Test
    void nestedRecordsCompareThroughTheirOwnEquals() {
        ExplainOutput e = sameAsEager(RecordObjectMethodsTest::nestedRecords, Tensor.randn(2, 3));
        assertEquals(0, e.graphBreakCount(), e.toString());
    }

    @Test
    void toStringIsTheRecordsOwnFormat() {
        ExplainOutput e = sameAsEager(RecordObjectMethodsTest::printed, Tensor.randn(2, 3));
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals("Config[scale=0.5, repeats=2, clamp=true, tag=x, seed=1099511627776, eps=1.0E-5, name=a, mode=FAST]", A.toString());
    }

    @Test
    void tensorComponentsCompareByIdentity() {
        Fn2<Tensor, Tensor, List<Object>> fn = RecordObjectMethodsTest::tensorsByIdentity;
        Tensor x = Tensor.randn(2), y = Tensor.randn(2);
        List<Object> eager = fn.apply(x, y), compiled = Ember.compile(fn).apply(x, y);
        assertEquals(eager.subList(0, 2), compiled.subList(0, 2));
        assertEquals(List.of(true, false), compiled.subList(0, 2));
        assertEquals(0, Ember.explain(fn).with(x, y).graphBreakCount());
    }

    @Test
    void printingATensorComponentBreaksNamingIt() {
        Fn1<Tensor, String> fn = RecordObjectMethodsTest::tensorComponentPrinted;
        Tensor x = Tensor.randn(2);
        assertEquals(fn.apply(x), Ember.compile(fn).apply(x));
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(1, e.graphBreakCount(), e.toString());
        String reason = e.breakReasons().getFirst().reason();
        assertTrue(reason.contains("Holder.toString() printing the component weight"), reason);
    }
}
