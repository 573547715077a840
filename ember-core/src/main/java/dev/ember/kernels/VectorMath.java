package dev.ember.kernels;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Set;

import static jdk.incubator.vector.VectorOperators.COS;
import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.EXP;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NE;
import static jdk.incubator.vector.VectorOperators.SIN;
import static jdk.incubator.vector.VectorOperators.XOR;

/**
 * The per-vector formulas of {@link UnaryOp} and {@link BinaryOp}, named by their {@code formula()}:
 * the eager kernels' SIMD loops call them, and the inductor's generated loops call the same methods
 * through the constant handles below, so a formula is written once (per vector species: float and
 * double lanes each have an overload). An op without a method here for a dtype has no SIMD form
 * for it (float64 GELU needs the accurate scalar erf; pow and float64's functions have no formula of Ember's own)
 * and runs {@link ScalarMath}'s per element, in eager and generated loops alike.
 *
 * <p>float32 exp, sin, cos, tanh, log, log1p and sigmoid are straight-line Vector API code: a range reduction and a
 * Cephes minimax polynomial, inlined into the loop that calls them. The JDK's
 * {@code lanewise(EXP/SIN/COS)} calls an out-of-line SVML stub per vector, and C2 spills every
 * live vector register around each call: in a fused chain (sin, exp, exp) the stubs cost a third
 * more than the same work inlined, and SVML's sin is 1.7x slower than {@link #sin} even alone.
 * Every SIMD formula here equals its scalar twin bit for bit, in every JIT tier; an op with no
 * such pair (pow, float64's functions) has no SIMD form (see "the other formulas" below).
 *
 * <p>Accuracy against float64 {@link Math} over random inputs across the whole float range
 * (VectorMathTest): exp ≤ 1.5 ulp; tanh ≤ 1.5 ulp; log ≤ 1 ulp; log1p ≤ 2.5 ulp; sin, cos ≤ 2 ulp; sigmoid ≤ 3 ulp for x ≥ −87 (below, within 2^-126
 * absolutely: the result is 0 once e^−x overflows at x = −88.7, as ATen's {@code 1 / (1 + exp(−x))}). Eager and
 * compiled code compute the same bits; against libtorch's vector functions (within 1 ulp) results
 * move by an ulp or two, well inside the tolerances checked against libtorch. Special values follow {@link Math}: NaN propagates, sin(−0) = −0,
 * exp(+Inf) = +Inf, exp(−Inf) = 0, exp overflows to +Inf and underflows through subnormals to 0.
 * A vector with a lane outside the fast range (exp beyond ±86, sin/cos beyond ±65536, NaN, ±Inf)
 * takes {@link Math}'s value rounded to float there, as the scalar twin does; the usual vector pays
 * one compare for the check.
 *
 * <p>Vectors must be of {@link FloatVector#SPECIES_PREFERRED}, the species all of Ember's loops use.
 * Constants are broadcast where they are used, not kept in static vector fields: C2 hoists a
 * broadcast of a constant into a register, but must reload a vector field's payload after every
 * array store in the loop (it may alias), which made exp a third slower.
 */
public final class VectorMath {
    private VectorMath() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> SD = DoubleVector.SPECIES_PREFERRED;
    /** As many floats as {@link #SD} has lanes: one load of them widens to one double vector. */
    private static final VectorSpecies<Float> S_NARROW = VectorSpecies.of(float.class, jdk.incubator.vector.VectorShape.forBitSize(SD.length() * Float.SIZE));

    // ---------------------------------------------------------------- float32 read as float64

    /** {@code a[i, i + SD.length())} as doubles (exact): a float32 row summed in float64 on lanes. */
    public static DoubleVector widen(float[] a, int i) {
        return (DoubleVector) FloatVector.fromArray(S_NARROW, a, i).convertShape(VectorOperators.F2D, SD, 0);
    }

    /** The same for the lanes of {@code m} only (zeros elsewhere): a row's tail. */
    public static DoubleVector widen(float[] a, int i, VectorMask<Double> m) {
        return (DoubleVector) FloatVector.fromArray(S_NARROW, a, i, m.cast(S_NARROW)).convertShape(VectorOperators.F2D, SD, 0);
    }

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
        VectorMask<Float> fast = x.abs().compare(LE, EXP_FAST_LIMIT);
        FloatVector t = x.fma(FloatVector.broadcast(S, LOG2E), FloatVector.broadcast(S, ROUNDER));
        FloatVector p = expOfRemainder(x, t);
        // t's bits are ROUNDER's plus n; shifted by 23, ROUNDER's bits fall off and n lands in the exponent field.
        FloatVector y = p.reinterpretAsInts().add(t.reinterpretAsInts().lanewise(LSHL, 23)).reinterpretAsFloats();
        // lane by lane: a lane's value never depends on its neighbours (reliability.md class 14)
        return fast.allTrue() ? y : mathLanes(y, x, fast, EXP);
    }

    /**
     * e^r for x = n·ln2 + r, {@code t} being x·log2(e) rounded by {@code ROUNDER} (n in its low
     * bits): r ∈ [−ln2/2, ln2/2], e^r ≈ 1 + r + r²·P(r) (Cephes expf). Shared by {@link #exp} and
     * {@link #expNonPositive}, which scale it by 2^n each their own way.
     */
    private static FloatVector expOfRemainder(FloatVector x, FloatVector t) {
        FloatVector n = t.sub(FloatVector.broadcast(S, ROUNDER));
        FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), x);
        r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
        return FloatVector.broadcast(S, 1.9875691500e-4f)
                .fma(r, FloatVector.broadcast(S, 1.3981999507e-3f))
                .fma(r, FloatVector.broadcast(S, 8.3334519073e-3f))
                .fma(r, FloatVector.broadcast(S, 4.1665795894e-2f))
                .fma(r, FloatVector.broadcast(S, 1.6666665459e-1f))
                .fma(r, FloatVector.broadcast(S, 5.0000001201e-1f))
                .fma(r.mul(r), r)
                .add(FloatVector.broadcast(S, 1f));
    }

    /**
     * e^x for lanes that are ≤ 0, −Inf or NaN (a softmax's {@code s − max} once the max is finite):
     * {@link #exp(FloatVector)}'s value, bit for bit, down to −86, 0 below (where e^x is under
     * 2^-124) and NaN for NaN, with no check of the range and no call for −Inf lanes. 2^n scales
     * by a multiply, not by adding to the exponent bits, so every NaN stays NaN.
     */
    public static FloatVector expNonPositive(FloatVector x) {
        VectorMask<Float> under = x.compare(LT, -EXP_FAST_LIMIT);
        x = x.blend(-EXP_FAST_LIMIT, under);
        FloatVector t = x.fma(FloatVector.broadcast(S, LOG2E), FloatVector.broadcast(S, ROUNDER));
        FloatVector p = expOfRemainder(x, t);
        FloatVector twoToN = t.reinterpretAsInts().lanewise(LSHL, 23).add(0x3f800000).reinterpretAsFloats();
        return p.mul(twoToN).blend(0f, under);
    }

    /**
     * {@link #exp(FloatVector)}'s value for one lane, operation for operation: the scalar loops of
     * eager and generated kernels compute with it, so a value a vector loop and a scalar loop both
     * compute (the inductor recomputes fused values in several kernels) rounds the same in both.
     */
    public static float exp(float x) {
        if (!(Math.abs(x) <= EXP_FAST_LIMIT)) return (float) Math.exp(x);   // Math's value (NaN too), as the vector's out-of-range lanes
        float t = Math.fma(x, LOG2E, ROUNDER);
        float n = t - ROUNDER;
        float r = Math.fma(n, -LN2_HI, x);
        r = Math.fma(n, -LN2_LO, r);
        float p = Math.fma(1.9875691500e-4f, r, 1.3981999507e-3f);
        p = Math.fma(p, r, 8.3334519073e-3f);
        p = Math.fma(p, r, 4.1665795894e-2f);
        p = Math.fma(p, r, 1.6666665459e-1f);
        p = Math.fma(p, r, 5.0000001201e-1f);
        p = Math.fma(p, r * r, r) + 1f;
        return Float.intBitsToFloat(Float.floatToRawIntBits(p) + (Float.floatToRawIntBits(t) << 23));
    }

    /**
     * e^x lane by lane with {@link Math#exp}, exactly {@link ScalarMath#exp(double)}: float64 has no
     * polynomial of Ember's own (see "the other formulas" below), and this is no pointwise op's SIMD
     * form; it serves kernels that need double lanes of exps (attention) with tier-independent values.
     */
    public static DoubleVector exp(DoubleVector x) {
        double[] lanes = x.toArray();
        for (int i = 0; i < lanes.length; i++) lanes[i] = Math.exp(lanes[i]);
        return DoubleVector.fromArray(SD, lanes, 0);
    }

    /** The float64 twin of {@link #expNonPositive(FloatVector)}: {@link #exp(DoubleVector)}. */
    public static DoubleVector expNonPositive(DoubleVector x) { return exp(x); }

    /** {@link #sigmoid(FloatVector)}'s value for one lane. */
    public static float sigmoid(float x) { return 1f / (1f + exp(-x)); }

    /** {@link #silu(FloatVector)}'s value for one lane. */
    public static float silu(float x) { return x / (1f + exp(-x)); }

    // ---------------------------------------------------------------- sigmoid

    /** 1 / (1 + e^−x) with {@link #exp}, ≤ 3 ulp for x ≥ −87; below, within 2^-126 (0 once e^−x overflows). */
    public static FloatVector sigmoid(FloatVector x) {
        FloatVector e;
        try {
            e = (FloatVector) EXP_F32.invokeExact(x.neg());   // through the handle: see EXP_F32
        } catch (Throwable t) {
            throw new AssertionError(t);   // exp throws nothing
        }
        FloatVector one = FloatVector.broadcast(S, 1f);
        return one.div(one.add(e));
    }

    // ---------------------------------------------------------------- sin, cos

    /** Beyond this the three-part Cody–Waite reduction loses bits; such lanes take {@link Math}'s result. */
    static final float TRIG_FAST_LIMIT = 65536f;
    private static final float TWO_OVER_PI = 0.636619772367581343f;
    /** π/2 = PIO2_1 + PIO2_2 + PIO2_3 to about 2^-72. */
    private static final float PIO2_1 = 1.5707963705062866f, PIO2_2 = -4.371139000186241e-8f, PIO2_3 = -1.7151245100059206e-15f;

    /** sin x, ≤ 2 ulp; lanes beyond ±{@value #TRIG_FAST_LIMIT}, NaN and ±Inf from {@link Math#sin}. */
    public static FloatVector sin(FloatVector x) {
        // sin(−0) = −0, which r + r³·S cannot give: the two zeros it adds have opposite signs.
        return sinCos(x, 0).blend(x, x.compare(EQ, 0f));
    }

    /** cos x, ≤ 2 ulp; lanes beyond ±{@value #TRIG_FAST_LIMIT}, NaN and ±Inf from {@link Math#cos}. */
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
        return fast.allTrue() ? y : mathLanes(y, x, fast, quarterTurns == 0 ? SIN : COS);
    }

    /** {@link #sin(FloatVector)}'s value for one lane. */
    public static float sin(float x) { return x == 0 ? x : sinCos(x, 0); }

    /** {@link #cos(FloatVector)}'s value for one lane. */
    public static float cos(float x) { return sinCos(x, 1); }

    /** {@link #sinCos(FloatVector, int)} for one lane, operation for operation. */
    private static float sinCos(float x, int quarterTurns) {
        if (!(Math.abs(x) <= TRIG_FAST_LIMIT)) return (float) (quarterTurns == 0 ? Math.sin(x) : Math.cos(x));
        float t = Math.fma(x, TWO_OVER_PI, ROUNDER);
        float j = t - ROUNDER;
        int quadrant = Float.floatToRawIntBits(t) + quarterTurns;
        float r = Math.fma(j, -PIO2_1, x);
        r = Math.fma(j, -PIO2_2, r);
        r = Math.fma(j, -PIO2_3, r);
        float z = r * r;
        float sinR = Math.fma(r * z, Math.fma(Math.fma(-1.9515295891e-4f, z, 8.3321608736e-3f), z, -1.6666654611e-1f), r);
        float cosR = Math.fma(z * z, Math.fma(Math.fma(2.443315711809948e-5f, z, -1.388731625493765e-3f), z, 4.166664568298827e-2f),
                Math.fma(z, -0.5f, 1f));
        float y = (quadrant & 1) != 0 ? cosR : sinR;
        return Float.intBitsToFloat(Float.floatToRawIntBits(y) ^ ((quadrant & 2) << 30));
    }

    /** {@link #gelu(FloatVector)}'s value for one lane. */
    public static float gelu(float x) {
        float z = x * (float) (1 / Math.sqrt(2)), az = Math.abs(z);
        float t = 1f / Math.fma(0.3275911f, az, 1f);
        float poly = Math.fma(Math.fma(Math.fma(Math.fma(1.061405429f, t, -1.453152027f), t, 1.421413741f), t, -0.284496736f), t, 0.254829592f);
        float tail = poly * t * exp(-(z * z));
        float erfAbs = 1f - tail;
        float erf = z < 0f ? -erfAbs : erfAbs;
        return x * 0.5f * (1f + erf);
    }

    /**
     * {@code y}, with the lanes not in {@code fast} replaced by {@link Math}'s value rounded to float,
     * the scalar twins' fallback: the rare path, kept out of the callers' bytecode budget. Not the
     * Vector API's {@code lanewise(EXP/SIN/COS)}: C2 makes those SVML calls, which round differently
     * from {@link Math} and from the interpreter's lane-by-lane fallback, so such a lane's value
     * would depend on the JIT tier and on whether a vector or a scalar loop computed it.
     */
    private static FloatVector mathLanes(FloatVector y, FloatVector x, VectorMask<Float> fast, VectorOperators.Unary op) {
        float[] lanes = y.toArray(), in = x.toArray();
        for (int i = 0; i < lanes.length; i++) {
            if (fast.laneIsSet(i)) continue;
            double v = in[i];
            lanes[i] = (float) (op == EXP ? Math.exp(v) : op == SIN ? Math.sin(v) : Math.cos(v));
        }
        return FloatVector.fromArray(S, lanes, 0);
    }

    // ---------------------------------------------------------------- tanh

    /** Below this |x|, tanh x ≈ x + x³·P(x²); from it, 1 − 2/(e^{2|x|} + 1) (Cephes tanhf's split). */
    private static final float TANH_SMALL_LIMIT = 0.625f;
    /** tanh of this or more rounds to ±1 in float (1 − 2/(e^19 + 1) is within half an ulp of 1), and e^{2|x|} stays in exp's fast range. */
    private static final float TANH_SATURATED = 9.5f;

    /**
     * tanh x, ≤ 1.5 ulp (1.33 measured): x + x³·P(x²) below |x| = 0.625 (Cephes tanhf's polynomial),
     * above it 1 − 2/(e^{2|x|} + 1) with {@link #exp}, the sign of x restored. NaN propagates,
     * tanh(±0) = ±0, tanh(±Inf) = ±1. The Vector API's {@code lanewise(TANH)} is not used: it is an
     * SVML call once C2 compiles it and {@link Math#tanh} before, two roundings for one op.
     */
    public static FloatVector tanh(FloatVector x) {
        FloatVector ax = x.abs(), one = x.broadcast(1f);
        FloatVector e;
        try {
            e = (FloatVector) EXP_F32.invokeExact(ax.min(TANH_SATURATED).mul(2f));   // Ember's exp, as the scalar twin's: see EXP_F32
        } catch (Throwable thrown) {
            throw new AssertionError(thrown);   // exp throws nothing
        }
        FloatVector large = one.sub(x.broadcast(2f).div(e.add(one)));
        large = large.blend(large.neg(), x.compare(LT, 0f));
        return tanhNearZero(x).blend(large, ax.compare(GE, TANH_SMALL_LIMIT));
    }

    /** x + x³·P(x²), and ±0 for ±0 (the sum would lose zero's sign). */
    private static FloatVector tanhNearZero(FloatVector x) {
        FloatVector z = x.mul(x);
        FloatVector p = x.broadcast(-5.70498872745e-3f).fma(z, x.broadcast(2.06390887954e-2f))
                .fma(z, x.broadcast(-5.37397155531e-2f)).fma(z, x.broadcast(1.33314422036e-1f)).fma(z, x.broadcast(-3.33332819422e-1f));
        return p.mul(z).fma(x, x).blend(x, x.compare(EQ, 0f));
    }

    /** {@link #tanh(FloatVector)}'s value for one lane, operation for operation. */
    public static float tanh(float x) {
        float ax = Math.abs(x);
        if (ax >= TANH_SMALL_LIMIT) {
            float y = 1f - 2f / (exp(Math.min(ax, TANH_SATURATED) * 2f) + 1f);
            return x < 0f ? -y : y;
        }
        if (x == 0f) return x;
        float z = x * x;
        float p = Math.fma(Math.fma(Math.fma(Math.fma(-5.70498872745e-3f, z, 2.06390887954e-2f), z, -5.37397155531e-2f), z, 1.33314422036e-1f), z, -3.33332819422e-1f);
        return Math.fma(p * z, x, x);
    }

    /** √(2/π), GELU's tanh form's scale. */
    private static final float GELU_BETA = (float) Math.sqrt(2 / Math.PI);

    /**
     * GELU's tanh approximation in float, as ATen's vectorized CPU kernel computes it:
     * {@code 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))}, with {@link #tanh(FloatVector)}.
     */
    public static FloatVector geluTanh(FloatVector x) {
        FloatVector cube = x.mul(x).mul(x);
        FloatVector inner = x.broadcast(GELU_BETA).mul(x.add(x.broadcast(0.044715f).mul(cube)));
        FloatVector t;
        try {
            t = (FloatVector) TANH_F32.invokeExact(inner);   // through the handle: see EXP_F32
        } catch (Throwable thrown) {
            throw new AssertionError(thrown);   // tanh throws nothing
        }
        return x.broadcast(0.5f).mul(x).mul(x.broadcast(1f).add(t));
    }

    /** {@link #geluTanh(FloatVector)}'s value for one lane. */
    public static float geluTanh(float x) {
        float cube = x * x * x;
        float inner = GELU_BETA * (x + 0.044715f * cube);
        return 0.5f * x * (1f + tanh(inner));
    }

    // ---------------------------------------------------------------- log, log1p

    private static final float SQRT_HALF = 0.707106781186547524f;
    /** 2^23: scales a subnormal into the normal range, its exponent then 23 lower. */
    private static final float TWO_TO_23 = 8388608f;

    /**
     * ln x, ≤ 1 ulp (0.83 measured): x = m·2^e with m ∈ [√½, √2), ln x = e·ln2 + ln(1 + f) for
     * f = m − 1, ln(1 + f) ≈ f − f²/2 + f³·P(f) (Cephes logf), ln 2 split as {@link #exp}'s. ln 0 =
     * −Inf, ln of a negative or NaN = NaN, ln +Inf = +Inf; subnormals are scaled by 2^23 first.
     */
    public static FloatVector log(FloatVector x) {
        VectorMask<Float> tiny = x.compare(LT, Float.MIN_NORMAL);
        IntVector bits = x.blend(x.mul(TWO_TO_23), tiny).reinterpretAsInts();
        // the biased exponent as a float, less the bias in float (exact): a float mask, no cast to int lanes
        FloatVector e = ((FloatVector) bits.lanewise(LSHR, 23).and(0xff).convert(I2F, 0)).sub(x.broadcast(126f).blend(126f + 23f, tiny));
        FloatVector m = bits.and(0x807fffff).or(0x3f000000).reinterpretAsFloats();
        VectorMask<Float> low = m.compare(LT, SQRT_HALF);
        FloatVector one = x.broadcast(1f);
        FloatVector f = m.sub(one).blend(m.add(m).sub(one), low);
        e = e.blend(e.sub(one), low);
        return logSpecialValues(logOfMantissa(f, e), x);
    }

    /** e·ln2 + ln(1 + f): {@link #log(FloatVector)}'s polynomial. */
    private static FloatVector logOfMantissa(FloatVector f, FloatVector e) {
        FloatVector z = f.mul(f);
        FloatVector p = f.broadcast(7.0376836292e-2f).fma(f, f.broadcast(-1.1514610310e-1f)).fma(f, f.broadcast(1.1676998740e-1f))
                .fma(f, f.broadcast(-1.2420140846e-1f)).fma(f, f.broadcast(1.4249322787e-1f)).fma(f, f.broadcast(-1.6668057665e-1f))
                .fma(f, f.broadcast(2.0000714765e-1f)).fma(f, f.broadcast(-2.4999993993e-1f)).fma(f, f.broadcast(3.3333331174e-1f));
        FloatVector y = p.mul(f).mul(z);
        y = e.fma(f.broadcast(LN2_LO), y);
        y = z.fma(f.broadcast(-0.5f), y);
        return e.fma(f.broadcast(LN2_HI), f.add(y));
    }

    /** ln's value where x is not a positive finite number: −Inf for ±0, NaN below 0 and for NaN, +Inf for +Inf. */
    private static FloatVector logSpecialValues(FloatVector y, FloatVector x) {
        return y.blend(Float.NaN, x.compare(GT, 0f).not()).blend(Float.NEGATIVE_INFINITY, x.compare(EQ, 0f))
                .blend(Float.POSITIVE_INFINITY, x.compare(EQ, Float.POSITIVE_INFINITY));
    }

    /** {@link #log(FloatVector)}'s value for one lane, operation for operation. */
    public static float log(float x) {
        if (!(x > 0f)) return x == 0f ? Float.NEGATIVE_INFINITY : Float.NaN;
        if (x == Float.POSITIVE_INFINITY) return x;
        boolean tiny = x < Float.MIN_NORMAL;
        int bits = Float.floatToRawIntBits(tiny ? x * TWO_TO_23 : x);
        float e = (float) ((bits >>> 23) & 0xff) - (tiny ? 126f + 23f : 126f);
        float m = Float.intBitsToFloat((bits & 0x807fffff) | 0x3f000000);
        boolean low = m < SQRT_HALF;
        float f = low ? m + m - 1f : m - 1f;
        if (low) e = e - 1f;
        float z = f * f;
        float p = Math.fma(7.0376836292e-2f, f, -1.1514610310e-1f);
        p = Math.fma(p, f, 1.1676998740e-1f);
        p = Math.fma(p, f, -1.2420140846e-1f);
        p = Math.fma(p, f, 1.4249322787e-1f);
        p = Math.fma(p, f, -1.6668057665e-1f);
        p = Math.fma(p, f, 2.0000714765e-1f);
        p = Math.fma(p, f, -2.4999993993e-1f);
        p = Math.fma(p, f, 3.3333331174e-1f);
        float y = p * f * z;
        y = Math.fma(e, LN2_LO, y);
        y = Math.fma(z, -0.5f, y);
        return Math.fma(e, LN2_HI, f + y);
    }

    /**
     * ln(1 + x), ≤ 2.5 ulp: ln u · x/(u − 1) for u = 1 + x rounded (the quotient corrects u's
     * rounding; Goldberg's form), x itself where u rounds to 1, +Inf for +Inf.
     */
    public static FloatVector log1p(FloatVector x) {
        FloatVector u = x.add(1f);
        FloatVector lnU;
        try {
            lnU = (FloatVector) LOG_F32.invokeExact(u);   // through the handle: see EXP_F32
        } catch (Throwable thrown) {
            throw new AssertionError(thrown);   // log throws nothing
        }
        return lnU.mul(x.div(u.sub(1f))).blend(x, u.compare(EQ, 1f)).blend(u, u.compare(EQ, Float.POSITIVE_INFINITY));
    }

    /** {@link #log1p(FloatVector)}'s value for one lane. */
    public static float log1p(float x) {
        float u = 1f + x;
        if (u == 1f) return x;
        if (u == Float.POSITIVE_INFINITY) return u;
        return log(u) * (x / (u - 1f));
    }

    // ---------------------------------------------------------------- the other formulas, float and double lanes

    /*
     * No SIMD form here for float32 pow, nor for float64's
     * transcendental functions: the Vector API's lanewise LOG, TANH, POW, EXP… are SVML calls in C2
     * and Math per lane before it, so a lane's value would change with the JIT tier and differ from
     * the scalar loops' Math. A graph that computes such a value twice, a vector loop saving it for
     * the backward and a strided scalar loop fusing it into a clamp, then saw two values of one
     * node, and clamp's gradient went to the bound (seed 290306). These ops run ScalarMath's formula
     * per element in eager and generated loops alike (VectorMathConsistencyTest holds every SIMD
     * formula here to its scalar twin, bit for bit, before and after C2 compiles it).
     */

    public static FloatVector rsqrt(FloatVector x) { return FloatVector.broadcast(S, 1f).div(x.sqrt()); }

    public static DoubleVector rsqrt(DoubleVector x) { return DoubleVector.broadcast(SD, 1).div(x.sqrt()); }

    /** {@code x < 0 ? 0 : x}, so NaN and −0.0 pass through as in ATen (a max with 0 would make −0.0 into 0.0). */
    public static FloatVector relu(FloatVector x) { return x.blend(0f, x.compare(LT, 0f)); }

    public static DoubleVector relu(DoubleVector x) { return x.blend(0, x.compare(LT, 0)); }

    /** {@code x / (1 + e^−x)}, as ATen's silu. */
    public static FloatVector silu(FloatVector x) {
        FloatVector e;
        try {
            e = (FloatVector) EXP_F32.invokeExact(x.neg());   // through the handle: see EXP_F32
        } catch (Throwable t) {
            throw new AssertionError(t);   // exp throws nothing
        }
        return x.div(FloatVector.broadcast(S, 1f).add(e));
    }

    /**
     * {@code x/2 (1 + erf(x/√2))} with ATen's own float erf (Abramowitz–Stegun 7.1.26,
     * |error| &lt; 1.5e-7): {@code erf(z) = sign(z) (1 − t (a1 + t (a2 + …)) e^(−z²))}, {@code t = 1/(1 + p|z|)}.
     * float64 has no SIMD form: its erf must be accurate to double precision ({@link ScalarMath#erf}).
     */
    public static FloatVector gelu(FloatVector x) {
        FloatVector one = x.broadcast(1f), half = x.broadcast(0.5f), rsqrt2 = x.broadcast((float) (1 / Math.sqrt(2))), p = x.broadcast(0.3275911f);
        FloatVector z = x.mul(rsqrt2), az = z.abs();
        FloatVector t = one.div(p.fma(az, one));
        FloatVector poly = x.broadcast(1.061405429f).fma(t, x.broadcast(-1.453152027f)).fma(t, x.broadcast(1.421413741f))
                .fma(t, x.broadcast(-0.284496736f)).fma(t, x.broadcast(0.254829592f));
        FloatVector e;
        try {
            e = (FloatVector) EXP_F32.invokeExact(z.mul(z).neg());   // Ember's exp, as the scalar twin's: see EXP_F32
        } catch (Throwable thrown) {
            throw new AssertionError(thrown);   // exp throws nothing
        }
        FloatVector tail = poly.mul(t).mul(e);
        FloatVector erfAbs = one.sub(tail);
        FloatVector erf = erfAbs.blend(erfAbs.neg(), z.compare(LT, 0f));
        return x.mul(half).mul(one.add(erf));
    }

    // ---------------------------------------------------------------- sums across lanes

    /*
     * The Vector API's reduceLanes(ADD) on floating lanes adds "in an arbitrary order, which may even
     * vary over time" (its Javadoc): the interpreter adds lane 0, 1, 2, … in turn, C2's intrinsic
     * halves the vector. A sum then changed in the last bit once C2 compiled its loop, and eager's
     * batch_norm gave one value on its first call and another from the third (a program that
     * multiplied that rounding gave a visibly different result per process). These sums fix the
     * order: halves, as a tree, the same in every JIT tier. Each step adds the vector to itself with
     * lane i swapped for lane i ^ h (a constant shuffle, one permute), h = length/2, …, 2, 1; every
     * lane then holds the sum, lane 0 is read.
     */
    private static final VectorShuffle<Float> F_SWAP_1 = swap(S, 1), F_SWAP_2 = swap(S, 2), F_SWAP_4 = swap(S, 4), F_SWAP_8 = swap(S, 8);
    private static final VectorShuffle<Double> D_SWAP_1 = swap(SD, 1), D_SWAP_2 = swap(SD, 2), D_SWAP_4 = swap(SD, 4);

    /** Lane i of the result is lane {@code i ^ h} of the input; null when the species has no lane h. */
    private static <E> VectorShuffle<E> swap(VectorSpecies<E> species, int h) {
        return h < species.length() ? VectorShuffle.fromOp(species, i -> i ^ h) : null;
    }

    /** The sum of the lanes, added as a tree of halves in every JIT tier (see above); use it, never {@code reduceLanes(ADD)}. */
    public static float sumLanes(FloatVector v) {
        int n = S.length();
        if (n > 16) return sumLanesWide(v);
        if (n > 8) v = v.add(v.rearrange(F_SWAP_8));
        if (n > 4) v = v.add(v.rearrange(F_SWAP_4));
        if (n > 2) v = v.add(v.rearrange(F_SWAP_2));
        if (n > 1) v = v.add(v.rearrange(F_SWAP_1));
        return v.lane(0);
    }

    /** The sum of the lanes, added as a tree of halves in every JIT tier (see above); use it, never {@code reduceLanes(ADD)}. */
    public static double sumLanes(DoubleVector v) {
        int n = SD.length();
        if (n > 8) return sumLanesWide(v);
        if (n > 4) v = v.add(v.rearrange(D_SWAP_4));
        if (n > 2) v = v.add(v.rearrange(D_SWAP_2));
        if (n > 1) v = v.add(v.rearrange(D_SWAP_1));
        return v.lane(0);
    }

    /** The same tree for vectors wider than x86's (a long SVE vector): the halves folded in an array. */
    private static float sumLanesWide(FloatVector v) { return sumLanes(v.toArray(), v.length()); }

    private static double sumLanesWide(DoubleVector v) { return sumLanes(v.toArray(), v.length()); }

    /**
     * {@code lanes[0, count)} summed in the order {@link #sumLanes(FloatVector)} sums a vector's
     * lanes ({@code count} a power of two, the lane count): what scalar code that computes a SIMD
     * loop's sums lane by lane ends with (a generated kernel's scalar form). Overwrites the array.
     */
    public static float sumLanes(float[] lanes, int count) {
        for (int h = count / 2; h >= 1; h /= 2) for (int i = 0; i < h; i++) lanes[i] += lanes[i + h];
        return lanes[0];
    }

    /** {@link #sumLanes(float[], int)} for double lanes. */
    public static double sumLanes(double[] lanes, int count) {
        for (int h = count / 2; h >= 1; h /= 2) for (int i = 0; i < h; i++) lanes[i] += lanes[i + h];
        return lanes[0];
    }

    // ---------------------------------------------------------------- handles for fused loops

    /**
     * The functions as constant method handles, for generated code that fuses several of them into
     * one loop. C2 gives each compilation a parse budget (NodeCountInliningCutoff) which a loop with
     * two or three of these functions exhausts; a direct call past it is not inlined, and its vector
     * arguments are boxed on the heap, twice as slow as the SVML stubs. A call through a constant
     * handle is inlined late, against the budget of live nodes, which such a loop stays well inside.
     * The call must be written in the loop itself ({@code (FloatVector) EXP_F32.invokeExact(x)}):
     * a helper method around it would be one more direct call under the budget.
     */
    public static final MethodHandle
            EXP_F32 = unary("exp", FloatVector.class),
            SIN_F32 = unary("sin", FloatVector.class),
            COS_F32 = unary("cos", FloatVector.class),
            SIGMOID_F32 = unary("sigmoid", FloatVector.class),
            TANH_F32 = unary("tanh", FloatVector.class),
            LOG_F32 = unary("log", FloatVector.class), LOG1P_F32 = unary("log1p", FloatVector.class),
            RSQRT_F32 = unary("rsqrt", FloatVector.class), RSQRT_F64 = unary("rsqrt", DoubleVector.class),
            RELU_F32 = unary("relu", FloatVector.class), RELU_F64 = unary("relu", DoubleVector.class),
            SILU_F32 = unary("silu", FloatVector.class),
            GELU_F32 = unary("gelu", FloatVector.class),
            GELU_TANH_F32 = unary("geluTanh", FloatVector.class);

    /**
     * The name of the handle field computing {@code op} on lanes of {@code floatLanes ? float : double},
     * or null when the op has no SIMD formula for them. Generated code reads the field itself
     * ({@code GETSTATIC}), so that C2 sees a constant handle.
     */
    public static String handleField(Enum<?> op, boolean floatLanes) {
        String name = op.name() + (floatLanes ? "_F32" : "_F64");
        return HANDLE_FIELDS.contains(name) ? name : null;
    }

    private static final Set<String> HANDLE_FIELDS = handleFields();

    /**
     * The handles whose formula is a polynomial of a few dozen instructions and about ten constants
     * inlined into the caller: a loop fusing two of them runs out of vector registers (the inductor
     * splits such loops). The others are one or two instructions.
     */
    public static boolean inlinesPolynomial(String handleField) {
        return switch (handleField) {
            case "EXP_F32", "SIN_F32", "COS_F32", "TANH_F32", "LOG_F32", "LOG1P_F32", "SIGMOID_F32", "SILU_F32", "GELU_F32", "GELU_TANH_F32" -> true;
            default -> false;
        };
    }

    private static Set<String> handleFields() {
        Set<String> names = new HashSet<>();
        for (Field f : VectorMath.class.getFields()) {
            if (f.getType() == MethodHandle.class && Modifier.isStatic(f.getModifiers())) names.add(f.getName());
        }
        return Set.copyOf(names);
    }

    private static MethodHandle unary(String name, Class<?> lanes) {
        return find(name, MethodType.methodType(lanes, lanes));
    }

    private static MethodHandle binary(String name, Class<?> lanes) {
        return find(name, MethodType.methodType(lanes, lanes, lanes));
    }

    private static MethodHandle find(String name, MethodType type) {
        try {
            return MethodHandles.lookup().findStatic(VectorMath.class, name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
