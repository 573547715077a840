package dev.ember.testing;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.Arrays;

/**
 * libtorch, in-process, as the reference for Ember's ops: DJL's PyTorch engine loading the
 * {@code pytorch-native-cpu} jar (see the Surefire configuration in the root pom for what it
 * needs offline).
 *
 * <ul>
 *   <li>{@link #manager()} — one {@link NDManager} for the whole test JVM, created (and libtorch
 *       loaded) on first use. Arrays made in it live until the JVM exits; a test that makes many
 *       or big arrays should work in a {@link #scope()} instead.
 *   <li>{@link #toNd(Tensor)} / {@link #fromNd(NDArray)} — copies between Ember tensors and DJL
 *       arrays keeping dtype (float32, float64, int32, int64, bool) and shape, 0-d and zero-size
 *       included; any strides on the Ember side, row-major contiguous on the DJL side.
 *   <li>{@link #call(String, Object...)} — any ATen op, exactly as PyTorch runs it, written as a
 *       TorchScript expression over the arguments {@code a, b, c, …}:
 *       {@code Torch.call("torch.var(a, [1], correction=0, keepdim=True)", x)}. See
 *       {@code README.md} in this package for every op Ember checks and how to compute it.
 * </ul>
 */
public final class Torch {
    private Torch() {}

    private static final class Holder {
        static final NDManager MANAGER = NDManager.newBaseManager("PyTorch");
    }

    /** The shared manager of the test JVM; loads libtorch on first use. */
    public static NDManager manager() {
        return Holder.MANAGER;
    }

    /** A sub-manager of {@link #manager()} to close when done: {@code try (var m = Torch.scope()) {…}}. */
    public static NDManager scope() {
        return manager().newSubManager();
    }

    /** The version of the loaded libtorch, e.g. {@code 2.7.1}. */
    public static String version() {
        manager();
        return Engine.getEngine("PyTorch").getVersion();
    }

    /**
     * Evaluates one TorchScript expression with libtorch; the arguments are bound, in order, to
     * {@code a, b, c, …} and typed from their Java class: an {@link NDArray} or Ember tensor is a
     * {@code Tensor}, {@code Integer}/{@code Long} an {@code int}, {@code Float}/{@code Double} a
     * {@code float}, {@code Boolean} a {@code bool}, {@code String} a {@code str}, {@code int[]}/
     * {@code long[]} a {@code List[int]}, {@code double[]} a {@code List[float]}, an array or
     * collection of tensors a {@code List[Tensor]}. Write {@code None} and other constants inline.
     * The expression may also be a multi-line body ending in {@code return …}.
     *
     * <p>Ops are spelled as in PyTorch's serialized TorchScript: {@code torch.<op>(…)} for every
     * ATen op (including the {@code torch.nn.functional} ones: {@code torch.gelu},
     * {@code torch.conv2d}, {@code torch.scaled_dot_product_attention}, …), tensor methods, or
     * {@code ops.aten.<op>(…)}; not {@code torch.nn.functional.*} and not overload names
     * ({@code ops.aten.var.correction}): libtorch picks the overload from the arguments. Pass
     * tensor lists as a {@code List}: Java spreads a {@code Tensor[]} into separate arguments.
     *
     * @return the single tensor result, attached to the manager of the first {@link NDArray}
     *     argument, or to {@link #manager()} if there is none
     */
    public static NDArray call(String expr, Object... args) {
        NDList out = callList(expr, args);
        if (out.size() != 1) throw new IllegalStateException(expr + " returned " + out.size() + " tensors; use callList");
        return out.head();
    }

    /** As {@link #call(String, Object...)}, attaching the result to {@code target}. */
    public static NDArray call(NDManager target, String expr, Object... args) {
        NDList out = callList(target, expr, args);
        if (out.size() != 1) throw new IllegalStateException(expr + " returned " + out.size() + " tensors; use callList");
        return out.head();
    }

    /**
     * As {@link #call(String, Object...)} for ops returning several tensors: a list or tuple of
     * tensors is flattened in order ({@code split}, {@code chunk}, {@code torch.max(a, 1)}, …);
     * int/float/bool results become 0-d int64/float64/bool arrays.
     */
    public static NDList callList(String expr, Object... args) {
        return callList(targetOf(args), expr, args);
    }

    /** As {@link #callList(String, Object...)}, attaching the results to {@code target}. */
    public static NDList callList(NDManager target, String expr, Object... args) {
        return TorchScript.call(target, expr, args, Torch::convertArgument);
    }

    /**
     * As {@link #callList(NDManager, String, Object...)} with libtorch's grad mode on: the
     * expression may make leaves ({@code a.detach().requires_grad_(True)}) and call
     * {@code torch.autograd.grad(outputs, inputs, grad_outputs)} (grad_outputs typed
     * {@code List[Optional[Tensor]]}).
     */
    public static NDList callListWithGrad(NDManager target, String expr, Object... args) {
        return TorchScript.call(target, expr, args, Torch::convertArgument, true);
    }

    private static NDManager targetOf(Object[] args) {
        for (Object a : args) {
            if (a instanceof NDArray nd) return nd.getManager();
        }
        return manager();
    }

    private static NDArray convertArgument(NDManager m, Object arg) {
        return arg instanceof Tensor t ? toNd(m, t) : null;
    }

    // ------------------------------------------------------------------ conversions

    /** A copy of {@code t} in the shared manager: same dtype, shape and (row-major) values. */
    /**
     * A refusal's whole text: the exception's message and its causes' (libtorch's own words, ATen's
     * "RuntimeError: …", are in the cause of the harness's exception).
     */
    public static String refusalText(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) sb.append(c.getMessage()).append('\n');
        return sb.toString();
    }

    public static NDArray toNd(Tensor t) {
        return toNd(manager(), t);
    }

    /** A copy of {@code t} attached to {@code m}: same dtype, shape and (row-major) values. */
    public static NDArray toNd(NDManager m, Tensor t) {
        Shape shape = new Shape(Arrays.stream(t.shape()).asLongStream().toArray());
        NDArray nd = switch (t.dtype()) {
            case FLOAT32 -> m.create(t.toFloatArray(), shape);
            case FLOAT64 -> m.create(t.toDoubleArray(), shape);
            case INT32 -> m.create(t.toIntArray(), shape);
            case INT64 -> m.create(t.toLongArray(), shape);
            case BOOL -> m.create(t.toBooleanArray(), shape);
        };
        if (nd.getDataType() != dataType(t.dtype()) || !nd.getShape().equals(shape)) {
            throw new IllegalStateException("DJL made a " + nd.getDataType() + nd.getShape() + " array of a " + t.dtype() + Arrays.toString(t.shape()) + " tensor");
        }
        return nd;
    }

    /** A new Ember tensor with {@code nd}'s dtype, shape and values (in row-major order). */
    public static Tensor fromNd(NDArray nd) {
        int[] shape = shape(nd);
        return switch (dtype(nd.getDataType())) {
            case FLOAT32 -> Tensor.of(nd.toFloatArray(), shape);
            case FLOAT64 -> Tensor.of(nd.toDoubleArray(), shape);
            case INT32 -> Tensor.of(nd.toIntArray(), shape);
            case INT64 -> Tensor.of(nd.toLongArray(), shape);
            case BOOL -> Tensor.of(nd.toBooleanArray(), shape);
        };
    }

    /** {@code nd}'s shape as Ember spells shapes. */
    public static int[] shape(NDArray nd) {
        long[] s = nd.getShape().getShape();
        int[] out = new int[s.length];
        for (int i = 0; i < s.length; i++) out[i] = Math.toIntExact(s[i]);
        return out;
    }

    /** The DJL data type of an Ember dtype. */
    public static DataType dataType(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> DataType.FLOAT32;
            case FLOAT64 -> DataType.FLOAT64;
            case INT32 -> DataType.INT32;
            case INT64 -> DataType.INT64;
            case BOOL -> DataType.BOOLEAN;
        };
    }

    /** The Ember dtype of a DJL data type; throws for types Ember lacks (float16, uint8, …). */
    public static DType dtype(DataType type) {
        return switch (type) {
            case FLOAT32 -> DType.FLOAT32;
            case FLOAT64 -> DType.FLOAT64;
            case INT32 -> DType.INT32;
            case INT64 -> DType.INT64;
            case BOOLEAN -> DType.BOOL;
            default -> throw new IllegalArgumentException("Ember has no dtype for DJL's " + type);
        };
    }
}
