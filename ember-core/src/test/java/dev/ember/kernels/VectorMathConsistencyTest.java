package dev.ember.kernels;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every SIMD formula in {@link VectorMath} (each handle the inductor's generated loops call, and
 * the eager SIMD loops call directly) equals its {@link ScalarMath} twin bit for bit, on the first
 * calls and after C2 has compiled it. The inductor computes one node in a vector loop and again in
 * a strided scalar loop of the same kernel, or in the backward's kernels; the eager kernels pick
 * the vector or the scalar loop by layout. Two values for one node broke clamp's gradient (seed
 * 290306: the Vector API's tanh, an SVML call once compiled, against {@link Math#tanh}).
 *
 * <p>New handles are found by reflection, so a formula added without its twin fails here.
 */
class VectorMathConsistencyTest {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    /** Enough passes over the inputs for C2 to compile the formula (about 10,000 calls) and run it a while. */
    private static final int WARM_PASSES = 40;

    @TestFactory
    List<DynamicTest> everySimdFormulaEqualsItsScalarTwinInEveryTier() throws ReflectiveOperationException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Field f : VectorMath.class.getFields()) {
            if (f.getType() != MethodHandle.class || !Modifier.isStatic(f.getModifiers())) continue;
            MethodHandle vector = (MethodHandle) f.get(null);
            tests.add(DynamicTest.dynamicTest(f.getName(), () -> check(f.getName(), vector)));
        }
        assertFalse(tests.isEmpty(), "VectorMath has no handles");
        return tests;
    }

    private static void check(String field, MethodHandle vector) throws Throwable {
        boolean floats = field.endsWith("_F32");
        String name = formulaName(field);
        int arity = vector.type().parameterCount();
        Class<?> lane = floats ? float.class : double.class;
        MethodHandle scalar = MethodHandles.lookup().findStatic(ScalarMath.class, name,
                arity == 1 ? MethodType.methodType(lane, lane) : MethodType.methodType(lane, lane, lane));
        double[] xs = inputs(1), ys = inputs(2);
        String first = mismatch(field, vector, scalar, floats, arity, xs, ys);
        if (first != null) fail("before C2: " + first);
        String last = null;
        for (int pass = 0; pass < WARM_PASSES; pass++) last = mismatch(field, vector, scalar, floats, arity, xs, ys);
        if (last != null) fail("after warming up (C2): " + last);
    }

    /**
     * The first element where the vector formula and the scalar one differ in their bits, or null.
     * float lanes are compared widened to double: widening keeps every float's bits apart (−0 from
     * 0), and both {@code ToLongBits} and {@code ToIntBits} fold every NaN into one.
     */
    private static String mismatch(String field, MethodHandle vector, MethodHandle scalar, boolean floats, int arity, double[] xs, double[] ys) throws Throwable {
        int lanes = floats ? F.length() : D.length();
        double[] a = new double[lanes], b = new double[lanes], got = new double[lanes], want = new double[lanes];
        for (int i = 0; i + lanes <= xs.length; i += lanes) {
            if (floats) {
                float[] fa = new float[lanes], fb = new float[lanes];
                for (int l = 0; l < lanes; l++) { fa[l] = (float) xs[i + l]; fb[l] = (float) ys[i + l]; a[l] = fa[l]; b[l] = fb[l]; }
                FloatVector va = FloatVector.fromArray(F, fa, 0);
                float[] out = (arity == 1 ? (FloatVector) vector.invokeExact(va) : (FloatVector) vector.invokeExact(va, FloatVector.fromArray(F, fb, 0))).toArray();
                for (int l = 0; l < lanes; l++) {
                    got[l] = out[l];
                    want[l] = arity == 1 ? (float) scalar.invokeExact(fa[l]) : (float) scalar.invokeExact(fa[l], fb[l]);
                }
            } else {
                System.arraycopy(xs, i, a, 0, lanes);
                System.arraycopy(ys, i, b, 0, lanes);
                DoubleVector va = DoubleVector.fromArray(D, a, 0);
                double[] out = (arity == 1 ? (DoubleVector) vector.invokeExact(va) : (DoubleVector) vector.invokeExact(va, DoubleVector.fromArray(D, b, 0))).toArray();
                for (int l = 0; l < lanes; l++) {
                    got[l] = out[l];
                    want[l] = arity == 1 ? (double) scalar.invokeExact(a[l]) : (double) scalar.invokeExact(a[l], b[l]);
                }
            }
            for (int l = 0; l < lanes; l++) {
                if (Double.doubleToLongBits(got[l]) != Double.doubleToLongBits(want[l])) {
                    return field + "(" + a[l] + (arity == 2 ? ", " + b[l] : "") + "): vector " + got[l] + ", scalar " + want[l];
                }
            }
        }
        return null;
    }

    /** {@code GELU_TANH_F32} → {@code geluTanh}. */
    private static String formulaName(String field) {
        String[] words = field.substring(0, field.length() - 4).toLowerCase().split("_");
        StringBuilder name = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) name.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
        return name.toString();
    }

    /**
     * Normal values of the usual sizes, values across the whole exponent range, the edges of the
     * formulas' fast ranges (exp's ±86, sin and cos's ±65536), and the special values.
     */
    private static double[] inputs(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] specials = {0.0, -0.0, 1, -1, 0.5, -0.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                86, -86, 86.5, -86.5, 88.7, -88.7, -95, -103, 1e-40, -1e-40, 65536, -65536, 65537, -65537, 1e6, -1e6, 1e30, -1e30, 3.4e38, -3.4e38};
        double[] xs = new double[65536];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = switch (i % 4) {
                case 0 -> r.nextGaussian() * 4;
                case 1 -> Math.abs(r.nextGaussian() * 4);   // log's domain
                case 2 -> (r.nextBoolean() ? 1 : -1) * Math.pow(10, r.nextDouble(-40, 38));
                default -> specials[r.nextInt(specials.length)];
            };
        }
        return xs;
    }
}
