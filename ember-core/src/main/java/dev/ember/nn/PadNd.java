package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The padding modules, as PyTorch's {@code nn.ZeroPad2d}, {@code ConstantPad1d/2d},
 * {@code ReflectionPad1d/2d} and {@code ReplicationPad1d/2d}: {@link F#pad} with a mode and, for
 * constant padding, a value. A single amount pads every side; otherwise {@code (left, right)} for
 * 1d and {@code (left, right, top, bottom)} for 2d.
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
    public Tensor forward(Tensor input) { return mode.equals("constant") ? F.pad(input, padding, value) : F.pad(input, padding, mode); }

    @Override
    protected String extraRepr() {
        String p = "(" + Arrays.stream(padding).mapToObj(String::valueOf).collect(Collectors.joining(", ")) + ")";
        return mode.equals("constant") && !(this instanceof ZeroPad2d) ? "padding=" + p + ", value=" + Repr.number(value) : p;
    }
}
