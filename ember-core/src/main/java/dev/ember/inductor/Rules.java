package dev.ember.inductor;

import dev.ember.fx.Node;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Expr.BinaryOp;
import dev.ember.inductor.ir.Expr.UnaryOp;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.ops.OpOverload;
import dev.ember.ops.Tag;
import dev.ember.ops.TypePromotion;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The lowering of each core op: pointwise ops to expressions, views to re-indexing, reductions and
 * GEMMs to stages. {@link #lower} returns null for a call it has no rule for (the caller then runs
 * the op's eager kernel).
 */
final class Rules {
    private Rules() {}

    static Object lower(Lowering l, Node n, OpOverload op, List<Object> args) {
        if (!(n.val() instanceof Tensor outVal)) return null;
        TensorMeta out = outVal.meta();
        if (op.hasTag(Tag.VIEW) || op.name().equals("aten.reshape.default")) return view(l, n, op, args, out);
        return switch (op.name()) {
            case "aten.sum.dim_IntList" -> reduction(l, n, args, Stage.ReduceOp.SUM, out);
            case "aten.amax.default" -> reduction(l, n, args, Stage.ReduceOp.MAX, out);
            case "aten.amin.default" -> reduction(l, n, args, Stage.ReduceOp.MIN, out);
            case "aten.mm.default", "aten.bmm.default" -> gemm(l, n, args, out);
            case "aten.convolution.default" -> l.extern(n, op, args, null);
            default -> {
                Value.Computed c = pointwise(n, op.name(), args, out);
                yield c == null ? null : l.pointwise(n, c);
            }
        };
    }

    // ------------------------------------------------------------------ pointwise

    private static Value.Computed pointwise(Node n, String name, List<Object> a, TensorMeta out) {
        DType o = out.dtype();
        boolean arith = o != DType.BOOL;
        return switch (name) {
            case "aten.add.Tensor", "aten.add.Scalar" -> arith ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.ADD, x[0], scaled(x[1], a.get(2), o), o)) : null;
            case "aten.sub.Tensor", "aten.sub.Scalar" -> arith ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.SUB, x[0], scaled(x[1], a.get(2), o), o)) : null;
            case "aten.rsub.Scalar" -> arith ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.SUB, x[1], scaled(x[0], a.get(2), o), o)) : null;
            case "aten.mul.Tensor", "aten.mul.Scalar" -> arith ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.MUL, x[0], x[1], o)) : null;
            case "aten.div.Tensor", "aten.div.Scalar" -> pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.DIV, x[0], x[1], o));
            case "aten.maximum.default" -> arith ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.MAX, x[0], x[1], o)) : null;
            case "aten.minimum.default" -> arith ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.MIN, x[0], x[1], o)) : null;
            case "aten.pow.Tensor_Scalar" -> o.isFloatingPoint() ? pow(out, a.get(0), ((Number) a.get(1)).doubleValue()) : null;
            case "aten.pow.Tensor_Tensor" -> o.isFloatingPoint() ? pw(out, o, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.POW, x[0], x[1], o)) : null;
            case "aten.neg.default" -> arith ? unary(out, a, UnaryOp.NEG) : null;
            case "aten.abs.default" -> arith ? unary(out, a, UnaryOp.ABS) : null;
            case "aten.relu.default" -> arith ? unary(out, a, UnaryOp.RELU) : null;
            case "aten.exp.default" -> unary(out, a, UnaryOp.EXP);
            case "aten.log.default" -> unary(out, a, UnaryOp.LOG);
            case "aten.log1p.default" -> unary(out, a, UnaryOp.LOG1P);
            case "aten.sqrt.default" -> unary(out, a, UnaryOp.SQRT);
            case "aten.rsqrt.default" -> unary(out, a, UnaryOp.RSQRT);
            case "aten.sin.default" -> unary(out, a, UnaryOp.SIN);
            case "aten.cos.default" -> unary(out, a, UnaryOp.COS);
            case "aten.tanh.default" -> unary(out, a, UnaryOp.TANH);
            case "aten.sigmoid.default" -> unary(out, a, UnaryOp.SIGMOID);
            case "aten.reciprocal.default" -> unary(out, a, UnaryOp.RECIPROCAL);
            case "aten.erf.default" -> unary(out, a, UnaryOp.ERF);
            case "aten.gelu.default" -> unary(out, a, "tanh".equals(a.get(1)) ? UnaryOp.GELU_TANH : UnaryOp.GELU);
            case "aten.logical_not.default" -> pw(out, DType.BOOL, List.of(a.get(0)), x -> new Expr.Unary(UnaryOp.NOT, x[0], DType.BOOL));
            case "aten.logical_and.default" -> pw(out, DType.BOOL, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.AND, x[0], x[1], DType.BOOL));
            case "aten.logical_or.default" -> pw(out, DType.BOOL, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.OR, x[0], x[1], DType.BOOL));
            case "aten.eq.Tensor", "aten.eq.Scalar" -> compare(n, out, a, BinaryOp.EQ);
            case "aten.ne.Tensor", "aten.ne.Scalar" -> compare(n, out, a, BinaryOp.NE);
            case "aten.lt.Tensor", "aten.lt.Scalar" -> compare(n, out, a, BinaryOp.LT);
            case "aten.le.Tensor", "aten.le.Scalar" -> compare(n, out, a, BinaryOp.LE);
            case "aten.gt.Tensor", "aten.gt.Scalar" -> compare(n, out, a, BinaryOp.GT);
            case "aten.ge.Tensor", "aten.ge.Scalar" -> compare(n, out, a, BinaryOp.GE);
            case "aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar" ->
                    pw(out, o, List.of(a.get(0), a.get(1), a.get(2)), x -> new Expr.Where(cast(x[0], DType.BOOL), cast(x[1], o), cast(x[2], o), o));
            case "aten.masked_fill.Scalar", "aten.masked_fill.Tensor" ->
                    pw(out, o, List.of(a.get(1), a.get(2), a.get(0)), x -> new Expr.Where(cast(x[0], DType.BOOL), cast(x[1], o), cast(x[2], o), o));
            case "aten.clamp.default" -> arith ? pw(out, o, List.of(a.get(0)), x -> {
                Expr r = x[0];
                if (a.get(1) != null) r = bin(BinaryOp.MAX, r, constant(a.get(1), o), o);
                if (a.get(2) != null) r = bin(BinaryOp.MIN, r, constant(a.get(2), o), o);
                return r;
            }) : null;
            case "aten._to_copy.default", "aten.clone.default", "aten.alias.default", "aten.detach.default" ->
                    pw(out, o, List.of(a.get(0)), x -> x[0]);
            default -> null;
        };
    }

    private static Value.Computed unary(TensorMeta out, List<Object> a, UnaryOp op) {
        return pw(out, out.dtype(), List.of(a.get(0)), x -> new Expr.Unary(op, x[0], out.dtype()));
    }

    private static Value.Computed pow(TensorMeta out, Object base, double e) {
        DType o = out.dtype();
        Function<Expr[], Expr> f;
        if (e == 1) f = x -> x[0];
        else if (e == 2) f = x -> bin(BinaryOp.MUL, x[0], x[0], o);
        else if (e == 0.5) f = x -> new Expr.Unary(UnaryOp.SQRT, x[0], o);
        else if (e == -1) f = x -> new Expr.Unary(UnaryOp.RECIPROCAL, x[0], o);
        else f = x -> bin(BinaryOp.POW, x[0], new Expr.Const(e, o), o);
        return pw(out, o, List.of(base), f);
    }

    private static Value.Computed compare(Node n, TensorMeta out, List<Object> a, BinaryOp op) {
        DType common = TypePromotion.resultType(fakeOrScalar(n.args().get(0)), fakeOrScalar(n.args().get(1)));
        return pw(out, common, List.of(a.get(0), a.get(1)), x -> new Expr.Binary(op, x[0], x[1], DType.BOOL));
    }

    private static Object fakeOrScalar(Object arg) { return arg instanceof Node x ? x.val() : arg; }

    /** {@code x * alpha}, or {@code x} when alpha is 1. */
    private static Expr scaled(Expr x, Object alpha, DType d) {
        if (alpha == null || (alpha instanceof Number k && k.doubleValue() == 1)) return x;
        return bin(BinaryOp.MUL, x, constant(alpha, d), d);
    }

    private static Expr bin(BinaryOp op, Expr a, Expr b, DType d) { return new Expr.Binary(op, a, b, d); }

    /**
     * A pointwise value over {@code out}'s shape: each operand (a value, broadcast, or a scalar) is
     * read and converted to {@code compute}, then combined by {@code f}; the result is converted to
     * the output dtype.
     */
    static Value.Computed pw(TensorMeta out, DType compute, List<Object> operands, Function<Expr[], Expr> f) {
        int[] shape = out.shape();
        for (Object x : operands) if (!(x instanceof Value) && !(x instanceof Number) && !(x instanceof Boolean)) return null;
        return new Value.Computed(out.dtype(), shape, idx -> {
            Expr[] xs = new Expr[operands.size()];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = operands.get(i) instanceof Value v ? cast(v.load(broadcastIndex(idx, v.shape())), compute) : constant(operands.get(i), compute);
            }
            return cast(f.apply(xs), out.dtype());
        });
    }

    /** The index into a value of shape {@code shape} broadcast to the index {@code idx}. */
    static Affine[] broadcastIndex(Affine[] idx, int[] shape) {
        Affine[] r = new Affine[shape.length];
        int lead = idx.length - shape.length;
        for (int d = 0; d < shape.length; d++) r[d] = shape[d] == 1 ? Affine.constant(0) : idx[d + lead];
        return r;
    }

    static Expr cast(Expr e, DType d) { return e.dtype() == d ? e : new Expr.Cast(e, d); }

    static Expr constant(Object scalar, DType d) {
        Object v = switch (d) {
            case FLOAT32, FLOAT64 -> scalar instanceof Boolean b ? (b ? 1.0 : 0.0) : ((Number) scalar).doubleValue();
            case INT32, INT64 -> scalar instanceof Boolean b ? (b ? 1L : 0L) : (Object) ((Number) scalar).longValue();
            case BOOL -> scalar instanceof Boolean b ? b : ((Number) scalar).doubleValue() != 0;
        };
        return new Expr.Const(v, d);
    }

    // ------------------------------------------------------------------ views

    private static Object view(Lowering l, Node n, OpOverload op, List<Object> args, TensorMeta out) {
        if (!(args.get(0) instanceof Value v)) return null;
        if (v instanceof Value.Stored s) {
            if (op.name().equals("aten.reshape.default") && dev.ember.ops.ShapeOps.viewStrides(s.shape(), s.strides(), out.shape()) == null) {
                Value.Stored copy = l.realize(new Value.Computed(s.dtype(), s.shape(), s::load), n);
                return viewOfStored(op, args, copy);
            }
            return viewOfStored(op, args, s);
        }
        Value.Computed c = (Value.Computed) v;
        TensorMeta contiguous = TensorMeta.contiguous(c.dtype(), c.shape());
        TensorMeta m = viewMeta(op, args, contiguous);
        Function<Affine[], Affine[]> reindex = reindex(c.shape(), m);
        if (reindex != null) return new Value.Computed(c.dtype(), m.shape(), idx -> c.load(reindex.apply(idx)));
        return viewOfStored(op, args, l.realize(c, n));
    }

    private static Value.Stored viewOfStored(OpOverload op, List<Object> args, Value.Stored s) {
        TensorMeta m = viewMeta(op, args, new TensorMeta(s.dtype(), s.shape(), s.strides(), s.offset()));
        return new Value.Stored(s.buffer(), s.dtype(), m.shape(), m.strides(), m.storageOffset());
    }

    /** The op's own meta function, applied to a fake tensor with {@code layout}: the view's layout. */
    private static TensorMeta viewMeta(OpOverload op, List<Object> args, TensorMeta layout) {
        Object[] values = args.toArray();
        values[0] = new FakeTensor(layout);
        return (TensorMeta) op.inferMeta(op.bind(values));
    }

    /**
     * Re-indexing for a view of a contiguous value of {@code shape}: each view dim with a non-zero
     * stride must step along exactly one source dim without carrying into the next; null otherwise.
     */
    private static Function<Affine[], Affine[]> reindex(int[] shape, TensorMeta view) {
        int[] cs = Shapes.contiguousStrides(shape);
        int nd = shape.length;
        long[] start = new long[nd];
        long rem = view.storageOffset();
        for (int d = 0; d < nd; d++) {
            if (shape[d] == 1) continue;
            start[d] = rem / cs[d];
            rem %= cs[d];
        }
        int[] target = new int[view.dim()];
        long[] coeff = new long[view.dim()];
        long[] max = start.clone();
        for (int k = 0; k < view.dim(); k++) {
            target[k] = -1;
            long st = view.strides()[k];
            if (view.shape()[k] == 1 || st == 0) continue;
            for (int d = 0; d < nd && target[k] < 0; d++) {
                if (shape[d] > 1 && st % cs[d] == 0) {
                    target[k] = d;
                    coeff[k] = st / cs[d];
                }
            }
            if (target[k] < 0) return null;
            max[target[k]] += coeff[k] * (view.shape()[k] - 1);
        }
        for (int d = 0; d < nd; d++) if (shape[d] > 1 && max[d] >= shape[d]) return null;
        return idx -> {
            Affine[] src = new Affine[nd];
            for (int d = 0; d < nd; d++) src[d] = Affine.constant(start[d]);
            for (int k = 0; k < target.length; k++) if (target[k] >= 0) src[target[k]] = src[target[k]].plus(idx[k].times(coeff[k]));
            return src;
        };
    }

    // ------------------------------------------------------------------ reductions

    private static Object reduction(Lowering l, Node n, List<Object> a, Stage.ReduceOp op, TensorMeta out) {
        if (!(a.get(0) instanceof Value x)) return null;
        int nd = x.shape().length;
        if (nd == 0) return l.pointwise(n, pw(out, out.dtype(), List.of(x), v -> v[0]));   // a 0-d tensor reduces to itself
        boolean[] reduced = new boolean[nd];
        int[] dims = a.get(1) == null ? new int[0] : ints(a.get(1));
        if (dims.length == 0) java.util.Arrays.fill(reduced, true);
        for (int d : dims) reduced[d < 0 ? d + nd : d] = true;
        List<Integer> outer = new ArrayList<>(), inner = new ArrayList<>();
        for (int d = 0; d < nd; d++) (reduced[d] ? inner : outer).add(d);
        int[] outerShape = outer.stream().mapToInt(d -> x.shape()[d]).toArray();
        int[] reduceShape = inner.stream().mapToInt(d -> x.shape()[d]).toArray();
        Affine[] idx = new Affine[nd];
        for (int i = 0; i < outer.size(); i++) idx[outer.get(i)] = Affine.var(i);
        for (int i = 0; i < inner.size(); i++) idx[inner.get(i)] = Affine.var(outer.size() + i);
        Expr body = cast(x.load(idx), out.dtype());
        Buffer b = l.newBuffer(Buffer.Kind.COMPUTED, out.dtype(), Shapes.numel(outerShape), -1);
        l.addStage(new Stage.Reduction(n, b, outerShape, reduceShape, op, body));
        return new Value.Stored(b, out.dtype(), out.shape(), Shapes.contiguousStrides(out.shape()), 0);
    }

    private static int[] ints(Object v) {
        return switch (v) {
            case int[] arr -> arr;
            case long[] arr -> java.util.Arrays.stream(arr).mapToInt(Math::toIntExact).toArray();
            case List<?> list -> list.stream().mapToInt(e -> ((Number) e).intValue()).toArray();
            case Number num -> new int[] {num.intValue()};
            default -> throw new Lowering.Unsupported("expected an int list, got " + v);
        };
    }

    // ------------------------------------------------------------------ GEMM

    private static Object gemm(Lowering l, Node n, List<Object> a, TensorMeta out) {
        if (!(a.get(0) instanceof Value x) || !(a.get(1) instanceof Value y)) return null;
        if (!out.dtype().isFloatingPoint() || x.dtype() != out.dtype() || y.dtype() != out.dtype()) return null;
        Stage.Operand p = blasOperand(l, n, x), q = blasOperand(l, n, y);
        boolean batched = out.dim() == 3;
        int m = out.shape()[batched ? 1 : 0], nn = out.shape()[batched ? 2 : 1];
        int k = x.shape()[batched ? 2 : 1];
        Buffer b = l.newBuffer(Buffer.Kind.COMPUTED, out.dtype(), out.numel(), -1);
        l.addStage(new Stage.Gemm(n, b, p, q, batched ? out.shape()[0] : 1, m, nn, k));
        return new Value.Stored(b, out.dtype(), out.shape(), Shapes.contiguousStrides(out.shape()), 0);
    }

    /** The value as BLAS can read it: each matrix row- or column-major; otherwise stored contiguously first. */
    private static Stage.Operand blasOperand(Lowering l, Node n, Value v) {
        if (v instanceof Value.Stored s && blasLayout(s)) return new Stage.Operand(s.buffer(), s.shape(), s.strides(), s.offset());
        Value.Stored s = l.realize(v instanceof Value.Stored st ? new Value.Computed(st.dtype(), st.shape(), st::load) : v, n);
        return new Stage.Operand(s.buffer(), s.shape(), s.strides(), s.offset());
    }

    private static boolean blasLayout(Value.Stored s) {
        int r = s.shape().length;
        int rows = s.shape()[r - 2], cols = s.shape()[r - 1];
        int rs = s.strides()[r - 2], cs = s.strides()[r - 1];
        boolean rowMajor = cs == 1 && rs >= Math.max(1, cols);
        boolean colMajor = rs == 1 && cs >= Math.max(1, rows);
        return rowMajor || colMajor;
    }
}
