package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The padding modules, as PyTorch's {@code nn.ZeroPad1d/2d/3d}, {@code ConstantPad1d/2d/3d},
 * {@code ReflectionPad1d/2d/3d}, {@code ReplicationPad1d/2d/3d} and {@code CircularPad1d/2d/3d}:
 * {@link F#pad} with a mode and, for constant padding, a value. A single amount pads every side;
 * otherwise {@code (left, right)} for 1d, {@code (left, right, top, bottom)} for 2d and
 * {@code (left, right, top, bottom, front, back)} for 3d.
 */
public abstract class PadNd extends Module {
    private final int[] padding;
    public final String mode;
    public final double value;

    PadNd(int sides, String mode, double value, int... padding) {
        if (padding.length == 1) {
            int[] all = new int[sides];
            Arrays.fill(all, padding[0]);
            padding = all;
        }
        if (padding.length != sides) {
            throw new IllegalArgumentException(getClass().getSimpleName() + ": padding must be one number or " + sides + " numbers, got " + padding.length);
        }
        this.padding = padding.clone();
        this.mode = mode;
        this.value = value;
    }

    public int[] padding() { return padding.clone(); }

    @Override
    public Tensor forward(Tensor input) {
        int dims = padding.length / 2;
        if (mode.equals("circular") && input.dim() != dims + 1 && input.dim() != dims + 2) {   // PyTorch's CircularPadNd._check_input_dim
            throw new IllegalArgumentException("expected " + (dims + 1) + "D or " + (dims + 2) + "D input (got " + input.dim() + "D input)");
        }
        return mode.equals("constant") ? F.pad(input, padding, value) : F.pad(input, padding, mode);
    }

    @Override
    protected String extraRepr() {
        String p = "(" + Arrays.stream(padding).mapToObj(String::valueOf).collect(Collectors.joining(", ")) + ")";
        return mode.equals("constant") && !(this instanceof ZeroPad1d || this instanceof ZeroPad2d || this instanceof ZeroPad3d) ? "padding=" + p + ", value=" + Repr.number(value) : p;
    }
}
