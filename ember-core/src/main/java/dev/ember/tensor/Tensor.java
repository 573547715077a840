package dev.ember.tensor;

import dev.ember.autograd.Autograd;
import dev.ember.autograd.AutogradMeta;
import dev.ember.autograd.Node;
import dev.ember.ops.BucketizeOps;
import dev.ember.ops.CountingOps;
import dev.ember.ops.CreationOps;
import dev.ember.ops.DistanceOps;
import dev.ember.ops.MathOps;
import dev.ember.ops.IndexingOps;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.LuOps;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.ScanOps;
import dev.ember.ops.ScatterOps;
import dev.ember.ops.ScatterReduceOps;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.SortOps;

import java.util.Arrays;
import java.util.List;

/**
 * An n-dimensional array: a dtype, a shape, strides and an offset into a {@link Storage} that
 * views share. Every operation is an op of the {@link OpRegistry} ({@code aten.add.Tensor}, …):
 * the methods here only name the op and pass the arguments, so eager code, tracing and the
 * compiler see exactly the same ops.
 *
 * <p>Semantics are ATen's: broadcasting, type promotion, Java {@code double} scalars as Python
 * floats and {@code long}/{@code int} scalars as Python ints, 0-d and zero-size tensors.
 *
 * <p>Names follow ATen's: {@code add_} writes into this tensor (ATen's {@code add_}), and
 * {@code addOut(other, out)} writes into {@code out} and returns it (ATen's {@code add.out},
 * PyTorch's {@code torch.add(a, b, out=out)}): the op's name plus {@code Out}, {@code out} always
 * the last argument. An out= call allocates nothing; {@code out} must already have the result's
 * shape (Ember does not resize it), a dtype the result can be cast to, and share no memory with an
 * input unless it is that very input (docs/tensors.md).
 */
public class Tensor {
    private final Storage storage;
    private final DType dtype;
    private final int[] shape;
    private final int[] strides;
    private final int offset;
    private boolean requiresGrad;
    /** The tensor whose storage this view sees (null when it is not a view). */
    private Tensor base;
    /** Made by {@link #detach()}: it sees {@link #base}'s storage but is no part of its autograd history. */
    private boolean detached;
    /**
     * The version counter of a tensor made by {@link #data()} and of its views: its own, so writes
     * through it are invisible to autograd's saved-tensor checks (PyTorch's {@code .data}); null
     * for every other tensor, which counts in its storage's.
     */
    private int[] ownVersion;
    /** The storage's version when this view's autograd history was last made (autograd remakes it after an in-place write through another alias). */
    private int viewVersion;
    /** Autograd's state beyond the flag (gradFn, grad, …); null until autograd first touches the tensor. */
    private AutogradMeta autograd;

    protected Tensor(Storage storage, DType dtype, int[] shape, int[] strides, int offset) {
        this.storage = storage;
        this.dtype = dtype;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
    }

    /** A new contiguous tensor owning fresh zeroed storage. */
    public static Tensor allocate(TensorMeta meta) {
        int n = meta.numel();
        if (meta.isContiguous() && meta.storageOffset() == 0) {
            return new Tensor(new Storage(meta.dtype(), n), meta.dtype(), meta.shape().clone(), meta.strides().clone(), 0);
        }
        int[] shape = meta.shape().clone();
        return new Tensor(new Storage(meta.dtype(), n), meta.dtype(), shape, Shapes.contiguousStrides(shape), 0);
    }

    public static Tensor allocate(DType dtype, int... shape) {
        return allocate(TensorMeta.contiguous(dtype, shape));
    }

    /**
     * A new contiguous tensor whose elements are undefined: for a kernel that writes every element
     * before anything reads one (a pointwise op's or a reduction's result), which then skips the
     * zeroing a fresh array costs or takes a recycled one as it is (see {@link Allocation}, and
     * {@code -Dember.alloc.poison=true}, which fills such tensors with NaN to catch a kernel that
     * breaks that promise). Never the default: a kernel opts in here, at its allocation.
     */
    public static Tensor allocateUninitialized(TensorMeta meta) {
        int[] shape = meta.shape().clone();
        int[] strides = meta.isContiguous() && meta.storageOffset() == 0 ? meta.strides().clone() : Shapes.contiguousStrides(shape);
        return new Tensor(Storage.uninitialized(meta.dtype(), meta.numel()), meta.dtype(), shape, strides, 0);
    }

    /** A tensor seeing {@code storage} through the given geometry (no copy). */
    public static Tensor wrap(Storage storage, int[] shape, int[] strides, int offset) {
        checkGeometry(storage.length(), shape, strides, offset);
        return new Tensor(storage, storage.dtype(), shape.clone(), strides.clone(), offset);
    }

    /** A view of this tensor's storage with other geometry (what view ops return). */
    public Tensor viewAs(TensorMeta meta) {
        requireData("view");
        checkGeometry(storage.length(), meta.shape(), meta.strides(), meta.storageOffset());
        Tensor v = new Tensor(storage, dtype, meta.shape().clone(), meta.strides().clone(), meta.storageOffset());
        v.base = base != null ? base : this;
        v.ownVersion = ownVersion;
        v.viewVersion = version();
        return v;
    }

    private static void checkGeometry(int storageLength, int[] shape, int[] strides, int offset) {
        if (shape.length != strides.length) throw new IllegalArgumentException("shape " + Shapes.format(shape) + " and strides " + Shapes.format(strides) + " differ in rank");
        long max = offset;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) throw new IllegalArgumentException("negative dimension in shape " + Shapes.format(shape));
            if (shape[i] == 0) return;
            max += (long) (shape[i] - 1) * strides[i];
        }
        if (offset < 0 || max >= Math.max(storageLength, 1) && Shapes.numel(shape) > 0 && max >= storageLength) {
            throw new IllegalArgumentException("geometry shape=" + Shapes.format(shape) + " strides=" + Shapes.format(strides) + " offset=" + offset
                    + " reaches past a storage of " + storageLength + " elements");
        }
    }

    // ------------------------------------------------------------------ metadata

    public int[] shape() { return shape.clone(); }

    /** The size of dimension {@code d} (negative counts from the end). */
    public int size(int d) { return shape[Shapes.wrapDim("size", d, shape.length)]; }

    public int[] strides() { return strides.clone(); }

    public int stride(int d) { return strides[Shapes.wrapDim("stride", d, shape.length)]; }

    public int storageOffset() { return offset; }

    public int dim() { return shape.length; }

    public int numel() { return Shapes.numel(shape); }

    public DType dtype() { return dtype; }

    public Device device() { return Device.CPU; }

    public boolean isContiguous() { return Shapes.isContiguous(shape, strides); }

    public boolean isFake() { return false; }

    public TensorMeta meta() { return new TensorMeta(dtype, shape.clone(), strides.clone(), offset); }

    /** The shared storage; {@code null} for a fake tensor. */
    public Storage storage() { return storage; }

    /** Counts in-place writes to this tensor's storage (shared with its views; a {@link #data()} alias counts its own). */
    public int version() { return ownVersion != null ? ownVersion[0] : storage == null ? 0 : storage.version(); }

    /** Counts an in-place write to this tensor: what every in-place and out= kernel calls after writing. */
    public void bumpVersion() {
        if (ownVersion != null) ownVersion[0]++;
        else storage.bumpVersion();
    }

    public boolean requiresGrad() { return requiresGrad; }

    /**
     * Makes this leaf tensor require (or stop requiring) gradients: recorded ops on it then build
     * the autograd graph that {@link #backward()} walks. Only floating point leaves can; a computed
     * tensor's flag follows from its inputs ({@link #detach()} makes a leaf of it).
     */
    public Tensor requiresGrad(boolean value) {
        if (value && !dtype.isFloatingPoint()) throw new IllegalArgumentException("only floating point tensors can require gradients, got " + dtype);
        if (!value && gradFn() != null) {
            throw new IllegalStateException("you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                    + "in a subgraph that doesn't require differentiation use varNoGrad = var.detach(). (" + meta().describe() + ", grad_fn=" + gradFn().name() + ")");
        }
        this.requiresGrad = value;
        return this;
    }

    // ------------------------------------------------------------------ autograd

    /** The node that made this tensor (PyTorch's {@code grad_fn}); null for a leaf. */
    public Node gradFn() { return autograd == null ? null : autograd.gradFn(); }

    /** True for a tensor no recorded op made: user-created tensors, parameters, detached tensors. */
    public boolean isLeaf() { return gradFn() == null; }

    /**
     * The gradient {@link #backward()} accumulated into this leaf (or into a non-leaf that called
     * {@link #retainGrad()}); null before any.
     */
    public Tensor grad() { return autograd == null ? null : autograd.grad(); }

    /** Replaces (or with null clears) the accumulated gradient, as PyTorch's {@code t.grad = g}; it must match this tensor's shape. */
    public void setGrad(Tensor gradient) { Autograd.setGrad(this, gradient); }

    /** Keeps this non-leaf's gradient in {@link #grad()} at the next backward (leaves always keep theirs). */
    public Tensor retainGrad() { Autograd.retainGrad(this); return this; }

    /**
     * PyTorch's {@code register_hook}: {@code hook} sees this tensor's gradient each time a backward
     * computes it, before it is used; a tensor it returns (same shape) replaces the gradient, null
     * keeps it. {@code remove()} on the handle takes the hook off.
     */
    public Autograd.HookHandle registerHook(java.util.function.UnaryOperator<Tensor> hook) { return Autograd.registerHook(this, hook); }

    /** The gradients of this scalar with respect to every leaf that requires grad, added into their {@link #grad()}. */
    public void backward() { Autograd.backward(List.of(this), null, false, false); }

    /** {@link #backward()} from a non-scalar, given the gradient of whatever this feeds (its shape). */
    public void backward(Tensor gradient) { Autograd.backward(List.of(this), gradient == null ? null : List.of(gradient), false, false); }

    /** Keeps the graph's saved tensors with {@code retainGraph}, so backward can run through it again. */
    public void backward(Tensor gradient, boolean retainGraph) { Autograd.backward(List.of(this), gradient == null ? null : List.of(gradient), retainGraph, false); }

    /** With {@code createGraph}, the backward computation is recorded too: gradients of gradients. */
    public void backward(Tensor gradient, boolean retainGraph, boolean createGraph) {
        Autograd.backward(List.of(this), gradient == null ? null : List.of(gradient), retainGraph || createGraph, createGraph);
    }

    /** A new leaf sharing this tensor's data (and its version counter) that does not require grad. */
    public Tensor detach() {
        Tensor d = new Tensor(storage, dtype, shape.clone(), strides.clone(), offset);
        d.base = base != null ? base : this;
        d.detached = true;
        d.ownVersion = ownVersion;
        return d;
    }

    /**
     * PyTorch's {@code .data}: like {@link #detach()} a leaf sharing this tensor's elements that does
     * not require grad, but with a version counter of its own, so an in-place write through it (an
     * optimizer's update, a weight re-initialization) is not seen by autograd: a backward that saved
     * this tensor runs with the new values instead of refusing. Prefer {@code detach()} (whose writes
     * backward does check) unless that silence is what you want.
     */
    public Tensor data() {
        Tensor d = detach();
        d.ownVersion = new int[] {0};
        return d;
    }

    /** Makes this tensor a leaf that does not require grad, in place. */
    public Tensor detach_() {
        if (isView() && requiresGrad && gradFn() != null) {
            throw new IllegalStateException("Can't detach views in-place. Use detach() instead. (" + meta().describe() + ")");
        }
        if (autograd != null) autograd = null;
        requiresGrad = false;
        return this;
    }

    /** True when this tensor sees another tensor's storage (a view op or {@link #detach()} made it). */
    public boolean isView() { return base != null; }

    /** The tensor whose storage this view sees, or null. */
    public Tensor viewBase() { return base; }

    /**
     * True for a view whose gradient flows to its base (what view ops make; not {@link #detach()}):
     * an in-place op on it changes its base's autograd history, and an in-place op on its base or on
     * another of its views changes its own (PyTorch's differentiable views).
     */
    public boolean isDifferentiableView() { return base != null && !detached; }

    /** The storage version at which autograd last made this view's history; autograd's door. */
    public int viewVersion() { return viewVersion; }

    /** Records that this view's history is current at the storage's present version; autograd's door. */
    public void markViewHistoryCurrent() { viewVersion = version(); }

    /** Autograd's state for this tensor, made on first use; autograd's own door. */
    public AutogradMeta autogradMeta() {
        if (autograd == null) autograd = new AutogradMeta();
        return autograd;
    }

    private void requireData(String what) {
        if (storage == null) throw new IllegalStateException(what + ": " + this + " is a fake tensor and has no data");
    }

    // ------------------------------------------------------------------ creation

    public static Tensor zeros(int... shape) { return CreationOps.ZEROS.callTensor(shape); }

    public static Tensor zeros(DType dtype, int... shape) { return CreationOps.ZEROS.callTensor(shape, dtype); }

    public static Tensor ones(int... shape) { return CreationOps.ONES.callTensor(shape); }

    public static Tensor ones(DType dtype, int... shape) { return CreationOps.ONES.callTensor(shape, dtype); }

    public static Tensor full(double value, int... shape) { return CreationOps.FULL.callTensor(shape, value); }

    public static Tensor full(DType dtype, double value, int... shape) { return CreationOps.FULL.callTensor(shape, value, dtype); }

    /** torch.full(size, fill_value)'s order: {@code Tensor.full(new int[] {2, 3}, 1.5)}. */
    public static Tensor full(int[] shape, double value) { return full(value, shape); }

    /** torch.full(size, fill_value, dtype=…)'s order. */
    public static Tensor full(int[] shape, double value, DType dtype) { return full(dtype, value, shape); }

    public static Tensor empty(int... shape) { return CreationOps.EMPTY.callTensor(shape); }

    public static Tensor empty(DType dtype, int... shape) { return CreationOps.EMPTY.callTensor(shape, dtype); }

    /** {@code [0, 1, …, end-1]} as int64. */
    public static Tensor arange(long end) { return CreationOps.ARANGE.callTensor(0L, end, 1L); }

    public static Tensor arange(double start, double end, double step) { return CreationOps.ARANGE.callTensor(start, end, step); }

    public static Tensor arange(long start, long end, long step) { return CreationOps.ARANGE.callTensor(start, end, step); }

    public static Tensor linspace(double start, double end, int steps) { return CreationOps.LINSPACE.callTensor(start, end, (long) steps); }

    public static Tensor eye(int n) { return CreationOps.EYE.callTensor((long) n); }

    public static Tensor eye(DType dtype, int n) { return CreationOps.EYE.callTensor((long) n, dtype); }

    /** Uniform on [0, 1) from the global generator. */
    public static Tensor rand(int... shape) { return CreationOps.RAND.callTensor(shape); }

    public static Tensor rand(Generator g, int... shape) { return CreationOps.RAND.callTensor(shape, g); }

    /** Standard normal from the global generator. */
    public static Tensor randn(int... shape) { return CreationOps.RANDN.callTensor(shape); }

    public static Tensor randn(Generator g, int... shape) { return CreationOps.RANDN.callTensor(shape, g); }

    /** Integers uniform on [low, high) as int64. */
    public static Tensor randint(long low, long high, int... shape) { return CreationOps.RANDINT.callTensor(low, high, shape); }

    /** A random permutation of 0 … n-1, int64 (torch.randperm): {@code x.index(Tensor.randperm(n))} shuffles rows. */
    public static Tensor randperm(int n) { return CreationOps.RANDPERM.callTensor((long) n); }

    public static Tensor randperm(Generator g, int n) { return CreationOps.RANDPERM.callTensor((long) n, g); }

    /** 1 with probability given by each element, else 0 (torch.bernoulli). */
    public Tensor bernoulli() { return CreationOps.BERNOULLI.callTensor(this); }

    /** 1 with probability {@code p} everywhere, in this tensor's shape and dtype. */
    public Tensor bernoulli(double p) { return CreationOps.BERNOULLI_P.callTensor(this, p); }

    /** {@code numSamples} category indices per row of these weights, without replacement (torch.multinomial). */
    public Tensor multinomial(int numSamples) { return CreationOps.MULTINOMIAL.callTensor(this, (long) numSamples); }

    public Tensor multinomial(int numSamples, boolean replacement) { return CreationOps.MULTINOMIAL.callTensor(this, (long) numSamples, replacement); }

    public static Tensor randint(Generator g, long low, long high, int... shape) { return CreationOps.RANDINT.callTensor(low, high, shape, g); }

    /** Seeds the global generator (PyTorch's {@code torch.manual_seed}). */
    public static void manualSeed(long seed) { Generator.global().manualSeed(seed); }

    /** The global generator's state (PyTorch's {@code torch.get_rng_state}): see {@link Generator#getState}. */
    public static Tensor getRngState() { return Generator.global().getState(); }

    /** Puts the global generator back into a state {@link #getRngState} returned (PyTorch's {@code torch.set_rng_state}). */
    public static void setRngState(Tensor state) { Generator.global().setState(state); }

    public static Tensor zerosLike(Tensor t) { return zeros(t.dtype, t.shape); }

    public static Tensor onesLike(Tensor t) { return ones(t.dtype, t.shape); }

    public static Tensor fullLike(Tensor t, double value) { return full(t.dtype, value, t.shape); }

    public static Tensor randnLike(Tensor t) { return CreationOps.RANDN.callTensor(t.shape, null, t.dtype); }

    /** Uniform [0, 1) draws of t's shape and (floating) dtype: torch.rand_like, the numbers rand(t.shape()) draws. */
    public static Tensor randLike(Tensor t) { return dev.ember.ops.FactoryLikeOps.RAND_LIKE.callTensor(t, null); }

    /** Integers drawn uniformly from [0, high), of t's shape and dtype (torch.randint_like). */
    public static Tensor randintLike(Tensor t, long high) { return dev.ember.ops.FactoryLikeOps.RANDINT_LIKE.callTensor(t, high, null); }

    /** Integers drawn uniformly from [low, high), of t's shape and dtype (torch.randint_like). */
    public static Tensor randintLike(Tensor t, long low, long high) { return dev.ember.ops.FactoryLikeOps.RANDINT_LIKE_LOW.callTensor(t, low, high, null); }

    /** A 0-d tensor holding {@code value} in the default dtype (torch.scalar_tensor). */
    public static Tensor scalarTensor(double value) { return dev.ember.ops.FactoryLikeOps.SCALAR_TENSOR.callTensor(value, null); }

    /** A 0-d tensor holding {@code value} in {@code dtype} (torch.scalar_tensor). */
    public static Tensor scalarTensor(double value, DType dtype) { return dev.ember.ops.FactoryLikeOps.SCALAR_TENSOR.callTensor(value, dtype); }

    /** Zeros of {@code size} laid out with {@code stride} (torch.empty_strided; Ember's empty memory is zeroed). */
    public static Tensor emptyStrided(int[] size, int[] stride, DType dtype) { return dev.ember.ops.FactoryLikeOps.EMPTY_STRIDED.callTensor(size, stride, dtype); }

    /** {@link #emptyStrided} in this tensor's dtype (x.new_empty_strided). */
    public Tensor newEmptyStrided(int[] size, int[] stride) { return dev.ember.ops.FactoryLikeOps.NEW_EMPTY_STRIDED.callTensor(this, size, stride, null); }

    /** Zeros of {@code size} whose dims lie in memory in the order {@code physicalLayout} (torch.empty_permuted; last entry innermost). */
    public static Tensor emptyPermuted(int[] size, int[] physicalLayout, DType dtype) {
        return dev.ember.ops.FactoryLikeOps.EMPTY_PERMUTED.callTensor(size, physicalLayout, dtype);
    }

    public static Tensor of(float[] data, int... shape) { return fromArray(DType.FLOAT32, data.clone(), shape); }

    public static Tensor of(double[] data, int... shape) { return fromArray(DType.FLOAT64, data.clone(), shape); }

    public static Tensor of(int[] data, int... shape) { return fromArray(DType.INT32, data.clone(), shape); }

    public static Tensor of(long[] data, int... shape) { return fromArray(DType.INT64, data.clone(), shape); }

    public static Tensor of(boolean[] data, int... shape) {
        byte[] b = new byte[data.length];
        for (int i = 0; i < data.length; i++) b[i] = (byte) (data[i] ? 1 : 0);
        return fromArray(DType.BOOL, b, shape);
    }

    /** A 1-d float32 tensor: {@code Tensor.of(1f, 2f, 3f)}. */
    public static Tensor of(float... data) { return of(data, data.length); }

    /** A 1-d float64 tensor. */
    public static Tensor of(double... data) { return of(data, data.length); }

    /** A 1-d int64 tensor (Java ints are PyTorch ints, which are int64). */
    public static Tensor ofLongs(long... data) { return of(data, data.length); }

    /**
     * A tensor from a (nested) Java array, like {@code torch.tensor([[1, 2], [3, 4]])}:
     * {@code float[][]} gives float32, {@code double[]} float64, {@code int[]} int32,
     * {@code long[]} int64, {@code boolean[]} bool. Ragged arrays are rejected.
     */
    public static Tensor tensor(Object nested) { return Literals.fromNested(nested); }

    /** A 0-d tensor. A Java {@code double} gives the default dtype, like {@code torch.tensor(2.5)}. */
    public static Tensor scalar(double value) { return full(Defaults.dtype(), value); }

    public static Tensor scalar(long value) { return CreationOps.FULL.callTensor(new int[0], value, DType.INT64); }

    public static Tensor scalar(boolean value) { return CreationOps.FULL.callTensor(new int[0], value, DType.BOOL); }

    static Tensor fromArray(DType dtype, Object data, int[] shape) {
        int n = Shapes.numel(shape);
        int len = java.lang.reflect.Array.getLength(data);
        if (n != len) throw new IllegalArgumentException("data of " + len + " elements cannot have shape " + Shapes.format(shape) + " (" + n + " elements)");
        return new Tensor(new Storage(dtype, data), dtype, shape.clone(), Shapes.contiguousStrides(shape), 0);
    }

    // ------------------------------------------------------------------ reading data

    /** The value of a one-element tensor (any shape with one element), as a double. */
    public double item() {
        requireData("item");
        if (numel() != 1) throw new IllegalArgumentException("item: a Tensor with " + numel() + " elements cannot be converted to a scalar (shape " + Shapes.format(shape) + ")");
        return storage.readDouble(offset);
    }

    /** The value of a one-element integral tensor, exact for int64. */
    public long longItem() {
        requireData("longItem");
        if (numel() != 1) throw new IllegalArgumentException("longItem: a Tensor with " + numel() + " elements cannot be converted to a scalar (shape " + Shapes.format(shape) + ")");
        return storage.readLong(offset);
    }

    /** Python's {@code bool(t)}: true when the single element is non-zero. Data-dependent. */
    public boolean asBoolean() {
        requireData("asBoolean");
        if (numel() != 1) throw new IllegalArgumentException("Boolean value of Tensor with " + numel() + " elements is ambiguous (shape " + Shapes.format(shape) + ")");
        return storage.readDouble(offset) != 0;
    }

    /** The element at {@code index}, as a double. */
    public double get(int... index) {
        requireData("get");
        return storage.readDouble(flatOffset(index));
    }

    private int flatOffset(int[] index) {
        if (index.length != shape.length) throw new IllegalArgumentException("index of " + index.length + " dims into a tensor of " + shape.length + " dims " + Shapes.format(shape));
        int off = offset;
        for (int d = 0; d < index.length; d++) {
            int i = index[d] < 0 ? index[d] + shape[d] : index[d];
            if (i < 0 || i >= shape[d]) throw new IndexOutOfBoundsException("index " + index[d] + " is out of bounds for dimension " + d + " with size " + shape[d]);
            off += i * strides[d];
        }
        return off;
    }

    /** The elements in row-major order, converted to float. */
    public float[] toFloatArray() { return (float[]) contiguousData(DType.FLOAT32); }

    public double[] toDoubleArray() { return (double[]) contiguousData(DType.FLOAT64); }

    public int[] toIntArray() { return (int[]) contiguousData(DType.INT32); }

    public long[] toLongArray() { return (long[]) contiguousData(DType.INT64); }

    public boolean[] toBooleanArray() {
        byte[] b = (byte[]) contiguousData(DType.BOOL);
        boolean[] out = new boolean[b.length];
        for (int i = 0; i < b.length; i++) out[i] = b[i] != 0;
        return out;
    }

    /** A fresh array of this tensor's elements in row-major order, converted to {@code target}. */
    private Object contiguousData(DType target) {
        requireData("reading data");
        Tensor out = allocate(target, shape);
        dev.ember.ops.eager.Copy.copy(this, out);   // reading data is not an op autograd records
        return out.storage.data();
    }

    // ------------------------------------------------------------------ arithmetic

    public Tensor add(Tensor other) { return PointwiseOps.ADD_TENSOR.callTensor(this, other); }

    /** {@code this + alpha * other} */
    public Tensor add(Tensor other, double alpha) { return PointwiseOps.ADD_TENSOR.callTensor(this, other, alpha); }

    public Tensor add(double other) { return PointwiseOps.ADD_SCALAR.callTensor(this, other); }

    public Tensor add(long other) { return PointwiseOps.ADD_SCALAR.callTensor(this, other); }

    public Tensor sub(Tensor other) { return PointwiseOps.SUB_TENSOR.callTensor(this, other); }

    public Tensor sub(Tensor other, double alpha) { return PointwiseOps.SUB_TENSOR.callTensor(this, other, alpha); }

    public Tensor sub(double other) { return PointwiseOps.SUB_SCALAR.callTensor(this, other); }

    public Tensor sub(long other) { return PointwiseOps.SUB_SCALAR.callTensor(this, other); }

    /** {@code other - this} (Python's {@code other - t}). */
    public Tensor rsub(double other) { return PointwiseOps.RSUB_SCALAR.callTensor(this, other); }

    public Tensor mul(Tensor other) { return PointwiseOps.MUL_TENSOR.callTensor(this, other); }

    public Tensor mul(double other) { return PointwiseOps.MUL_SCALAR.callTensor(this, other); }

    public Tensor mul(long other) { return PointwiseOps.MUL_SCALAR.callTensor(this, other); }

    /** True division: integer inputs give a floating result. */
    public Tensor div(Tensor other) { return PointwiseOps.DIV_TENSOR.callTensor(this, other); }

    public Tensor div(double other) { return PointwiseOps.DIV_SCALAR.callTensor(this, other); }

    /** Division with rounding: {@code "trunc"} or {@code "floor"}. */
    public Tensor div(Tensor other, String roundingMode) { return PointwiseOps.DIV_TENSOR_MODE.callTensor(this, other, roundingMode); }

    public Tensor div(double other, String roundingMode) { return PointwiseOps.DIV_SCALAR_MODE.callTensor(this, other, roundingMode); }

    public Tensor floorDivide(Tensor other) { return PointwiseOps.FLOOR_DIVIDE.callTensor(this, other); }

    public Tensor floorDivide(double other) { return PointwiseOps.FLOOR_DIVIDE_SCALAR.callTensor(this, other); }

    public Tensor floorDivide(long other) { return PointwiseOps.FLOOR_DIVIDE_SCALAR.callTensor(this, other); }

    /** Python's {@code %}: the remainder takes the divisor's sign ({@code -3 % 5 == 2}); an integer zero divisor throws ZeroDivisionError. */
    public Tensor remainder(Tensor other) { return PointwiseOps.REMAINDER_TENSOR.callTensor(this, other); }

    public Tensor remainder(double other) { return PointwiseOps.REMAINDER_SCALAR.callTensor(this, other); }

    public Tensor remainder(long other) { return PointwiseOps.REMAINDER_SCALAR.callTensor(this, other); }

    /** {@code torch.remainder(self, other)} with a number as the dividend. */
    public static Tensor remainder(double self, Tensor other) { return PointwiseOps.REMAINDER_SCALAR_TENSOR.callTensor(self, other); }

    public static Tensor remainder(long self, Tensor other) { return PointwiseOps.REMAINDER_SCALAR_TENSOR.callTensor(self, other); }

    /** C's {@code fmod}: the remainder takes the dividend's sign ({@code fmod(-3, 5) == -3}); an integer zero divisor throws ZeroDivisionError. */
    public Tensor fmod(Tensor other) { return PointwiseOps.FMOD_TENSOR.callTensor(this, other); }

    public Tensor fmod(double other) { return PointwiseOps.FMOD_SCALAR.callTensor(this, other); }

    public Tensor fmod(long other) { return PointwiseOps.FMOD_SCALAR.callTensor(this, other); }

    public Tensor pow(Tensor exponent) { return PointwiseOps.POW_TENSOR_TENSOR.callTensor(this, exponent); }

    public Tensor pow(double exponent) { return PointwiseOps.POW_TENSOR_SCALAR.callTensor(this, exponent); }

    public Tensor maximum(Tensor other) { return PointwiseOps.MAXIMUM.callTensor(this, other); }

    public Tensor minimum(Tensor other) { return PointwiseOps.MINIMUM.callTensor(this, other); }

    public Tensor neg() { return PointwiseOps.NEG.callTensor(this); }

    public Tensor abs() { return PointwiseOps.ABS.callTensor(this); }

    public Tensor exp() { return PointwiseOps.EXP.callTensor(this); }

    public Tensor log() { return PointwiseOps.LOG.callTensor(this); }

    public Tensor log1p() { return PointwiseOps.LOG1P.callTensor(this); }

    public Tensor sqrt() { return PointwiseOps.SQRT.callTensor(this); }

    public Tensor rsqrt() { return PointwiseOps.RSQRT.callTensor(this); }

    public Tensor sin() { return PointwiseOps.SIN.callTensor(this); }

    public Tensor cos() { return PointwiseOps.COS.callTensor(this); }

    public Tensor tanh() { return PointwiseOps.TANH.callTensor(this); }

    public Tensor sigmoid() { return PointwiseOps.SIGMOID.callTensor(this); }

    /** The error function, elementwise (integer inputs give float32). */
    public Tensor erf() { return PointwiseOps.ERF.callTensor(this); }

    /** {@code 1 − erf(self)}, accurate where erf is near 1. */
    public Tensor erfc() { return MathOps.ERFC.callTensor(this); }

    /** The inverse error function (±inf at ±1, NaN outside [−1, 1]). */
    public Tensor erfinv() { return MathOps.ERFINV.callTensor(this); }

    /** {@code log|Γ(self)|}. */
    public Tensor lgamma() { return MathOps.LGAMMA.callTensor(this); }

    /** ψ(self), the logarithmic derivative of Γ. */
    public Tensor digamma() { return MathOps.DIGAMMA.callTensor(this); }

    /** The n-th derivative of digamma (n = 0 or 1 for now). */
    public Tensor polygamma(int n) { return MathOps.POLYGAMMA.callTensor((long) n, this); }

    /** The largest integral value ≤ each element; integers come back unchanged. */
    public Tensor floor() { return PointwiseOps.FLOOR.callTensor(this); }

    public Tensor floor_() { return PointwiseOps.FLOOR_.callTensor(this); }

    /** The smallest integral value ≥ each element; integers come back unchanged. */
    public Tensor ceil() { return PointwiseOps.CEIL.callTensor(this); }

    public Tensor ceil_() { return PointwiseOps.CEIL_.callTensor(this); }

    /** Rounded half to even (torch.round: 0.5 → 0, 1.5 → 2); integers come back unchanged. */
    public Tensor round() { return PointwiseOps.ROUND.callTensor(this); }

    /** Rounded half to even to {@code decimals} places (negative: to tens, hundreds, …). */
    public Tensor round(int decimals) { return PointwiseOps.ROUND_DECIMALS.callTensor(this, (long) decimals); }

    public Tensor round_() { return PointwiseOps.ROUND_.callTensor(this); }

    /** Rounded toward zero; integers come back unchanged. */
    public Tensor trunc() { return PointwiseOps.TRUNC.callTensor(this); }

    public Tensor trunc_() { return PointwiseOps.TRUNC_.callTensor(this); }

    /** {@code x − trunc(x)} (floating dtypes). */
    public Tensor frac() { return PointwiseOps.FRAC.callTensor(this); }

    /** −1, 0 or 1 in this dtype (NaN gives 0). */
    public Tensor sign() { return PointwiseOps.SIGN.callTensor(this); }

    public Tensor sign_() { return PointwiseOps.SIGN_.callTensor(this); }

    /** {@code 1 / x}, in floating point. */
    public Tensor reciprocal() { return PointwiseOps.RECIPROCAL.callTensor(this); }

    public Tensor reciprocal_() { return PointwiseOps.RECIPROCAL_.callTensor(this); }

    /** {@code x * x}, as {@code pow(x, 2)}. */
    public Tensor square() { return PointwiseOps.SQUARE.callTensor(this); }

    public Tensor tan() { return PointwiseOps.TAN.callTensor(this); }

    public Tensor atan() { return PointwiseOps.ATAN.callTensor(this); }

    public Tensor asin() { return PointwiseOps.ASIN.callTensor(this); }

    public Tensor acos() { return PointwiseOps.ACOS.callTensor(this); }

    public Tensor sinh() { return PointwiseOps.SINH.callTensor(this); }

    public Tensor cosh() { return PointwiseOps.COSH.callTensor(this); }

    public Tensor asinh() { return PointwiseOps.ASINH.callTensor(this); }

    /** Inverse hyperbolic cosine: NaN below 1. */
    public Tensor acosh() { return PointwiseOps.ACOSH.callTensor(this); }

    /** Inverse hyperbolic tangent: ±inf at ±1, NaN beyond. */
    public Tensor atanh() { return PointwiseOps.ATANH.callTensor(this); }

    /** {@code e^x − 1}, accurate near 0. */
    public Tensor expm1() { return PointwiseOps.EXPM1.callTensor(this); }

    /** {@code 2^x}. */
    public Tensor exp2() { return PointwiseOps.EXP2.callTensor(this); }

    public Tensor log2() { return PointwiseOps.LOG2.callTensor(this); }

    public Tensor log10() { return PointwiseOps.LOG10.callTensor(this); }

    /** The angle of the point (other, this) in radians, broadcast: {@code torch.atan2(this, other)}. */
    public Tensor atan2(Tensor other) { return PointwiseOps.ATAN2.callTensor(this, other); }

    /** True where an element is NaN. */
    public Tensor isnan() { return PointwiseOps.ISNAN.callTensor(this); }

    /** True where an element is +inf or −inf. */
    public Tensor isinf() { return PointwiseOps.ISINF.callTensor(this); }

    public Tensor isposinf() { return PointwiseOps.ISPOSINF.callTensor(this); }

    public Tensor isneginf() { return PointwiseOps.ISNEGINF.callTensor(this); }

    /** True where an element is neither NaN nor infinite. */
    public Tensor isfinite() { return PointwiseOps.ISFINITE.callTensor(this); }

    /** NaN → 0, ±inf → the dtype's largest/lowest finite value. */
    public Tensor nanToNum() { return PointwiseOps.NAN_TO_NUM.callTensor(this); }

    /** NaN → {@code nan}, +inf → {@code posinf}, −inf → {@code neginf}; a null bound keeps the default (the dtype's extreme). */
    public Tensor nanToNum(double nan, Double posinf, Double neginf) { return PointwiseOps.NAN_TO_NUM.callTensor(this, nan, posinf, neginf); }

    /** {@code bool(this) != bool(other)}, broadcast. */
    public Tensor logicalXor(Tensor other) { return PointwiseOps.LOGICAL_XOR.callTensor(this, other); }

    /** Bitwise and of integer or bool tensors (floats are refused), with broadcasting: torch.bitwise_and. */
    public Tensor bitwiseAnd(Tensor other) { return PointwiseOps.BITWISE_AND_TENSOR.callTensor(this, other); }

    public Tensor bitwiseAnd(long other) { return PointwiseOps.BITWISE_AND_SCALAR.callTensor(this, other); }

    public Tensor bitwiseOr(Tensor other) { return PointwiseOps.BITWISE_OR_TENSOR.callTensor(this, other); }

    public Tensor bitwiseOr(long other) { return PointwiseOps.BITWISE_OR_SCALAR.callTensor(this, other); }

    public Tensor bitwiseXor(Tensor other) { return PointwiseOps.BITWISE_XOR_TENSOR.callTensor(this, other); }

    public Tensor bitwiseXor(long other) { return PointwiseOps.BITWISE_XOR_SCALAR.callTensor(this, other); }

    /** {@code ~x} of an integer tensor; of a bool tensor, its logical not. */
    public Tensor bitwiseNot() { return PointwiseOps.BITWISE_NOT.callTensor(this); }

    public Tensor relu() { return PointwiseOps.RELU.callTensor(this); }

    /** GELU with the exact erf form. */
    public Tensor gelu() { return PointwiseOps.GELU.callTensor(this); }

    /** GELU with {@code approximate} = {@code "none"} or {@code "tanh"}. */
    public Tensor gelu(String approximate) { return PointwiseOps.GELU.callTensor(this, approximate); }

    public Tensor silu() { return PointwiseOps.SILU.callTensor(this); }

    /** Clamps to [min, max]; either bound may be null. */
    public Tensor clamp(Double min, Double max) { return PointwiseOps.CLAMP.callTensor(this, min, max); }

    public Tensor clamp(Tensor min, Tensor max) { return PointwiseOps.CLAMP_TENSOR.callTensor(this, min, max); }

    public Tensor clampMin(double min) { return clamp(min, null); }

    public Tensor clampMax(double max) { return clamp(null, max); }

    /** Elements of this where {@code condition} holds, else of {@code other}. */
    public Tensor where(Tensor condition, Tensor other) { return PointwiseOps.WHERE_SELF.callTensor(condition, this, other); }

    public static Tensor where(Tensor condition, Tensor self, Tensor other) { return PointwiseOps.WHERE_SELF.callTensor(condition, self, other); }

    public static Tensor where(Tensor condition, Tensor self, double other) { return PointwiseOps.WHERE_SCALAR_OTHER.callTensor(condition, self, other); }

    public static Tensor where(Tensor condition, Tensor self, long other) { return PointwiseOps.WHERE_SCALAR_OTHER.callTensor(condition, self, other); }

    public static Tensor where(Tensor condition, double self, Tensor other) { return PointwiseOps.WHERE_SCALAR_SELF.callTensor(condition, self, other); }

    public static Tensor where(Tensor condition, long self, Tensor other) { return PointwiseOps.WHERE_SCALAR_SELF.callTensor(condition, self, other); }

    public static Tensor where(Tensor condition, double self, double other) { return PointwiseOps.WHERE_SCALAR.callTensor(condition, self, other); }

    public static Tensor where(Tensor condition, long self, long other) { return PointwiseOps.WHERE_SCALAR.callTensor(condition, self, other); }

    public Tensor maskedFill(Tensor mask, double value) { return PointwiseOps.MASKED_FILL_SCALAR.callTensor(this, mask, value); }

    public Tensor maskedFill(Tensor mask, Tensor value) { return PointwiseOps.MASKED_FILL_TENSOR.callTensor(this, mask, value); }

    // ------------------------------------------------------------------ comparison and logic

    public Tensor eq(Tensor other) { return PointwiseOps.EQ_TENSOR.callTensor(this, other); }

    public Tensor eq(double other) { return PointwiseOps.EQ_SCALAR.callTensor(this, other); }

    public Tensor ne(Tensor other) { return PointwiseOps.NE_TENSOR.callTensor(this, other); }

    public Tensor ne(double other) { return PointwiseOps.NE_SCALAR.callTensor(this, other); }

    public Tensor lt(Tensor other) { return PointwiseOps.LT_TENSOR.callTensor(this, other); }

    public Tensor lt(double other) { return PointwiseOps.LT_SCALAR.callTensor(this, other); }

    public Tensor le(Tensor other) { return PointwiseOps.LE_TENSOR.callTensor(this, other); }

    public Tensor le(double other) { return PointwiseOps.LE_SCALAR.callTensor(this, other); }

    public Tensor gt(Tensor other) { return PointwiseOps.GT_TENSOR.callTensor(this, other); }

    public Tensor gt(double other) { return PointwiseOps.GT_SCALAR.callTensor(this, other); }

    public Tensor ge(Tensor other) { return PointwiseOps.GE_TENSOR.callTensor(this, other); }

    public Tensor ge(double other) { return PointwiseOps.GE_SCALAR.callTensor(this, other); }

    public Tensor logicalAnd(Tensor other) { return PointwiseOps.LOGICAL_AND.callTensor(this, other); }

    public Tensor logicalOr(Tensor other) { return PointwiseOps.LOGICAL_OR.callTensor(this, other); }

    public Tensor logicalNot() { return PointwiseOps.LOGICAL_NOT.callTensor(this); }

    // ------------------------------------------------------------------ in place (bump the version counter)

    public Tensor add_(Tensor other) { return PointwiseOps.ADD__TENSOR.callTensor(this, other); }

    public Tensor add_(Tensor other, double alpha) { return PointwiseOps.ADD__TENSOR.callTensor(this, other, alpha); }

    public Tensor add_(double other) { return PointwiseOps.ADD__SCALAR.callTensor(this, other); }

    public Tensor add_(long other) { return PointwiseOps.ADD__SCALAR.callTensor(this, other); }

    public Tensor sub_(Tensor other) { return PointwiseOps.SUB__TENSOR.callTensor(this, other); }

    public Tensor sub_(double other) { return PointwiseOps.SUB__SCALAR.callTensor(this, other); }

    public Tensor mul_(Tensor other) { return PointwiseOps.MUL__TENSOR.callTensor(this, other); }

    public Tensor mul_(double other) { return PointwiseOps.MUL__SCALAR.callTensor(this, other); }

    public Tensor div_(Tensor other) { return PointwiseOps.DIV__TENSOR.callTensor(this, other); }

    public Tensor div_(double other) { return PointwiseOps.DIV__SCALAR.callTensor(this, other); }

    public Tensor floorDivide_(Tensor other) { return PointwiseOps.FLOOR_DIVIDE__TENSOR.callTensor(this, other); }

    public Tensor remainder_(Tensor other) { return PointwiseOps.REMAINDER__TENSOR.callTensor(this, other); }

    public Tensor remainder_(double other) { return PointwiseOps.REMAINDER__SCALAR.callTensor(this, other); }

    public Tensor fmod_(Tensor other) { return PointwiseOps.FMOD__TENSOR.callTensor(this, other); }

    public Tensor fmod_(double other) { return PointwiseOps.FMOD__SCALAR.callTensor(this, other); }

    public Tensor neg_() { return PointwiseOps.NEG_.callTensor(this); }

    public Tensor abs_() { return PointwiseOps.ABS_.callTensor(this); }

    public Tensor exp_() { return PointwiseOps.EXP_.callTensor(this); }

    public Tensor sqrt_() { return PointwiseOps.SQRT_.callTensor(this); }

    /** In place: {@code self ** exponent}, the result cast back to self's dtype where ATen allows it. */
    public Tensor pow_(double exponent) { return PointwiseOps.POW__SCALAR.callTensor(this, exponent); }

    /** In place: {@code self ** exponent}, exponent broadcast to self's shape. */
    public Tensor pow_(Tensor exponent) { return PointwiseOps.POW__TENSOR.callTensor(this, exponent); }

    public Tensor tanh_() { return PointwiseOps.TANH_.callTensor(this); }

    public Tensor sigmoid_() { return PointwiseOps.SIGMOID_.callTensor(this); }

    // in-place unary math: the op written into this tensor (floating dtypes only, except bitwiseNot_ on integers and bools)
    public Tensor log_() { return PointwiseOps.LOG_.callTensor(this); }

    public Tensor log1p_() { return PointwiseOps.LOG1P_.callTensor(this); }

    public Tensor log2_() { return PointwiseOps.LOG2_.callTensor(this); }

    public Tensor log10_() { return PointwiseOps.LOG10_.callTensor(this); }

    public Tensor exp2_() { return PointwiseOps.EXP2_.callTensor(this); }

    public Tensor expm1_() { return PointwiseOps.EXPM1_.callTensor(this); }

    public Tensor rsqrt_() { return PointwiseOps.RSQRT_.callTensor(this); }

    public Tensor sin_() { return PointwiseOps.SIN_.callTensor(this); }

    public Tensor cos_() { return PointwiseOps.COS_.callTensor(this); }

    public Tensor tan_() { return PointwiseOps.TAN_.callTensor(this); }

    public Tensor asin_() { return PointwiseOps.ASIN_.callTensor(this); }

    public Tensor acos_() { return PointwiseOps.ACOS_.callTensor(this); }

    public Tensor atan_() { return PointwiseOps.ATAN_.callTensor(this); }

    public Tensor sinh_() { return PointwiseOps.SINH_.callTensor(this); }

    public Tensor cosh_() { return PointwiseOps.COSH_.callTensor(this); }

    public Tensor asinh_() { return PointwiseOps.ASINH_.callTensor(this); }

    public Tensor acosh_() { return PointwiseOps.ACOSH_.callTensor(this); }

    public Tensor atanh_() { return PointwiseOps.ATANH_.callTensor(this); }

    public Tensor erf_() { return PointwiseOps.ERF_.callTensor(this); }

    public Tensor square_() { return PointwiseOps.SQUARE_.callTensor(this); }

    public Tensor bitwiseNot_() { return PointwiseOps.BITWISE_NOT_.callTensor(this); }

    public Tensor bitwiseAnd_(Tensor other) { return PointwiseOps.BITWISE_AND__TENSOR.callTensor(this, other); }

    public Tensor bitwiseAnd_(long other) { return PointwiseOps.BITWISE_AND__SCALAR.callTensor(this, other); }

    public Tensor bitwiseOr_(Tensor other) { return PointwiseOps.BITWISE_OR__TENSOR.callTensor(this, other); }

    public Tensor bitwiseOr_(long other) { return PointwiseOps.BITWISE_OR__SCALAR.callTensor(this, other); }

    public Tensor bitwiseXor_(Tensor other) { return PointwiseOps.BITWISE_XOR__TENSOR.callTensor(this, other); }

    public Tensor bitwiseXor_(long other) { return PointwiseOps.BITWISE_XOR__SCALAR.callTensor(this, other); }

    /** {@code this += value · tensor1 · tensor2}, in place (optimizers' addcmul_). */
    public Tensor addcmul_(Tensor tensor1, Tensor tensor2, double value) { return PointwiseOps.ADDCMUL_.callTensor(this, tensor1, tensor2, value); }

    /** {@code this += value · tensor1 / tensor2}, in place. */
    public Tensor addcdiv_(Tensor tensor1, Tensor tensor2, double value) { return PointwiseOps.ADDCDIV_.callTensor(this, tensor1, tensor2, value); }

    /** {@code this += weight · (end - this)}, in place, with lerp's two exact branches. */
    public Tensor lerp_(Tensor end, double weight) { return PointwiseOps.LERP__SCALAR.callTensor(this, end, weight); }

    public Tensor lerp_(Tensor end, Tensor weight) { return PointwiseOps.LERP__TENSOR.callTensor(this, end, weight); }

    public Tensor relu_() { return PointwiseOps.RELU_.callTensor(this); }

    public Tensor clamp_(Double min, Double max) { return PointwiseOps.CLAMP_.callTensor(this, min, max); }

    /** Clamps in place to tensor bounds (broadcast to this tensor's shape); either may be null. */
    public Tensor clamp_(Tensor min, Tensor max) { return PointwiseOps.CLAMP__TENSOR.callTensor(this, min, max); }

    public Tensor fill_(double value) { return PointwiseOps.FILL_SCALAR.callTensor(this, value); }

    public Tensor zero_() { return PointwiseOps.ZERO_.callTensor(this); }

    /** Copies {@code src} (broadcast, converted to this dtype) into this tensor. */
    public Tensor copy_(Tensor src) { return ShapeOps.COPY_.callTensor(this, src); }

    public Tensor maskedFill_(Tensor mask, double value) { return PointwiseOps.MASKED_FILL__SCALAR.callTensor(this, mask, value); }

    // ------------------------------------------------------------------ out= (write into a given tensor, return it)

    /** {@code out = this + other}, into {@code out}; returns {@code out}. */
    public Tensor addOut(Tensor other, Tensor out) { return PointwiseOps.ADD_OUT.callTensor(this, other, 1L, out); }

    /** {@code out = this + alpha * other}, into {@code out}; returns {@code out}. */
    public Tensor addOut(Tensor other, double alpha, Tensor out) { return PointwiseOps.ADD_OUT.callTensor(this, other, alpha, out); }

    public Tensor subOut(Tensor other, Tensor out) { return PointwiseOps.SUB_OUT.callTensor(this, other, 1L, out); }

    /** {@code out = this - alpha * other}, into {@code out}; returns {@code out}. */
    public Tensor subOut(Tensor other, double alpha, Tensor out) { return PointwiseOps.SUB_OUT.callTensor(this, other, alpha, out); }

    public Tensor mulOut(Tensor other, Tensor out) { return PointwiseOps.MUL_OUT.callTensor(this, other, out); }

    /** True division into {@code out} (a floating out for integer inputs). */
    public Tensor divOut(Tensor other, Tensor out) { return PointwiseOps.DIV_OUT.callTensor(this, other, out); }

    /** Division with rounding ({@code "trunc"} or {@code "floor"}) into {@code out}. */
    public Tensor divOut(Tensor other, String roundingMode, Tensor out) { return PointwiseOps.DIV_OUT_MODE.callTensor(this, other, roundingMode, out); }

    public Tensor floorDivideOut(Tensor other, Tensor out) { return PointwiseOps.FLOOR_DIVIDE_OUT.callTensor(this, other, out); }

    public Tensor remainderOut(Tensor other, Tensor out) { return PointwiseOps.REMAINDER_TENSOR_OUT.callTensor(this, other, out); }

    public Tensor fmodOut(Tensor other, Tensor out) { return PointwiseOps.FMOD_TENSOR_OUT.callTensor(this, other, out); }

    /** {@code out = -this}; out must have this tensor's dtype, as in ATen. */
    public Tensor negOut(Tensor out) { return PointwiseOps.NEG_OUT.callTensor(this, out); }

    /** {@code out = |this|}; out must have this tensor's dtype, as in ATen. */
    public Tensor absOut(Tensor out) { return PointwiseOps.ABS_OUT.callTensor(this, out); }

    public Tensor expOut(Tensor out) { return PointwiseOps.EXP_OUT.callTensor(this, out); }

    public Tensor sqrtOut(Tensor out) { return PointwiseOps.SQRT_OUT.callTensor(this, out); }

    public Tensor tanhOut(Tensor out) { return PointwiseOps.TANH_OUT.callTensor(this, out); }

    public Tensor sigmoidOut(Tensor out) { return PointwiseOps.SIGMOID_OUT.callTensor(this, out); }

    public Tensor logOut(Tensor out) { return PointwiseOps.LOG_OUT.callTensor(this, out); }

    public Tensor log1pOut(Tensor out) { return PointwiseOps.LOG1P_OUT.callTensor(this, out); }

    public Tensor rsqrtOut(Tensor out) { return PointwiseOps.RSQRT_OUT.callTensor(this, out); }

    public Tensor sinOut(Tensor out) { return PointwiseOps.SIN_OUT.callTensor(this, out); }

    public Tensor cosOut(Tensor out) { return PointwiseOps.COS_OUT.callTensor(this, out); }

    /** Clamps into {@code out}, which must have the result's dtype (as in ATen); either bound may be null. */
    public Tensor clampOut(Double min, Double max, Tensor out) { return PointwiseOps.CLAMP_OUT.callTensor(this, min, max, out); }

    public Tensor clampOut(Tensor min, Tensor max, Tensor out) { return PointwiseOps.CLAMP_TENSOR_OUT.callTensor(this, min, max, out); }

    public Tensor maximumOut(Tensor other, Tensor out) { return PointwiseOps.MAXIMUM_OUT.callTensor(this, other, out); }

    public Tensor minimumOut(Tensor other, Tensor out) { return PointwiseOps.MINIMUM_OUT.callTensor(this, other, out); }

    // ------------------------------------------------------------------ reductions

    public Tensor sum() { return ReductionOps.SUM.callTensor(this); }

    /** The sum along {@code dim}, which goes away ({@code keepdim} false, as torch's {@code x.sum(dim)}). */
    public Tensor sum(int dim) { return sum(dim, false); }

    public Tensor sum(int dim, boolean keepdim) { return ReductionOps.SUM_DIM.callTensor(this, new int[] {dim}, keepdim); }

    public Tensor sum(int[] dims, boolean keepdim) { return ReductionOps.SUM_DIM.callTensor(this, dims, keepdim); }

    /** The product of all elements (1 for none); integer and bool tensors multiply to int64. */
    public Tensor prod() { return ReductionOps.PROD.callTensor(this); }

    /** The product along {@code dim}, which goes away (torch's {@code x.prod(dim)}). */
    public Tensor prod(int dim) { return prod(dim, false); }

    public Tensor prod(int dim, boolean keepdim) { return ReductionOps.PROD_DIM.callTensor(this, (long) dim, keepdim); }

    public Tensor mean() { return ReductionOps.MEAN.callTensor(this); }

    /** The mean along {@code dim}, which goes away (torch's {@code x.mean(dim)}). */
    public Tensor mean(int dim) { return mean(dim, false); }

    public Tensor mean(int dim, boolean keepdim) { return ReductionOps.MEAN_DIM.callTensor(this, new int[] {dim}, keepdim); }

    public Tensor mean(int[] dims, boolean keepdim) { return ReductionOps.MEAN_DIM.callTensor(this, dims, keepdim); }

    /** The maximum over all elements; NaN when any element is NaN. */
    public Tensor amax() { return ReductionOps.AMAX.callTensor(this); }

    /** The maximum over all elements, as torch's {@code x.max()}: {@link #amax()}. */
    public Tensor max() { return amax(); }

    /**
     * torch's {@code x.max(dim)}: [values, indices] of the largest element along {@code dim}, which
     * goes away; the index is the first maximum's (NaN counts as largest), and the values' gradient
     * goes to it alone.
     */
    public List<Tensor> max(int dim) { return max(dim, false); }

    public List<Tensor> max(int dim, boolean keepdim) { return ReductionOps.MAX_DIM.callList(this, (long) dim, keepdim); }

    /** The maximum along {@code dim}, which goes away (torch's {@code x.amax(dim)}). */
    public Tensor amax(int dim) { return amax(dim, false); }

    public Tensor amax(int dim, boolean keepdim) { return ReductionOps.AMAX.callTensor(this, new int[] {dim}, keepdim); }

    public Tensor amax(int[] dims, boolean keepdim) { return ReductionOps.AMAX.callTensor(this, dims, keepdim); }

    public Tensor amin() { return ReductionOps.AMIN.callTensor(this); }

    /** The minimum over all elements, as torch's {@code x.min()}: {@link #amin()}. */
    public Tensor min() { return amin(); }

    /** torch's {@code x.min(dim)}: [values, indices] of the smallest element along {@code dim}, as {@link #max(int)}. */
    public List<Tensor> min(int dim) { return min(dim, false); }

    public List<Tensor> min(int dim, boolean keepdim) { return ReductionOps.MIN_DIM.callList(this, (long) dim, keepdim); }

    /** The minimum along {@code dim}, which goes away (torch's {@code x.amin(dim)}). */
    public Tensor amin(int dim) { return amin(dim, false); }

    public Tensor amin(int dim, boolean keepdim) { return ReductionOps.AMIN.callTensor(this, new int[] {dim}, keepdim); }

    public Tensor amin(int[] dims, boolean keepdim) { return ReductionOps.AMIN.callTensor(this, dims, keepdim); }

    /** Running sums along {@code dim}; integer and bool inputs sum to int64. */
    public Tensor cumsum(int dim) { return ScanOps.CUMSUM.callTensor(this, (long) dim); }

    /** Running sums along {@code dim}, the input first converted to {@code dtype}. */
    public Tensor cumsum(int dim, DType dtype) { return ScanOps.CUMSUM.callTensor(this, (long) dim, dtype); }

    /** Running maxima along {@code dim} and the index of each (the last of equal values): {@code [values, indices]}, torch's {@code cummax}. */
    public List<Tensor> cummax(int dim) { return ScanOps.CUMMAX.callList(this, (long) dim); }

    /** Running minima along {@code dim} and the index of each: {@code [values, indices]}, torch's {@code cummin}. */
    public List<Tensor> cummin(int dim) { return ScanOps.CUMMIN.callList(this, (long) dim); }

    /** {@code log(cumsum(exp(self)))} along {@code dim}, computed without overflow. */
    public Tensor logcumsumexp(int dim) { return ScanOps.LOGCUMSUMEXP.callTensor(this, (long) dim); }

    public Tensor cumsumOut(int dim, Tensor out) { return ScanOps.CUMSUM_OUT.callTensor(this, (long) dim, null, out); }

    /** Running products along {@code dim}; integer and bool inputs multiply to int64. */
    public Tensor cumprod(int dim) { return ScanOps.CUMPROD.callTensor(this, (long) dim); }

    /** Running products along {@code dim}, the input first converted to {@code dtype}. */
    public Tensor cumprod(int dim, DType dtype) { return ScanOps.CUMPROD.callTensor(this, (long) dim, dtype); }

    /** The values and int64 positions of each slice along {@code dim}, ascending (NaN last); stable. */
    public List<Tensor> sort(int dim, boolean descending) { return SortOps.SORT.callList(this, (long) dim, descending); }

    public List<Tensor> sort() { return SortOps.SORT.callList(this); }

    /** The positions that sort each slice along {@code dim}. */
    public Tensor argsort(int dim, boolean descending) { return SortOps.ARGSORT.callTensor(this, (long) dim, descending); }

    /** The {@code k} largest (or smallest) elements along {@code dim} and their int64 positions, in sorted order. */
    public List<Tensor> topk(int k, int dim, boolean largest) { return SortOps.TOPK.callList(this, (long) k, (long) dim, largest); }

    /** {@link #topk(int, int, boolean)}; {@code sorted} false lets the {@code k} come in any order (Ember returns them sorted, as ATen's CPU kernel does). */
    public List<Tensor> topk(int k, int dim, boolean largest, boolean sorted) { return SortOps.TOPK.callList(this, (long) k, (long) dim, largest, sorted); }

    /** The {@code k} largest elements along the last dimension and their positions. */
    public List<Tensor> topk(int k) { return SortOps.TOPK.callList(this, (long) k); }

    /** The lower median of all elements (for an even count the lower middle value), 0-d; NaN if any element is NaN. */
    public Tensor median() { return SortOps.MEDIAN.callTensor(this); }

    /** The lower median along {@code dim} and its int64 index: {@code [values, indices]}. */
    public List<Tensor> median(int dim, boolean keepdim) { return SortOps.MEDIAN_DIM.callList(this, (long) dim, keepdim); }

    public List<Tensor> median(int dim) { return median(dim, false); }

    /** {@link #median()} of the elements that are not NaN. */
    public Tensor nanmedian() { return SortOps.NANMEDIAN.callTensor(this); }

    public List<Tensor> nanmedian(int dim, boolean keepdim) { return SortOps.NANMEDIAN_DIM.callList(this, (long) dim, keepdim); }

    /** The {@code k}-th smallest element (k from 1) along {@code dim} and its int64 index: {@code [values, indices]}. */
    public List<Tensor> kthvalue(int k, int dim, boolean keepdim) { return SortOps.KTHVALUE.callList(this, (long) k, (long) dim, keepdim); }

    /** The {@code k}-th smallest element along the last dim. */
    public List<Tensor> kthvalue(int k) { return SortOps.KTHVALUE.callList(this, (long) k); }

    /** The most frequent value along {@code dim} (the smallest of equally frequent ones) and an int64 index of it: {@code [values, indices]}. */
    public List<Tensor> mode(int dim, boolean keepdim) { return SortOps.MODE.callList(this, (long) dim, keepdim); }

    /** The most frequent value along the last dim. */
    public List<Tensor> mode() { return SortOps.MODE.callList(this); }

    /** argmax along {@code dim} into an int64 {@code out}. */
    public Tensor argmaxOut(int dim, boolean keepdim, Tensor out) { return ReductionOps.ARGMAX_OUT.callTensor(this, (long) dim, keepdim, out); }

    public Tensor argminOut(int dim, boolean keepdim, Tensor out) { return ReductionOps.ARGMIN_OUT.callTensor(this, (long) dim, keepdim, out); }

    /** The flat index of the maximum. */
    public Tensor argmax() { return ReductionOps.ARGMAX.callTensor(this); }

    /** The index of the maximum along {@code dim}, which goes away (torch's {@code x.argmax(dim)}). */
    public Tensor argmax(int dim) { return argmax(dim, false); }

    public Tensor argmax(int dim, boolean keepdim) { return ReductionOps.ARGMAX.callTensor(this, (long) dim, keepdim); }

    public Tensor argmin() { return ReductionOps.ARGMIN.callTensor(this); }

    /** The index of the minimum along {@code dim}, which goes away (torch's {@code x.argmin(dim)}). */
    public Tensor argmin(int dim) { return argmin(dim, false); }

    public Tensor argmin(int dim, boolean keepdim) { return ReductionOps.ARGMIN.callTensor(this, (long) dim, keepdim); }

    /** Sample variance over all elements (Bessel's correction). */
    public Tensor var() { return ReductionOps.VAR.callTensor(this); }

    /** The sample variance along {@code dim}, which goes away (torch's {@code x.var(dim)}). */
    public Tensor var(int dim) { return var(dim, false); }

    public Tensor var(int dim, boolean keepdim) { return ReductionOps.VAR.callTensor(this, new int[] {dim}, null, keepdim); }

    /** Variance with an explicit correction (0 = population, 1 = sample). */
    public Tensor var(int[] dims, double correction, boolean keepdim) { return ReductionOps.VAR.callTensor(this, dims, correction, keepdim); }

    public Tensor std() { return ReductionOps.STD.callTensor(this); }

    /** The sample standard deviation along {@code dim}, which goes away (torch's {@code x.std(dim)}). */
    public Tensor std(int dim) { return std(dim, false); }

    public Tensor std(int dim, boolean keepdim) { return ReductionOps.STD.callTensor(this, new int[] {dim}, null, keepdim); }

    public Tensor std(int[] dims, double correction, boolean keepdim) { return ReductionOps.STD.callTensor(this, dims, correction, keepdim); }

    public Tensor softmax(int dim) { return ReductionOps.SOFTMAX.callTensor(this, (long) dim, false); }

    public Tensor logSoftmax(int dim) { return ReductionOps.LOG_SOFTMAX.callTensor(this, (long) dim, false); }

    /** log_softmax computed in {@code dtype} (the input converted first), as {@code torch.log_softmax(x, dim, dtype=…)}. */
    public Tensor logSoftmax(int dim, DType dtype) { return ReductionOps.LOG_SOFTMAX_INT.callTensor(this, (long) dim, dtype); }

    public Tensor softmax(int dim, DType dtype) { return ReductionOps.SOFTMAX_INT.callTensor(this, (long) dim, dtype); }

    // ------------------------------------------------------------------ linear algebra

    /** NumPy-style matmul for every rank: dot, matrix-vector, matrix-matrix, batched with broadcasting. */
    public Tensor matmul(Tensor other) { return LinalgOps.MATMUL.callTensor(this, other); }

    public Tensor mm(Tensor other) { return LinalgOps.MM.callTensor(this, other); }

    public Tensor bmm(Tensor other) { return LinalgOps.BMM.callTensor(this, other); }

    /** {@code beta * self + alpha * (mat1 @ mat2)} */
    public static Tensor addmm(Tensor self, Tensor mat1, Tensor mat2) { return LinalgOps.ADDMM.callTensor(self, mat1, mat2); }

    public static Tensor addmm(Tensor self, Tensor mat1, Tensor mat2, double beta, double alpha) { return LinalgOps.ADDMM.callTensor(self, mat1, mat2, beta, alpha); }

    // ------------------------------------------------------------------ views and shape

    /** The same storage with a new shape; one dimension may be -1. Fails when strides don't allow it (use reshape). */
    public Tensor view(int... shape) { return ShapeOps.VIEW.callTensor(this, shape); }

    /** A view when the strides allow it, otherwise a copy. */
    public Tensor reshape(int... shape) { return ShapeOps.RESHAPE.callTensor(this, shape); }

    public Tensor permute(int... dims) { return ShapeOps.PERMUTE.callTensor(this, dims); }

    public Tensor transpose(int dim0, int dim1) { return ShapeOps.TRANSPOSE.callTensor(this, (long) dim0, (long) dim1); }

    /** Transpose of a matrix (a vector is returned as is). */
    public Tensor t() { return ShapeOps.T.callTensor(this); }

    public Tensor unsqueeze(int dim) { return ShapeOps.UNSQUEEZE.callTensor(this, (long) dim); }

    public Tensor squeeze() { return ShapeOps.SQUEEZE.callTensor(this); }

    public Tensor squeeze(int dim) { return ShapeOps.SQUEEZE_DIM.callTensor(this, (long) dim); }

    /** Broadcasts size-1 dimensions to {@code shape} without copying; -1 keeps a size. */
    public Tensor expand(int... shape) { return ShapeOps.EXPAND.callTensor(this, shape); }

    public Tensor narrow(int dim, int start, int length) { return ShapeOps.NARROW.callTensor(this, (long) dim, (long) start, (long) length); }

    /** Elements {@code start, start+step, …} below {@code end} along {@code dim}; bounds are clamped like Python slices. */
    public Tensor slice(int dim, int start, int end, int step) { return ShapeOps.SLICE.callTensor(this, (long) dim, (long) start, (long) end, (long) step); }

    /** Removes dimension {@code dim} by taking index {@code index} of it. */
    public Tensor select(int dim, int index) { return ShapeOps.SELECT.callTensor(this, (long) dim, (long) index); }

    public Tensor flatten() { return ShapeOps.FLATTEN.callTensor(this); }

    /** Dims from {@code startDim} to the last merged into one (torch's {@code x.flatten(1)}: a batch of rows). */
    public Tensor flatten(int startDim) { return ShapeOps.FLATTEN.callTensor(this, (long) startDim); }

    public Tensor flatten(int startDim, int endDim) { return ShapeOps.FLATTEN.callTensor(this, (long) startDim, (long) endDim); }

    /** This tensor when already contiguous, otherwise a contiguous copy. */
    public Tensor contiguous() { return isContiguous() ? this : clone(); }

    @Override
    public Tensor clone() { return ShapeOps.CLONE.callTensor(this); }

    /** This tensor converted to {@code target} (the same object when already of that dtype). */
    public Tensor to(DType target) { return target == dtype ? this : ShapeOps.TO_COPY.callTensor(this, target); }

    public List<Tensor> split(int splitSize, int dim) { return ShapeOps.SPLIT.callList(this, (long) splitSize, (long) dim); }

    public List<Tensor> split(int[] sizes, int dim) { return ShapeOps.SPLIT_WITH_SIZES.callList(this, sizes, (long) dim); }

    public List<Tensor> chunk(int chunks, int dim) { return ShapeOps.CHUNK.callList(this, (long) chunks, (long) dim); }

    public Tensor indexSelect(int dim, Tensor index) { return IndexingOps.INDEX_SELECT.callTensor(this, (long) dim, index); }

    /**
     * The int64 coordinates {@code [n, dim()]} of the nonzero elements, row-major (torch's
     * {@code x.nonzero()}). n depends on the data: under {@code Ember.compile} the graph breaks here.
     */
    public Tensor nonzero() { return IndexingOps.NONZERO.callTensor(this); }

    /** The same coordinates as one int64 vector per dim (torch's {@code x.nonzero(as_tuple=True)}). */
    public List<Tensor> nonzeroAsTuple() { return IndexingOps.NONZERO_NUMPY.callList(this); }

    /** The elements where {@code mask} (bool, broadcast with this) is true, as a 1-d tensor (torch's {@code x.masked_select(mask)}). */
    public Tensor maskedSelect(Tensor mask) { return IndexingOps.MASKED_SELECT.callTensor(this, mask); }

    /**
     * {@code x[index]}, ATen's advanced indexing by one tensor. A bool {@code index} (a mask shaped
     * like this tensor's leading dims) selects the rows where it is true: {@code [n, shape[mask.dim()], …]},
     * a size only the values give (a graph break under compile, GB0021). An integer {@code index}
     * picks rows of dim 0 by position, negative ones counted from the end: shaped
     * {@code index.shape + shape[1:]} ({@code embeddings[ids]}, {@code x[perm]}), a static shape
     * computed by index_select, so it stays in the graph.
     */
    public Tensor index(Tensor index) {
        if (index.dtype() == DType.BOOL) return IndexingOps.INDEX_TENSOR.callTensor(this, List.of(index));
        if (index.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("index: tensors used as indices must be long, int or bool tensors, got " + index.dtype());
        }
        if (dim() == 0) throw new IndexOutOfBoundsException("index: too many indices for tensor of dimension 0");
        Tensor flat = index.reshape(-1);
        Tensor positions = Tensor.where(flat.lt(0.0), flat.add((long) size(0)), flat);
        int[] out = new int[index.dim() + dim() - 1];
        System.arraycopy(index.shape(), 0, out, 0, index.dim());
        System.arraycopy(shape, 1, out, index.dim(), dim() - 1);
        return indexSelect(0, positions).reshape(out);
    }

    /**
     * {@code x[i, :, j]}, ATen's advanced indexing (index.Tensor): one optional index per leading
     * dim, null for a whole dim ({@code Arrays.asList(null, idx)}), int64/int32 positions broadcast
     * together, or bool masks. Integer indices only: a static shape; a mask's depends on its values.
     */
    public Tensor index(List<Tensor> indices) { return IndexingOps.INDEX_TENSOR.callTensor(this, indices); }

    /**
     * A copy of this tensor with {@code values} (broadcast) written at the positions {@code indices}
     * name, as {@link #index(List)} reads them: Python's {@code y = x.clone(); y[indices] = values}.
     */
    public Tensor indexPut(List<Tensor> indices, Tensor values) { return indexPut(indices, values, false); }

    /** {@link #indexPut(List, Tensor)}, adding into what is there with {@code accumulate} (a repeated position sums every write). */
    public Tensor indexPut(List<Tensor> indices, Tensor values, boolean accumulate) { return dev.ember.ops.IndexPutOps.INDEX_PUT.callTensor(this, indices, values, accumulate); }

    /** Python's {@code x[indices] = values}: writes into this tensor (index_put_). */
    public Tensor indexPut_(List<Tensor> indices, Tensor values) { return indexPut_(indices, values, false); }

    /** {@code x.index_put_(indices, values, accumulate)}; {@code x[indices] += values} with repeats summed is {@code accumulate = true}. */
    public Tensor indexPut_(List<Tensor> indices, Tensor values, boolean accumulate) { return dev.ember.ops.IndexPutOps.INDEX_PUT_.callTensor(this, indices, values, accumulate); }

    /** Python's {@code x[indices] = value} with a number: the value as a 0-d tensor of this tensor's dtype. */
    public Tensor indexPut_(List<Tensor> indices, double value) { return indexPut_(indices, full(dtype, value)); }

    /** A copy of this tensor with {@code source}'s elements written at {@code index}'s positions of the flattened tensor (int64, negative from the end); accumulate adds. */
    public Tensor put(Tensor index, Tensor source, boolean accumulate) { return dev.ember.ops.IndexPutOps.PUT.callTensor(this, index, source, accumulate); }

    /** {@link #put} into this tensor. */
    public Tensor put_(Tensor index, Tensor source, boolean accumulate) { return dev.ember.ops.IndexPutOps.PUT_.callTensor(this, index, source, accumulate); }

    /** A copy of this tensor with {@code src} written where {@code select(dim, index)} looks (select_scatter). */
    public Tensor selectScatter(Tensor src, int dim, int index) { return dev.ember.ops.ViewScatterOps.SELECT_SCATTER.callTensor(this, src, (long) dim, (long) index); }

    /** A copy of this tensor with {@code src} written where {@code slice(dim, start, end, step)} looks (slice_scatter; null start/end: the ends). */
    public Tensor sliceScatter(Tensor src, int dim, Integer start, Integer end, int step) {
        return dev.ember.ops.ViewScatterOps.SLICE_SCATTER.callTensor(this, src, (long) dim, start == null ? null : (long) start, end == null ? null : (long) end, (long) step);
    }

    /** A copy of this tensor with {@code src} written on the diagonal {@code diagonal(offset, dim1, dim2)} names (diagonal_scatter). */
    public Tensor diagonalScatter(Tensor src, int offset, int dim1, int dim2) {
        return dev.ember.ops.ViewScatterOps.DIAGONAL_SCATTER.callTensor(this, src, (long) offset, (long) dim1, (long) dim2);
    }

    /** {@code diagonalScatter(src, 0, 0, 1)}: src on the main diagonal of the first two dims. */
    public Tensor diagonalScatter(Tensor src) { return diagonalScatter(src, 0, 0, 1); }

    /**
     * A copy of this tensor with {@code src} written where {@code asStrided(size, stride, storageOffset)}
     * of the copy looks (as_strided_scatter; the copy keeps this tensor's strides when they are dense,
     * as {@code clone()} does, and {@code storageOffset} null means 0).
     */
    public Tensor asStridedScatter(Tensor src, int[] size, int[] stride, Integer storageOffset) {
        return dev.ember.ops.StridedViewOps.AS_STRIDED_SCATTER.callTensor(this, src, size, stride, storageOffset == null ? null : (long) (int) storageOffset);
    }

    /**
     * The windows of {@code size} elements along {@code dim}, one every {@code step}, as a new last dim:
     * a view sharing this tensor's storage (windows overlap when step &lt; size), as torch's {@code x.unfold}.
     */
    public Tensor unfold(int dim, int size, int step) { return dev.ember.ops.StridedViewOps.UNFOLD.callTensor(this, (long) dim, (long) size, (long) step); }

    /**
     * A view of this tensor's storage with the given sizes, strides and storage offset, all in
     * elements of the storage (not of this view): torch's {@code as_strided}.
     */
    public Tensor asStrided(int[] size, int[] stride, int storageOffset) {
        return dev.ember.ops.StridedViewOps.AS_STRIDED.callTensor(this, size, stride, (long) storageOffset);
    }

    /** {@link #asStrided(int[], int[], int)} at this tensor's own storage offset. */
    public Tensor asStrided(int[] size, int[] stride) { return dev.ember.ops.StridedViewOps.AS_STRIDED.callTensor(this, size, stride, null); }

    /** A copy of this tensor with {@code src}'s elements written along {@code dim} at {@code index}'s positions (int64, same rank). */
    public Tensor scatter(int dim, Tensor index, Tensor src) { return ScatterOps.SCATTER_SRC.callTensor(this, (long) dim, index, src); }

    public Tensor scatter(int dim, Tensor index, double value) { return ScatterOps.SCATTER_VALUE.callTensor(this, (long) dim, index, value); }

    public Tensor scatter(int dim, Tensor index, long value) { return ScatterOps.SCATTER_VALUE.callTensor(this, (long) dim, index, value); }

    /** scatter combining with what is there: {@code reduce} is "add" or "multiply". */
    public Tensor scatter(int dim, Tensor index, Tensor src, String reduce) { return ScatterOps.SCATTER_REDUCE.callTensor(this, (long) dim, index, src, reduce); }

    public Tensor scatter(int dim, Tensor index, double value, String reduce) { return ScatterOps.SCATTER_VALUE_REDUCE.callTensor(this, (long) dim, index, value, reduce); }

    public Tensor scatter_(int dim, Tensor index, Tensor src) { return ScatterOps.SCATTER__SRC.callTensor(this, (long) dim, index, src); }

    public Tensor scatter_(int dim, Tensor index, double value) { return ScatterOps.SCATTER__VALUE.callTensor(this, (long) dim, index, value); }

    /** A copy of this tensor with {@code src}'s elements added along {@code dim} at {@code index}'s positions; repeated positions sum. */
    public Tensor scatterAdd(int dim, Tensor index, Tensor src) { return ScatterOps.SCATTER_ADD.callTensor(this, (long) dim, index, src); }

    public Tensor scatterAdd_(int dim, Tensor index, Tensor src) { return ScatterOps.SCATTER_ADD_.callTensor(this, (long) dim, index, src); }

    /** A copy of this tensor with slice {@code i} of {@code source} along {@code dim} added to slice {@code index[i]}. */
    public Tensor indexAdd(int dim, Tensor index, Tensor source) { return ScatterOps.INDEX_ADD.callTensor(this, (long) dim, index, source); }

    public Tensor indexAdd(int dim, Tensor index, Tensor source, double alpha) { return ScatterOps.INDEX_ADD.callTensor(this, (long) dim, index, source, alpha); }

    public Tensor indexAdd_(int dim, Tensor index, Tensor source) { return ScatterOps.INDEX_ADD_.callTensor(this, (long) dim, index, source); }

    /**
     * torch.scatter_reduce: a copy of this tensor with {@code src}'s elements combined along {@code dim}
     * at {@code index}'s positions by {@code reduce} ("sum", "prod", "mean", "amax" or "amin"), self's values included.
     */
    public Tensor scatterReduce(int dim, Tensor index, Tensor src, String reduce) { return scatterReduce(dim, index, src, reduce, true); }

    /** scatter_reduce; with {@code includeSelf} false the written positions start from the reduction's identity, not self's value. */
    public Tensor scatterReduce(int dim, Tensor index, Tensor src, String reduce, boolean includeSelf) {
        return ScatterReduceOps.SCATTER_REDUCE.callTensor(this, (long) dim, index, src, reduce, includeSelf);
    }

    public Tensor scatterReduce_(int dim, Tensor index, Tensor src, String reduce, boolean includeSelf) {
        return ScatterReduceOps.SCATTER_REDUCE_.callTensor(this, (long) dim, index, src, reduce, includeSelf);
    }

    /** torch.index_reduce: slices of {@code source} combined into slices {@code index} of a copy of this tensor by "prod", "mean", "amax" or "amin". */
    public Tensor indexReduce(int dim, Tensor index, Tensor source, String reduce, boolean includeSelf) {
        return ScatterReduceOps.INDEX_REDUCE.callTensor(this, (long) dim, index, source, reduce, includeSelf);
    }

    public Tensor indexReduce_(int dim, Tensor index, Tensor source, String reduce, boolean includeSelf) {
        return ScatterReduceOps.INDEX_REDUCE_.callTensor(this, (long) dim, index, source, reduce, includeSelf);
    }

    public Tensor gatherOut(int dim, Tensor index, Tensor out) { return IndexingOps.GATHER_OUT.callTensor(this, (long) dim, index, false, out); }

    public Tensor indexSelectOut(int dim, Tensor index, Tensor out) { return IndexingOps.INDEX_SELECT_OUT.callTensor(this, (long) dim, index, out); }

    public Tensor gather(int dim, Tensor index) { return IndexingOps.GATHER.callTensor(this, (long) dim, index); }

    /** Values along {@code dim} at {@code indices}, the two broadcast in the other dims (torch's {@code take_along_dim}). */
    public Tensor takeAlongDim(Tensor indices, int dim) { return IndexingOps.TAKE_ALONG_DIM.callTensor(this, indices, (long) dim); }

    /** The flattened tensor's values at the flattened {@code indices} (torch's {@code take_along_dim} without a dim). */
    public Tensor takeAlongDim(Tensor indices) { return IndexingOps.TAKE_ALONG_DIM.callTensor(this, indices, null); }

    /** A copy with the slices at {@code index} along {@code dim} set to {@code value} (torch's {@code index_fill}). */
    public Tensor indexFill(int dim, Tensor index, double value) { return IndexingOps.INDEX_FILL_SCALAR.callTensor(this, (long) dim, index, value); }

    /** {@link #indexFill(int, Tensor, double)} with a 0-d tensor value (differentiable in it). */
    public Tensor indexFill(int dim, Tensor index, Tensor value) { return IndexingOps.INDEX_FILL_TENSOR.callTensor(this, (long) dim, index, value); }

    /** A copy with the slices at {@code index} along {@code dim} replaced by source's, in order (torch's {@code index_copy}). */
    public Tensor indexCopy(int dim, Tensor index, Tensor source) { return IndexingOps.INDEX_COPY.callTensor(this, (long) dim, index, source); }

    public static Tensor cat(List<Tensor> tensors, int dim) { return ShapeOps.CAT.callTensor(tensors, (long) dim); }

    public static Tensor stack(List<Tensor> tensors, int dim) { return ShapeOps.STACK.callTensor(tensors, (long) dim); }

    // ------------------------------------------------------------------ printing

    /** PyTorch's format: {@code tensor([[1.0000, 2.0000], …], dtype=torch.float64)}. */
    @Override
    public String toString() { return TensorPrinter.format(this); }

    @Override
    public final boolean equals(Object o) { return this == o; }

    @Override
    public final int hashCode() { return System.identityHashCode(this); }

    /** A one-line description for messages: {@code Tensor f32[3, 4]}. */
    public String describe() { return "Tensor " + meta().describe() + (isContiguous() ? "" : " (non-contiguous)"); }

    /** Element-wise equality of shape, dtype and values (NaN equal to NaN), for tests and tools. */
    public boolean sameData(Tensor other) {
        if (dtype != other.dtype || !Arrays.equals(shape, other.shape)) return false;
        return Arrays.equals(toDoubleArray(), other.toDoubleArray());
    }

    // ------------------------------------------------------------------ composites: ops defined by their decompositions

    /** {@code this + value * tensor1 * tensor2} (value 1). */
    public Tensor addcmul(Tensor tensor1, Tensor tensor2) { return PointwiseOps.ADDCMUL.callTensor(this, tensor1, tensor2); }

    /** {@code this + value * tensor1 * tensor2}; for integer tensors value is truncated to an integer, as ATen casts it. */
    public Tensor addcmul(Tensor tensor1, Tensor tensor2, double value) { return PointwiseOps.ADDCMUL.callTensor(this, tensor1, tensor2, value); }

    /** {@code this + tensor1 / tensor2} (value 1); floating point only. */
    public Tensor addcdiv(Tensor tensor1, Tensor tensor2) { return PointwiseOps.ADDCDIV.callTensor(this, tensor1, tensor2); }

    /** {@code this + value * tensor1 / tensor2}; floating point only. */
    public Tensor addcdiv(Tensor tensor1, Tensor tensor2, double value) { return PointwiseOps.ADDCDIV.callTensor(this, tensor1, tensor2, value); }

    /** Linear interpolation {@code this + weight * (end - this)}, exact at weight 0 and 1; floating point only. */
    public Tensor lerp(Tensor end, double weight) { return PointwiseOps.LERP_SCALAR.callTensor(this, end, weight); }

    /** lerp with a weight per element, broadcast with this and end. */
    public Tensor lerp(Tensor end, Tensor weight) { return PointwiseOps.LERP_TENSOR.callTensor(this, end, weight); }

    // ------------------------------------------------------------------ MathOps: log-sum pairs, hypot, xlogy, closeness, differences

    /** {@code log(exp(this) + exp(other))} without overflow (torch.logaddexp); floating point only. */
    public Tensor logaddexp(Tensor other) { return MathOps.LOGADDEXP.callTensor(this, other); }

    /** {@code log2(2^this + 2^other)} without overflow (torch.logaddexp2). */
    public Tensor logaddexp2(Tensor other) { return MathOps.LOGADDEXP2.callTensor(this, other); }

    /** {@code sqrt(this² + other²)} without overflow (torch.hypot); floating point only. */
    public Tensor hypot(Tensor other) { return MathOps.HYPOT.callTensor(this, other); }

    /** {@code this · log(other)}, 0 where this is 0, NaN where other is NaN (torch.xlogy). */
    public Tensor xlogy(Tensor other) { return MathOps.XLOGY.callTensor(this, other); }

    /** {@link #xlogy(Tensor)} with a number. */
    public Tensor xlogy(double other) { return MathOps.XLOGY_SCALAR_OTHER.callTensor(this, other); }

    /** Elementwise closeness with torch's defaults (rtol 1e-5, atol 1e-8, NaN unequal): a bool tensor. */
    public Tensor isclose(Tensor other) { return MathOps.ISCLOSE.callTensor(this, other); }

    /** {@code |this - other| <= atol + rtol · |other|}, or equal, or both NaN with {@code equalNan}; same dtypes only. */
    public Tensor isclose(Tensor other, double rtol, double atol, boolean equalNan) { return MathOps.ISCLOSE.callTensor(this, other, rtol, atol, equalNan); }

    /** Whether every element is close (torch.allclose): reads the data, so under Ember.compile the graph breaks here. */
    public boolean allclose(Tensor other) { return isclose(other).all().item() != 0; }

    public boolean allclose(Tensor other, double rtol, double atol, boolean equalNan) { return isclose(other, rtol, atol, equalNan).all().item() != 0; }

    /** The first forward difference along the last dim (torch.diff). */
    public Tensor diff() { return MathOps.DIFF.callTensor(this); }

    /** The {@code n}-th forward difference along {@code dim}. */
    public Tensor diff(int n, int dim) { return MathOps.DIFF.callTensor(this, (long) n, (long) dim); }

    /** The {@code n}-th forward difference along {@code dim} after {@code prepend} and {@code append} (either may be null) are joined on. */
    public Tensor diff(int n, int dim, Tensor prepend, Tensor append) { return MathOps.DIFF.callTensor(this, (long) n, (long) dim, prepend, append); }

    /**
     * The cross product along the first dim of size 3, as torch.cross without a dim (PyTorch warns
     * that this default is deprecated; {@link #cross(Tensor, int)} names the dim).
     */
    public Tensor cross(Tensor other) { return MathOps.CROSS.callTensor(this, other, null); }

    /** The cross product of 3-vectors along {@code dim} (torch.linalg.cross, torch.cross with dim). */
    public Tensor cross(Tensor other, int dim) { return MathOps.LINALG_CROSS.callTensor(this, other, (long) dim); }

    /** Contracts the last {@code dims} dims of this with the first {@code dims} of other (torch.tensordot with an int). */
    public Tensor tensordot(Tensor other, int dims) {
        if (dims < 0) throw new IllegalArgumentException("tensordot expects dims >= 0, but got dims=" + dims);
        int[] mine = new int[dims], theirs = new int[dims];
        for (int i = 0; i < dims; i++) {
            mine[i] = dim() - dims + i;
            theirs[i] = i;
        }
        return tensordot(other, mine, theirs);
    }

    /** Contracts {@code dims[i]} of this with {@code otherDims[i]} of other. */
    public Tensor tensordot(Tensor other, int[] dims, int[] otherDims) { return MathOps.TENSORDOT.callTensor(this, other, dims, otherDims); }

    /** Coordinate grids ({@code "ij"} or {@code "xy"} indexing) from 0-d or 1-d tensors (torch.meshgrid). */
    public static List<Tensor> meshgrid(String indexing, Tensor... tensors) { return MathOps.MESHGRID.callList(List.of(tensors), indexing); }

    /** {@link #meshgrid(String, Tensor...)} with PyTorch's default, {@code "ij"}. */
    public static List<Tensor> meshgrid(Tensor... tensors) { return meshgrid("ij", tensors); }

    /** The sum with NaN counted as 0 (torch.nansum). */
    public Tensor nansum() { return MathOps.NANSUM.callTensor(this); }

    public Tensor nansum(int dim, boolean keepdim) { return MathOps.NANSUM.callTensor(this, new int[] {dim}, keepdim); }

    /** The mean of the elements that are not NaN (torch.nanmean). */
    public Tensor nanmean() { return MathOps.NANMEAN.callTensor(this); }

    public Tensor nanmean(int dim, boolean keepdim) { return MathOps.NANMEAN.callTensor(this, new int[] {dim}, keepdim); }

    /** {@code [var, mean]} of every element (torch.var_mean; the variance unbiased). */
    public List<Tensor> varMean() { return MathOps.VAR_MEAN.callList(this); }

    /** {@code [var, mean]} over {@code dims} with {@code correction} (1: unbiased). */
    public List<Tensor> varMean(int[] dims, double correction, boolean keepdim) { return MathOps.VAR_MEAN.callList(this, dims, correction, keepdim); }

    /** {@code [std, mean]} of every element (torch.std_mean). */
    public List<Tensor> stdMean() { return MathOps.STD_MEAN.callList(this); }

    public List<Tensor> stdMean(int[] dims, double correction, boolean keepdim) { return MathOps.STD_MEAN.callList(this, dims, correction, keepdim); }

    /** The distinct values, ascending (torch.unique): a size known only from the data, so a compiled function breaks its graph here. */
    public Tensor unique() { return CountingOps.UNIQUE2.callList(this, true, false, false).get(0); }

    /**
     * torch.unique with its flags: {@code [values]}, then the inverse indices (this tensor's shape)
     * if {@code returnInverse}, then the counts if {@code returnCounts}, as PyTorch's tuple.
     */
    /** torch.unique with {@code dim}: the distinct slices along dim, in ascending lexicographic order, then the inverse ([size(dim)]) and counts as asked. */
    public List<Tensor> unique(boolean sorted, boolean returnInverse, boolean returnCounts, int dim) {
        List<Tensor> all = CountingOps.UNIQUE_DIM.callList(this, (long) dim, sorted, returnInverse, returnCounts);
        List<Tensor> out = new java.util.ArrayList<>(List.of(all.get(0)));
        if (returnInverse) out.add(all.get(1));
        if (returnCounts) out.add(all.get(2));
        return List.copyOf(out);
    }

    public List<Tensor> unique(boolean sorted, boolean returnInverse, boolean returnCounts) {
        List<Tensor> all = CountingOps.UNIQUE2.callList(this, sorted, returnInverse, returnCounts);
        List<Tensor> out = new java.util.ArrayList<>(List.of(all.get(0)));
        if (returnInverse) out.add(all.get(1));
        if (returnCounts) out.add(all.get(2));
        return List.copyOf(out);
    }

    /**
     * torch.unique_consecutive: each run of equal neighbours (flattened) once, then the inverse
     * indices if {@code returnInverse}, then the run lengths if {@code returnCounts}; a size known
     * only from the data, so a compiled function breaks its graph here.
     */
    public List<Tensor> uniqueConsecutive(boolean returnInverse, boolean returnCounts) { return uniqueConsecutive(returnInverse, returnCounts, null); }

    /** torch.unique_consecutive with {@code dim}: runs of equal neighbouring slices along dim (null: of the flattened elements). */
    public List<Tensor> uniqueConsecutive(boolean returnInverse, boolean returnCounts, Integer dim) {
        List<Tensor> all = CountingOps.UNIQUE_CONSECUTIVE.callList(this, returnInverse, returnCounts, dim == null ? null : (long) dim);
        List<Tensor> out = new java.util.ArrayList<>(List.of(all.get(0)));
        if (returnInverse) out.add(all.get(1));
        if (returnCounts) out.add(all.get(2));
        return List.copyOf(out);
    }

    /** torch.masked_scatter: this tensor with the positions where {@code mask} is true filled, in order, by {@code source}'s elements. */
    public Tensor maskedScatter(Tensor mask, Tensor source) { return IndexingOps.MASKED_SCATTER.callTensor(this, mask, source); }

    /**
     * torch.histogram with {@code bins} equal bins over the data's range: [hist, bin_edges], both in
     * this (floating) dtype.
     */
    public List<Tensor> histogram(int bins) { return dev.ember.ops.HistogramOps.HISTOGRAM_BIN_CT.callList(this, (long) bins, null, null, false); }

    /**
     * torch.histogram with {@code bins} equal bins over {@code range} ({@code {min, max}}; null: the
     * data's range), each element counting its {@code weight} (null: 1), divided by the total and the
     * bin widths when {@code density}: [hist, bin_edges].
     */
    public List<Tensor> histogram(int bins, double[] range, Tensor weight, boolean density) {
        return dev.ember.ops.HistogramOps.HISTOGRAM_BIN_CT.callList(this, (long) bins, range, weight, density);
    }

    /** torch.histogram with the bins' edges given (increasing, this dtype): [hist, bin_edges]. */
    public List<Tensor> histogram(Tensor bins, Tensor weight, boolean density) {
        return dev.ember.ops.HistogramOps.HISTOGRAM_BINS_TENSOR.callList(this, bins, weight, density);
    }

    /** torch.histc: counts in {@code bins} equal bins over [min, max] (min = max: the data's own range). */
    public Tensor histc(int bins, double min, double max) { return CountingOps.HISTC.callTensor(this, (long) bins, min, max); }

    /** How many times each value 0, 1, …, max occurs in this 1-d non-negative integer tensor (torch.bincount). */
    public Tensor bincount() { return CountingOps.BINCOUNT.callTensor(this); }

    /** The sum of {@code weights} (or the count, when null) at each value, at least {@code minlength} entries. */
    public Tensor bincount(Tensor weights, int minlength) { return CountingOps.BINCOUNT.callTensor(this, weights, (long) minlength); }

    /** Distances between every row of {@code x1 [..., P, M]} and of {@code x2 [..., R, M]} (torch.cdist, p = 2). */
    public static Tensor cdist(Tensor x1, Tensor x2) { return DistanceOps.CDIST.callTensor(x1, x2); }

    /** torch.cdist with a p-norm (p ≥ 0, infinity allowed). */
    public static Tensor cdist(Tensor x1, Tensor x2, double p) { return DistanceOps.CDIST.callTensor(x1, x2, p); }

    /** The lower triangle of the last two dims (with the main diagonal), zeros above. */
    public Tensor tril() { return tril(0); }

    /** The elements with {@code column - row <= diagonal} in the last two dims, zeros elsewhere. */
    public Tensor tril(int diagonal) { return ShapeOps.TRIL.callTensor(this, (long) diagonal); }

    /** The upper triangle of the last two dims (with the main diagonal), zeros below. */
    public Tensor triu() { return triu(0); }

    /** The elements with {@code column - row >= diagonal} in the last two dims, zeros elsewhere. */
    public Tensor triu(int diagonal) { return ShapeOps.TRIU.callTensor(this, (long) diagonal); }

    /** A copy with the order of elements reversed along each of {@code dims}. */
    public Tensor flip(int... dims) { return ShapeOps.FLIP.callTensor(this, dims); }

    /** Rotated by 90° {@code k} times in the plane of dims 0 and 1, from the first toward the second (torch's {@code rot90}). */
    public Tensor rot90(int k) { return ShapeOps.ROT90.callTensor(this, (long) k); }

    /** Rotated by 90° {@code k} times in the plane of {@code dim0} and {@code dim1}. */
    public Tensor rot90(int k, int dim0, int dim1) { return ShapeOps.ROT90.callTensor(this, (long) k, new int[] {dim0, dim1}); }

    /** The Kronecker product with {@code other} (torch's {@code kron}). */
    public Tensor kron(Tensor other) { return LinalgOps.KRON.callTensor(this, other); }

    /** A copy with elements shifted cyclically by {@code shifts[i]} along {@code dims[i]}. */
    public Tensor roll(int[] shifts, int[] dims) { return ShapeOps.ROLL.callTensor(this, shifts, dims); }

    /** A copy shifted cyclically by {@code shift} along {@code dim}. */
    public Tensor roll(int shift, int dim) { return roll(new int[] {shift}, new int[] {dim}); }

    /** The flattened tensor shifted cyclically by {@code shift}, shaped back. */
    public Tensor roll(int shift) { return ShapeOps.ROLL.callTensor(this, new int[] {shift}); }

    /** The tensor tiled {@code repeats[i]} times along dim i (extra leading repeats add dims); at least one repeat per dim. */
    public Tensor repeat(int... repeats) { return ShapeOps.REPEAT.callTensor(this, repeats); }

    /** {@link #repeat}, fewer reps than dims meaning leading ones (numpy's tile). */
    public Tensor tile(int... reps) { return ShapeOps.TILE.callTensor(this, reps); }

    /** A view expanded to {@code other}'s shape. */
    public Tensor expandAs(Tensor other) { return ShapeOps.EXPAND_AS.callTensor(this, other); }

    /** Reshaped to {@code other}'s shape (a view where the strides allow one). */
    public Tensor reshapeAs(Tensor other) { return ShapeOps.RESHAPE_AS.callTensor(this, other); }

    /** Converted to {@code other}'s dtype; this tensor itself when it already has it. */
    public Tensor typeAs(Tensor other) { return ShapeOps.TYPE_AS.callTensor(this, other); }

    /** Each index along {@code dim}, as views. */
    public List<Tensor> unbind(int dim) { return ShapeOps.UNBIND.callList(this, (long) dim); }

    /** Each index along dim 0, as views. */
    public List<Tensor> unbind() { return unbind(0); }

    /** A view with dim {@code source} moved to {@code destination}, the others keeping their order. */
    public Tensor movedim(int source, int destination) { return movedim(new int[] {source}, new int[] {destination}); }

    /** A view with each {@code source[i]} moved to {@code destination[i]}, the others keeping their order. */
    public Tensor movedim(int[] source, int[] destination) { return ShapeOps.MOVEDIM.callTensor(this, source, destination); }

    /** A view with two dims exchanged (transpose). */
    public Tensor swapaxes(int axis0, int axis1) { return ShapeOps.SWAPAXES.callTensor(this, (long) axis0, (long) axis1); }

    /** The main diagonal of dims 0 and 1, as the last dim. */
    public Tensor diagonal() { return diagonal(0, 0, 1); }

    /**
     * The elements {@code (i, i + offset)} of dims dim1 and dim2, as the last dim: a view, except
     * where the two dims cannot be merged by a view (a tensor sliced along both), which copies.
     */
    public Tensor diagonal(int offset, int dim1, int dim2) { return ShapeOps.DIAGONAL.callTensor(this, (long) offset, (long) dim1, (long) dim2); }

    /** A vector on the main diagonal of a square matrix, or a matrix's main diagonal as a vector. */
    public Tensor diag() { return diag(0); }

    /** A vector on the k-th diagonal of a square matrix (zeros elsewhere), or a matrix's k-th diagonal as a vector (a copy). */
    public Tensor diag(int k) { return ShapeOps.DIAG.callTensor(this, (long) k); }

    /** The sum of a matrix's main diagonal (int64 for integer matrices). */
    public Tensor trace() { return ShapeOps.TRACE.callTensor(this); }

    /** A view with {@code dim} split into {@code sizes} (one may be -1). */
    public Tensor unflatten(int dim, int... sizes) { return ShapeOps.UNFLATTEN.callTensor(this, (long) dim, sizes); }

    /** Each element repeated {@code repeats} times along {@code dim}. */
    public Tensor repeatInterleave(int repeats, int dim) { return ShapeOps.REPEAT_INTERLEAVE.callTensor(this, (long) repeats, (long) dim); }

    /** Each element of the flattened tensor repeated {@code repeats} times. */
    public Tensor repeatInterleave(int repeats) { return ShapeOps.REPEAT_INTERLEAVE.callTensor(this, (long) repeats); }

    /** Whether every element is nonzero: a bool 0-d tensor. */
    public Tensor all() { return ReductionOps.ALL.callTensor(this); }

    public Tensor all(int dim) { return all(dim, false); }

    /** Whether every element along {@code dim} is nonzero (bool). */
    public Tensor all(int dim, boolean keepdim) { return ReductionOps.ALL_DIM.callTensor(this, (long) dim, keepdim); }

    /** Whether any element is nonzero: a bool 0-d tensor. */
    public Tensor any() { return ReductionOps.ANY.callTensor(this); }

    public Tensor any(int dim) { return any(dim, false); }

    /** Whether any element along {@code dim} is nonzero (bool). */
    public Tensor any(int dim, boolean keepdim) { return ReductionOps.ANY_DIM.callTensor(this, (long) dim, keepdim); }

    /** {@code log Σ exp(x)} over {@code dims}, computed shifted by the max (no overflow; -inf for a slice all -inf). */
    public Tensor logsumexp(int[] dims, boolean keepdim) { return ReductionOps.LOGSUMEXP.callTensor(this, dims, keepdim); }

    public Tensor logsumexp(int dim) { return logsumexp(new int[] {dim}, false); }

    /** The 2-norm of all elements. */
    public Tensor norm() { return ReductionOps.NORM.callTensor(this); }

    /** The p-norm of all elements (p may be infinite, or 0: the count of nonzeros). */
    public Tensor norm(double p) { return ReductionOps.NORM.callTensor(this, p); }

    /** The p-norm over {@code dims} (all dims when empty). */
    public Tensor norm(double p, int[] dims, boolean keepdim) { return ReductionOps.NORM_DIM.callTensor(this, p, dims, keepdim); }

    /** torch.norm's named norm over at most two dims: "fro", the 2-norm of their elements (the only one Ember has). */
    public Tensor norm(String p, int[] dims, boolean keepdim) {
        if (!p.equals("fro")) throw new IllegalArgumentException("norm: the norm '" + p + "' is not supported; Ember has \"fro\" and numeric p");
        if (dims.length > 2) throw new IllegalArgumentException("norm: the Frobenius norm takes at most 2 dims, got " + Arrays.toString(dims));
        return ReductionOps.NORM_DIM.callTensor(this, 2L, dims, keepdim);
    }

    /** How many elements are nonzero (int64). */
    public Tensor countNonzero() { return ReductionOps.COUNT_NONZERO.callTensor(this); }

    /** How many elements are nonzero over {@code dims} (int64). */
    public Tensor countNonzero(int... dims) { return ReductionOps.COUNT_NONZERO_DIMS.callTensor(this, dims); }

    /** The outer product of two vectors: [n] x [m] to [n, m]. */
    public Tensor outer(Tensor vec) { return LinalgOps.OUTER.callTensor(this, vec); }

    /** The inner product of two vectors of one dtype: a 0-d tensor. */
    public Tensor dot(Tensor other) { return LinalgOps.DOT.callTensor(this, other); }

    /** Matrix times vector: [m, k] x [k] to [m]. */
    public Tensor mv(Tensor vec) { return LinalgOps.MV.callTensor(this, vec); }

    /** {@code this + mat @ vec}. */
    public Tensor addmv(Tensor mat, Tensor vec) { return LinalgOps.ADDMV.callTensor(this, mat, vec); }

    /** {@code beta * this + alpha * (mat @ vec)}; with beta 0 this is not read. */
    public Tensor addmv(Tensor mat, Tensor vec, double beta, double alpha) { return LinalgOps.ADDMV.callTensor(this, mat, vec, beta, alpha); }

    /** {@code this + batch1 @ batch2}, this broadcast to the product's shape. */
    public Tensor baddbmm(Tensor batch1, Tensor batch2) { return LinalgOps.BADDBMM.callTensor(this, batch1, batch2); }

    /** {@code beta * this + alpha * (batch1 @ batch2)}; with beta 0 this is not read. */
    public Tensor baddbmm(Tensor batch1, Tensor batch2, double beta, double alpha) { return LinalgOps.BADDBMM.callTensor(this, batch1, batch2, beta, alpha); }

    /**
     * Einstein summation, e.g. {@code einsum("bij,bjk->bik", a, b)}: subscripts a-z A-Z, {@code ...}
     * for unnamed dims; without {@code ->} the output is the subscripts used once, in alphabetical
     * order. A subscript repeated within one operand (a diagonal) is refused.
     */
    public static Tensor einsum(String equation, Tensor... operands) { return LinalgOps.EINSUM.callTensor(equation, List.of(operands)); }

    // ------------------------------------------------------------------ searching sorted sequences (BucketizeOps)

    /** torch.searchsorted: for each value, the first position of {@code sortedSequence} (1-d, or each row of the values' leading dims) whose element is not below it. */
    public static Tensor searchsorted(Tensor sortedSequence, Tensor values) { return searchsorted(sortedSequence, values, false); }

    /** torch.searchsorted with {@code right}: the first position whose element is above the value (side='right'). */
    public static Tensor searchsorted(Tensor sortedSequence, Tensor values, boolean right) {
        return BucketizeOps.SEARCHSORTED.callTensor(sortedSequence, values, false, right, null, null);
    }

    /** torch.searchsorted in full: int32 positions, the side ("left", "right" or null) and a sorter (argsort of an unsorted sequence, or null). */
    public static Tensor searchsorted(Tensor sortedSequence, Tensor values, boolean outInt32, boolean right, String side, Tensor sorter) {
        return BucketizeOps.SEARCHSORTED.callTensor(sortedSequence, values, outInt32, right, side, sorter);
    }

    /** torch.searchsorted of one number: a 0-d position. */
    public static Tensor searchsorted(Tensor sortedSequence, double value, boolean right) {
        return BucketizeOps.SEARCHSORTED_SCALAR.callTensor(sortedSequence, value, false, right, null, null);
    }

    /** torch.bucketize: for each element, the index of the bucket of the 1-d sorted {@code boundaries} it falls in (left-closed buckets: right=False). */
    public Tensor bucketize(Tensor boundaries) { return bucketize(boundaries, false, false); }

    /** torch.bucketize with {@code out_int32} and {@code right}. */
    public Tensor bucketize(Tensor boundaries, boolean outInt32, boolean right) { return BucketizeOps.BUCKETIZE.callTensor(this, boundaries, outInt32, right); }

    // ------------------------------------------------------------------ everyday ops (session 34, ops8): splits, stacks, triangles, combinations

    /** {@code sections} pieces along {@code dim} (views), the first {@code size % sections} one longer: torch.tensor_split. */
    public List<Tensor> tensorSplit(int sections, int dim) { return ShapeOps.TENSOR_SPLIT_SECTIONS.callList(this, (long) sections, (long) dim); }

    public List<Tensor> tensorSplit(int sections) { return tensorSplit(sections, 0); }

    /** Pieces along {@code dim} cut at {@code indices} ({@code [0, i0), [i0, i1), …, [ik, size)}; views). */
    public List<Tensor> tensorSplit(int[] indices, int dim) { return ShapeOps.TENSOR_SPLIT_INDICES.callList(this, indices, (long) dim); }

    /** This with at least one dim (a 0-d tensor as [1]). */
    public Tensor atleast1d() { return ShapeOps.ATLEAST_1D.callTensor(this); }

    /** This with at least two dims (0-d as [1, 1], [n] as [1, n]). */
    public Tensor atleast2d() { return ShapeOps.ATLEAST_2D.callTensor(this); }

    /** This with at least three dims (0-d as [1, 1, 1], [n] as [1, n, 1], [m, n] as [m, n, 1]). */
    public Tensor atleast3d() { return ShapeOps.ATLEAST_3D.callTensor(this); }

    /** Joined column-wise: 1-d (and 0-d) tensors end to end, others along dim 1. */
    public static Tensor hstack(List<Tensor> tensors) { return ShapeOps.HSTACK.callTensor(tensors); }

    /** Joined row-wise: each at least 2-d, concatenated along dim 0. */
    public static Tensor vstack(List<Tensor> tensors) { return ShapeOps.VSTACK.callTensor(tensors); }

    /** Joined depth-wise: each at least 3-d, concatenated along dim 2. */
    public static Tensor dstack(List<Tensor> tensors) { return ShapeOps.DSTACK.callTensor(tensors); }

    /** Joined as columns: 0-d and 1-d tensors as one column each, others along dim 1. */
    public static Tensor columnStack(List<Tensor> tensors) { return ShapeOps.COLUMN_STACK.callTensor(tensors); }

    /** The block-diagonal matrix of the given tensors (each at most 2-d), zeros elsewhere. */
    public static Tensor blockDiag(Tensor... tensors) { return ShapeOps.BLOCK_DIAG.callTensor(List.of(tensors)); }

    /** The last dim as the diagonal of square matrices on the two last dims of a result with one more dim. */
    public Tensor diagEmbed() { return ShapeOps.DIAG_EMBED.callTensor(this); }

    /** The last dim as the {@code offset}-th diagonal of matrices on dims {@code dim1} (rows) and {@code dim2} (columns). */
    public Tensor diagEmbed(int offset, int dim1, int dim2) { return ShapeOps.DIAG_EMBED.callTensor(this, (long) offset, (long) dim1, (long) dim2); }

    /** The [2, count] int64 coordinates of the lower triangle (column − row ≤ offset) of a row × col matrix. */
    public static Tensor trilIndices(int row, int col, int offset) { return ShapeOps.TRIL_INDICES.callTensor((long) row, (long) col, (long) offset); }

    public static Tensor trilIndices(int row, int col) { return trilIndices(row, col, 0); }

    public static Tensor trilIndices(int row, int col, int offset, DType dtype) { return ShapeOps.TRIL_INDICES.callTensor((long) row, (long) col, (long) offset, dtype); }

    /** The [2, count] int64 coordinates of the upper triangle (column − row ≥ offset) of a row × col matrix. */
    public static Tensor triuIndices(int row, int col, int offset) { return ShapeOps.TRIU_INDICES.callTensor((long) row, (long) col, (long) offset); }

    public static Tensor triuIndices(int row, int col) { return triuIndices(row, col, 0); }

    public static Tensor triuIndices(int row, int col, int offset, DType dtype) { return ShapeOps.TRIU_INDICES.callTensor((long) row, (long) col, (long) offset, dtype); }

    /** Every tuple of one element from each 1-d tensor, as rows (itertools.product). */
    public static Tensor cartesianProd(Tensor... tensors) { return ShapeOps.CARTESIAN_PROD.callTensor(List.of(tensors)); }

    /** The pairs of distinct positions of this vector's elements, as rows [n(n-1)/2, 2]. */
    public Tensor combinations() { return ShapeOps.COMBINATIONS.callTensor(this); }

    /** The length-r combinations of this vector's elements as rows (with_replacement: itertools.combinations_with_replacement). */
    public Tensor combinations(int r, boolean withReplacement) { return ShapeOps.COMBINATIONS.callTensor(this, (long) r, withReplacement); }

    /** The Vandermonde matrix of this vector: column j is x^(n-1-j), n = its length. */
    public Tensor vander() { return ShapeOps.VANDER.callTensor(this); }

    /** The Vandermonde matrix with {@code n} columns, powers decreasing (or increasing) left to right. */
    public Tensor vander(int n, boolean increasing) { return ShapeOps.VANDER.callTensor(this, (long) n, increasing); }

    /** {@code |this|} with the sign of {@code other} (-0.0 negative), in the floating dtype. */
    public Tensor copysign(Tensor other) { return MathOps.COPYSIGN.callTensor(this, other); }

    public Tensor copysign(double other) { return MathOps.COPYSIGN_SCALAR.callTensor(this, other); }

    /** Whether each element's sign bit is set ({@code x < 0}, or -0.0). */
    public Tensor signbit() { return MathOps.SIGNBIT.callTensor(this); }

    /** {@code log(x / (1 - x))}, the inverse of sigmoid. */
    public Tensor logit() { return MathOps.LOGIT.callTensor(this); }

    /** logit of this clamped to [eps, 1 - eps]. */
    public Tensor logit(double eps) { return MathOps.LOGIT.callTensor(this, eps); }

    /** The normalized sinc, {@code sin(πx) / (πx)}, 1 at 0. */
    public Tensor sinc() { return MathOps.SINC.callTensor(this); }

    /** The step function: 0 below 0, 1 above, {@code values} at 0 (same dtype as this). */
    public Tensor heaviside(Tensor values) { return MathOps.HEAVISIDE.callTensor(this, values); }

    /** copysign written into this (a floating tensor). */
    public Tensor copysign_(Tensor other) { return MathOps.COPYSIGN__TENSOR.callTensor(this, other); }

    public Tensor copysign_(double other) { return MathOps.COPYSIGN__SCALAR.callTensor(this, other); }

    /** logit written into this. */
    public Tensor logit_() { return MathOps.LOGIT_.callTensor(this); }

    public Tensor logit_(double eps) { return MathOps.LOGIT_.callTensor(this, eps); }

    /** sinc written into this. */
    public Tensor sinc_() { return MathOps.SINC_.callTensor(this); }

    /** heaviside written into this. */
    public Tensor heaviside_(Tensor values) { return MathOps.HEAVISIDE_.callTensor(this, values); }

    /** The elementwise maximum ignoring NaN (NaN only where both are). */
    public Tensor fmax(Tensor other) { return MathOps.FMAX.callTensor(this, other); }

    /** The elementwise minimum ignoring NaN (NaN only where both are). */
    public Tensor fmin(Tensor other) { return MathOps.FMIN.callTensor(this, other); }

    /** The elementwise greatest common divisor of integers (non-negative). */
    public Tensor gcd(Tensor other) { return MathOps.GCD.callTensor(this, other); }

    /** The elementwise least common multiple of integers (non-negative). */
    public Tensor lcm(Tensor other) { return MathOps.LCM.callTensor(this, other); }

    /** The minimum and the maximum of all elements: [min, max]. */
    public List<Tensor> aminmax() { return ReductionOps.AMINMAX.callList(this); }

    /** The minimum and the maximum over {@code dim}: [min, max]. */
    public List<Tensor> aminmax(int dim, boolean keepdim) { return ReductionOps.AMINMAX.callList(this, (long) dim, keepdim); }

    /** Each slice along {@code dim} whose p-norm exceeds {@code maxnorm} scaled down to that norm. */
    public Tensor renorm(double p, int dim, double maxnorm) { return ReductionOps.RENORM.callTensor(this, p, (long) dim, maxnorm); }

    /** The elements of this, read flat, at {@code index} (int64, any shape, negative from the end). */
    public Tensor take(Tensor index) { return IndexingOps.TAKE.callTensor(this, index); }

    // ------------------------------------------------------------------ numpy-style helpers (session 36, ops9)

    /** Degrees to radians ({@code x · π/180}); integers give the default float dtype. */
    public Tensor deg2rad() { return dev.ember.ops.NumericOps.DEG2RAD.callTensor(this); }

    /** Radians to degrees ({@code x · 180/π}). */
    public Tensor rad2deg() { return dev.ember.ops.NumericOps.RAD2DEG.callTensor(this); }

    /** deg2rad in place (a floating tensor). */
    public Tensor deg2rad_() { return dev.ember.ops.NumericOps.DEG2RAD_.callTensor(this); }

    /** rad2deg in place (a floating tensor). */
    public Tensor rad2deg_() { return dev.ember.ops.NumericOps.RAD2DEG_.callTensor(this); }

    /** {@code pow} in float64 whatever the dtypes (torch.float_power). */
    public Tensor floatPower(Tensor exponent) { return dev.ember.ops.NumericOps.FLOAT_POWER_TENSOR_TENSOR.callTensor(this, exponent); }

    public Tensor floatPower(double exponent) { return dev.ember.ops.NumericOps.FLOAT_POWER_TENSOR_SCALAR.callTensor(this, exponent); }

    /** {@code base ^ exponent} in float64 (torch.float_power with a number base). */
    public static Tensor floatPower(double base, Tensor exponent) { return dev.ember.ops.NumericOps.FLOAT_POWER_SCALAR.callTensor(base, exponent); }

    /** {@code x · 2^other} (torch.ldexp). */
    public Tensor ldexp(Tensor other) { return dev.ember.ops.NumericOps.LDEXP.callTensor(this, other); }

    /** ldexp in place: this becomes {@code this · 2^other} (Tensor.ldexp_). */
    public Tensor ldexp_(Tensor other) { return dev.ember.ops.NumericOps.LDEXP_.callTensor(this, other); }

    /** float_power in place; this must be float64, float_power's result dtype (Tensor.float_power_). */
    public Tensor floatPower_(Tensor exponent) { return dev.ember.ops.NumericOps.FLOAT_POWER__TENSOR.callTensor(this, exponent); }

    /** float_power in place by a scalar exponent; this must be float64. */
    public Tensor floatPower_(double exponent) { return dev.ember.ops.NumericOps.FLOAT_POWER__SCALAR.callTensor(this, exponent); }

    /** {@code [mantissa, exponent]} with {@code x = mantissa · 2^exponent}, |mantissa| in [0.5, 1), exponent int32 (torch.frexp). */
    public List<Tensor> frexp() { return dev.ember.ops.NumericOps.FREXP.callList(this); }

    /** The matrix exponential of this (batch of) square matrices (torch.matrix_exp, torch.linalg.matrix_exp). */
    public Tensor matrixExp() { return dev.ember.ops.MatrixExpOps.LINALG_MATRIX_EXP.callTensor(this); }

    /** The integral of {@code y} along {@code dim} by the trapezoid rule at sample points {@code x} (torch.trapezoid(y, x, dim=dim)). */
    public static Tensor trapezoid(Tensor y, Tensor x, int dim) { return dev.ember.ops.NumericOps.TRAPEZOID_X.callTensor(y, x, (long) dim); }

    /** The trapezoid rule with samples {@code dx} apart (torch.trapezoid(y, dx=dx, dim=dim)). */
    public static Tensor trapezoid(Tensor y, double dx, int dim) { return dev.ember.ops.NumericOps.TRAPEZOID_DX.callTensor(y, dx, (long) dim); }

    /** torch.trapezoid(y): unit spacing along the last dim. */
    public static Tensor trapezoid(Tensor y) { return trapezoid(y, 1.0, -1); }

    /** The running trapezoid integral (torch.cumulative_trapezoid(y, x, dim=dim)). */
    public static Tensor cumulativeTrapezoid(Tensor y, Tensor x, int dim) { return dev.ember.ops.NumericOps.CUMULATIVE_TRAPEZOID_X.callTensor(y, x, (long) dim); }

    public static Tensor cumulativeTrapezoid(Tensor y, double dx, int dim) { return dev.ember.ops.NumericOps.CUMULATIVE_TRAPEZOID_DX.callTensor(y, dx, (long) dim); }

    public static Tensor cumulativeTrapezoid(Tensor y) { return cumulativeTrapezoid(y, 1.0, -1); }

    /** The covariance matrix of the rows (variables) over the columns (observations), Bessel-corrected (torch.cov). */
    public Tensor cov() { return cov(1, null, null); }

    /** torch.cov with its correction, integer frequency weights and float observation weights (either may be null). */
    public Tensor cov(int correction, Tensor fweights, Tensor aweights) { return dev.ember.ops.NumericOps.COV.callTensor(this, (long) correction, fweights, aweights); }

    /** Pearson's correlation coefficients of the rows (torch.corrcoef). */
    public Tensor corrcoef() { return dev.ember.ops.NumericOps.CORRCOEF.callTensor(this); }

    /** {@code sections} equal views along dim 1 (dim 0 of a 1-d tensor): torch.hsplit. */
    public List<Tensor> hsplit(int sections) { return dev.ember.ops.NumpyShapeOps.HSPLIT_INT.callList(this, (long) sections); }

    /** Views along dim 1 (dim 0 of a 1-d tensor) cut at {@code indices}: torch.hsplit. */
    public List<Tensor> hsplit(int[] indices) { return dev.ember.ops.NumpyShapeOps.HSPLIT_ARRAY.callList(this, indices); }

    /** {@code sections} equal views along dim 0: torch.vsplit. */
    public List<Tensor> vsplit(int sections) { return dev.ember.ops.NumpyShapeOps.VSPLIT_INT.callList(this, (long) sections); }

    public List<Tensor> vsplit(int[] indices) { return dev.ember.ops.NumpyShapeOps.VSPLIT_ARRAY.callList(this, indices); }

    /** {@code sections} equal views along dim 2: torch.dsplit. */
    public List<Tensor> dsplit(int sections) { return dev.ember.ops.NumpyShapeOps.DSPLIT_INT.callList(this, (long) sections); }

    public List<Tensor> dsplit(int[] indices) { return dev.ember.ops.NumpyShapeOps.DSPLIT_ARRAY.callList(this, indices); }

    /** The values sorted along dim 0 (torch.msort). */
    public Tensor msort() { return dev.ember.ops.NumpyShapeOps.MSORT.callTensor(this); }

    /** The flattened tensor on the main diagonal of a square matrix (torch.diagflat). */
    public Tensor diagflat() { return diagflat(0); }

    /** The flattened tensor on the {@code offset}-th diagonal (above the main one when positive). */
    public Tensor diagflat(int offset) { return dev.ember.ops.NumpyShapeOps.DIAGFLAT.callTensor(this, (long) offset); }

    // ------------------------------------------------------------------ numpy-style everyday ops (session 38, ops14)

    /** The columns in reverse order (torch.fliplr; at least 2-d). */
    public Tensor fliplr() { return dev.ember.ops.NumpyShapeOps.FLIPLR.callTensor(this); }

    /** The rows in reverse order (torch.flipud; at least 1-d). */
    public Tensor flipud() { return dev.ember.ops.NumpyShapeOps.FLIPUD.callTensor(this); }

    /** The elements as one dim, a view where possible (torch.ravel). */
    public Tensor ravel() { return dev.ember.ops.NumpyShapeOps.RAVEL.callTensor(this); }

    /** This tensor expanded to {@code size} (torch.broadcast_to; -1 keeps a size; a view). */
    public Tensor broadcastTo(int... size) { return dev.ember.ops.NumpyShapeOps.BROADCAST_TO.callTensor(this, size); }

    /** The tensors expanded to their common shape (torch.broadcast_tensors; views). */
    public static List<Tensor> broadcastTensors(Tensor... tensors) { return dev.ember.ops.NumpyShapeOps.BROADCAST_TENSORS.callList(List.of(tensors)); }

    /**
     * The shape tensors of these shapes broadcast to (torch.broadcast_shapes, computed from the
     * shapes alone as PyTorch's Python does, without tensors).
     */
    public static int[] broadcastShapes(int[]... shapes) {
        int rank = 0;
        for (int[] shape : shapes) rank = Math.max(rank, shape.length);
        int[] result = new int[rank];
        Arrays.fill(result, 1);
        for (int[] shape : shapes) {
            for (int i = 1; i <= shape.length; i++) {
                int size = shape[shape.length - i], at = rank - i;
                if (size < 0) throw new IllegalArgumentException("broadcast_shapes: Trying to create tensor with negative dimension (" + size + "): (" + size + ")");
                if (size == 1 || size == result[at]) continue;
                if (result[at] != 1) throw new IllegalArgumentException("broadcast_shapes: Shape mismatch: objects cannot be broadcast to a single shape");
                result[at] = size;
            }
        }
        return result;
    }

    /** This tensor summed down to {@code size}, which it must expand to (torch's {@code x.sum_to_size(size)}). */
    public Tensor sumToSize(int... size) { return dev.ember.ops.NumpyShapeOps.SUM_TO_SIZE.callTensor(this, size); }

    /** {@link #split(int, int)}'s pieces as tensors of their own (torch.unsafe_split). */
    public List<Tensor> unsafeSplit(int splitSize, int dim) { return dev.ember.ops.NumpyShapeOps.UNSAFE_SPLIT.callList(this, (long) splitSize, (long) dim); }

    /** {@link #split(int[], int)}'s pieces as tensors of their own (torch.unsafe_split_with_sizes). */
    public List<Tensor> unsafeSplit(int[] sizes, int dim) { return dev.ember.ops.NumpyShapeOps.UNSAFE_SPLIT_WITH_SIZES.callList(this, sizes, (long) dim); }

    /** {@link #chunk(int, int)}'s pieces as tensors of their own (torch.unsafe_chunk). */
    public List<Tensor> unsafeChunk(int chunks, int dim) { return dev.ember.ops.NumpyShapeOps.UNSAFE_CHUNK.callList(this, (long) chunks, (long) dim); }

    /** The last two dims swapped, a view (torch's {@code x.mT}; at least 2-d). */
    public Tensor mT() { return dev.ember.ops.NumpyShapeOps.MT.callTensor(this); }

    /** The conjugate transpose of the last two dims; for real tensors {@link #mT()} (torch's {@code x.mH}). */
    public Tensor mH() { return dev.ember.ops.NumpyShapeOps.MH.callTensor(this); }

    /** torch.adjoint: {@link #mH()}. */
    public Tensor adjoint() { return dev.ember.ops.NumpyShapeOps.ADJOINT.callTensor(this); }

    /** The dims in reverse order, a view (torch's {@code x.T}, which PyTorch deprecates except for 0-d and 2-d tensors). */
    public Tensor T() { return dev.ember.ops.NumpyShapeOps.NUMPY_T.callTensor(this); }

    /** The conjugate transpose of a matrix, a view (torch's {@code x.H}; 0-d or 2-d only). */
    public Tensor H() { return dev.ember.ops.NumpyShapeOps.MATRIX_H.callTensor(this); }

    /**
     * The coordinates in a tensor of {@code shape} of each flat index in {@code indices}, one int64
     * tensor of indices' shape per dim (torch.unravel_index). Written as PyTorch's Python writes
     * it, from ops: {@code indices.unsqueeze(-1) // strides % shape}, unbound along the last dim;
     * as in PyTorch, out-of-range indices wrap rather than fail.
     */
    public static List<Tensor> unravelIndex(Tensor indices, int... shape) {
        if (!indices.dtype().isIntegral()) {
            throw new IllegalArgumentException("unravel_index: expected 'indices' to be integer dtype, but got " + indices.dtype().torchName());
        }
        long[] strides = new long[shape.length], sizes = new long[shape.length];
        long stride = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] < 0) {
                String tuple = Arrays.toString(shape).replace('[', '(').replace(']', ')');
                throw new IllegalArgumentException("unravel_index: 'shape' cannot have negative values, but got " + (shape.length == 1 ? tuple.replace(")", ",)") : tuple));
            }
            strides[i] = stride;
            sizes[i] = shape[i];
            stride *= shape[i];
        }
        return indices.unsqueeze(-1).floorDivide(Tensor.ofLongs(strides)).remainder(Tensor.ofLongs(sizes)).unbind(-1);
    }

    /** {@code this · log1p(other)}, 0 where this is 0, NaN where other is NaN (torch.special.xlog1py). */
    public Tensor xlog1py(Tensor other) { return MathOps.SPECIAL_XLOG1PY.callTensor(this, other); }

    /** {@code −x·log(x)}, 0 at 0, −inf below 0 (torch.special.entr). */
    public Tensor entr() { return MathOps.SPECIAL_ENTR.callTensor(this); }

    /** The modified Bessel function of the first kind, order 0 (torch.i0). */
    public Tensor i0() { return MathOps.I0.callTensor(this); }

    /** {@code e^(−|x|)·I₀(x)} (torch.special.i0e). */
    public Tensor i0e() { return MathOps.SPECIAL_I0E.callTensor(this); }

    /** The modified Bessel function of the first kind, order 1 (torch.special.i1). */
    public Tensor i1() { return MathOps.SPECIAL_I1.callTensor(this); }

    /** {@code e^(−|x|)·I₁(x)} (torch.special.i1e). */
    public Tensor i1e() { return MathOps.SPECIAL_I1E.callTensor(this); }

    /** {@code e^(x²)·erfc(x)}, finite where erfc underflows (torch.special.erfcx). */
    public Tensor erfcx() { return MathOps.SPECIAL_ERFCX.callTensor(this); }

    /** {@code log P(Z ≤ x)} for a standard normal Z, finite far into the left tail (torch.special.log_ndtr). */
    public Tensor logNdtr() { return MathOps.SPECIAL_LOG_NDTR.callTensor(this); }

    /** The standard normal distribution function, {@code P(Z ≤ x)} (torch.special.ndtr). */
    public Tensor ndtr() { return MathOps.SPECIAL_NDTR.callTensor(this); }

    /** The sign of each element (torch.sgn; for real tensors {@link #sign()}). */
    public Tensor sgn() { return MathOps.SGN.callTensor(this); }

    /** Unary plus: this tensor (torch.positive; bools refused). */
    public Tensor positive() { return MathOps.POSITIVE.callTensor(this); }

    /** True division (torch.true_divide, an alias of {@link #div(Tensor)}). */
    public Tensor trueDivide(Tensor other) { return MathOps.TRUE_DIVIDE_TENSOR.callTensor(this, other); }

    public Tensor trueDivide(double other) { return MathOps.TRUE_DIVIDE_SCALAR.callTensor(this, other); }

    /** The next representable float after each element towards {@code other} (torch.nextafter). */
    public Tensor nextafter(Tensor other) { return MathOps.NEXTAFTER.callTensor(this, other); }

    /** {@code this << other} for integers, 0 for shifts outside [0, width) (torch.bitwise_left_shift, Python's {@code <<}). */
    public Tensor bitwiseLeftShift(Tensor other) { return MathOps.BITWISE_LEFT_SHIFT_TENSOR.callTensor(this, other); }

    public Tensor bitwiseLeftShift(long other) { return MathOps.BITWISE_LEFT_SHIFT_TENSOR_SCALAR.callTensor(this, other); }

    public static Tensor bitwiseLeftShift(long self, Tensor other) { return MathOps.BITWISE_LEFT_SHIFT_SCALAR_TENSOR.callTensor(self, other); }

    /** {@code this >> other} for integers, arithmetic (torch.bitwise_right_shift, Python's {@code >>}). */
    public Tensor bitwiseRightShift(Tensor other) { return MathOps.BITWISE_RIGHT_SHIFT_TENSOR.callTensor(this, other); }

    public Tensor bitwiseRightShift(long other) { return MathOps.BITWISE_RIGHT_SHIFT_TENSOR_SCALAR.callTensor(this, other); }

    public static Tensor bitwiseRightShift(long self, Tensor other) { return MathOps.BITWISE_RIGHT_SHIFT_SCALAR_TENSOR.callTensor(self, other); }

    /** The sum of products over the last dims of both (torch.inner; a 0-d operand multiplies). */
    public Tensor inner(Tensor other) { return LinalgOps.INNER.callTensor(this, other); }

    /** The dot product of two 1-d tensors, the first conjugated (torch.vdot; for real tensors {@link #dot(Tensor)}). */
    public Tensor vdot(Tensor other) { return LinalgOps.VDOT.callTensor(this, other); }

    /** The 2-norm of {@code this - other} (torch.dist). */
    public Tensor dist(Tensor other) { return DistanceOps.DIST.callTensor(this, other); }

    /** The p-norm of {@code this - other} (torch.dist(a, b, p)). */
    public Tensor dist(Tensor other, double p) { return DistanceOps.DIST.callTensor(this, other, p); }

    /** Whether each element is one of {@code testElements} (torch.isin), a bool tensor of this shape. */
    public Tensor isin(Tensor testElements) { return isin(testElements, false, false); }

    /** torch.isin with its flags: {@code invert} negates the answer; {@code assumeUnique} changes nothing but speed. */
    public Tensor isin(Tensor testElements, boolean assumeUnique, boolean invert) {
        return IndexingOps.ISIN_TENSOR_TENSOR.callTensor(this, testElements, assumeUnique, invert);
    }

    /** Whether each element equals {@code testElement} (torch.isin against one number). */
    public Tensor isin(double testElement) { return IndexingOps.ISIN_TENSOR_SCALAR.callTensor(this, testElement); }

    public Tensor isin(long testElement) { return IndexingOps.ISIN_TENSOR_SCALAR.callTensor(this, testElement); }

    /** Whether {@code element} is one of {@code testElements}, a 0-d bool (torch.isin(element, test_elements)). */
    public static Tensor isin(double element, Tensor testElements) { return IndexingOps.ISIN_SCALAR_TENSOR.callTensor(element, testElements); }

    public static Tensor isin(long element, Tensor testElements) { return IndexingOps.ISIN_SCALAR_TENSOR.callTensor(element, testElements); }

    /** The coordinates of the nonzero elements, one row each (torch.argwhere). */
    public Tensor argwhere() { return IndexingOps.ARGWHERE.callTensor(this); }

    /** {@code steps} powers of 10 with exponents evenly spaced from start to end (torch.logspace), in the default float dtype. */
    public static Tensor logspace(double start, double end, int steps) { return CreationOps.LOGSPACE.callTensor(start, end, (long) steps); }

    /** torch.logspace(start, end, steps, base). */
    public static Tensor logspace(double start, double end, int steps, double base) { return CreationOps.LOGSPACE.callTensor(start, end, (long) steps, base); }

    /** torch.logspace(start, end, steps, base, dtype=dtype). */
    public static Tensor logspace(double start, double end, int steps, double base, DType dtype) {
        return CreationOps.LOGSPACE.callTensor(start, end, (long) steps, base, dtype);
    }

    /** torch.trapz(y, x, dim=dim): {@link #trapezoid(Tensor, Tensor, int)}. */
    public static Tensor trapz(Tensor y, Tensor x, int dim) { return dev.ember.ops.NumericOps.TRAPZ_X.callTensor(y, x, (long) dim); }

    /** torch.trapz(y, dx=dx, dim=dim): {@link #trapezoid(Tensor, double, int)}. */
    public static Tensor trapz(Tensor y, double dx, int dim) { return dev.ember.ops.NumericOps.TRAPZ_DX.callTensor(y, dx, (long) dim); }

    // ------------------------------------------------------------------ in-place samplers (this tensor refilled from a distribution)

    /** Refills this floating tensor uniformly on [from, to) from the global generator (torch's {@code x.uniform_(from, to)}). */
    public Tensor uniform_(double from, double to) { return CreationOps.UNIFORM_.callTensor(this, from, to, null); }

    public Tensor uniform_(double from, double to, Generator generator) { return CreationOps.UNIFORM_.callTensor(this, from, to, generator); }

    /** Refills this floating tensor from a normal distribution (torch's {@code x.normal_(mean, std)}). */
    public Tensor normal_(double mean, double std) { return CreationOps.NORMAL_.callTensor(this, mean, std, null); }

    public Tensor normal_(double mean, double std, Generator generator) { return CreationOps.NORMAL_.callTensor(this, mean, std, generator); }

    /** Refills this floating tensor from an exponential distribution of rate {@code lambd} (torch's {@code x.exponential_(lambd)}). */
    public Tensor exponential_(double lambd) { return CreationOps.EXPONENTIAL_.callTensor(this, lambd, null); }

    public Tensor exponential_(double lambd, Generator generator) { return CreationOps.EXPONENTIAL_.callTensor(this, lambd, generator); }

    /** Refills this floating tensor from a Cauchy distribution (torch's {@code x.cauchy_(median, sigma)}). */
    public Tensor cauchy_(double median, double sigma) { return CreationOps.CAUCHY_.callTensor(this, median, sigma, null); }

    public Tensor cauchy_(double median, double sigma, Generator generator) { return CreationOps.CAUCHY_.callTensor(this, median, sigma, generator); }

    /** Refills this tensor (any dtype) with trial counts of a geometric distribution, 1, 2, … (torch's {@code x.geometric_(p)}). */
    public Tensor geometric_(double p) { return CreationOps.GEOMETRIC_.callTensor(this, p, null); }

    public Tensor geometric_(double p, Generator generator) { return CreationOps.GEOMETRIC_.callTensor(this, p, generator); }

    /** Refills this floating tensor from a log-normal distribution, mean and std of the log (torch's {@code x.log_normal_(mean, std)}). */
    public Tensor logNormal_(double mean, double std) { return CreationOps.LOG_NORMAL_.callTensor(this, mean, std, null); }

    public Tensor logNormal_(double mean, double std, Generator generator) { return CreationOps.LOG_NORMAL_.callTensor(this, mean, std, generator); }

    /** Refills this tensor with 1 with probability p, else 0 (torch's {@code x.bernoulli_(p)}). */
    public Tensor bernoulli_(double p) { return CreationOps.BERNOULLI__FLOAT.callTensor(this, p, null); }

    public Tensor bernoulli_(double p, Generator generator) { return CreationOps.BERNOULLI__FLOAT.callTensor(this, p, generator); }

    /** Zeros of {@code shape} in this tensor's dtype (torch's {@code x.new_zeros(shape)}). */
    public Tensor newZeros(int... shape) { return zeros(dtype, shape); }

    /** Ones of {@code shape} in this tensor's dtype ({@code x.new_ones(shape)}). */
    public Tensor newOnes(int... shape) { return ones(dtype, shape); }

    /** {@code value} everywhere in {@code shape}, in this tensor's dtype ({@code x.new_full(shape, value)}). */
    public Tensor newFull(int[] shape, double value) { return full(dtype, value, shape); }

    /** An uninitialized tensor of {@code shape} in this tensor's dtype ({@code x.new_empty(shape)}). */
    public Tensor newEmpty(int... shape) { return empty(dtype, shape); }

    /** An uninitialized tensor of t's shape and dtype (torch.empty_like). */
    public static Tensor emptyLike(Tensor t) { return empty(t.dtype, t.shape); }

    /** {@code this + outer(vec1, vec2)}. */
    public Tensor addr(Tensor vec1, Tensor vec2) { return LinalgOps.ADDR.callTensor(this, vec1, vec2); }

    /** {@code beta * this + alpha * outer(vec1, vec2)}; with beta 0 this is not read. */
    public Tensor addr(Tensor vec1, Tensor vec2, double beta, double alpha) { return LinalgOps.ADDR.callTensor(this, vec1, vec2, beta, alpha); }

    /** {@code this + Σ_b batch1[b] @ batch2[b]}. */
    public Tensor addbmm(Tensor batch1, Tensor batch2) { return LinalgOps.ADDBMM.callTensor(this, batch1, batch2); }

    /** {@code beta * this + alpha * Σ_b batch1[b] @ batch2[b]}; with beta 0 this is not read. */
    public Tensor addbmm(Tensor batch1, Tensor batch2, double beta, double alpha) { return LinalgOps.ADDBMM.callTensor(this, batch1, batch2, beta, alpha); }

    /** The q-th quantile of all elements (linear interpolation). */
    public Tensor quantile(double q) { return SortOps.QUANTILE_SCALAR.callTensor(this, q); }

    /** The q-th quantile over {@code dim} (all elements when null); interpolation "linear", "lower", "higher", "midpoint" or "nearest". */
    public Tensor quantile(double q, Integer dim, boolean keepdim, String interpolation) {
        return SortOps.QUANTILE_SCALAR.callTensor(this, q, dim == null ? null : (long) (int) dim, keepdim, interpolation);
    }

    /** The quantiles at each of {@code q} (0-d or 1-d, this dtype), on a new first dim for a 1-d q. */
    public Tensor quantile(Tensor q, Integer dim, boolean keepdim, String interpolation) {
        return SortOps.QUANTILE.callTensor(this, q, dim == null ? null : (long) (int) dim, keepdim, interpolation);
    }

    /** quantile ignoring NaN. */
    public Tensor nanquantile(double q) { return SortOps.NANQUANTILE_SCALAR.callTensor(this, q); }

    public Tensor nanquantile(double q, Integer dim, boolean keepdim, String interpolation) {
        return SortOps.NANQUANTILE_SCALAR.callTensor(this, q, dim == null ? null : (long) (int) dim, keepdim, interpolation);
    }

    public Tensor nanquantile(Tensor q, Integer dim, boolean keepdim, String interpolation) {
        return SortOps.NANQUANTILE.callTensor(this, q, dim == null ? null : (long) (int) dim, keepdim, interpolation);
    }

    // ------------------------------------------------------------------ end of everyday ops (ops8)

    // ------------------------------------------------------------------ determinants, inverse, solve (LuOps)

    /** torch.det / torch.linalg.det of each square matrix (the last two dims). */
    public Tensor det() { return LuOps.DET.callTensor(this); }

    /** torch.slogdet: [sign, log|det|] of each square matrix (sign 0 and -inf for a singular one). */
    public List<Tensor> slogdet() { return LuOps.SLOGDET.callList(this); }

    /** torch.logdet: log(det), NaN for a negative determinant, -inf for a singular matrix. */
    public Tensor logdet() { return LuOps.LOGDET.callTensor(this); }

    /** torch.inverse / torch.linalg.inv of each square matrix; a singular one is refused with ATen's message. */
    public Tensor inverse() { return LuOps.INVERSE.callTensor(this); }

    /** torch.linalg.solve(A, B): X with {@code A X = B}, B a matrix or a vector, batch dims broadcast. */
    public static Tensor linalgSolve(Tensor a, Tensor b) { return LuOps.LINALG_SOLVE.callTensor(a, b, true); }

    /** torch.linalg.solve(A, B, left=left): with {@code left=false}, X with {@code X A = B} (B a matrix). */
    public static Tensor linalgSolve(Tensor a, Tensor b, boolean left) { return LuOps.LINALG_SOLVE.callTensor(a, b, left); }

    /** torch.linalg.cholesky: L lower triangular with {@code A = L Lᵀ} for each symmetric positive-definite matrix. */
    public Tensor cholesky() { return cholesky(false); }

    /** torch.linalg.cholesky with {@code upper}: Lᵀ instead of L. */
    public Tensor cholesky(boolean upper) { return LuOps.LINALG_CHOLESKY.callTensor(this, upper); }

    /** torch.linalg.matrix_power: each square matrix to the power n (negative: of its inverse; 0: the identity). */
    public Tensor matrixPower(int n) { return LuOps.LINALG_MATRIX_POWER.callTensor(this, (long) n); }

    // ------------------------------------------------------------------ QR, SVD, pseudo-inverse (OrthogonalOps)

    /** torch.qr: [Q, R] with Q's orthonormal columns and R upper triangular (the reduced factors). */
    public List<Tensor> qr() { return qr(true); }

    /** torch.qr with {@code some}: false gives the complete factors (Q square). */
    public List<Tensor> qr(boolean some) { return dev.ember.ops.OrthogonalOps.QR.callList(this, some); }

    /** torch.svd: [U, S, V] with {@code A = U diag(S) Vᵀ}, the reduced factors, S descending. */
    public List<Tensor> svd() { return svd(true, true); }

    /** torch.svd with {@code some} (false: U and V square) and {@code computeUv} (false: U and V zero-filled). */
    public List<Tensor> svd(boolean some, boolean computeUv) { return dev.ember.ops.OrthogonalOps.SVD.callList(this, some, computeUv); }

    /** torch.pinverse: the Moore–Penrose pseudo-inverse, singular values below 1e-15 · σ_max dropped. */
    public Tensor pinverse() { return pinverse(1e-15); }

    /** torch.pinverse with {@code rcond}: singular values below {@code rcond · σ_max} dropped. */
    public Tensor pinverse(double rcond) { return dev.ember.ops.OrthogonalOps.PINVERSE.callTensor(this, rcond); }

    // ------------------------------------------------------------------ ATen's aliases (AliasOps): NumPy's and the Array API's names

    /** torch.absolute, an alias of {@link #abs()}. */
    public Tensor absolute() { return dev.ember.ops.AliasOps.ABSOLUTE.callTensor(this); }

    /** torch.Tensor.absolute_, an alias of {@link #abs_()}. */
    public Tensor absolute_() { return abs_(); }

    /** torch.negative, an alias of {@link #neg()}. */
    public Tensor negative() { return dev.ember.ops.AliasOps.NEGATIVE.callTensor(this); }

    /** torch.Tensor.negative_, an alias of {@link #neg_()}. */
    public Tensor negative_() { return neg_(); }

    /** torch.fix, an alias of {@link #trunc()}. */
    public Tensor fix() { return dev.ember.ops.AliasOps.FIX.callTensor(this); }

    /** torch.Tensor.fix_, an alias of {@link #trunc_()}. */
    public Tensor fix_() { return trunc_(); }

    /** torch.arccos, an alias of {@link #acos()}. */
    public Tensor arccos() { return dev.ember.ops.AliasOps.ARCCOS.callTensor(this); }

    /** torch.Tensor.arccos_, an alias of {@link #acos_()}. */
    public Tensor arccos_() { return acos_(); }

    /** torch.arccosh, an alias of {@link #acosh()}. */
    public Tensor arccosh() { return dev.ember.ops.AliasOps.ARCCOSH.callTensor(this); }

    /** torch.Tensor.arccosh_, an alias of {@link #acosh_()}. */
    public Tensor arccosh_() { return acosh_(); }

    /** torch.arcsin, an alias of {@link #asin()}. */
    public Tensor arcsin() { return dev.ember.ops.AliasOps.ARCSIN.callTensor(this); }

    /** torch.Tensor.arcsin_, an alias of {@link #asin_()}. */
    public Tensor arcsin_() { return asin_(); }

    /** torch.arcsinh, an alias of {@link #asinh()}. */
    public Tensor arcsinh() { return dev.ember.ops.AliasOps.ARCSINH.callTensor(this); }

    /** torch.Tensor.arcsinh_, an alias of {@link #asinh_()}. */
    public Tensor arcsinh_() { return asinh_(); }

    /** torch.arctan, an alias of {@link #atan()}. */
    public Tensor arctan() { return dev.ember.ops.AliasOps.ARCTAN.callTensor(this); }

    /** torch.Tensor.arctan_, an alias of {@link #atan_()}. */
    public Tensor arctan_() { return atan_(); }

    /** torch.arctanh, an alias of {@link #atanh()}. */
    public Tensor arctanh() { return dev.ember.ops.AliasOps.ARCTANH.callTensor(this); }

    /** torch.Tensor.arctanh_, an alias of {@link #atanh_()}. */
    public Tensor arctanh_() { return atanh_(); }

    /** torch.arctan2, an alias of {@link #atan2(Tensor)}. */
    public Tensor arctan2(Tensor other) { return dev.ember.ops.AliasOps.ARCTAN2.callTensor(this, other); }

    /** torch.clip, an alias of {@link #clamp(Double, Double)} (either bound may be null). */
    public Tensor clip(Double min, Double max) { return dev.ember.ops.AliasOps.CLIP.callTensor(this, min, max); }

    /** torch.clip with tensor bounds, an alias of {@link #clamp(Tensor, Tensor)}. */
    public Tensor clip(Tensor min, Tensor max) { return dev.ember.ops.AliasOps.CLIP_TENSOR.callTensor(this, min, max); }

    /** torch.Tensor.clip_, an alias of {@link #clamp_(Double, Double)}. */
    public Tensor clip_(Double min, Double max) { return clamp_(min, max); }

    /** torch.Tensor.clip_ with tensor bounds, an alias of {@link #clamp_(Tensor, Tensor)}. */
    public Tensor clip_(Tensor min, Tensor max) { return clamp_(min, max); }

    /** torch.subtract, an alias of {@link #sub(Tensor)}. */
    public Tensor subtract(Tensor other) { return dev.ember.ops.AliasOps.SUBTRACT_TENSOR.callTensor(this, other); }

    /** torch.subtract with alpha: {@code this - alpha * other}. */
    public Tensor subtract(Tensor other, double alpha) { return dev.ember.ops.AliasOps.SUBTRACT_TENSOR.callTensor(this, other, alpha); }

    /** torch.subtract by a number. */
    public Tensor subtract(double other) { return dev.ember.ops.AliasOps.SUBTRACT_SCALAR.callTensor(this, other); }

    /** torch.Tensor.subtract_, an alias of {@link #sub_(Tensor)}. */
    public Tensor subtract_(Tensor other) { return sub_(other); }

    /** torch.multiply, an alias of {@link #mul(Tensor)}. */
    public Tensor multiply(Tensor other) { return dev.ember.ops.AliasOps.MULTIPLY_TENSOR.callTensor(this, other); }

    /** torch.multiply by a number. */
    public Tensor multiply(double other) { return dev.ember.ops.AliasOps.MULTIPLY_SCALAR.callTensor(this, other); }

    /** torch.Tensor.multiply_, an alias of {@link #mul_(Tensor)}. */
    public Tensor multiply_(Tensor other) { return mul_(other); }

    /** torch.divide, an alias of {@link #div(Tensor)}. */
    public Tensor divide(Tensor other) { return dev.ember.ops.AliasOps.DIVIDE_TENSOR.callTensor(this, other); }

    /** torch.divide by a number. */
    public Tensor divide(double other) { return dev.ember.ops.AliasOps.DIVIDE_SCALAR.callTensor(this, other); }

    /** torch.divide with a rounding mode ("trunc", "floor" or null), an alias of {@link #div(Tensor, String)}. */
    public Tensor divide(Tensor other, String roundingMode) { return dev.ember.ops.AliasOps.DIVIDE_TENSOR_MODE.callTensor(this, other, roundingMode); }

    /** torch.divide by a number with a rounding mode. */
    public Tensor divide(double other, String roundingMode) { return dev.ember.ops.AliasOps.DIVIDE_SCALAR_MODE.callTensor(this, other, roundingMode); }

    /** torch.Tensor.divide_, an alias of {@link #div_(Tensor)}. */
    public Tensor divide_(Tensor other) { return div_(other); }

    /** torch.greater, an alias of {@link #gt(Tensor)}. */
    public Tensor greater(Tensor other) { return dev.ember.ops.AliasOps.GREATER_TENSOR.callTensor(this, other); }

    /** torch.greater than a number. */
    public Tensor greater(double other) { return dev.ember.ops.AliasOps.GREATER_SCALAR.callTensor(this, other); }

    /** torch.greater_equal, an alias of {@link #ge(Tensor)}. */
    public Tensor greaterEqual(Tensor other) { return dev.ember.ops.AliasOps.GREATER_EQUAL_TENSOR.callTensor(this, other); }

    /** torch.greater_equal to a number. */
    public Tensor greaterEqual(double other) { return dev.ember.ops.AliasOps.GREATER_EQUAL_SCALAR.callTensor(this, other); }

    /** torch.less, an alias of {@link #lt(Tensor)}. */
    public Tensor less(Tensor other) { return dev.ember.ops.AliasOps.LESS_TENSOR.callTensor(this, other); }

    /** torch.less than a number. */
    public Tensor less(double other) { return dev.ember.ops.AliasOps.LESS_SCALAR.callTensor(this, other); }

    /** torch.less_equal, an alias of {@link #le(Tensor)}. */
    public Tensor lessEqual(Tensor other) { return dev.ember.ops.AliasOps.LESS_EQUAL_TENSOR.callTensor(this, other); }

    /** torch.less_equal to a number. */
    public Tensor lessEqual(double other) { return dev.ember.ops.AliasOps.LESS_EQUAL_SCALAR.callTensor(this, other); }

    /** torch.not_equal, an alias of {@link #ne(Tensor)}. */
    public Tensor notEqual(Tensor other) { return dev.ember.ops.AliasOps.NOT_EQUAL_TENSOR.callTensor(this, other); }

    /** torch.not_equal to a number. */
    public Tensor notEqual(double other) { return dev.ember.ops.AliasOps.NOT_EQUAL_SCALAR.callTensor(this, other); }

    /** torch.concat, an alias of {@link #cat(List, int)}. */
    public static Tensor concat(List<Tensor> tensors, int dim) { return dev.ember.ops.AliasOps.CONCAT.callTensor(tensors, (long) dim); }

    /** torch.concatenate, an alias of {@link #cat(List, int)}. */
    public static Tensor concatenate(List<Tensor> tensors, int dim) { return dev.ember.ops.AliasOps.CONCATENATE.callTensor(tensors, (long) dim); }

    /** torch.row_stack, an alias of {@link #vstack(List)}. */
    public static Tensor rowStack(List<Tensor> tensors) { return dev.ember.ops.AliasOps.ROW_STACK.callTensor(tensors); }

    /** torch.swapdims, an alias of {@link #transpose(int, int)}: a view. */
    public Tensor swapdims(int dim0, int dim1) { return dev.ember.ops.AliasOps.SWAPDIMS.callTensor(this, (long) dim0, (long) dim1); }

    /** torch.moveaxis, an alias of {@link #movedim(int, int)}: a view. */
    public Tensor moveaxis(int source, int destination) { return dev.ember.ops.AliasOps.MOVEAXIS_INT.callTensor(this, (long) source, (long) destination); }

    /** torch.moveaxis, an alias of {@link #movedim(int[], int[])}: a view. */
    public Tensor moveaxis(int[] source, int[] destination) { return dev.ember.ops.AliasOps.MOVEAXIS.callTensor(this, source, destination); }

    /** torch.ger, the old name of {@link #outer(Tensor)}. */
    public Tensor ger(Tensor vec2) { return dev.ember.ops.AliasOps.GER.callTensor(this, vec2); }

    // ------------------------------------------------------------------ complex-number ops on real tensors (ComplexOnRealOps), predicates

    /** torch.real: a real tensor is its own real part (ATen returns self). */
    public Tensor real() { return dev.ember.ops.ComplexOnRealOps.REAL.callTensor(this); }

    /** torch.conj: a real tensor is its own conjugate (ATen returns self). */
    public Tensor conj() { return dev.ember.ops.ComplexOnRealOps.CONJ.callTensor(this); }

    /** torch.conj_physical: a copy, for a real tensor. */
    public Tensor conjPhysical() { return dev.ember.ops.ComplexOnRealOps.CONJ_PHYSICAL.callTensor(this); }

    /** torch.resolve_conj: self (a real tensor has no conjugate bit to resolve). */
    public Tensor resolveConj() { return dev.ember.ops.ComplexOnRealOps.RESOLVE_CONJ.callTensor(this); }

    /** torch.resolve_neg: self (a real tensor has no negative bit to resolve). */
    public Tensor resolveNeg() { return dev.ember.ops.ComplexOnRealOps.RESOLVE_NEG.callTensor(this); }

    /** torch.isreal: all true for a real tensor (bool, self's shape). */
    public Tensor isreal() { return dev.ember.ops.ComplexOnRealOps.ISREAL.callTensor(this); }

    /** torch.angle: 0 for x ≥ 0, π for x &lt; 0, NaN for NaN, in the floating dtype (integers and bools give float32). */
    public Tensor angle() { return dev.ember.ops.ComplexOnRealOps.ANGLE.callTensor(this); }

    /**
     * torch.equal: the same shape and equal elements (compared as {@link #eq(Tensor)} compares them,
     * promoting dtypes, so NaN is unequal to itself). A Java boolean: under Ember.compile it reads
     * the data, as {@code item()} does.
     */
    public boolean equal(Tensor other) {
        return Arrays.equals(shape, other.shape()) && (numel() == 0 || eq(other).all().item() != 0);
    }

    /** torch.is_floating_point: float32 or float64. */
    public boolean isFloatingPoint() { return dtype.isFloatingPoint(); }

    /** torch.is_complex: false, Ember's dtypes are all real. */
    public boolean isComplex() { return false; }

    /** torch.is_signed: true for the floating and signed integer dtypes, false for bool. */
    public boolean isSigned() { return dtype != DType.BOOL; }

    /** torch.Tensor.is_same_size: the same shape. */
    public boolean isSameSize(Tensor other) { return Arrays.equals(shape, other.shape()); }

    /** torch.Tensor.nelement, an alias of {@link #numel()}. */
    public int nelement() { return numel(); }

    /** torch.Tensor.ndimension, an alias of {@link #dim()}. */
    public int ndimension() { return dim(); }

    /** torch.Tensor.element_size: the bytes of one element. */
    public int elementSize() { return dtype.itemSize(); }

    /** torch.is_nonzero: the one element of a one-element tensor is not zero (NaN counts as nonzero); ATen's refusal otherwise. */
    public boolean isNonzero() {
        int n = numel();
        if (n == 0) throw new IllegalArgumentException("Boolean value of Tensor with no values is ambiguous");
        if (n > 1) throw new IllegalArgumentException("Boolean value of Tensor with more than one value is ambiguous");
        return item() != 0;
    }

    /** torch.lu (Tensor.lu): [LU, pivots], the older spelling of linalg.lu_factor_ex that refuses a singular matrix. */
    public List<Tensor> lu() { return lu(false); }

    /** torch.lu with {@code get_infos}: [LU, pivots, infos], a singular matrix reported in infos instead of refused. */
    public List<Tensor> lu(boolean getInfos) {
        List<Tensor> factors = dev.ember.ops.LinalgLuOps.LINALG_LU_FACTOR_EX.callList(this, true, !getInfos);
        return getInfos ? factors : factors.subList(0, 2);
    }

    /** torch.gradient: the derivative of unit-spaced samples along every dim, one tensor per dim (central differences inside, one-sided at the ends). */
    public List<Tensor> gradient() { return gradient(1.0, null, 1); }

    /** torch.gradient(spacing=h, dim=dim, edge_order=1 or 2); a null dim means every dim. */
    public List<Tensor> gradient(double spacing, Integer dim, int edgeOrder) {
        return dev.ember.ops.GradientOps.GRADIENT.callList(this, spacing, dim == null ? null : (long) dim, (long) edgeOrder);
    }

    // ------------------------------------------------------------------ window functions (WindowOps)

    /** torch.hann_window(N, periodic): {@code 0.5 − 0.5 cos(2πk / (N − 1))} (periodic: of N + 1 points, the last dropped), in the default dtype. */
    public static Tensor hannWindow(int length, boolean periodic) { return dev.ember.ops.WindowOps.HANN_WINDOW_PERIODIC.callTensor((long) length, periodic, null); }

    /** The Kaiser window of {@code length} points with shape parameter {@code beta} (torch.kaiser_window; periodic by default, beta 12). */
    public static Tensor kaiserWindow(int length, boolean periodic, double beta) {
        return dev.ember.ops.WindowOps.KAISER_WINDOW_BETA.callTensor((long) length, periodic, beta, null);
    }

    public static Tensor kaiserWindow(int length, boolean periodic, double beta, DType dtype) {
        return dev.ember.ops.WindowOps.KAISER_WINDOW_BETA.callTensor((long) length, periodic, beta, dtype);
    }

    /** torch.hann_window(N, periodic, dtype=dtype). */
    public static Tensor hannWindow(int length, boolean periodic, DType dtype) { return dev.ember.ops.WindowOps.HANN_WINDOW_PERIODIC.callTensor((long) length, periodic, dtype); }

    /** torch.hamming_window(N, periodic): {@code 0.54 − 0.46 cos(2πk / (N − 1))}. */
    public static Tensor hammingWindow(int length, boolean periodic) { return dev.ember.ops.WindowOps.HAMMING_WINDOW_PERIODIC.callTensor((long) length, periodic, null); }

    /** torch.hamming_window(N, periodic, dtype=dtype). */
    public static Tensor hammingWindow(int length, boolean periodic, DType dtype) {
        return dev.ember.ops.WindowOps.HAMMING_WINDOW_PERIODIC.callTensor((long) length, periodic, dtype);
    }

    /** torch.blackman_window(N, periodic): {@code 0.42 − 0.5 cos(2πk / (N − 1)) + 0.08 cos(4πk / (N − 1))}. */
    public static Tensor blackmanWindow(int length, boolean periodic) { return dev.ember.ops.WindowOps.BLACKMAN_WINDOW_PERIODIC.callTensor((long) length, periodic, null); }

    /** torch.blackman_window(N, periodic, dtype=dtype). */
    public static Tensor blackmanWindow(int length, boolean periodic, DType dtype) {
        return dev.ember.ops.WindowOps.BLACKMAN_WINDOW_PERIODIC.callTensor((long) length, periodic, dtype);
    }

    /** torch.bartlett_window(N, periodic): the triangle rising from 0 to 1 and back. */
    public static Tensor bartlettWindow(int length, boolean periodic) { return dev.ember.ops.WindowOps.BARTLETT_WINDOW_PERIODIC.callTensor((long) length, periodic, null); }

    /** torch.bartlett_window(N, periodic, dtype=dtype). */
    public static Tensor bartlettWindow(int length, boolean periodic, DType dtype) {
        return dev.ember.ops.WindowOps.BARTLETT_WINDOW_PERIODIC.callTensor((long) length, periodic, dtype);
    }
}
