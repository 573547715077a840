package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Enums with behaviour: an Activation enum with an abstract apply method per constant, enums
 * holding a lambda field, EnumMap configs, EnumSet flags, values()/valueOf/ordinal/name, and a
 * switch over an enum. Each program runs eagerly and compiled; all are one graph.
 */
class EnumProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3);

    enum Activation {
        RELU {
            @Override Tensor apply(Tensor x) { return x.relu(); }
        },
        TANH {
            @Override Tensor apply(Tensor x) { return x.tanh(); }
        },
        LEAKY {
            @Override Tensor apply(Tensor x) { return x.relu().add(x.neg().relu().mul(-slope())); }
        };

        abstract Tensor apply(Tensor x);

        double slope() { return 0.01; }
    }

    /** An enum holding a function in a field, set by its constructor. */
    enum Reduction {
        SUM(t -> t.sum(-1)), MEAN(t -> t.mean(-1)), MAX(t -> t.amax(-1));

        private final UnaryOperator<Tensor> op;

        Reduction(UnaryOperator<Tensor> op) { this.op = op; }

        Tensor reduce(Tensor t) { return op.apply(t); }
    }

    /** The same, its field a serializable function (dev.ember.Fn1), whose code Ember can find. */
    enum SerializableReduction {
        SUM(t -> t.sum(-1)), MEAN(t -> t.mean(-1)), MAX(t -> t.amax(-1));

        private final Fn1<Tensor, Tensor> op;

        SerializableReduction(Fn1<Tensor, Tensor> op) { this.op = op; }

        Tensor reduce(Tensor t) { return op.apply(t); }
    }

    enum Flag { NORMALIZE, CLAMP, SCALE }

    enum Stage { ENCODE, PROCESS, DECODE }

    // ------------------------------------------------------------------ programs

    static Tensor activationArgument(Tensor x, Activation act) { return act.apply(x).mul(2); }

    static List<Tensor> everyActivation(Tensor x) {
        List<Tensor> out = new ArrayList<>();
        for (Activation a : Activation.values()) out.add(a.apply(x));
        return out;
    }

    static Tensor byName(Tensor x, String name) { return Activation.valueOf(name.toUpperCase()).apply(x); }

    static Tensor lambdaField(Tensor x, Reduction r) { return r.reduce(x).add(r.ordinal()); }

    static Tensor serializableLambdaField(Tensor x, SerializableReduction r) { return r.reduce(x).add(r.ordinal()); }

    static Tensor enumMapConfig(Tensor x) {
        Map<Stage, Double> scales = new EnumMap<>(Stage.class);
        scales.put(Stage.DECODE, 3.0);
        scales.put(Stage.ENCODE, 0.5);
        scales.put(Stage.PROCESS, 2.0);
        Tensor h = x;
        for (Map.Entry<Stage, Double> e : scales.entrySet()) h = h.mul(e.getValue()).add(e.getKey().ordinal());
        return h;
    }

    static Tensor enumMapArgument(Tensor x, Map<Stage, Activation> plan) {
        Tensor h = x;
        for (Stage s : Stage.values()) h = plan.getOrDefault(s, Activation.RELU).apply(h);
        return h;
    }

    static Tensor enumSetFlags(Tensor x, EnumSet<Flag> flags) {
        Tensor h = x;
        if (flags.contains(Flag.NORMALIZE)) h = h.sub(h.mean()).div(h.std());
        if (flags.contains(Flag.CLAMP)) h = h.clamp(-1.0, 1.0);
        if (flags.contains(Flag.SCALE)) h = h.mul(flags.size());
        return h;
    }

    static Tensor switchOnEnum(Tensor x, Stage stage) {
        return switch (stage) {
            case ENCODE -> x.mul(2);
            case PROCESS -> x.exp();
            case DECODE -> x.log1p().abs();
        };
    }

    static List<Object> namesAndOrdinals(Tensor x) {
        String names = Arrays.toString(Stage.values());
        int last = Stage.DECODE.ordinal();
        boolean before = Stage.ENCODE.compareTo(Stage.DECODE) < 0;
        return List.of(names, last, before, Stage.PROCESS.name().toLowerCase(), x.mul(last));
    }

    static Tensor unknownName(Tensor x, String name) { return Activation.valueOf(name).apply(x); }

    static Tensor complementOfFlags(Tensor x) {
        EnumSet<Flag> off = EnumSet.complementOf(EnumSet.of(Flag.CLAMP));
        return enumSetFlags(x, off);
    }

    // ------------------------------------------------------------------ tests

    @Test
    void anEnumWithAnAbstractMethodPerConstant() {
        Fn2<Tensor, Activation, Tensor> fn = EnumProgramsTest::activationArgument;
        for (Activation a : Activation.values()) oneGraph(check(fn, X, a));
    }

    @Test
    void valuesLoopCallsEachConstantsBody() {
        oneGraph(check((Fn1<Tensor, List<Tensor>>) EnumProgramsTest::everyActivation, X));
    }

    @Test
    void valueOfFromAString() {
        oneGraph(check((Fn2<Tensor, String, Tensor>) EnumProgramsTest::byName, X, "tanh"), 1);
    }

    /**
     * Three plain lambdas of one shape (UnaryOperator, nothing captured) in one class are told apart
     * by their hidden classes' constant pools (docs/compile.md): one graph each, as the serializable
     * form (an Fn1 field) is.
     */
    @Test
    void anEnumWithALambdaField() {
        Fn2<Tensor, Reduction, Tensor> fn = EnumProgramsTest::lambdaField;
        for (Reduction r : Reduction.values()) oneGraph(check(fn, X, r), 2);
        Fn2<Tensor, SerializableReduction, Tensor> serializable = EnumProgramsTest::serializableLambdaField;
        for (SerializableReduction r : SerializableReduction.values()) oneGraph(check(serializable, X, r), 2);
    }

    @Test
    void anEnumMapMadeInside() {
        oneGraph(check((Fn1<Tensor, Tensor>) EnumProgramsTest::enumMapConfig, X), 6);
    }

    @Test
    void anEnumMapPassedIn() {
        Map<Stage, Activation> plan = new EnumMap<>(Map.of(Stage.DECODE, Activation.TANH, Stage.ENCODE, Activation.LEAKY));
        oneGraph(check((Fn2<Tensor, Map<Stage, Activation>, Tensor>) EnumProgramsTest::enumMapArgument, X, plan));
    }

    @Test
    void anEnumSetOfFlags() {
        Fn2<Tensor, EnumSet<Flag>, Tensor> fn = EnumProgramsTest::enumSetFlags;
        oneGraph(check(fn, X, EnumSet.of(Flag.CLAMP, Flag.SCALE)), 2);
        oneGraph(check(fn, X, EnumSet.allOf(Flag.class)));
    }

    @Test
    void aSwitchOverAnEnum() {
        Fn2<Tensor, Stage, Tensor> fn = EnumProgramsTest::switchOnEnum;
        oneGraph(check(fn, X, Stage.ENCODE), 1);
        oneGraph(check(fn, X, Stage.DECODE), 2);
    }

    @Test
    void namesOrdinalsAndCompareTo() {
        Fn1<Tensor, List<Object>> fn = EnumProgramsTest::namesAndOrdinals;
        oneGraph(check(fn, X), 1);
        assertEquals("[ENCODE, PROCESS, DECODE]", fn.apply(X).getFirst());
    }

    @Test
    void valueOfAnUnknownNameThrowsAsEager() {
        Throwable t = checkThrows((Fn2<Tensor, String, Tensor>) EnumProgramsTest::unknownName, X, "GELU");
        assertInstanceOf(IllegalArgumentException.class, t);
    }

    @Test
    void enumSetComplementOf() {
        oneGraph(check((Fn1<Tensor, Tensor>) EnumProgramsTest::complementOfFlags, X));
    }
}
