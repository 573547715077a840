package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.GemmBatched;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * Matrix products: mm, bmm, addmm, matmul (every rank, batch dimensions broadcast) and linear.
 * All run on {@link GemmBatched}; their meta functions reproduce the checks, in the order and with
 * the words, of the ATen function PyTorch would dispatch to (dot, mv, mm or bmm for matmul).
 * outer, dot, mv, addmv, baddbmm and einsum are composites of these and pointwise ops ({@link ComposedOps}).
 */
public final class LinalgOps {
    private LinalgOps() {}

    public static final OpOverload MM = OpOverload.define("mm(Tensor self, Tensor mat2) -> Tensor")
            .nativeBlas()
            .meta(a -> {
                Tensor self = a.tensor(0), mat2 = a.tensor(1);
                if (self.dim() != 2) throw error("mm", "self must be a matrix");
                if (mat2.dim() != 2) throw error("mm", "mat2 must be a matrix");
                checkMm("mm", self.shape(), mat2, self.dtype());
                return TensorMeta.contiguous(self.dtype(), self.size(0), mat2.size(1));
            })
            .kernel((a, m) -> product(a.tensor(0), a.tensor(1), (TensorMeta) m))
            .derivative(g -> new Object[] {g.needs(0) ? mat1Grad(g, 0, 1) : null, g.needs(1) ? mat2Grad(g, 0, 1) : null})
            .register();

    public static final OpOverload BMM = OpOverload.define("bmm(Tensor self, Tensor mat2) -> Tensor")
            .nativeBlas()
            .meta(a -> {
                Tensor self = a.tensor(0), mat2 = a.tensor(1);
                if (self.dim() != 3) throw error("bmm", "batch1 must be a 3D tensor");
                if (mat2.dim() != 3) throw error("bmm", "batch2 must be a 3D tensor");
                checkBmm("bmm", self.dtype(), self.shape(), mat2.dtype(), mat2.shape());
                return TensorMeta.contiguous(self.dtype(), self.size(0), self.size(1), mat2.size(2));
            })
            .kernel((a, m) -> product(a.tensor(0), a.tensor(1), (TensorMeta) m))
            .derivative(g -> new Object[] {g.needs(0) ? g.call(LinalgOps.BMM, g.grad(), g.call(ShapeOps.TRANSPOSE, g.arg(1), 1, 2)) : null, g.needs(1) ? g.call(LinalgOps.BMM, g.call(ShapeOps.TRANSPOSE, g.arg(0), 1, 2), g.grad()) : null})
            .register();

    public static final OpOverload ADDMM = OpOverload.define("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
            .nativeBlas()
            .meta(a -> addmmMeta("addmm", a.tensor(0), a.tensor(1), a.tensor(2)))
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                double beta = a.dbl(3);
                if (beta != 0) Copy.copy(a.tensor(0), out);
                GemmBatched.multiply(a.tensor(1), a.tensor(2), out, a.dbl(4), beta);
                return out;
            })
            .decomposition((e, a) -> {
                Object prod = e.call(LinalgOps.MM, a[1], a[2]);
                if (!Composites.isOne(a[4])) prod = e.call(PointwiseOps.MUL_SCALAR, prod, a[4]);
                Object bias = Composites.isOne(a[3]) ? a[0] : e.call(PointwiseOps.MUL_SCALAR, a[0], a[3]);
                return e.call(PointwiseOps.ADD_TENSOR, prod, bias);
            })
            .derivative(LinalgOps::addmmBackward)
            .register();

    public static final OpOverload MATMUL = OpOverload.define("matmul(Tensor self, Tensor other) -> Tensor")
            .nativeBlas()
            .meta(a -> TensorMeta.contiguous(a.tensor(0).dtype(), matmulShape("matmul", a.tensor(0), a.tensor(1))))
            .kernel((a, m) -> matmul(a.tensor(0), a.tensor(1), (TensorMeta) m, null))
            .decomposition((e, a) -> {
                TensorMeta x = e.meta(a[0]), w = e.meta(a[1]);
                if (x.dim() == 2 && w.dim() == 2) return e.call(LinalgOps.MM, a[0], a[1]);
                if (x.dim() == 3 && w.dim() == 3 && x.shape()[0] == w.shape()[0]) return e.call(LinalgOps.BMM, a[0], a[1]);
                if (x.dim() >= 3 && w.dim() == 2) {
                    int k = x.shape()[x.dim() - 1];
                    Object y = e.call(LinalgOps.MM, e.call(ShapeOps.RESHAPE, a[0], new int[] {Composites.leadingRows(x), k}), a[1]);
                    int[] shape = x.shape();
                    shape[shape.length - 1] = w.shape()[1];
                    return e.call(ShapeOps.UNSAFE_VIEW, y, shape);   // ATen's: the result is matmul's own, not a view of the temporary
                }
                return null;
            })
            .derivative(LinalgOps::matmulBackward)
            .register();

    public static final OpOverload LINEAR = OpOverload.define("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
            .nativeBlas()
            .meta(a -> {
                Tensor input = a.tensor(0), weight = a.tensor(1), bias = a.optTensor(2);
                if (input.dim() == 0 || weight.dim() == 0) {
                    throw error("linear", "both arguments to linear need to be at least 1D, but they are " + input.dim() + "D and " + weight.dim() + "D");
                }
                if (weight.dim() > 2) {
                    throw error("linear", "t() expects a tensor with <= 2 dimensions, but self is " + weight.dim() + "D");
                }
                Tensor weightT = transposed(weight);
                if (addsBiasInGemm(input, bias)) {
                    TensorMeta flat = addmmMeta("linear", bias, flattened(input), weightT);
                    int[] shape = input.shape();
                    shape[shape.length - 1] = flat.shape()[1];
                    return TensorMeta.contiguous(flat.dtype(), shape);
                }
                TensorMeta out = TensorMeta.contiguous(input.dtype(), matmulShape("linear", input, weightT));
                if (bias != null) checkInPlaceAdd("linear", out, bias);
                return out;
            })
            .kernel((a, m) -> {
                Tensor input = a.tensor(0), weightT = transposed(a.tensor(1)), bias = a.optTensor(2);
                if (!addsBiasInGemm(input, bias)) return matmul(input, weightT, (TensorMeta) m, bias);
                Tensor out = Tensor.allocate((TensorMeta) m);
                Tensor flat = out.viewAs(TensorMeta.contiguous(out.dtype(), flattened(input).shape()[0], weightT.size(1)));
                Copy.copy(bias, flat);
                GemmBatched.multiply(flattened(input), weightT, flat, 1, 1);
                return out;
            })
            .decomposition((e, a) -> {
                TensorMeta x = e.meta(a[0]);
                Object wt = e.call(ShapeOps.T, a[1]);
                if (x.dim() == 2) return a[2] == null ? e.call(LinalgOps.MM, a[0], wt) : e.call(LinalgOps.ADDMM, a[2], a[0], wt);
                if (x.dim() < 2) {   // ATen's linear of a vector: matmul, then the bias added
                    Object y = e.call(LinalgOps.MATMUL, a[0], wt);
                    return a[2] == null ? y : e.call(PointwiseOps.ADD_TENSOR, y, a[2]);
                }
                int in = x.shape()[x.dim() - 1], out = e.meta(a[1]).shape()[0];
                Object flat = e.call(ShapeOps.RESHAPE, a[0], new int[] {Composites.leadingRows(x), in});
                Object y = a[2] == null ? e.call(LinalgOps.MM, flat, wt) : e.call(LinalgOps.ADDMM, a[2], flat, wt);
                int[] shape = x.shape();
                shape[shape.length - 1] = out;
                return e.call(ShapeOps.UNSAFE_VIEW, y, shape);   // ATen's: the result is linear's own, not a view of the temporary
            })
            .register();

    // ------------------------------------------------------------------ composites (defined by their decompositions)

    /** {@code self ⊗ vec2}: the column self times the row vec2 (a broadcast mul, dtypes promoted as mul does). */
    public static final OpOverload OUTER = ComposedOps.define("outer(Tensor self, Tensor vec2) -> Tensor",
            a -> {
                if (a.tensor(0).dim() != 1) throw error("outer", "Expected 1-D argument self, but got " + a.tensor(0).dim() + "-D");
                if (a.tensor(1).dim() != 1) throw error("outer", "Expected 1-D argument vec2, but got " + a.tensor(1).dim() + "-D");
            },
            (e, a) -> e.call(PointwiseOps.MUL_TENSOR, e.call(ShapeOps.RESHAPE, a[0], new int[] {e.meta(a[0]).shape()[0], 1}), a[1]));

    /**
     * The Kronecker product: for inputs of shapes {@code a} and {@code b} (the shorter padded with
     * leading ones), the block tensor of shape {@code a[i] * b[i]} whose block at index {@code i}
     * is {@code self[i] * other} (ATen's kron: both reshaped to interleaved dims, multiplied with
     * broadcasting, reshaped back; dtypes promoted as mul does).
     */
    public static final OpOverload KRON = ComposedOps.define("kron(Tensor self, Tensor other) -> Tensor",
            (e, a) -> {
                int[] x = e.meta(a[0]).shape(), y = e.meta(a[1]).shape();
                int n = Math.max(x.length, y.length);
                int[] xs = new int[2 * n], ys = new int[2 * n], result = new int[n];
                for (int i = 0; i < n; i++) {
                    int xi = i - (n - x.length) >= 0 ? x[i - (n - x.length)] : 1, yi = i - (n - y.length) >= 0 ? y[i - (n - y.length)] : 1;
                    xs[2 * i] = xi;
                    xs[2 * i + 1] = 1;
                    ys[2 * i] = 1;
                    ys[2 * i + 1] = yi;
                    result[i] = xi * yi;
                }
                Object product = e.call(PointwiseOps.MUL_TENSOR, e.call(ShapeOps.RESHAPE, a[0], xs), e.call(ShapeOps.RESHAPE, a[1], ys));
                return e.call(ShapeOps.RESHAPE, product, result);
            });

    /** The inner product of two 1-d tensors of one dtype (integers too, in their own dtype): the sum of their products. */
    public static final OpOverload DOT = ComposedOps.define("dot(Tensor self, Tensor tensor) -> Tensor",
            a -> {
                Tensor x = a.tensor(0), y = a.tensor(1);
                if (x.dim() != 1 || y.dim() != 1) throw error("dot", "1D tensors expected, but got " + x.dim() + "D and " + y.dim() + "D tensors");
                checkDot("dot", x, y);
            },
            (e, a) -> e.call(ReductionOps.SUM, e.call(PointwiseOps.MUL_TENSOR, a[0], a[1]), e.meta(a[0]).dtype()));

    /**
     * The sum of products over the last dims of both (ATen's inner: tensordot over dim −1 of each; a
     * 0-d operand multiplies).
     */
    public static final OpOverload INNER = ComposedOps.define("inner(Tensor self, Tensor other) -> Tensor",
            a -> {
                Tensor x = a.tensor(0), y = a.tensor(1);
                if (x.dim() > 0 && y.dim() > 0 && x.size(-1) != y.size(-1)) {
                    throw error("inner", "inner() the last dimension must match on both input tensors but got shapes " + Shapes.format(x.shape())
                            + " and " + Shapes.format(y.shape()));
                }
            },
            (e, a) -> e.meta(a[0]).dim() == 0 || e.meta(a[1]).dim() == 0
                    ? e.call(PointwiseOps.MUL_TENSOR, a[0], a[1])
                    : e.call(MathOps.TENSORDOT, a[0], a[1], new int[] {-1}, new int[] {-1}));

    /**
     * The product of a chain of matrices (torch.linalg.multi_dot): the first may be a row vector and
     * the last a column vector (1-d; their dims are dropped from the result). Multiplied left to
     * right, where ATen picks the cheapest order for three or more (the same product, rounded
     * differently).
     */
    public static final OpOverload LINALG_MULTI_DOT = ComposedOps.define("linalg_multi_dot(Tensor[] tensors) -> Tensor",
            a -> {
                List<Tensor> ts = a.tensors(0);
                int n = ts.size();
                if (n < 2) throw error("linalg.multi_dot", "multi_dot(): expected at least 2 tensors but got " + n);
                int first = ts.get(0).dim(), last = ts.get(n - 1).dim();
                if (first != 1 && first != 2) throw error("linalg.multi_dot", "multi_dot(): the first tensor must be 1D or 2D but got " + first + "D");
                if (last != 1 && last != 2) throw error("linalg.multi_dot", "multi_dot(): the last tensor must be 1D or 2D but got " + last + "D");
                for (int i = 1; i < n - 1; i++) {
                    if (ts.get(i).dim() != 2) throw error("linalg.multi_dot", "multi_dot(): tensor " + i + " must be 2D but got " + ts.get(i).dim() + "D");
                }
                DType dtype = ts.get(0).dtype();
                for (int i = 1; i < n; i++) {
                    if (ts.get(i).dtype() != dtype) {
                        throw error("linalg.multi_dot", "multi_dot(): all tensors must have be the same dtype but tensor 0 is " + cTypeName(dtype)
                                + " and tensor " + i + " " + cTypeName(ts.get(i).dtype()));
                    }
                }
                for (int i = 1; i < n; i++) {
                    Tensor left = ts.get(i - 1), right = ts.get(i);
                    if (left.size(-1) != right.size(0)) {
                        throw error("linalg.multi_dot", "multi_dot(): tensors " + (i - 1) + " and " + i + " with shapes " + Shapes.format(left.shape()) + " and "
                                + Shapes.format(right.shape()) + " cannot be multiplied");
                    }
                }
            },
            (e, a) -> {
                List<?> ts = (List<?>) a[0];
                int n = ts.size();
                boolean rowFirst = e.meta(ts.get(0)).dim() == 1, columnLast = e.meta(ts.get(n - 1)).dim() == 1;
                Object product = rowFirst ? e.call(ShapeOps.UNSQUEEZE, ts.get(0), 0L) : ts.get(0);
                for (int i = 1; i < n; i++) {
                    Object next = i == n - 1 && columnLast ? e.call(ShapeOps.UNSQUEEZE, ts.get(i), -1L) : ts.get(i);
                    product = e.call(MM, product, next);
                }
                if (columnLast) product = e.call(ShapeOps.SQUEEZE_DIM, product, -1L);
                if (rowFirst) product = e.call(ShapeOps.SQUEEZE_DIM, product, 0L);
                return product;
            });

    /** The C++ element type's name, as multi_dot's dtype check prints it (float, double, long int, int, bool). */
    private static String cTypeName(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case INT64 -> "long int";
            case INT32 -> "int";
            case BOOL -> "bool";
        };
    }

    /** The dot product along {@code dim} of x and y broadcast together, x conjugated (torch.linalg.vecdot; real here). */
    public static final OpOverload LINALG_VECDOT = ComposedOps.define("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor",
            a -> {
                DType x = a.tensor(0).dtype(), y = a.tensor(1).dtype();
                if (!x.isFloatingPoint()) throw error("linalg.vecdot", "linalg.vecdot: Expected a floating point or complex tensor as input. Got " + x.scalarTypeName());
                if (x != y) {
                    throw error("linalg.vecdot", "linalg.vecdot: Expected x and y to have the same dtype, but found x of type " + x.scalarTypeName()
                            + " and y of type " + y.scalarTypeName() + " instead");
                }
            },
            (e, a) -> e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, a[0], a[1]), new int[] {((Number) a[2]).intValue()}, false));

    /** The dot product conjugating its first argument; for real tensors dot (ATen's vdot). */
    public static final OpOverload VDOT = ComposedOps.define("vdot(Tensor self, Tensor other) -> Tensor",
            (e, a) -> e.call(DOT, a[0], a[1]));

    /** Matrix times vector: mm with the vector as a column. */
    public static final OpOverload MV = ComposedOps.define("mv(Tensor self, Tensor vec) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), vec = a.tensor(1);
                if (self.dim() != 2 || vec.dim() != 1) throw error("mv", "vector + matrix @ vector expected, got 1, " + self.dim() + ", " + vec.dim());
                checkMv("mv", self.shape(), self.dtype(), vec);
            },
            LinalgOps::mv);

    /** {@code beta·self + alpha·(mat @ vec)}, self a vector of mat's rows or one element; with beta 0, self is not read (its NaNs do not propagate). */
    public static final OpOverload ADDMV = ComposedOps.define("addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), mat = a.tensor(1), vec = a.tensor(2);
                if (mat.dim() != 2 || vec.dim() != 1 || self.dim() > 1) {
                    throw error("addmv", "vector + matrix @ vector expected, got " + self.dim() + ", " + mat.dim() + ", " + vec.dim());
                }
                if (mat.size(1) != vec.size(0) || mat.size(0) != self.numel() && self.numel() != 1) {
                    throw error("addmv", "size mismatch, got input (" + (self.dim() == 0 ? 1 : self.size(0)) + "), mat (" + mat.size(0) + "x" + mat.size(1)
                            + "), vec (" + vec.size(0) + ")");
                }
                checkSameScalarType("addmv", mat.dtype(), self.dtype());
                checkMv("addmv", mat.shape(), mat.dtype(), vec);
            },
            (e, a) -> scaledSum(e, a[0], mv(e, new Object[] {a[1], a[2]}), a[3], a[4]));

    /** {@code beta·self + alpha·(batch1 @ batch2)}, self broadcast to the product's [b, n, p]; with beta 0, self is not read. */
    public static final OpOverload BADDBMM = ComposedOps.define("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), b1 = a.tensor(1), b2 = a.tensor(2);
                if (b1.dim() != 3) throw error("baddbmm", "batch1 must be a 3D tensor");
                if (b2.dim() != 3) throw error("baddbmm", "batch2 must be a 3D tensor");
                checkBmm("baddbmm", b1.dtype(), b1.shape(), b2.dtype(), b2.shape());
                checkSameScalarType("baddbmm", b1.dtype(), self.dtype());
                checkExpandable("baddbmm", self.dtype(), self.shape(), new int[] {b1.size(0), b1.size(1), b2.size(2)});
            },
            (e, a) -> scaledSum(e, a[0], e.call(LinalgOps.BMM, a[1], a[2]), a[3], a[4]));

    /**
     * Einstein summation over the operands ({@link Einsum}: permutes, views, sums and one bmm per
     * pair of operands, left to right); {@code path} is accepted and ignored.
     */
    public static final OpOverload EINSUM = ComposedOps.define("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
            a -> Einsum.check(a.str(0), a.tensors(1).stream().map(Tensor::meta).toList()),
            (e, a) -> Einsum.compute(e, (String) a[0], (List<?>) a[1]));

    private static Object mv(OpEmitter e, Object[] a) {
        int k = e.meta(a[1]).shape()[0];
        Object column = e.call(LinalgOps.MM, a[0], e.call(ShapeOps.RESHAPE, a[1], new int[] {k, 1}));
        return e.call(ShapeOps.UNSAFE_VIEW, column, new int[] {e.meta(a[0]).shape()[0]});
    }

    /** {@code beta·self + alpha·product} in addmm's order, where beta 0 drops self (ATen: its NaN and inf are not read). */
    private static Object scaledSum(OpEmitter e, Object self, Object product, Object beta, Object alpha) {
        if (!Composites.isOne(alpha)) product = e.call(PointwiseOps.MUL_SCALAR, product, alpha);
        if (beta instanceof Number b && b.doubleValue() == 0) return product;
        Object bias = Composites.isOne(beta) ? self : e.call(PointwiseOps.MUL_SCALAR, self, beta);
        return e.call(PointwiseOps.ADD_TENSOR, product, bias);
    }

    /**
     * ATen's linear adds the bias inside the GEMM (addmm on the input seen as a matrix) for 2-d
     * input, contiguous 3-d input, and contiguous input with a 1-d bias; otherwise it is
     * {@code matmul(input, weight.t()).add_(bias)}. The two differ in which biases they accept.
     */
    private static boolean addsBiasInGemm(Tensor input, Tensor bias) {
        if (bias == null) return false;
        return input.dim() == 2 || input.isContiguous() && (input.dim() == 3 || bias.dim() == 1);
    }

    /** A contiguous (or 2-d) input as the matrix {@code [rows, features]}. */
    private static Tensor flattened(Tensor input) {
        if (input.dim() == 2) return input;
        int[] shape = input.shape();
        int features = shape[shape.length - 1];
        int rows = Shapes.numel(Arrays.copyOf(shape, shape.length - 1));
        return view(input, new int[] {rows, features}, new int[] {features, 1});
    }

    // ------------------------------------------------------------------ kernels

    private static Tensor product(Tensor x, Tensor y, TensorMeta meta) {
        Tensor out = Tensor.allocate(meta);
        GemmBatched.multiply(x, y, out, 1, 0);
        return out;
    }

    /** {@code x @ y (+ bias)}: vectors become 1-row / 1-column matrices, the output is seen with both matrix dims. */
    private static Tensor matmul(Tensor x, Tensor y, TensorMeta meta, Tensor bias) {
        Tensor out = Tensor.allocate(meta);
        if (bias != null) Copy.copy(bias, out);
        Tensor x2 = x.dim() == 1 ? view(x, new int[] {1, x.size(0)}, new int[] {0, x.stride(0)}) : x;
        Tensor y2 = y.dim() == 1 ? view(y, new int[] {y.size(0), 1}, new int[] {y.stride(0), 0}) : y;
        int[] shape = meta.shape();
        int[] matrixShape = shape;
        if (x.dim() == 1) matrixShape = insert(matrixShape, matrixShape.length - (y.dim() == 1 ? 0 : 1), 1);
        if (y.dim() == 1) matrixShape = insert(matrixShape, matrixShape.length, 1);
        GemmBatched.multiply(x2, y2, out.viewAs(TensorMeta.contiguous(out.dtype(), matrixShape)), 1, bias == null ? 0 : 1);
        return out;
    }

    // ------------------------------------------------------------------ shape and dtype rules

    /**
     * matmul's result shape, with the errors of the path PyTorch takes: dot (1-d x 1-d), mv
     * (2-d x 1-d), mm (x-d x 2-d), mm or mv on a folded operand when a 3+-d operand can be seen
     * as a matrix without copying, else bmm on broadcast batches.
     */
    private static int[] matmulShape(String op, Tensor x, Tensor y) {
        int d1 = x.dim(), d2 = y.dim();
        if (d1 == 0 || d2 == 0) {
            throw error(op, "both arguments to matmul need to be at least 1D, but they are " + d1 + "D and " + d2 + "D");
        }
        int[] xs = x.shape(), ys = y.shape();
        if (d1 == 1 && d2 == 1) {
            checkDot(op, x, y);
            return new int[0];
        }
        if (d1 == 2 && d2 == 1) {
            checkMv(op, xs, x.dtype(), y);
            return new int[] {xs[0]};
        }
        if (d1 == 1 && d2 == 2) {
            checkMm(op, new int[] {1, xs[0]}, y, x.dtype());
            return new int[] {ys[1]};
        }
        if (d1 == 2 && d2 == 2) {
            checkMm(op, xs, y, x.dtype());
            return new int[] {xs[0], ys[1]};
        }
        if (shouldFold(x, y)) {
            if (d2 > d1) { // vector @ batch of matrices: mv(y.mT() folded, x)
                int[] t1 = swapLast(ys);
                int rows = Shapes.numel(Arrays.copyOf(t1, t1.length - 1));
                checkMv(op, new int[] {rows, t1[t1.length - 1]}, y.dtype(), x);
                return Arrays.copyOf(t1, t1.length - 1);
            }
            int[] lead = Arrays.copyOf(xs, d1 - 1);
            int[] folded = {Shapes.numel(lead), xs[d1 - 1]};
            if (d2 == 1) {
                checkMv(op, folded, x.dtype(), y);
                return lead;
            }
            checkMm(op, folded, y, x.dtype());
            return append(lead, ys[1]);
        }
        int n = d1 > 1 ? xs[d1 - 2] : 1, m1 = xs[d1 - 1];
        int m2 = d2 > 1 ? ys[d2 - 2] : ys[0], p = d2 > 1 ? ys[d2 - 1] : 1;
        int[] batch = broadcastBatches(op, Arrays.copyOf(xs, Math.max(d1 - 2, 0)), Arrays.copyOf(ys, Math.max(d2 - 2, 0)));
        int b = Shapes.numel(batch);
        checkBmm(op, x.dtype(), new int[] {b, n, m1}, y.dtype(), new int[] {b, m2, p});
        int[] out = batch;
        if (d1 > 1) out = append(out, n);
        if (d2 > 1) out = append(out, p);
        return out;
    }

    /** ATen's should_fold: the larger operand (3+-d against 1- or 2-d) reshapes to a matrix without a copy. */
    private static boolean shouldFold(Tensor x, Tensor y) {
        boolean xLarger = x.dim() >= y.dim();
        int[] shape = xLarger ? x.shape() : swapLast(y.shape());
        int[] strides = xLarger ? x.strides() : swapLast(y.strides());
        int otherDim = xLarger ? y.dim() : x.dim();
        if (shape.length < 3 || otherDim > 2) return false;
        if (x.dim() == 2) return false;
        if (Shapes.numel(shape) == 0) return true;
        for (int i = 0; i < shape.length - 2; i++) {
            if (strides[i] != strides[i + 1] * shape[i + 1]) return false;
        }
        return true;
    }

    private static void checkDot(String op, Tensor x, Tensor y) {
        if (x.dtype() != y.dtype()) {
            throw error(op, "dot : expected both vectors to have same dtype, but found " + x.dtype().scalarTypeName() + " and " + y.dtype().scalarTypeName());
        }
        if (x.size(0) != y.size(0)) {
            throw error(op, "inconsistent tensor size, expected tensor [" + x.size(0) + "] and src [" + y.size(0)
                    + "] to have the same number of elements, but got " + x.size(0) + " and " + y.size(0) + " elements respectively");
        }
        checkNotBool(op, "dot", x.dtype());
    }

    private static void checkMv(String op, int[] mat, DType matType, Tensor vec) {
        if (mat[1] != vec.size(0)) {
            throw error(op, "size mismatch, got input (" + mat[0] + "), mat (" + mat[0] + "x" + mat[1] + "), vec (" + vec.size(0) + ")");
        }
        checkSameScalarType(op, matType, vec.dtype());
        checkNotBool(op, "addmv_impl_cpu", matType);
    }

    private static void checkMm(String op, int[] mat1, Tensor mat2, DType mat1Type) {
        checkMmShapes(op, mat1, mat2.shape());
        checkMmTypes(op, mat1Type, mat2.dtype());
    }

    private static void checkMmShapes(String op, int[] mat1, int[] mat2) {
        if (mat1[1] != mat2[0]) {
            throw error(op, "mat1 and mat2 shapes cannot be multiplied (" + mat1[0] + "x" + mat1[1] + " and " + mat2[0] + "x" + mat2[1] + ")");
        }
    }

    private static void checkMmTypes(String op, DType t1, DType t2) {
        if (t1 != t2) {
            throw error(op, "expected m1 and m2 to have the same dtype, but got: " + typeMetaName(t1) + " != " + typeMetaName(t2));
        }
        checkNotBool(op, "addmm_impl_cpu_", t1);
    }

    private static void checkBmm(String op, DType t1, int[] batch1, DType t2, int[] batch2) {
        if (batch2[0] != batch1[0] || batch2[1] != batch1[2]) {
            throw error(op, "Expected size for first two dimensions of batch2 tensor to be: [" + batch1[0] + ", " + batch1[2]
                    + "] but got: [" + batch2[0] + ", " + batch2[1] + "].");
        }
        checkSameScalarType(op, t1, t2);
        checkNotBool(op, "bmm", t1);
    }

    /** addmm's checks (also linear's with a bias on 2-d input): dtypes, ranks, shapes, then self expanding to the product. */
    private static TensorMeta addmmMeta(String op, Tensor self, Tensor mat1, Tensor mat2) {
        if (self.dtype() != mat2.dtype()) {
            throw error(op, "self and mat2 must have the same dtype, but got " + self.dtype().scalarTypeName() + " and " + mat2.dtype().scalarTypeName());
        }
        if (mat1.dtype() != mat2.dtype()) {
            throw error(op, "mat1 and mat2 must have the same dtype, but got " + mat1.dtype().scalarTypeName() + " and " + mat2.dtype().scalarTypeName());
        }
        if (mat1.dim() != 2) throw error(op, "mat1 must be a matrix, got " + mat1.dim() + "-D tensor");
        if (mat2.dim() != 2) throw error(op, "mat2 must be a matrix, got " + mat2.dim() + "-D tensor");
        checkMmShapes(op, mat1.shape(), mat2.shape());
        int[] target = {mat1.size(0), mat2.size(1)};
        checkExpandable(op, self.dtype(), self.shape(), target);
        checkNotBool(op, "addmm_impl_cpu_", mat1.dtype());
        return TensorMeta.contiguous(mat1.dtype(), target);
    }

    private static void checkExpandable(String op, DType dtype, int[] shape, int[] target) {
        if (shape.length > target.length) {
            throw error(op, "expand(CPU" + dtype.scalarTypeName() + "Type{" + Shapes.format(shape) + "}, size=" + Shapes.format(target)
                    + "): the number of sizes provided (" + target.length + ") must be greater or equal to the number of dimensions in the tensor ("
                    + shape.length + ")");
        }
        int lead = target.length - shape.length;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] != 1 && shape[i] != target[lead + i]) {
                throw error(op, "The expanded size of the tensor (" + target[lead + i] + ") must match the existing size (" + shape[i]
                        + ") at non-singleton dimension " + (lead + i) + ".  Target sizes: " + Shapes.format(target) + ".  Tensor sizes: " + Shapes.format(shape));
            }
        }
    }

    /** {@code out.add_(bias)}: bias must broadcast to out's shape, and its dtype must cast to out's. */
    private static void checkInPlaceAdd(String op, TensorMeta out, Tensor bias) {
        int[] shape = broadcastBatches(op, out.shape(), bias.shape());
        if (!Arrays.equals(shape, out.shape())) {
            throw error(op, "output with shape " + Shapes.format(out.shape()) + " doesn't match the broadcast shape " + Shapes.format(shape));
        }
        DType result = DType.promote(out.dtype(), bias.dtype());
        if (result.kind() != out.dtype().kind()) {
            throw error(op, "result type " + result.scalarTypeName() + " can't be cast to the desired output type " + out.dtype().scalarTypeName());
        }
    }

    /** infer_size with ATen's words (capitalised, no shapes appended). */
    private static int[] broadcastBatches(String op, int[] a, int[] b) {
        int n = Math.max(a.length, b.length);
        int[] out = new int[n];
        for (int i = n - 1; i >= 0; i--) {
            int da = i - (n - a.length), db = i - (n - b.length);
            int sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
            if (sa != sb && sa != 1 && sb != 1) {
                throw error(op, "The size of tensor a (" + sa + ") must match the size of tensor b (" + sb + ") at non-singleton dimension " + i);
            }
            out[i] = sa == 1 ? sb : sa;
        }
        return out;
    }

    private static void checkSameScalarType(String op, DType expected, DType found) {
        if (expected != found) {
            throw error(op, "expected scalar type " + expected.scalarTypeName() + " but found " + found.scalarTypeName());
        }
    }

    private static void checkNotBool(String op, String kernel, DType dtype) {
        if (dtype == DType.BOOL) throw error(op, "\"" + kernel + "\" not implemented for 'Bool'");
    }


    /** caffe2::TypeMeta's name (the C++ type), as in "float != double". */
    static String typeMetaName(DType dtype) {
        return switch (dtype) {
            case BOOL -> "bool";
            case INT32 -> "int";
            case INT64 -> "long int";
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
        };
    }

    /**
     * matmul's gradients for any ranks: a 1-d operand is a matrix of one row (self) or one column
     * (other), the gradient reshaped to match; then {@code grad @ otherᵀ} and {@code selfᵀ @ grad},
     * the 1-d dims squeezed back (broadcast batch dims are summed by {@link Grad#conform}).
     */
    private static Object[] matmulBackward(Grad g) {
        TensorMeta x = g.argMeta(0), w = g.argMeta(1);
        Object self = g.arg(0), other = g.arg(1);
        if (x.dim() == 1) self = g.call(ShapeOps.UNSQUEEZE, self, 0);
        if (w.dim() == 1) other = g.call(ShapeOps.UNSQUEEZE, other, 1);
        int[] xs = g.meta(self).shape(), ws = g.meta(other).shape();
        int[] batch = Shapes.broadcast("matmul", Arrays.copyOf(xs, xs.length - 2), Arrays.copyOf(ws, ws.length - 2));
        int[] product = Arrays.copyOf(batch, batch.length + 2);
        product[batch.length] = xs[xs.length - 2];
        product[batch.length + 1] = ws[ws.length - 1];
        Object grad = g.reshape(g.grad(), product);
        Object gSelf = null, gOther = null;
        if (g.needs(0)) {
            gSelf = g.call(LinalgOps.MATMUL, grad, g.call(ShapeOps.TRANSPOSE, other, -2, -1));
            if (x.dim() == 1) gSelf = g.call(ShapeOps.SQUEEZE_DIM, gSelf, -2);
        }
        if (g.needs(1)) {
            gOther = g.call(LinalgOps.MATMUL, g.call(ShapeOps.TRANSPOSE, self, -2, -1), grad);
            if (w.dim() == 1) gOther = g.call(ShapeOps.SQUEEZE_DIM, gOther, -1);
        }
        return new Object[] {gSelf, gOther};
    }

    static IllegalArgumentException error(String op, String message) {
        return new IllegalArgumentException(op + ": " + message);
    }

    // ------------------------------------------------------------------ small shape helpers

    /** {@code t.t()} without going through the op (the caller checked the rank). */
    private static Tensor transposed(Tensor t) {
        if (t.dim() < 2) return t;
        return view(t, new int[] {t.size(1), t.size(0)}, new int[] {t.stride(1), t.stride(0)});
    }

    private static Tensor view(Tensor t, int[] shape, int[] strides) {
        TensorMeta meta = new TensorMeta(t.dtype(), shape, strides, t.storageOffset());
        return t.isFake() ? new dev.ember.tensor.FakeTensor(meta) : t.viewAs(meta);
    }

    private static int[] swapLast(int[] a) {
        int[] out = a.clone();
        int n = out.length;
        out[n - 1] = a[n - 2];
        out[n - 2] = a[n - 1];
        return out;
    }

    private static int[] append(int[] a, int v) {
        int[] out = Arrays.copyOf(a, a.length + 1);
        out[a.length] = v;
        return out;
    }

    private static int[] insert(int[] a, int at, int v) {
        int[] out = new int[a.length + 1];
        System.arraycopy(a, 0, out, 0, at);
        out[at] = v;
        System.arraycopy(a, at, out, at + 1, a.length - at);
        return out;
    }

    /** self: β·grad (summed to its shape); mat1: α·grad·mat2ᵀ; mat2: α·mat1ᵀ·grad. */
    private static Object[] addmmBackward(Grad g) {
        Object beta = g.value(3), alpha = g.value(4);
        Object gSelf = g.needs(0) ? g.scaled(g.grad(), beta) : null;
        Object gMat1 = g.needs(1) ? g.scaled(mat1Grad(g, 1, 2), alpha) : null;
        Object gMat2 = g.needs(2) ? g.scaled(mat2Grad(g, 1, 2), alpha) : null;
        return new Object[] {gSelf, gMat1, gMat2};
    }

    /**
     * The gradient of a product's left matrix (argument {@code mat1}), {@code grad · mat2ᵀ}, as
     * ATen's {@code mm_mat1_backward} computes it: when mat1 is column-major (a transposed matrix),
     * as {@code (mat2 · gradᵀ)ᵀ}, which has mat1's layout, so that the gradient reaching the
     * matrix mat1 was transposed from is contiguous rather than a transposed view that accumulating
     * it into {@code .grad} must copy element by element.
     */
    private static Object mat1Grad(Grad g, int mat1, int mat2) {
        if (columnMajor(g.argMeta(mat1))) return g.call(ShapeOps.T, g.call(MM, g.arg(mat2), g.call(ShapeOps.T, g.grad())));
        return g.call(MM, g.grad(), g.call(ShapeOps.T, g.arg(mat2)));
    }

    /**
     * The gradient of a product's right matrix, {@code mat1ᵀ · grad}, as ATen's
     * {@code mm_mat2_backward}: {@code (gradᵀ · mat1)ᵀ} when mat2 is column-major. Linear's weight
     * enters its product as {@code weight.t()}, so this is what makes a linear layer's weight
     * gradient contiguous, as PyTorch's is.
     */
    private static Object mat2Grad(Grad g, int mat1, int mat2) {
        if (columnMajor(g.argMeta(mat2))) return g.call(ShapeOps.T, g.call(MM, g.call(ShapeOps.T, g.grad()), g.arg(mat1)));
        return g.call(MM, g.call(ShapeOps.T, g.arg(mat1)), g.grad());
    }

    /** ATen's test for a column-major matrix: stride 1 down a column, and one column after another. */
    private static boolean columnMajor(TensorMeta m) {
        return m.strides()[0] == 1 && m.strides()[1] == m.shape()[0];
    }

    // ------------------------------------------------------------------ addr, addbmm (session 34, ops8)

    /**
     * {@code beta·self + alpha·outer(vec1, vec2)}, self broadcast to [n, m], all three promoted
     * together; with beta 0, self is not read (its NaN and inf do not show), its dtype still counts.
     */
    public static final OpOverload ADDR = ComposedOps.define("addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
            a -> {
                if (a.tensor(1).dim() != 1) throw error("addr", "Expected 1-D argument vec1, but got " + a.tensor(1).dim() + "-D");
                if (a.tensor(2).dim() != 1) throw error("addr", "Expected 1-D argument vec2, but got " + a.tensor(2).dim() + "-D");
                checkExpandable("addr", a.tensor(0).dtype(), a.tensor(0).shape(), new int[] {a.tensor(1).size(0), a.tensor(2).size(0)});
                if (TypePromotion.resultType(a.tensor(0), a.tensor(1), a.tensor(2)) == DType.BOOL) {
                    throw error("addr", "Ember computes addr in arithmetic dtypes only (ATen's bool addr is a logical and/or)");
                }
            },
            (e, a) -> {
                DType dtype = TypePromotion.resultType(new dev.ember.tensor.FakeTensor(e.meta(a[0])), new dev.ember.tensor.FakeTensor(e.meta(a[1])),
                        new dev.ember.tensor.FakeTensor(e.meta(a[2])));
                int n = e.meta(a[1]).shape()[0];
                Object outer = e.call(PointwiseOps.MUL_TENSOR, e.call(ShapeOps.RESHAPE, a[1], new int[] {n, 1}), a[2]);
                Object result = scaledSum(e, a[0], outer, a[3], a[4]);
                return e.meta(result).dtype() == dtype ? result : e.call(ShapeOps.TO_COPY, result, dtype);
            });

    /**
     * {@code beta·self + alpha·Σ_b batch1[b] @ batch2[b]}, self broadcast to [n, p]: the batch of
     * products summed; with beta 0, self is not read.
     */
    public static final OpOverload ADDBMM = ComposedOps.define("addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), b1 = a.tensor(1), b2 = a.tensor(2);
                // ATen expands self to the product's [n, p] before it checks the batches
                if (b1.dim() >= 2 && b2.dim() >= 3) checkExpandable("addbmm", self.dtype(), self.shape(), new int[] {b1.size(1), b2.size(2)});
                if (b1.dim() != 3) throw error("addbmm", "batch1 must be a 3D tensor");
                if (b2.dim() != 3) throw error("addbmm", "batch2 must be a 3D tensor");
                // addbmm's own words, not bmm's (ATen's addbmm_impl_)
                if (b1.size(0) != b2.size(0)) throw error("addbmm", "batch1 and batch2 must have same number of batches, got " + b1.size(0) + " and " + b2.size(0));
                if (b1.size(2) != b2.size(1)) {
                    throw error("addbmm", "Incompatible matrix sizes for bmm (" + b1.size(1) + "x" + b1.size(2) + " and " + b2.size(1) + "x" + b2.size(2) + ")");
                }
                checkSameScalarType("addbmm", b1.dtype(), b2.dtype());
                checkSameScalarType("addbmm", b1.dtype(), self.dtype());
                checkExpandable("addbmm", self.dtype(), self.shape(), new int[] {b1.size(1), b2.size(2)});
            },
            (e, a) -> {
                // summed in the product's dtype: an integer sum would otherwise widen to int64
                Object products = e.call(LinalgOps.BMM, a[1], a[2]);
                return scaledSum(e, a[0], e.call(ReductionOps.SUM_DIM, products, new int[] {0}, false, e.meta(products).dtype()), a[3], a[4]);
            });
}
