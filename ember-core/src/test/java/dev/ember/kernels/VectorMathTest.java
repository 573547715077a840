package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.invoke.MethodHandle;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;

/** VectorMath against float64 {@link Math}: the ulp bounds its documentation states, and the special values. */
class VectorMathTest {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int SAMPLES = 1 << 20;

    /** The error of {@code got} in ulps of the float nearest {@code want}; NaN and infinities must match exactly. */
    private static double ulps(float got, double want) {
        if (Double.isNaN(want)) return Float.isNaN(got) ? 0 : Double.POSITIVE_INFINITY;
        float nearest = (float) want;
        if (Float.isInfinite(nearest) || Float.isNaN(got)) return got == nearest ? 0 : Double.POSITIVE_INFINITY;
        return Math.abs(got - want) / Math.ulp(nearest);
    }

    private static float[] apply(UnaryOperator<FloatVector> f, float[] in) {
        float[] out = new float[in.length];
        for (int i = 0; i < in.length; i += S.length()) f.apply(FloatVector.fromArray(S, in, i)).intoArray(out, i);
        return out;
    }

    private static float[] uniform(long seed, float lo, float hi) {
        Random random = new Random(seed);
        float[] x = new float[SAMPLES];
        for (int i = 0; i < x.length; i++) x[i] = lo + (hi - lo) * random.nextFloat();
        return x;
    }

    /** Every float is equally likely to be drawn by its bit pattern: all magnitudes, subnormals, ±Inf and NaN. */
    private static float[] anyBits(long seed) {
        Random random = new Random(seed);
        float[] x = new float[SAMPLES];
        for (int i = 0; i < x.length; i++) x[i] = Float.intBitsToFloat(random.nextInt());
        return x;
    }

    private static void assertWithin(double maxUlps, UnaryOperator<FloatVector> f, DoubleUnaryOperator exact, float[] in) {
        float[] out = apply(f, in);
        double worst = 0;
        float worstAt = 0;
        for (int i = 0; i < in.length; i++) {
            double e = ulps(out[i], exact.applyAsDouble(in[i]));
            if (!(e <= worst)) {
                worst = e;
                worstAt = in[i];
            }
        }
        float at = worstAt;
        double w = worst;
        assertTrue(worst <= maxUlps, () -> w + " ulp at x = " + at + " (bound " + maxUlps + ")");
    }

    private static double sigmoid(double x) { return 1 / (1 + Math.exp(-x)); }

    @Test
    void expIsWithinOneAndAHalfUlp() {
        assertWithin(1.5, VectorMath::exp, Math::exp, uniform(1, -2, 2));
        assertWithin(1.5, VectorMath::exp, Math::exp, uniform(2, -110, 100));
        assertWithin(1.5, VectorMath::exp, Math::exp, anyBits(3));
    }

    @Test
    void expNonPositiveIsExpBitForBitDownToMinus86AndZeroBelow() {
        float[] in = uniform(12, -86, 0);
        in[0] = -86f;
        in[1] = 0f;
        in[2] = -0f;
        float[] want = apply(VectorMath::exp, in), got = apply(VectorMath::expNonPositive, in);
        for (int i = 0; i < in.length; i++) assertEquals(Float.floatToIntBits(want[i]), Float.floatToIntBits(got[i]), "x " + in[i]);
        float[] below = uniform(13, -1000, -86.0001f);
        below[0] = Float.NEGATIVE_INFINITY;
        below[1] = -Float.MAX_VALUE;
        below[2] = Math.nextDown(-86f);
        float[] zero = apply(VectorMath::expNonPositive, below);
        for (int i = 0; i < below.length; i++) assertEquals(0f, zero[i], "x " + below[i]);
        float[] nans = new float[S.length()];
        int[] payloads = {0x7fc00000, 0xffc00000, 0x7fc00001, 0x7f800001, 0xffc001ff, 0x7fffffff, 0x7f8000ff};
        for (int i = 0; i < nans.length; i++) nans[i] = Float.intBitsToFloat(payloads[i % payloads.length]);
        for (float y : apply(VectorMath::expNonPositive, nans)) assertTrue(Float.isNaN(y), "NaN in, NaN out: " + y);
    }

    @Test
    void sinAndCosAreWithinTwoUlps() {
        for (float range : new float[] {4, 100, 70000}) {
            assertWithin(2, VectorMath::sin, Math::sin, uniform(4, -range, range));
            assertWithin(2, VectorMath::cos, Math::cos, uniform(5, -range, range));
        }
        assertWithin(2, VectorMath::sin, Math::sin, anyBits(6));
        assertWithin(2, VectorMath::cos, Math::cos, anyBits(7));
    }

    @Test
    void tanhIsWithinOneAndAHalfUlp() {
        assertWithin(1.5, VectorMath::tanh, Math::tanh, uniform(14, -1, 1));
        assertWithin(1.5, VectorMath::tanh, Math::tanh, uniform(15, 0.5f, 0.75f));   // both sides of the polynomial's limit, 0.625
        assertWithin(1.5, VectorMath::tanh, Math::tanh, uniform(16, -12, 12));
        assertWithin(1.5, VectorMath::tanh, Math::tanh, anyBits(17));
    }

    @Test
    void logIsWithinOneUlpAndLog1pWithinTwoAndAHalf() {
        assertWithin(1, VectorMath::log, Math::log, uniform(18, 0.5f, 2f));
        assertWithin(1, VectorMath::log, Math::log, uniform(19, 0f, 1e4f));
        assertWithin(1, VectorMath::log, Math::log, anyBits(20));   // subnormals, negatives (NaN), ±0, ±Inf
        assertWithin(2.5, VectorMath::log1p, Math::log1p, uniform(21, -1f, 3f));
        assertWithin(2.5, VectorMath::log1p, Math::log1p, uniform(22, -1e-3f, 1e-3f));
        assertWithin(2.5, VectorMath::log1p, Math::log1p, anyBits(23));
    }

    @Test
    void sigmoidIsWithinThreeUlpsAboveMinus87AndWithinTheSmallestNormalBelow() {
        assertWithin(3, VectorMath::sigmoid, VectorMathTest::sigmoid, uniform(8, -87, 100));
        float[] in = anyBits(9), out = apply(VectorMath::sigmoid, in);
        for (int i = 0; i < in.length; i++) {
            if (in[i] >= -87 || Float.isNaN(in[i])) {
                assertTrue(ulps(out[i], sigmoid(in[i])) <= 3, "x = " + in[i]);
            } else {
                assertTrue(out[i] >= 0 && Math.abs(out[i] - sigmoid(in[i])) <= Float.MIN_NORMAL, "x = " + in[i] + " gave " + out[i]);
            }
        }
    }

    @Test
    void specialValuesFollowMath() {
        float[] x = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 89f, 1e30f, -105f, -1e30f, Float.MIN_VALUE, -Float.MIN_VALUE};
        for (float v : x) {
            FloatVector b = FloatVector.broadcast(S, v);
            assertEquals((float) Math.exp(v), VectorMath.exp(b).lane(0), 0, "exp(" + v + ")");
            assertEquals((float) Math.sin(v), VectorMath.sin(b).lane(0), 0, "sin(" + v + ")");
            assertEquals((float) Math.cos(v), VectorMath.cos(b).lane(0), 0, "cos(" + v + ")");
        }
        // assertEquals(float, float, 0) treats -0 and 0 as equal: the sign of zero is checked by its bits.
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(VectorMath.sin(FloatVector.broadcast(S, -0f)).lane(0)));
        assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(VectorMath.sin(FloatVector.broadcast(S, 0f)).lane(0)));
        assertEquals(1f, VectorMath.sigmoid(FloatVector.broadcast(S, Float.POSITIVE_INFINITY)).lane(0));
        assertEquals(0f, VectorMath.sigmoid(FloatVector.broadcast(S, Float.NEGATIVE_INFINITY)).lane(0));
        assertTrue(Float.isNaN(VectorMath.sigmoid(FloatVector.broadcast(S, Float.NaN)).lane(0)));
        assertEquals(0.5f, VectorMath.sigmoid(FloatVector.broadcast(S, -0f)).lane(0));
        for (float v : x) assertEquals((float) Math.tanh(v), VectorMath.tanh(FloatVector.broadcast(S, v)).lane(0), 0, "tanh(" + v + ")");
        for (float v : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, -1f, -1e-30f, Float.MIN_VALUE, Float.MAX_VALUE, 1f}) {
            assertEquals((float) Math.log(v), VectorMath.log(FloatVector.broadcast(S, v)).lane(0), 0, "log(" + v + ")");
            assertEquals((float) Math.log1p(v), VectorMath.log1p(FloatVector.broadcast(S, v)).lane(0), 0, "log1p(" + v + ")");
        }
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(VectorMath.log1p(FloatVector.broadcast(S, -0f)).lane(0)));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(VectorMath.tanh(FloatVector.broadcast(S, -0f)).lane(0)));
    }

    /** One lane outside the fast range takes Math's value; the other lanes must not change. */
    @Test
    void aLaneOutsideTheFastRangeLeavesTheOthersRight() {
        float[] in = uniform(10, -3, 3);
        in[S.length() / 2] = 1e6f;   // beyond sin/cos's reduction
        in[S.length() + 1] = 95f;    // exp overflows
        in[2 * S.length() + 3] = Float.NaN;
        assertWithin(2, VectorMath::sin, Math::sin, in);
        assertWithin(2, VectorMath::cos, Math::cos, in);
        assertWithin(1.5, VectorMath::exp, Math::exp, in);
    }

    @Test
    void handlesCallTheSameFunctions() throws Throwable {
        float[] in = uniform(11, -20, 20);
        FloatVector x = FloatVector.fromArray(S, in, 0);
        MethodHandle[] handles = {VectorMath.EXP_F32, VectorMath.SIN_F32, VectorMath.COS_F32, VectorMath.TANH_F32, VectorMath.LOG_F32, VectorMath.LOG1P_F32, VectorMath.SIGMOID_F32};
        FloatVector[] direct = {VectorMath.exp(x), VectorMath.sin(x), VectorMath.cos(x), VectorMath.tanh(x), VectorMath.log(x), VectorMath.log1p(x), VectorMath.sigmoid(x)};
        for (int k = 0; k < handles.length; k++) {
            assertArrayEquals(direct[k].toArray(), ((FloatVector) handles[k].invokeExact(x)).toArray(), "handle " + k);   // NaN lanes (log of x < 0) equal too
        }
    }

    /**
     * C2 never inlines a hot method of 325 bytecode bytes or more (FreqInlineSize); a VectorMath
     * function that grows past it silently runs with its vectors boxed on the heap, twice as slow.
     */
    @Test
    void everyMethodIsSmallEnoughForC2ToInline() throws IOException {
        byte[] bytes;
        try (InputStream in = VectorMath.class.getResourceAsStream("VectorMath.class")) {
            bytes = in.readAllBytes();
        }
        ClassModel cls = ClassFile.of().parse(bytes);
        for (MethodModel m : cls.methods()) {
            m.findAttribute(java.lang.classfile.Attributes.code()).ifPresent(code -> {
                int size = ((CodeAttribute) code).codeLength();
                assertTrue(size < 325, m.methodName().stringValue() + " has " + size + " bytecode bytes");
            });
        }
    }

    /**
     * The scalar twins compute each lane's value operation for operation: scalar loops (tails of
     * generated kernels, non-contiguous eager paths) and vector loops round a value the same, so a
     * value the inductor recomputes in two kernels cancels exactly (differential fuzzer, seed 53765:
     * {@code x − max(x)} over one element was not 0, and a branch on its sum flipped). Lanes are
     * mixed with neighbours beyond the fast range, so a lane's value must not depend on them either.
     * Inputs beyond the fast range take {@link Math}'s value on both sides (VectorMathConsistencyTest
     * checks the same after C2 has compiled the formulas).
     */
    @Test
    void scalarTwinsGiveEachLanesValueBitForBit() {
        float[] in = uniform(53765, -120f, 120f);
        Random random = new Random(7);
        for (int i = 0; i < in.length; i += 5) in[i] = random.nextBoolean() ? 1e6f : -1e6f;   // lanes beyond every fast range
        check("exp", VectorMath::exp, VectorMath::exp, in);
        check("sigmoid", VectorMath::sigmoid, VectorMath::sigmoid, in);
        check("silu", VectorMath::silu, VectorMath::silu, in);
        check("gelu", VectorMath::gelu, VectorMath::gelu, in);
        check("sin", VectorMath::sin, VectorMath::sin, in);
        check("cos", VectorMath::cos, VectorMath::cos, in);
        check("tanh", VectorMath::tanh, VectorMath::tanh, in);
        check("log", VectorMath::log, VectorMath::log, in);
        check("log1p", VectorMath::log1p, VectorMath::log1p, in);
        check("geluTanh", VectorMath::geluTanh, VectorMath::geluTanh, in);
        float[] zeros = {0f, -0f, 0f, -0f, 0f, -0f, 0f, -0f, 0f, -0f, 0f, -0f, 0f, -0f, 0f, -0f};
        check("sin at ±0", VectorMath::sin, VectorMath::sin, java.util.Arrays.copyOf(zeros, S.length()));
    }

    private static void check(String name, UnaryOperator<FloatVector> vector, java.util.function.Function<Float, Float> scalar, float[] in) {
        float[] out = apply(vector, java.util.Arrays.copyOf(in, in.length - in.length % S.length()));
        for (int i = 0; i < out.length; i++) {
            float want = out[i], got = scalar.apply(in[i]);
            int at = i;
            assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got), () -> name + "(" + in[at] + "): lane " + want + ", scalar " + got);
        }
    }
}
