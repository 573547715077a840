package dev.ember.ops.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static jdk.incubator.vector.VectorOperators.COS;
import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.EXP;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.NE;
import static jdk.incubator.vector.VectorOperators.SIN;
import static jdk.incubator.vector.VectorOperators.XOR;

/**
 * float32 exp, sin, cos and sigmoid as straight-line Vector API code: a range reduction and a
 * Cephes minimax polynomial, inlined into the loop that calls them. The JDK's
 * {@code lanewise(EXP/SIN/COS)} calls an out-of-line SVML stub per vector, and C2 spills every
 * live vector register around each call: in a fused chain (sin, exp, exp) the stubs cost a third
 * more than the same work inlined, and SVML's sin is 1.7x slower than {@link #sin} even alone.
 * (tanh and log are not here: SVML's measured faster than a polynomial written this way.)
 *
 * <p>Accuracy against float64 {@link Math} over random inputs across the whole float range
 * (VectorMathTest): exp ≤ 1.5 ulp; sin, cos ≤ 2 ulp; sigmoid ≤ 3 ulp for x ≥ −87 (below, within 2^-126
 * absolutely: the result is 0 once e^−x overflows at x = −88.7, as ATen's {@code 1 / (1 + exp(−x))}). The JDK's stubs are
 * within 1 ulp, so eager and compiled results move by an ulp or two, well inside the tolerances
 * checked against libtorch. Special values follow {@link Math}: NaN propagates, sin(−0) = −0,
 * exp(+Inf) = +Inf, exp(−Inf) = 0, exp overflows to +Inf and underflows through subnormals to 0.
 * A vector with a lane outside the fast range (exp beyond ±86, sin/cos beyond ±65536, NaN, ±Inf)
 * takes the JDK's lanewise result, so such lanes are as exact as before; the usual vector pays one
 * compare for the check.
 *
 * <p>Vectors must be of {@link FloatVector#SPECIES_PREFERRED}, the species all of Ember's loops use.
 * Constants are broadcast where they are used, not kept in static vector fields: C2 hoists a
 * broadcast of a constant into a register, but must reload a vector field's payload after every
 * array store in the loop (it may alias), which made exp a third slower.
 */
public final class VectorMath {
    private VectorMath() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    /** 1.5·2^23: adding it rounds a float of magnitude below 2^22 to an integer, which its low mantissa bits then hold. */
    private static final float ROUNDER = 12582912f;

    // ---------------------------------------------------------------- exp

    private static final float LOG2E = 1.44269504088896341f;
    /** ln 2 split so that n·LN2_HI is exact for every n exp meets. */
    private static final float LN2_HI = 0.693359375f, LN2_LO = -2.12194440e-4f;
    /** Up to here 2^n·p keeps a normal exponent, so the scaling is one integer add. */
    private static final float EXP_FAST_LIMIT = 86f;

    /** e^x, ≤ 1.5 ulp: x = n·ln2 + r, e^r ≈ 1 + r + r²·P(r) on [−ln2/2, ln2/2] (Cephes expf), 2^n added to the exponent. */
    public static FloatVector exp(FloatVector x) {
        if (!x.abs().compare(LE, EXP_FAST_LIMIT).allTrue()) return x.lanewise(EXP);
        FloatVector rounder = FloatVector.broadcast(S, ROUNDER);
        FloatVector t = x.fma(FloatVector.broadcast(S, LOG2E), rounder);
        FloatVector n = t.sub(rounder);
        FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), x);
        r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
        FloatVector p = FloatVector.broadcast(S, 1.9875691500e-4f)
                .fma(r, FloatVector.broadcast(S, 1.3981999507e-3f))
                .fma(r, FloatVector.broadcast(S, 8.3334519073e-3f))
                .fma(r, FloatVector.broadcast(S, 4.1665795894e-2f))
                .fma(r, FloatVector.broadcast(S, 1.6666665459e-1f))
                .fma(r, FloatVector.broadcast(S, 5.0000001201e-1f))
                .fma(r.mul(r), r)
                .add(FloatVector.broadcast(S, 1f));
        // t's bits are ROUNDER's plus n; shifted by 23, ROUNDER's bits fall off and n lands in the exponent field.
        return p.reinterpretAsInts().add(t.reinterpretAsInts().lanewise(LSHL, 23)).reinterpretAsFloats();
    }

    // ---------------------------------------------------------------- sigmoid

    /** 1 / (1 + e^−x) with {@link #exp}, ≤ 3 ulp for x ≥ −87; below, within 2^-126 (0 once e^−x overflows). */
    public static FloatVector sigmoid(FloatVector x) {
        FloatVector e;
        try {
            e = (FloatVector) EXP_HANDLE.invokeExact(x.neg());   // through the handle: see EXP_HANDLE
        } catch (Throwable t) {
            throw new AssertionError(t);   // exp throws nothing
        }
        FloatVector one = FloatVector.broadcast(S, 1f);
        return one.div(one.add(e));
    }

    // ---------------------------------------------------------------- sin, cos

    /** Beyond this the three-part Cody–Waite reduction loses bits; such lanes take the JDK's result. */
    static final float TRIG_FAST_LIMIT = 65536f;
    private static final float TWO_OVER_PI = 0.636619772367581343f;
    /** π/2 = PIO2_1 + PIO2_2 + PIO2_3 to about 2^-72. */
    private static final float PIO2_1 = 1.5707963705062866f, PIO2_2 = -4.371139000186241e-8f, PIO2_3 = -1.7151245100059206e-15f;

    /** sin x, ≤ 2 ulp; lanes beyond ±{@value #TRIG_FAST_LIMIT}, NaN and ±Inf from {@code lanewise(SIN)}. */
    public static FloatVector sin(FloatVector x) {
        // sin(−0) = −0, which r + r³·S cannot give: the two zeros it adds have opposite signs.
        return sinCos(x, 0).blend(x, x.compare(EQ, 0f));
    }

    /** cos x, ≤ 2 ulp; lanes beyond ±{@value #TRIG_FAST_LIMIT}, NaN and ±Inf from {@code lanewise(COS)}. */
    public static FloatVector cos(FloatVector x) { return sinCos(x, 1); }

    /**
     * sin(x + quarterTurns·π/2): x = j·π/2 + r with |r| ≤ π/4; the quadrant (j + quarterTurns) mod 4
     * picks sin r ≈ r + r³·S(r²) or cos r ≈ 1 − r²/2 + r⁴·C(r²) (Cephes sinf/cosf) and the sign.
     * Its bytecode must stay under C2's FreqInlineSize (325 bytes), or it is never inlined.
     */
    private static FloatVector sinCos(FloatVector x, int quarterTurns) {
        VectorMask<Float> fast = x.abs().compare(LE, TRIG_FAST_LIMIT);
        FloatVector rounder = x.broadcast(ROUNDER);
        FloatVector t = x.fma(x.broadcast(TWO_OVER_PI), rounder);
        FloatVector j = t.sub(rounder);
        IntVector quadrant = t.reinterpretAsInts().add(quarterTurns);   // low bits: (j + quarterTurns) mod 4
        FloatVector r = j.fma(x.broadcast(-PIO2_1), x);
        r = j.fma(x.broadcast(-PIO2_2), r);
        r = j.fma(x.broadcast(-PIO2_3), r);
        FloatVector z = r.mul(r);
        FloatVector sinR = r.mul(z).fma(x.broadcast(-1.9515295891e-4f)
                .fma(z, x.broadcast(8.3321608736e-3f))
                .fma(z, x.broadcast(-1.6666654611e-1f)), r);
        FloatVector cosR = z.mul(z).fma(x.broadcast(2.443315711809948e-5f)
                .fma(z, x.broadcast(-1.388731625493765e-3f))
                .fma(z, x.broadcast(4.166664568298827e-2f)),
                z.fma(x.broadcast(-0.5f), x.broadcast(1f)));
        VectorMask<Float> odd = quadrant.and(1).compare(NE, 0).cast(S);
        IntVector flip = quadrant.and(2).lanewise(LSHL, 30);
        FloatVector y = sinR.blend(cosR, odd).reinterpretAsInts().lanewise(XOR, flip).reinterpretAsFloats();
        return fast.allTrue() ? y : jdkLanes(y, x, fast, quarterTurns == 0 ? SIN : COS);
    }

    /** {@code y}, with the lanes not in {@code fast} replaced by the JDK's {@code op}: the rare path, kept out of the callers' bytecode budget. */
    private static FloatVector jdkLanes(FloatVector y, FloatVector x, VectorMask<Float> fast, VectorOperators.Unary op) {
        return y.blend(x.lanewise(op), fast.not());
    }

    // ---------------------------------------------------------------- handles for fused loops

    /**
     * The functions as constant method handles, for generated code that fuses several of them into
     * one loop. C2 gives each compilation a parse budget (NodeCountInliningCutoff) which a loop with
     * two or three of these functions exhausts; a direct call past it is not inlined, and its vector
     * arguments are boxed on the heap, twice as slow as the SVML stubs. A call through a constant
     * handle is inlined late, against the budget of live nodes, which such a loop stays well inside.
     * The call must be written in the loop itself ({@code (FloatVector) EXP_HANDLE.invokeExact(x)}):
     * a helper method around it would be one more direct call under the budget.
     */
    public static final MethodHandle EXP_HANDLE = handle("exp"), SIN_HANDLE = handle("sin"),
            COS_HANDLE = handle("cos"), SIGMOID_HANDLE = handle("sigmoid");

    private static MethodHandle handle(String name) {
        try {
            return MethodHandles.lookup().findStatic(VectorMath.class, name, MethodType.methodType(FloatVector.class, FloatVector.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
