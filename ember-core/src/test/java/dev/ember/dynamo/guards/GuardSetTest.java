package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.IndexSource;
import dev.ember.dynamo.source.LocalSource;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The compiled guard check agrees with each guard's own test, and each failure explains itself. */
class GuardSetTest {
    private final LocalSource x = new LocalSource(0, "x");
    private final LocalSource n = new LocalSource(1, "n");
    private final LocalSource xs = new LocalSource(2, "xs");
    private final LocalSource d = new LocalSource(3, "d");

    private GuardSet guards(Tensor t) {
        return new GuardSet(List.of(TensorMatch.of(x, t), new EqualsMatch(n, 3), new TypeMatch(xs, List.class), new LengthCheck(xs, 2),
                TensorMatch.of(new IndexSource(xs, 1), t), new IdMatch(d, DType.FLOAT32), new SameObject(new IndexSource(xs, 0), x)));
    }

    @Test
    void passesAndFailsLikeTheGuards() {
        Tensor t = Tensor.zeros(2, 3);
        GuardSet g = guards(t);
        Object[] ok = {t, 3, List.of(t, Tensor.ones(2, 3)), DType.FLOAT32};
        assertTrue(g.check(ok));
        assertNull(g.firstFailure(ok));
        assertFalse(g.check(new Object[] {Tensor.zeros(4, 3), 3, List.of(t, t), DType.FLOAT32}));
        assertEquals("tensor 'x' size mismatch at index 0. expected 2, actual 4", g.firstFailure(new Object[] {Tensor.zeros(4, 3), 3, List.of(t, t), DType.FLOAT32}));
        assertEquals("L['n'] == 3 failed: actual 4", g.firstFailure(new Object[] {t, 4, List.of(t, t), DType.FLOAT32}));
        assertEquals("len(L['xs']) == 2 failed: actual 1", g.firstFailure(new Object[] {t, 3, List.of(t), DType.FLOAT32}));
        assertFalse(g.check(new Object[] {t, 3, List.of(t), DType.FLOAT32}), "a short list fails (and is not read out of bounds)");
        assertEquals("isinstance(L['xs'], java.util.List) failed: actual java.lang.String", g.firstFailure(new Object[] {t, 3, "no", DType.FLOAT32}));
        assertEquals("L['d'] is DType.FLOAT32 failed: actual DType.FLOAT64", g.firstFailure(new Object[] {t, 3, List.of(t, t), DType.FLOAT64}));
        assertEquals("L['xs'][0] is L['x'] failed: they are different objects now",
                g.firstFailure(new Object[] {t, 3, List.of(Tensor.zeros(2, 3), t), DType.FLOAT32}));
        assertEquals("tensor 'L['xs'][1]' dtype mismatch. expected " + DType.FLOAT32 + ", actual " + DType.INT64,
                g.firstFailure(new Object[] {t, 3, List.of(t, Tensor.zeros(DType.INT64, 2, 3)), DType.FLOAT32}));
        assertEquals(2, g.allFailures(new Object[] {Tensor.zeros(4, 3), 4, List.of(Tensor.zeros(4, 3), t), DType.FLOAT32}).size() - 1);
    }

    @Test
    void tensorMatchChecksRankStridesAndRequiresGrad() {
        Tensor t = Tensor.zeros(3, 3);
        TensorMatch m = TensorMatch.of(x, t);
        assertEquals("tensor 'x' rank mismatch. expected 2, actual 1", m.explainFailure(Tensor.zeros(9)));
        assertEquals("tensor 'x' stride mismatch at index 0. expected 3, actual 1", m.explainFailure(Tensor.zeros(3, 3).t()));
        assertEquals("tensor 'x' requires_grad mismatch. expected false, actual true", m.explainFailure(Tensor.zeros(3, 3).requiresGrad(true)));
        assertEquals("tensor 'x' is not a Tensor: got null", m.explainFailure(null));
    }
}
