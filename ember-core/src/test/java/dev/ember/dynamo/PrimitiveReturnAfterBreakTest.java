package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A helper declared to return boolean, char, byte or short that breaks the graph and then returns a
 * value live across the break. The resume method receives that value as the JVM holds it (an int);
 * when the value changes between calls it becomes a graph input, and it must still leave the frame
 * in the declared type's box: a Boolean for a boolean, not an Integer (which failed the caller's
 * unboxing with a ClassCastException where eager returned false). Found through a record's
 * equals (an ObjectMethods invokedynamic, then a break) called twice.
 */
class PrimitiveReturnAfterBreakTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static boolean flagAfterBreak(boolean flag) {
        Ember.graphBreak();
        return flag;
    }

    static char charAfterBreak(char c) {
        Ember.graphBreak();
        return c;
    }

    static byte byteAfterBreak(byte b) {
        Ember.graphBreak();
        return b;
    }

    static short shortAfterBreak(short s) {
        Ember.graphBreak();
        return s;
    }

    static List<Object> booleans(Tensor x) { return List.of(flagAfterBreak(true), flagAfterBreak(false), x.add(1)); }

    static List<Object> chars(Tensor x) { return List.of(charAfterBreak('a'), charAfterBreak('b'), x.add(1)); }

    static List<Object> bytesAndShorts(Tensor x) {
        return List.of(byteAfterBreak((byte) 1), byteAfterBreak((byte) -2), shortAfterBreak((short) 300), shortAfterBreak((short) -7), x.add(1));
    }

    private static void sameAsEager(Fn1<Tensor, List<Object>> fn) {
        Tensor x = Tensor.randn(2, 3);
        List<Object> eager = fn.apply(x), compiled = Ember.compile(fn).apply(x);
        assertEquals(eager.subList(0, eager.size() - 1), compiled.subList(0, compiled.size() - 1));
        for (int i = 0; i < eager.size() - 1; i++) assertEquals(eager.get(i).getClass(), compiled.get(i).getClass(), "box of element " + i);
        assertTrue(((Tensor) eager.getLast()).sameData((Tensor) compiled.getLast()));
    }

    @Test
    void aBooleanThatChangedLeavesAsABoolean() { sameAsEager(PrimitiveReturnAfterBreakTest::booleans); }

    @Test
    void aCharThatChangedLeavesAsACharacter() { sameAsEager(PrimitiveReturnAfterBreakTest::chars); }

    @Test
    void bytesAndShortsThatChangedLeaveInTheirBoxes() { sameAsEager(PrimitiveReturnAfterBreakTest::bytesAndShorts); }
}
