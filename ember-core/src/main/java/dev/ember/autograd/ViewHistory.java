package dev.ember.autograd;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * Autograd across aliases, as PyTorch's differentiable views behave. A view and its base share
 * memory, so an in-place write through one changes the other's value and must change its history:
 * <ul>
 *   <li>an in-place op on a view gives the base a {@code CopySlices} node: the base's old value
 *       everywhere but the view's region, where the op's result is;</li>
 *   <li>a view whose storage was written through another alias since its history was made gets a
 *       new one, {@code AsStridedBackward0}: the region of its base's present history (remade when
 *       it is next used, as PyTorch remakes a view's {@code grad_fn} when the version changed).</li>
 * </ul>
 * Both backward computations place a gradient into, or take it out of, the base's memory layout
 * (the view's shape, strides and offset are positions in the base's storage), so any view geometry
 * works; an expanded view's elements that share memory sum their gradients there.
 */
final class ViewHistory {
    private ViewHistory() {}

    /** Where a view lies in its base's storage, and the base's own geometry. */
    private record Region(TensorMeta base, TensorMeta view, int storageLength, boolean overlaps) {
        static Region of(Tensor base, Tensor view) { return new Region(base.meta(), view.meta(), base.storage().length(), !nonOverlapping(view)); }

        /** A zeroed buffer laid out as the base's storage, seen with the base's geometry. */
        Tensor baseBuffer(Tensor gradient) {
            Tensor flat = Tensor.zeros(base.dtype(), storageLength);
            Tensor b = Tensor.wrap(flat.storage(), base.shape(), base.strides(), base.storageOffset());
            if (gradient != null) Copy.copy(gradient, b);
            return b;
        }

        Tensor viewOf(Tensor baseBuffer) { return Tensor.wrap(baseBuffer.storage(), view.shape(), view.strides(), view.storageOffset()); }

        Tensor contiguous(Tensor t) {
            Tensor out = Tensor.allocate(TensorMeta.contiguous(t.dtype(), t.shape()));
            Copy.copy(t, out);
            return out;
        }
    }

    /** True when no two elements of the view share a memory location (its gradient then has one place per element). */
    static boolean nonOverlapping(Tensor v) {
        int[] shape = v.shape(), strides = v.strides();
        Integer[] order = new Integer[shape.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Integer.compare(Math.abs(strides[a]), Math.abs(strides[b])));
        long extent = 0;   // the largest offset the smaller-stride dimensions reach
        for (int d : order) {
            if (shape[d] <= 1) continue;
            long stride = Math.abs((long) strides[d]);
            if (stride <= extent) return false;
            extent += stride * (shape[d] - 1);
        }
        return true;
    }

    /** Makes {@code view}'s history the region of its base's present history, when a write through another alias made it stale. */
    static void refresh(Tensor view) {
        if (!view.isDifferentiableView() || view.viewVersion() == view.version()) return;
        if (view.requiresGrad() && view.isLeaf()) return;   // a view the user made a leaf (x.narrow(…).requiresGrad(true)) stays one: its gradient is its own
        Tensor base = view.viewBase();
        view.markViewHistoryCurrent();
        if (!base.requiresGrad() || !view.dtype().isFloatingPoint()) return;
        setHistory(view, new AsStrided(Region.of(base, view), Autograd.gradientEdge(base)));
    }

    /**
     * After an in-place op wrote {@code view} (whose new value {@code result} computed, with its
     * history): the base's history becomes its old one outside the view's region and {@code result}'s
     * inside it, and the view's history the region of that.
     */
    static void writeThroughView(Tensor view, Tensor result) {
        Tensor base = view.viewBase();
        Node.Edge oldBase = base.requiresGrad() ? Autograd.gradientEdge(base) : null;
        Node.Edge written = result != null && result.requiresGrad() ? Autograd.gradientEdge(result) : null;
        Region region = Region.of(base, view);
        if (oldBase != null || written != null) {
            setHistory(base, new CopySlices(region, oldBase, written));
            setHistory(view, new AsStrided(region, Autograd.gradientEdge(base)));
        }
        view.markViewHistoryCurrent();
    }

    private static void setHistory(Tensor t, Node node) {
        t.requiresGrad(true);
        AutogradMeta m = t.autogradMeta();
        m.gradFn = node;
        m.outputNr = 0;
    }

    private static void refuseDoubleBackward(String name) {
        if (GradMode.isEnabled()) {
            throw new UnsupportedOperationException("double backward (createGraph) through " + name
                    + " (an in-place write through a view) is not supported yet: clone() the view before writing it");
        }
    }

    /** A node whose one gradient is laid out in a view's region of its base; the two kinds below say what goes where. */
    private abstract static class RegionNode extends Node {
        final Region region;
        private final String name;

        RegionNode(String name, Region region, Edge... next) {
            super(next);
            this.name = name;
            this.region = region;
        }

        @Override
        public String name() { return name; }

        @Override
        int outputCount() { return 1; }

        @Override
        Tensor[] apply(Tensor[] gradOutputs) {
            refuseDoubleBackward(name);
            return gradOutputs[0] == null ? new Tensor[next.length] : gradients(gradOutputs[0]);
        }

        abstract Tensor[] gradients(Tensor g);
    }

    /** The base after an in-place write through a view: gradient outside the region to the old base, inside it to the written value. */
    private static final class CopySlices extends RegionNode {
        CopySlices(Region region, Edge oldBase, Edge written) { super("CopySlices", region, oldBase, written); }

        @Override
        Tensor[] gradients(Tensor g) {
            Tensor buffer = region.baseBuffer(g);
            Tensor inRegion = region.viewOf(buffer);
            Tensor writtenGrad = next[1] == null ? null : region.contiguous(inRegion);
            Tensor oldBaseGrad = null;
            if (next[0] != null) {
                Copy.copy(Tensor.zeros(inRegion.dtype(), inRegion.shape()), inRegion);
                oldBaseGrad = region.contiguous(buffer);
            }
            return new Tensor[] {oldBaseGrad, writtenGrad};
        }
    }

    /** A view remade from its base's present history: its gradient lands in its region of the base. */
    private static final class AsStrided extends RegionNode {
        AsStrided(Region region, Edge base) { super("AsStridedBackward0", region, base); }

        @Override
        Tensor[] gradients(Tensor g) {
            Tensor buffer = region.baseBuffer(null);
            if (region.overlaps) addInto(g, buffer, region.view);   // an expanded view: its elements' gradients sum where they share memory
            else Copy.copy(g, region.viewOf(buffer));
            return new Tensor[] {region.contiguous(buffer)};
        }
    }

    /** Adds each element of {@code g} (the view's shape) into the storage position {@code view} maps it to. */
    private static void addInto(Tensor g, Tensor buffer, TensorMeta view) {
        double[] values = g.to(dev.ember.tensor.DType.FLOAT64).toDoubleArray();
        int[] shape = view.shape(), strides = view.strides(), index = new int[shape.length];
        Object data = buffer.storage().data();
        for (double value : values) {
            int at = view.storageOffset();
            for (int d = 0; d < shape.length; d++) at += index[d] * strides[d];
            if (data instanceof float[] f) f[at] += (float) value;
            else ((double[]) data)[at] += value;
            for (int d = shape.length - 1; d >= 0 && ++index[d] == shape[d]; d--) index[d] = 0;
        }
    }
}
