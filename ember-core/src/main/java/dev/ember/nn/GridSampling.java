package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link F#affineGrid} and {@link F#gridSample}, spatial transformers' two halves, written in
 * recorded tensor ops: the sampling gathers the corner values at the integer positions around
 * each grid point and blends them with weights that are functions of the grid, so autograd gives
 * the gradients of both the input and the grid exactly as ATen's grid_sampler_2d/3d backward
 * computes them (the corners' positions, as ATen's, are constants).
 */
final class GridSampling {
    private GridSampling() {}

    static Tensor affineGrid(Tensor theta, int[] size, boolean alignCorners) {
        if (!theta.dtype().isFloatingPoint()) throw new IllegalArgumentException("Expected theta to have floating point type, but got " + theta.dtype().torchName());
        String shown = Shapes.format(size);
        if (size.length == 4) {
            if (theta.dim() != 3 || theta.size(-2) != 2 || theta.size(-1) != 3) {
                throw new IllegalArgumentException("Expected a batch of 2D affine matrices of shape Nx2x3 for size " + shown + ". Got " + Shapes.format(theta.shape()) + ".");
            }
        } else if (size.length == 5) {
            if (theta.dim() != 3 || theta.size(-2) != 3 || theta.size(-1) != 4) {
                throw new IllegalArgumentException("Expected a batch of 3D affine matrices of shape Nx3x4 for size " + shown + ". Got " + Shapes.format(theta.shape()) + ".");
            }
        } else {
            throw new UnsupportedOperationException("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size " + shown + ".");
        }
        if (Arrays.stream(size).min().getAsInt() <= 0) throw new IllegalArgumentException("Expected non-zero, positive output size. Got " + shown);
        if (theta.size(0) != size[0]) {
            throw new IllegalArgumentException("affine_grid: theta holds " + theta.size(0) + " matrices for a batch of " + size[0]);
        }
        // the base grid [spatial…, dims + 1] of (x, y[, z], 1), x running along the last dim, as ATen's affine_grid_generator
        int spatial = size.length - 2;
        int[] extent = Arrays.copyOfRange(size, 2, size.length);
        List<Tensor> coordinates = new ArrayList<>();
        for (int k = 0; k < spatial; k++) {
            int d = extent[spatial - 1 - k];   // x is the last spatial dim (W), y the one before
            Tensor steps = linspace(d, alignCorners, theta.dtype());
            int[] view = new int[spatial];
            Arrays.fill(view, 1);
            view[spatial - 1 - k] = d;
            coordinates.add(steps.reshape(view).expand(extent));
        }
        coordinates.add(Tensor.ones(theta.dtype(), extent));
        Tensor base = Tensor.stack(coordinates, spatial).reshape(1, -1, spatial + 1);   // [1, points, dims + 1]
        int[] out = new int[size.length];
        out[0] = size[0];
        System.arraycopy(extent, 0, out, 1, spatial);
        out[size.length - 1] = spatial;
        return base.matmul(theta.transpose(1, 2)).reshape(out);
    }

    /** {@code d} points evenly over [-1, 1], pulled in to the pixel centres without align_corners. */
    private static Tensor linspace(int d, boolean alignCorners, DType dtype) {
        if (d <= 1) return Tensor.zeros(dtype, d);
        Tensor steps = Tensor.linspace(-1, 1, d).to(dtype);
        return alignCorners ? steps : steps.mul((d - 1) / (double) d);
    }

    static Tensor gridSample(Tensor input, Tensor grid, String mode, String paddingMode, boolean alignCorners) {
        if (!List.of("bilinear", "nearest", "bicubic").contains(mode)) {
            throw new IllegalArgumentException("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '" + mode + "'");
        }
        if (!List.of("zeros", "border", "reflection").contains(paddingMode)) {
            throw new IllegalArgumentException("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '" + paddingMode + "'");
        }
        String sizes = "input with sizes " + Shapes.format(input.shape()) + " and grid with sizes " + Shapes.format(grid.shape());
        if (input.dtype() != grid.dtype()) {
            throw new IllegalArgumentException("grid_sampler(): expected scalar type " + input.dtype().scalarTypeName() + " but found " + grid.dtype().scalarTypeName()
                    + " (the input and the grid must have one dtype)");
        }
        // ATen's order: the common checks (batch, coordinates, non-empty), then the rank of the 2-d or 3-d sampler it dispatched to
        if (input.size(0) != grid.size(0)) throw new IllegalArgumentException("grid_sampler(): expected grid and input to have same batch size, but got " + sizes);
        int spatial = input.dim() - 2;
        if (grid.size(-1) != spatial) {
            throw new IllegalArgumentException("grid_sampler(): expected grid to have size " + spatial + " in last dimension, but got grid with sizes " + Shapes.format(grid.shape()));
        }
        for (int d = 2; d < input.dim(); d++) {
            if (input.size(d) == 0) {
                throw new IllegalArgumentException("grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes " + Shapes.format(input.shape())
                        + " with dimension " + d + " being empty");
            }
        }
        int rank = input.dim() == 4 ? 4 : 5;
        if (input.dim() != rank || grid.dim() != rank) {
            throw new IllegalArgumentException("grid_sampler(): expected " + rank + "D input and grid with same number of dimensions, but got " + sizes);
        }
        if (mode.equals("bicubic")) {
            if (spatial != 2) throw new IllegalArgumentException("grid_sampler(): bicubic interpolation only supports 4D input");
            return bicubic(input, grid, paddingMode, alignCorners);
        }
        int n = input.size(0), c = input.size(1);
        int[] extent = Arrays.copyOfRange(input.shape(), 2, input.dim());            // D?, H, W
        int[] outExtent = Arrays.copyOfRange(grid.shape(), 1, grid.dim() - 1);
        int points = Shapes.numel(outExtent);
        Tensor flatGrid = grid.reshape(n, points, spatial);
        // source positions per input dim, in input order (the grid's last entry is x, the last dim)
        Tensor[] position = new Tensor[spatial];
        for (int k = 0; k < spatial; k++) {
            int dim = spatial - 1 - k;
            position[dim] = sourceIndex(flatGrid.select(2, k), extent[dim], paddingMode, alignCorners);
        }
        Tensor values = input.reshape(n, c, -1);
        Tensor out;
        if (mode.equals("nearest")) {
            Tensor[] at = new Tensor[spatial];
            for (int d = 0; d < spatial; d++) at[d] = position[d].detach().round();
            out = corner(values, at, extent, c);
        } else {
            out = null;
            Tensor[] low = new Tensor[spatial];
            for (int d = 0; d < spatial; d++) low[d] = position[d].detach().floor();
            for (int corner = 0; corner < 1 << spatial; corner++) {
                Tensor[] at = new Tensor[spatial];
                Tensor weight = null;
                for (int d = 0; d < spatial; d++) {
                    boolean high = (corner >> (spatial - 1 - d) & 1) == 1;
                    at[d] = high ? low[d].add(1.0) : low[d];
                    // the weight of the low corner is (low + 1 - x), of the high one (x - low): functions of the grid
                    Tensor w = high ? position[d].sub(low[d]) : low[d].add(1.0).sub(position[d]);
                    weight = weight == null ? w : weight.mul(w);
                }
                Tensor term = corner(values, at, extent, c).mul(weight.unsqueeze(1));
                out = out == null ? term : out.add(term);
            }
        }
        int[] shape = new int[2 + spatial];
        shape[0] = n;
        shape[1] = c;
        System.arraycopy(outExtent, 0, shape, 2, spatial);
        return out.reshape(shape);
    }

    /** The values at integer positions {@code at} [N, points] per dim, {@code [N, C, points]}; zero where a position is outside the input. */
    private static Tensor corner(Tensor values, Tensor[] at, int[] extent, int channels) {
        Tensor inside = null, index = null;
        for (int d = 0; d < at.length; d++) {
            Tensor ok = at[d].ge(0.0).logicalAnd(at[d].le(extent[d] - 1.0));
            inside = inside == null ? ok : inside.logicalAnd(ok);
            Tensor clamped = at[d].clamp(0.0, extent[d] - 1.0).to(DType.INT64);
            index = index == null ? clamped : index.mul(extent[d]).add(clamped);
        }
        int n = index.size(0), points = index.size(1);
        Tensor gathered = values.gather(2, index.unsqueeze(1).expand(n, channels, points));
        return gathered.mul(inside.unsqueeze(1).to(values.dtype()));
    }

    /** ATen's grid_sampler_compute_source_index: a normalized coordinate to a position in {@code size} pixels, padded as {@code paddingMode}. */
    private static Tensor sourceIndex(Tensor coordinate, int size, String paddingMode, boolean alignCorners) {
        Tensor x = alignCorners ? coordinate.add(1.0).mul((size - 1) / 2.0) : coordinate.add(1.0).mul(size).sub(1.0).div(2.0);
        return switch (paddingMode) {
            case "border" -> x.clamp(0.0, size - 1.0);
            case "reflection" -> {
                Tensor reflected = alignCorners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
                yield reflected.clamp(0.0, size - 1.0);
            }
            default -> x;
        };
    }

    /** ATen's reflect_coordinates: {@code x} mirrored at {@code twiceLow / 2} and {@code twiceHigh / 2} until inside. */
    private static Tensor reflect(Tensor x, int twiceLow, int twiceHigh) {
        if (twiceLow == twiceHigh) return x.mul(0.0);
        double min = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
        Tensor distance = x.sub(min).abs();
        Tensor extra = distance.fmod(span);
        Tensor flips = distance.detach().div(span).floor();
        Tensor even = flips.fmod(2.0).eq(0.0);
        return Tensor.where(even, extra.add(min), extra.rsub(span).add(min));
    }


    /**
     * ATen's bicubic grid sampler: the 4×4 pixels around each point, weighted by the cubic
     * convolution kernel (A = −0.75) of the point's fractional offsets. The taps are taken at the
     * unpadded position; each tap's integer coordinate is then padded (border: clamped; reflection:
     * mirrored, then clamped; zeros: outside reads 0), as ATen's {@code get_value_bounded}. The
     * weights are functions of the grid, so the grid's gradient is ATen's.
     */
    private static Tensor bicubic(Tensor input, Tensor grid, String paddingMode, boolean alignCorners) {
        int n = input.size(0), c = input.size(1);
        int[] extent = {input.size(2), input.size(3)};
        int outH = grid.size(1), outW = grid.size(2), points = outH * outW;
        Tensor flatGrid = grid.reshape(n, points, 2);
        Tensor y = sourceIndex(flatGrid.select(2, 1), extent[0], "zeros", alignCorners), x = sourceIndex(flatGrid.select(2, 0), extent[1], "zeros", alignCorners);
        Tensor yLow = y.detach().floor(), xLow = x.detach().floor();
        Tensor[] wy = cubicWeights(y.sub(yLow)), wx = cubicWeights(x.sub(xLow));
        Tensor values = input.reshape(n, c, -1);
        Tensor out = null;
        for (int i = 0; i < 4; i++) {
            Tensor row = tapCoordinate(yLow.add(i - 1.0), extent[0], paddingMode, alignCorners);
            for (int j = 0; j < 4; j++) {
                Tensor[] at = {row, tapCoordinate(xLow.add(j - 1.0), extent[1], paddingMode, alignCorners)};
                Tensor term = corner(values, at, extent, c).mul(wy[i].mul(wx[j]).unsqueeze(1));
                out = out == null ? term : out.add(term);
            }
        }
        return out.reshape(n, c, outH, outW);
    }

    /** ATen's {@code compute_coordinates} of a tap's integer coordinate (then truncated, as its {@code static_cast<int64_t>}). */
    private static Tensor tapCoordinate(Tensor coordinate, int size, String paddingMode, boolean alignCorners) {
        Tensor x = switch (paddingMode) {
            case "border" -> coordinate.clamp(0.0, size - 1.0);
            case "reflection" -> (alignCorners ? reflect(coordinate, 0, 2 * (size - 1)) : reflect(coordinate, -1, 2 * size - 1)).clamp(0.0, size - 1.0);
            default -> coordinate;
        };
        return x.trunc();
    }

    /** ATen's {@code get_cubic_upsample_coefficients(t)} with A = −0.75: the weights of the taps at −1, 0, 1, 2. */
    private static Tensor[] cubicWeights(Tensor t) {
        double a = -0.75;
        Tensor near = t, far = t.rsub(1.0);
        return new Tensor[] {convolution2(near.add(1.0), a), convolution1(near, a), convolution1(far, a), convolution2(far.add(1.0), a)};
    }

    /** {@code ((A + 2)·x − (A + 3))·x² + 1}, for |x| ≤ 1. */
    private static Tensor convolution1(Tensor x, double a) { return x.mul(a + 2).sub(a + 3).mul(x).mul(x).add(1.0); }

    /** {@code ((A·x − 5A)·x + 8A)·x − 4A}, for 1 < |x| < 2. */
    private static Tensor convolution2(Tensor x, double a) { return x.mul(a).sub(5 * a).mul(x).add(8 * a).mul(x).sub(4 * a); }
}
