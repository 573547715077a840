package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The window functions (hann, hamming, blackman, bartlett) against libtorch: lengths 0 to 9, periodic and symmetric, both float dtypes; ATen's refusals; compiled. */
class WindowOpsTest {
    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private static final List<OpOverload> WINDOWS = List.of(WindowOps.HANN_WINDOW_PERIODIC, WindowOps.HAMMING_WINDOW_PERIODIC,
            WindowOps.BLACKMAN_WINDOW_PERIODIC, WindowOps.BARTLETT_WINDOW_PERIODIC);

    @Test
    void windowsMatchLibtorch() {
        for (OpOverload op : WINDOWS) {
            String name = op.schema().name();
            for (int n = 0; n <= 9; n++) {
                for (boolean periodic : new boolean[] {true, false}) {
                    String p = periodic ? "True" : "False";
                    assertClose(op.callTensor((long) n, periodic, null), Torch.call("torch." + name + "(" + n + ", " + p + ")"), name + " " + n + " " + p);
                    assertClose(op.callTensor((long) n, periodic, DType.FLOAT64), Torch.call("torch." + name + "(" + n + ", " + p + ", dtype=torch.float64)"),
                            name + " float64 " + n + " " + p);
                }
            }
        }
        assertClose(WindowOps.HANN_WINDOW.callTensor(7L, null), Torch.call("torch.hann_window(7)"), "hann_window without periodic: periodic");
        assertClose(WindowOps.BARTLETT_WINDOW.callTensor(6L, DType.FLOAT64), Torch.call("torch.bartlett_window(6, dtype=torch.float64)"), "bartlett_window without periodic");
        assertClose(Tensor.hannWindow(8, false), Torch.call("torch.hann_window(8, False)"), "Tensor.hannWindow");
        assertClose(Tensor.blackmanWindow(5, true, DType.FLOAT64), Torch.call("torch.blackman_window(5, True, dtype=torch.float64)"), "Tensor.blackmanWindow");
    }

    @Test
    void badArgumentsAreRefusedWithAtensWords() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> Tensor.hannWindow(-1, true));
        assertEquals("hann_window requires non-negative window_length, got window_length=-1", negative.getMessage());
        IllegalArgumentException ints = assertThrows(IllegalArgumentException.class, () -> Tensor.bartlettWindow(4, true, DType.INT64));
        assertEquals("bartlett_window expects floating point dtypes, got: TensorOptions(dtype=long int, device=cpu, layout=Strided (default), "
                + "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))", ints.getMessage());
        // the words above are PyTorch 2.13's; libtorch refuses the same calls
        assertThrows(RuntimeException.class, () -> Torch.call("torch.hann_window(-1)"));
        assertThrows(RuntimeException.class, () -> Torch.call("torch.bartlett_window(4, dtype=torch.int64)"));
    }

    static Tensor windowed(Tensor a, Tensor b) {
        return a.mul(Tensor.hannWindow(8, true)).add(b.mul(Tensor.blackmanWindow(8, false))).add(Tensor.bartlettWindow(8, true).mul(Tensor.hammingWindow(8, false)));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        java.util.Random rng = new java.util.Random(164);
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 3, 8), b = Inputs.randn(rng, DType.FLOAT32, 3, 8);
        Fn2<Tensor, Tensor, Tensor> fn = WindowOpsTest::windowed;
        ExplainOutput e = Ember.explain(fn).with(a, b);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertClose(Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(a, b), fn.apply(a, b), backend);
    }

    /** docs/tensors.md, "Window functions", as written there. */
    @Test
    void docsExample() {
        Tensor frames = Tensor.randn(10, 256);
        Tensor tapered = frames.mul(Tensor.hannWindow(256, true));   // each frame times the window
        assertClose(tapered, Torch.call("a * torch.hann_window(256, True)", frames), "tapered frames");
    }
}
