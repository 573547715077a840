package dev.ember.ops;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.PoolAdaptiveAvg2d;
import dev.ember.kernels.PoolGeometry;
import dev.ember.ops.eager.Conv2d;
import dev.ember.ops.eager.Conv2dBackward;
import dev.ember.ops.eager.Conv3d;
import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.Pool2d;
import dev.ember.ops.eager.Pool3d;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

import static dev.ember.ops.LinalgOps.error;
import static dev.ember.ops.LinalgOps.typeMetaName;

/**
 * Convolution and pooling: convolution (non-transposed, two or three spatial dimensions), conv2d
 * and conv3d (which decompose to convolution), max_pool2d, avg_pool2d and adaptive_avg_pool2d.
 * Meta functions make ATen's checks in ATen's order and words; outputs are contiguous (NCHW, NCDHW).
 */
public final class ConvOps {
    private ConvOps() {}

    public static final OpOverload CONVOLUTION = OpOverload.define("convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
                    + "int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor")
            .nativeBlas()
            .meta(a -> TensorMeta.contiguous(a.tensor(0).dtype(), convolution(a).outputShape()))
            .kernel((a, m) -> {
                Convolution c = convolution(a);
                TensorMeta meta = (TensorMeta) m;
                // a kernel that writes every element takes its output unzeroed (a 4 x 64 x 28x28 output: 0.8 MB the JVM need not clear)
                Tensor out = overwritesOutput(c, meta.dtype()) ? Tensor.allocateUninitialized(meta) : Tensor.allocate(meta);
                convolutionInto(a, c, out);
                return out;
            })
            .derivative(ConvOps::convolutionBackward)
            .register();

    /**
     * {@code convolution} into {@code out} (contiguous, of the result's shape and dtype). Inductor calls
     * it to put a convolution's output, when only later kernels of the graph read it, in the graph's
     * arena ({@code MemoryPlan}) rather than a fresh array per call: at 8 x 64 x 56x56 a fresh output
     * is 6.4 MB, past what HotSpot allocates without zeroing, and its zeroing ({@code memset}) was 11%
     * of a Conv-BN-ReLU inference graph's samples (session 40, docs/benchmarks.md).
     */
    public static final OpOverload CONVOLUTION_OUT = OutForms.writing("convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
            + "int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, *, Tensor(a!) out) -> Tensor(a!)", CONVOLUTION, (a, m) -> {
                Tensor out = a.tensor(9);
                Object[] inputs = Arrays.copyOf(a.toArray(), 9);
                Args args = CONVOLUTION.bind(inputs);
                Convolution c = convolution(args);
                boolean sharesAnInput = out.storage() == args.tensor(0).storage() || out.storage() == args.tensor(1).storage()
                        || args.optTensor(2) != null && out.storage() == args.optTensor(2).storage();
                if (!out.isContiguous() || sharesAnInput) {
                    // the kernels write contiguous rows and read their inputs while they write
                    Copy.copy(CONVOLUTION.callTensor(inputs), out);
                } else {
                    // a path not known to write every element (depthwise without a bias adds into its output) starts from zeros
                    if (!overwritesOutput(c, out.dtype())) Copy.fill(out, 0.0);
                    convolutionInto(args, c, out);
                }
                out.bumpVersion();
                return out;
            });

    /** Whether the kernel computing convolution {@code c} writes every element of its output (else the output must start at zero). */
    private static boolean overwritesOutput(Convolution c, DType dtype) {
        return c.depth() == null && Conv2d.overwritesOutput(dtype, c.geometry());
    }

    /** Convolution {@code c} (of arguments {@code a}) into {@code out}: contiguous, zeroed unless {@link #overwritesOutput} says otherwise. */
    private static void convolutionInto(Args a, Convolution c, Tensor out) {
        if (c.depth() == null) Conv2d.forward(a.tensor(0), a.tensor(1), a.optTensor(2), out, c.geometry());
        else Conv3d.forward(a.tensor(0), a.tensor(1), a.optTensor(2), out, c.depth(), c.geometry());
    }

    /**
     * The gradients of convolution with respect to input, weight and bias, each computed only
     * where {@code output_mask} asks (the others come back empty, of shape [0]).
     */
    public static final OpOverload CONVOLUTION_BACKWARD = OpOverload.define("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, "
                    + "int[]? bias_sizes, int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, "
                    + "bool[3] output_mask) -> (Tensor, Tensor, Tensor)")
            .nativeBlas()
            .meta(a -> {
                String op = "convolution_backward";
                Tensor grad = a.tensor(0), input = a.tensor(1), weight = a.tensor(2);
                boolean[] mask = outputMask(a.get(10));
                Convolution c = convolution(CONVOLUTION.bind(input, weight, null, a.get(4), a.get(5), a.get(6), a.get(7), a.get(8), a.get(9)));
                if (!Arrays.equals(grad.shape(), c.outputShape())) {
                    throw error(op, "expected grad_output of size " + Shapes.format(c.outputShape()) + " (the convolution's output), but got "
                            + Shapes.format(grad.shape()));
                }
                if (grad.dtype() != input.dtype()) {
                    throw error(op, "expected grad_output to have dtype " + input.dtype().scalarTypeName() + ", but got " + grad.dtype().scalarTypeName());
                }
                if (!input.dtype().isFloatingPoint()) throw notImplemented(op, input.dtype());
                int[] biasSizes = a.optInts(3);
                if (biasSizes != null && (biasSizes.length != 1 || biasSizes[0] != weight.size(0))) {
                    throw error(op, "expected bias_sizes to be [" + weight.size(0) + "] (the weight's output channels), but got " + Shapes.format(biasSizes));
                }
                TensorMeta none = TensorMeta.contiguous(input.dtype(), 0);
                return List.of(mask[0] ? TensorMeta.contiguous(input.dtype(), input.shape()) : none,
                        mask[1] ? TensorMeta.contiguous(input.dtype(), weight.shape()) : none,
                        mask[2] ? TensorMeta.contiguous(input.dtype(), weight.size(0)) : none);
            })
            .kernel((a, m) -> {
                List<?> metas = (List<?>) m;
                boolean[] mask = outputMask(a.get(10));
                Tensor[] out = new Tensor[3];
                Convolution c = convolution(CONVOLUTION.bind(a.tensor(1), a.tensor(2), null, a.get(4), a.get(5), a.get(6), a.get(7), a.get(8), a.get(9)));
                // an input gradient computed as a convolution by a kernel that writes every element, and a
                // weight gradient computed by Winograd, take their outputs unzeroed
                DType dtype = a.tensor(0).dtype();
                boolean[] overwritten = {
                    mask[0] && c.depth() == null && Conv2dBackward.overwritesGradInput(dtype, c.geometry()),
                    mask[1] && c.depth() == null && Conv2dBackward.overwritesGradWeight(dtype, c.geometry()),
                    false};
                for (int i = 0; i < 3; i++) {
                    TensorMeta meta = (TensorMeta) metas.get(i);
                    out[i] = overwritten[i] ? Tensor.allocateUninitialized(meta) : Tensor.allocate(meta);
                }
                Tensor gi = mask[0] ? out[0] : null, gw = mask[1] ? out[1] : null, gb = mask[2] ? out[2] : null;
                if (c.depth() == null) Conv2dBackward.backward(a.tensor(0), a.tensor(1), a.tensor(2), c.geometry(), gi, gw, gb);
                else Conv3d.backward(a.tensor(0), a.tensor(1), a.tensor(2), c.depth(), c.geometry(), gi, gw, gb);
                return List.of(out[0], out[1], out[2]);
            })
            .derivative(ConvOps::convolutionDoubleBackward)
            .register();

    /**
     * The transposed convolution (a "deconvolution": convolution's gradient with respect to its
     * input), as ATen's {@code conv_transpose2d}: weight {@code [in, out/groups, kH, kW]}, output
     * {@code (H−1)·stride − 2·padding + dilation·(kH−1) + output_padding + 1} high. Defined by
     * {@code convolution_backward}'s input gradient for an input of the output's shape, so eager,
     * autograd (its double-backward formula) and the inductor (its extern kernel) compute one thing.
     */
    public static final OpOverload CONV_TRANSPOSE2D = ComposedOps.define("conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, "
                    + "int[2] stride=1, int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor",
            a -> transposedShape(a, 2), (e, a) -> convTransposeNd(e, a, 2));

    /** conv_transpose2d one dimension up: weight {@code [in, out/groups, kD, kH, kW]}, computed the same way. */
    public static final OpOverload CONV_TRANSPOSE3D = ComposedOps.define("conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, "
                    + "int[3] stride=1, int[3] padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1) -> Tensor",
            a -> transposedShape(a, 3), (e, a) -> convTransposeNd(e, a, 3));

    private static Object convTransposeNd(OpEmitter e, Object[] a, int dims) {
        TensorMeta in = e.meta(a[0]), w = e.meta(a[1]);
        int[] stride = spatial(a[3], dims), padding = spatial(a[4], dims), outputPadding = spatial(a[5], dims), dilation = spatial(a[7], dims);
        int groups = ((Number) a[6]).intValue();
        boolean batched = in.dim() == dims + 2;
        Object x = batched ? a[0] : e.call(ShapeOps.UNSQUEEZE, a[0], 0L);
        int[] outShape = transposedShape(dims, e.meta(x).shape(), w.shape(), stride, padding, outputPadding, groups, dilation);
        // With output_padding ≥ stride (allowed when it is below the dilation) the forward convolution of an input of
        // the output's shape has output_padding / stride more rows (columns) than x: rows no input element reaches, so
        // x padded with as many rows of zeros at the end is that convolution's output gradient, and gives ATen's result.
        int[] pad = new int[2 * dims];
        boolean extra = false;
        for (int d = 0; d < dims; d++) {
            pad[2 * (dims - 1 - d) + 1] = outputPadding[d] / stride[d];   // constant_pad_nd's pairs run from the last dim
            extra |= outputPadding[d] >= stride[d];
        }
        if (extra) x = e.call(NnOps.CONSTANT_PAD_ND, x, pad);
        Object shapeOfOutput = e.call(CreationOps.ZEROS, outShape, in.dtype());   // only its shape is read
        Object out = ((List<?>) e.call(ConvOps.CONVOLUTION_BACKWARD, x, shapeOfOutput, a[1], null, stride, padding, dilation, false,
                new int[dims], (long) groups, new boolean[] {true, false, false})).getFirst();
        if (a[2] != null) {
            int[] perChannel = new int[dims + 2];
            Arrays.fill(perChannel, 1);
            perChannel[1] = -1;
            out = e.call(PointwiseOps.ADD_TENSOR, out, e.call(ShapeOps.VIEW, a[2], perChannel));
        }
        return batched ? out : e.call(ShapeOps.SQUEEZE_DIM, out, 0L);
    }

    /** A parameter of one value or one per spatial dimension, as one per dimension. */
    private static int[] spatial(Object v, int dims) {
        int[] p = Composites.toInts(v);
        if (p.length != 1) return p;
        int[] out = new int[dims];
        Arrays.fill(out, p[0]);
        return out;
    }

    private static int[] transposedShape(Args a, int dims) {
        return transposedShape(dims, a.tensor(0).shape(), a.tensor(1).shape(), spatial(a.get(3), dims), spatial(a.get(4), dims), spatial(a.get(5), dims),
                a.integer(6), spatial(a.get(7), dims));
    }

    private static final String[] SPATIAL_NAMES = {"depth", "height", "width"};

    /** The transposed convolution's output shape, after ATen's checks of its arguments. */
    private static int[] transposedShape(int dims, int[] input, int[] weight, int[] stride, int[] padding, int[] outputPadding, int groups, int[] dilation) {
        String op = "conv_transpose" + dims + "d";
        if (input.length != dims + 1 && input.length != dims + 2) {
            throw error(op, "Expected " + (dims + 1) + "D (unbatched) or " + (dims + 2) + "D (batched) input to " + op + ", but got input of size: "
                    + Shapes.format(input));
        }
        int[] x = input;
        if (input.length == dims + 1) {
            x = new int[dims + 2];
            x[0] = 1;
            System.arraycopy(input, 0, x, 1, dims + 1);
        }
        if (weight.length != dims + 2) {
            throw error(op, "expected a " + (dims + 2) + "-D weight [in_channels, out_channels/groups, " + (dims == 3 ? "kD, " : "") + "kH, kW], got "
                    + Shapes.format(weight));
        }
        if (groups <= 0) throw error(op, "non-positive groups is not supported");
        if (x[1] != weight[0]) {
            throw error(op, "Given transposed=1, weight of size " + Shapes.format(weight) + ", expected input" + Shapes.format(x) + " to have " + weight[0]
                    + " channels, but got " + x[1] + " channels instead");
        }
        if (weight[0] % groups != 0) throw error(op, "expected the weight's input channels (" + weight[0] + ") to be divisible by groups (" + groups + ")");
        if (stride.length != dims || padding.length != dims || outputPadding.length != dims || dilation.length != dims) {
            throw error(op, "expected stride, padding, output_padding and dilation to be a single integer value or a list of " + dims + " values");
        }
        String[] names = Arrays.copyOfRange(SPATIAL_NAMES, 3 - dims, 3);
        for (int d = 0; d < dims; d++) {
            if (stride[d] <= 0) throw error(op, "non-positive stride is not supported");
            if (outputPadding[d] >= stride[d] && outputPadding[d] >= dilation[d]) {
                StringBuilder m = new StringBuilder("output padding must be smaller than either stride or dilation, but got");
                for (int i = 0; i < dims; i++) m.append(" output_padding_").append(names[i]).append(": ").append(outputPadding[i]);
                for (int i = 0; i < dims; i++) m.append(" stride_").append(names[i]).append(": ").append(stride[i]);
                for (int i = 0; i < dims; i++) m.append(" dilation_").append(names[i]).append(": ").append(dilation[i]);
                throw error(op, m.toString());
            }
        }
        int[] out = new int[dims + 2];
        out[0] = x[0];
        out[1] = weight[1] * groups;
        for (int d = 0; d < dims; d++) {
            out[2 + d] = (x[2 + d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (weight[2 + d] - 1) + outputPadding[d] + 1;
            if (out[2 + d] <= 0) throw error(op, "the output size " + Shapes.format(out) + " is too small (non-positive)");
        }
        return out;
    }

    public static final OpOverload CONV2D = OpOverload.define("conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
                    + "int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor")
            .nativeBlas()
            .meta(a -> convNdMeta("conv2d", 2, a))
            .kernel((a, m) -> ConvOps.CONV2D.decompose(a.toArray()))
            .decomposition((e, a) -> convNd(e, a, 2))
            .register();

    public static final OpOverload CONV3D = OpOverload.define("conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
                    + "int[3] padding=0, int[3] dilation=1, int groups=1) -> Tensor")
            .nativeBlas()
            .meta(a -> convNdMeta("conv3d", 3, a))
            .kernel((a, m) -> ConvOps.CONV3D.decompose(a.toArray()))
            .decomposition((e, a) -> convNd(e, a, 3))
            .register();

    /** conv2d's and conv3d's checks (ATen's conv{n}d, then convolution's) and output: convolution's, less the batch dimension for unbatched input. */
    private static TensorMeta convNdMeta(String op, int dims, Args a) {
        Tensor input = a.tensor(0), bias = a.optTensor(2);
        if (bias != null && bias.dtype() != input.dtype()) {
            throw error(op, "Input type (" + typeMetaName(input.dtype()) + ") and bias type (" + typeMetaName(bias.dtype()) + ") should be the same");
        }
        if (input.dim() != dims + 1 && input.dim() != dims + 2) {
            throw error(op, "Expected " + (dims + 1) + "D (unbatched) or " + (dims + 2) + "D (batched) input to " + op + ", but got input of size: "
                    + Shapes.format(input.shape()));
        }
        Object[] args = {new FakeTensor(batchedMeta(input, dims)), a.tensor(1), a.optTensor(2), a.ints(3), a.ints(4), a.ints(5), false, new int[dims], a.get(6)};
        TensorMeta batched = (TensorMeta) CONVOLUTION.inferMeta(CONVOLUTION.bind(args));
        int[] shape = batched.shape();
        return TensorMeta.contiguous(batched.dtype(), input.dim() == dims + 2 ? shape : Arrays.copyOfRange(shape, 1, shape.length));
    }

    /** conv2d and conv3d as convolution on the batched input: unbatched inputs gain and lose a leading dimension of 1. */
    private static Object convNd(OpEmitter e, Object[] a, int dims) {
        boolean batched = e.meta(a[0]).dim() == dims + 2;
        Object x = batched ? a[0] : e.call(ShapeOps.UNSQUEEZE, a[0], 0);
        Object out = e.call(ConvOps.CONVOLUTION, x, a[1], a[2], a[3], a[4], a[5], false, new int[dims], a[6]);
        return batched ? out : e.call(ShapeOps.SQUEEZE_DIM, out, 0);
    }

    /** Differentiated through max_pool2d_with_indices, whose indices route the gradient (PyTorch's CompositeImplicitAutograd); AOT keeps it whole. */
    public static final OpOverload MAX_POOL2D = OpOverload.define("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                    + "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor")
            .meta(a -> pooledMeta(a.tensor(0), maxPoolGeometry(a)))
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) m);
                Pool2d.maxForward(as4d(self), as4d(out), geometryOf(self, out, a.ints(1), a.ints(2), a.ints(3), a.ints(4)));
                return out;
            })
            .decomposition((e, a) -> ((List<?>) e.call(ConvOps.MAX_POOL2D_WITH_INDICES, a)).getFirst())
            .register();

    /** max_pool2d's output and, for each output, the flat position {@code h * W + w} of its maximum in the input plane. */
    public static final OpOverload MAX_POOL2D_WITH_INDICES = OpOverload.define("max_pool2d_with_indices(Tensor self, int[2] kernel_size, "
                    + "int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)")
            .meta(a -> {
                TensorMeta out = pooledMeta(a.tensor(0), maxPoolGeometry(a));
                return List.of(out, TensorMeta.contiguous(DType.INT64, out.shape()));
            })
            .kernel((a, m) -> {
                List<?> metas = (List<?>) m;
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) metas.get(0)), indices = Tensor.allocate((TensorMeta) metas.get(1));
                Pool2d.maxForwardWithIndices(as4d(self), as4d(out), as4d(indices), geometryOf(self, out, a.ints(1), a.ints(2), a.ints(3), a.ints(4)));
                return List.of(out, indices);
            })
            .derivative(g -> new Object[] {g.call(ConvOps.MAX_POOL2D_WITH_INDICES_BACKWARD, g.grad(0), g.arg(0), g.value(1), g.value(2), g.value(3),
                    g.value(4), g.value(5), g.result(1))})
            .register();

    /** max_pool2d_with_indices' gradient: each output gradient added at its maximum's position; zero elsewhere. */
    public static final OpOverload MAX_POOL2D_WITH_INDICES_BACKWARD = OpOverload.define("max_pool2d_with_indices_backward(Tensor grad_output, "
                    + "Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor")
            .meta(a -> {
                String op = "max_pool2d_with_indices_backward";
                Tensor grad = a.tensor(0), self = a.tensor(1), indices = a.tensor(7);
                TensorMeta pooled = pooledMeta(self, maxPoolGeometry(MAX_POOL2D.bind(Arrays.copyOfRange(a.toArray(), 1, 7))));
                checkPoolGradient(op, grad, self, pooled);
                checkPoolIndices(op, indices, pooled);
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(1), out = Tensor.allocate((TensorMeta) m);
                int h = self.size(-2), w = self.size(-1), planes = self.numel() / Math.max(1, h * w);
                Tensor grad = a.tensor(0).contiguous(), indices = a.tensor(7).contiguous();
                int outPixels = grad.size(-2) * grad.size(-1);
                long[] ix = indices.toLongArray();
                for (long i : ix) {
                    if (i < 0 || i >= (long) h * w) {
                        throw new IndexOutOfBoundsException("max_pool2d_with_indices_backward: index " + i + " is out of bounds for an input plane of " + h + "x" + w);
                    }
                }
                if (out.numel() > 0) Pool2d.maxBackward(grad, indices, out, planes, h * w, outPixels);
                return out;
            })
            // linear in grad_output: the gradient's values at the same maxima
            .derivative(g -> {
                TensorMeta self = g.argMeta(1);
                int n = self.dim();
                int[] lead = Arrays.copyOf(self.shape(), n - 2), flatIn = Arrays.copyOf(lead, n - 1), flatOut = Arrays.copyOf(lead, n - 1);
                flatIn[n - 2] = self.shape()[n - 2] * self.shape()[n - 1];
                int[] pooled = g.argMeta(0).shape();
                flatOut[n - 2] = pooled[n - 2] * pooled[n - 1];
                Object picked = g.call(IndexingOps.GATHER, g.reshape(g.grad(), flatIn), n - 2, g.reshape(g.arg(7), flatOut));
                return new Object[] {g.reshape(picked, pooled)};
            })
            .register();

    public static final OpOverload AVG_POOL2D = OpOverload.define("avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                    + "int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                int[] kernel = pair("avg_pool2d: kernel_size must either be a single int, or a tuple of two ints", a.ints(1));
                int[] stride = a.ints(2).length == 0 ? kernel : pair("avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints", a.ints(2));
                int[] padding = pair("avg_pool2d: padding must either be a single int, or a tuple of two ints", a.ints(3));
                Integer divisor = a.optInteger(6);
                if (divisor != null && divisor == 0) throw new IllegalArgumentException("avg_pool2d: divisor must be not zero");
                Shapes.wrapDim("avg_pool2d", -3, self.dim());
                PoolGeometry g = poolGeometry(self, kernel, stride, padding, new int[] {1, 1}, a.bool(4));
                if (self.dtype() == DType.BOOL || self.dtype() == DType.INT32) throw notImplemented("avg_pool2d", self.dtype());
                return pooledMeta(self, g);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) m);
                PoolGeometry g = geometryOf(self, out, a.ints(1), a.ints(2), a.ints(3), new int[] {1});
                Pool2d.avgForward(as4d(self), as4d(out), g, a.bool(5), a.optInteger(6));
                return out;
            })
            .derivative(g -> new Object[] {g.call(ConvOps.AVG_POOL2D_BACKWARD, g.grad(), g.arg(0), g.value(1), g.value(2), g.value(3),
                    g.value(4), g.value(5), g.value(6))})
            .register();

    /** avg_pool2d's gradient: each output gradient over its divisor, spread over the input pixels its window summed. */
    public static final OpOverload AVG_POOL2D_BACKWARD = OpOverload.define("avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
                    + "int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor")
            .meta(a -> {
                String op = "avg_pool2d_backward";
                Tensor grad = a.tensor(0), self = a.tensor(1);
                Object[] forward = Arrays.copyOfRange(a.toArray(), 1, 8);
                TensorMeta pooled = (TensorMeta) AVG_POOL2D.inferMeta(AVG_POOL2D.bind(forward));
                checkPoolGradient(op, grad, self, pooled);
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(1), out = Tensor.allocate((TensorMeta) m), grad = a.tensor(0).contiguous();
                PoolGeometry g = geometryOf(self, grad, a.ints(2), a.ints(3), a.ints(4), new int[] {1});
                int planes = self.numel() / Math.max(1, self.size(-2) * self.size(-1));
                if (out.numel() > 0) Pool2d.avgBackward(grad, out, planes, g, a.bool(6), a.optInteger(7));
                return out;
            })
            // linear in grad_output: the same average of the gradient
            .derivative(g -> new Object[] {g.call(ConvOps.AVG_POOL2D, g.grad(), g.value(2), g.value(3), g.value(4), g.value(5), g.value(6), g.value(7))})
            .register();

    public static final OpOverload ADAPTIVE_AVG_POOL2D = OpOverload.define("adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                int[] size = a.ints(1);
                if (size.length != 2) throw new IllegalArgumentException("adaptive_avg_pool2d: output_size must be 2");
                if (size[0] < 0 || size[1] < 0) {
                    throw new IllegalArgumentException("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {"
                            + size[0] + ", " + size[1] + "}");
                }
                int[] shape = self.shape();
                if (size[0] == 1 && size[1] == 1) { // ATen computes this as mean over the last two dims, of any rank
                    Shapes.wrapDim("adaptive_avg_pool2d", -1, self.dim());
                    Shapes.wrapDim("adaptive_avg_pool2d", -2, self.dim());
                    if (!self.dtype().isFloatingPoint()) {
                        throw new IllegalArgumentException("adaptive_avg_pool2d: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: "
                                + self.dtype().scalarTypeName());
                    }
                } else {
                    if (self.dim() != 3 && self.dim() != 4) {
                        throw new IllegalArgumentException("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got " + Shapes.format(shape));
                    }
                    for (int d = self.dim() - 2; d < self.dim(); d++) {
                        if (shape[d] <= 0) {
                            throw new IllegalArgumentException("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                                    + Shapes.format(shape) + " with dimension " + d + " being empty");
                        }
                    }
                }
                shape[shape.length - 2] = size[0];
                shape[shape.length - 1] = size[1];
                if (Shapes.numel(shape) > 0 && !self.dtype().isFloatingPoint()) throw notImplemented("adaptive_avg_pool2d", self.dtype());
                return TensorMeta.contiguous(self.dtype(), shape);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) m);
                if (out.numel() == 0) return out;
                Tensor in4d = planes4d(self);
                PoolGeometry g = PoolAdaptiveAvg2d.geometry(in4d.size(2), in4d.size(3), out.size(-2), out.size(-1));
                Pool2d.adaptiveAvgForward(in4d, out.viewAs(TensorMeta.contiguous(out.dtype(), in4d.size(0), in4d.size(1), g.outH(), g.outW())), g);
                return out;
            })
            // a 1x1 output is the mean of the last two dims (of any rank): its gradient spread evenly
            .derivative(g -> {
                TensorMeta self = g.argMeta(0);
                int[] size = g.ints(1);
                if (size[0] == 1 && size[1] == 1) {
                    double area = (double) self.shape()[self.dim() - 2] * self.shape()[self.dim() - 1];
                    return new Object[] {g.div(g.call(ShapeOps.EXPAND, g.grad(), self.shape()), area)};
                }
                return new Object[] {g.call(ConvOps.ADAPTIVE_AVG_POOL2D_BACKWARD, g.grad(), g.arg(0))};
            })
            .register();

    /** adaptive_avg_pool2d's gradient (3-d or 4-d input): each output gradient over its window's area, spread over the window. */
    public static final OpOverload ADAPTIVE_AVG_POOL2D_BACKWARD = OpOverload.define("_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor")
            .meta(a -> {
                String op = "_adaptive_avg_pool2d_backward";
                Tensor grad = a.tensor(0), self = a.tensor(1);
                if (self.dim() != 3 && self.dim() != 4) {
                    throw new IllegalArgumentException(op + ": Expected 3D or 4D tensor, but got " + Shapes.format(self.shape()));
                }
                if (grad.dim() != self.dim()) {
                    throw new IllegalArgumentException(op + ": Expected dimensions " + self.dim() + " for `grad_output` but got dimensions " + grad.dim());
                }
                for (int d = 0; d < self.dim() - 2; d++) {
                    if (grad.size(d) != self.size(d)) {
                        throw new IllegalArgumentException(op + ": expected grad_output of size " + Shapes.format(grad.shape()) + " to match self "
                                + Shapes.format(self.shape()) + " but for its last two dims (the pooled ones), got size " + grad.size(d) + " at dim " + d);
                    }
                }
                if (grad.dtype() != self.dtype()) {
                    throw new IllegalArgumentException(op + ": expected grad_output to have dtype " + self.dtype().scalarTypeName() + ", but got " + grad.dtype().scalarTypeName());
                }
                if (!self.dtype().isFloatingPoint()) throw notImplemented(op, self.dtype());
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(1), out = Tensor.allocate((TensorMeta) m), grad = a.tensor(0).contiguous();
                int planes = self.numel() / Math.max(1, self.size(-2) * self.size(-1));
                PoolGeometry g = PoolAdaptiveAvg2d.geometry(self.size(-2), self.size(-1), grad.size(-2), grad.size(-1));
                if (out.numel() > 0 && grad.numel() > 0) Pool2d.adaptiveAvgBackward(grad, out, planes, g);
                return out;
            })
            .derivative(g -> {
                int[] s = g.argMeta(0).shape();
                return new Object[] {g.call(ConvOps.ADAPTIVE_AVG_POOL2D, g.grad(), new int[] {s[s.length - 2], s[s.length - 1]})};
            })
            .register();

    /** max_pool3d_with_indices' output: CompositeImplicitAutograd in PyTorch, differentiated through the indices. */
    public static final OpOverload MAX_POOL3D = OpOverload.define("max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
                    + "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor")
            .meta(a -> pooled3dMeta(a.tensor(0), maxPool3dWindow(a)))
            .kernel((a, m) -> ConvOps.MAX_POOL3D.decompose(a.toArray()))
            .decomposition((e, a) -> ((List<?>) e.call(ConvOps.MAX_POOL3D_WITH_INDICES, a)).getFirst())
            .register();

    /** max_pool3d's output and, for each output, the flat position {@code (d * H + h) * W + w} of its maximum in the input volume. */
    public static final OpOverload MAX_POOL3D_WITH_INDICES = OpOverload.define("max_pool3d_with_indices(Tensor self, int[3] kernel_size, "
                    + "int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)")
            .meta(a -> {
                TensorMeta out = pooled3dMeta(a.tensor(0), maxPool3dWindow(a));
                return List.of(out, TensorMeta.contiguous(DType.INT64, out.shape()));
            })
            .kernel((a, m) -> {
                List<?> metas = (List<?>) m;
                Tensor out = Tensor.allocate((TensorMeta) metas.get(0)), indices = Tensor.allocate((TensorMeta) metas.get(1));
                if (out.numel() > 0) Pool3d.maxForward(a.tensor(0).contiguous(), out, indices, maxPool3dWindow(a));
                return List.of(out, indices);
            })
            .derivative(g -> new Object[] {g.call(ConvOps.MAX_POOL3D_WITH_INDICES_BACKWARD, g.grad(0), g.arg(0), g.value(1), g.value(2), g.value(3),
                    g.value(4), g.value(5), g.result(1))})
            .register();

    /** max_pool3d_with_indices' gradient: each output gradient added at its maximum's position; zero elsewhere. */
    public static final OpOverload MAX_POOL3D_WITH_INDICES_BACKWARD = OpOverload.define("max_pool3d_with_indices_backward(Tensor grad_output, "
                    + "Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor")
            .meta(a -> {
                String op = "max_pool3d_with_indices_backward";
                Tensor grad = a.tensor(0), self = a.tensor(1), indices = a.tensor(7);
                TensorMeta pooled = pooled3dMeta(self, maxPool3dWindow(MAX_POOL3D.bind(Arrays.copyOfRange(a.toArray(), 1, 7))));
                checkPoolGradient(op, grad, self, pooled);
                checkPoolIndices(op, indices, pooled);
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(1), out = Tensor.allocate((TensorMeta) m);
                int[] s = self.shape();
                int n = s.length, volume = s[n - 3] * s[n - 2] * s[n - 1], planes = self.numel() / Math.max(1, volume);
                Tensor grad = a.tensor(0).contiguous(), indices = a.tensor(7).contiguous();
                for (long i : indices.toLongArray()) {
                    if (i < 0 || i >= volume) {
                        throw new IndexOutOfBoundsException("max_pool3d_with_indices_backward: index " + i + " is out of bounds for an input volume of "
                                + s[n - 3] + "x" + s[n - 2] + "x" + s[n - 1]);
                    }
                }
                int outVolume = grad.size(-3) * grad.size(-2) * grad.size(-1);
                if (out.numel() > 0) Pool2d.maxBackward(grad, indices, out, planes, volume, outVolume);
                return out;
            })
            // linear in grad_output: the gradient's values at the same maxima
            .derivative(g -> {
                TensorMeta self = g.argMeta(1);
                int[] pooled = g.argMeta(0).shape();
                Object picked = g.call(IndexingOps.GATHER, g.reshape(g.grad(), flatVolumes(self.shape())), self.dim() - 3,
                        g.reshape(g.arg(7), flatVolumes(pooled)));
                return new Object[] {g.reshape(picked, pooled)};
            })
            .register();

    public static final OpOverload AVG_POOL3D = OpOverload.define("avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
                    + "int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                Pool3d.Window w = avgPool3dWindow(a);
                if (self.dtype() == DType.BOOL || self.dtype() == DType.INT32) throw notImplemented("avg_pool3d_out_frame", self.dtype());
                return pooled3dMeta(self, w);
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                if (out.numel() > 0) Pool3d.avgForward(a.tensor(0).contiguous(), out, avgPool3dWindow(a), a.bool(5), a.optInteger(6));
                return out;
            })
            .derivative(g -> new Object[] {g.call(ConvOps.AVG_POOL3D_BACKWARD, g.grad(), g.arg(0), g.value(1), g.value(2), g.value(3),
                    g.value(4), g.value(5), g.value(6))})
            .register();

    /** avg_pool3d's gradient: each output gradient over its divisor, spread over the input voxels its window summed. */
    public static final OpOverload AVG_POOL3D_BACKWARD = OpOverload.define("avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, "
                    + "int[3] stride, int[3] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor")
            .meta(a -> {
                Tensor grad = a.tensor(0), self = a.tensor(1);
                TensorMeta pooled = (TensorMeta) AVG_POOL3D.inferMeta(AVG_POOL3D.bind(Arrays.copyOfRange(a.toArray(), 1, 8)));
                checkPoolGradient("avg_pool3d_backward", grad, self, pooled);
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                Pool3d.Window w = avgPool3dWindow(AVG_POOL3D.bind(Arrays.copyOfRange(a.toArray(), 1, 8)));
                if (out.numel() > 0) Pool3d.avgBackward(a.tensor(0).contiguous(), out, w, a.bool(6), a.optInteger(7));
                return out;
            })
            // linear in grad_output: the same average of the gradient
            .derivative(g -> new Object[] {g.call(ConvOps.AVG_POOL3D, g.grad(), g.value(2), g.value(3), g.value(4), g.value(5), g.value(6), g.value(7))})
            .register();

    public static final OpOverload ADAPTIVE_AVG_POOL3D = OpOverload.define("adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                int[] size = a.ints(1);
                if (size.length != 3) throw new IllegalArgumentException("adaptive_avg_pool3d: output_size must be 3");
                if (size[0] < 0 || size[1] < 0 || size[2] < 0) {
                    throw new IllegalArgumentException("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {"
                            + size[0] + ", " + size[1] + "," + size[2] + "}"); // sic: ATen's message has no space before the last
                }
                int[] shape = self.shape();
                if (size[0] == 1 && size[1] == 1 && size[2] == 1) { // ATen computes this as mean over the last three dims, of any rank
                    for (int d = -3; d < 0; d++) Shapes.wrapDim("adaptive_avg_pool3d", d, self.dim());
                    if (!self.dtype().isFloatingPoint()) {
                        throw new IllegalArgumentException("adaptive_avg_pool3d: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: "
                                + self.dtype().scalarTypeName());
                    }
                } else {
                    for (int d = 1; d < self.dim(); d++) {
                        if (shape[d] <= 0) {
                            throw new IllegalArgumentException("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                                    + Shapes.format(shape) + " with dimension " + d + " being empty");
                        }
                    }
                    if (self.dim() != 4 && self.dim() != 5) {
                        throw new IllegalArgumentException("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got " + Shapes.format(shape));
                    }
                }
                System.arraycopy(size, 0, shape, shape.length - 3, 3);
                if (Shapes.numel(shape) > 0 && !self.dtype().isFloatingPoint()) throw notImplemented("adaptive_avg_pool3d_cpu", self.dtype());
                return TensorMeta.contiguous(self.dtype(), shape);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), out = Tensor.allocate((TensorMeta) m);
                if (out.numel() > 0) Pool3d.adaptiveAvgForward(self.contiguous(), out, lastThree(self.shape()), a.ints(1));
                return out;
            })
            .derivative(g -> new Object[] {g.call(ConvOps.ADAPTIVE_AVG_POOL3D_BACKWARD, g.grad(), g.arg(0))})
            .register();

    /** adaptive_avg_pool3d's gradient: each output gradient over its window's volume, spread over the window. */
    public static final OpOverload ADAPTIVE_AVG_POOL3D_BACKWARD = OpOverload.define("_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor")
            .meta(a -> {
                String op = "_adaptive_avg_pool3d_backward";
                Tensor grad = a.tensor(0), self = a.tensor(1);
                if (self.dim() < 3 || grad.dim() != self.dim()) {
                    throw new IllegalArgumentException(op + ": Expected dimensions " + self.dim() + " for `grad_output` but got dimensions " + grad.dim());
                }
                for (int d = 0; d < self.dim() - 3; d++) {
                    if (grad.size(d) != self.size(d)) {
                        throw new IllegalArgumentException(op + ": expected grad_output of size " + Shapes.format(grad.shape()) + " to match self "
                                + Shapes.format(self.shape()) + " but for its last three dims (the pooled ones), got size " + grad.size(d) + " at dim " + d);
                    }
                }
                if (grad.dtype() != self.dtype()) {
                    throw new IllegalArgumentException(op + ": expected grad_output to have dtype " + self.dtype().scalarTypeName() + ", but got " + grad.dtype().scalarTypeName());
                }
                if (!self.dtype().isFloatingPoint()) throw notImplemented(op, self.dtype());
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> {
                Tensor grad = a.tensor(0).contiguous(), out = Tensor.allocate((TensorMeta) m);
                if (out.numel() > 0 && grad.numel() > 0) Pool3d.adaptiveAvgBackward(grad, out, lastThree(a.tensor(1).shape()), lastThree(grad.shape()));
                return out;
            })
            .derivative(g -> new Object[] {g.call(ConvOps.ADAPTIVE_AVG_POOL3D, g.grad(), lastThree(g.argMeta(0).shape()))})
            .register();

    // ------------------------------------------------------------------ convolution

    /**
     * A checked convolution call: its 2-d geometry and output shape; for a 3-d convolution also its
     * depth, the geometry then being that of the depth-unfolded 2-d problem ({@link Conv3d}).
     */
    private record Convolution(Conv2dGeometry geometry, Conv3d.Depth depth, int[] outputShape) {}

    /** _convolution's checks, in its order, on the arguments of aten.convolution. */
    private static Convolution convolution(Args a) {
        Tensor input = a.tensor(0), weight = a.tensor(1), bias = a.optTensor(2);
        int groups = a.integer(8);
        int k = weight.dim(), dims = k - 2;
        if (dims <= 0) throw error("convolution", "weight should have at least three dimensions");
        if (groups <= 0) throw error("convolution", "non-positive groups is not supported");
        int[] stride = expandParam("stride", a.ints(3), dims);
        int[] padding = expandParam("padding", a.ints(4), dims);
        int[] dilation = expandParam("dilation", a.ints(5), dims);
        int[] outputPadding = expandParam("output_padding", a.ints(7), dims);
        if (a.bool(6)) throw error("convolution", "transposed convolution is not supported yet");
        checkShapeForward(input, weight, bias, stride, padding, dilation, outputPadding, groups);
        if (dims != 2 && dims != 3) {
            throw error("convolution", "only 2-d and 3-d (4- and 5-dimensional input and weight) convolution is supported yet, got weight of size "
                    + Shapes.format(weight.shape()));
        }
        for (int d : dilation) {
            if (d == 0) throw error("convolution", "dilation should be greater than zero, but got " + Shapes.format(dilation));
        }
        int[] in = input.shape();
        boolean emptyInput = in[0] == 0 || in[1] == 0;
        if (!emptyInput && input.numel() == 0) {
            throw error("convolution", "Only zero batch or zero channel inputs are supported, but got input shape: " + Shapes.format(in));
        }
        if (weight.dtype() != input.dtype()) {
            throw error("convolution", "expected scalar type " + input.dtype().scalarTypeName() + " but found " + weight.dtype().scalarTypeName());
        }
        if (bias != null && bias.dtype() != input.dtype()) {
            throw error("convolution", "Input type (" + typeMetaName(input.dtype()) + ") and bias type (" + typeMetaName(bias.dtype()) + ") should be the same");
        }
        // ATen's CPU backends for what oneDNN doesn't take: slow_conv2d and slow_conv3d (all types but bool), slow_conv_dilated (floating and int64)
        boolean dilated = Arrays.stream(dilation).anyMatch(d -> d != 1);
        if (!emptyInput && (input.dtype() == DType.BOOL || dilated && input.dtype() == DType.INT32)) {
            String kernel = dilated ? "slow_conv_dilated<>" : dims == 3 ? "compute_columns3d" : "slow_conv2d_cpu";
            throw error("convolution", "\"" + kernel + "\" not implemented for '" + input.dtype().scalarTypeName() + "'");
        }
        // ATen's calc_output_size: an input without channels gives an output without channels
        if (dims == 2) {
            Conv2dGeometry g = Conv2dGeometry.of(in, weight.shape(), stride, padding, dilation, groups);
            return new Convolution(g, null, new int[] {g.batch(), in[1] == 0 ? 0 : g.outChannels(), g.outH(), g.outW()});
        }
        int[] w = weight.shape();
        int outD = Conv2dGeometry.outputSize(in[2], w[2], stride[0], padding[0], dilation[0]);
        Conv2dGeometry g = Conv2dGeometry.of(new int[] {in[0] * outD, in[1] * w[2], in[3], in[4]}, new int[] {w[0], w[1] * w[2], w[3], w[4]},
                Arrays.copyOfRange(stride, 1, 3), Arrays.copyOfRange(padding, 1, 3), Arrays.copyOfRange(dilation, 1, 3), groups);
        return new Convolution(g, new Conv3d.Depth(in[2], w[2], stride[0], padding[0], dilation[0], outD),
                new int[] {in[0], in[1] == 0 ? 0 : w[0], outD, g.outH(), g.outW()});
    }

    /** derivatives.yaml's convolution entry: convolution_backward, asked only for the gradients wanted. */
    private static Object[] convolutionBackward(Grad g) {
        boolean hasBias = g.isTensorArg(2);
        boolean[] mask = {g.needs(0), g.needs(1), hasBias && g.needs(2)};
        List<?> grads = (List<?>) g.call(ConvOps.CONVOLUTION_BACKWARD, g.grad(), g.arg(0), g.arg(1), hasBias ? g.argMeta(2).shape() : null,
                g.value(3), g.value(4), g.value(5), g.value(6), g.value(7), g.value(8), mask);
        return new Object[] {mask[0] ? grads.get(0) : null, mask[1] ? grads.get(1) : null, mask[2] ? grads.get(2) : null};
    }

    /**
     * convolution_backward's gradients, from its outputs' bilinearity: grad_output gets
     * {@code conv(ggI, W) + conv(I, ggW) + ggB} (per channel), the input gets the input gradient
     * of {@code conv(I, ggW)} and the weight the weight gradient of {@code conv(ggI, W)}, both
     * against grad_output (ggI, ggW, ggB: the gradients of its three outputs).
     */
    private static Object[] convolutionDoubleBackward(Grad g) {
        boolean[] mask = outputMask(g.value(10));
        Object ggI = mask[0] && g.hasGrad(0) ? g.grad(0) : null, ggW = mask[1] && g.hasGrad(1) ? g.grad(1) : null, ggB = mask[2] && g.hasGrad(2) ? g.grad(2) : null;
        Object gradOut = g.arg(0), input = g.arg(1), weight = g.arg(2);
        Object[] geometry = {g.value(4), g.value(5), g.value(6), g.value(7), g.value(8), g.value(9)};
        Object gO = null, gI = null, gW = null;
        if (g.needs(0)) {
            if (ggI != null) gO = g.call(ConvOps.CONVOLUTION, concat(ggI, weight, null, geometry));
            if (ggW != null) {
                Object t = g.call(ConvOps.CONVOLUTION, concat(input, ggW, null, geometry));
                gO = gO == null ? t : g.add(gO, t);
            }
            if (ggB != null) {
                int[] shape = g.argMeta(0).shape(), perChannel = new int[shape.length];
                Arrays.fill(perChannel, 1);
                perChannel[1] = shape[1];
                Object b = g.reshape(ggB, perChannel);
                gO = gO == null ? g.call(ShapeOps.EXPAND, b, shape) : g.add(gO, b);
            }
        }
        if (g.needs(1) && ggW != null) {
            gI = ((List<?>) g.call(ConvOps.CONVOLUTION_BACKWARD, concat(gradOut, input, ggW, null, geometry, new boolean[] {true, false, false}))).get(0);
        }
        if (g.needs(2) && ggI != null) {
            gW = ((List<?>) g.call(ConvOps.CONVOLUTION_BACKWARD, concat(gradOut, ggI, weight, null, geometry, new boolean[] {false, true, false}))).get(1);
        }
        return new Object[] {gO, gI, gW};
    }

    /** The values, with an {@code Object[]} among them spread in place. */
    private static Object[] concat(Object... parts) {
        java.util.ArrayList<Object> out = new java.util.ArrayList<>();
        for (Object p : parts) {
            if (p instanceof Object[] many) out.addAll(Arrays.asList(many));
            else out.add(p);
        }
        return out.toArray();
    }

    /** A {@code bool[3]} argument as given: {@code boolean[]} or a list of booleans. */
    private static boolean[] outputMask(Object v) {
        boolean[] mask = switch (v) {
            case boolean[] b -> b;
            case List<?> l -> {
                boolean[] b = new boolean[l.size()];
                for (int i = 0; i < b.length; i++) b[i] = (Boolean) l.get(i);
                yield b;
            }
            default -> throw error("convolution_backward", "output_mask must be a list of three bools, got " + v);
        };
        if (mask.length != 3) throw error("convolution_backward", "output_mask must be a list of three bools, got " + mask.length);
        return mask;
    }

    /** ATen's expand_param_if_needed: one value stands for all spatial dimensions. */
    private static int[] expandParam(String name, int[] values, int dims) {
        if (values.length == 1) {
            int[] out = new int[dims];
            Arrays.fill(out, values[0]);
            return out;
        }
        if (values.length != dims) {
            throw error("convolution", "expected " + name + " to be a single integer value or a list of " + dims
                    + " values to match the convolution dimensions, but got " + name + "=" + Shapes.format(values));
        }
        return values.clone();
    }

    private static void checkShapeForward(Tensor input, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation,
                                          int[] outputPadding, int groups) {
        int[] w = weight.shape(), in = input.shape();
        String ws = Shapes.format(w);
        if (Arrays.stream(padding).anyMatch(p -> p < 0)) throw error("convolution", "negative padding is not supported");
        if (Arrays.stream(outputPadding).anyMatch(p -> p < 0)) throw error("convolution", "negative output_padding is not supported");
        if (Arrays.stream(stride).anyMatch(s -> s <= 0)) throw error("convolution", "non-positive stride is not supported");
        if (Arrays.stream(dilation).anyMatch(d -> d < 0)) throw error("convolution", "dilation should be greater than zero");
        if (w.length != in.length) {
            throw error("convolution", "Expected " + w.length + "-dimensional input for " + w.length + "-dimensional weight " + ws
                    + ", but got " + in.length + "-dimensional input of size " + Shapes.format(in) + " instead");
        }
        if (w[0] < groups) {
            throw error("convolution", "Given groups=" + groups + ", expected weight to be at least " + groups + " at dimension 0, but got weight of size " + ws + " instead");
        }
        if (w[0] % groups != 0) {
            throw error("convolution", "Given groups=" + groups + ", expected weight to be divisible by " + groups + " at dimension 0, but got weight of size [" + ws + "] instead");
        }
        if (in[1] != w[1] * groups) {
            throw error("convolution", "Given groups=" + groups + ", weight of size " + ws + ", expected input" + Shapes.format(in) + " to have "
                    + w[1] * groups + " channels, but got " + in[1] + " channels instead");
        }
        if (bias != null && (bias.dim() != 1 || bias.size(0) != w[0])) {
            throw error("convolution", "Given weight of size " + ws + ", expected bias to be 1-dimensional with " + w[0]
                    + " elements, but got bias of size " + Shapes.format(bias.shape()) + " instead");
        }
        long[] padded = new long[in.length - 2], kernel = new long[in.length - 2];
        boolean fits = true;
        for (int d = 0; d < padded.length; d++) {
            padded[d] = in[d + 2] + 2L * padding[d];
            kernel[d] = (long) dilation[d] * (w[d + 2] - 1) + 1;
            if (padded[d] < kernel[d]) fits = false;
        }
        if (!fits) {
            throw error("convolution", "Calculated padded input size per channel: (" + join(padded) + "). Kernel size: (" + join(kernel)
                    + "). Kernel size can't be greater than actual input size");
        }
    }

    private static String join(long[] values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.length; i++) sb.append(i == 0 ? "" : " x ").append(values[i]);
        return sb.toString();
    }

    /** The unbatched input (of {@code dims} spatial dimensions) with a batch dimension of 1 in front (metadata only). */
    private static TensorMeta batchedMeta(Tensor input, int dims) {
        if (input.dim() == dims + 2) return input.meta();
        int[] shape = new int[dims + 2], strides = new int[dims + 2];
        shape[0] = 1;
        strides[0] = input.numel();
        System.arraycopy(input.shape(), 0, shape, 1, dims + 1);
        System.arraycopy(input.strides(), 0, strides, 1, dims + 1);
        return new TensorMeta(input.dtype(), shape, strides, input.storageOffset());
    }


    // ------------------------------------------------------------------ pooling

    /** A pooling parameter of one or two ints, as a pair. */
    private static int[] pair(String message, int[] values) {
        if (values.length == 1) return new int[] {values[0], values[0]};
        if (values.length != 2) throw new IllegalArgumentException(message);
        return values;
    }

    /** Output sizes and ATen's pool2d_shape_check. */
    private static PoolGeometry poolGeometry(Tensor self, int[] kernel, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        int[] s = self.shape();
        int n = s.length, planes = s[n - 3], h = s[n - 2], w = s[n - 1];
        int outH = PoolGeometry.outputSize(h, kernel[0], padding[0], stride[0], dilation[0], ceilMode);
        int outW = PoolGeometry.outputSize(w, kernel[1], padding[1], stride[1], dilation[1], ceilMode);
        if (kernel[0] <= 0 || kernel[1] <= 0) {
            throw new IllegalArgumentException("kernel size should be greater than zero, but got kH: " + kernel[0] + " kW: " + kernel[1]);
        }
        if (stride[0] <= 0 || stride[1] <= 0) {
            throw new IllegalArgumentException("stride should be greater than zero, but got dH: " + stride[0] + " dW: " + stride[1]);
        }
        if (dilation[0] <= 0 || dilation[1] <= 0) {
            throw new IllegalArgumentException("dilation should be greater than zero, but got dilationH: " + dilation[0] + " dilationW: " + dilation[1]);
        }
        boolean validDims = s[1] != 0 && s[2] != 0;
        if (!((n == 3 && s[0] != 0 && validDims) || (n == 4 && validDims && s[3] != 0))) {
            throw new IllegalArgumentException("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:" + Shapes.format(s));
        }
        if (kernel[1] / 2 < padding[1] || kernel[0] / 2 < padding[0]) { // the kernel, not the dilated one as in pooling_output_shape
            throw new IllegalArgumentException("pad should be smaller than or equal to half of kernel size, but got padW = " + padding[1]
                    + ", padH = " + padding[0] + ", kW = " + kernel[1] + ", kH = " + kernel[0]);
        }
        if (outH < 1 || outW < 1) {
            throw new IllegalArgumentException("Given input size: (" + planes + "x" + h + "x" + w + "). Calculated output size: ("
                    + planes + "x" + outH + "x" + outW + "). Output size is too small");
        }
        return new PoolGeometry(kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], h, w, outH, outW);
    }

    /** max_pool2d's checks on arguments 0-5 (self, kernel_size, stride, padding, dilation, ceil_mode), with its messages. */
    private static PoolGeometry maxPoolGeometry(Args a) {
        Tensor self = a.tensor(0);
        int[] kernel = pair("max_pool2d: kernel_size must either be a single int, or a tuple of two ints", a.ints(1));
        int[] stride = a.ints(2).length == 0 ? kernel : pair("max_pool2d: stride must either be omitted, a single int, or a tuple of two ints", a.ints(2));
        int[] padding = pair("max_pool2d: padding must either be a single int, or a tuple of two ints", a.ints(3));
        int[] dilation = pair("max_pool2d: dilation must be either a single int, or a tuple of two ints", a.ints(4));
        if (self.dim() != 3 && self.dim() != 4) {
            throw new IllegalArgumentException("max_pool2d: non-empty 3D or 4D (batch mode) tensor expected for input, but got " + Shapes.format(self.shape()));
        }
        PoolGeometry g = poolGeometry(self, kernel, stride, padding, dilation, a.bool(5));
        if (self.dtype() == DType.BOOL) throw notImplemented("max_pool2d", self.dtype());
        return g;
    }

    /** A max pool backward's indices: int64, the pooled output's shape. */
    private static void checkPoolIndices(String op, Tensor indices, TensorMeta pooled) {
        if (indices.dtype() != DType.INT64) {
            throw new IllegalArgumentException(op + ": expected indices to have dtype Long, but got " + indices.dtype().scalarTypeName());
        }
        if (!Arrays.equals(indices.shape(), pooled.shape())) {
            throw new IllegalArgumentException(op + ": expected indices of size " + Shapes.format(pooled.shape()) + " (the pooled output's), but got "
                    + Shapes.format(indices.shape()));
        }
    }

    /** A pooling backward's grad_output: the pooled output's shape and self's (floating) dtype. */
    private static void checkPoolGradient(String op, Tensor grad, Tensor self, TensorMeta pooled) {
        if (!Arrays.equals(grad.shape(), pooled.shape())) {
            throw new IllegalArgumentException(op + ": expected grad_output of size " + Shapes.format(pooled.shape()) + " (the pooled output's), but got "
                    + Shapes.format(grad.shape()));
        }
        if (grad.dtype() != self.dtype()) {
            throw new IllegalArgumentException(op + ": expected grad_output to have dtype " + self.dtype().scalarTypeName() + ", but got " + grad.dtype().scalarTypeName());
        }
        if (!self.dtype().isFloatingPoint()) throw notImplemented(op, self.dtype());
    }

    /** The geometry again in a kernel, from arguments its meta function already checked. */
    private static PoolGeometry geometryOf(Tensor self, Tensor out, int[] kernelSize, int[] strideArg, int[] paddingArg, int[] dilationArg) {
        int[] kernel = pair("", kernelSize), stride = strideArg.length == 0 ? kernel : pair("", strideArg);
        int[] padding = pair("", paddingArg), dilation = pair("", dilationArg);
        return new PoolGeometry(kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1],
                self.size(-2), self.size(-1), out.size(-2), out.size(-1));
    }

    private static TensorMeta pooledMeta(Tensor self, PoolGeometry g) {
        int[] shape = self.shape();
        shape[shape.length - 2] = g.outH();
        shape[shape.length - 1] = g.outW();
        return TensorMeta.contiguous(self.dtype(), shape);
    }

    /** A 3-d {@code [C, H, W]} tensor seen as {@code [1, C, H, W]}; 4-d ones as they are. */
    private static Tensor as4d(Tensor t) {
        if (t.dim() == 4) return t;
        int[] shape = {1, t.size(0), t.size(1), t.size(2)}, strides = {0, t.stride(0), t.stride(1), t.stride(2)};
        return t.viewAs(new TensorMeta(t.dtype(), shape, strides, t.storageOffset()));
    }

    /**
     * Any tensor of rank >= 2 as planes {@code [N, C, H, W]}: 4-d as it is, 3-d with {@code N = 1},
     * others as {@code [1, planes, H, W]} (5-d and up copied contiguous first to merge their leading dimensions).
     */
    private static Tensor planes4d(Tensor t) {
        if (t.dim() == 4 || t.dim() == 3) return as4d(t);
        int[] s = t.shape();
        int h = s[s.length - 2], w = s[s.length - 1], planes = Shapes.numel(Arrays.copyOf(s, s.length - 2));
        Tensor c = t;
        if (t.dim() > 4) {
            c = Tensor.allocate(TensorMeta.contiguous(t.dtype(), s));
            Copy.copy(t, c);
        }
        int[] strides = c.dim() == 2 ? new int[] {0, 0, c.stride(0), c.stride(1)} : new int[] {0, h * w, w, 1};
        return c.viewAs(new TensorMeta(c.dtype(), new int[] {1, planes, h, w}, strides, c.storageOffset()));
    }

    // ------------------------------------------------------------------ 3-d pooling

    /** A 3-d pooling parameter of one or three ints, as a triple. */
    private static int[] triple(String message, int[] values) {
        if (values.length == 1) return new int[] {values[0], values[0], values[0]};
        if (values.length != 3) throw new IllegalArgumentException(message);
        return values;
    }

    /** max_pool3d's checks on arguments 0-5 (self, kernel_size, stride, padding, dilation, ceil_mode), with ATen's messages. */
    private static Pool3d.Window maxPool3dWindow(Args a) {
        int[] kernel = triple("max_pool3d: kernel_size must either be a single int, or a tuple of three ints", a.ints(1));
        int[] stride = a.ints(2).length == 0 ? kernel : triple("max_pool3d: stride must either be omitted, a single int, or a tuple of three ints", a.ints(2));
        int[] padding = triple("max_pool3d: padding must either be a single int, or a tuple of three ints", a.ints(3));
        int[] dilation = triple("max_pool3d: dilation must be either a single int, or a tuple of three ints", a.ints(4));
        Tensor self = a.tensor(0);
        Pool3d.Window w = pool3dWindow("max_pool3d_with_indices_out_cpu_template()", self, kernel, stride, padding, dilation, a.bool(5), false);
        if (self.dtype() == DType.BOOL) throw notImplemented("max_pool3d", self.dtype());
        return w;
    }

    /** avg_pool3d's checks on arguments 0-6 (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override). */
    private static Pool3d.Window avgPool3dWindow(Args a) {
        int[] kernel = triple("avg_pool3d: kernel_size must be a single int, or a tuple of three ints", a.ints(1));
        int[] stride = a.ints(2).length == 0 ? kernel : triple("avg_pool3d: stride must be omitted, a single int, or a tuple of three ints", a.ints(2));
        int[] padding = triple("avg_pool3d: padding must be a single int, or a tuple of three ints", a.ints(3));
        Integer divisor = a.optInteger(6);
        if (divisor != null && divisor == 0) throw new IllegalArgumentException("avg_pool3d: divisor must be not zero");
        return pool3dWindow("avg_pool3d()", a.tensor(0), kernel, stride, padding, new int[] {1, 1, 1}, a.bool(4), true);
    }

    /** Output sizes and ATen's pool3d_shape_check ({@code checkInputSize}: avg_pool3d's kernel-fits-the-input check). */
    private static Pool3d.Window pool3dWindow(String fn, Tensor self, int[] kernel, int[] stride, int[] padding, int[] dilation, boolean ceilMode,
                                              boolean checkInputSize) {
        int[] s = self.shape();
        int n = s.length;
        if (n != 4 && n != 5) throw new IllegalArgumentException("non-empty 4D or 5D (batch mode) tensor expected for input");
        int[] in = Arrays.copyOfRange(s, n - 3, n), out = new int[3];
        for (int d = 0; d < 3; d++) out[d] = PoolGeometry.outputSize(in[d], kernel[d], padding[d], stride[d], dilation[d], ceilMode);
        if (kernel[0] <= 0 || kernel[1] <= 0 || kernel[2] <= 0) {
            throw new IllegalArgumentException("kernel size should be greater than zero, but got kT: " + kernel[0] + " kH: " + kernel[1] + " kW: " + kernel[2]);
        }
        if (stride[0] <= 0 || stride[1] <= 0 || stride[2] <= 0) {
            throw new IllegalArgumentException("stride should be greater than zero, but got dT: " + stride[0] + " dH: " + stride[1] + " dW: " + stride[2]);
        }
        if (dilation[0] <= 0 || dilation[1] <= 0 || dilation[2] <= 0) {
            throw new IllegalArgumentException("dilation should be greater than zero, but got dilationT: " + dilation[0] + " dilationH: " + dilation[1]
                    + " dilationW: " + dilation[2]);
        }
        for (int i = n == 5 ? 1 : 0; i < n; i++) {
            if (s[i] <= 0) {
                throw new IllegalArgumentException(fn + ": Expected input's non-batch dimensions to have positive length, but input has a shape of "
                        + Shapes.format(s) + " and non-batch dimension " + s[i] + " has length zero!");
            }
        }
        if (checkInputSize && (in[0] < kernel[0] || in[1] < kernel[1] || in[2] < kernel[2])) {
            throw new IllegalArgumentException("input image (T: " + in[0] + " H: " + in[1] + " W: " + in[2] + ") smaller than kernel size (kT: " + kernel[0]
                    + " kH: " + kernel[1] + " kW: " + kernel[2] + ")");
        }
        if (kernel[0] / 2 < padding[0] || kernel[2] / 2 < padding[2] || kernel[1] / 2 < padding[1]) {
            throw new IllegalArgumentException("pad should be smaller than or equal to half of kernel size, but got kT: " + kernel[0] + " kW: " + kernel[2]
                    + " kH: " + kernel[1] + " padT: " + padding[0] + " padW: " + padding[2] + " padH: " + padding[1]);
        }
        int planes = s[n - 4];
        if (out[0] < 1 || out[1] < 1 || out[2] < 1) {
            throw new IllegalArgumentException("Given input size: (" + planes + "x" + in[0] + "x" + in[1] + "x" + in[2] + "). Calculated output size: ("
                    + planes + "x" + out[0] + "x" + out[1] + "x" + out[2] + "). Output size is too small");
        }
        return new Pool3d.Window(kernel, stride, padding, dilation, in, out);
    }

    private static TensorMeta pooled3dMeta(Tensor self, Pool3d.Window w) {
        int[] shape = self.shape();
        System.arraycopy(w.out(), 0, shape, shape.length - 3, 3);
        return TensorMeta.contiguous(self.dtype(), shape);
    }

    private static int[] lastThree(int[] shape) { return Arrays.copyOfRange(shape, shape.length - 3, shape.length); }

    /** A shape with its last three (pooled) dims merged into one. */
    private static int[] flatVolumes(int[] shape) {
        int n = shape.length;
        int[] flat = Arrays.copyOf(shape, n - 2);
        flat[n - 3] = shape[n - 3] * shape[n - 2] * shape[n - 1];
        return flat;
    }

    private static IllegalArgumentException notImplemented(String kernel, DType dtype) {
        return error(kernel, "\"" + kernel + "\" not implemented for '" + dtype.scalarTypeName() + "'");
    }
}
