package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * PyTorch's {@code torch.nn.utils.parameters_to_vector} and {@code vector_to_parameters}: all of a
 * model's parameters as one flat vector and back, for optimizers and tools that see a model as a
 * point in parameter space (line searches, evolution strategies, Hessian-vector products).
 *
 * <pre>{@code
 * Tensor flat = ConvertParameters.parametersToVector(model.parameters());   // [numel of all]
 * ConvertParameters.vectorToParameters(flat.mul(0.5), model.parameters());  // halves every weight
 * }</pre>
 */
public final class ConvertParameters {
    private ConvertParameters() {}

    /** The parameters flattened and joined in order, one 1-d tensor (recorded: gradients flow back to each parameter). */
    public static Tensor parametersToVector(Iterable<? extends Tensor> parameters) {
        List<Tensor> flat = new ArrayList<>();
        for (Tensor p : parameters) flat.add(p.reshape(-1));
        if (flat.isEmpty()) throw new IllegalArgumentException("parameters_to_vector: there are no parameters (torch.cat(): expected a non-empty list of Tensors)");
        return Tensor.cat(flat, 0);
    }

    /**
     * Writes consecutive slices of the 1-d {@code vector} into the parameters, in order, each
     * reshaped to its parameter's shape. PyTorch re-points each parameter's {@code .data} at its
     * slice; here the values are copied in (outside autograd), so the parameters stay the
     * module's own tensors and do not alias {@code vector}.
     */
    public static void vectorToParameters(Tensor vector, Iterable<? extends Tensor> parameters) {
        if (vector == null) throw new IllegalArgumentException("vector_to_parameters: expected torch.Tensor, but got: NoneType");
        if (vector.dim() != 1) throw new IllegalArgumentException("vector_to_parameters: expected a 1-d vector, got " + vector.dim() + "-d " + java.util.Arrays.toString(vector.shape()));
        long needed = 0;
        for (Tensor p : parameters) needed += p.numel();
        if (needed != vector.numel()) {
            throw new IllegalArgumentException("vector_to_parameters: the vector has " + vector.numel() + " elements but the parameters have " + needed);
        }
        int offset = 0;
        try (var unused = GradMode.noGrad()) {
            for (Tensor p : parameters) {
                int n = p.numel();
                p.copy_(vector.narrow(0, offset, n).reshape(p.shape()));
                offset += n;
            }
        }
    }
}
