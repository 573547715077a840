package dev.ember.ops;

import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.ops.CompositeShapeOpsTest.refused;
import static dev.ember.ops.CompositeShapeOpsTest.sample;
import static dev.ember.testing.TorchAssert.assertClose;

/**
 * addcmul, addcdiv and lerp against libtorch: broadcast shapes, dtypes (promoted for addcmul and
 * addcdiv; integers where ATen takes them), non-contiguous operands, lerp's two branches and its
 * exact ends; gradients against finite differences; ATen's errors.
 */
class CompositePointwiseOpsTest {

    @Test
    void addcmulAndAddcdivMatchLibtorch() {
        Random rng = new Random(11);
        for (int[][] s : Inputs.BROADCAST_SHAPES) {
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
                Tensor self = Inputs.randn(rng, d, s[0]), t1 = Inputs.randn(rng, d, s[1]), t2 = Inputs.uniform(rng, d, 0.5, 2, s[1]);
                for (Inputs.Layout in : Inputs.layouts(t1)) {
                    String what = d + " " + Arrays.toString(s[0]) + " " + Arrays.toString(s[1]) + " " + in;
                    assertClose(self.addcmul(in.tensor(), t2), Torch.call("torch.addcmul(a, b, c)", self, in.tensor(), t2), "addcmul " + what);
                    assertClose(self.addcmul(in.tensor(), t2, -0.3), Torch.call("torch.addcmul(a, b, c, value=-0.3)", self, in.tensor(), t2), "addcmul value " + what);
                    assertClose(self.addcdiv(in.tensor(), t2), Torch.call("torch.addcdiv(a, b, c)", self, in.tensor(), t2), "addcdiv " + what);
                    assertClose(self.addcdiv(in.tensor(), t2, 2.5), Torch.call("torch.addcdiv(a, b, c, value=2.5)", self, in.tensor(), t2), "addcdiv value " + what);
                }
            }
        }
        for (DType d : List.of(DType.INT32, DType.INT64)) {
            Tensor a = sample(rng, d, 3, 4), b = sample(rng, d, 4), c = sample(rng, d, 3, 1);
            assertClose(a.addcmul(b, c), Torch.call("torch.addcmul(a, b, c)", a, b, c), "addcmul " + d);
            assertClose(a.addcmul(b, c, 3), Torch.call("torch.addcmul(a, b, c, value=3)", a, b, c), "addcmul value 3 " + d);
            assertClose(a.addcmul(b, c, 2.7), Torch.call("torch.addcmul(a, b, c, value=2.7)", a, b, c), "addcmul value truncated " + d);
        }
        // mixed dtypes compute in the promoted one
        Tensor f = Inputs.randn(rng, DType.FLOAT32, 3), g = Inputs.randn(rng, DType.FLOAT64, 3), i = sample(rng, DType.INT64, 3);
        assertClose(i.addcmul(f, g, 0.5), Torch.call("torch.addcmul(a, b, c, value=0.5)", i, f, g), "addcmul mixed");
        assertClose(f.addcdiv(i, g), Torch.call("torch.addcdiv(a, b, c)", f, i, g), "addcdiv mixed");
    }

    @Test
    void lerpMatchesLibtorchOnBothBranches() {
        Random rng = new Random(12);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (int[][] s : Inputs.BROADCAST_SHAPES) {
                Tensor start = Inputs.randn(rng, d, s[0]), end = Inputs.randn(rng, d, s[1]);
                for (Inputs.Layout in : Inputs.layouts(start)) {
                    String what = d + " " + Arrays.toString(s[0]) + " " + Arrays.toString(s[1]) + " " + in;
                    for (double w : new double[] {0, 0.25, 0.4999, 0.5, 0.75, 1, -1.5, 2.5}) {
                        assertClose(in.tensor().lerp(end, w), Torch.call("torch.lerp(a, b, " + w + ")", in.tensor(), end), "lerp " + w + " " + what);
                    }
                    Tensor weight = Inputs.uniform(rng, d, -1, 2, s[1]);
                    assertClose(in.tensor().lerp(end, weight), Torch.call("torch.lerp(a, b, c)", in.tensor(), end, weight), "lerp tensor weight " + what);
                }
            }
            // each branch is exact at its end
            Tensor a = Inputs.randn(rng, d, 50), b = Inputs.randn(rng, d, 50);
            assertClose(a.lerp(b, 0.0), Torch.call("a.clone()", a), "lerp 0 is start");
            assertClose(a.lerp(b, 1.0), Torch.call("a.clone()", b), "lerp 1 is end");
            assertClose(a.lerp(b, Tensor.ones(d, 50)), Torch.call("a.clone()", b), "lerp by ones is end");
        }
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor y = Tensor.randn(4).to(DType.FLOAT64).requiresGrad(true);
        Tensor z = Tensor.rand(3, 1).to(DType.FLOAT64).add(0.5).detach().requiresGrad(true);
        GradCheck.check(in -> in.get(0).addcmul(in.get(1), in.get(2), 0.7), x, y, z);
        GradCheck.check(in -> in.get(0).addcdiv(in.get(1), in.get(2), -1.3), x, y, z);
        GradCheck.check(in -> in.get(0).lerp(in.get(1), 0.3).add(in.get(0).lerp(in.get(1), 0.8)), x, y);
        Tensor w = Tensor.of(new double[] {-0.5, 0.2, 0.7, 1.4}, 4).requiresGrad(true);
        GradCheck.check(in -> in.get(0).lerp(in.get(1), in.get(2)), x, y, w);
    }

    @Test
    void badInputIsRefusedNamingTheOp() {
        Tensor f = Tensor.randn(2, 3), i = Tensor.ofLongs(1, 2, 3), b = Tensor.zeros(DType.BOOL, 3);
        refused(IllegalArgumentException.class, "addcmul", () -> b.addcmul(b, b));
        refused(IllegalArgumentException.class, "addcmul", () -> f.addcmul(f, Tensor.randn(4)));
        refused(IllegalArgumentException.class, "addcdiv", () -> i.addcdiv(i, i));
        refused(IllegalArgumentException.class, "addcdiv", () -> f.addcdiv(Tensor.randn(2, 1), Tensor.randn(5)));
        refused(IllegalArgumentException.class, "lerp", () -> i.lerp(i, 0.5));
        refused(IllegalArgumentException.class, "lerp", () -> f.lerp(f.to(DType.FLOAT64), 0.5));
        refused(IllegalArgumentException.class, "lerp", () -> f.lerp(f, f.to(DType.FLOAT64)));
        refused(IllegalArgumentException.class, "lerp", () -> f.lerp(Tensor.randn(4), 0.5));
    }
}
