package dev.ember.inductor;

import dev.ember.fx.Node;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Sizes;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.UnaryOp;
import dev.ember.ops.ConvOps;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.MathOps;
import dev.ember.ops.NnOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.Tag;
import dev.ember.ops.TypePromotion;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The lowering registry: per op (keyed by its {@link OpOverload} constant), how inductor computes
 * it: pointwise ops as expressions, views as re-indexing, reductions and GEMMs as stages. Ops it
 * runs through their eager kernel on purpose are declared in {@link #FALLBACKS}; any other op
 * without a rule is an undeclared fallback, which {@link Lowering} reports in the inductor log
 * (and LoweringCompletenessTest refuses for pointwise and reduction ops).
 */
final class Rules {
    private Rules() {}

    /** How one op lowers; null means "not this call" (e.g. a dtype the rule does not cover): the eager kernel runs. */
    @FunctionalInterface
    interface Rule { Object lower(Lowering l, Node n, List<Object> args, Out out); }

    /** A pointwise op's value over the output's index space; null where the rule does not cover the call. */
    @FunctionalInterface
    private interface PointwiseRule { Value.Computed value(Node n, List<Object> a, Out out); }

    /** The node's result: its dtype and its sizes (symbolic in a graph generic in sizes). */
    record Out(DType dtype, SymInt[] shape) {
        int dim() { return shape.length; }

        SymInt numel() { return Sizes.numel(shape); }
    }

    private static final Map<OpOverload, Rule> LOWERINGS = new HashMap<>();

    /**
     * Ops inductor calls as extern kernels on purpose, each with its reason. Every pointwise and
     * reduction op lowers or is here; other ops without a rule (sort, topk, cumsum, scatter,
     * gather, index_select, the losses) run their eager kernel as well, which perf_hints names.
     */
    static final Set<OpOverload> FALLBACKS = Set.of(
            ConvOps.CONVOLUTION, ConvOps.CONVOLUTION_BACKWARD,
            // window kernels with data-dependent (max) or overlapping (average) writes: no inductor stage for them yet
            ConvOps.MAX_POOL2D_WITH_INDICES, ConvOps.MAX_POOL2D_WITH_INDICES_BACKWARD, ConvOps.AVG_POOL2D_BACKWARD, ConvOps.ADAPTIVE_AVG_POOL2D_BACKWARD,
            // index-returning reductions: no ReduceOp keeps the position of the extremum yet
            ReductionOps.ARGMAX, ReductionOps.ARGMIN,
            // random: the generator's stream must be eager's, draw for draw (dropout itself lowers when it draws nothing)
            PointwiseOps.NATIVE_DROPOUT,
            // a gradient written at data-dependent positions (each target's class): no scatter stage yet
            LossOps.NLL_LOSS_BACKWARD,
            // Euclid's loop, a data-dependent number of steps per element: no loop in a pointwise expression
            MathOps.GCD, MathOps.LCM,
            // width-dependent shifts (0 or the sign past the width) and the float's next neighbour: no expression for them in the loop IR yet
            MathOps.BITWISE_LEFT_SHIFT_TENSOR, MathOps.BITWISE_LEFT_SHIFT_TENSOR_SCALAR, MathOps.BITWISE_LEFT_SHIFT_SCALAR_TENSOR,
            MathOps.BITWISE_RIGHT_SHIFT_TENSOR, MathOps.BITWISE_RIGHT_SHIFT_TENSOR_SCALAR, MathOps.BITWISE_RIGHT_SHIFT_SCALAR_TENSOR,
            MathOps.NEXTAFTER);

    static boolean lowers(OpOverload op) { return LOWERINGS.containsKey(op) || op.hasTag(Tag.VIEW); }

    static boolean isDeclaredFallback(OpOverload op) { return FALLBACKS.contains(op); }

    static Object lower(Lowering l, Node n, OpOverload op, List<Object> args) {
        if (!(n.val() instanceof Tensor outVal)) return null;
        Out out = new Out(outVal.dtype(), Lowering.symShape(n, outVal).sizes());
        if (op.hasTag(Tag.VIEW)) return view(l, n, op, args, out);
        Rule rule = LOWERINGS.get(op);
        return rule == null ? null : rule.lower(l, n, args, out);
    }

    private static void register(Rule rule, OpOverload... ops) {
        for (OpOverload op : ops) {
            if (LOWERINGS.putIfAbsent(op, rule) != null) throw new IllegalStateException("two lowerings for " + op);
        }
    }

    private static void pointwise(PointwiseRule rule, OpOverload... ops) {
        register((l, n, a, out) -> {
            // a size used as a scalar (x * s0) is no constant of the expression: the eager kernel takes its value
            if (a.stream().anyMatch(x -> x instanceof SymInt)) return null;
            Value.Computed c = rule.value(n, a, out);
            return c == null ? null : l.pointwise(n, c);
        }, ops);
    }

    /** A pointwise rule for arithmetic dtypes only (bool outputs run eagerly). */
    private static void arithmetic(PointwiseRule rule, OpOverload... ops) {
        pointwise((n, a, out) -> out.dtype() == DType.BOOL ? null : rule.value(n, a, out), ops);
    }

    private static void unary(UnaryOp u, OpOverload... ops) { pointwise((n, a, out) -> unary(out, a, u), ops); }

    static {
        register((l, n, a, out) -> view(l, n, ShapeOps.RESHAPE, a, out), ShapeOps.RESHAPE, ShapeOps.UNSAFE_VIEW);
        register((l, n, a, out) -> AsStridedRule.lower(l, n, a), dev.ember.ops.StridedViewOps.AS_STRIDED);
        register((l, n, a, out) -> reduction(l, n, a, Stage.ReduceOp.SUM, out), ReductionOps.SUM_DIM);
        register((l, n, a, out) -> reduction(l, n, a, Stage.ReduceOp.MAX, out), ReductionOps.AMAX);
        register((l, n, a, out) -> reduction(l, n, a, Stage.ReduceOp.MIN, out), ReductionOps.AMIN);
        // a bool product (prod with dtype=bool) is a logical and, which generated code does not multiply: its eager kernel runs
        register((l, n, a, out) -> out.dtype() == DType.BOOL ? null : reduction(l, n, a, Stage.ReduceOp.PROD, out), ReductionOps.PROD_DIM);
        register((l, n, a, out) -> gemm(l, n, a, out), LinalgOps.MM, LinalgOps.BMM);
        // attention without dropout is one extern by design: the op's kernel is the fused flash-attention kernel
        // (no [L, S] scores in memory), which a decomposition into GEMMs and a softmax would lose; with dropout the
        // eager kernel runs the decomposition, so that its draws are eager's, and perf_hints says so
        register((l, n, a, out) -> l.extern(n, NnOps.SCALED_DOT_PRODUCT_ATTENTION, a, ((Number) a.get(4)).doubleValue() == 0 ? null
                : "with dropout_p > 0 it runs its decomposition op by op, so that the dropout draws are eager's"), NnOps.SCALED_DOT_PRODUCT_ATTENTION);

        arithmetic((n, a, out) -> binary(out, a, x -> plusScaled(x[0], x[1], a.get(2), false, out.dtype())),
                PointwiseOps.ADD_TENSOR, PointwiseOps.ADD_SCALAR);
        arithmetic((n, a, out) -> binary(out, a, x -> plusScaled(x[0], x[1], a.get(2), true, out.dtype())),
                PointwiseOps.SUB_TENSOR, PointwiseOps.SUB_SCALAR);
        arithmetic((n, a, out) -> binary(out, a, x -> plusScaled(x[1], x[0], a.get(2), true, out.dtype())),
                PointwiseOps.RSUB_SCALAR);
        pointwise((n, a, out) -> pw(out, out.dtype(), List.of(a.get(0), a.get(1), a.get(2)), x -> new Expr.Fma(x[2], x[1], x[0], out.dtype())),
                PointwiseOps.ADD_SCALED_BY);
        arithmetic((n, a, out) -> binary(out, a, x -> bin(BinaryOp.MUL, x[0], x[1], out.dtype())), PointwiseOps.MUL_TENSOR, PointwiseOps.MUL_SCALAR);
        pointwise((n, a, out) -> binary(out, a, x -> bin(BinaryOp.DIV, x[0], x[1], out.dtype())), PointwiseOps.DIV_TENSOR, PointwiseOps.DIV_SCALAR);
        arithmetic((n, a, out) -> binary(out, a, x -> bin(BinaryOp.MAX, x[0], x[1], out.dtype())), PointwiseOps.MAXIMUM);
        arithmetic((n, a, out) -> binary(out, a, x -> bin(BinaryOp.MIN, x[0], x[1], out.dtype())), PointwiseOps.MINIMUM);
        pointwise((n, a, out) -> out.dtype().isFloatingPoint() ? pow(out, a.get(0), ((Number) a.get(1)).doubleValue()) : null, PointwiseOps.POW_TENSOR_SCALAR);
        pointwise((n, a, out) -> out.dtype().isFloatingPoint() ? binary(out, a, x -> bin(BinaryOp.POW, x[0], x[1], out.dtype())) : null,
                PointwiseOps.POW_TENSOR_TENSOR);

        arithmetic((n, a, out) -> unary(out, a, UnaryOp.NEG), PointwiseOps.NEG);
        arithmetic((n, a, out) -> unary(out, a, UnaryOp.ABS), PointwiseOps.ABS);
        arithmetic((n, a, out) -> unary(out, a, UnaryOp.RELU), PointwiseOps.RELU);
        unary(UnaryOp.EXP, PointwiseOps.EXP);
        unary(UnaryOp.LOG, PointwiseOps.LOG);
        unary(UnaryOp.LOG1P, PointwiseOps.LOG1P);
        unary(UnaryOp.SQRT, PointwiseOps.SQRT);
        unary(UnaryOp.RSQRT, PointwiseOps.RSQRT);
        unary(UnaryOp.SIN, PointwiseOps.SIN);
        unary(UnaryOp.ERF, PointwiseOps.ERF);
        unary(UnaryOp.FLOOR, PointwiseOps.FLOOR);
        unary(UnaryOp.CEIL, PointwiseOps.CEIL);
        unary(UnaryOp.ROUND, PointwiseOps.ROUND);
        unary(UnaryOp.TRUNC, PointwiseOps.TRUNC);
        unary(UnaryOp.RECIPROCAL, PointwiseOps.RECIPROCAL);
        unary(UnaryOp.TAN, PointwiseOps.TAN);
        unary(UnaryOp.ATAN, PointwiseOps.ATAN);
        unary(UnaryOp.ASIN, PointwiseOps.ASIN);
        unary(UnaryOp.ACOS, PointwiseOps.ACOS);
        unary(UnaryOp.SINH, PointwiseOps.SINH);
        unary(UnaryOp.COSH, PointwiseOps.COSH);
        unary(UnaryOp.ASINH, PointwiseOps.ASINH);
        unary(UnaryOp.ACOSH, PointwiseOps.ACOSH);
        unary(UnaryOp.ATANH, PointwiseOps.ATANH);
        unary(UnaryOp.EXPM1, PointwiseOps.EXPM1);
        unary(UnaryOp.EXP2, PointwiseOps.EXP2);
        unary(UnaryOp.LOG2, PointwiseOps.LOG2);
        unary(UnaryOp.LOG10, PointwiseOps.LOG10);
        pointwise((n, a, out) -> binary(out, a, x -> bin(BinaryOp.ATAN2, x[0], x[1], out.dtype())), PointwiseOps.ATAN2);
        unary(UnaryOp.COS, PointwiseOps.COS);
        unary(UnaryOp.TANH, PointwiseOps.TANH);
        unary(UnaryOp.SIGMOID, PointwiseOps.SIGMOID);
        unary(UnaryOp.SILU, PointwiseOps.SILU);
        // rounding divisions and Python's sign rules: ScalarMath's formulas, the eager kernels' own, which raise
        // ATen's ZeroDivisionError for an integer zero divisor as those do
        arithmetic((n, a, out) -> binary(out, a, x -> bin(roundingDivision(a.get(2)), x[0], x[1], out.dtype())),
                PointwiseOps.DIV_TENSOR_MODE, PointwiseOps.DIV_SCALAR_MODE);
        arithmetic((n, a, out) -> binary(out, a, x -> bin(BinaryOp.DIV_FLOOR, x[0], x[1], out.dtype())), PointwiseOps.FLOOR_DIVIDE, PointwiseOps.FLOOR_DIVIDE_SCALAR);
        arithmetic((n, a, out) -> binary(out, a, x -> bin(BinaryOp.FMOD, x[0], x[1], out.dtype())), PointwiseOps.FMOD_TENSOR, PointwiseOps.FMOD_SCALAR);
        arithmetic((n, a, out) -> binary(out, a, x -> bin(BinaryOp.REMAINDER, x[0], x[1], out.dtype())),
                PointwiseOps.REMAINDER_TENSOR, PointwiseOps.REMAINDER_SCALAR, PointwiseOps.REMAINDER_SCALAR_TENSOR);
        pointwise((n, a, out) -> unary(out, a, "tanh".equals(a.get(1)) ? UnaryOp.GELU_TANH : UnaryOp.GELU), PointwiseOps.GELU);
        pointwise((n, a, out) -> pw(out, out.dtype(), List.of(a.get(0), a.get(1), a.get(2)),
                x -> bin(BinaryOp.MUL, bin(BinaryOp.MUL, x[0], x[1], out.dtype()), x[2], out.dtype())), PointwiseOps.NATIVE_DROPOUT_BACKWARD);
        // in double, rounded once, as the eager kernel computes float32
        pointwise((n, a, out) -> out.dtype().isFloatingPoint()
                ? pw(out, DType.FLOAT64, List.of(a.get(0), a.get(1)), x -> bin("tanh".equals(a.get(2)) ? BinaryOp.GELU_TANH_BACKWARD : BinaryOp.GELU_BACKWARD, x[0], x[1], DType.FLOAT64)) : null, PointwiseOps.GELU_BACKWARD);

        pointwise((n, a, out) -> pw(out, DType.BOOL, List.of(a.get(0)), x -> new Expr.Unary(UnaryOp.NOT, x[0], DType.BOOL)), PointwiseOps.LOGICAL_NOT);
        pointwise((n, a, out) -> pw(out, DType.BOOL, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.AND, x[0], x[1], DType.BOOL)), PointwiseOps.LOGICAL_AND);
        pointwise((n, a, out) -> pw(out, DType.BOOL, List.of(a.get(0), a.get(1)), x -> bin(BinaryOp.OR, x[0], x[1], DType.BOOL)), PointwiseOps.LOGICAL_OR);
        // in the promoted dtype, as the eager kernels: Java's &, |, ^ on ints, longs and booleans alike
        pointwise((n, a, out) -> binary(out, a, x -> bin(BinaryOp.BITWISE_AND, x[0], x[1], out.dtype())), PointwiseOps.BITWISE_AND_TENSOR, PointwiseOps.BITWISE_AND_SCALAR);
        pointwise((n, a, out) -> binary(out, a, x -> bin(BinaryOp.BITWISE_OR, x[0], x[1], out.dtype())), PointwiseOps.BITWISE_OR_TENSOR, PointwiseOps.BITWISE_OR_SCALAR);
        pointwise((n, a, out) -> binary(out, a, x -> bin(BinaryOp.BITWISE_XOR, x[0], x[1], out.dtype())), PointwiseOps.BITWISE_XOR_TENSOR, PointwiseOps.BITWISE_XOR_SCALAR);
        pointwise((n, a, out) -> unary(out, a, out.dtype() == DType.BOOL ? UnaryOp.NOT : UnaryOp.BITWISE_NOT), PointwiseOps.BITWISE_NOT);
        pointwise((n, a, out) -> compare(n, out, a, BinaryOp.EQ), PointwiseOps.EQ_TENSOR, PointwiseOps.EQ_SCALAR);
        pointwise((n, a, out) -> compare(n, out, a, BinaryOp.NE), PointwiseOps.NE_TENSOR, PointwiseOps.NE_SCALAR);
        pointwise((n, a, out) -> compare(n, out, a, BinaryOp.LT), PointwiseOps.LT_TENSOR, PointwiseOps.LT_SCALAR);
        pointwise((n, a, out) -> compare(n, out, a, BinaryOp.LE), PointwiseOps.LE_TENSOR, PointwiseOps.LE_SCALAR);
        pointwise((n, a, out) -> compare(n, out, a, BinaryOp.GT), PointwiseOps.GT_TENSOR, PointwiseOps.GT_SCALAR);
        pointwise((n, a, out) -> compare(n, out, a, BinaryOp.GE), PointwiseOps.GE_TENSOR, PointwiseOps.GE_SCALAR);
        pointwise((n, a, out) -> where(out, a.get(0), a.get(1), a.get(2)),
                PointwiseOps.WHERE_SELF, PointwiseOps.WHERE_SCALAR_OTHER, PointwiseOps.WHERE_SCALAR_SELF, PointwiseOps.WHERE_SCALAR);
        pointwise((n, a, out) -> where(out, a.get(1), a.get(2), a.get(0)), PointwiseOps.MASKED_FILL_SCALAR, PointwiseOps.MASKED_FILL_TENSOR);
        arithmetic((n, a, out) -> pw(out, out.dtype(), List.of(a.get(0)), x -> {
            Expr r = x[0];
            if (a.get(1) != null) r = bin(BinaryOp.MAX, r, constant(a.get(1), out.dtype()), out.dtype());
            if (a.get(2) != null) r = bin(BinaryOp.MIN, r, constant(a.get(2), out.dtype()), out.dtype());
            return r;
        }), PointwiseOps.CLAMP);
        arithmetic((n, a, out) -> clampTensor(out, a.get(0), a.get(1), a.get(2)), PointwiseOps.CLAMP_TENSOR);
        pointwise((n, a, out) -> pw(out, out.dtype(), List.of(a.get(1)), x -> x[0]), PointwiseOps.FILL);
        pointwise((n, a, out) -> pw(out, out.dtype(), List.of(0L), x -> x[0]), PointwiseOps.ZERO);
        pointwise((n, a, out) -> pw(out, out.dtype(), List.of(a.get(0)), x -> x[0]), ShapeOps.TO_COPY, ShapeOps.CLONE);
        // a dropout that draws nothing (eval, or p = 0) is a copy, which fuses like one (an eval encoder layer has three);
        // one that draws runs its eager kernel, so that the generator's stream is eager's, draw for draw
        register((l, n, a, out) -> (Boolean) a.get(2) && ((Number) a.get(1)).doubleValue() > 0
                ? l.extern(n, PointwiseOps.DROPOUT, a, "it draws random numbers, which must be eager's draw for draw")
                : l.pointwise(n, pw(out, out.dtype(), List.of(a.get(0)), x -> x[0])), PointwiseOps.DROPOUT);
    }

    /** A two-operand pointwise value computed in the output dtype. */
    private static Value.Computed binary(Out out, List<Object> a, Function<Expr[], Expr> f) {
        return pw(out, out.dtype(), List.of(a.get(0), a.get(1)), f);
    }

    /** {@code min(max(x, lo), hi)} with tensor bounds, either of which may be absent. */
    private static Value.Computed clampTensor(Out out, Object x, Object lo, Object hi) {
        DType o = out.dtype();
        List<Object> operands = new ArrayList<>(List.of(x));
        if (lo != null) operands.add(lo);
        if (hi != null) operands.add(hi);
        return pw(out, o, operands, v -> {
            Expr r = v[0];
            int i = 1;
            if (lo != null) r = bin(BinaryOp.MAX, r, v[i++], o);
            if (hi != null) r = bin(BinaryOp.MIN, r, v[i], o);
            return r;
        });
    }

    private static Value.Computed where(Out out, Object condition, Object ifTrue, Object ifFalse) {
        DType o = out.dtype();
        return pw(out, o, List.of(condition, ifTrue, ifFalse), x -> new Expr.Where(cast(x[0], DType.BOOL), cast(x[1], o), cast(x[2], o), o));
    }

    private static Value.Computed unary(Out out, List<Object> a, UnaryOp op) {
        return pw(out, out.dtype(), List.of(a.get(0)), x -> new Expr.Unary(op, x[0], out.dtype()));
    }

    private static Value.Computed pow(Out out, Object base, double e) {
        DType o = out.dtype();
        Function<Expr[], Expr> f;
        if (e == 1) f = x -> x[0];
        else if (e == 2) f = x -> bin(BinaryOp.MUL, x[0], x[0], o);
        else if (e == 0.5) f = x -> new Expr.Unary(UnaryOp.SQRT, x[0], o);
        else if (e == -1) f = x -> new Expr.Unary(UnaryOp.RECIPROCAL, x[0], o);
        else f = x -> bin(BinaryOp.POW, x[0], new Expr.Const(e, o), o);
        return pw(out, o, List.of(base), f);
    }

    private static Value.Computed compare(Node n, Out out, List<Object> a, BinaryOp op) {
        DType common = TypePromotion.resultType(fakeOrScalar(n.args().get(0)), fakeOrScalar(n.args().get(1)));
        return pw(out, common, List.of(a.get(0), a.get(1)), x -> new Expr.Binary(op, x[0], x[1], DType.BOOL));
    }

    private static Object fakeOrScalar(Object arg) { return arg instanceof Node x ? x.val() : arg; }

    /**
     * {@code x + alpha * y} ({@code x - alpha * y} when {@code negated}): add, sub and rsub. With an
     * alpha other than 1, a floating result is one fma, {@code (±alpha) * y + x} rounded once, as the
     * eager kernel (BinaryOp.ADD_SCALED, as ATen's) computes it: a multiply then an add rounds twice
     * and left a compiled optimizer step (p.add_(g, -lr)) an ulp from eager's, which a sensitive
     * training loop grew into a visible difference (fuzz seed 973788). Integers multiply and add (exact).
     */
    private static Expr plusScaled(Expr x, Expr y, Object alpha, boolean negated, DType d) {
        if (alpha == null || (alpha instanceof Number k && k.doubleValue() == 1)) return bin(negated ? BinaryOp.SUB : BinaryOp.ADD, x, y, d);
        Expr scale = constant(negated ? negate(alpha) : alpha, d);
        return d.isFloatingPoint() ? new Expr.Fma(scale, y, x, d) : bin(BinaryOp.ADD, x, bin(BinaryOp.MUL, y, scale, d), d);
    }

    private static Object negate(Object alpha) {
        return alpha instanceof Double k ? (Object) (-k) : (Object) (-(alpha instanceof Boolean b ? (b ? 1L : 0L) : ((Number) alpha).longValue()));
    }

    private static Expr bin(BinaryOp op, Expr a, Expr b, DType d) { return new Expr.Binary(op, a, b, d); }

    /** div's rounding_mode (checked by its meta function): none is true division. */
    private static BinaryOp roundingDivision(Object mode) {
        if (mode == null) return BinaryOp.DIV;
        return "trunc".equals(mode) ? BinaryOp.DIV_TRUNC : BinaryOp.DIV_FLOOR;
    }

    /**
     * A pointwise value over {@code out}'s shape: each operand (a value, broadcast, or a scalar) is
     * read and converted to {@code compute}, then combined by {@code f}; the result is converted to
     * the output dtype.
     */
    static Value.Computed pw(Out out, DType compute, List<Object> operands, Function<Expr[], Expr> f) {
        SymInt[] shape = out.shape();
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
    static Affine[] broadcastIndex(Affine[] idx, SymInt[] shape) {
        Affine[] r = new Affine[shape.length];
        int lead = idx.length - shape.length;
        for (int d = 0; d < shape.length; d++) r[d] = Sizes.is(shape[d], 1) ? Affine.constant(0) : idx[d + lead];
        return r;
    }

    /**
     * {@code e} as {@code d}. A round trip through a type that holds every value of {@code d} is no
     * cast at all: a bool operand of {@code where} is cast to the op's compute type with the others,
     * then back to bool for the condition, and the vector loop writer reads only a comparison as a
     * condition, so ReLU's backward ({@code where(x > 0, grad, 0)}) stayed a scalar loop.
     */
    static Expr cast(Expr e, DType d) {
        if (e.dtype() == d) return e;
        if (e instanceof Expr.Cast c && c.x().dtype() == d && holdsEvery(c.dtype(), d)) return c.x();
        return new Expr.Cast(e, d);
    }

    /** Whether every value of {@code narrow} survives a cast to {@code wide} and back: bool through any number, exact widenings. */
    private static boolean holdsEvery(DType wide, DType narrow) {
        return switch (narrow) {
            case BOOL -> true;
            case FLOAT32 -> wide == DType.FLOAT64;
            case INT32 -> wide == DType.INT64 || wide == DType.FLOAT64;
            case INT64, FLOAT64 -> false;
        };
    }

    static Expr constant(Object scalar, DType d) {
        Object v = switch (d) {
            case FLOAT32, FLOAT64 -> scalar instanceof Boolean b ? (b ? 1.0 : 0.0) : ((Number) scalar).doubleValue();
            case INT32, INT64 -> scalar instanceof Boolean b ? (b ? 1L : 0L) : (Object) ((Number) scalar).longValue();
            case BOOL -> scalar instanceof Boolean b ? b : ((Number) scalar).doubleValue() != 0;
        };
        return new Expr.Const(v, d);
    }

    // ------------------------------------------------------------------ views

    private static Object view(Lowering l, Node n, OpOverload op, List<Object> args, Out out) {
        if (!(args.get(0) instanceof Value v)) return null;
        if (v instanceof Value.Stored s) {
            SymShape m = viewLayout(n, op, args, layout(s), out);
            if (m == null) {
                // a reshape of a layout it cannot view: of a contiguous copy, which it always can
                s = l.realize(new Value.Computed(s.dtype(), s.shape(), s::load), n);
                m = viewLayout(n, op, args, layout(s), out);
            }
            return new Value.Stored(s.buffer(), s.dtype(), m.sizes(), m.strides(), m.offset());
        }
        Value.Computed c = (Value.Computed) v;
        SymShape contiguous = new SymShape(c.shape(), Sizes.contiguousStrides(c.shape()), Sizes.ZERO);
        SymShape m = viewLayout(n, op, args, contiguous, out);
        Function<Affine[], Affine[]> reindex = reindex(c.shape(), m);
        if (reindex != null) return new Value.Computed(c.dtype(), m.sizes(), idx -> c.load(reindex.apply(idx)));
        Value.Stored s = l.realize(c, n);
        return new Value.Stored(s.buffer(), s.dtype(), m.sizes(), m.strides(), m.offset());
    }

    private static SymShape layout(Value.Stored s) { return new SymShape(s.shape(), s.strides(), s.offset()); }

    /**
     * The layout of the view of {@code layout}, or null for a reshape that needs a copy. With static
     * sizes it is the op's own meta function's answer; with symbolic ones, {@link SymbolicViews}'.
     */
    private static SymShape viewLayout(Node n, OpOverload op, List<Object> args, SymShape layout, Out out) {
        if (layout.isSymbolic() || !Sizes.isStatic(out.shape())) return SymbolicViews.layout(n, op, args, layout, out.shape());
        int[] shape = Sizes.constants(layout.sizes()), strides = Sizes.constants(layout.strides());
        if (op == ShapeOps.RESHAPE && ShapeOps.viewStrides(shape, strides, Sizes.constants(out.shape())) == null) return null;
        Object[] values = args.toArray();
        values[0] = new FakeTensor(new TensorMeta(out.dtype(), shape, strides, Math.toIntExact(layout.offset().constant())));
        return SymShape.of((TensorMeta) op.inferMeta(op.bind(values)));
    }

    /**
     * Re-indexing for a view of a contiguous value of {@code shape}: each view dim with a non-zero
     * stride must step along exactly one source dim without carrying into the next, for every value
     * of the symbols; null otherwise.
     */
    private static Function<Affine[], Affine[]> reindex(SymInt[] shape, SymShape view) {
        SymInt[] cs = Sizes.contiguousStrides(shape);
        int nd = shape.length;
        SymInt[] start = new SymInt[nd];
        java.util.Arrays.fill(start, Sizes.ZERO);
        if (!Sizes.is(view.offset(), 0)) {
            if (!view.offset().isConstant() || !Sizes.isStatic(cs)) return null;
            long rem = view.offset().constant();
            for (int d = 0; d < nd; d++) {
                if (!Sizes.above1(shape[d])) continue;
                start[d] = SymInt.of(rem / cs[d].constant());
                rem %= cs[d].constant();
            }
        }
        int[] target = new int[view.dim()];
        SymInt[] coeff = new SymInt[view.dim()];
        SymInt[] max = start.clone();
        for (int k = 0; k < view.dim(); k++) {
            target[k] = -1;
            SymInt st = view.strides()[k];
            if (Sizes.is(view.sizes()[k], 1) || Sizes.is(st, 0)) continue;
            for (int d = 0; d < nd && target[k] < 0; d++) {
                SymInt q = Sizes.above1(shape[d]) ? Sizes.quotient(st, cs[d]) : null;
                if (q != null) {
                    target[k] = d;
                    coeff[k] = q;
                }
            }
            if (target[k] < 0) return null;
            max[target[k]] = Sizes.plus(max[target[k]], Sizes.times(coeff[k], Sizes.minus(view.sizes()[k], Sizes.ONE)));
        }
        for (int d = 0; d < nd; d++) if (Sizes.above1(shape[d]) && !Sizes.provablyAtLeast(Sizes.minus(shape[d], Sizes.ONE), max[d])) return null;
        return idx -> {
            Affine[] src = new Affine[nd];
            for (int d = 0; d < nd; d++) src[d] = Affine.constant(start[d]);
            for (int k = 0; k < target.length; k++) if (target[k] >= 0) src[target[k]] = src[target[k]].plus(idx[k].times(coeff[k]));
            return src;
        };
    }

    // ------------------------------------------------------------------ reductions

    private static Object reduction(Lowering l, Node n, List<Object> a, Stage.ReduceOp op, Out out) {
        if (!(a.get(0) instanceof Value x)) return null;
        int nd = x.shape().length;
        if (nd == 0) return l.pointwise(n, pw(out, out.dtype(), List.of(x), v -> v[0]));   // a 0-d tensor reduces to itself
        boolean[] reduced = new boolean[nd];
        int[] dims = a.get(1) == null ? new int[0] : ints(a.get(1));
        if (dims.length == 0) java.util.Arrays.fill(reduced, true);
        for (int d : dims) reduced[d < 0 ? d + nd : d] = true;
        List<Integer> outer = new ArrayList<>(), inner = new ArrayList<>();
        for (int d = 0; d < nd; d++) (reduced[d] ? inner : outer).add(d);
        SymInt[] outerShape = outer.stream().map(d -> x.shape()[d]).toArray(SymInt[]::new);
        SymInt[] reduceShape = inner.stream().map(d -> x.shape()[d]).toArray(SymInt[]::new);
        Affine[] idx = new Affine[nd];
        for (int i = 0; i < outer.size(); i++) idx[outer.get(i)] = Affine.var(i);
        for (int i = 0; i < inner.size(); i++) idx[inner.get(i)] = Affine.var(outer.size() + i);
        Expr body = cast(x.load(idx), out.dtype());
        Buffer b = l.newBuffer(Buffer.Kind.COMPUTED, out.dtype(), Sizes.numel(outerShape), -1);
        l.addStage(new Stage.Reduction(n, b, outerShape, reduceShape, op, body));
        return new Value.Stored(b, out.dtype(), out.shape(), Sizes.contiguousStrides(out.shape()), Sizes.ZERO);
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

    private static Object gemm(Lowering l, Node n, List<Object> a, Out out) {
        if (!(a.get(0) instanceof Value x) || !(a.get(1) instanceof Value y)) return null;
        if (!out.dtype().isFloatingPoint() || x.dtype() != out.dtype() || y.dtype() != out.dtype()) return null;
        Stage.Operand p = blasOperand(l, n, x), q = blasOperand(l, n, y);
        boolean batched = out.dim() == 3;
        SymInt m = out.shape()[batched ? 1 : 0], nn = out.shape()[batched ? 2 : 1];
        SymInt k = x.shape()[batched ? 2 : 1];
        Buffer b = l.newBuffer(Buffer.Kind.COMPUTED, out.dtype(), out.numel(), -1);
        l.addStage(new Stage.Gemm(n, b, p, q, batched ? out.shape()[0] : Sizes.ONE, m, nn, k));
        return new Value.Stored(b, out.dtype(), out.shape(), Sizes.contiguousStrides(out.shape()), Sizes.ZERO);
    }

    /** The value as BLAS can read it: each matrix row- or column-major; otherwise stored contiguously first. */
    private static Stage.Operand blasOperand(Lowering l, Node n, Value v) {
        if (v instanceof Value.Stored s && blasLayout(s)) return new Stage.Operand(s.buffer(), s.shape(), s.strides(), s.offset());
        Value.Stored s = l.realize(v instanceof Value.Stored st ? new Value.Computed(st.dtype(), st.shape(), st::load) : v, n);
        return new Stage.Operand(s.buffer(), s.shape(), s.strides(), s.offset());
    }

    /** Row- or column-major for every value of the symbols (else the operand is copied contiguous: always readable). */
    private static boolean blasLayout(Value.Stored s) {
        int r = s.shape().length;
        SymInt rows = s.shape()[r - 2], cols = s.shape()[r - 1];
        SymInt rs = s.strides()[r - 2], cs = s.strides()[r - 1];
        boolean rowMajor = Sizes.is(cs, 1) && Sizes.provablyAtLeast(rs, Sizes.max1(cols));
        boolean colMajor = Sizes.is(rs, 1) && Sizes.provablyAtLeast(cs, Sizes.max1(rows));
        return rowMajor || colMajor;
    }
}
