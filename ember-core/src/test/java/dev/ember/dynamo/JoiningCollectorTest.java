package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Collectors.joining()}, {@code joining(delimiter)} and {@code joining(delimiter, prefix,
 * suffix)} over strings the trace knows are traced (a constant string, as Dynamo's str.join over
 * constants), instead of a break at the JDK call.
 */
class JoiningCollectorTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static List<Object> joined(Tensor x) {
        String plain = Stream.of("a", "b", "c").collect(Collectors.joining());
        String shapes = Stream.of(x, x.t()).map(t -> Arrays.toString(t.shape())).collect(Collectors.joining(" x "));
        String framed = Stream.of(x.dim(), x.size(0)).map(String::valueOf).collect(Collectors.joining(", ", "{", "}"));
        String empty = Stream.<String>empty().collect(Collectors.joining(",", "<", ">"));
        return List.of(plain, shapes, framed, empty, x.mul(2));
    }

    @Test
    void joiningIsTracedAsJavaJoins() {
        Fn1<Tensor, List<Object>> fn = JoiningCollectorTest::joined;
        Tensor x = Tensor.randn(2, 3);
        List<Object> eager = fn.apply(x), compiled = Ember.compile(fn).apply(x);
        assertEquals(List.of("abc", "[2, 3] x [3, 2]", "{2, 2}", "<>"), eager.subList(0, 4));
        assertEquals(eager.subList(0, 4), compiled.subList(0, 4));
        assertTrue(((Tensor) eager.get(4)).sameData((Tensor) compiled.get(4)));
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
    }
}
