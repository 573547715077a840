package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.breaksAt;
import static dev.ember.dynamo.idiomatic.Idioms.noGraph;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Records as Java engineers use them around tensors: as inputs, outputs and fields, with compact
 * constructors that validate, "wither" methods, static factories, generic records, records as map
 * keys, and record patterns in instanceof and switch. Each program is run eagerly and compiled.
 */
class RecordProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3), Y = Tensor.randn(4, 3), W = Tensor.randn(3, 5), B = Tensor.randn(5);

    // ------------------------------------------------------------------ the program's types

    record Batch(Tensor inputs, Tensor targets) {}

    record Stats(Tensor mean, Tensor std, int count) {}

    /** A config record: validated by its compact constructor, changed through withers. */
    record TrainConfig(double scale, int repeats, boolean clamp) {
        TrainConfig {
            if (repeats < 0) throw new IllegalArgumentException("repeats must be >= 0, got " + repeats);
            if (!(scale > 0)) throw new IllegalArgumentException("scale must be positive, got " + scale);
        }

        TrainConfig withScale(double newScale) { return new TrainConfig(newScale, repeats, clamp); }

        static TrainConfig defaults() { return new TrainConfig(0.5, 2, true); }
    }

    record Dense(Tensor weight, Tensor bias) {
        Tensor apply(Tensor x) { return x.matmul(weight).add(bias); }

        int outFeatures() { return weight.size(1); }
    }

    record Pair<A, B>(A first, B second) {
        <C> Pair<A, C> withSecond(C c) { return new Pair<>(first, c); }
    }

    // ------------------------------------------------------------------ programs

    static Tensor meanSquaredError(Batch batch) {
        Tensor diff = batch.inputs().sub(batch.targets());
        return diff.mul(diff).mean();
    }

    static Stats describe(Tensor x) {
        return new Stats(x.mean(0), x.std(0), x.size(0));
    }

    static Tensor scaledByConfig(Tensor x, TrainConfig config) {
        Tensor y = x;
        for (int i = 0; i < config.repeats(); i++) y = y.mul(config.scale()).add(1.0);
        return config.clamp() ? y.clamp(-1.0, 1.0) : y;
    }

    static Tensor witherAndFactory(Tensor x) {
        TrainConfig base = TrainConfig.defaults();
        TrainConfig doubled = base.withScale(base.scale() * 2);
        return scaledByConfig(x, doubled).sub(scaledByConfig(x, base));
    }

    static Tensor invalidConfigMadeInside(Tensor x, int repeats) {
        TrainConfig config = new TrainConfig(1.5, repeats, false);
        return scaledByConfig(x, config);
    }

    static Tensor denseRecordMethod(Tensor x, Dense layer) {
        Tensor h = layer.apply(x).relu();
        return h.sum(1).div(layer.outFeatures());
    }

    static Dense denseMadeInside(Tensor w, Tensor b) {
        Dense layer = new Dense(w.t().contiguous(), b.mul(2));
        return new Dense(layer.weight().neg(), layer.bias());
    }

    static Tensor instanceofRecordPattern(Object input) {
        if (input instanceof Batch(Tensor in, Tensor target)) return in.add(target);
        if (input instanceof Tensor t) return t.neg();
        return Tensor.zeros(1);
    }

    static Tensor nestedRecordPatternInSwitch(Pair<Pair<Tensor, Tensor>, Tensor> nested) {
        return switch (nested) {
            case Pair<Pair<Tensor, Tensor>, Tensor>(Pair<Tensor, Tensor>(var a, var b), var c) when a.dim() == 2 -> a.mul(b).sub(c);
            case Pair<Pair<Tensor, Tensor>, Tensor>(var ab, var c) -> c;
        };
    }

    static Pair<Tensor, String> genericRecordOut(Tensor x, Tensor y) {
        Pair<Tensor, Integer> p = new Pair<>(x.add(y), x.dim());
        return p.withSecond("rank " + p.second());
    }

    static Tensor recordsAsMapKeys(Tensor x) {
        Map<TrainConfig, Tensor> byConfig = new HashMap<>();
        for (double s : new double[] {0.5, 1.0, 0.5}) {
            TrainConfig c = new TrainConfig(s, 1, false);
            byConfig.merge(c, scaledByConfig(x, c), Tensor::add);
        }
        return byConfig.get(new TrainConfig(0.5, 1, false)).sub(byConfig.get(new TrainConfig(1.0, 1, false)));
    }

    static List<Object> recordToStringAndEquals(Tensor x) {
        TrainConfig a = new TrainConfig(0.25, 3, true), b = TrainConfig.defaults().withScale(0.25).withScale(0.25);
        String described = "config " + a;
        return List.of(described, a.equals(b), a.equals(new TrainConfig(0.25, 3, true)), scaledByConfig(x, a));
    }

    static List<Stats> listOfRecords(Tensor x, Tensor y) {
        List<Tensor> parts = List.of(x, y, x.add(y));
        return parts.stream().map(RecordProgramsTest::describe).toList();
    }

    // ------------------------------------------------------------------ tests

    @Test
    void aRecordArgumentIsReadThroughItsAccessors() {
        oneGraph(check((Fn1<Batch, Tensor>) RecordProgramsTest::meanSquaredError, new Batch(X, Y)), 3);
    }

    @Test
    void aRecordIsReturnedWithTensorsAndAnInt() {
        Fn1<Tensor, Stats> fn = RecordProgramsTest::describe;
        oneGraph(check(fn, X), 2);
        Stats s = Ember.compile(fn).apply(X);
        assertInstanceOf(Stats.class, s);
        assertEquals(4, s.count());
    }

    @Test
    void aConfigRecordSteersTheGraph() {
        Fn2<Tensor, TrainConfig, Tensor> fn = RecordProgramsTest::scaledByConfig;
        oneGraph(check(fn, X, new TrainConfig(0.5, 3, true)), 7);   // three mul/add pairs and the clamp
        oneGraph(check(fn, X, new TrainConfig(2.0, 1, false)), 2);
    }

    @Test
    void withersAndStaticFactoriesInsideTheFunction() {
        oneGraph(check((Fn1<Tensor, Tensor>) RecordProgramsTest::witherAndFactory, X), 11);   // two (mul, add) pairs and a clamp for each config, then sub
    }

    @Test
    void aCompactConstructorRejectsBadInputLikeEager() {
        Fn2<Tensor, Integer, Tensor> fn = RecordProgramsTest::invalidConfigMadeInside;
        Throwable t = checkThrows(fn, X, -2);
        assertInstanceOf(IllegalArgumentException.class, t);
        assertEquals("repeats must be >= 0, got -2", t.getMessage());
        oneGraph(check(fn, X, 2), 4);
    }

    @Test
    void aRecordHoldingALayerIsCalledThroughItsMethods() {
        oneGraph(check((Fn2<Tensor, Dense, Tensor>) RecordProgramsTest::denseRecordMethod, X, new Dense(W, B)), 5);
    }

    @Test
    void aRecordMadeInsideIsReturned() {
        oneGraph(check((Fn2<Tensor, Tensor, Dense>) RecordProgramsTest::denseMadeInside, W, B));
    }

    @Test
    void instanceofWithARecordPattern() {
        Fn1<Object, Tensor> fn = RecordProgramsTest::instanceofRecordPattern;
        oneGraph(check(fn, new Batch(X, Y)), 1);
        oneGraph(check(fn, X), 1);
    }

    @Test
    void nestedRecordPatternsWithAGuardInASwitch() {
        Fn1<Pair<Pair<Tensor, Tensor>, Tensor>, Tensor> fn = RecordProgramsTest::nestedRecordPatternInSwitch;
        oneGraph(check(fn, new Pair<>(new Pair<>(X, Y), X)), 2);
        noGraph(check(fn, new Pair<>(new Pair<>(B, B), X)));   // returns c: no op, no graph
    }

    @Test
    void aGenericRecordWithAGenericMethod() {
        Fn2<Tensor, Tensor, Pair<Tensor, String>> fn = RecordProgramsTest::genericRecordOut;
        oneGraph(check(fn, X, Y), 1);
        assertEquals("rank 2", Ember.compile(fn).apply(X, Y).second());
    }

    /** Records made in the function are HashMap keys by value: merge finds the equal record inserted before. */
    @Test
    void recordsAreMapKeysByValue() {
        oneGraph(check((Fn1<Tensor, Tensor>) RecordProgramsTest::recordsAsMapKeys, X));
    }

    @Test
    void recordToStringAndEqualsAreJavas() {
        Fn1<Tensor, List<Object>> fn = RecordProgramsTest::recordToStringAndEquals;
        oneGraph(check(fn, X));
        assertEquals("config TrainConfig[scale=0.25, repeats=3, clamp=true]", fn.apply(X).getFirst());
    }

    @Test
    void aListOfRecordsFromAStream() {
        oneGraph(check((Fn2<Tensor, Tensor, List<Stats>>) RecordProgramsTest::listOfRecords, X, Y));
    }
}
