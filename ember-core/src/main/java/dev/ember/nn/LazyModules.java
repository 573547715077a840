package dev.ember.nn;

import dev.ember.nn.ModuleFields.Kind;
import dev.ember.nn.ModuleFields.Slot;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

/**
 * What the {@code Lazy*} modules share (PyTorch's {@code LazyModuleMixin}): a lazy module is its
 * layer built with a placeholder input size and no tensors; at its first forward (or when a state
 * dict is loaded into it) it builds the real layer for the input's size and takes over its freshly
 * initialised tensors, so from then on it is that layer. PyTorch changes the module's class
 * ({@code LazyLinear} becomes {@code Linear}); a Java object keeps its class, a subclass of the layer.
 */
final class LazyModules {
    private LazyModules() {}

    /** Every parameter and buffer field of {@code real}'s class, copied from {@code real} into {@code target} (an instance of a subclass). */
    static void adopt(Module target, Module real) {
        for (Slot s : ModuleFields.of(real.getClass())) {
            if (s.kind() != Kind.MODULE) s.set(target, s.get(real));
        }
    }

    /** PyTorch's {@code _LazyConvXdMixin._get_in_channels}: the channel dim of batched or unbatched input, or its refusal. */
    static int convInChannels(String name, int spatialDims, Tensor input) {
        int unbatched = spatialDims + 1, batched = unbatched + 1;
        if (input.dim() != unbatched && input.dim() != batched) {
            throw new IllegalArgumentException("Expected " + unbatched + "D (unbatched) or " + batched + "D (batched) input to " + name
                    + ", but got input of size: torch.Size(" + Shapes.format(input.shape()) + ")");
        }
        return input.dim() == batched ? input.shape()[1] : input.shape()[0];
    }

    /** A state dict loaded before the first forward gives the size: materialize from the weight (or running_mean) found there. */
    static void materializeFromStateDict(Module m, java.util.function.IntConsumer materialize, java.util.function.ToIntFunction<Tensor> sizeFromWeight,
                                         java.util.function.BooleanSupplier materialized) {
        m.addLoadStateDictPreHook((stateDict, prefix) -> {
            if (materialized.getAsBoolean()) return;
            Tensor w = stateDict.get(prefix + "weight");
            if (w != null) materialize.accept(sizeFromWeight.applyAsInt(w));
            else if (stateDict.get(prefix + "running_mean") instanceof Tensor rm) materialize.accept(rm.shape()[0]);
        });
    }
}
