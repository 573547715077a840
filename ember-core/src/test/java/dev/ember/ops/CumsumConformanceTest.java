package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * cumsum against libtorch: every dtype (integers and bool sum to int64), every dim and layout,
 * a requested dtype (the input converted first), long float32 rows (ATen accumulates in double),
 * 0-d and empty inputs, and the out= form (computing in out's dtype).
 */
class CumsumConformanceTest {

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void cumsumMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 81);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {3, 4, 5}, new int[] {2, 3000}, new int[] {0, 4})) {
                Tensor x = ScatterConformanceTest.values(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int dim = -1; dim < shape.length; dim++) {
                        String ctx = "cumsum " + d + " " + in + " dim " + dim;
                        assertClose(in.tensor().cumsum(dim), Torch.call(m, "torch.cumsum(a, " + dim + ")", in.tensor()), ctx);
                        for (DType to : new DType[] {DType.FLOAT64, DType.INT32}) {
                            assertClose(in.tensor().cumsum(dim, to), Torch.call(m, "torch.cumsum(a, " + dim + ", dtype=" + torchName(to) + ")", in.tensor()), ctx + " dtype " + to);
                        }
                    }
                }
            }
            Tensor scalar = ScatterConformanceTest.values(rng, d);
            assertClose(scalar.cumsum(0), Torch.call(m, "torch.cumsum(a, 0)", scalar), "0-d " + d);
        }
    }

    @Test
    void outFormComputesInOutsDtype() {
        Random rng = new Random(9);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 6);
        try (NDManager m = Torch.scope()) {
            for (DType outType : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT64}) {
                for (Inputs.Layout layout : Inputs.layouts(Tensor.zeros(outType, 4, 6))) {
                    Tensor out = layout.tensor();
                    int version = out.version();
                    assertSame(out, x.cumsumOut(1, out));
                    assertEquals(version + 1, out.version());
                    assertClose(out, Torch.call(m, "torch.cumsum(a, 1, out=b)\nreturn b", x, Tensor.zeros(outType, 4, 6)), "cumsum out " + outType + " " + layout);
                }
            }
            Tensor sameAsInput = x.clone();
            sameAsInput.cumsumOut(0, sameAsInput);
            assertClose(sameAsInput, Torch.call(m, "torch.cumsum(a, 0)", x), "out is the input");
            refused(m, "dim out of range", () -> x.cumsum(2), "torch.cumsum(a, 2)", x);
            Tensor float32Out = Tensor.zeros(4, 6);
            refused(m, "dtype other than out's", () -> OpRegistry.get("aten.cumsum.out").callTensor(x, 1L, DType.FLOAT64, float32Out),
                    "torch.cumsum(a, 1, dtype=torch.float64, out=b)\nreturn b", x, float32Out);
        }
    }

    static String torchName(DType d) {
        return switch (d) {
            case FLOAT32 -> "torch.float32";
            case FLOAT64 -> "torch.float64";
            case INT32 -> "torch.int32";
            case INT64 -> "torch.int64";
            case BOOL -> "torch.bool";
        };
    }
}
