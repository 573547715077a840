package dev.ember.ops;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * The out= form of an op with several results ({@code torch.linalg.qr(A, out=(Q, R))}): each
 * result written into its own out tensor. Ember's out= ops write one tensor ({@link Schema}: one
 * {@code Tensor(a!) out}), so these are not ops of their own: they compute the functional op and
 * copy each result in with {@code copy_}, which a captured graph keeps as writes into the outs.
 * ATen's rules, checked before anything is written (a refused call leaves every out untouched):
 * no input may require grad while grad mode is on; each out must have its result's dtype
 * ("Expected out tensor to have dtype float, but got double instead") and, as Ember does not
 * resize out, its shape.
 */
public final class OutTuples {
    private OutTuples() {}

    /**
     * {@code functional}'s results written into {@code outs} (as many as it has results), which are
     * returned. {@code op} is the op's ATen name, for errors; {@code inputs} its tensor arguments.
     */
    public static List<Tensor> write(String op, List<Tensor> inputs, Supplier<List<Tensor>> functional, Tensor... outs) {
        if (GradMode.isEnabled()) {
            for (Tensor in : inputs) {
                if (in.requiresGrad()) {
                    throw new IllegalArgumentException(op + "(): functions with out=... arguments don't support automatic differentiation, "
                            + "but one of the arguments requires grad. Call the functional form or run the call inside Ember.noGrad().");
                }
            }
        }
        List<Tensor> results = functional.get();
        if (results.size() != outs.length) {
            throw new IllegalArgumentException(op + ": expected " + results.size() + " out tensors, one per result, but got " + outs.length);
        }
        for (int i = 0; i < outs.length; i++) {
            Tensor result = results.get(i), out = outs[i];
            if (out.dtype() != result.dtype()) {
                throw new IllegalArgumentException(op + ": Expected out tensor to have dtype " + PointwiseOps.typeMetaName(result.dtype()) + ", but got "
                        + PointwiseOps.typeMetaName(out.dtype()) + " instead");
            }
            if (!Arrays.equals(out.shape(), result.shape())) {
                throw new IllegalArgumentException(op + ": out tensor " + i + " has shape " + Shapes.format(out.shape()) + " but the result has shape "
                        + Shapes.format(result.shape()) + "; Ember does not resize out (ATen would, with a warning): pass an out of shape "
                        + Shapes.format(result.shape()));
            }
        }
        for (int i = 0; i < outs.length; i++) outs[i].copy_(results.get(i));
        return List.of(outs);
    }
}
