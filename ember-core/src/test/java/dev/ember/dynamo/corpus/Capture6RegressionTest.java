package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The capture gaps the sixth capture session closed and the wrong answers it found on the way,
 * each compiled against eager (results, inputs afterwards, exceptions).
 */
class Capture6RegressionTest {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    private static void alike(Object fn, Object... a) {
        Ember.reset();
        PyTorchPortsMoreTest.check(fn, Options.defaults(), () -> List.<Object[]>of(a.clone()));
    }

    // ---- an immutable map or set throws from every mutator, whatever the arguments ----

    static Tensor putIfAbsentPresent(Tensor x) { return x.mul(Map.of("a", 1).putIfAbsent("a", 2)); }

    static Tensor computeIfAbsentPresent(Tensor x) { return x.mul(Map.of("a", 1).computeIfAbsent("a", k -> 2)); }

    static Tensor computeIfPresentAbsent(Tensor x) { return x.add(Map.of("a", 1).computeIfPresent("z", (k, v) -> 2) == null ? 0 : 1); }

    static Tensor replaceAllEmpty(Tensor x) {
        Map.<String, Integer>of().replaceAll((k, v) -> v);
        return x.add(1);
    }

    static Tensor putAllEmpty(Tensor x) {
        Map.of("a", 1).putAll(Map.of());
        return x.add(1);
    }

    static Tensor removeAllNothing(Tensor x) { return x.add(Set.of(1).removeAll(List.of()) ? 1 : 2); }

    static Tensor retainAllEverything(Tensor x) { return x.add(Set.copyOf(List.of(1)).retainAll(List.of(1)) ? 1 : 2); }

    static Tensor addAllNothing(Tensor x) { return x.add(Set.of(1).addAll(List.of()) ? 1 : 2); }

    static Tensor inputPutIfAbsent(Tensor x, Map<String, Integer> m) { return x.mul(m.putIfAbsent("a", 3)); }

    @Test
    void immutableMapsAndSetsThrowFromEveryMutator() {
        for (Fn1<Tensor, Tensor> f : List.<Fn1<Tensor, Tensor>>of(Capture6RegressionTest::putIfAbsentPresent, Capture6RegressionTest::computeIfAbsentPresent,
                Capture6RegressionTest::computeIfPresentAbsent, Capture6RegressionTest::replaceAllEmpty, Capture6RegressionTest::putAllEmpty,
                Capture6RegressionTest::removeAllNothing, Capture6RegressionTest::retainAllEverything, Capture6RegressionTest::addAllNothing)) {
            alike(f, Tensor.randn(3));
        }
        alike((Fn2<Tensor, Map<String, Integer>, Tensor>) Capture6RegressionTest::inputPutIfAbsent, Tensor.randn(3), Map.of("a", 2));
    }
}
