package dev.ember.ops.eager;

/**
 * The orthogonal factorizations of one row-major float64 matrix: Householder QR (LAPACK's geqrf and
 * orgqr conventions, so R's diagonal has LAPACK's signs), the symmetric eigendecomposition by cyclic
 * Jacobi rotations, and the SVD by one-sided (Hestenes) Jacobi. Jacobi methods are slower than
 * LAPACK's tridiagonal and bidiagonal drivers on large matrices but accurate to the last digits in
 * few lines, which is what a batch of small dense matrices needs.
 */
public final class Orthogonal {
    private Orthogonal() {}

    private static final int MAX_SWEEPS = 100;

    /** Q and R of one matrix: Q {@code m×qCols}, R {@code rRows×n}, both row-major. */
    public record Qr(double[] q, double[] r) {}

    /**
     * {@code A = Q R} for {@code a} ({@code m×n}, row-major, not modified), Q with {@code qCols}
     * columns (min(m, n) for 'reduced', m for 'complete', 0 for 'r') and R with {@code rRows} rows.
     */
    public static Qr qr(double[] a, int m, int n, int qCols, int rRows) {
        int k = Math.min(m, n);
        double[] w = a.clone();
        double[] tau = new double[k];
        for (int j = 0; j < k; j++) {
            // dlarfg: beta = -sign(alpha)·‖x‖ keeps the reflection away from cancellation; tau 0 when x below alpha is zero
            double alpha = w[j * n + j], tail = 0;
            for (int i = j + 1; i < m; i++) tail = Math.hypot(tail, w[i * n + j]);
            if (tail == 0) continue;
            double beta = -Math.copySign(Math.hypot(alpha, tail), alpha);
            tau[j] = (beta - alpha) / beta;
            double scale = 1 / (alpha - beta);
            for (int i = j + 1; i < m; i++) w[i * n + j] *= scale;
            w[j * n + j] = beta;
            for (int c = j + 1; c < n; c++) {
                double dot = w[j * n + c];
                for (int i = j + 1; i < m; i++) dot += w[i * n + j] * w[i * n + c];
                dot *= tau[j];
                w[j * n + c] -= dot;
                for (int i = j + 1; i < m; i++) w[i * n + c] -= dot * w[i * n + j];
            }
        }
        double[] r = new double[rRows * n];
        for (int i = 0; i < Math.min(rRows, m); i++) {
            for (int c = i; c < n; c++) r[i * n + c] = w[i * n + c];
        }
        double[] q = new double[m * qCols];
        for (int i = 0; i < Math.min(m, qCols); i++) q[i * qCols + i] = 1;
        // Q = H_0 H_1 … H_{k-1} applied to the identity's first qCols columns, the last reflection first
        for (int j = k - 1; j >= 0; j--) {
            if (tau[j] == 0) continue;
            for (int c = 0; c < qCols; c++) {
                double dot = q[j * qCols + c];
                for (int i = j + 1; i < m; i++) dot += w[i * n + j] * q[i * qCols + c];
                dot *= tau[j];
                q[j * qCols + c] -= dot;
                for (int i = j + 1; i < m; i++) q[i * qCols + c] -= dot * w[i * n + j];
            }
        }
        return new Qr(q, r);
    }

    /** Eigenvalues ascending and the eigenvectors as the columns of {@code vectors} ({@code n×n}, row-major). */
    public record Eigen(double[] values, double[] vectors) {}

    /**
     * The eigendecomposition of the symmetric matrix whose lower ({@code lower}) or upper triangle
     * {@code a} ({@code n×n}) holds; the other triangle is not read, as LAPACK's syevd does not.
     */
    public static Eigen eigh(double[] a, int n, boolean lower) {
        double[] s = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                double v = lower ? a[i * n + j] : a[j * n + i];
                s[i * n + j] = v;
                s[j * n + i] = v;
            }
        }
        double[] v = identity(n);
        for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
            double off = 0, total = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    double x = s[i * n + j] * s[i * n + j];
                    total += x;
                    if (i != j) off += x;
                }
            }
            if (off <= 1e-32 * total || off == 0) break;
            for (int p = 0; p < n - 1; p++) {
                for (int q = p + 1; q < n; q++) {
                    double apq = s[p * n + q];
                    if (apq == 0) continue;
                    double theta = (s[q * n + q] - s[p * n + p]) / (2 * apq);
                    double t = Math.copySign(1, theta) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
                    double c = 1 / Math.sqrt(t * t + 1), sn = t * c;
                    rotateColumns(s, n, n, p, q, c, sn);   // columns p, q of S J
                    for (int k = 0; k < n; k++) {   // rows p, q of Jᵀ (S J)
                        double spk = s[p * n + k], sqk = s[q * n + k];
                        s[p * n + k] = c * spk - sn * sqk;
                        s[q * n + k] = sn * spk + c * sqk;
                    }
                    rotateColumns(v, n, n, p, q, c, sn);
                }
            }
        }
        double[] diagonal = new double[n];
        for (int i = 0; i < n; i++) diagonal[i] = s[i * n + i];
        int[] order = order(diagonal, true);
        double[] values = new double[n], vectors = new double[n * n];
        for (int c = 0; c < n; c++) {
            values[c] = diagonal[order[c]];
            for (int r = 0; r < n; r++) vectors[r * n + c] = v[r * n + order[c]];
        }
        return new Eigen(values, vectors);
    }

    /** {@code A = U diag(S) Vh}: U {@code m×uCols}, S descending (min(m, n) of them), Vh {@code vhRows×n}, row-major. */
    public record Svd(double[] u, double[] s, double[] vh) {}

    /**
     * The SVD of {@code a} ({@code m×n}); {@code full} gives square U and Vh, whose extra columns
     * (rows) complete an orthonormal basis. U's columns for zero singular values complete it too.
     */
    public static Svd svd(double[] a, int m, int n, boolean full) {
        if (m < n) {   // Aᵀ = V S Uᵀ: factor the tall transpose
            Svd t = svd(transpose(a, m, n), n, m, full);
            int k = m, uCols = full ? m : k, vhRows = full ? n : k;
            // t.u is n×vhRows (V), t.vh is uCols×m (Uᵀ)
            return new Svd(transpose(t.vh, uCols, m), t.s, transpose(t.u, n, vhRows));
        }
        int k = n;
        double[] w = a.clone();   // m×n, its columns rotated until orthogonal
        double[] v = identity(n);
        for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
            boolean rotated = false;
            for (int p = 0; p < n - 1; p++) {
                for (int q = p + 1; q < n; q++) {
                    double alpha = 0, beta = 0, gamma = 0;
                    for (int i = 0; i < m; i++) {
                        double wp = w[i * n + p], wq = w[i * n + q];
                        alpha += wp * wp;
                        beta += wq * wq;
                        gamma += wp * wq;
                    }
                    if (gamma == 0 || Math.abs(gamma) <= 1e-15 * Math.sqrt(alpha * beta)) continue;
                    rotated = true;
                    double zeta = (beta - alpha) / (2 * gamma);
                    double t = Math.copySign(1, zeta) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
                    double c = 1 / Math.sqrt(1 + t * t), sn = c * t;
                    rotateColumns(w, m, n, p, q, c, sn);
                    rotateColumns(v, n, n, p, q, c, sn);
                }
            }
            if (!rotated) break;
        }
        double[] norms = new double[n];
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int i = 0; i < m; i++) s = Math.hypot(s, w[i * n + j]);
            norms[j] = s;
        }
        int[] order = order(norms, false);
        int uCols = full ? m : k;
        double[] s = new double[k], u = new double[m * uCols], vh = new double[n * n];
        int placed = 0;
        for (int c = 0; c < k; c++) {
            int j = order[c];
            s[c] = norms[j];
            for (int i = 0; i < n; i++) vh[c * n + i] = v[i * n + j];
            if (s[c] > 0) {
                for (int i = 0; i < m; i++) u[i * uCols + c] = w[i * n + j] / s[c];
                placed = c + 1;
            }
        }
        completeOrthonormalColumns(u, m, uCols, placed);
        return new Svd(u, s, vh);
    }

    /**
     * Fills columns {@code from..cols-1} of {@code q} ({@code m×cols}, its first columns orthonormal)
     * with unit vectors orthogonal to all before them: Gram–Schmidt, twice, on the standard basis.
     */
    static void completeOrthonormalColumns(double[] q, int m, int cols, int from) {
        int candidate = 0;
        for (int c = from; c < cols; c++) {
            while (true) {
                double[] x = new double[m];
                x[candidate++ % m] = 1;
                for (int pass = 0; pass < 2; pass++) {
                    for (int j = 0; j < c; j++) {
                        double dot = 0;
                        for (int i = 0; i < m; i++) dot += q[i * cols + j] * x[i];
                        for (int i = 0; i < m; i++) x[i] -= dot * q[i * cols + j];
                    }
                }
                double norm = 0;
                for (int i = 0; i < m; i++) norm = Math.hypot(norm, x[i]);
                if (norm > 0.5 || candidate > 2 * m) {
                    for (int i = 0; i < m; i++) q[i * cols + c] = x[i] / norm;
                    break;
                }
            }
        }
    }

    private static double[] identity(int n) {
        double[] eye = new double[n * n];
        for (int i = 0; i < n; i++) eye[i * n + i] = 1;
        return eye;
    }

    private static double[] transpose(double[] a, int rows, int cols) {
        double[] t = new double[a.length];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j];
        }
        return t;
    }

    /** The indices of {@code values} in ascending (or descending) order, ties in index order. */
    private static int[] order(double[] values, boolean ascending) {
        return java.util.stream.IntStream.range(0, values.length).boxed()
                .sorted((x, y) -> ascending ? Double.compare(values[x], values[y]) : Double.compare(values[y], values[x]))
                .mapToInt(Integer::intValue).toArray();
    }

    /** Columns {@code p} and {@code q} of the row-major {@code rows x n} matrix {@code a} turned by the plane rotation {@code (c, s)}: {@code a J}. */
    private static void rotateColumns(double[] a, int rows, int n, int p, int q, double c, double s) {
        for (int k = 0; k < rows; k++) {
            double ap = a[k * n + p], aq = a[k * n + q];
            a[k * n + p] = c * ap - s * aq;
            a[k * n + q] = s * ap + c * aq;
        }
    }
}
