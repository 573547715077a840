package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Splits dim {@code dim} into {@code sizes} (one may be -1), as PyTorch's {@code nn.Unflatten}: Flatten's inverse in a Sequential. */
public class Unflatten extends Module {
    public final int dim;
    private final int[] sizes;

    public Unflatten(int dim, int... sizes) {
        this.dim = dim;
        this.sizes = sizes.clone();
    }

    public int[] unflattenedSize() { return sizes.clone(); }

    @Override
    public Tensor forward(Tensor input) { return input.unflatten(dim, sizes); }

    @Override
    protected String extraRepr() {
        return "dim=" + dim + ", unflattened_size=(" + Arrays.stream(sizes).mapToObj(String::valueOf).collect(Collectors.joining(", ")) + (sizes.length == 1 ? ",)" : ")");
    }
}
