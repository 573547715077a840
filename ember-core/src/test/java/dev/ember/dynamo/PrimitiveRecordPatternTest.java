package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record pattern with a component of primitive type ({@code case Move(double dx, int steps)}):
 * javac switches on the boxed component with a primitive type label, which matches as
 * SwitchBootstraps decides from the call site's type. Before, the trace could not decide it and
 * broke the graph at every such case.
 */
class PrimitiveRecordPatternTest {
    @AfterEach
    void reset() { Ember.reset(); }

    sealed interface Cmd permits Move, Stop {}

    record Move(double dx, int steps) implements Cmd {}

    record Stop(boolean hard) implements Cmd {}

    static Tensor apply(Cmd c, Tensor x) {
        return switch (c) {
            case Move(double dx, int steps) when steps > 2 -> x.add(dx * steps);
            case Move(double dx, int steps) -> x.sub(dx).mul(steps);
            case Stop(boolean hard) when hard -> x.mul(0);
            case Stop(boolean hard) -> x;
        };
    }

    static Tensor program(Tensor x) {
        Tensor out = x;
        for (Cmd c : new Cmd[] {new Move(0.5, 3), new Move(-1.5, 2), new Stop(false), new Move(2, 1)}) out = apply(c, out);
        return out.add(apply(new Stop(true), x));
    }

    @Test
    void recordPatternsWithPrimitiveComponentsCaptureInOneGraph() {
        Tensor x = Tensor.randn(5);
        CompileCounter cc = new CompileCounter();
        Tensor got = Ember.compile((Fn1<Tensor, Tensor>) PrimitiveRecordPatternTest::program, Options.fullgraph().withBackend(cc)).apply(x);
        assertArrayEquals(program(x).toDoubleArray(), got.toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount());
    }

    @Test
    void onlyConversionsExactForEveryValueMatchWithoutTheValue() {
        ClassDesc boxedDouble = ClassDesc.of("java.lang.Double"), boxedInt = ClassDesc.of("java.lang.Integer"), boxedLong = ClassDesc.of("java.lang.Long");
        assertTrue(Indy.unconditionallyExact(boxedDouble, "D"));
        assertTrue(Indy.unconditionallyExact(boxedInt, "I"));
        assertTrue(Indy.unconditionallyExact(boxedInt, "D"), "every int is a double exactly");
        assertFalse(Indy.unconditionallyExact(boxedInt, "F"), "not every int is a float");
        assertFalse(Indy.unconditionallyExact(boxedLong, "D"), "not every long is a double");
        assertFalse(Indy.unconditionallyExact(boxedDouble, "I"));
        assertFalse(Indy.unconditionallyExact(ConstantDescs.CD_Object, "D"), "an Object selector depends on the value's class");
    }
}
