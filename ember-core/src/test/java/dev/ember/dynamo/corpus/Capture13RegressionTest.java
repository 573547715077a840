package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.ember.dynamo.corpus.Capture11RegressionTest.assertAsEager;
import static dev.ember.dynamo.corpus.Capture11RegressionTest.graphBreaks;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Capture session 13's fixes, each failing without it: compiled behaves as eager, with the frame and graph-break counts Dynamo would have. */
class Capture13RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static void assertOneFrameNoBreak(Fn1<Tensor, Object> f) {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = assertAsEager(f, x);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(0, graphBreaks(f, x), "graph breaks");
        Ember.reset();
    }

    static final List<Integer> ASKED = new ArrayList<>();

    static Object removeIfOnArraysAsList(Tensor x) {
        Integer[] arr = {1, 2, 3, 4};
        List<Integer> view = Arrays.asList(arr);
        Tensor s = x.mul(0);
        try {
            view.removeIf(i -> {
                ASKED.add(i);
                return i % 2 == 0;
            });
        } catch (UnsupportedOperationException e) {
            s = s.add(1);
        }
        try {
            view.removeIf(i -> {
                ASKED.add(-i);
                return false;
            });
        } catch (UnsupportedOperationException e) {
            s = s.add(10);
        }
        return List.of(s, List.copyOf(ASKED), view);
    }

    @Test
    void removeIfOnArraysAsListAsksAsTheJdkDoes() {
        ASKED.clear();
        Object eager = removeIfOnArraysAsList(Tensor.ones(2));
        ASKED.clear();
        Compiled.assertSame(eager, Ember.compile((Fn1<Tensor, Object>) Capture13RegressionTest::removeIfOnArraysAsList).apply(Tensor.ones(2)), "predicate calls");
        ASKED.clear();
        Ember.reset();
        assertEquals(0, graphBreaks(Capture13RegressionTest::removeIfOnArraysAsList, Tensor.ones(2)));
        ASKED.clear();
    }

}
