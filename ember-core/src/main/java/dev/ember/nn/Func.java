package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code torch.func.functional_call}: runs a module with some of its parameters and buffers
 * replaced by the given tensors, for that call only (the module is left as it was, even when the
 * call throws). Keys are state-dict names ({@code "0.weight"}, {@code "bn.running_mean"},
 * {@code "parametrizations.weight.original"}); gradients flow to the given tensors, and a buffer a
 * layer updates in training (batch norm's running statistics) is updated in the given tensor.
 */
public final class Func {
    private Func() {}

    /** {@code functional_call(module, tensors, (input,))}: {@code module.call(input)} with the tensors substituted. */
    public static Tensor functionalCall(Module module, Map<String, ? extends Tensor> tensors, Tensor input) {
        return functionalCall(module, tensors, m -> m.call(input));
    }

    /** {@code body} run on {@code module} with the tensors substituted: for modules whose forward takes other arguments. */
    public static <M extends Module, R> R functionalCall(M module, Map<String, ? extends Tensor> tensors, Function<M, R> body) {
        Map<String, Module> modules = module.namedModules();
        record Swap(Module owner, String name, Tensor previous) {}
        List<Swap> swaps = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        Map<String, Tensor> resolved = new LinkedHashMap<>(tensors);
        for (String key : resolved.keySet()) {
            int dot = key.lastIndexOf('.');
            Module owner = modules.get(dot < 0 ? "" : key.substring(0, dot));
            String name = key.substring(dot + 1);
            if (owner == null || !(owner.hasTensorSlot(name) || Parametrize.isParametrized(owner, name) || owner.hasComputedTensor(name))) unexpected.add("'" + key + "'");
        }
        if (!unexpected.isEmpty()) {
            throw new IllegalArgumentException("Error(s) in reparametrizing for " + module.getClass().getSimpleName() + ":\n\tUnexpected key(s): " + String.join(", ", unexpected) + ".");
        }
        try {
            resolved.forEach((key, t) -> {
                int dot = key.lastIndexOf('.');
                Module owner = modules.get(dot < 0 ? "" : key.substring(0, dot));
                String name = key.substring(dot + 1);
                swaps.add(new Swap(owner, name, owner.computedTensor(name)));
                owner.setComputedTensor(name, t);
            });
            return body.apply(module);
        } finally {
            for (int i = swaps.size() - 1; i >= 0; i--) swaps.get(i).owner().setComputedTensor(swaps.get(i).name(), swaps.get(i).previous());
        }
    }
}
