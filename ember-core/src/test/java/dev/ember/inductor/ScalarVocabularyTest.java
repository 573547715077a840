package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.CompileMode;
import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.ScalarMath;
import dev.ember.kernels.UnaryOp;
import dev.ember.kernels.VectorMath;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scalar-op vocabulary ({@link UnaryOp}, {@link BinaryOp}) has each formula written once, in
 * {@link ScalarMath} and {@link VectorMath}, for the eager kernels and the generated code alike:
 * so compiled elementwise functions equal eager's bit for bit, special values included, in the
 * vector body and the tail.
 */
class ScalarVocabularyTest {

    /** Special values first (−0.0, NaN, ±Inf, ±1, tiny, huge), then random ones; 37 elements: vector bodies and a tail. */
    private static Tensor specials(DType d) {
        List<Double> xs = new ArrayList<>(List.of(-0.0, 0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                1.0, -1.0, 1e-30, -1e-30, 88.0, -88.0, 100.0, -100.0, 0.5, -0.5, 3.0, -7.25));
        SplittableRandom r = new SplittableRandom(7);
        while (xs.size() < 37) xs.add(r.nextDouble(-6, 6));
        double[] v = xs.stream().mapToDouble(Double::doubleValue).toArray();
        return Tensor.of(v).to(d);
    }

    private static final String[] UNARY = {"relu", "rsqrt", "sigmoid", "silu", "exp", "log", "log1p", "sin", "cos", "tanh",
            "sqrt", "abs", "neg", "asinh", "acosh", "atanh"};

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void compiledUnaryFunctionsEqualEagerBitForBit(DType d) {
        for (String op : UNARY) assertBitwiseEqual(op, unaryGraph(op + ".default"), specials(d));
        for (String approximate : new String[] {"none", "tanh"}) {
            Graph g = new Graph();
            Node x = g.placeholder("x", null);
            g.output(g.callFunction(dev.ember.ops.OpRegistry.get("aten.gelu.default"), List.of(x), java.util.Map.of("approximate", approximate)));
            assertBitwiseEqual("gelu " + approximate, new GraphModule(g), specials(d));
        }
    }

    @Test
    void reluKeepsNegativeZeroAndNaNInCompiledCodeAsEagerDoes() {
        // Math.max(-0.0, 0) is 0.0: the inductor's old relu; ATen's x < 0 ? 0 : x keeps −0.0
        Tensor x = Tensor.of(new float[] {-0.0f, Float.NaN, -1f, 2f});
        Tensor y = compile(unaryGraph("relu.default"), x).run(new Object[] {x}) instanceof Tensor t ? t : null;
        assertNotNull(y);
        float[] got = y.toFloatArray();
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(got[0]), "relu(-0.0)");
        assertTrue(Float.isNaN(got[1]), "relu(NaN)");
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void compiledPowFollowsCAsEagerDoes(DType d) {
        // C's pow(1, NaN) = 1 and pow(-1, ±inf) = 1; Java's Math.pow gives NaN for both
        int n = 19;
        double[] base = new double[n], exponent = new double[n];
        Arrays.fill(base, 1.0);
        Arrays.fill(exponent, Double.NaN);
        base[1] = -1;
        exponent[1] = Double.POSITIVE_INFINITY;
        base[2] = -1;
        exponent[2] = Double.NEGATIVE_INFINITY;
        for (int i = 3; i < n; i++) { base[i] = 0.25 * i; exponent[i] = 1.5 - 0.2 * i; }
        Graph g = new Graph();
        Node a = g.placeholder("a", null), b = g.placeholder("b", null);
        g.output(call(g, "pow.Tensor_Tensor", a, b));
        GraphModule gm = new GraphModule(g);
        Tensor ta = Tensor.of(base).to(d), tb = Tensor.of(exponent).to(d);
        Tensor got = (Tensor) compile(gm, ta, tb).run(new Object[] {ta, tb}), want = (Tensor) gm.run(new Object[] {ta, tb});
        double[] x = got.to(DType.FLOAT64).toDoubleArray(), y = want.to(DType.FLOAT64).toDoubleArray();
        for (int i = 0; i < 3; i++) {
            assertEquals(1.0, y[i], "eager pow(" + base[i] + ", " + exponent[i] + ")");
            assertEquals(1.0, x[i], "compiled pow(" + base[i] + ", " + exponent[i] + ")");
        }
        for (int i = 3; i < n; i++) assertEquals(y[i], x[i], Math.ulp(y[i]) * 2, "pow at " + i);
    }

    @Test
    void everyFormulaHasItsScalarMethodsAndEveryHandleItsOp() throws ReflectiveOperationException {
        for (UnaryOp op : UnaryOp.values()) {
            if (op.formula() == null || op == UnaryOp.POW) continue;   // POW's scalar exponent is the eager kernel's parameter
            for (Class<?> t : new Class<?>[] {float.class, double.class}) {
                Method m = ScalarMath.class.getMethod(op.formula(), t);
                assertEquals(t, m.getReturnType(), op + " on " + t);
            }
        }
        for (BinaryOp op : BinaryOp.values()) {
            if (op.formula() == null) continue;
            for (Class<?> t : new Class<?>[] {float.class, double.class}) {
                Method m = ScalarMath.class.getMethod(op.formula(), t, t);
                assertEquals(t, m.getReturnType(), op + " on " + t);
            }
        }
        for (Field f : VectorMath.class.getFields()) {
            if (f.getType() != MethodHandle.class || !Modifier.isStatic(f.getModifiers())) continue;
            String name = f.getName(), opName = name.substring(0, name.length() - "_F32".length());
            String formula = Arrays.stream(UnaryOp.values()).filter(o -> o.name().equals(opName)).map(UnaryOp::formula).findFirst()
                    .orElseGet(() -> BinaryOp.valueOf(opName).formula());
            assertNotNull(formula, name + " names an op without a formula");
            MethodHandle h = (MethodHandle) f.get(null);
            assertTrue(h.type().parameterCount() >= 1, name);
            assertEquals(name, VectorMath.handleField(op(opName), name.endsWith("_F32")));
        }
    }

    private static Enum<?> op(String name) {
        return Arrays.stream(UnaryOp.values()).anyMatch(o -> o.name().equals(name)) ? UnaryOp.valueOf(name) : BinaryOp.valueOf(name);
    }

    private static GraphModule unaryGraph(String op) {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, op, x));
        return new GraphModule(g);
    }

    private static InductorGraph compile(GraphModule gm, Tensor... examples) {
        return Inductor.compile(gm, List.of(examples), CompileMode.DEFAULT, null);
    }

    /**
     * Compiled equals eager bit for bit for every op. Until session 20 the transcendental ops without
     * a formula of Ember's own ran the Vector API's lanes, an SVML call under C2 and {@link Math}
     * lane by lane before, so the two kernels, each in whatever tier the JIT had it, agreed only to
     * an ulp or two (float64 silu(-2.0837): compiled -0.23065065556233053, eager
     * -0.23065065556233047). Those ops now run {@link Math} per element in both (VectorMath's
     * "the other formulas"), and this allows no ulp.
     */
    private static void assertBitwiseEqual(String what, GraphModule gm, Tensor x) {
        Tensor got = (Tensor) compile(gm, x).run(new Object[] {x}), want = (Tensor) gm.run(new Object[] {x});
        double[] in = x.to(DType.FLOAT64).toDoubleArray();
        if (x.dtype() == DType.FLOAT32) {
            float[] g = got.toFloatArray(), w = want.toFloatArray();
            for (int i = 0; i < g.length; i++) {
                int wb = Float.floatToIntBits(w[i]), gb = Float.floatToIntBits(g[i]);
                if (wb != gb) {
                    assertEquals(wb, gb, what + "(" + in[i] + ") float32 at " + i + ": compiled " + g[i] + ", eager " + w[i]);
                }
            }
        } else {
            double[] g = got.toDoubleArray(), w = want.toDoubleArray();
            for (int i = 0; i < g.length; i++) {
                long wb = Double.doubleToLongBits(w[i]), gb = Double.doubleToLongBits(g[i]);
                if (wb != gb) {
                    assertEquals(wb, gb, what + "(" + in[i] + ") float64 at " + i + ": compiled " + g[i] + ", eager " + w[i]);
                }
            }
        }
    }
}
