package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * The arguments of one op call, defaults filled in from the schema, with typed accessors
 * whose errors name the op and the argument.
 */
public final class Args {
    private final OpOverload op;
    private final Object[] values;

    Args(OpOverload op, Object[] values) {
        this.op = op;
        this.values = values;
    }

    public OpOverload op() { return op; }

    public int size() { return values.length; }

    public Object get(int i) { return values[i]; }

    /** A copy of the raw values, e.g. to call another op (a decomposition) with them. */
    public Object[] toArray() { return values.clone(); }

    public Tensor tensor(int i) {
        if (values[i] instanceof Tensor t) return t;
        throw wrongType(i, "a Tensor");
    }

    public Tensor optTensor(int i) {
        return values[i] == null ? null : tensor(i);
    }

    @SuppressWarnings("unchecked")
    public List<Tensor> tensors(int i) {
        Object v = values[i];
        if (v instanceof List<?> l && l.stream().allMatch(x -> x instanceof Tensor)) return (List<Tensor>) l;
        if (v instanceof Tensor[] arr) return List.of(arr);
        throw wrongType(i, "a list of Tensors");
    }

    public double dbl(int i) {
        if (values[i] instanceof Number n) return n.doubleValue();
        if (values[i] instanceof Boolean b) return b ? 1 : 0;
        throw wrongType(i, "a number");
    }

    public long lng(int i) {
        Object v = values[i];
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
        if (v instanceof Boolean b) return b ? 1 : 0;
        throw wrongType(i, "an integer");
    }

    public int integer(int i) {
        long v = lng(i);
        if (v != (int) v) throw new IllegalArgumentException(op.name() + ": argument '" + paramName(i) + "' = " + v + " is out of int range");
        return (int) v;
    }

    public Integer optInteger(int i) { return values[i] == null ? null : integer(i); }

    public Double optDbl(int i) { return values[i] == null ? null : dbl(i); }

    public boolean bool(int i) {
        if (values[i] instanceof Boolean b) return b;
        throw wrongType(i, "a boolean");
    }

    /** An int list; a single integer stands for itself repeated (ATen's {@code int[2] stride=1}). */
    public int[] ints(int i) {
        Object v = values[i];
        if (v instanceof int[] a) return a;
        if (v instanceof long[] a) {
            int[] out = new int[a.length];
            for (int k = 0; k < a.length; k++) out[k] = Math.toIntExact(a[k]);
            return out;
        }
        if (v instanceof List<?> l && l.stream().allMatch(x -> x instanceof Number)) {
            return l.stream().mapToInt(x -> ((Number) x).intValue()).toArray();
        }
        if (v instanceof Integer || v instanceof Long) {
            String type = op.schema().param(i).type().replace("?", "");
            int n = type.startsWith("int[") && type.length() > 5 ? Integer.parseInt(type.substring(4, type.length() - 1)) : 1;
            int[] out = new int[n];
            java.util.Arrays.fill(out, ((Number) v).intValue());
            return out;
        }
        throw wrongType(i, "an int list");
    }

    public int[] optInts(int i) { return values[i] == null ? null : ints(i); }

    /** A Scalar argument: a Double, Long or Boolean (Java ints and floats are widened). */
    public Object scalar(int i) {
        Object v = values[i];
        if (v instanceof Double || v instanceof Long || v instanceof Boolean) return v;
        if (v instanceof Float f) return f.doubleValue();
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
        throw wrongType(i, "a Scalar (number or boolean)");
    }

    public DType dtype(int i) {
        if (values[i] instanceof DType d) return d;
        throw wrongType(i, "a dtype");
    }

    public DType optDtype(int i) { return values[i] == null ? null : dtype(i); }

    public String str(int i) {
        if (values[i] instanceof String s) return s;
        throw wrongType(i, "a string");
    }

    /** True when any tensor argument (also inside lists) is a fake tensor: the call computes metadata only. */
    public boolean hasFake() {
        for (Object v : values) {
            if (v instanceof Tensor t && t.isFake()) return true;
            if (v instanceof List<?> l) for (Object x : l) if (x instanceof Tensor t && t.isFake()) return true;
        }
        return false;
    }

    public String paramName(int i) {
        List<Schema.Param> ps = op.schema().params();
        return i < ps.size() ? ps.get(i).name() : "#" + i;
    }

    private IllegalArgumentException wrongType(int i, String expected) {
        Object v = values[i];
        String got = v == null ? "null" : v instanceof Tensor t ? "Tensor " + t.meta().describe() : v.getClass().getSimpleName() + " " + v;
        return new IllegalArgumentException(op.name() + ": argument '" + paramName(i) + "' (position " + i + ") must be "
                + expected + ", but got " + got);
    }
}
