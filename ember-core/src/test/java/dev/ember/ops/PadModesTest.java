package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.autograd.GradCheck;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * F.pad's reflect, replicate and circular modes against libtorch's pad over every dtype, 2-d to 4-d
 * inputs, layouts, negative (cropping) amounts and empty batches; ATen's errors; gradients against
 * libtorch's backward kernels; and under Ember.compile, one graph computing what eager computes.
 */
class PadModesTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    static final List<String> MODES = List.of("reflect", "replicate", "circular");

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void modesMatchLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 9);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {3, 5}, new int[] {2, 3, 5}, new int[] {2, 3, 4, 5}, new int[] {0, 3, 4, 5}, new int[] {0, 2, 6})) {
                Tensor x = d.isFloatingPoint() ? Inputs.randn(rng, d, shape) : Inputs.randint(rng, d, d.isBool() ? 0 : -9, d.isBool() ? 2 : 9, shape);
                List<int[]> pads = new java.util.ArrayList<>(List.of(new int[] {2, 1}, new int[] {0, 3}, new int[] {-1, 2}, new int[] {4, 4}));
                if (shape.length >= 3) pads.addAll(List.of(new int[] {1, 2, 3, 0}, new int[] {0, 0, 2, 2}, new int[] {-1, 1, 1, -2}, new int[] {3, 3, 2, 1}));
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int[] pad : pads) {
                        for (String mode : MODES) {
                            if (pad.length == 4 && shape.length == 2 || pad.length == 2 && shape.length == 4) continue;   // ATen pads 1 dim of 2-d/3-d, 2 of 3-d/4-d
                            if (pad.length == 4 && shape[0] == 0 && shape.length == 3) continue;   // no batch dim then: an empty channel dim, refused
                            int w = shape[shape.length - 1], h = shape[shape.length - 2];
                            boolean tooLarge = mode.equals("reflect") && (pad[0] >= w || pad[1] >= w || pad.length == 4 && (pad[2] >= h || pad[3] >= h))
                                    || mode.equals("circular") && (pad[0] > w || pad[1] > w || pad.length == 4 && (pad[2] > h || pad[3] > h));
                            if (tooLarge || d.isBool() && !mode.equals("circular")) continue;   // the refusals: badCalls
                            String ctx = mode + " " + d + " " + Arrays.toString(shape) + " " + in + " pad " + Arrays.toString(pad);
                            assertClose(F.pad(in.tensor(), pad, mode), Torch.call(m, "ops.aten.pad(a, " + Arrays.toString(pad) + ", '" + mode + "')", in.tensor()), ctx);
                        }
                    }
                }
            }
        }
    }

    @Test
    void badCallsFailLikeLibtorch() {
        Tensor x = Tensor.randn(1, 2, 3);
        try (NDManager m = Torch.scope()) {
            refused(m, "reflect too wide", () -> F.pad(x, new int[] {3, 0}, "reflect"), "ops.aten.pad(a, [3, 0], 'reflect')", x);
            Tensor x4 = Tensor.randn(1, 2, 3, 5);
            refused(m, "reflect too high", () -> F.pad(x4, new int[] {1, 1, 0, 3}, "reflect"), "ops.aten.pad(a, [1, 1, 0, 3], 'reflect')", x4);
            refused(m, "circular twice around", () -> F.pad(x, new int[] {4, 0}, "circular"), "ops.aten.pad(a, [4, 0], 'circular')", x);
            refused(m, "replicate to nothing", () -> F.pad(x, new int[] {-2, -1}, "replicate"), "ops.aten.pad(a, [-2, -1], 'replicate')", x);
            refused(m, "value with reflect", () -> F.pad(x, new int[] {1, 1}, "reflect", 2.0), "ops.aten.pad(a, [1, 1], 'reflect', 2.0)", x);
            refused(m, "unknown mode", () -> F.pad(x, new int[] {1, 1}, "wrap"), "ops.aten.pad(a, [1, 1], 'wrap')", x);
            refused(m, "odd length", () -> F.pad(x, new int[] {1, 1, 1}, "reflect"), "ops.aten.pad(a, [1, 1, 1], 'reflect')", x);
            Tensor empty = Tensor.zeros(2, 0, 3);
            refused(m, "empty channel dim", () -> F.pad(empty, new int[] {1, 1}, "replicate"), "ops.aten.pad(a, [1, 1], 'replicate')", empty);
            Tensor five = Tensor.randn(1, 1, 2, 2, 2);
            assertThrows(UnsupportedOperationException.class, () -> F.pad(five, new int[] {1, 1, 1, 1, 1, 1, 1, 1}, "reflect"), "4-d padding: not in ATen either");
        }
    }

    @Test
    void gradientsMatchLibtorchAndFiniteDifferences() {
        Random rng = new Random(5);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 1, 2, 3, 4).requiresGrad(true);
        for (String mode : MODES) {
            GradCheck.check(in -> F.pad(in.get(0), new int[] {2, 1, 1, 2}, mode), x);
            GradCheck.check(in -> F.pad(in.get(0).flatten(2, 3), new int[] {3, -1}, mode), x);
        }
        try (NDManager m = Torch.scope()) {
            for (String mode : MODES) {
                for (int[] pad : List.of(new int[] {2, 3, 1, 2}, new int[] {3, 1})) {
                    Tensor leaf = (pad.length == 4 ? Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 5) : Inputs.randn(rng, DType.FLOAT32, 2, 3, 5)).requiresGrad(true);
                    Tensor y = F.pad(leaf, pad, mode);
                    Tensor v = Inputs.randn(rng, DType.FLOAT32, y.shape());
                    y.backward(v);
                    assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ngo: List[Optional[Tensor]] = [b]\n"
                            + "return torch.autograd.grad([ops.aten.pad(a, " + Arrays.toString(pad) + ", '" + mode + "')], [a], go)", leaf.detach(), v).head(),
                            "backward " + mode + " " + Arrays.toString(pad));
                }
            }
        }
    }

    @Test
    void theOpsAreInTheRegistryByName() {
        for (String name : List.of("aten.pad.default", "aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.replication_pad1d.default",
                "aten.replication_pad2d.default", "aten._pad_circular.default", "aten.upsample_nearest1d.default", "aten.upsample_nearest2d.default",
                "aten.upsample_linear1d.default", "aten.upsample_bilinear2d.default")) {
            assertEquals(name, OpRegistry.get(name).name());
            assertTrue(OpRegistry.all().contains(OpRegistry.get(name)), name);
        }
    }

    /** docs/tensors.md, "nn", the pad example as written there. */
    @Test
    void docsExample() {
        Tensor row = Tensor.of(new float[] {1, 2, 3}, 1, 1, 3);
        Tensor reflected = F.pad(row, new int[] {2, 1}, "reflect");     // 3, 2, 1, 2, 3, 2
        Tensor replicated = F.pad(row, new int[] {2, 1}, "replicate");  // 1, 1, 1, 2, 3, 3
        Tensor wrapped = F.pad(row, new int[] {2, 1}, "circular");      // 2, 3, 1, 2, 3, 1
        assertArrayEquals(new float[] {3, 2, 1, 2, 3, 2}, reflected.toFloatArray());
        assertArrayEquals(new float[] {1, 1, 1, 2, 3, 3}, replicated.toFloatArray());
        assertArrayEquals(new float[] {2, 3, 1, 2, 3, 1}, wrapped.toFloatArray());
    }

    // ------------------------------------------------------------------ under Ember.compile

    static Tensor padded(Tensor x) {
        Tensor a = F.pad(x, new int[] {2, 1, 1, 2}, "reflect");
        Tensor b = F.pad(x.relu(), new int[] {1, 3, 0, 1}, "replicate");
        Tensor c = F.pad(x, new int[] {3, 2, 2, 4}, "circular");
        Tensor d = F.pad(x, new int[] {1, 1, 1, 1}, "constant", 0.5);
        return Tensor.cat(List.of(a.reshape(-1), b.reshape(-1), c.reshape(-1), d.reshape(-1)), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(4);
        Tensor x = Tensor.randn(2, 3, 4, 5);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) PadModesTest::padded).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn1<Tensor, Tensor> f = Ember.compile(PadModesTest::padded, Options.backend(backend).fullgraph(true));
        assertArrayEquals(padded(x).toFloatArray(), f.apply(x).toFloatArray(), 0f, backend);
        Tensor ex = x.to(DType.FLOAT64).requiresGrad(true), cx = x.to(DType.FLOAT64).requiresGrad(true);
        Tensor w = Tensor.randn(padded(x).numel()).to(DType.FLOAT64);
        padded(ex).mul(w).sum().backward();
        f.apply(cx).mul(w).sum().backward();
        assertArrayEquals(ex.grad().toDoubleArray(), cx.grad().toDoubleArray(), 1e-12, backend + " gradients");
    }
}
