package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.nn.init on a parametrized layer. PyTorch's {@code nn.init.normal_(layer.weight)} fills the
 * computed weight, a temporary (the layer is unchanged); users initialise
 * {@code layer.parametrizations.weight.original}. In Ember the field {@code layer.weight} of a
 * parametrized layer holds null, so {@code Init.normal_(layer.weight)} is refused in words that
 * name the layer's field and the call to make instead, never a bare NullPointerException.
 */
class InitOnParametrizedLayerTest {

    @Test
    void initOnTheNullFieldNamesTheLayerAndTheOriginal() {
        Linear layer = new Linear(4, 4);
        Parametrize.registerParametrization(layer, "weight", new ParametrizeTest.Symmetric());
        var e = assertThrows(IllegalArgumentException.class, () -> Init.normal_(layer.weight, 0, 1));
        String m = e.getMessage();
        assertTrue(m.startsWith("Init.normal_: the tensor is null: the field Linear.weight (at InitOnParametrizedLayerTest.java:"), m);
        assertTrue(m.contains("Init.normal_(Parametrize.parametrizations(layer, \"weight\").original(), …)"), m);
        assertTrue(m.contains("torch: nn.init.normal_(layer.parametrizations.weight.original)"), m);

        var k = assertThrows(IllegalArgumentException.class, () -> Init.kaimingUniform_(layer.weight));
        assertTrue(k.getMessage().startsWith("Init.kaimingUniform_: the tensor is null: the field Linear.weight"), k.getMessage());
        assertTrue(k.getMessage().contains("nn.init.kaiming_uniform_(layer.parametrizations.weight.original)"), k.getMessage());
    }

    @Test
    void everyInitFunctionRefusesTheNullFieldInWords() {
        Conv2d conv = (Conv2d) Parametrizations.weightNorm(new Conv2d(2, 3, 3));
        java.util.List<org.junit.jupiter.api.function.Executable> calls = java.util.List.of(
                () -> Init.uniform_(conv.weight, 0, 1), () -> Init.normal_(conv.weight, 0, 1), () -> Init.truncNormal_(conv.weight, 0, 1),
                () -> Init.constant_(conv.weight, 2), () -> Init.ones_(conv.weight), () -> Init.zeros_(conv.weight),
                () -> Init.orthogonal_(conv.weight), () -> Init.dirac_(conv.weight), () -> Init.xavierUniform_(conv.weight),
                () -> Init.xavierNormal_(conv.weight), () -> Init.kaimingUniform_(conv.weight), () -> Init.kaimingNormal_(conv.weight, 0, "fan_out", "relu"));
        for (var call : calls) {
            var e = assertThrows(IllegalArgumentException.class, call);
            assertTrue(e.getMessage().contains("the field Conv2d.weight"), e.getMessage());
            assertTrue(e.getMessage().contains("originals().get(0) and get(1)"), e.getMessage());
        }
        Linear square = new Linear(3, 3);
        Parametrize.registerParametrization(square, "weight", new ParametrizeTest.Symmetric());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Init.eye_(square.weight)).getMessage().contains("the field Linear.weight"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Init.sparse_(square.weight, 0.5)).getMessage().contains("the field Linear.weight"));
    }

    @Test
    void oldStyleWeightNormNamesItsTwoParameters() {
        Linear layer = (Linear) WeightNorm.weightNorm(new Linear(3, 2));
        var e = assertThrows(IllegalArgumentException.class, () -> Init.xavierNormal_(layer.weight));
        assertTrue(e.getMessage().contains("the field Linear.weight"), e.getMessage());
        assertTrue(e.getMessage().contains("weight_g and weight_v"), e.getMessage());
    }

    @Test
    void aNullNotReadFromAFieldGetsTheGeneralMessage() {
        Tensor none = null;
        var e = assertThrows(IllegalArgumentException.class, () -> Init.zeros_(none));
        assertTrue(e.getMessage().startsWith("Init.zeros_: the tensor is null (at InitOnParametrizedLayerTest.java:"), e.getMessage());
        assertTrue(e.getMessage().contains("Parametrize.parametrizations(layer, \"weight\").original()"), e.getMessage());
    }

    @Test
    void initialisingTheOriginalChangesTheComputedWeight() {
        Linear layer = new Linear(4, 4);
        Parametrize.registerParametrization(layer, "weight", new ParametrizeTest.Symmetric());
        Tensor original = Parametrize.parametrizations(layer, "weight").original();
        Tensor.manualSeed(7);
        assertSame(original, Init.xavierUniform_(original));
        assertFalse(original.requiresGrad() && original.gradFn() != null, "an initialisation records no history");
        assertClose(layer.tensor("weight"), Torch.call("torch.triu(a) + torch.triu(a, 1).mT", original), "the computed weight follows the initialised original");
        assertClose(layer.forward(Tensor.ones(2, 4)), Torch.call("torch.linear(a, torch.triu(b) + torch.triu(b, 1).mT, c)", Tensor.ones(2, 4), original, layer.bias),
                "forward uses the initialised original");
    }

    @Test
    void fillingTheComputedValueWorksAsTorchsAndLeavesTheLayerAlone() {
        Linear layer = new Linear(3, 3);
        Parametrize.registerParametrization(layer, "weight", new ParametrizeTest.Symmetric());
        Tensor before = Parametrize.parametrizations(layer, "weight").original().clone();
        Tensor computed = layer.tensor("weight");
        assertSame(computed, Init.constant_(computed, 0.5));
        assertClose(computed, Torch.call("torch.full([3, 3], 0.5)"), "the temporary is filled");
        assertClose(Parametrize.parametrizations(layer, "weight").original(), before, "the original is untouched, as torch's");
        assertNotEquals(0.5, layer.tensor("weight").to(DType.FLOAT64).sum().item() / 9, "the layer's weight is computed anew");
        assertEquals(2, layer.tensor("weight").dim());
    }

    @Test
    void aLazyModulesFieldBeforeItsFirstForwardSaysToRunOne() {
        LazyLinear head = new LazyLinear(4);
        var e = assertThrows(IllegalArgumentException.class, () -> Init.xavierUniform_(head.weight));
        assertTrue(e.getMessage().startsWith("Init.xavierUniform_: the tensor is null: the field LazyLinear.weight"), e.getMessage());
        assertTrue(e.getMessage().contains("Call forward with a dummy batch first"), e.getMessage());
        head.forward(Tensor.randn(2, 3));
        assertSame(head.weight, Init.xavierUniform_(head.weight), "after the first forward the weight is there");
    }
}
