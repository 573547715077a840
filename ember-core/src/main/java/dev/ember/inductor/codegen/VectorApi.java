package dev.ember.inductor.codegen;

import dev.ember.tensor.DType;

import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;

/**
 * The Vector API ({@code jdk.incubator.vector}) as generated code calls it: one vector type per
 * floating dtype, its species field ({@code F} or {@code D} in the generated class), and the
 * exact descriptors of the methods used (most take a {@code Vector<E>}, not the concrete type).
 */
public final class VectorApi {
    private VectorApi() {}

    /** Whether the Vector API module is present at run time (generated code may then use it). */
    public static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    private static final String PKG = "jdk.incubator.vector.";
    static final JType FLOAT_VECTOR = JType.imported(PKG + "FloatVector");
    static final JType DOUBLE_VECTOR = JType.imported(PKG + "DoubleVector");
    static final JType OPERATORS = JType.imported(PKG + "VectorOperators");
    static final JType SPECIES = JType.imported(PKG + "VectorSpecies");
    static final JType MASK = JType.imported(PKG + "VectorMask");
    private static final ClassDesc VECTOR = ClassDesc.of(PKG + "Vector");
    private static final JType UNARY = JType.imported(PKG + "VectorOperators$Unary");
    private static final JType BINARY = JType.imported(PKG + "VectorOperators$Binary");
    private static final JType ASSOCIATIVE = JType.imported(PKG + "VectorOperators$Associative");
    private static final JType COMPARISON = JType.imported(PKG + "VectorOperators$Comparison");

    /** The generated class's species field for this dtype. */
    static JExpr species(DType d) {
        return new JExpr.GetStatic(null, d == DType.FLOAT32 ? "F" : "D", new JType(SPECIES.desc(), d == DType.FLOAT32 ? "VectorSpecies<Float>" : "VectorSpecies<Double>"));
    }

    /** {@code FloatVector.SPECIES_PREFERRED} (or Double's): the species field's value. */
    static JExpr preferred(DType d) { return new JExpr.GetStatic(JavaTypes.vector(d), "SPECIES_PREFERRED", species(d).type()); }

    static JExpr broadcast(DType d, JExpr scalar) {
        JType v = JavaTypes.vector(d);
        return Calls.call(JExpr.CallKind.STATIC, v, null, "broadcast", MethodTypeDesc.of(v.desc(), SPECIES.desc(), JavaTypes.scalar(d).desc()),
                species(d), JavaTypes.convert(scalar, JavaTypes.scalar(d)));
    }

    static JExpr fromArray(DType d, JExpr array, JExpr index) {
        JType v = JavaTypes.vector(d);
        return Calls.call(JExpr.CallKind.STATIC, v, null, "fromArray", MethodTypeDesc.of(v.desc(), SPECIES.desc(), array.type().desc(), index.type().desc()),
                species(d), array, index);
    }

    /** {@code VectorMath.widen(array, index)}: float32 elements as a vector of float64 lanes. */
    static JExpr widen(JExpr floats, JExpr index) {
        return Calls.staticCall(Calls.VECTOR_MATH, "widen", DOUBLE_VECTOR, floats, index);
    }

    /** {@code VectorMath.widen(array, index, mask)}: the same for the mask's lanes, zeros elsewhere. */
    static JExpr widen(JExpr floats, JExpr index, JExpr mask) {
        return Calls.staticCall(Calls.VECTOR_MATH, "widen", DOUBLE_VECTOR, floats, index, mask);
    }

    /** {@code VectorMask<Float>} (or Double's): the type of a tail's mask local. */
    static JType maskType(DType d) { return new JType(MASK.desc(), d == DType.FLOAT32 ? "VectorMask<Float>" : "VectorMask<Double>"); }

    /** {@code F.indexInRange(i, n)}: the lanes {@code i + lane < n}, a tail shorter than a vector. */
    static JExpr indexInRange(DType d, JExpr i, JExpr n) {
        return Calls.call(JExpr.CallKind.INTERFACE, SPECIES, species(d), "indexInRange", MethodTypeDesc.of(MASK.desc(), JType.INT.desc(), JType.INT.desc()), i, n);
    }

    /** {@code FloatVector.fromArray(F, array, index, mask)}: the mask's lanes, zeros elsewhere. */
    static JExpr fromArray(DType d, JExpr array, JExpr index, JExpr mask) {
        JType v = JavaTypes.vector(d);
        return Calls.call(JExpr.CallKind.STATIC, v, null, "fromArray",
                MethodTypeDesc.of(v.desc(), SPECIES.desc(), array.type().desc(), index.type().desc(), MASK.desc()), species(d), array, index, mask);
    }

    /** {@code v.intoArray(array, index, mask)}: stores the mask's lanes only. */
    static JExpr intoArray(JExpr v, JExpr array, JExpr index, JExpr mask) {
        return Calls.call(JExpr.CallKind.VIRTUAL, v.type(), v, "intoArray",
                MethodTypeDesc.of(JType.VOID.desc(), array.type().desc(), index.type().desc(), MASK.desc()), array, index, mask);
    }

    /** {@code acc.lanewise(VectorOperators.OP, x, mask)} for an associative {@code OP} (ADD, MAX, MIN): {@code acc}'s lanes kept where the mask is unset. */
    static JExpr fold(String op, JExpr acc, JExpr x, JExpr mask) {
        return Calls.call(JExpr.CallKind.VIRTUAL, acc.type(), acc, "lanewise", MethodTypeDesc.of(acc.type().desc(), BINARY.desc(), VECTOR, MASK.desc()),
                operator(op, ASSOCIATIVE), x, mask);
    }

    static JExpr intoArray(JExpr v, JExpr array, JExpr index) {
        return Calls.virtualCall(v, "intoArray", JType.VOID, array, index);
    }

    /** {@code a.name(b)} for {@code add, sub, mul, div, max, min}. */
    static JExpr binary(String name, JExpr a, JExpr b) {
        return Calls.call(JExpr.CallKind.VIRTUAL, a.type(), a, name, MethodTypeDesc.of(a.type().desc(), VECTOR), b);
    }

    /** {@code a.fma(b, c)}: {@code a * b + c} in each lane, rounded once. */
    static JExpr fma(JExpr a, JExpr b, JExpr c) {
        return Calls.call(JExpr.CallKind.VIRTUAL, a.type(), a, "fma", MethodTypeDesc.of(a.type().desc(), VECTOR, VECTOR), b, c);
    }

    /** {@code a.name()} for {@code neg, abs, sqrt}. */
    static JExpr unary(String name, JExpr a) { return Calls.virtualCall(a, name, a.type()); }

    /** {@code x.max(0)}: the scalar overload. */
    static JExpr maxScalar(JExpr x, JExpr scalar) { return Calls.virtualCall(x, "max", x.type(), scalar); }

    /** {@code x.lanewise(VectorOperators.OP)}. */
    static JExpr lanewise(String op, JExpr x) {
        return Calls.call(JExpr.CallKind.VIRTUAL, x.type(), x, "lanewise", MethodTypeDesc.of(x.type().desc(), UNARY.desc()), operator(op, UNARY));
    }

    /** {@code x.lanewise(VectorOperators.OP, y)}. */
    static JExpr lanewise(String op, JExpr x, JExpr y) {
        return Calls.call(JExpr.CallKind.VIRTUAL, x.type(), x, "lanewise", MethodTypeDesc.of(x.type().desc(), BINARY.desc(), VECTOR),
                operator(op, BINARY), y);
    }

    /** {@code a.compare(VectorOperators.OP, b)}: a mask. */
    static JExpr compare(String op, JExpr a, JExpr b) {
        return Calls.call(JExpr.CallKind.VIRTUAL, a.type(), a, "compare", MethodTypeDesc.of(MASK.desc(), COMPARISON.desc(), VECTOR),
                operator(op, COMPARISON), b);
    }

    /** {@code a.blend(b, mask)}: lanes of {@code b} where the mask is set. */
    static JExpr blend(JExpr a, JExpr b, JExpr mask) {
        return Calls.call(JExpr.CallKind.VIRTUAL, a.type(), a, "blend", MethodTypeDesc.of(a.type().desc(), VECTOR, MASK.desc()), b, mask);
    }

    /**
     * The lanes of {@code v} reduced to one scalar: {@code v.reduceLanes(VectorOperators.OP)} for MAX and
     * MIN, {@code VectorMath.sumLanes(v)} for ADD, whose order of additions is the same in every JIT
     * tier (reduceLanes' order for ADD may change when C2 compiles the kernel).
     */
    static JExpr reduceLanes(String op, JExpr v, DType d) {
        if (op.equals("ADD")) return Calls.staticCall(Calls.VECTOR_MATH, "sumLanes", JavaTypes.scalar(d), v);
        return Calls.call(JExpr.CallKind.VIRTUAL, v.type(), v, "reduceLanes", MethodTypeDesc.of(JavaTypes.scalar(d).desc(), ASSOCIATIVE.desc()),
                operator(op, ASSOCIATIVE));
    }

    /** {@code F.length()}: lanes per vector. */
    static JExpr length(DType d) {
        return Calls.call(JExpr.CallKind.INTERFACE, SPECIES, species(d), "length", MethodTypeDesc.of(JType.INT.desc()));
    }

    /** {@code F.loopBound(n)}: the largest multiple of the lane count not above {@code n}. */
    static JExpr loopBound(DType d, JExpr n) {
        return Calls.call(JExpr.CallKind.INTERFACE, SPECIES, species(d), "loopBound", MethodTypeDesc.of(JType.INT.desc(), JType.INT.desc()), n);
    }

    private static JExpr operator(String name, JType type) { return new JExpr.GetStatic(OPERATORS, name, type); }
}
