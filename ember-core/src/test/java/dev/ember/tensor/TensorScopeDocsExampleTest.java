package dev.ember.tensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The example of docs/tensors.md, "Releasing tensors deterministically (TensorScope)", as written there. */
class TensorScopeDocsExampleTest {

    @Test
    void theLoopKeepsItsTotalAndReleasesEverythingElse() {
        Tensor a = Tensor.randn(1024, 4096), b = Tensor.randn(4096);
        Tensor total = Tensor.zeros(DType.FLOAT32);
        Tensor[] released = new Tensor[1];
        java.util.Set<Object> arrays = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int step = 0; step < 10; step++) {
            try (TensorScope scope = TensorScope.open()) {
                Tensor y = a.add(b).relu();                    // a new 16 MB result, from the pool after step 0
                total = scope.keep(total.add(y.sum()));         // kept: it outlives the scope
                released[0] = y;
                arrays.add(y.storage().data());
            }                                                   // y and a.add(b) released here
        }

        double expected = 10 * a.add(b).relu().to(DType.FLOAT64).sum().item();
        assertEquals(expected, total.item(), Math.abs(expected) * 1e-5, "the kept total");
        assertTrue(arrays.size() <= 2, "ten steps' results came from the two arrays the first step made: " + arrays.size());
        IllegalStateException e = assertThrows(IllegalStateException.class, released[0]::toFloatArray);
        assertTrue(e.getMessage().startsWith("this tensor's storage was released when the TensorScope opened at dev.ember.tensor.TensorScopeDocsExampleTest")
                && e.getMessage().endsWith("closed, and its memory may now hold another tensor. Call scope.keep(tensor) before the scope closes to use it afterwards"),
                e.getMessage());
    }
}
