package dev.ember.fx;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Backends by name: a user's registered one (as docs/compile.md shows), the providers', and a clear error for a typo. */
class BackendsTest {

    static Tensor step(Tensor x) { return x.mul(2.0).relu(); }

    @Test
    void aRegisteredBackendSeesTheGraphAndRunsIt() {
        List<String> seen = new ArrayList<>();
        Backends.register("recording_test", (gm, inputs) -> {
            seen.add(gm.code());
            return Backends.EAGER.compile(gm, inputs);
        });
        Tensor x = Tensor.randn(3, 4);
        Tensor got = Ember.compile(BackendsTest::step, Options.backend("recording_test")).apply(x);
        assertArrayEquals(step(x).toFloatArray(), got.toFloatArray());
        assertEquals(1, seen.size());
        assertTrue(seen.get(0).contains("aten.mul") && seen.get(0).contains("aten.relu"), seen.get(0));
    }

    @Test
    void anUnknownNameListsEveryBackendIncludingTheProviders() {
        var e = assertThrows(IllegalArgumentException.class, () -> Backends.get("indcutor"));
        assertTrue(e.getMessage().contains("unknown backend 'indcutor'") && e.getMessage().contains("inductor")
                && e.getMessage().contains("aot_eager") && e.getMessage().contains("eager"), e.getMessage());
    }
}
