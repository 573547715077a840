package dev.ember.nn;

import dev.ember.tensor.Tensor;

/** Softmax over the channels of {@code [N, C, H, W]} or {@code [C, H, W]} input (dim −3), as PyTorch's {@code nn.Softmax2d}. */
public class Softmax2d extends Module {
    @Override
    public Tensor forward(Tensor input) {
        if (input.dim() != 3 && input.dim() != 4) {
            throw new IllegalArgumentException("Softmax2d: expected input to be 3D or 4D, got " + input.dim() + "D instead");
        }
        return F.softmax(input, -3);
    }
}
