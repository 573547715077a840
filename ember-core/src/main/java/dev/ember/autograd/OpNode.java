package dev.ember.autograd;

import dev.ember.ops.Grad;
import dev.ember.ops.OpEmitter;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;

/**
 * The node of one recorded op call: it saved the call's tensor arguments and results (with their
 * versions), and runs the op's {@link dev.ember.ops.Derivative} when gradients arrive.
 */
final class OpNode extends Node {
    private final OpOverload op;
    private final String name;
    /** Per argument position: the Tensor, the List of Tensors, or the raw value; null after release. */
    private Object[] args;
    private Object[] results;
    /** Per argument position: the versions the saved tensors had (Integer, or int[] for a list). */
    private final Object[] argVersions;
    private final int[] resultVersions;
    private final Object[] argShapes;
    private final TensorMeta[] resultMetas;
    /** Per argument position: the first edge index of its tensors (-1: not a tensor argument). */
    private final int[] firstEdge;
    private final boolean[] needs;

    OpNode(OpOverload op, Object[] args, Object[] argShapes, Edge[] next, int[] firstEdge, boolean[] needs, Object[] results) {
        super(next);
        this.op = op;
        this.name = backwardName(op);
        this.args = args;
        this.argShapes = argShapes;
        this.firstEdge = firstEdge;
        this.needs = needs;
        this.results = results;
        this.argVersions = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof Tensor t) argVersions[i] = t.version();
            else if (args[i] instanceof List<?> l) {
                int[] v = new int[l.size()];
                for (int k = 0; k < v.length; k++) v[k] = l.get(k) instanceof Tensor t ? t.version() : 0;
                argVersions[i] = v;
            }
        }
        this.resultVersions = new int[results.length];
        this.resultMetas = new TensorMeta[results.length];
        for (int i = 0; i < results.length; i++) {
            resultVersions[i] = ((Tensor) results[i]).version();
            resultMetas[i] = ((Tensor) results[i]).meta();
        }
    }

    /** {@code aten.mul.Tensor} → {@code MulBackward0}, as PyTorch names its nodes. */
    static String backwardName(OpOverload op) {
        StringBuilder sb = new StringBuilder();
        for (String part : op.schema().name().split("_")) {
            if (part.isEmpty()) continue;
            sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return sb + "Backward0";
    }

    OpOverload op() { return op; }

    /**
     * An in-place op's history: its functional twin computed {@code result} and the kernel then
     * wrote the same value into {@code self}. The node keeps {@code self} (at its version after the
     * write) instead of the twin, as ATen saves the in-place op's own output: a later in-place write
     * to {@code self} then refuses backward as PyTorch does, where the twin would hide it.
     */
    void savedResultIsNow(Tensor result, Tensor self) {
        if (results == null) return;
        for (int i = 0; i < results.length; i++) {
            if (results[i] == result && result.dtype() == self.dtype() && java.util.Arrays.equals(result.shape(), self.shape())) {
                results[i] = self;
                resultVersions[i] = self.version();
            }
        }
    }

    @Override
    public String name() { return name; }

    @Override
    int outputCount() { return resultMetas.length; }

    @Override
    Tensor[] apply(Tensor[] gradOutputs) {
        if (op.derivative() == null) {
            throw new UnsupportedOperationException("the derivative for '" + op + "' is not implemented (" + name + "): Ember has no formula for it yet. "
                    + "Detach its inputs (x.detach()) if no gradient needs to flow through it.");
        }
        Grad g = new Grad(op, OpEmitter.EAGER, saved(), argShapes, resultMetas, gradOutputs, i -> needs[i]);
        Object[] grads = op.derivative().apply(g);
        Tensor[] out = new Tensor[next.length];
        for (int i = 0; i < firstEdge.length; i++) {
            if (firstEdge[i] < 0 || i >= grads.length || grads[i] == null) continue;
            if (argShapes[i] instanceof TensorMeta m) {
                out[firstEdge[i]] = (Tensor) Grad.conform(OpEmitter.EAGER, grads[i], m);
            } else {
                @SuppressWarnings("unchecked") List<TensorMeta> metas = (List<TensorMeta>) argShapes[i];
                List<?> list = (List<?>) grads[i];
                for (int k = 0; k < metas.size(); k++) {
                    out[firstEdge[i] + k] = (Tensor) Grad.conform(OpEmitter.EAGER, list.get(k), metas.get(k));
                }
            }
        }
        return out;
    }

    private Grad.Saved saved() {
        return new Grad.Saved() {
            @Override
            public Object arg(int i) {
                Object[] a = checkAlive();
                Object v = a[i];
                if (v instanceof Tensor t) return checkVersion(t, (Integer) argVersions[i], "argument '" + op.schema().params().get(i).name() + "'");
                if (v instanceof List<?> l) {
                    int[] versions = (int[]) argVersions[i];
                    List<Object> out = new ArrayList<>(l.size());
                    for (int k = 0; k < l.size(); k++) {
                        out.add(l.get(k) instanceof Tensor t ? checkVersion(t, versions[k], "argument '" + op.schema().params().get(i).name() + "'[" + k + "]") : l.get(k));
                    }
                    return out;
                }
                return v;
            }

            @Override
            public Object result(int i) {
                checkAlive();
                return checkVersion((Tensor) results[i], resultVersions[i], "output " + i);
            }
        };
    }

    private Object[] checkAlive() {
        if (args == null) {
            throw new IllegalStateException("Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). "
                    + "Saved intermediate values of the graph are freed when you call backward() or Autograd.grad(). Specify retainGraph=true if you need to "
                    + "backward through the graph a second time or if you need to access saved tensors after calling backward. (node " + name + " of " + op + ")");
        }
        return args;
    }

    private Tensor checkVersion(Tensor t, int expected, String which) {
        if (t.version() != expected) {
            Node maker = t.gradFn();
            String of = maker == null ? "" : ", which is output " + t.autogradMeta().outputNr() + " of " + maker.name() + ",";
            throw new IllegalStateException("one of the variables needed for gradient computation has been modified by an inplace operation: ["
                    + t.meta().describe() + "]" + of + " is at version " + t.version() + "; expected version " + expected + " instead. "
                    + "(" + op + " saved it as its " + which + " and " + name + " needs it.) Hint: make the in-place op out of place "
                    + "(x = x.add(y) instead of x.add_(y)), or clone() the tensor before modifying it.");
        }
        return t;
    }

    @Override
    void release() {
        args = null;
        results = null;
    }
}
