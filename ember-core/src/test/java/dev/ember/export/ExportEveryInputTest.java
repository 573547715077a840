package dev.ember.export;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An exported program takes every tensor argument, in argument order, whether the code reads it or
 * not, as torch.export's signature lists every input ({@code Ember.compile} wraps arguments as the
 * code first reads them; export does not).
 */
class ExportEveryInputTest {
    static Tensor firstOnly(Tensor x, Tensor a) { return x.add(1); }

    static Tensor readsSecondFirst(Tensor x, Tensor a) { return a.mul(2).add(x); }

    private static List<String> inputNames(ExportedProgram ep) { return ep.graphSignature().inputs().stream().map(InputSpec::name).toList(); }

    @Test
    void anUnreadArgumentIsStillAnInput() {
        Tensor x = Tensor.randn(3), a = Tensor.randn(3);
        ExportedProgram ep = Ember.export((Fn2<Tensor, Tensor, Tensor>) ExportEveryInputTest::firstOnly, x, a);
        assertEquals(List.of("x", "a"), inputNames(ep));
        assertArrayEquals(firstOnly(x, a).toFloatArray(), ep.withBackend("eager").run(x, a).getFirst().toFloatArray());
    }

    @Test
    void inputsComeInArgumentOrderWhateverTheOrderOfReads() {
        Tensor x = Tensor.randn(3), a = Tensor.randn(3);
        ExportedProgram ep = Ember.export((Fn2<Tensor, Tensor, Tensor>) ExportEveryInputTest::readsSecondFirst, x, a);
        assertEquals(List.of("x", "a"), inputNames(ep));
        assertArrayEquals(readsSecondFirst(x, a).toFloatArray(), ep.withBackend("eager").run(x, a).getFirst().toFloatArray());
    }
}
