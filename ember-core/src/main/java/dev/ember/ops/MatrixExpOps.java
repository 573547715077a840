package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * The matrix exponential {@code e^A = Σ Aᵏ/k!} of a (batch of) square matrices (torch.linalg.matrix_exp,
 * torch.matrix_exp): Higham's scaling and squaring with the degree-13 Padé approximant (the method
 * of scipy's expm), computed in float64 per matrix and rounded once to the input's dtype.
 * Its gradient is ATen's: the upper-right block of the exponential of {@code [[Aᵀ, G], [0, Aᵀ]]}.
 */
public final class MatrixExpOps {
    private MatrixExpOps() {}

    public static final OpOverload LINALG_MATRIX_EXP = OpOverload.define("linalg_matrix_exp(Tensor self) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                String op = "linalg.matrix_exp";
                if (self.dim() < 2) throw new IllegalArgumentException(op + ": The input tensor A must have at least 2 dimensions.");
                if (self.size(-2) != self.size(-1)) {
                    throw new IllegalArgumentException(op + ": A must be batches of square matrices, but they are " + self.size(-2) + " by " + self.size(-1) + " matrices");
                }
                if (!self.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException(op + ": Expected a floating point or complex tensor as input. Got " + self.dtype().scalarTypeName());
                }
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                int n = self.size(-1), batch = n == 0 ? 0 : self.numel() / (n * n);
                double[] in = self.toDoubleArray(), out = new double[in.length];
                for (int b = 0; b < batch; b++) {
                    double[] one = new double[n * n];
                    System.arraycopy(in, b * n * n, one, 0, n * n);
                    System.arraycopy(expm(one, n), 0, out, b * n * n, n * n);
                }
                Tensor result = Tensor.of(out, self.shape());
                return self.dtype() == DType.FLOAT64 ? result : result.to(self.dtype());
            })
            .derivative(g -> {
                // ATen's differential_analytic_matrix_function: exp([[Aᵀ, G], [0, Aᵀ]]) holds the adjoint derivative in its upper-right block
                TensorMeta am = g.argMeta(0);
                int n = am.shape()[am.dim() - 1], rank = am.dim();
                Object at = g.call(ShapeOps.TRANSPOSE, g.arg(0), (long) (rank - 2), (long) (rank - 1));
                Object top = g.call(ShapeOps.CAT, java.util.List.of(at, g.grad()), (long) (rank - 1));
                Object bottom = g.call(ShapeOps.CAT, java.util.List.of(g.zeros(am), at), (long) (rank - 1));
                Object big = g.call(g.op(), g.call(ShapeOps.CAT, java.util.List.of(top, bottom), (long) (rank - 2)));
                Object rows = g.call(ShapeOps.NARROW, big, (long) (rank - 2), 0L, (long) n);
                return new Object[] {g.call(ShapeOps.CLONE, g.call(ShapeOps.NARROW, rows, (long) (rank - 1), (long) n, (long) n))};
            })
            .register();

    /** Higham (2005), "The scaling and squaring method for the matrix exponential revisited": Padé 13 after scaling by 2^-s. */
    private static final double THETA_13 = 5.371920351148152;
    private static final double[] PADE_13 = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
            129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0};

    /** e^A of one row-major n×n matrix. */
    static double[] expm(double[] a, int n) {
        double norm = 0;   // the 1-norm: the largest column sum of magnitudes
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int i = 0; i < n; i++) sum += Math.abs(a[i * n + j]);
            norm = Math.max(norm, sum);
        }
        if (Double.isNaN(norm) || Double.isInfinite(norm)) {
            double[] nan = new double[n * n];
            java.util.Arrays.fill(nan, Double.NaN);
            return nan;
        }
        int s = norm > THETA_13 ? (int) Math.ceil(Math.log(norm / THETA_13) / Math.log(2)) : 0;
        double[] x = a.clone();
        if (s > 0) for (int i = 0; i < x.length; i++) x[i] = Math.scalb(x[i], -s);
        double[] x2 = mul(x, x, n), x4 = mul(x2, x2, n), x6 = mul(x4, x2, n);
        double[] c = PADE_13;
        double[] uInner = new double[n * n], vOuter = new double[n * n], uOuter = new double[n * n], vInner = new double[n * n];
        for (int i = 0; i < n * n; i++) {
            uInner[i] = c[13] * x6[i] + c[11] * x4[i] + c[9] * x2[i];
            vInner[i] = c[12] * x6[i] + c[10] * x4[i] + c[8] * x2[i];
            uOuter[i] = c[7] * x6[i] + c[5] * x4[i] + c[3] * x2[i];
            vOuter[i] = c[6] * x6[i] + c[4] * x4[i] + c[2] * x2[i];
        }
        double[] u6 = mul(x6, uInner, n), v6 = mul(x6, vInner, n);
        for (int i = 0; i < n; i++) {
            uOuter[i * n + i] += c[1];
            vOuter[i * n + i] += c[0];
        }
        for (int i = 0; i < n * n; i++) {
            u6[i] += uOuter[i];
            v6[i] += vOuter[i];
        }
        double[] u = mul(x, u6, n), v = v6;
        double[] p = new double[n * n], q = new double[n * n];
        for (int i = 0; i < n * n; i++) {
            p[i] = v[i] + u[i];
            q[i] = v[i] - u[i];
        }
        double[] r = solve(q, p, n);
        for (int k = 0; k < s; k++) r = mul(r, r, n);
        return r;
    }

    private static double[] mul(double[] a, double[] b, int n) {
        double[] c = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < n; k++) {
                double aik = a[i * n + k];
                if (aik == 0) continue;
                for (int j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
            }
        }
        return c;
    }

    /** X with Q X = P (n×n each), by Gaussian elimination with partial pivoting. */
    private static double[] solve(double[] q, double[] p, int n) {
        double[] a = q.clone(), x = p.clone();
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) if (Math.abs(a[r * n + col]) > Math.abs(a[pivot * n + col])) pivot = r;
            if (pivot != col) {
                swapRows(a, pivot, col, n);
                swapRows(x, pivot, col, n);
            }
            double d = a[col * n + col];
            for (int r = col + 1; r < n; r++) {
                double f = a[r * n + col] / d;
                if (f == 0) continue;
                for (int j = col; j < n; j++) a[r * n + j] -= f * a[col * n + j];
                for (int j = 0; j < n; j++) x[r * n + j] -= f * x[col * n + j];
            }
        }
        for (int col = n - 1; col >= 0; col--) {
            double d = a[col * n + col];
            for (int j = 0; j < n; j++) {
                double sum = x[col * n + j];
                for (int k = col + 1; k < n; k++) sum -= a[col * n + k] * x[k * n + j];
                x[col * n + j] = sum / d;
            }
        }
        return x;
    }

    private static void swapRows(double[] m, int r1, int r2, int n) {
        for (int j = 0; j < n; j++) {
            double t = m[r1 * n + j];
            m[r1 * n + j] = m[r2 * n + j];
            m[r2 * n + j] = t;
        }
    }
}
