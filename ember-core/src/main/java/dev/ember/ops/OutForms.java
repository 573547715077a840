package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.function.BiFunction;

/**
 * The out= overload of an op that is not pointwise ({@code gather.out}, {@code argmax.out}, …):
 * its functional op's result, checked against out first — out must have the result's dtype, as
 * ATen's structured ops require ("Expected out tensor to have dtype float, but got double
 * instead"), and its shape, since Ember does not resize out — then copied into out, whatever its
 * strides.
 */
final class OutForms {
    private OutForms() {}

    /** Defines {@code schema} (the functional op's arguments, then {@code *, Tensor(a!) out}) from {@code functional}. */
    static OpOverload of(String schema, OpOverload functional) {
        return of(schema, functional, defaultWrongDtype());
    }

    /** As {@link #of(String, OpOverload)}, for an op whose kernel words a wrong out dtype its own way. */
    static OpOverload of(String schema, OpOverload functional, BiFunction<DType, DType, String> wrongDtype) {
        return define(schema, checked(functional, wrongDtype), copyingKernel(functional));
    }

    /**
     * As {@link #of(String, OpOverload)} (the same checks of out), with a kernel that computes the
     * result straight into out rather than copying the functional op's fresh result: for an op whose
     * out form saves a large allocation ({@code convolution.out}, which inductor calls to put a
     * convolution's output in its arena).
     */
    static OpOverload writing(String schema, OpOverload functional, OpOverload.Kernel kernel) {
        return define(schema, checked(functional, defaultWrongDtype()), kernel);
    }

    private static BiFunction<DType, DType, String> defaultWrongDtype() {
        return (result, out) -> "Expected out tensor to have dtype " + PointwiseOps.typeMetaName(result)
                + ", but got " + PointwiseOps.typeMetaName(out) + " instead";
    }

    /** The meta of an out form: out has the functional result's dtype and shape (Ember does not resize out). */
    private static OpOverload.MetaFn checked(OpOverload functional, BiFunction<DType, DType, String> wrongDtype) {
        return a -> {
            TensorMeta result = (TensorMeta) functional.inferMeta(functional.bind(inputs(a)));
            Tensor out = a.tensor(a.op().schema().outIndex());
            String op = a.op().schema().name();
            if (out.dtype() != result.dtype()) {
                throw new IllegalArgumentException(op + ": " + wrongDtype.apply(result.dtype(), out.dtype()));
            }
            if (!Arrays.equals(out.shape(), result.shape())) {
                throw new IllegalArgumentException(op + ": the out tensor has shape " + Shapes.format(out.shape()) + " but the result has shape "
                        + Shapes.format(result.shape()) + "; Ember does not resize out (ATen would, with a warning): pass an out of shape "
                        + Shapes.format(result.shape()));
            }
            return out.meta();
        };
    }

    /**
     * The out= form of an elementwise op defined by its functional op: TensorIterator's checks (out
     * has the result's shape, as Ember does not resize it; the result dtype casts to out's), then
     * the functional op's result copied in. Autograd refuses it, as ATen refuses out= ops with
     * inputs that require grad.
     */
    static OpOverload pointwise(String schema, OpOverload functional) {
        return define(schema, functional, a -> {
            TensorMeta result = (TensorMeta) functional.inferMeta(functional.bind(inputs(a)));
            return PointwiseOps.checkInplace(a.op().schema().name(), a.tensor(a.op().schema().outIndex()), result.dtype(), result.shape());
        });
    }

    private static OpOverload define(String schema, OpOverload functional, OpOverload.MetaFn meta) {
        return define(schema, meta, copyingKernel(functional));
    }

    private static OpOverload define(String schema, OpOverload.MetaFn meta, OpOverload.Kernel kernel) {
        return OpOverload.define(schema).meta(meta).kernel(kernel).register();
    }

    /** The functional op's fresh result, copied into out. */
    private static OpOverload.Kernel copyingKernel(OpOverload functional) {
        return (a, m) -> {
            Tensor out = a.tensor(a.op().schema().outIndex());
            Copy.copy(functional.callTensor(inputs(a)), out);
            out.bumpVersion();
            return out;
        };
    }

    /**
     * The kernel of an in-place op defined by its functional op ({@code i0_}, {@code bernoulli_.Tensor},
     * the in-place samplers): the functional op's result on the same arguments, copied into self.
     */
    static OpOverload.Kernel intoSelf(OpOverload functional) {
        return (a, m) -> {
            Tensor self = a.tensor(0);
            Copy.copy(functional.callTensor(a.toArray()), self);
            self.bumpVersion();
            return self;
        };
    }

    /** The arguments without out (always last). */
    private static Object[] inputs(Args a) {
        return Arrays.copyOf(a.toArray(), a.size() - 1);
    }
}
