package dev.ember.ops;

import dev.ember.autograd.Autograd;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One op, defined once: its schema, tags, meta function, eager kernel and (optionally) its
 * {@link Decomposition} into other ops. Eager code, fake-tensor tracing, decompositions and the compiler
 * all go through this object, so they agree on what the op is.
 *
 * <p>A call checks arguments and computes the output metadata first (the meta function throws
 * ATen-style errors), and only then runs the kernel: a bad call never writes any data.
 */
public final class OpOverload {

    /** Output metadata from argument metadata alone: a {@link TensorMeta}, or a {@code List<TensorMeta>}. */
    @FunctionalInterface
    public interface MetaFn { Object infer(Args args); }

    /** Computes real outputs; {@code meta} is what the meta function returned for these arguments. */
    @FunctionalInterface
    public interface Kernel { Object run(Args args, Object meta); }

    private final Schema schema;
    private final String name;
    private final Set<Tag> tags;
    private final MetaFn meta;
    private final Kernel kernel;
    private final Decomposition decomposition;
    private final Derivative derivative;
    private final boolean nativeBlas;
    /** For a {@link Tag#DYNAMIC_OUTPUT_SHAPE} op, the arguments whose values its output's shape needs (null: every call's). */
    private final java.util.function.Predicate<Object[]> shapeNeedsValues;

    OpOverload(Schema schema, Set<Tag> tags, MetaFn meta, Kernel kernel, Decomposition decomposition, Derivative derivative,
               java.util.BitSet nonDifferentiableOutputs, java.util.BitSet nonDifferentiableArguments, boolean nativeBlas,
               java.util.function.Predicate<Object[]> shapeNeedsValues) {
        this.nativeBlas = nativeBlas;
        this.shapeNeedsValues = shapeNeedsValues;
        this.nonDifferentiableOutputs = nonDifferentiableOutputs;
        this.nonDifferentiableArguments = nonDifferentiableArguments;
        this.schema = schema;
        this.name = schema.qualifiedName();
        this.tags = tags.isEmpty() ? Set.of() : EnumSet.copyOf(tags);
        this.meta = meta;
        this.kernel = kernel;
        this.decomposition = decomposition;
        this.derivative = derivative;
    }

    /** Starts the definition of an op from its ATen schema, e.g. {@code "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"}. */
    public static Builder define(String schema) { return new Builder(Schema.parse(schema)); }

    /** {@code aten.add.Tensor} */
    public String name() { return name; }

    public Schema schema() { return schema; }

    public Set<Tag> tags() { return tags; }

    /** Whether this op's kernels may call the native BLAS: a GEMM's, or a convolution's products (see {@link #enteredGraph}). */
    public boolean reachesNativeBlas() { return nativeBlas; }

    /**
     * Called when a node calling this op is added to a graph, which is built to be run: an op that
     * reaches the native BLAS starts loading it on a background thread then
     * ({@link dev.ember.kernels.Blas#loadInBackground}), so that the load (100-300 ms in a fresh
     * JVM) overlaps building, capturing and compiling the graph instead of delaying its first call.
     * The kernels that run are the same: a GEMM that comes before the load has finished waits for it.
     */
    public void enteredGraph() {
        if (nativeBlas) dev.ember.kernels.Blas.loadInBackground();
    }

    public boolean hasTag(Tag t) { return tags.contains(t); }

    /**
     * Whether this call's output shape depends on its arguments' values, so that a graph traced on
     * fake tensors cannot hold it: every call of a {@link Tag#DYNAMIC_OUTPUT_SHAPE} op, unless its
     * definition says for which arguments ({@link Builder#dynamicOutputShapeWhen}: {@code x[mask]}
     * needs the mask's values, {@code x[positions]} only the positions' shape). {@code args} are the
     * call's arguments, tensors fake or real, a {@code Tensor?[]} as a list.
     */
    public boolean outputShapeNeedsValues(Object[] args) {
        return tags.contains(Tag.DYNAMIC_OUTPUT_SHAPE) && (shapeNeedsValues == null || shapeNeedsValues.test(args));
    }

    /** Whether only some calls of this op have a value-dependent output shape ({@link Builder#dynamicOutputShapeWhen}). */
    public boolean dynamicOutputShapeDependsOnArguments() { return shapeNeedsValues != null; }

    /**
     * The argument this op writes into and returns: {@code self} (0) for an in-place op, {@code out}
     * for an out op ({@code add.out}), -1 for an op that writes nothing it was given.
     */
    public int writtenArg() {
        if (tags.contains(Tag.INPLACE)) return 0;
        return schema.outIndex();
    }

    /**
     * The result may share its input's memory: a view, or an op whose schema says so
     * ({@code Tensor(a) self -> Tensor(a)}: reshape returns a view when the strides allow one).
     */
    public boolean returnsAlias() {
        String text = schema.toString();
        return tags.contains(Tag.VIEW) || text.contains("Tensor(a)") || text.contains("Tensor(a ->");
    }

    /** The op returns nothing ({@code -> ()}): it is called for its effect alone (an assert). */
    public boolean returnsNothing() { return schema.returns().equals("()"); }

    /** The op written with other ops, or null when it has none. */
    public Decomposition decomposition() { return decomposition; }

    /**
     * How gradients flow back through the op, or null when it has no formula of its own (it is then
     * differentiated through its decomposition, or not at all: see {@link dev.ember.autograd.Autograd}).
     */
    public Derivative derivative() { return derivative; }

    private final java.util.BitSet nonDifferentiableOutputs;

    /**
     * Whether output {@code i} carries no gradient though it is floating point (derivatives.yaml's
     * {@code output_differentiability}: batch_norm's updated running statistics).
     */
    public boolean differentiableOutput(int i) { return !nonDifferentiableOutputs.get(i); }

    private final java.util.BitSet nonDifferentiableArguments;

    /**
     * Whether tensor argument {@code i} may require grad when the op records: false for arguments
     * the op writes unseen by autograd and has no derivative for (batch_norm's running statistics),
     * which autograd refuses as ATen's {@code check_no_requires_grad} does.
     */
    public boolean differentiableArgument(int i) { return !nonDifferentiableArguments.get(i); }

    /** Whether any argument may not require grad ({@link #differentiableArgument}); most ops: none. */
    public boolean hasNonDifferentiableArguments() { return !nonDifferentiableArguments.isEmpty(); }

    /**
     * Calls the op through its decomposition, eagerly: each op the decomposition names runs in turn.
     * Where the decomposition does not cover these arguments, the op itself runs.
     */
    public Object decompose(Object... values) {
        if (decomposition == null) throw new IllegalStateException(name + " has no decomposition");
        Object out = decomposition.apply(OpEmitter.EAGER, bind(values).toArray());
        return out != null ? out : call(values);
    }

    /** Binds raw values to the schema: checks the count and fills in defaults. */
    public Args bind(Object... values) {
        List<Schema.Param> params = schema.params();
        if (values.length > params.size()) {
            throw new IllegalArgumentException(name + " takes at most " + params.size() + " arguments (" + schema + "), got " + values.length);
        }
        Object[] full = values.length == params.size() ? values : java.util.Arrays.copyOf(values, params.size());
        for (int i = values.length; i < params.size(); i++) {
            Schema.Param p = params.get(i);
            if (!p.hasDefault()) {
                throw new IllegalArgumentException(name + ": missing argument '" + p.name() + "' (" + schema + ")");
            }
            full[i] = p.defaultValue() instanceof int[] a ? a.clone() : p.defaultValue();
        }
        return new Args(this, full);
    }

    /** Output metadata for these arguments, with no computation: the fake-tensor path. */
    public Object inferMeta(Args args) { return meta.infer(args); }

    /**
     * Calls the op: real tensors in, real tensors out; fake tensors in, fake tensors out. Where grad
     * mode is on and an argument requires grad, autograd records the call (and refuses the calls it
     * cannot differentiate) before anything is written.
     */
    public Object call(Object... values) {
        Args args = bind(values);
        Object out = meta.infer(args);
        Object intercepted = DispatchMode.intercept(this, args, out);
        if (intercepted != null) return intercepted;
        if (args.hasFake()) return fakeOutputs(args, out);
        // an op returning nothing has no result for autograd to record
        if (Autograd.records(args) && !returnsNothing()) return Autograd.call(this, args, out);
        return kernel.run(args, out);
    }

    /** Runs the kernel alone, with no recording: autograd's way to compute what it records. */
    public Object runKernel(Args args, Object meta) { return kernel.run(args, meta); }

    /** {@link #call} for ops returning one tensor. */
    public Tensor callTensor(Object... values) { return (Tensor) call(values); }

    /** {@link #call} for ops returning a list of tensors. */
    @SuppressWarnings("unchecked")
    public List<Tensor> callList(Object... values) { return (List<Tensor>) call(values); }

    /** The call's result on fake tensors, from its output metadata: the written argument for an in-place or out= op, new fakes otherwise. */
    public Object fakeOutputs(Args args, Object out) {
        if (writtenArg() >= 0) return args.tensor(writtenArg());
        if (returnsNothing()) return null;
        if (out instanceof TensorMeta m) return new FakeTensor(m);
        if (out instanceof List<?> list) {
            List<Tensor> fakes = new ArrayList<>(list.size());
            for (Object m : list) fakes.add(new FakeTensor((TensorMeta) m));
            return fakes;
        }
        throw new IllegalStateException(name + ": meta function returned " + out);
    }

    @Override
    public String toString() { return name; }

    public static final class Builder {
        private final Schema schema;
        private final EnumSet<Tag> tags = EnumSet.noneOf(Tag.class);
        private MetaFn meta;
        private Kernel kernel;
        private Decomposition decomposition;
        private Derivative derivative;

        private Builder(Schema schema) { this.schema = schema; }

        public Builder tags(Tag... ts) { tags.addAll(List.of(ts)); return this; }

        private java.util.function.Predicate<Object[]> shapeNeedsValues;

        /**
         * {@link Tag#DYNAMIC_OUTPUT_SHAPE} for the calls whose arguments {@code needsValues} accepts
         * only (the op's meta function must compute the others' shapes from fake tensors).
         */
        public Builder dynamicOutputShapeWhen(java.util.function.Predicate<Object[]> needsValues) {
            tags.add(Tag.DYNAMIC_OUTPUT_SHAPE);
            this.shapeNeedsValues = needsValues;
            return this;
        }

        public Builder meta(MetaFn m) { this.meta = m; return this; }

        public Builder kernel(Kernel k) { this.kernel = k; return this; }

        public Builder decomposition(Decomposition d) { this.decomposition = d; return this; }

        public Builder derivative(Derivative d) { this.derivative = d; return this; }

        private boolean nativeBlas;

        /**
         * Its kernels (eager, or the inductor's extern calls) may call the native BLAS through
         * {@code Gemm}: the matrix products, and the convolutions (im2col, and the backward's
         * products). See {@link OpOverload#reachesNativeBlas}.
         */
        public Builder nativeBlas() { this.nativeBlas = true; return this; }

        private final java.util.BitSet nonDifferentiableOutputs = new java.util.BitSet();

        /** Outputs that carry no gradient ({@link OpOverload#differentiableOutput}). */
        public Builder nonDifferentiableOutputs(int... outputs) {
            for (int o : outputs) nonDifferentiableOutputs.set(o);
            return this;
        }

        private final java.util.BitSet nonDifferentiableArguments = new java.util.BitSet();

        /** Tensor arguments that may not require grad when the op records ({@link OpOverload#differentiableArgument}). */
        public Builder nonDifferentiableArguments(int... arguments) {
            for (int a : arguments) nonDifferentiableArguments.set(a);
            return this;
        }

        /** Builds the op and adds it to the {@link OpRegistry}. */
        public OpOverload register() { return OpRegistry.add(build()); }

        /**
         * Builds the op without adding it to the registry: an op only this process's graphs hold (a
         * traced {@code CustomFunction}), which no name lookup finds and no saved graph can name.
         */
        public OpOverload build() {
            if (meta == null || kernel == null) {
                throw new IllegalStateException(schema.qualifiedName() + " needs both a meta function and a kernel");
            }
            return new OpOverload(schema, tags, meta, kernel, decomposition, derivative, nonDifferentiableOutputs, nonDifferentiableArguments, nativeBlas,
                    shapeNeedsValues);
        }
    }
}
