package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Ember.compile with the inductor and aot_eager backends gives what eager gives. */
class InductorBackendTest {

    static Tensor model(Tensor x, Tensor w) {
        Tensor h = x.matmul(w.t()).relu();
        return h.softmax(-1).mul(h.sigmoid()).sum(1, true);
    }

    @BeforeAll
    static void register() throws java.io.IOException {
        System.setProperty("ember.cache.dir", java.nio.file.Files.createTempDirectory("ember-cache").toString());
        InductorBackend.register();
    }

    private static void check(String backend) {
        Tensor x = Tensor.randn(16, 32), w = Tensor.randn(24, 32);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(InductorBackendTest::model, Options.backend(backend));
        Tensor want = model(x, w), got = f.apply(x, w);
        assertArrayEquals(want.shape(), got.shape());
        float[] a = want.toFloatArray(), b = got.toFloatArray();
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-4 * (1 + Math.abs(a[i])), backend + " element " + i);
        Tensor x2 = Tensor.randn(16, 32);
        assertArrayEquals(model(x2, w).toFloatArray(), f.apply(x2, w).toFloatArray(), 1e-4f, backend + ": second call, cached code");
    }

    @Test
    void inductorMatchesEager() { check("inductor"); }

    @Test
    void aotEagerMatchesEager() { check("aot_eager"); }

    @Test
    void maxAutotuneMatchesEager() { check("inductor_max_autotune"); }
}
