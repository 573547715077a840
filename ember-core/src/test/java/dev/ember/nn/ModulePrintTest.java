package dev.ember.nn;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Module trees print exactly as PyTorch prints the same modules. */
class ModulePrintTest {

    @Test
    void everyLayerPrintsItsSettingsLikePyTorch() {
        Sequential s = new Sequential(
                new Conv2d(3, 16, 3, 1, 1),
                new BatchNorm2d(16),
                new ReLU(),
                new MaxPool2d(2),
                new AdaptiveAvgPool2d(new int[] {1, 1}),
                new Flatten(),
                new Dropout(),
                new Linear(16, 10),
                new GELU("tanh"),
                new SiLU(),
                new Embedding(10, 3, 0),
                new LayerNorm(16));
        assertEquals("""
                Sequential(
                  (0): Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
                  (1): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)
                  (2): ReLU()
                  (3): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
                  (4): AdaptiveAvgPool2d(output_size=(1, 1))
                  (5): Flatten(start_dim=1, end_dim=-1)
                  (6): Dropout(p=0.5, inplace=False)
                  (7): Linear(in_features=16, out_features=10, bias=True)
                  (8): GELU(approximate='tanh')
                  (9): SiLU()
                  (10): Embedding(10, 3, padding_idx=0)
                  (11): LayerNorm((16,), eps=1e-05, elementwise_affine=True)
                )""", s.toString());
    }

    @Test
    void nonDefaultSettingsAppear() {
        assertEquals("Conv2d(4, 8, kernel_size=(3, 1), stride=(2, 2), dilation=(2, 2), groups=2, bias=False)",
                new Conv2d(4, 8, new int[] {3, 1}, new int[] {2, 2}, new int[] {0, 0}, new int[] {2, 2}, 2, false).toString());
        assertEquals("BatchNorm2d(8, eps=0.001, momentum=0.01, affine=False, track_running_stats=False)",
                new BatchNorm2d(8, 1e-3, 0.01, false, false).toString());
        assertEquals("MaxPool2d(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 1), ceil_mode=True)",
                new MaxPool2d(new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 1}, true).toString());
        assertEquals("AdaptiveAvgPool2d(output_size=7)", new AdaptiveAvgPool2d(7).toString());
        assertEquals("LayerNorm((2, 3), eps=1e-06, elementwise_affine=False)", new LayerNorm(new int[] {2, 3}, 1e-6, false, true).toString());
        assertEquals("Linear(in_features=3, out_features=1, bias=False)", new Linear(3, 1, false).toString());
        assertEquals("GELU(approximate='none')", new GELU().toString());
        assertEquals("Embedding(5, 2)", new Embedding(5, 2).toString());
    }

    static final class Doubled extends Module {
        @Override
        public Tensor forward(Tensor original) { return original.mul(2.0); }
    }

    /**
     * A parametrized bias is still there (PyTorch's {@code self.bias is not None} reads the
     * property), though the field now holds null; the class prints as parametrize's injected
     * {@code Parametrized<name>}, and the parametrizations child follows.
     */
    @Test
    void aParametrizedBiasStillPrintsAndTheClassNameSaysParametrized() {
        Linear linear = new Linear(3, 4);
        Parametrize.registerParametrization(linear, "bias", new Doubled());
        assertEquals("""
                ParametrizedLinear(
                  in_features=3, out_features=4, bias=True
                  (parametrizations): ModuleDict(
                    (bias): ParametrizationList(
                      (0): Doubled()
                    )
                  )
                )""", linear.toString());
        Conv2d conv = new Conv2d(2, 2, 3);
        Parametrize.registerParametrization(conv, "bias", new Doubled());
        assertEquals("  2, 2, kernel_size=(3, 3), stride=(1, 1)", conv.toString().lines().skip(1).findFirst().orElseThrow(), "no bias=False");
        Parametrize.removeParametrizations(conv, "bias");
        assertEquals("Conv2d(2, 2, kernel_size=(3, 3), stride=(1, 1))", conv.toString(), "removed: the plain class again");
    }

    @Test
    void nestedModulesIndentLikePyTorch() {
        assertEquals("""
                TransformerEncoderLayer(
                  (self_attn): MultiheadAttention(
                    (out_proj): Linear(in_features=16, out_features=16, bias=True)
                  )
                  (linear1): Linear(in_features=16, out_features=32, bias=True)
                  (dropout): Dropout(p=0.1, inplace=False)
                  (linear2): Linear(in_features=32, out_features=16, bias=True)
                  (norm1): LayerNorm((16,), eps=1e-05, elementwise_affine=True)
                  (norm2): LayerNorm((16,), eps=1e-05, elementwise_affine=True)
                  (dropout1): Dropout(p=0.1, inplace=False)
                  (dropout2): Dropout(p=0.1, inplace=False)
                )""", new TransformerEncoderLayer(16, 4, 32, 0.1).toString());
        assertEquals("""
                Sequential(
                  (0): Sequential(
                    (0): ReLU()
                  )
                  (1): ModuleList(
                    (0): SiLU()
                  )
                  (2): Sequential()
                )""", new Sequential(new Sequential(new ReLU()), new ModuleList<>(new SiLU()), new Sequential()).toString());
    }

    @Test
    void floatsPrintAsPythonRepr() {
        assertEquals("1e-05", Repr.number(1e-5));
        assertEquals("0.0001", Repr.number(1e-4));
        assertEquals("0.1", Repr.number(0.1));
        assertEquals("1.0", Repr.number(1));
        assertEquals("-2.5", Repr.number(-2.5));
        assertEquals("123456.0", Repr.number(123456));
        assertEquals("2.5e-07", Repr.number(2.5e-7));
        assertEquals("1e+16", Repr.number(1e16));
        assertEquals("0.3333333333333333", Repr.number(1.0 / 3));
    }
}
