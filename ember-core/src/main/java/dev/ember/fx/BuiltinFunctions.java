package dev.ember.fx;

import java.util.List;
import java.util.Map;

/** The {@link GraphFunction}s Ember's graphs use besides ATen ops. */
public final class BuiltinFunctions {
    private BuiltinFunctions() {}

    /** {@code getitem(list, i)}: element {@code i} of a list value, e.g. one output of {@code split}. */
    public static final GraphFunction GETITEM = new GraphFunction() {
        @Override
        public String name() { return "getitem"; }

        @Override
        public String qualifiedName() { return "operator.getitem"; }

        @Override
        public Object apply(List<Object> args, Map<String, Object> kwargs) {
            if (args.size() != 2 || !kwargs.isEmpty()) {
                throw new IllegalArgumentException("operator.getitem takes (sequence, index), got " + args.size()
                        + " arguments and keyword arguments " + kwargs.keySet());
            }
            if (!(args.get(0) instanceof List<?> list)) {
                throw new IllegalArgumentException("operator.getitem: expected a list, got " + describe(args.get(0)));
            }
            if (!(args.get(1) instanceof Long || args.get(1) instanceof Integer)) {
                throw new IllegalArgumentException("operator.getitem: the index must be an integer, got " + describe(args.get(1)));
            }
            long i = ((Number) args.get(1)).longValue(), size = list.size();
            long at = i < 0 ? i + size : i;
            if (at < 0 || at >= size) throw new IndexOutOfBoundsException("operator.getitem: index " + i + " is out of range for a list of " + size);
            return list.get((int) at);
        }

        @Override
        public String render(List<String> args) { return args.get(0) + ".get(" + args.get(1) + ")"; }

        @Override
        public String javaSource() { return "BuiltinFunctions.GETITEM"; }

        @Override
        public String toString() { return qualifiedName(); }
    };

    /**
     * {@code _set_grad_enabled(mode)}: switches autograd recording for the nodes after it, as
     * PyTorch's {@code torch._C._set_grad_enabled} does in Dynamo's graphs; what a traced
     * {@code try (var s = Ember.noGrad()) { … }} leaves in the graph at each end of the scope.
     * Code generated for inference ignores it (nothing is recorded there); AOT differentiates no
     * node it switches off; an interpreter switches the thread's grad mode.
     */
    public static final GraphFunction SET_GRAD_ENABLED = new GraphFunction() {
        @Override
        public String name() { return "_set_grad_enabled"; }

        @Override
        public String qualifiedName() { return "torch._C._set_grad_enabled"; }

        @Override
        public Object apply(List<Object> args, Map<String, Object> kwargs) {
            if (args.size() != 1 || !(args.getFirst() instanceof Boolean mode)) {
                throw new IllegalArgumentException("_set_grad_enabled takes one boolean, got " + args);
            }
            dev.ember.autograd.GradMode.setEnabled(mode);
            return null;
        }

        @Override
        public String render(List<String> args) { return "GradMode.setEnabled(" + args.getFirst() + ")"; }

        @Override
        public String javaSource() { return "BuiltinFunctions.SET_GRAD_ENABLED"; }

        @Override
        public String toString() { return qualifiedName(); }
    };

    private static String describe(Object v) { return v == null ? "null" : v.getClass().getSimpleName() + " " + v; }
}
