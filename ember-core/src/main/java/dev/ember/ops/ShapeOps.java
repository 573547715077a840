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
 * copy_, split, split_with_sizes, chunk, cat, stack.
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
                    throw new IndexOutOfBoundsException("select: index " + index + " out of range for tensor of size " + Shapes.format(t.shape()) + " at dimension " + d);
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
                self.storage().bumpVersion();
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
                int each = (int) ((n + chunks - 1) / chunks);
                return SPLIT.inferMeta(SPLIT.bind(t, (long) Math.max(each, n == 0 ? 0 : 1), (long) d));
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
