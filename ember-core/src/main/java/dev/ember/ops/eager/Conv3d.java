package dev.ember.ops.eager;

import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.Conv2dGeometry;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * 3-d convolution as one 2-d convolution ({@link Conv2d}, with all its kernels): the depth is
 * unfolded first (vol2col along depth only). Output depth {@code od} reads input depths
 * {@code od*strideD - padD + kd*dilationD} for kernel taps {@code kd}; copying those planes to
 * {@code columns[n*outD + od, c*kernelD + kd, H, W]} (zero where a tap falls in the depth
 * padding) makes the convolution a 2-d one of a batch of {@code N*outD} images with
 * {@code C*kernelD} channels, whose weight is the 3-d weight {@code [O, C/groups, kD, kH, kW]} read
 * as {@code [O, C/groups*kD, kH, kW]} (each group's channels stay together). Its output
 * {@code [N*outD, O, oH, oW]} is the 3-d output with depth and channels swapped. The gradients
 * run {@link Conv2dBackward} on the same unfolded problem; the unfolded input's gradient is
 * folded back, each tap's planes added onto the input depths they were read from.
 */
public final class Conv3d {
    private Conv3d() {}

    /** The depth dimension of a 3-d convolution: input depth, kernel taps, stride, padding, dilation and output depth. */
    public record Depth(int inD, int kernelD, int strideD, int padD, int dilationD, int outD) {
        /** Output depths {@code [lo, hi)} whose tap {@code kd} reads inside the input. */
        int lo(int kd) { return Math.max(0, Math.ceilDiv(padD - kd * dilationD, strideD)); }

        int hi(int kd) { return Math.max(lo(kd), Math.min(outD, Math.floorDiv(inD - 1 + padD - kd * dilationD, strideD) + 1)); }

        /** The input depth tap {@code kd} reads for output depth {@code od}. */
        int inputDepth(int od, int kd) { return od * strideD - padD + kd * dilationD; }
    }

    /**
     * Writes the convolution of {@code input} ({@code [N, C, D, H, W]}, any strides) with
     * {@code weight} ({@code [O, C/groups, kD, kH, kW]}) plus {@code bias} (or none) into
     * {@code out}, a fresh contiguous {@code [N, O, outD, oH, oW]}; {@code g} is the unfolded 2-d problem.
     */
    public static void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Depth d, Conv2dGeometry g) {
        if (out.numel() == 0) return;
        Tensor product = Tensor.allocate(TensorMeta.contiguous(out.dtype(), g.batch(), g.outChannels(), g.outH(), g.outW()));
        Conv2d.forward(unfold(input, d, g), flatWeight(weight, g), bias, product, g);
        Copy.copy(depthMajor(product, out.shape()), out);
    }

    /**
     * Fills the requested gradients (fresh zeroed contiguous tensors, or null when not wanted):
     * {@code gradInput} {@code [N, C, D, H, W]}, {@code gradWeight} {@code [O, C/groups, kD, kH, kW]},
     * {@code gradBias} {@code [O]}.
     */
    public static void backward(Tensor gradOutput, Tensor input, Tensor weight, Depth d, Conv2dGeometry g,
                                Tensor gradInput, Tensor gradWeight, Tensor gradBias) {
        int[] out5 = gradOutput.shape();
        Tensor go = Tensor.allocate(TensorMeta.contiguous(gradOutput.dtype(), g.batch(), g.outChannels(), g.outH(), g.outW()));
        Copy.copy(gradOutput, depthMajor(go, out5));
        Tensor columnsGrad = gradInput == null ? null : Tensor.allocate(TensorMeta.contiguous(input.dtype(), g.batch(), g.channels(), g.height(), g.width()));
        Tensor weightGrad = gradWeight == null ? null : flatWeight(gradWeight, g);
        Conv2dBackward.backward(go, unfold(input, d, g), flatWeight(weight, g), g, columnsGrad, weightGrad, gradBias);
        if (columnsGrad != null) fold(columnsGrad, gradInput, d);
    }

    /** The depth-unfolded input {@code [N*outD, C*kD, H, W]}, contiguous, zero where a tap reads the depth padding. */
    private static Tensor unfold(Tensor input, Depth d, Conv2dGeometry g) {
        Tensor columns = Tensor.allocate(TensorMeta.contiguous(input.dtype(), g.batch(), g.channels(), g.height(), g.width()));
        for (int kd = 0; kd < d.kernelD(); kd++) {
            if (d.hi(kd) > d.lo(kd)) Copy.copy(tapOf(input, d, kd), tapOf(columns, input.shape(), d, kd));
        }
        return columns;
    }

    /** The adjoint of {@link #unfold}: adds each tap's planes of {@code columns} onto the input depths they were read from. */
    private static void fold(Tensor columns, Tensor gradInput, Depth d) {
        for (int kd = 0; kd < d.kernelD(); kd++) {
            if (d.hi(kd) <= d.lo(kd)) continue;
            // one tap reads distinct input depths for distinct output depths: no position is added to twice in one pass
            Tensor into = tapOf(gradInput, d, kd);
            Pointwise.binary(BinaryOp.ADD, gradInput.dtype(), into, into, tapOf(columns, gradInput.shape(), d, kd), null);
        }
    }

    /** The input planes tap {@code kd} reads: {@code [N, outputs, C, H, W]} over output depths {@code [lo, hi)}. */
    private static Tensor tapOf(Tensor input, Depth d, int kd) {
        int[] s = input.strides(), shape = input.shape();
        int lo = d.lo(kd), hi = d.hi(kd);
        int offset = input.storageOffset() + d.inputDepth(lo, kd) * s[2];
        return input.viewAs(new TensorMeta(input.dtype(), new int[] {shape[0], hi - lo, shape[1], shape[3], shape[4]},
                new int[] {s[0], d.strideD() * s[2], s[1], s[3], s[4]}, offset));
    }

    /** Tap {@code kd}'s planes in the contiguous columns of an input of shape {@code in}, seen as {@link #tapOf(Tensor, Depth, int)} sees the input. */
    private static Tensor tapOf(Tensor columns, int[] in, Depth d, int kd) {
        int plane = in[3] * in[4], tap = plane, channel = d.kernelD() * tap, depth = in[1] * channel, image = d.outD() * depth;
        int lo = d.lo(kd), hi = d.hi(kd);
        return columns.viewAs(new TensorMeta(columns.dtype(), new int[] {in[0], hi - lo, in[1], in[3], in[4]},
                new int[] {image, depth, channel, in[4], 1}, columns.storageOffset() + lo * depth + kd * tap));
    }

    /** The weight {@code [O, C/groups, kD, kH, kW]} as the unfolded problem's {@code [O, C/groups*kD, kH, kW]} (a view when contiguous). */
    private static Tensor flatWeight(Tensor weight, Conv2dGeometry g) {
        Tensor w = weight;
        if (!w.isContiguous()) {
            w = Tensor.allocate(TensorMeta.contiguous(weight.dtype(), weight.shape()));
            Copy.copy(weight, w);
        }
        int[] shape = {g.outChannels(), g.groupChannels(), g.kernelH(), g.kernelW()};
        return w.viewAs(new TensorMeta(w.dtype(), shape, TensorMeta.contiguous(w.dtype(), shape).strides(), w.storageOffset()));
    }

    /** The unfolded problem's contiguous {@code [N*outD, O, oH, oW]} seen as the 3-d {@code [N, O, outD, oH, oW]}. */
    private static Tensor depthMajor(Tensor product, int[] out5) {
        int pixels = out5[3] * out5[4], channels = out5[1];
        return product.viewAs(new TensorMeta(product.dtype(), out5, new int[] {out5[2] * channels * pixels, pixels, channels * pixels, out5[4], 1},
                product.storageOffset()));
    }
}
