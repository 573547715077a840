package dev.ember.ops;

import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;

/**
 * Custom ops in a namespace of your own (PyTorch's {@code torch.library.custom_op}): an op defined
 * here is called like any ATen op, runs its implementation eagerly, and appears in graphs by name
 * ({@code mylib.scale.default}) as one opaque node whose output metadata, while tracing, comes from
 * its fake implementation.
 * <pre>{@code
 * static final OpOverload SCALE = Library.customOp("mylib::scale", "(Tensor x, float s) -> Tensor",
 *         a -> a.tensor(0).mul(a.dbl(1)),              // real tensors in, a real tensor out
 *         a -> a.tensor(0).meta());                    // metadata only (fake tensors while tracing)
 * Tensor y = SCALE.callTensor(x, 2.0);                 // eager, or a node inside Ember.compile
 * }</pre>
 */
public final class Library {
    private Library() {}

    /** The real computation: arguments in schema order (defaults filled in) → a Tensor or a List of Tensors. */
    @FunctionalInterface
    public interface Impl { Object apply(Args args); }

    /**
     * The output metadata from the arguments' metadata alone (tensors may be fake): a
     * {@link TensorMeta}, a Tensor whose metadata is the output's (e.g. a {@code FakeTensor}), or a
     * List of either. It must not read tensor data.
     */
    @FunctionalInterface
    public interface Fake { Object apply(Args args); }

    /**
     * Defines and registers {@code name} ({@code "namespace::op"} or {@code "namespace::op.overload"};
     * the namespace must not be {@code aten}) with this schema's arguments and return, e.g.
     * {@code "(Tensor x, float s=1.0) -> Tensor"}. Throws if the op is already defined.
     */
    public static OpOverload customOp(String name, String schema, Impl impl, Fake fake) {
        int colons = name.indexOf("::");
        if (colons <= 0 || colons + 2 >= name.length()) {
            throw new IllegalArgumentException("custom op name must be 'namespace::name', got '" + name + "'");
        }
        if (name.substring(0, colons).equals("aten")) throw new IllegalArgumentException("the aten namespace is reserved for ATen's ops: " + name);
        if (!schema.strip().startsWith("(")) throw new IllegalArgumentException("custom op schema must start with its arguments '(…) -> …', got '" + schema + "'");
        return OpOverload.define(name + schema.strip())
                .meta(a -> metaOf(name, fake.apply(a)))
                .kernel((a, meta) -> checked(name, impl.apply(a), meta))
                .register();
    }

    private static Object metaOf(String name, Object fake) {
        return switch (fake) {
            case TensorMeta m -> m;
            case Tensor t -> t.meta();
            case List<?> l -> {
                List<TensorMeta> out = new ArrayList<>(l.size());
                for (Object x : l) out.add((TensorMeta) metaOf(name, x));
                yield out;
            }
            case null, default -> throw new IllegalStateException(name + ": the fake implementation must return a TensorMeta, a Tensor or a List of them, got " + fake);
        };
    }

    /** The implementation's result, checked against what the fake implementation promised (a mismatch would corrupt traced graphs). */
    private static Object checked(String name, Object out, Object meta) {
        if (meta instanceof TensorMeta m) {
            if (!(out instanceof Tensor t)) throw new IllegalStateException(name + ": the implementation returned " + out + " where the fake implementation promised a Tensor");
            if (t.dtype() != m.dtype() || !java.util.Arrays.equals(t.shape(), m.shape())) {
                throw new IllegalStateException(name + ": the implementation returned " + t.meta().describe() + " but the fake implementation said "
                        + m.describe() + "; make them agree");
            }
            return t;
        }
        List<?> metas = (List<?>) meta;
        if (!(out instanceof List<?> l) || l.size() != metas.size()) {
            throw new IllegalStateException(name + ": the implementation returned " + out + " where the fake implementation promised " + metas.size() + " tensors");
        }
        for (int i = 0; i < l.size(); i++) checked(name + " output " + i, l.get(i), metas.get(i));
        return out;
    }
}
