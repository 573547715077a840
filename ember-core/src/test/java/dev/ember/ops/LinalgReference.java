package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the linalg factorization tests (LU, LDL) share: their dtypes, tolerances and libtorch reference. */
final class LinalgReference {
    private LinalgReference() {}

    static final List<DType> FLOATS = List.of(DType.FLOAT64, DType.FLOAT32);

    static TorchAssert.Tolerance tolerance(DType dtype) {
        return dtype == DType.FLOAT32 ? TorchAssert.Tolerance.of(3e-5, 3e-5) : TorchAssert.Tolerance.of(1e-10, 1e-12);
    }

    /** libtorch's results on float64 copies of the floating arguments, floating results rounded to {@code dtype}: Ember computes in float64 and rounds once. */
    static List<Tensor> reference(String expr, DType dtype, Tensor... args) {
        Object[] wide = new Object[args.length];
        for (int i = 0; i < args.length; i++) wide[i] = args[i].dtype().isFloatingPoint() ? args[i].to(DType.FLOAT64) : args[i];
        List<Tensor> out = new ArrayList<>();
        try (NDManager m = Torch.scope()) {
            for (var nd : Torch.callList(m, expr, wide)) {
                Tensor t = Torch.fromNd(nd);
                out.add(t.dtype().isFloatingPoint() ? t.to(dtype) : t);
            }
        }
        return out;
    }

    /** Each output within {@code tol} (integer outputs exactly). */
    static void assertAll(List<Tensor> got, List<Tensor> want, String context, TorchAssert.Tolerance tol) {
        assertEquals(want.size(), got.size(), context + ": outputs");
        for (int i = 0; i < got.size(); i++) {
            TorchAssert.Tolerance t = got.get(i).dtype().isFloatingPoint() ? tol : TorchAssert.Tolerance.EXACT;
            assertClose(got.get(i), want.get(i), context + " output " + i, t);
        }
    }
}
