package dev.ember.autograd;

import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A computation with its own backward, as PyTorch's {@code torch.autograd.Function}: subclass it,
 * write {@link #forward} (run with recording off) and {@link #backward} (the gradients of the
 * inputs from those of the outputs), and call {@link #apply}. Values other than tensors go in the
 * subclass's fields, set by its constructor.
 *
 * <pre>{@code
 * final class ClampedExp extends CustomFunction {
 *     protected Tensor[] forward(Context ctx, Tensor... in) {
 *         Tensor y = in[0].exp();
 *         ctx.saveForBackward(y);
 *         return new Tensor[] {y};
 *     }
 *     protected Tensor[] backward(Context ctx, Tensor... grad) {
 *         return new Tensor[] {grad[0].mul(ctx.savedTensors().get(0)).clamp(-1.0, 1.0)};
 *     }
 * }
 * Tensor y = new ClampedExp().apply(x);      // y.gradFn() is ClampedExpBackward
 * }</pre>
 *
 * As PyTorch's: an output gradient that nothing produced reaches {@code backward} as zeros; it
 * must return one gradient per input (null for none), each of its input's shape (a gradient of
 * broadcastable shape is summed to it); {@link Context#needsInputGrad} says which are wanted;
 * {@link Context#markNonDifferentiable} outputs carry no gradient; a saved input changed in place
 * before backward is an error. Under {@code Ember.compile} a call of {@code apply} is traced into the
 * caller's graph with its backward as the node's derivative (docs/autograd.md); one whose forward or
 * backward a graph cannot hold runs as one eager call between graphs (GB0020). Either way its
 * backward is the one written here.
 */
public abstract class CustomFunction {

    /** What forward leaves for backward. */
    public static final class Context {
        private final boolean[] needsInputGrad;
        private List<Tensor> saved = List.of();
        private final Map<String, Object> values = new HashMap<>();
        private final Set<Tensor> nonDifferentiable = Collections.newSetFromMap(new IdentityHashMap<>());

        Context(boolean[] needsInputGrad) { this.needsInputGrad = needsInputGrad; }

        /** Keeps tensors for backward (inputs or outputs); a saved input changed in place before backward makes backward fail. */
        public void saveForBackward(Tensor... tensors) {
            for (Tensor t : tensors) if (t == null) throw new IllegalArgumentException("saveForBackward: a saved tensor is null");
            saved = List.of(tensors);
        }

        /** The tensors {@link #saveForBackward} kept, in order. */
        public List<Tensor> savedTensors() { return saved; }

        /** Whether input {@code i} wants a gradient (it requires grad and recording was on). */
        public boolean needsInputGrad(int i) { return needsInputGrad[i]; }

        /** Marks outputs that carry no gradient (indices, masks): they do not require grad. */
        public void markNonDifferentiable(Tensor... outputs) { nonDifferentiable.addAll(Arrays.asList(outputs)); }

        /** Keeps a value other than a tensor for backward (PyTorch's {@code ctx.scale = …}). */
        public void put(String name, Object value) { values.put(name, value); }

        @SuppressWarnings("unchecked")
        public <T> T get(String name) {
            if (!values.containsKey(name)) throw new IllegalArgumentException("the context holds no value '" + name + "'; it holds " + values.keySet());
            return (T) values.get(name);
        }
    }

    /** The outputs, computed from {@code inputs} with recording off. */
    protected abstract Tensor[] forward(Context ctx, Tensor... inputs);

    /** One gradient per input (null where there is none) from the outputs' gradients. */
    protected abstract Tensor[] backward(Context ctx, Tensor... gradOutputs);

    /** The name of its node in the autograd graph: the class's name and "Backward", as PyTorch's. */
    protected String name() { return getClass().getSimpleName() + "Backward"; }

    /** {@link #applyAll} of a function with one output. */
    public final Tensor apply(Tensor... inputs) {
        List<Tensor> out = applyAll(inputs);
        if (out.size() != 1) throw new IllegalStateException(name() + ": forward returned " + out.size() + " outputs; use applyAll");
        return out.getFirst();
    }

    /** Runs forward and, when an input requires grad and recording is on, records one node whose backward is {@link #backward}. */
    public final List<Tensor> applyAll(Tensor... inputs) {
        for (int i = 0; i < inputs.length; i++) if (inputs[i] == null) throw new IllegalArgumentException(name() + ": input " + i + " is null");
        boolean recording = GradMode.isEnabled();
        boolean[] needs = new boolean[inputs.length];
        for (int i = 0; i < inputs.length; i++) needs[i] = recording && inputs[i].requiresGrad();
        Context ctx = new Context(needs);
        Tensor[] outputs;
        try (var unused = GradMode.noGrad()) {
            outputs = forward(ctx, inputs.clone());
        }
        if (outputs == null || outputs.length == 0) throw new IllegalStateException(name() + ": forward returned no outputs");
        TensorMetaList metas = new TensorMetaList(outputs);
        boolean[] differentiable = new boolean[outputs.length];
        for (int k = 0; k < outputs.length; k++) differentiable[k] = outputs[k] != null && !ctx.nonDifferentiable.contains(outputs[k]);
        boolean[] readByBackward = new boolean[inputs.length];
        for (Tensor s : ctx.saved) for (int i = 0; i < inputs.length; i++) readByBackward[i] |= s == inputs[i];
        // saved tensors other than inputs (outputs, intermediates): their versions as forward left them, checked before backward reads
        // them (saved inputs are checked by the node, with their own message), as PyTorch checks every saved variable
        int[] savedVersions = new int[ctx.saved.size()];
        for (int j = 0; j < savedVersions.length; j++) savedVersions[j] = ctx.saved.get(j).version();
        Tensor[] forwardOutputs = outputs.clone();
        int count = inputs.length;
        Autograd.Backward backward = grads -> {
            checkSavedVersions(ctx.saved, savedVersions, inputs, forwardOutputs);
            Tensor[] filled = new Tensor[grads.length];
            for (int k = 0; k < grads.length; k++) filled[k] = grads[k] != null ? grads[k] : Tensor.zeros(metas.dtype(k), metas.shape(k));
            Tensor[] result = backward(ctx, filled);
            if (result == null || result.length != count) {
                throw new IllegalStateException("function " + name() + " returned an incorrect number of gradients (expected " + count + ", got "
                        + (result == null ? 0 : result.length) + ")");
            }
            for (int i = 0; i < count; i++) {
                if (result[i] == null || !needs[i]) continue;
                int[] got = result[i].shape(), want = inputs[i].shape();
                if (!Shapes.same(got, want) && !broadcastsTo(got, want)) {
                    throw new IllegalStateException("Function " + name() + " returned an invalid gradient at index " + i + " - got " + Shapes.format(got)
                            + " but expected shape compatible with " + Shapes.format(want));
                }
            }
            return result;
        };
        List<Tensor> recorded = Autograd.function(name(), List.of(inputs), Arrays.asList(outputs), differentiable, readByBackward, backward);
        return new ArrayList<>(recorded);
    }

    /** ATen's refusal of a saved output or intermediate changed in place since forward (a caller's {@code out.mul_(…)}). */
    private void checkSavedVersions(List<Tensor> saved, int[] versions, Tensor[] inputs, Tensor[] outputs) {
        for (int j = 0; j < versions.length; j++) {
            Tensor s = saved.get(j);
            if (Arrays.asList(inputs).stream().anyMatch(in -> in == s) || s.version() == versions[j]) continue;
            int k = Arrays.asList(outputs).indexOf(s);
            String of = k >= 0 ? ", which is output " + k + " of " + name() + "," : " (saved tensor " + j + " of " + name() + ")";
            throw new IllegalStateException("one of the variables needed for gradient computation has been modified by an inplace operation: ["
                    + s.meta().describe() + "]" + of + " is at version " + s.version() + "; expected version " + versions[j] + " instead. "
                    + "Hint: make the in-place op out of place (x = x.add(y) instead of x.add_(y)), or clone() the tensor before modifying it.");
        }
    }

    /** Whether a gradient of shape {@code got} sums to {@code want} (broadcasting's reverse). */
    private static boolean broadcastsTo(int[] got, int[] want) {
        if (got.length < want.length) return false;
        for (int i = 1; i <= want.length; i++) {
            int g = got[got.length - i], w = want[want.length - i];
            if (g != w && w != 1) return false;
        }
        return true;
    }

    /** The outputs' dtypes and shapes, kept without keeping the outputs (zeros for an unused output's gradient). */
    private record TensorMetaList(dev.ember.tensor.DType[] dtypes, int[][] shapes) {
        TensorMetaList(Tensor[] outputs) {
            this(Arrays.stream(outputs).map(t -> t == null ? dev.ember.tensor.DType.FLOAT32 : t.dtype()).toArray(dev.ember.tensor.DType[]::new),
                    Arrays.stream(outputs).map(t -> t == null ? new int[0] : t.shape()).toArray(int[][]::new));
        }

        dev.ember.tensor.DType dtype(int k) { return dtypes[k]; }

        int[] shape(int k) { return shapes[k]; }
    }
}
