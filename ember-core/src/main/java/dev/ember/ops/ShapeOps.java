package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Views (results share their input's storage), copies and joins: view, reshape, permute,
 * transpose, t, unsqueeze, squeeze, expand, narrow, slice, select, flatten, clone, _to_copy,
 * copy_, split, split_with_sizes, chunk, cat, stack; and the composites written with them
 * ({@link ComposedOps}): tril, triu, flip, roll, repeat, tile, expand_as, reshape_as, type_as,
 * unbind, movedim, swapaxes, diagonal, diag, trace, unflatten, repeat_interleave; tensor_split,
 * atleast_1d/2d/3d, hstack, vstack, dstack, column_stack, block_diag, diag_embed, cartesian_prod,
 * combinations, vander; and the creation ops tril_indices and triu_indices.
 */
public final class ShapeOps {
    private ShapeOps() {}

    private static final OpOverload.Kernel VIEW_KERNEL = (a, m) -> a.tensor(0).viewAs((TensorMeta) m);

    @SuppressWarnings("unchecked")
    private static final OpOverload.Kernel VIEWS_KERNEL = (a, m) -> {
        Tensor self = a.tensor(0);
        List<Tensor> out = new ArrayList<>();
        for (TensorMeta meta : (List<TensorMeta>) m) out.add(self.viewAs(meta));
        return out;
    };

    private static TensorMeta meta(Tensor t, int[] shape, int[] strides, int offset) {
        return new TensorMeta(t.dtype(), shape, strides, offset);
    }

    public static final OpOverload VIEW = OpOverload.define("view(Tensor(a) self, int[] size) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int[] shape = Shapes.inferSize("view", a.ints(1), t.numel());
                int[] strides = viewStrides(t.shape(), t.strides(), shape);
                if (strides == null) {
                    throw new IllegalArgumentException("view: size " + Shapes.format(shape) + " is not compatible with input tensor's size "
                            + Shapes.format(t.shape()) + " and stride " + Shapes.format(t.strides())
                            + " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
                }
                return meta(t, shape, strides, t.storageOffset());
            })
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::reshapeBackward)
            .register();

    public static final OpOverload RESHAPE = OpOverload.define("reshape(Tensor(a) self, int[] shape) -> Tensor(a)")
            .meta(a -> {
                Tensor t = a.tensor(0);
                int[] shape = Shapes.inferSize("reshape", a.ints(1), t.numel());
                int[] strides = viewStrides(t.shape(), t.strides(), shape);
                return strides != null ? meta(t, shape, strides, t.storageOffset()) : TensorMeta.contiguous(t.dtype(), shape);
            })
            .kernel((a, m) -> {
                Tensor t = a.tensor(0);
                TensorMeta meta = (TensorMeta) m;
                if (viewStrides(t.shape(), t.strides(), meta.shape()) != null) return t.viewAs(meta);
                Tensor out = Tensor.allocate(meta);
                Copy.copy(t, out.viewAs(TensorMeta.contiguous(t.dtype(), t.shape())));
                return out;
            })
            .derivative(ShapeOps::reshapeBackward)
            .register();

    /**
     * ATen's {@code _unsafe_view}: reshape's result, but a tensor of its own for autograd and alias
     * analysis (no view base, no alias in its schema). Decompositions end in it where the op they
     * replace returns a fresh tensor and they reshape a temporary only they can see (matmul's
     * {@code mm} on the input seen as a matrix): the result must not become a view, or an in-place
     * op on it would meet autograd's rules for views that eager never applies to it.
     */
    public static final OpOverload UNSAFE_VIEW = OpOverload.define("_unsafe_view(Tensor self, int[] size) -> Tensor")
            .meta(a -> RESHAPE.inferMeta(a))
            .kernel((a, m) -> {
                Tensor t = a.tensor(0);
                TensorMeta meta = (TensorMeta) m;
                if (viewStrides(t.shape(), t.strides(), meta.shape()) != null) return Tensor.wrap(t.storage(), meta.shape(), meta.strides(), meta.storageOffset());
                Tensor out = Tensor.allocate(meta);
                Copy.copy(t, out.viewAs(TensorMeta.contiguous(t.dtype(), t.shape())));
                return out;
            })
            .derivative(ShapeOps::reshapeBackward)
            .register();

    public static final OpOverload PERMUTE = OpOverload.define("permute(Tensor(a) self, int[] dims) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int[] dims = a.ints(1);
                int n = t.dim();
                if (dims.length != n) {
                    throw new IllegalArgumentException("permute: number of dims don't match in permute: the tensor has " + n
                            + " dimensions " + Shapes.format(t.shape()) + " but dims has " + dims.length + ": " + Shapes.format(dims));
                }
                int[] shape = new int[n], strides = new int[n], src = t.shape(), st = t.strides();
                boolean[] seen = new boolean[n];
                for (int i = 0; i < n; i++) {
                    int d = Shapes.wrapDim("permute", dims[i], n);
                    if (seen[d]) throw new IllegalArgumentException("permute: repeated dim " + dims[i] + " in " + Shapes.format(dims));
                    seen[d] = true;
                    shape[i] = src[d];
                    strides[i] = st[d];
                }
                return meta(t, shape, strides, t.storageOffset());
            })
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::permuteBackward)
            .register();

    public static final OpOverload TRANSPOSE = OpOverload.define("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int[] shape = t.shape(), strides = t.strides();
                if (t.dim() == 0) {
                    Shapes.wrapDim("transpose", a.integer(1), 0);
                    Shapes.wrapDim("transpose", a.integer(2), 0);
                    return t.meta();
                }
                int d0 = Shapes.wrapDim("transpose", a.integer(1), t.dim()), d1 = Shapes.wrapDim("transpose", a.integer(2), t.dim());
                swap(shape, d0, d1);
                swap(strides, d0, d1);
                return meta(t, shape, strides, t.storageOffset());
            })
            .kernel(VIEW_KERNEL)
            .derivative(g -> new Object[] {g.call(ShapeOps.TRANSPOSE, g.grad(), g.value(1), g.value(2))})
            .register();

    /**
     * {@link Tensor#detach()} in a graph: the same memory and layout, with no autograd history (its
     * output carries no gradient, so AOT's joint graph stops there). Eagerly it is {@code detach()} itself.
     */
    public static final OpOverload DETACH = OpOverload.define("detach(Tensor(a) self) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> a.tensor(0).meta())
            .kernel((a, m) -> a.tensor(0).detach())
            .nonDifferentiableOutputs(0)
            .register();

    public static final OpOverload T = OpOverload.define("t(Tensor(a) self) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                if (t.dim() > 2) throw new IllegalArgumentException("t: expects a tensor with <= 2 dimensions, but self is " + t.dim() + "D " + Shapes.format(t.shape()));
                if (t.dim() < 2) return t.meta();
                int[] shape = t.shape(), strides = t.strides();
                swap(shape, 0, 1);
                swap(strides, 0, 1);
                return meta(t, shape, strides, t.storageOffset());
            })
            .kernel(VIEW_KERNEL)
            .derivative(g -> new Object[] {g.call(ShapeOps.T, g.grad())})
            .register();

    public static final OpOverload UNSQUEEZE = OpOverload.define("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int d = Shapes.wrapDim("unsqueeze", a.integer(1), t.dim() + 1);
                int n = t.dim();
                int[] shape = new int[n + 1], strides = new int[n + 1], s = t.shape(), st = t.strides();
                for (int i = 0, j = 0; i <= n; i++) {
                    if (i == d) {
                        shape[i] = 1;
                        strides[i] = d < n ? s[d] * st[d] : 1;
                    } else {
                        shape[i] = s[j];
                        strides[i] = st[j];
                        j++;
                    }
                }
                return meta(t, shape, strides, t.storageOffset());
            })
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::reshapeBackward)
            .register();

    public static final OpOverload SQUEEZE = OpOverload.define("squeeze(Tensor(a) self) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> squeezeMeta(a.tensor(0), -1))
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::reshapeBackward)
            .register();

    public static final OpOverload SQUEEZE_DIM = OpOverload.define("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> squeezeMeta(a.tensor(0), Shapes.wrapDim("squeeze", a.integer(1), a.tensor(0).dim())))
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::reshapeBackward)
            .register();

    private static TensorMeta squeezeMeta(Tensor t, int onlyDim) {
        int[] s = t.shape(), st = t.strides();
        int[] shape = new int[s.length], strides = new int[s.length];
        int n = 0;
        for (int i = 0; i < s.length; i++) {
            boolean drop = s[i] == 1 && (onlyDim < 0 || onlyDim == i);
            if (!drop) {
                shape[n] = s[i];
                strides[n] = st[i];
                n++;
            }
        }
        return meta(t, Arrays.copyOf(shape, n), Arrays.copyOf(strides, n), t.storageOffset());
    }

    public static final OpOverload EXPAND = OpOverload.define("expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int[] size = a.ints(1), s = t.shape(), st = t.strides();
                if (size.length < s.length) {
                    throw new IllegalArgumentException("expand: the number of sizes provided (" + size.length + ") must be greater or equal to the number of dimensions in the tensor ("
                            + s.length + ")");
                }
                int[] shape = new int[size.length], strides = new int[size.length];
                int lead = size.length - s.length;
                for (int i = 0; i < size.length; i++) {
                    int j = i - lead;
                    if (j < 0) {
                        if (size[i] < 0) throw new IllegalArgumentException("expand: the expanded size of the tensor (" + size[i] + ") isn't allowed in a leading, non-existing dimension " + i);
                        shape[i] = size[i];
                        strides[i] = 0;
                    } else if (size[i] == -1 || size[i] == s[j]) {
                        shape[i] = s[j];
                        strides[i] = st[j];
                    } else if (s[j] == 1) {
                        shape[i] = size[i];
                        strides[i] = 0;
                    } else {
                        throw new IllegalArgumentException("expand: the expanded size of the tensor (" + size[i] + ") must match the existing size (" + s[j]
                                + ") at non-singleton dimension " + i + ".  Target sizes: " + Shapes.format(size) + ".  Tensor sizes: " + Shapes.format(s));
                    }
                }
                return meta(t, shape, strides, t.storageOffset());
            })
            .kernel(VIEW_KERNEL)
            .derivative(g -> new Object[] {g.grad()})
            .register();

    public static final OpOverload SLICE = OpOverload.define("slice.Tensor(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                if (t.dim() == 0) throw new IllegalArgumentException("slice: cannot be applied to a 0-dim tensor");
                int d = Shapes.wrapDim("slice", a.integer(1), t.dim());
                int size = t.size(d);
                long step = a.lng(4);
                if (step <= 0) throw new IllegalArgumentException("slice: step must be positive, got " + step);
                long start = a.get(2) == null ? 0 : a.lng(2), end = a.get(3) == null ? size : a.lng(3);
                if (start < 0) start += size;
                if (end < 0) end += size;
                start = Math.clamp(start, 0, size);
                end = Math.clamp(end, start, size);
                int len = (int) ((end - start + step - 1) / step);
                int[] shape = t.shape(), strides = t.strides();
                shape[d] = len;
                int offset = t.storageOffset() + (int) start * strides[d];
                strides[d] = (int) (strides[d] * step);
                return meta(t, shape, strides, len == 0 ? t.storageOffset() : offset);
            })
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::sliceBackward)
            .register();

    public static final OpOverload NARROW = OpOverload.define("narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                if (t.dim() == 0) throw new IllegalArgumentException("narrow: cannot be applied to a 0-dim tensor");
                int d = Shapes.wrapDim("narrow", a.integer(1), t.dim());
                int size = t.size(d);
                long start = a.lng(2), length = a.lng(3);
                if (start < -size || start > size) throw new IndexOutOfBoundsException("narrow: start (" + start + ") is out of range for dimension " + d + " of size " + size);
                if (start < 0) start += size;
                if (length < 0) throw new IllegalArgumentException("narrow: length must be non-negative, got " + length);
                if (start + length > size) throw new IllegalArgumentException("narrow: start (" + start + ") + length (" + length + ") exceeds dimension size (" + size + ").");
                int[] shape = t.shape(), strides = t.strides();
                shape[d] = (int) length;
                return meta(t, shape, strides, t.storageOffset() + (int) start * strides[d]);
            })
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::narrowBackward)
            .register();

    public static final OpOverload SELECT = OpOverload.define("select.int(Tensor(a) self, int dim, int index) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                if (t.dim() == 0) throw new IllegalArgumentException("select: cannot be applied to a 0-dim tensor");
                int d = Shapes.wrapDim("select", a.integer(1), t.dim());
                int size = t.size(d);
                long index = a.lng(2);
                if (index < -size || index >= size) {
                    throw new IndexOutOfBoundsException("select(): index " + index + " out of range for tensor of size " + Shapes.format(t.shape()) + " at dimension " + d);
                }
                if (index < 0) index += size;
                int[] s = t.shape(), st = t.strides();
                int[] shape = new int[s.length - 1], strides = new int[s.length - 1];
                for (int i = 0, j = 0; i < s.length; i++) {
                    if (i == d) continue;
                    shape[j] = s[i];
                    strides[j] = st[i];
                    j++;
                }
                return meta(t, shape, strides, t.storageOffset() + (int) index * st[d]);
            })
            .kernel(VIEW_KERNEL)
            .derivative(ShapeOps::selectBackward)
            .register();

    public static final OpOverload FLATTEN = OpOverload.define("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)")
            .meta(a -> RESHAPE.inferMeta(RESHAPE.bind(a.tensor(0), flattenShape(a))))
            .kernel((a, m) -> RESHAPE.call(a.tensor(0), flattenShape(a)))
            .derivative(ShapeOps::reshapeBackward)
            .register();

    private static int[] flattenShape(Args a) {
        Tensor t = a.tensor(0);
        if (t.dim() == 0) return new int[] {1};
        int s = Shapes.wrapDim("flatten", a.integer(1), t.dim()), e = Shapes.wrapDim("flatten", a.integer(2), t.dim());
        if (s > e) throw new IllegalArgumentException("flatten: start_dim (" + a.integer(1) + ") cannot come after end_dim (" + a.integer(2) + ")");
        int[] src = t.shape();
        int[] out = new int[src.length - (e - s)];
        int k = 0;
        for (int i = 0; i < s; i++) out[k++] = src[i];
        int prod = 1;
        for (int i = s; i <= e; i++) prod *= src[i];
        out[k++] = prod;
        for (int i = e + 1; i < src.length; i++) out[k++] = src[i];
        return out;
    }

    /**
     * The one element of {@code self} as a 0-d tensor of its dtype: the in-graph form of
     * {@code Tensor.item()} when scalar outputs are captured (ATen's returns a Scalar; a graph
     * value here is a tensor).
     */
    public static final OpOverload LOCAL_SCALAR_DENSE = OpOverload.define("_local_scalar_dense(Tensor self) -> Tensor")
            .meta(a -> {
                Tensor t = a.tensor(0);
                if (t.numel() != 1) {
                    throw new IllegalArgumentException("_local_scalar_dense: a Tensor with " + t.numel() + " elements cannot be converted to a scalar");
                }
                return TensorMeta.contiguous(t.dtype());
            })
            .kernel((a, m) -> a.tensor(0).reshape().clone())
            .register();

    public static final OpOverload CLONE = OpOverload.define("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor")
            .meta(a -> TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape()))
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                Copy.copy(a.tensor(0), out);
                return out;
            })
            .derivative(g -> new Object[] {g.grad()})
            .register();

    public static final OpOverload TO_COPY = OpOverload.define("_to_copy(Tensor self, *, ScalarType? dtype=None) -> Tensor")
            .meta(a -> {
                Tensor t = a.tensor(0);
                return TensorMeta.contiguous(a.get(1) == null ? t.dtype() : a.dtype(1), t.shape());
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                Copy.copy(a.tensor(0), out);
                return out;
            })
            .derivative(g -> new Object[] {g.grad()})
            .register();

    public static final OpOverload COPY_ = OpOverload.define("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)")
            .tags(Tag.INPLACE)
            .meta(a -> {
                Tensor self = a.tensor(0), src = a.tensor(1);
                int[] b = Shapes.broadcast("copy_", self.shape(), src.shape());
                if (!Arrays.equals(b, self.shape())) {
                    throw new IllegalArgumentException("copy_: source of shape " + Shapes.format(src.shape()) + " cannot be broadcast to the destination's shape " + Shapes.format(self.shape()));
                }
                return self.meta();
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), src = a.tensor(1);
                if (src.storage() == self.storage()) src = src.clone();   // overlapping source: read it whole first
                Copy.copy(src, self);
                self.bumpVersion();
                return self;
            })
            .register();

    public static final OpOverload SPLIT = OpOverload.define("split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int d = Shapes.wrapDim("split", a.integer(2), t.dim());
                long size = a.lng(1);
                if (size < 0 || size == 0 && t.size(d) != 0) throw new IllegalArgumentException("split: split_size must be positive, got " + size + " (dimension " + d + " has size " + t.size(d) + ")");
                int n = t.size(d);
                List<Integer> sizes = new ArrayList<>();
                for (int start = 0; start < n || sizes.isEmpty(); start += (int) size) sizes.add((int) Math.min(size, n - start));
                return pieces(t, d, sizes);
            })
            .kernel(VIEWS_KERNEL)
            .derivative(ShapeOps::splitBackward)
            .register();

    public static final OpOverload SPLIT_WITH_SIZES = OpOverload.define("split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                int d = Shapes.wrapDim("split_with_sizes", a.integer(2), t.dim());
                int[] sizes = a.ints(1);
                int total = 0;
                for (int s : sizes) {
                    if (s < 0) throw new IllegalArgumentException("split_with_sizes: split sizes must be non-negative, got " + Shapes.format(sizes));
                    total += s;
                }
                if (total != t.size(d)) {
                    throw new IllegalArgumentException("split_with_sizes: split sizes " + Shapes.format(sizes) + " must sum to the size of dimension " + d + " (" + t.size(d) + "), but sum to " + total);
                }
                return pieces(t, d, Arrays.stream(sizes).boxed().toList());
            })
            .kernel(VIEWS_KERNEL)
            .derivative(ShapeOps::splitBackward)
            .register();

    public static final OpOverload CHUNK = OpOverload.define("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]")
            .tags(Tag.VIEW)
            .meta(a -> {
                Tensor t = a.tensor(0);
                long chunks = a.lng(1);
                if (chunks <= 0) throw new IllegalArgumentException("chunk: chunks must be positive, got " + chunks);
                int d = Shapes.wrapDim("chunk", a.integer(2), t.dim());
                int n = t.size(d);
                // ATen's chunk of an empty dim: `chunks` empty pieces (split by 0 would give one)
                if (n == 0) return pieces(t, d, java.util.Collections.nCopies((int) chunks, 0));
                int each = (int) ((n + chunks - 1) / chunks);
                return SPLIT.inferMeta(SPLIT.bind(t, (long) Math.max(each, 1), (long) d));
            })
            .kernel(VIEWS_KERNEL)
            .derivative(ShapeOps::splitBackward)
            .register();

    private static List<TensorMeta> pieces(Tensor t, int d, List<Integer> sizes) {
        List<TensorMeta> out = new ArrayList<>();
        int start = 0;
        for (int s : sizes) {
            int[] shape = t.shape();
            shape[d] = s;
            out.add(meta(t, shape, t.strides(), t.storageOffset() + (s == 0 ? 0 : start * t.stride(d))));
            start += s;
        }
        return out;
    }

    public static final OpOverload CAT = OpOverload.define("cat(Tensor[] tensors, int dim=0) -> Tensor")
            .meta(a -> {
                List<Tensor> ts = a.tensors(0);
                if (ts.isEmpty()) throw new IllegalArgumentException("cat: expected a non-empty list of Tensors");
                DType dtype = TypePromotion.resultType(ts.toArray());
                Tensor ref = null;
                for (Tensor t : ts) if (!(t.dim() == 1 && t.numel() == 0)) { ref = t; break; }
                if (ref == null) return TensorMeta.contiguous(dtype, 0);
                int d = Shapes.wrapDim("cat", a.integer(1), ref.dim());
                int[] shape = ref.shape();
                int total = 0;
                for (int i = 0; i < ts.size(); i++) {
                    Tensor t = ts.get(i);
                    if (t.dim() == 1 && t.numel() == 0) continue;   // legacy: 1-d empty tensors are skipped
                    if (t.dim() != ref.dim()) {
                        throw new IllegalArgumentException("cat: Tensors must have same number of dimensions: got " + ref.dim() + " and " + t.dim() + " (tensor number " + i + ")");
                    }
                    for (int k = 0; k < shape.length; k++) {
                        if (k != d && t.size(k) != shape[k]) {
                            throw new IllegalArgumentException("cat: Sizes of tensors must match except in dimension " + d + ". Expected size " + shape[k]
                                    + " but got size " + t.size(k) + " for tensor number " + i + " in the list.");
                        }
                    }
                    total += t.size(d);
                }
                shape[d] = total;
                return TensorMeta.contiguous(dtype, shape);
            })
            .kernel((a, m) -> {
                TensorMeta meta = (TensorMeta) m;
                Tensor out = Tensor.allocate(meta);
                if (meta.dim() == 1 && meta.numel() == 0) return out;
                int d = Shapes.wrapDim("cat", a.integer(1), meta.dim());
                int start = 0;
                for (Tensor t : a.tensors(0)) {
                    if (t.dim() == 1 && t.numel() == 0) continue;
                    Copy.copy(t, out.narrow(d, start, t.size(d)));
                    start += t.size(d);
                }
                return out;
            })
            .derivative(ShapeOps::catBackward)
            .register();

    public static final OpOverload STACK = OpOverload.define("stack(Tensor[] tensors, int dim=0) -> Tensor")
            .meta(a -> CAT.inferMeta(CAT.bind(unsqueezeAll(a), a.get(1))))
            .kernel((a, m) -> CAT.call(unsqueezeAll(a), a.get(1)))
            .derivative(ShapeOps::stackBackward)
            .register();

    private static List<Tensor> unsqueezeAll(Args a) {
        List<Tensor> ts = a.tensors(0);
        if (ts.isEmpty()) throw new IllegalArgumentException("stack: expects a non-empty TensorList");
        int[] first = ts.get(0).shape();
        int d = Shapes.wrapDim("stack", a.integer(1), first.length + 1);
        List<Tensor> out = new ArrayList<>();
        for (int i = 0; i < ts.size(); i++) {
            if (!Arrays.equals(ts.get(i).shape(), first)) {
                throw new IllegalArgumentException("stack: expects each tensor to be equal size, but got " + Shapes.format(first) + " at entry 0 and "
                        + Shapes.format(ts.get(i).shape()) + " at entry " + i);
            }
            out.add((Tensor) UNSQUEEZE.call(ts.get(i), (long) d));
        }
        return out;
    }

    // ------------------------------------------------------------------ composites (defined by their decompositions)

    /** The lower triangle of the last two dims (elements with {@code j - i <= diagonal}), the rest zero. */
    public static final OpOverload TRIL = ComposedOps.define("tril(Tensor self, int diagonal=0) -> Tensor",
            a -> checkMatrices("tril", a.tensor(0)), (e, a) -> triangle(e, a, true));

    /** The upper triangle of the last two dims (elements with {@code j - i >= diagonal}), the rest zero. */
    public static final OpOverload TRIU = ComposedOps.define("triu(Tensor self, int diagonal=0) -> Tensor",
            a -> checkMatrices("triu", a.tensor(0)), (e, a) -> triangle(e, a, false));

    /** A copy with the order of elements reversed along each of {@code dims}: one index_select per dim. */
    public static final OpOverload FLIP = ComposedOps.define("flip(Tensor self, int[] dims) -> Tensor",
            a -> ReductionOps.reducedDims("flip", a.ints(1), a.tensor(0).dim()),
            (e, a) -> {
                Object x = a[0];
                int[] shape = e.meta(x).shape();
                for (int d : Composites.toInts(a[1])) {
                    if (shape.length == 0) break;
                    int w = Shapes.wrapDim("flip", d, shape.length), n = shape[w];
                    if (n > 1) x = e.call(IndexingOps.INDEX_SELECT, x, (long) w, e.call(CreationOps.ARANGE, n - 1L, -1L, -1L));
                }
                return x == a[0] ? e.call(ShapeOps.CLONE, x) : x;
            });

    /**
     * Elements shifted cyclically by {@code shifts[i]} along {@code dims[i]} (two slices joined by cat);
     * with no dims, along the tensor flattened, then shaped back.
     */
    public static final OpOverload ROLL = ComposedOps.define("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor",
            a -> {
                int[] shifts = a.ints(1), dims = a.ints(2);
                if (shifts.length == 0) throw new IllegalArgumentException("roll: `shifts` required");
                if (dims.length == 0 ? shifts.length != 1 : shifts.length != dims.length) {
                    throw new IllegalArgumentException("roll: shifts and dimensions must align. shifts: " + shifts.length + ", dims:" + dims.length);
                }
                for (int d : dims) Shapes.wrapDim("roll", d, a.tensor(0).dim());
            },
            (e, a) -> {
                int[] shifts = Composites.toInts(a[1]), dims = Composites.toInts(a[2]), shape = e.meta(a[0]).shape();
                if (dims.length == 0) {
                    Object flat = e.call(ShapeOps.RESHAPE, a[0], new int[] {Shapes.numel(shape)});
                    Object rolled = rollDim(e, flat, 0, shifts[0]);
                    return rolled == flat ? e.call(ShapeOps.CLONE, a[0]) : e.call(ShapeOps.RESHAPE, rolled, shape);
                }
                Object x = a[0];
                for (int i = 0; i < dims.length; i++) x = rollDim(e, x, Shapes.wrapDim("roll", dims[i], shape.length), shifts[i]);
                return x == a[0] ? e.call(ShapeOps.CLONE, x) : x;
            });

    /**
     * The tensor tiled {@code repeats[i]} times along dim i (leading repeats add dims): a view with a
     * stride-0 dim before each dim, expanded, then reshaped (which copies).
     */
    public static final OpOverload REPEAT = ComposedOps.define("repeat(Tensor self, SymInt[] repeats) -> Tensor",
            a -> {
                int[] repeats = a.ints(1);
                if (repeats.length < a.tensor(0).dim()) {
                    throw new IllegalArgumentException("repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
                }
                int[] target = repeatedShape(a.tensor(0).shape(), repeats);
                for (int size : target) {
                    if (size < 0) throw new IllegalArgumentException("repeat: Trying to create tensor with negative dimension " + size + ": " + Shapes.format(target));
                }
            },
            (e, a) -> {
                int[] repeats = Composites.toInts(a[1]), shape = e.meta(a[0]).shape();
                int r = repeats.length, lead = r - shape.length;
                int[] spread = new int[2 * r], expanded = new int[2 * r];
                for (int i = 0; i < r; i++) {
                    int size = i < lead ? 1 : shape[i - lead];
                    spread[2 * i] = 1;
                    spread[2 * i + 1] = size;
                    expanded[2 * i] = repeats[i];
                    expanded[2 * i + 1] = size;
                }
                Object x = e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, a[0], spread), expanded);
                return e.call(ShapeOps.RESHAPE, x, repeatedShape(shape, repeats));
            });

    /** {@code repeat}, with repeats padded by leading ones when fewer than the tensor's dims (numpy's tile). */
    public static final OpOverload TILE = ComposedOps.define("tile(Tensor self, SymInt[] dims) -> Tensor",
            (e, a) -> {
                int[] reps = Composites.toInts(a[1]);
                int nd = e.meta(a[0]).dim();
                if (reps.length < nd) {
                    int[] padded = new int[nd];
                    Arrays.fill(padded, 0, nd - reps.length, 1);
                    System.arraycopy(reps, 0, padded, nd - reps.length, reps.length);
                    reps = padded;
                }
                return e.call(ShapeOps.REPEAT, a[0], reps);
            });

    /** A view of self expanded to other's shape. */
    public static final OpOverload EXPAND_AS = ComposedOps.define("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", (e, a) -> e.call(ShapeOps.EXPAND, a[0], e.meta(a[1]).shape()));

    /** self reshaped to other's shape: a view where the strides allow one, as reshape. */
    public static final OpOverload RESHAPE_AS = ComposedOps.define("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)", (e, a) -> e.call(ShapeOps.RESHAPE, a[0], e.meta(a[1]).shape()));

    /** self converted to other's dtype; self itself when it already has it (ATen's {@code to}). */
    public static final OpOverload TYPE_AS = ComposedOps.define("type_as(Tensor self, Tensor other) -> Tensor",
            (e, a) -> e.meta(a[0]).dtype() == e.meta(a[1]).dtype() ? a[0] : e.call(ShapeOps.TO_COPY, a[0], e.meta(a[1]).dtype()));

    /** Each index along {@code dim} as a view (select), in order. */
    public static final OpOverload UNBIND = ComposedOps.define("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
            a -> {
                if (a.tensor(0).dim() == 0) throw new IllegalArgumentException("unbind: Dimension specified as " + a.integer(1) + " but tensor has no dimensions");
                Shapes.wrapDim("unbind", a.integer(1), a.tensor(0).dim());
            },
            (e, a) -> {
                int[] shape = e.meta(a[0]).shape();
                int d = Shapes.wrapDim("unbind", ((Number) a[1]).intValue(), shape.length);
                List<Object> out = new ArrayList<>(shape[d]);
                for (long i = 0; i < shape[d]; i++) out.add(e.call(ShapeOps.SELECT, a[0], (long) d, i));
                return out;
            });

    /** A view with dims {@code source[i]} moved to positions {@code destination[i]}, the others keeping their order (a permute). */
    public static final OpOverload MOVEDIM = ComposedOps.define("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
            a -> movedimOrder(a.tensor(0).dim(), a.ints(1), a.ints(2)),
            (e, a) -> e.call(ShapeOps.PERMUTE, a[0], movedimOrder(e.meta(a[0]).dim(), Composites.toInts(a[1]), Composites.toInts(a[2]))));

    /** numpy's name for transpose: a view with two dims exchanged. */
    public static final OpOverload SWAPAXES = ComposedOps.define("swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
            a -> {
                Shapes.wrapDim("swapaxes", a.integer(1), a.tensor(0).dim());
                Shapes.wrapDim("swapaxes", a.integer(2), a.tensor(0).dim());
            },
            (e, a) -> e.call(ShapeOps.TRANSPOSE, a[0], a[1], a[2]));

    /**
     * The elements {@code (i, i + offset)} of dims dim1 and dim2, as a new last dim. A view (the two
     * dims moved last, merged by a view, then every (n+1)-th element) where the two dims can be
     * merged, either way round; a copy otherwise (a tensor sliced along both dims), as reshape is.
     */
    public static final OpOverload DIAGONAL = ComposedOps.define("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
            a -> {
                int nd = a.tensor(0).dim();
                int d1 = Shapes.wrapDim("diagonal", a.integer(2), nd), d2 = Shapes.wrapDim("diagonal", a.integer(3), nd);
                if (d1 == d2) throw new IllegalArgumentException("diagonal: diagonal dimensions cannot be identical " + a.integer(2) + ", " + a.integer(3));
            },
            ShapeOps::diagonal);

    /** A 1-d tensor as the {@code diagonal}-th diagonal of a square matrix (zeros elsewhere); a matrix's diagonal as a 1-d copy. */
    public static final OpOverload DIAG = ComposedOps.define("diag(Tensor self, int diagonal=0) -> Tensor",
            a -> {
                int nd = a.tensor(0).dim();
                if (nd != 1 && nd != 2) throw new IllegalArgumentException("diag: diag(): Supports 1D or 2D tensors. Got " + nd + "D");
            },
            (e, a) -> {
                if (e.meta(a[0]).dim() == 2) return e.call(ShapeOps.CLONE, e.call(ShapeOps.DIAGONAL, a[0], a[1], 0L, 1L));
                TensorMeta v = e.meta(a[0]);
                int k = ((Number) a[1]).intValue(), size = v.shape()[0] + Math.abs(k);
                Object padded = k == 0 ? a[0] : e.call(ShapeOps.CAT, List.of(a[0], e.call(CreationOps.ZEROS, new int[] {Math.abs(k)}, v.dtype())), 0L);
                // k >= 0: row i holds v[i] (at column i + k); k < 0: column j holds v[j] (at row j - k)
                Object line = e.call(ShapeOps.RESHAPE, padded, k >= 0 ? new int[] {size, 1} : new int[] {1, size});
                Object offDiagonal = e.call(PointwiseOps.NE_SCALAR, columnMinusRow(e, size, size), (long) k);
                return e.call(PointwiseOps.MASKED_FILL_SCALAR, e.call(ShapeOps.EXPAND, line, new int[] {size, size}), offDiagonal, 0L);
            });

    /** The sum of a matrix's diagonal; integer matrices sum to int64, as sum does. */
    public static final OpOverload TRACE = ComposedOps.define("trace(Tensor self) -> Tensor",
            a -> {
                Tensor t = a.tensor(0);
                if (t.dim() != 2) throw new IllegalArgumentException("trace: expected a matrix, but got tensor with dim " + t.dim());
                if (t.dtype() == DType.BOOL) throw new IllegalArgumentException("trace: \"trace\" not implemented for 'Bool'");
            },
            (e, a) -> e.call(ReductionOps.SUM, e.call(ShapeOps.DIAGONAL, a[0], 0L, 0L, 1L)));

    /** A view with dim split into {@code sizes} (one of them may be -1). */
    public static final OpOverload UNFLATTEN = ComposedOps.define("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
            a -> unflattenShape(a.tensor(0).shape(), a.integer(1), a.ints(2)),
            (e, a) -> e.call(ShapeOps.VIEW, a[0], unflattenShape(e.meta(a[0]).shape(), ((Number) a[1]).intValue(), Composites.toInts(a[2]))));

    /**
     * A copy rotated by 90° {@code k} times in the plane of {@code dims}, from the first dim's
     * direction toward the second's (ATen's rot90): a flip of one dim and a transpose (k = 1 or 3),
     * a flip of both (k = 2), or a copy (k = 0), k taken modulo 4.
     */
    public static final OpOverload ROT90 = ComposedOps.define("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor",
            a -> rot90Dims(a.ints(2), a.tensor(0).dim()),
            (e, a) -> {
                int[] dims = rot90Dims(Composites.toInts(a[2]), e.meta(a[0]).dim());
                int k = Math.floorMod(((Number) a[1]).intValue(), 4);
                return switch (k) {
                    case 1 -> e.call(ShapeOps.TRANSPOSE, e.call(ShapeOps.FLIP, a[0], new int[] {dims[1]}), (long) dims[0], (long) dims[1]);
                    case 2 -> e.call(ShapeOps.FLIP, a[0], dims);
                    case 3 -> e.call(ShapeOps.TRANSPOSE, e.call(ShapeOps.FLIP, a[0], new int[] {dims[0]}), (long) dims[0], (long) dims[1]);
                    default -> e.call(ShapeOps.CLONE, a[0]);
                };
            });

    /** rot90's two dims, wrapped, after ATen's checks and messages. */
    private static int[] rot90Dims(int[] dims, int rank) {
        if (dims.length != 2) throw new IllegalArgumentException("rot90: expected total rotation dims == 2, but got dims = " + dims.length);
        if (rank < 2) throw new IllegalArgumentException("rot90: expected total dims >= 2, but got total dims = " + rank);
        if (dims[0] == dims[1] || Math.abs(dims[0] - dims[1]) == rank) {
            throw new IllegalArgumentException("rot90: expected rotation dims to be different, but got dim0 = " + dims[0] + " and dim1 = " + dims[1]);
        }
        if (dims[0] >= rank || dims[0] < -rank) throw new IllegalArgumentException("rot90: Rotation dim0 out of range, dim0 = " + dims[0]);
        if (dims[1] >= rank || dims[1] < -rank) throw new IllegalArgumentException("rot90: Rotation dim1 out of range, dim1 = " + dims[1]);
        return new int[] {Math.floorMod(dims[0], rank), Math.floorMod(dims[1], rank)};
    }

    /** Each element repeated {@code repeats} times in place along {@code dim} (of the flattened tensor when dim is None). */
    public static final OpOverload REPEAT_INTERLEAVE = ComposedOps.define(
                    "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
            a -> {
                if (a.lng(1) < 0) throw new IllegalArgumentException("repeat_interleave: Repeats must be non-negative");
                if (a.get(2) != null) Shapes.wrapDim("repeat_interleave", a.integer(2), a.tensor(0).dim());
            },
            (e, a) -> {
                Object x = a[2] == null ? e.call(ShapeOps.RESHAPE, a[0], new int[] {e.meta(a[0]).numel()}) : a[0];
                int[] shape = e.meta(x).shape();
                int d = a[2] == null ? 0 : Shapes.wrapDim("repeat_interleave", ((Number) a[2]).intValue(), shape.length);
                int r = ((Number) a[1]).intValue();
                int[] expanded = new int[shape.length + 1];
                for (int i = 0, j = 0; i < expanded.length; i++) expanded[i] = i == d + 1 ? r : shape[j++];
                int[] result = shape.clone();
                if (shape.length > 0) result[d] *= r;
                Object spread = e.call(ShapeOps.EXPAND, e.call(ShapeOps.UNSQUEEZE, x, (long) d + 1), expanded);
                return e.call(ShapeOps.RESHAPE, spread, shape.length == 0 ? new int[] {r} : result);
            });

    // ------------------------------------------------------------------ everyday shape and creation composites (session 34, ops8)

    /**
     * {@code sections} views along {@code dim}, the first {@code size % sections} one element longer
     * (numpy's array_split; unlike split, any number of sections, empty ones included).
     */
    public static final OpOverload TENSOR_SPLIT_SECTIONS = ComposedOps.define("tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]",
            a -> {
                checkTensorSplit(a);
                if (a.lng(1) <= 0) throw new IllegalArgumentException("tensor_split: number of sections must be larger than 0, got " + a.lng(1));
            },
            (e, a) -> {
                int[] shape = e.meta(a[0]).shape();
                int d = Shapes.wrapDim("tensor_split", ((Number) a[2]).intValue(), shape.length);
                int sections = ((Number) a[1]).intValue(), each = shape[d] / sections, longer = shape[d] % sections;
                List<Object> out = new ArrayList<>(sections);
                for (int i = 0, start = 0; i < sections; i++) {
                    int size = i < longer ? each + 1 : each;
                    out.add(e.call(ShapeOps.SLICE, a[0], (long) d, (long) start, (long) (start + size), 1L));
                    start += size;
                }
                return out;
            });

    /**
     * Views along {@code dim} cut at {@code indices}: {@code [0, i0), [i0, i1), …, [ik, size)}, each
     * bound taken as slice takes it (negative from the end, clamped to the size; a cut before the
     * previous one gives an empty piece).
     */
    public static final OpOverload TENSOR_SPLIT_INDICES = ComposedOps.define("tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
            ShapeOps::checkTensorSplit,
            (e, a) -> {
                int[] shape = e.meta(a[0]).shape(), cuts = Composites.toInts(a[1]);
                int d = Shapes.wrapDim("tensor_split", ((Number) a[2]).intValue(), shape.length);
                List<Object> out = new ArrayList<>(cuts.length + 1);
                long start = 0;
                for (int cut : cuts) {
                    out.add(e.call(ShapeOps.SLICE, a[0], (long) d, start, (long) cut, 1L));
                    start = cut;
                }
                out.add(e.call(ShapeOps.SLICE, a[0], (long) d, start, (long) shape[d], 1L));
                return out;
            });

    private static void checkTensorSplit(Args a) {
        Tensor t = a.tensor(0);
        if (t.dim() == 0) throw new IllegalArgumentException("tensor_split: tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        Shapes.wrapDim("tensor_split", a.integer(2), t.dim());
    }

    /** self with at least one dim: a 0-d tensor as shape [1], any other as it is. */
    public static final OpOverload ATLEAST_1D = ComposedOps.define("atleast_1d(Tensor self) -> Tensor", (e, a) -> atLeast(e, a[0], 1));

    /** self with at least two dims: 0-d as [1, 1], a vector [n] as a row [1, n]. */
    public static final OpOverload ATLEAST_2D = ComposedOps.define("atleast_2d(Tensor self) -> Tensor", (e, a) -> atLeast(e, a[0], 2));

    /** self with at least three dims: 0-d as [1, 1, 1], [n] as [1, n, 1], [m, n] as [m, n, 1] (numpy's atleast_3d). */
    public static final OpOverload ATLEAST_3D = ComposedOps.define("atleast_3d(Tensor self) -> Tensor", (e, a) -> atLeast(e, a[0], 3));

    private static Object atLeast(OpEmitter e, Object x, int dims) {
        int[] shape = e.meta(x).shape();
        if (shape.length >= dims) return x;
        if (shape.length == 0) {
            int[] ones = new int[dims];
            Arrays.fill(ones, 1);
            return e.call(ShapeOps.RESHAPE, x, ones);
        }
        if (dims == 2) return e.call(ShapeOps.UNSQUEEZE, x, 0L);
        // dims == 3: a vector becomes [1, n, 1], a matrix [m, n, 1]
        Object lifted = shape.length == 1 ? e.call(ShapeOps.UNSQUEEZE, x, 0L) : x;
        return e.call(ShapeOps.UNSQUEEZE, lifted, -1L);
    }

    /** Joined column-wise: vectors (and 0-d tensors) end to end, anything with more dims along dim 1. */
    public static final OpOverload HSTACK = ComposedOps.define("hstack(Tensor[] tensors) -> Tensor",
            a -> nonEmpty(a, "hstack"),
            (e, a) -> {
                List<Object> parts = atLeastAll(e, a[0], 1);
                return e.call(ShapeOps.CAT, parts, e.meta(parts.get(0)).dim() == 1 ? 0L : 1L);
            });

    /** Joined row-wise: each made at least 2-d (a vector a row), then concatenated along dim 0. */
    public static final OpOverload VSTACK = ComposedOps.define("vstack(Tensor[] tensors) -> Tensor",
            a -> nonEmpty(a, "vstack"), (e, a) -> e.call(ShapeOps.CAT, atLeastAll(e, a[0], 2), 0L));

    /** Joined depth-wise: each made at least 3-d (see atleast_3d), then concatenated along dim 2. */
    public static final OpOverload DSTACK = ComposedOps.define("dstack(Tensor[] tensors) -> Tensor",
            a -> nonEmpty(a, "dstack"), (e, a) -> e.call(ShapeOps.CAT, atLeastAll(e, a[0], 3), 2L));

    /** Joined as columns: 0-d and 1-d tensors each become one column [n, 1], others stay; concatenated along dim 1. */
    public static final OpOverload COLUMN_STACK = ComposedOps.define("column_stack(Tensor[] tensors) -> Tensor",
            a -> nonEmpty(a, "column_stack"),
            (e, a) -> {
                List<Object> columns = new ArrayList<>();
                for (Object t : (List<?>) a[0]) {
                    TensorMeta m = e.meta(t);
                    columns.add(m.dim() <= 1 ? e.call(ShapeOps.RESHAPE, t, new int[] {m.numel(), 1}) : t);
                }
                return e.call(ShapeOps.CAT, columns, 1L);
            });

    private static void nonEmpty(Args a, String op) {
        if (a.tensors(0).isEmpty()) throw new IllegalArgumentException(op + ": " + op + " expects a non-empty TensorList");
    }

    private static List<Object> atLeastAll(OpEmitter e, Object tensors, int dims) {
        List<Object> out = new ArrayList<>();
        for (Object t : (List<?>) tensors) out.add(atLeast(e, t, dims));
        return out;
    }

    /**
     * The block-diagonal matrix of the inputs (each 0-d as [1, 1], 1-d as a row [1, n], 2-d as it
     * is), zeros elsewhere, in their promoted dtype; no inputs give an empty [1, 0] matrix, as ATen's.
     */
    public static final OpOverload BLOCK_DIAG = ComposedOps.define("block_diag(Tensor[] tensors) -> Tensor",
            a -> {
                List<Tensor> ts = a.tensors(0);
                for (int i = 0; i < ts.size(); i++) {
                    if (ts.get(i).dim() > 2) {
                        throw new IllegalArgumentException("block_diag: torch.block_diag: Input tensors must have 2 or fewer dimensions. Input " + i
                                + " has " + ts.get(i).dim() + " dimensions");
                    }
                }
            },
            (e, a) -> {
                List<?> ts = (List<?>) a[0];
                if (ts.isEmpty()) return e.call(CreationOps.ZEROS, new int[] {1, 0}, dev.ember.tensor.Defaults.dtype());
                DType dtype = ts.stream().map(e::meta).map(TensorMeta::dtype).reduce(DType::promote).orElseThrow();
                List<Object> blocks = new ArrayList<>();
                int width = 0;
                for (Object t : ts) {
                    Object block = e.call(ShapeOps.RESHAPE, t, blockShape(e.meta(t)));
                    if (e.meta(t).dtype() != dtype) block = e.call(ShapeOps.TO_COPY, block, dtype);
                    blocks.add(block);
                    width += e.meta(block).shape()[1];
                }
                List<Object> rows = new ArrayList<>();
                int left = 0;
                for (Object block : blocks) {
                    int w = e.meta(block).shape()[1];
                    rows.add(e.call(NnOps.CONSTANT_PAD_ND, block, new int[] {left, width - left - w}, 0L));
                    left += w;
                }
                return e.call(ShapeOps.CAT, rows, 0L);
            });

    private static int[] blockShape(TensorMeta m) {
        return switch (m.dim()) {
            case 0 -> new int[] {1, 1};
            case 1 -> new int[] {1, m.shape()[0]};
            default -> m.shape();
        };
    }

    /**
     * The last dim of self as the {@code offset}-th diagonal of square matrices of size
     * {@code n + |offset|} placed on dims {@code dim1} (rows) and {@code dim2} (columns) of a result
     * with one more dim, zeros elsewhere: the inverse of diagonal.
     */
    public static final OpOverload DIAG_EMBED = ComposedOps.define("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
            a -> {
                Tensor t = a.tensor(0);
                // ATen's order: the dims, then their identity, then the last dim of self
                int d1 = Shapes.wrapDim("diag_embed", a.integer(2), t.dim() + 1), d2 = Shapes.wrapDim("diag_embed", a.integer(3), t.dim() + 1);
                if (d1 == d2) throw new IllegalArgumentException("diag_embed: diagonal dimensions cannot be identical " + a.integer(2) + ", " + a.integer(3));
                if (t.dim() == 0) throw new IndexOutOfBoundsException("diag_embed: Dimension specified as -1 but tensor has no dimensions");
            },
            (e, a) -> {
                TensorMeta v = e.meta(a[0]);
                int nd = v.dim(), k = ((Number) a[1]).intValue(), size = v.shape()[nd - 1] + Math.abs(k);
                Object padded = a[0];
                if (k != 0) {
                    int[] zerosShape = v.shape();
                    zerosShape[nd - 1] = Math.abs(k);
                    padded = e.call(ShapeOps.CAT, List.of(a[0], e.call(CreationOps.ZEROS, zerosShape, v.dtype())), (long) nd - 1);
                }
                // as diag: offset >= 0 puts element i on row i (at column i + k), offset < 0 on column i (at row i - k)
                Object line = e.call(ShapeOps.UNSQUEEZE, padded, k >= 0 ? (long) nd : (long) nd - 1);
                int[] square = Arrays.copyOf(v.shape(), nd + 1);
                square[nd - 1] = size;
                square[nd] = size;
                Object offDiagonal = e.call(PointwiseOps.NE_SCALAR, columnMinusRow(e, size, size), (long) k);
                Object matrices = e.call(PointwiseOps.MASKED_FILL_SCALAR, e.call(ShapeOps.EXPAND, line, square), offDiagonal, 0L);
                int d1 = Shapes.wrapDim("diag_embed", ((Number) a[2]).intValue(), nd + 1), d2 = Shapes.wrapDim("diag_embed", ((Number) a[3]).intValue(), nd + 1);
                return e.call(ShapeOps.MOVEDIM, matrices, new int[] {nd - 1, nd}, new int[] {d1, d2});
            });

    /**
     * The coordinates of the lower triangle (column − row ≤ offset) of a row × col matrix as a
     * [2, count] tensor (rows, then columns), in row-major order; int64 unless {@code dtype} names
     * the other integer type (ATen has no kernel for floats or bools).
     */
    public static final OpOverload TRIL_INDICES = triangleIndices("tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=None) -> Tensor", true);

    /** The coordinates of the upper triangle (column − row ≥ offset), as tril_indices gives the lower. */
    public static final OpOverload TRIU_INDICES = triangleIndices("triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=None) -> Tensor", false);

    private static OpOverload triangleIndices(String schema, boolean lower) {
        return OpOverload.define(schema)
                .meta(a -> {
                    String op = lower ? "tril_indices" : "triu_indices";
                    if (a.lng(0) < 0) throw new IllegalArgumentException(op + ": row must be non-negative, got" + a.lng(0));
                    if (a.lng(1) < 0) throw new IllegalArgumentException(op + ": col must be non-negative, got" + a.lng(1));
                    DType dtype = a.optDtype(3) == null ? DType.INT64 : a.optDtype(3);
                    if (!dtype.isIntegral()) throw new IllegalArgumentException(op + ": \"" + op + "\" not implemented for '" + dtype.scalarTypeName() + "'");
                    long count = 0;
                    for (long i = 0; i < a.lng(0); i++) count += triangleRowLength(i, a.lng(1), a.lng(2), lower);
                    if (count > Integer.MAX_VALUE / 2) throw new IllegalArgumentException(op + ": " + count + " indices are more than a tensor of Ember holds");
                    return TensorMeta.contiguous(dtype, 2, (int) count);
                })
                .kernel((a, m) -> {
                    TensorMeta meta = (TensorMeta) m;
                    int count = meta.shape()[1];
                    long[] rc = new long[2 * count];
                    long rows = a.lng(0), cols = a.lng(1), offset = a.lng(2);
                    int at = 0;
                    for (long i = 0; i < rows; i++) {
                        long first = lower ? 0 : Math.clamp(i + offset, 0, cols), length = triangleRowLength(i, cols, offset, lower);
                        for (long j = first; j < first + length; j++, at++) {
                            rc[at] = i;
                            rc[count + at] = j;
                        }
                    }
                    Tensor out = Tensor.allocate(meta);
                    Copy.copy(Tensor.of(rc, 2, count), out);
                    return out;
                })
                .register();
    }

    /** How many columns of row {@code i} lie in the triangle: j ≤ i + offset (lower) or j ≥ i + offset (upper), 0 ≤ j < cols. */
    private static long triangleRowLength(long i, long cols, long offset, boolean lower) {
        return lower ? Math.clamp(i + offset + 1, 0, cols) : cols - Math.clamp(i + offset, 0, cols);
    }

    /** Every tuple taking one element from each 1-d input in turn, as rows of [∏ n_i, k] (itertools.product); one input: itself. */
    public static final OpOverload CARTESIAN_PROD = ComposedOps.define("cartesian_prod(Tensor[] tensors) -> Tensor",
            a -> {
                for (Tensor t : a.tensors(0)) {
                    if (t.dim() != 1) throw new IllegalArgumentException("cartesian_prod: Expect a 1D vector, but got shape " + Shapes.format(t.shape()));
                }
            },
            (e, a) -> {
                List<?> ts = (List<?>) a[0];
                if (ts.size() == 1) return ts.get(0);
                List<Object> columns = new ArrayList<>();
                for (Object grid : (List<?>) e.call(MathOps.MESHGRID, ts, "ij")) columns.add(e.call(ShapeOps.RESHAPE, grid, new int[] {-1}));
                return e.call(ShapeOps.STACK, columns, 1L);
            });

    /**
     * The length-r combinations of self's elements as rows [count, r], in lexicographic order of
     * positions (itertools.combinations, or combinations_with_replacement); r = 0 gives an empty [0].
     * The positions depend on n and r alone, so they are built from index ops, with no
     * data-dependent selection.
     */
    public static final OpOverload COMBINATIONS = ComposedOps.define("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
            a -> {
                if (a.tensor(0).dim() != 1) throw new IllegalArgumentException("combinations: Expect a 1D vector, but got shape " + Shapes.format(a.tensor(0).shape()));
                if (a.lng(1) < 0) throw new IllegalArgumentException("combinations: Expect a non-negative number, but got " + a.lng(1));
            },
            (e, a) -> {
                int r = ((Number) a[1]).intValue(), n = e.meta(a[0]).shape()[0];
                if (r == 0) return e.call(CreationOps.ZEROS, new int[] {0}, e.meta(a[0]).dtype());
                Object positions = combinationPositions(e, n, r, 0, (Boolean) a[2]);
                int count = e.meta(positions).shape()[0];
                Object picked = e.call(IndexingOps.INDEX_SELECT, a[0], 0L, e.call(ShapeOps.RESHAPE, positions, new int[] {-1}));
                return e.call(ShapeOps.RESHAPE, picked, new int[] {count, r});
            });

    /** The [count, r] int64 positions of the r-combinations of {@code first, …, first + n - 1}, lexicographic. */
    private static Object combinationPositions(OpEmitter e, int n, int r, int first, boolean withReplacement) {
        if (r == 1) return e.call(ShapeOps.RESHAPE, e.call(CreationOps.ARANGE, (long) first, (long) first + n, 1L), new int[] {n, 1});
        if (r == 2) {
            Object pairs = e.call(ShapeOps.T, e.call(TRIU_INDICES, (long) n, (long) n, withReplacement ? 0L : 1L));
            return first == 0 ? pairs : e.call(PointwiseOps.ADD_SCALAR, pairs, (long) first);
        }
        // the rows starting with first + i, then the (r - 1)-combinations of what follows it (or of it and what follows)
        List<Object> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int rest = withReplacement ? n - i : n - i - 1;
            Object tail = combinationPositions(e, rest, r - 1, withReplacement ? first + i : first + i + 1, withReplacement);
            int rows = e.meta(tail).shape()[0];
            if (rows == 0) continue;
            parts.add(e.call(ShapeOps.CAT, List.of(e.call(CreationOps.FULL, new int[] {rows, 1}, (long) first + i, DType.INT64), tail), 1L));
        }
        return parts.isEmpty() ? e.call(CreationOps.ZEROS, new int[] {0, r}, DType.INT64) : e.call(ShapeOps.CAT, parts, 0L);
    }

    /**
     * The Vandermonde matrix of a vector: column j holds x^(N-1-j) (x^j when increasing), N columns
     * (len(x) by default); integers and bools are computed in int64, as ATen's cumprod promotes them.
     */
    public static final OpOverload VANDER = ComposedOps.define("vander(Tensor x, int? N=None, bool increasing=False) -> Tensor",
            a -> {
                if (a.tensor(0).dim() != 1) throw new IllegalArgumentException("vander: x must be a one-dimensional tensor.");
                if (a.get(1) != null && a.lng(1) < 0) throw new IllegalArgumentException("vander: N must be non-negative.");
            },
            (e, a) -> {
                TensorMeta x = e.meta(a[0]);
                int len = x.shape()[0], n = a[1] == null ? len : ((Number) a[1]).intValue();
                DType dtype = x.dtype().isFloatingPoint() ? x.dtype() : DType.INT64;
                Object ones = e.call(CreationOps.ONES, new int[] {len, Math.min(n, 1)}, dtype);
                if (n <= 1) return ones;
                Object column = e.call(ShapeOps.UNSQUEEZE, x.dtype() == dtype ? a[0] : e.call(ShapeOps.TO_COPY, a[0], dtype), 1L);
                Object powers = e.call(ScanOps.CUMPROD, e.call(ShapeOps.CAT, List.of(ones, e.call(ShapeOps.EXPAND, column, new int[] {len, n - 1})), 1L), 1L);
                return (Boolean) a[2] ? powers : e.call(ShapeOps.FLIP, powers, new int[] {1});
            });

    private static void checkMatrices(String op, Tensor t) {
        if (t.dim() < 2) throw new IllegalArgumentException(op + ": input tensor must have at least 2 dimensions");
    }

    /** {@code j - i} over an [m, n] grid of (row i, column j), as int64. */
    private static Object columnMinusRow(OpEmitter e, int m, int n) {
        Object rows = e.call(ShapeOps.RESHAPE, e.call(CreationOps.ARANGE, 0L, (long) m, 1L), new int[] {m, 1});
        return e.call(PointwiseOps.SUB_TENSOR, e.call(CreationOps.ARANGE, 0L, (long) n, 1L), rows);
    }

    private static Object triangle(OpEmitter e, Object[] a, boolean lower) {
        int[] s = e.meta(a[0]).shape();
        Object offset = columnMinusRow(e, s[s.length - 2], s[s.length - 1]);
        Object outside = e.call(lower ? PointwiseOps.GT_SCALAR : PointwiseOps.LT_SCALAR, offset, ((Number) a[1]).longValue());
        return e.call(PointwiseOps.MASKED_FILL_SCALAR, a[0], outside, 0L);
    }

    /** Rolls by {@code shift} along wrapped dim {@code d}; {@code x} itself when that moves nothing. */
    private static Object rollDim(OpEmitter e, Object x, int d, int shift) {
        int n = e.meta(x).shape()[d];
        if (n == 0 || Math.floorMod(shift, n) == 0) return x;
        long cut = n - Math.floorMod(shift, n);
        return e.call(ShapeOps.CAT, List.of(e.call(ShapeOps.SLICE, x, (long) d, cut, (long) n, 1L), e.call(ShapeOps.SLICE, x, (long) d, 0L, cut, 1L)), (long) d);
    }

    private static int[] repeatedShape(int[] shape, int[] repeats) {
        int[] out = repeats.clone();
        int lead = repeats.length - shape.length;
        for (int i = lead; i < repeats.length; i++) out[i] = shape[i - lead] * repeats[i];
        return out;
    }

    /** ATen's movedim permutation: each source dim at its destination, the rest in their order in the free places. */
    private static int[] movedimOrder(int nd, int[] source, int[] destination) {
        if (source.length != destination.length) {
            throw new IllegalArgumentException("movedim: Invalid source or destination dims: source (" + Arrays.toString(source) + " dims) should contain the same number of dims as destination ("
                    + Arrays.toString(destination) + " dims)");
        }
        int[] order = new int[nd];
        Arrays.fill(order, -1);
        boolean[] moved = new boolean[nd], taken = new boolean[nd];
        for (int i = 0; i < source.length; i++) {
            int s = Shapes.wrapDim("movedim", source[i], nd), d = Shapes.wrapDim("movedim", destination[i], nd);
            if (moved[s]) throw new IllegalArgumentException("movedim: repeated dim in `source` (" + Arrays.toString(source) + ")");
            if (taken[d]) throw new IllegalArgumentException("movedim: repeated dim in `destination` (" + Arrays.toString(destination) + ")");
            moved[s] = true;
            taken[d] = true;
            order[d] = s;
        }
        for (int i = 0, rest = 0; i < nd; i++) {
            if (order[i] >= 0) continue;
            while (moved[rest]) rest++;
            order[i] = rest++;
        }
        return order;
    }

    private static Object diagonal(OpEmitter e, Object[] a) {
        TensorMeta x = e.meta(a[0]);
        int nd = x.dim(), offset = ((Number) a[1]).intValue();
        int d1 = Shapes.wrapDim("diagonal", ((Number) a[2]).intValue(), nd), d2 = Shapes.wrapDim("diagonal", ((Number) a[3]).intValue(), nd);
        // the diagonal of (d1, d2) is that of (d2, d1) at -offset: take the order whose two dims merge into one by a view
        if (!mergesLast(x, d1, d2) && mergesLast(x, d2, d1)) {
            int t = d1;
            d1 = d2;
            d2 = t;
            offset = -offset;
        }
        int[] order = new int[nd];
        for (int d = 0, k = 0; d < nd; d++) if (d != d1 && d != d2) order[k++] = d;
        order[nd - 2] = d1;
        order[nd - 1] = d2;
        int m = x.shape()[d1], n = x.shape()[d2];
        int length = Math.max(0, offset >= 0 ? Math.min(m, n - offset) : Math.min(m + offset, n));
        int[] merged = new int[nd - 1];
        for (int i = 0; i < nd - 2; i++) merged[i] = x.shape()[order[i]];
        merged[nd - 2] = m * n;
        Object flat = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, a[0], order), merged);
        // element (i, i + offset) is at i·(n + 1) + offset; (i − offset, i) at i·(n + 1) − offset·n
        long start = length == 0 ? 0 : offset >= 0 ? offset : (long) -offset * n;
        long end = length == 0 ? 0 : start + (long) (length - 1) * (n + 1) + 1;
        return e.call(ShapeOps.SLICE, flat, (long) nd - 2, start, end, (long) n + 1);
    }

    /** Whether dims {@code d1}, {@code d2} of {@code x}, moved last in that order, merge into one dim as a view. */
    private static boolean mergesLast(TensorMeta x, int d1, int d2) {
        int m = x.shape()[d1], n = x.shape()[d2];
        return viewStrides(new int[] {m, n}, new int[] {x.strides()[d1], x.strides()[d2]}, new int[] {m * n}) != null;
    }

    /** dim's size split into {@code sizes}, a -1 among them inferred; ATen's checks. */
    private static int[] unflattenShape(int[] shape, int dim, int[] sizes) {
        int d = Shapes.wrapDim("unflatten", dim, shape.length);
        if (sizes.length == 0) throw new IllegalArgumentException("unflatten: sizes must be non-empty");
        int known = 1, infer = -1;
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] == -1 && infer < 0) infer = i;
            else known *= sizes[i];
        }
        int[] split = sizes.clone();
        if (infer >= 0 && known != 0 && shape[d] % known == 0) split[infer] = shape[d] / known;
        if (Shapes.numel(split) != shape[d] || Arrays.stream(split).anyMatch(s -> s < 0)) {
            throw new IllegalArgumentException("unflatten: Provided sizes " + Shapes.format(sizes) + " don't multiply up to the size of dim " + dim + " (" + shape[d]
                    + ") in the input tensor");
        }
        int[] out = new int[shape.length - 1 + split.length];
        System.arraycopy(shape, 0, out, 0, d);
        System.arraycopy(split, 0, out, d, split.length);
        System.arraycopy(shape, d + 1, out, d + split.length, shape.length - d - 1);
        return out;
    }

    private static void swap(int[] a, int i, int j) {
        int x = a[i];
        a[i] = a[j];
        a[j] = x;
    }

    /**
     * Strides that let {@code newShape} view memory laid out as {@code oldShape}/{@code oldStrides},
     * or null when no such view exists (ATen's computeStride).
     */
    public static int[] viewStrides(int[] oldShape, int[] oldStrides, int[] newShape) {
        int[] newStrides = new int[newShape.length];
        if (Shapes.numel(oldShape) == 0) {
            return Arrays.equals(oldShape, newShape) ? oldStrides.clone() : Shapes.contiguousStrides(newShape);
        }
        if (oldShape.length == 0) return Shapes.contiguousStrides(newShape);
        int viewD = newShape.length - 1;
        long chunkBaseStride = oldStrides[oldStrides.length - 1];
        long tensorNumel = 1, viewNumel = 1;
        for (int tensorD = oldShape.length - 1; tensorD >= 0; tensorD--) {
            tensorNumel *= oldShape[tensorD];
            if (tensorD == 0 || (oldShape[tensorD - 1] != 1 && oldStrides[tensorD - 1] != tensorNumel * chunkBaseStride)) {
                while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
                    newStrides[viewD] = (int) (viewNumel * chunkBaseStride);
                    viewNumel *= newShape[viewD];
                    viewD--;
                }
                if (viewNumel != tensorNumel) return null;
                if (tensorD > 0) {
                    chunkBaseStride = oldStrides[tensorD - 1];
                    tensorNumel = 1;
                    viewNumel = 1;
                }
            }
        }
        return viewD == -1 ? newStrides : null;
    }

    // ------------------------------------------------------------------ derivatives

    /** view, reshape, flatten, (un)squeeze: the gradient takes the input's shape back. */
    private static Object[] reshapeBackward(Grad g) { return new Object[] {g.reshape(g.grad(), g.argMeta(0).shape())}; }

    private static Object[] permuteBackward(Grad g) {
        int[] dims = g.ints(1);
        int n = dims.length;
        int[] inverse = new int[n];
        for (int i = 0; i < n; i++) inverse[dims[i] < 0 ? dims[i] + n : dims[i]] = i;
        return new Object[] {g.call(PERMUTE, g.grad(), inverse)};
    }

    private static Object[] sliceBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        int d = Shapes.wrapDim("slice", g.intValue(1), x.dim());
        int size = x.shape()[d];
        long step = ((Number) g.value(4)).longValue();
        long start = g.value(2) == null ? 0 : ((Number) g.value(2)).longValue();
        if (start < 0) start += size;
        start = Math.max(0, Math.min(start, size));
        return new Object[] {g.scatterSlice(g.grad(), x, d, (int) start, (int) step)};
    }

    private static Object[] narrowBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        int d = Shapes.wrapDim("narrow", g.intValue(1), x.dim());
        int start = g.intValue(2);
        if (start < 0) start += x.shape()[d];
        return new Object[] {g.scatterSlice(g.grad(), x, d, start, 1)};
    }

    private static Object[] selectBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        int d = Shapes.wrapDim("select", g.intValue(1), x.dim());
        int index = g.intValue(2);
        if (index < 0) index += x.shape()[d];
        return new Object[] {g.scatterSlice(g.call(UNSQUEEZE, g.grad(), d), x, d, index, 1)};
    }

    /** split, split_with_sizes, chunk: the pieces' gradients (zeros for unused pieces) joined back. */
    private static Object[] splitBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        int d = Shapes.wrapDim("split", g.intValue(2), Math.max(1, x.dim()));
        List<Object> pieces = new ArrayList<>();
        int outputs = g.resultCount();
        for (int i = 0; i < outputs; i++) pieces.add(g.grad(i));
        if (pieces.isEmpty()) return new Object[] {g.zeros(x)};
        return new Object[] {g.call(CAT, pieces, d)};
    }

    private static Object[] catBackward(Grad g) {
        List<TensorMeta> metas = g.argMetas(0);
        TensorMeta out = g.resultMeta();
        List<Object> grads = new ArrayList<>();
        if (out.dim() == 1 && out.numel() == 0) {
            for (TensorMeta m : metas) grads.add(g.zeros(m));
            return new Object[] {grads};
        }
        int d = Shapes.wrapDim("cat", g.intValue(1), out.dim());
        int start = 0;
        for (TensorMeta m : metas) {
            if (m.dim() == 1 && m.numel() == 0) { grads.add(g.zeros(m)); continue; }
            int n = m.shape()[d];
            grads.add(g.call(SLICE, g.grad(), d, (long) start, (long) (start + n), 1L));
            start += n;
        }
        return new Object[] {grads};
    }

    private static Object[] stackBackward(Grad g) {
        List<TensorMeta> metas = g.argMetas(0);
        int d = Shapes.wrapDim("stack", g.intValue(1), g.resultMeta().dim());
        List<Object> grads = new ArrayList<>();
        for (int i = 0; i < metas.size(); i++) grads.add(g.call(SELECT, g.grad(), d, (long) i));
        return new Object[] {grads};
    }
}
