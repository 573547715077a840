package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

/**
 * F.pad's non-constant modes over the last 1, 2 or 3 dims, as ATen's: reflect (the edge element is
 * not repeated), replicate (the edge element is) and circular (wraps around), each its
 * decomposition: per padded dim an int64 source index vector (arange arithmetic) and index_select.
 * Negative amounts crop. Gradients are index_select's (index_add), which accumulates where ATen's
 * backward kernels do; {@link #PAD} dispatches on the mode as ATen's {@code pad} does.
 */
public final class PadOps {
    private PadOps() {}

    private enum Mode { REFLECT, REPLICATE, CIRCULAR }

    public static final OpOverload REFLECTION_PAD1D = ComposedOps.define("reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor",
            a -> checkReflection(a, 1), (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.REFLECT));

    public static final OpOverload REFLECTION_PAD2D = ComposedOps.define("reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor",
            a -> checkReflection(a, 2), (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.REFLECT));

    public static final OpOverload REPLICATION_PAD1D = ComposedOps.define("replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor",
            a -> checkReplication(a, 1), (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.REPLICATE));

    public static final OpOverload REPLICATION_PAD2D = ComposedOps.define("replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor",
            a -> checkReplication(a, 2), (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.REPLICATE));

    public static final OpOverload REFLECTION_PAD3D = ComposedOps.define("reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor",
            a -> checkReflection(a, 3), (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.REFLECT));

    public static final OpOverload REPLICATION_PAD3D = ComposedOps.define("replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor",
            a -> checkReplication(a, 3), (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.REPLICATE));

    public static final OpOverload PAD_CIRCULAR = ComposedOps.define("_pad_circular(Tensor self, SymInt[] pad) -> Tensor",
            PadOps::checkCircular, (e, a) -> padded(e, a[0], Composites.toInts(a[1]), Mode.CIRCULAR));

    /** {@code F.pad(input, pad, mode, value)}: constant_pad_nd, or the mode's op for 2-d/3-d (1 dim padded), 3-d/4-d (2 dims) and 4-d/5-d (3 dims) inputs. */
    public static final OpOverload PAD = ComposedOps.define("pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
            PadOps::checkPad, PadOps::pad);

    private static Object pad(OpEmitter e, Object[] a) {
        int[] pad = Composites.toInts(a[1]);
        String mode = (String) a[2];
        if (mode.equals("constant")) return e.call(NnOps.CONSTANT_PAD_ND, a[0], pad, a[3] == null ? 0.0 : a[3]);
        int dims = pad.length / 2;
        return switch (mode) {
            case "reflect" -> e.call(dims == 1 ? REFLECTION_PAD1D : dims == 2 ? REFLECTION_PAD2D : REFLECTION_PAD3D, a[0], pad);
            case "replicate" -> e.call(dims == 1 ? REPLICATION_PAD1D : dims == 2 ? REPLICATION_PAD2D : REPLICATION_PAD3D, a[0], pad);
            default -> e.call(PAD_CIRCULAR, a[0], pad);
        };
    }

    private static void checkPad(Args a) {
        String mode = a.str(2);
        if (!mode.equals("constant") && !mode.equals("reflect") && !mode.equals("replicate") && !mode.equals("circular")) {
            throw new IllegalArgumentException("pad: Unrecognised padding mode " + mode);
        }
        if (mode.equals("constant")) return;
        int[] pad = a.ints(1);
        int rank = a.tensor(0).dim();
        if (pad.length % 2 != 0) throw new IllegalArgumentException("pad: Padding length must be divisible by 2");
        if (pad.length > rank * 2) {
            throw new IllegalArgumentException("pad: Padding length should be less than or equal to two times the input dimension but got padding length "
                    + pad.length + " and input of dimension " + rank);
        }
        Double value = a.optDbl(3);
        if (value != null && value != 0) throw new IllegalArgumentException("pad: Padding mode \"" + mode + "\" doesn't take in value argument");
        boolean fits = pad.length == 2 && (rank == 2 || rank == 3) || pad.length == 4 && (rank == 3 || rank == 4)
                || pad.length == 6 && (rank == 4 || rank == 5);
        if (!fits) {
            throw new UnsupportedOperationException("pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"
                    + " (Ember pads the last 1 dim of a 2-d or 3-d input, the last 2 of a 3-d or 4-d input, or the last 3 of a 4-d or 5-d input; got a pad of length "
                    + pad.length + " for a " + rank + "-d input)");
        }
    }

    /** ATen's padding::check_valid_input: (C, …) or (N, C, …) with no empty dim but the batch. */
    private static void checkValidInput(String op, Tensor self, int dims) {
        int rank = self.dim();
        boolean batch = rank == dims + 2, valid = batch || rank == dims + 1;
        for (int d = batch ? 1 : 0; d < rank && valid; d++) valid = self.size(d) != 0;
        if (!valid) {
            throw new IllegalArgumentException(op + ": Expected " + (dims + 1) + "D or " + (dims + 2) + "D (batch mode) tensor with possibly 0 batch size "
                    + "and other non-zero dimensions for input, but got: " + Shapes.format(self.shape()));
        }
    }

    private static void checkReflection(Args a, int dims) {
        String op = a.op().schema().name();
        Tensor self = a.tensor(0);
        int[] pad = a.ints(1);
        checkValidInput(op, self, dims);
        int rank = self.dim(), width = self.size(rank - 1), outW = width + pad[0] + pad[1];
        if (pad[0] >= width || pad[1] >= width) {
            throw new IllegalArgumentException(op + ": Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ("
                    + pad[0] + ", " + pad[1] + ") at dimension " + (rank - 1) + " of input " + Shapes.format(self.shape()));
        }
        if (dims == 1) {
            if (outW < 1) throw new IllegalArgumentException(op + ": input (W: " + width + ") is too small. Calculated output W: " + outW);
            return;
        }
        int height = self.size(rank - 2), outH = height + pad[2] + pad[3];
        if (pad[2] >= height || pad[3] >= height) {
            throw new IllegalArgumentException(op + ": Argument #6: Padding size should be less than the corresponding input dimension, but got: padding ("
                    + pad[2] + ", " + pad[3] + ") at dimension " + (rank - 2) + " of input " + Shapes.format(self.shape()));
        }
        if (dims == 2) {
            if (outW < 1 || outH < 1) {
                throw new IllegalArgumentException(op + ": input (H: " + height + ", W: " + width + ") is too small. Calculated output H: " + outH + " W: " + outW);
            }
            return;
        }
        int depth = self.size(rank - 3), outD = depth + pad[4] + pad[5];
        if (pad[4] >= depth || pad[5] >= depth) {
            throw new IllegalArgumentException(op + ": Argument #8: Padding size should be less than the corresponding input dimension, but got: padding ("
                    + pad[4] + ", " + pad[5] + ") at dimension " + (rank - 3) + " of input " + Shapes.format(self.shape()));
        }
        if (outW < 1 || outH < 1 || outD < 1) {
            throw new IllegalArgumentException(op + ": input (D: " + depth + " H: " + height + ", W: " + width + ") is too small. Calculated output D: "
                    + outD + " H: " + outH + " W: " + outW);
        }
    }

    private static void checkReplication(Args a, int dims) {
        String op = a.op().schema().name();
        Tensor self = a.tensor(0);
        int[] pad = a.ints(1);
        checkValidInput(op, self, dims);
        int rank = self.dim(), width = self.size(rank - 1), outW = width + pad[0] + pad[1];
        if (dims == 1) {
            if (outW < 1) throw new IllegalArgumentException(op + ": input (W: " + width + ") is too small. Calculated output W: " + outW);
            return;
        }
        int height = self.size(rank - 2), outH = height + pad[2] + pad[3];
        if (dims == 2) {
            if (outW < 1 || outH < 1) {
                throw new IllegalArgumentException(op + ": input (H: " + height + " W: " + width + ") is too small. Calculated output H: " + outH + " W: " + outW);
            }
            return;
        }
        int depth = self.size(rank - 3), outD = depth + pad[4] + pad[5];
        if (outW < 1 || outH < 1 || outD < 1) {
            throw new IllegalArgumentException(op + ": input (D: " + depth + " H: " + height + " W: " + width + ") is too small.  Calculated output D: "
                    + outD + " H: " + outH + " W: " + outW);
        }
    }

    private static void checkCircular(Args a) {
        Tensor self = a.tensor(0);
        int[] pad = a.ints(1);
        int rank = self.dim(), padded = pad.length / 2, kept = rank - padded;
        if (pad.length % 2 != 0 || kept != 1 && kept != 2) {
            throw new IllegalArgumentException("_pad_circular: Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to padding of length "
                    + (rank - 1) * 2 + " or " + (rank - 2) * 2 + " respectively but got " + pad.length);
        }
        for (int k = 0; k < padded; k++) {
            int size = self.size(rank - 1 - k), before = pad[2 * k], after = pad[2 * k + 1];
            if (before > size || after > size) throw new IllegalArgumentException("_pad_circular: Padding value causes wrapping around more than once.");
            if (size + before + after < 0) throw new IllegalArgumentException("_pad_circular: Negative padding value is resulting in an empty dimension");
        }
    }

    /** Each padded dim (from the last, (before, after) pairs) read through its source index vector. */
    private static Object padded(OpEmitter e, Object self, int[] pad, Mode mode) {
        int[] shape = e.meta(self).shape();
        Object out = self;
        for (int k = 0; k < pad.length / 2; k++) {
            int dim = shape.length - 1 - k, size = shape[dim], before = pad[2 * k], length = size + before + pad[2 * k + 1];
            out = e.call(IndexingOps.INDEX_SELECT, out, (long) dim, source(e, size, before, length, mode));
        }
        return out;
    }

    /**
     * ATen's _pad_circular crops first and then wraps within what is left: a negative amount on one
     * side shortens the period the other side's padding wraps around.
     */
    private static Object circularSource(OpEmitter e, int size, int before, int length) {
        int cropBefore = Math.max(-before, 0), after = length - size - before, kept = size - cropBefore - Math.max(-after, 0);
        Object at = e.call(CreationOps.ARANGE, (long) -Math.max(before, 0), (long) length - Math.max(before, 0), 1L, DType.INT64);
        return e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.REMAINDER_SCALAR, at, (long) kept), (long) cropBefore);
    }

    /**
     * For output positions 0…length−1, the input position {@code j − before} brought into
     * [0, size): mirrored about the edges without repeating them ({@code size−1 − |size−1 − |i||}),
     * clamped, or wrapped ({@link #circularSource}).
     */
    private static Object source(OpEmitter e, int size, int before, int length, Mode mode) {
        Object at = e.call(CreationOps.ARANGE, (long) -before, (long) length - before, 1L, DType.INT64);
        long last = size - 1;
        return switch (mode) {
            case REFLECT -> e.call(PointwiseOps.RSUB_SCALAR, e.call(PointwiseOps.ABS, e.call(PointwiseOps.RSUB_SCALAR, e.call(PointwiseOps.ABS, at), last)), last);
            case REPLICATE -> e.call(PointwiseOps.CLAMP, at, 0L, last);
            case CIRCULAR -> circularSource(e, size, before, length);
        };
    }
}
