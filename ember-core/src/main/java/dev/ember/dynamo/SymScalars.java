package dev.ember.dynamo;

import dev.ember.dynamo.guards.DoubleExpr;
import dev.ember.dynamo.guards.IntExpr;
import dev.ember.dynamo.guards.IntRelation;
import dev.ember.dynamo.guards.SymIntGuard;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.Schema;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.TypePromotion;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Captured scalar outputs ({@code Options.captureScalarOutputs}): {@code item()} becomes a
 * {@code _local_scalar_dense} node, and the number it stands for is traced as a 0-d tensor — float64
 * for a Java double, int64 for a long, so Java arithmetic on it is exact — through tensor ops that
 * take it as a scalar and through JVM arithmetic. Every other use needs its value: a graph break.
 */
final class SymScalars {
    private SymScalars() {}

    /** {@code Math} methods with an ATen twin that computes the same on a 0-d tensor. */
    private static final Map<String, OpOverload> MATH = Map.of("abs", PointwiseOps.ABS, "sqrt", PointwiseOps.SQRT, "exp", PointwiseOps.EXP);

    static SymScalarVariable item(TraceContext ctx, TensorVariable t, boolean isLong, String who) {
        String method = isLong ? "longItem" : "item";
        FakeTensor fake = t.fake();
        if (fake.numel() != 1) {
            throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws IllegalArgumentException: Tensor." + method
                    + "() of a tensor with " + fake.numel() + " elements");
        }
        FakeTensor zeroDim = new FakeTensor(TensorMeta.contiguous(fake.dtype()));
        Node node = ctx.graph.callFunction(ShapeOps.LOCAL_SCALAR_DENSE, List.of(t.node()), zeroDim, ctx.currentLocation());
        TensorVariable value = cast(ctx, scalarCompute(new TensorVariable(node, zeroDim, null)), isLong ? DType.INT64 : DType.FLOAT64);
        return SymScalarVariable.fromData(value, isLong, "Tensor." + method + "() on " + who);
    }

    /**
     * A use that needs the number's value while tracing. A number computed from unspecialized inputs
     * only is specialized: the trace restarts with those inputs as guarded constants (as Dynamo
     * specializes a symbolic float it must evaluate). One from tensor data cannot be known: the
     * returned graph break.
     */
    static Unsupported dataDependent(TraceContext ctx, SymScalarVariable s, String use) {
        if (!s.dataDependent()) throw new SpecializeAndRestart(s.roots(), use, ctx.currentLocation());
        return ctx.unsupported(GraphBreakType.TENSOR_DATA_ACCESS, use + " needs the value of a data-dependent scalar (" + s.describe()
                + "), which is tensor data unknown while tracing");
    }

    static SymScalarVariable firstIn(List<VariableTracker> values) {
        for (VariableTracker v : values) if (v instanceof SymScalarVariable s) return s;
        return null;
    }

    /**
     * A JVM binary operator with at least one symbolic operand. Both operands have the instruction's
     * type (javac converts first), and the tensor of that type computes exactly what the JVM does:
     * int32 wraps as {@code iadd} does, division truncates as {@code idiv}/{@code ldiv} do.
     */
    static VariableTracker binary(TraceContext ctx, Opcode op, VariableTracker a, VariableTracker b) {
        SymScalarVariable s = a instanceof SymScalarVariable x ? x : (SymScalarVariable) b;
        IntExpr.Op intOp = switch (op) {
            case IADD, LADD -> IntExpr.Op.ADD;
            case ISUB, LSUB -> IntExpr.Op.SUB;
            case IMUL, LMUL -> IntExpr.Op.MUL;
            case IDIV, LDIV -> IntExpr.Op.DIV;
            case IREM, LREM -> IntExpr.Op.REM;
            case LCMP -> IntExpr.Op.CMP;
            default -> null;
        };
        if (intOp == IntExpr.Op.DIV || intOp == IntExpr.Op.REM) nonZeroDivisor(ctx, b, s);
        IntExpr left = exprOf(a), right = exprOf(b);
        IntExpr expr = intOp == null || left == null || right == null ? null : IntExpr.Binary.of(intOp, left, right, s.javaType() == int.class);
        if ((op == Opcode.DCMPL || op == Opcode.DCMPG) && doubleCompare(a, b, op == Opcode.DCMPG) instanceof IntExpr.DoubleCompare cmp) {
            // doubles computed from the inputs compared: the branch that reads the sign is guarded by the comparison
            TensorVariable x = operand(ctx, a, s), y = operand(ctx, b, s);
            TensorVariable sign = call(ctx, PointwiseOps.SUB_TENSOR, cast(ctx, call(ctx, PointwiseOps.GT_TENSOR, x, y), DType.INT32),
                    cast(ctx, call(ctx, PointwiseOps.LT_TENSOR, x, y), DType.INT32));
            return s.derived(sign, int.class, null, cmp);
        }
        if (op == Opcode.LCMP) {
            // javac compares longs with lcmp then a branch on its sign: the branch is guarded on the two longs (compare)
            if (expr == null) throw dataDependent(ctx, s, "comparing it (lcmp, e.g. a branch on it)");
            TensorVariable x = operand(ctx, a, s), y = operand(ctx, b, s);
            TensorVariable sign = call(ctx, PointwiseOps.SUB_TENSOR, cast(ctx, call(ctx, PointwiseOps.GT_TENSOR, x, y), DType.INT32),
                    cast(ctx, call(ctx, PointwiseOps.LT_TENSOR, x, y), DType.INT32));
            return s.derived(sign, int.class, a instanceof SymScalarVariable p && b instanceof SymScalarVariable q ? (p == s ? q : p) : null, expr);
        }
        DoubleExpr dleft = doubleExprOf(a), dright = doubleExprOf(b);
        DoubleExpr dexpr = dleft == null || dright == null || !(op == Opcode.DADD || op == Opcode.DSUB || op == Opcode.DMUL || op == Opcode.DDIV
                || op == Opcode.DREM) ? null : DoubleExpr.Binary.of(op, dleft, dright);
        TensorVariable result = switch (op) {
            case DADD, LADD, IADD -> call(ctx, PointwiseOps.ADD_TENSOR, operand(ctx, a, s), operand(ctx, b, s));
            case DSUB, LSUB, ISUB -> call(ctx, PointwiseOps.SUB_TENSOR, operand(ctx, a, s), operand(ctx, b, s));
            case DMUL, LMUL, IMUL -> call(ctx, PointwiseOps.MUL_TENSOR, operand(ctx, a, s), operand(ctx, b, s));
            case DDIV -> call(ctx, PointwiseOps.DIV_TENSOR, operand(ctx, a, s), operand(ctx, b, s));
            case LDIV, IDIV -> call(ctx, PointwiseOps.DIV_TENSOR_MODE, operand(ctx, a, s), operand(ctx, b, s));
            // Java's % truncates toward zero, as fmod does (remainder would follow the divisor's sign)
            case LREM, IREM -> call(ctx, PointwiseOps.FMOD_TENSOR, operand(ctx, a, s), operand(ctx, b, s));
            case DCMPL, DCMPG -> throw dataDependent(ctx, s, "comparing it (" + op.name().toLowerCase() + ", e.g. a branch on it)");
            default -> throw dataDependent(ctx, s, "the JVM instruction " + op.name().toLowerCase());
        };
        return s.derived(result, s.javaType(), a instanceof SymScalarVariable x && b instanceof SymScalarVariable y ? (x == s ? y : x) : null, expr, dexpr);
    }

    /**
     * An integer division's divisor: a constant zero, or a symbolic one that is zero in this trace,
     * throws in Java, so the number is specialized and the trace raises as Java does; a symbolic one
     * that is not is guarded non-zero.
     */
    private static void nonZeroDivisor(TraceContext ctx, VariableTracker divisor, SymScalarVariable s) {
        if (divisor instanceof ConstantVariable c && c.value() instanceof Number n && n.longValue() == 0) throw dataDependent(ctx, s, "dividing it by zero");
        if (divisor instanceof SymScalarVariable d && d.expr() != null) {
            if (d.expr().hint() == 0) throw dataDependent(ctx, d, "dividing by it when it is zero");
            ctx.graph.addGuard(new SymIntGuard(d.expr(), IntRelation.Relation.NE, new IntExpr.Constant(0, d.expr().isInt())));
        }
    }

    /**
     * {@code dcmpl}/{@code dcmpg} of two doubles each computed from unspecialized inputs or constant
     * (not both constant), in bytecode order; null for any other operands (the caller specializes as before).
     */
    private static IntExpr.DoubleCompare doubleCompare(VariableTracker a, VariableTracker b, boolean nanIsOne) {
        DoubleExpr left = doubleExprOf(a), right = doubleExprOf(b);
        return left == null || right == null ? null : IntExpr.DoubleCompare.of(left, right, nanIsOne);
    }

    /** The expression of a double operand: a symbolic double's, or a known constant's; null for anything else. */
    private static DoubleExpr doubleExprOf(VariableTracker v) {
        if (v instanceof SymScalarVariable x) return x.doubleExpr();
        if (v instanceof ConstantVariable c && c.deferred() == null && c.value() instanceof Double d) return new DoubleExpr.Constant(d);
        return null;
    }

    /** The Java expression of an int operand: a symbolic int's, or a known constant's; null for anything else. */
    private static IntExpr exprOf(VariableTracker v) {
        if (v instanceof SymScalarVariable x) return x.expr();
        if (v instanceof ConstantVariable c && c.deferred() == null && (c.value() instanceof Integer || c.value() instanceof Long)) {
            return new IntExpr.Constant(((Number) c.value()).longValue(), c.value() instanceof Integer);
        }
        return null;
    }

    /** The branches on one symbolic int a trace guards one by one before it guards the int's value instead. */
    static final int MAX_GUARDED_BRANCHES = 8;

    /**
     * A branch on ints of which one at least is symbolic and computed from int inputs only
     * ({@code if (n % 2 == 0)}): the outcome in this trace, guarded by the comparison itself
     * ({@code SYMBOLIC_INT: L['n'] % 2 != 0}), as Dynamo guards what the trace decided on a SymInt
     * instead of its value. Null when an operand is no such int (the caller decides as before).
     */
    static Boolean compare(TraceContext ctx, VariableTracker a, VariableTracker b, IntRelation.Relation rel) {
        IntExpr x = exprOf(a), y = exprOf(b);
        if (x == null || y == null) {
            SymScalarVariable s = a instanceof SymScalarVariable p ? p : b instanceof SymScalarVariable q ? q : null;
            if (s != null && s.expr() == null) throw dataDependent(ctx, s, "comparing it (a branch on it)");
            return null;
        }
        SymScalarVariable s = a instanceof SymScalarVariable p ? p : (SymScalarVariable) b;
        List<String> roots = new ArrayList<>();
        for (VariableTracker v : new VariableTracker[] {a, b}) if (v instanceof SymScalarVariable p) for (var r : p.roots()) roots.add(r.name());
        // a loop bound is compared once per iteration: past a few comparisons one value guard says the same, and is checked faster
        if (ctx.symIntBranches.merge(roots, 1, Integer::sum) > MAX_GUARDED_BRANCHES) {
            throw dataDependent(ctx, s, "comparing it more than " + MAX_GUARDED_BRANCHES + " times (a loop bound?)");
        }
        // a branch on lcmp's sign is the comparison of the two longs
        if (x instanceof IntExpr.Binary c && c.op() == IntExpr.Op.CMP && y instanceof IntExpr.Constant zero && zero.value() == 0) {
            x = c.left();
            y = c.right();
        }
        boolean outcome = rel.test(x.hint(), y.hint());
        ctx.graph.addGuard(new SymIntGuard(x, outcome ? rel : rel.negated(), y));
        return outcome;
    }

    /**
     * A symbolic int where an op takes a size ({@code x.view(n, -1)}, {@code Tensor.zeros(n)}): the
     * polynomial of size symbols it is ({@code 2*s1}), each int input in it a symbol read from its
     * 0-d graph input, so one graph serves every value (as Dynamo passes a SymInt to a view). Ints
     * below 2, and values that are no polynomial of the inputs ({@code n / 2}, {@code n % 3}), are
     * specialized instead: {@code use} says where.
     */
    static VariableTracker asSize(TraceContext ctx, SymScalarVariable x, String use) {
        // a backend that compiles static sizes only (or a graph it could not make generic) has every size a constant
        if (x.dataDependent() || x.expr() == null || ctx.specialized.contains(ShapeEnv.ALL_SIZES)) throw dataDependent(ctx, x, use);
        SymInt p = polynomial(ctx, x.expr());
        if (p == null || p.eval(ctx.shapes.hints()) != x.expr().hint()) throw dataDependent(ctx, x, use);
        return new SymSizeVariable(p, x.expr().hint(), x.javaType());
    }

    private static SymInt polynomial(TraceContext ctx, IntExpr e) {
        return switch (e) {
            case IntExpr.Input in -> {
                Node placeholder = placeholderOf(ctx, in.source());
                yield !in.isInt() || in.hint() < 2 || placeholder == null ? null : ctx.shapes.intSymbol(in.source(), in.hint(), placeholder);
            }
            case IntExpr.Constant c -> SymInt.of(c.value());
            case IntExpr.Negate n -> polynomial(ctx, n.e()) instanceof SymInt q ? q.times(-1) : null;
            case IntExpr.Convert c -> polynomial(ctx, c.e());
            case IntExpr.Abs ignored -> null;
            case IntExpr.DoubleCompare ignored -> null;
            case IntExpr.Binary b -> {
                SymInt l = polynomial(ctx, b.left()), r = l == null ? null : polynomial(ctx, b.right());
                yield r == null ? null : switch (b.op()) {
                    case ADD -> l.plus(r);
                    case SUB -> l.minus(r);
                    case MUL -> l.times(r);
                    case DIV, REM, CMP, MAX, MIN -> null;
                };
            }
        };
    }

    /** The 0-d graph input an int input read from {@code source} became, or null. */
    private static Node placeholderOf(TraceContext ctx, dev.ember.dynamo.source.Source source) {
        List<dev.ember.dynamo.source.Source> sources = ctx.graph.inputSources();
        for (int i = 0; i < sources.size(); i++) {
            if (sources.get(i) instanceof dev.ember.dynamo.source.ScalarTensorSource st && st.base().name().equals(source.name())) {
                return ctx.graph.graph().placeholders().get(i);
            }
        }
        return null;
    }

    static VariableTracker negate(TraceContext ctx, SymScalarVariable s) {
        IntExpr expr = s.expr() == null ? null : new IntExpr.Negate(s.expr(), s.javaType() == int.class);
        DoubleExpr dexpr = s.doubleExpr() == null ? null : DoubleExpr.Unary.of(DoubleExpr.Function.NEG, s.doubleExpr());
        return s.derived(call(ctx, PointwiseOps.NEG, typed(ctx, s)), s.javaType(), null, expr, dexpr);
    }

    /** The number's tensor in the dtype of its Java type (an int widened to long keeps its int32 tensor until arithmetic needs int64). */
    private static TensorVariable typed(TraceContext ctx, SymScalarVariable s) { return cast(ctx, s.tensor(), SymScalarVariable.dtypeOf(s.javaType())); }

    /**
     * The conversions a tensor cast computes as the JVM does: int to long or double, long to double,
     * long to int (both truncate to the low 32 bits). Double to an integer saturates in Java but not
     * in a cast, and float is not tracked: those need the value.
     */
    static VariableTracker convert(TraceContext ctx, SymScalarVariable s, TypeKind to) {
        Class<?> target = switch (to) {
            case DOUBLE -> s.isIntegral() ? double.class : null;
            case LONG -> s.javaType() == int.class ? long.class : null;
            case INT -> s.javaType() == long.class ? int.class : null;
            default -> null;
        };
        if (target == null) throw dataDependent(ctx, s, "converting it to " + to.name().toLowerCase());
        IntExpr expr = s.expr() == null || target == double.class ? null : new IntExpr.Convert(s.expr(), target == int.class);
        DoubleExpr dexpr = s.expr() != null && target == double.class ? DoubleExpr.FromInt.of(s.expr()) : null;
        // int to long is exact on the int32 tensor: no cast until a use needs int64 arithmetic or dtype
        if (target == long.class) return s.derived(s.tensor(), target, null, expr);
        return s.derived(cast(ctx, typed(ctx, s), SymScalarVariable.dtypeOf(target)), target, null, expr, dexpr);
    }

    /**
     * {@code Math.abs/sqrt/exp} of a symbolic scalar, and {@code Math.max/min} of symbolic ints: the
     * same ATen op on the 0-d tensors, and for ints the Java expression, so a branch on the result
     * is still guarded by its comparison.
     */
    static VariableTracker math(TraceContext ctx, String name, List<VariableTracker> args, SymScalarVariable s) {
        if (s.isIntegral() && args.size() == 2 && (name.equals("max") || name.equals("min"))) {
            VariableTracker a = args.get(0), b = args.get(1);
            IntExpr left = exprOf(a), right = exprOf(b);
            IntExpr expr = left == null || right == null ? null
                    : IntExpr.Binary.of(name.equals("max") ? IntExpr.Op.MAX : IntExpr.Op.MIN, left, right, s.javaType() == int.class);
            TensorVariable result = call(ctx, name.equals("max") ? PointwiseOps.MAXIMUM : PointwiseOps.MINIMUM, operand(ctx, a, s), operand(ctx, b, s));
            return s.derived(result, s.javaType(), a instanceof SymScalarVariable x && b instanceof SymScalarVariable y ? (x == s ? y : x) : null, expr);
        }
        if (args.size() != 1 || !MATH.containsKey(name) || (s.isIntegral() && !name.equals("abs"))) {
            throw dataDependent(ctx, s, "passing it to Math." + name + "()");
        }
        IntExpr expr = s.isIntegral() && s.expr() != null ? new IntExpr.Abs(s.expr(), s.javaType() == int.class) : null;
        DoubleExpr dexpr = s.doubleExpr() == null ? null : DoubleExpr.Unary.of(DoubleExpr.Function.valueOf(name.toUpperCase()), s.doubleExpr());
        return s.derived(call(ctx, MATH.get(name), typed(ctx, s)), s.javaType(), null, expr, dexpr);
    }

    /**
     * An op given a data-dependent scalar as a Scalar argument: its Tensor overload with the 0-d tensor
     * in that place, cast first to the dtype eager computes in (the result type of the tensors and the
     * Java scalars), so result dtype and values equal eager's.
     */
    static VariableTracker opCall(TraceContext ctx, OpOverload op, List<VariableTracker> args, SymScalarVariable s) {
        if (scaledByAlpha(ctx, op, args) instanceof VariableTracker sum) return sum;
        List<VariableTracker> in = new ArrayList<>(args);
        OpOverload tensorOp = tensorOverload(op);
        if (op == PointwiseOps.RSUB_SCALAR && in.size() >= 2) {
            // rsub(self, other, alpha) = other - alpha * self = sub.Tensor(other, self, alpha)
            VariableTracker self = in.get(0);
            in.set(0, in.get(1));
            in.set(1, self);
        }
        if (tensorOp == null) throw dataDependent(ctx, s, "passing it to " + op.name() + ", which has no Tensor overload");
        Schema schema = tensorOp.schema();
        List<Object> promoted = new ArrayList<>();
        List<Integer> slots = new ArrayList<>();
        Map<Integer, SymScalarVariable> symbolicAt = new java.util.HashMap<>();   // index in promoted -> the symbolic number there
        for (int i = 0; i < in.size(); i++) {
            VariableTracker v = in.get(i);
            boolean tensorSlot = i < schema.params().size() && schema.param(i).type().startsWith("Tensor");
            switch (v) {
                case SymScalarVariable x when !tensorSlot -> throw dataDependent(ctx, x, "passing it as the argument " + i + " of " + op.name());
                case SymScalarVariable x -> {
                    symbolicAt.put(promoted.size(), x);
                    promoted.add(x.isIntegral() ? (Object) 0L : (Object) 0.0);
                    slots.add(i);
                }
                case ConstantVariable c when tensorSlot && c.value() instanceof Number n -> {
                    promoted.add(n instanceof Double || n instanceof Float ? (Object) n.doubleValue() : (Object) n.longValue());
                    slots.add(i);
                }
                case TensorVariable t when tensorSlot -> promoted.add(t.fake());
                default -> { }
            }
        }
        DType compute = TypePromotion.resultType(promoted.toArray());
        // the 0-d tensors as they are promote to the same dtype (a float tensor times an int): the op converts them, no cast node needed
        List<Object> asTensors = new ArrayList<>(promoted);
        symbolicAt.forEach((k, x) -> asTensors.set(k, x.tensor().fake()));
        // (ints only: a double operand of a float32 op is rounded to float32 first in eager, which the cast keeps)
        boolean castFree = symbolicAt.values().stream().allMatch(SymScalarVariable::isIntegral) && TypePromotion.resultType(asTensors.toArray()) == compute;
        for (int i : slots) {
            VariableTracker v = in.get(i);
            in.set(i, v instanceof SymScalarVariable x ? (castFree ? x.tensor() : cast(ctx, x.tensor(), compute)) : constant(ctx, ((ConstantVariable) v).value(), compute));
        }
        VariableTracker result = OpCalls.call(ctx, tensorOp, in);
        return result instanceof TensorVariable t ? scalarCompute(t) : result;
    }

    /** add and sub of two tensors, whose {@code alpha} a symbolic number may be. */
    private static final java.util.Set<OpOverload> ALPHA_OPS = java.util.Set.of(
            PointwiseOps.ADD_TENSOR, PointwiseOps.SUB_TENSOR, PointwiseOps.ADD__TENSOR, PointwiseOps.SUB__TENSOR);

    /**
     * {@code add(self, other, alpha=s)} (or sub, or in place) with a symbolic {@code s} and two
     * tensors, so that a learning rate in {@code p.add_(g, -lr)} stays a graph input instead of a
     * constant that recompiles on each new value. In a floating dtype:
     * {@code _add_scaled_by(self, other, ±s)} with s rounded to that dtype, which computes what the
     * eager kernel does ({@code fma(alpha, other, self)}, one rounding; a multiply then an add
     * rounds twice, and left a compiled optimizer step an ulp from eager's, grown by a sensitive
     * training loop into a visible difference: fuzz seed 973788). In an integer dtype (exact either
     * way): {@code add(self, mul(other, s))}. Null when the call is not of that form, or when eager
     * would refuse it (a floating alpha of integer tensors): then the caller goes on as before.
     */
    private static VariableTracker scaledByAlpha(TraceContext ctx, OpOverload op, List<VariableTracker> args) {
        if (!ALPHA_OPS.contains(op) || args.size() != 3 || !(args.get(2) instanceof SymScalarVariable alpha)) return null;
        if (!(args.get(0) instanceof TensorVariable self) || !(args.get(1) instanceof TensorVariable other)) return null;
        DType compute = TypePromotion.resultType(self.fake(), other.fake());
        if (compute == DType.BOOL || (!compute.isFloatingPoint() && !alpha.isIntegral())) return null;
        if (compute.isFloatingPoint()) {
            VariableTracker scale = cast(ctx, alpha.tensor(), compute);
            boolean sub = op == PointwiseOps.SUB_TENSOR || op == PointwiseOps.SUB__TENSOR;
            if (sub) scale = OpCalls.call(ctx, PointwiseOps.NEG, List.of(scale));
            boolean inPlace = op == PointwiseOps.ADD__TENSOR || op == PointwiseOps.SUB__TENSOR;
            return OpCalls.call(ctx, inPlace ? PointwiseOps.ADD_SCALED_BY_ : PointwiseOps.ADD_SCALED_BY, List.of(self, other, scale));
        }
        VariableTracker widened = other.fake().dtype() == compute ? other : OpCalls.call(ctx, ShapeOps.TO_COPY, List.of(other, ConstantVariable.of(compute)));
        VariableTracker scaled = OpCalls.call(ctx, PointwiseOps.MUL_TENSOR, List.of(widened, cast(ctx, alpha.tensor(), compute)));
        return OpCalls.call(ctx, op, List.of(self, scaled));
    }

    /**
     * {@code t}, its node marked as computing a Java number ({@link OutputGraph#SCALAR_COMPUTE}): an
     * {@code item()} or arithmetic on one, which the graph drops if nothing uses it, as Dynamo drops
     * unused symbolic-number nodes.
     */
    private static TensorVariable scalarCompute(TensorVariable t) {
        t.node().meta().put(OutputGraph.SCALAR_COMPUTE, true);
        return t;
    }

    /** The overload taking a tensor where {@code op} takes a Scalar, or null where there is none. */
    private static OpOverload tensorOverload(OpOverload op) {
        if (op == PointwiseOps.RSUB_SCALAR) return PointwiseOps.SUB_TENSOR;
        if (op == PointwiseOps.CLAMP) return PointwiseOps.CLAMP_TENSOR;
        if (op == PointwiseOps.CLAMP_) return PointwiseOps.CLAMP__TENSOR;
        String overload = op.schema().overload();
        if (overload.equals("Scalar")) return OpRegistry.sibling(op, "Tensor").orElse(null);
        if (overload.equals("Scalar_mode")) return OpRegistry.sibling(op, "Tensor_mode").orElse(null);
        return null;
    }

    private static TensorVariable operand(TraceContext ctx, VariableTracker v, SymScalarVariable s) {
        if (v instanceof SymScalarVariable x) return typed(ctx, x);
        if (v instanceof ConstantVariable c && c.value() instanceof Number n) return constant(ctx, n, SymScalarVariable.dtypeOf(s.javaType()));
        throw dataDependent(ctx, s, "combining it with " + v.describe());
    }

    /** A Java number as a 0-d constant tensor of {@code dtype} (a get_attr of the graph). */
    private static TensorVariable constant(TraceContext ctx, Object value, DType dtype) {
        Tensor t = value instanceof Long || value instanceof Integer
                ? Tensor.scalar(((Number) value).longValue()).to(dtype)
                : Tensor.full(dtype, ((Number) value).doubleValue());
        return scalarCompute(new TensorVariable(ctx.graph.constantTensor(t, ctx.currentLocation()), FakeTensor.like(t), null));
    }

    private static TensorVariable cast(TraceContext ctx, TensorVariable t, DType dtype) {
        if (t.fake().dtype() == dtype) return t;
        return scalarCompute((TensorVariable) OpCalls.call(ctx, ShapeOps.TO_COPY, List.of(t, ConstantVariable.of(dtype))));
    }

    private static TensorVariable call(TraceContext ctx, OpOverload op, TensorVariable... args) {
        List<VariableTracker> in = new ArrayList<>(List.of(args));
        if (op == PointwiseOps.DIV_TENSOR_MODE) in.add(ConstantVariable.of("trunc"));
        return scalarCompute((TensorVariable) OpCalls.call(ctx, op, in));
    }
}
