package dev.ember.inductor.codegen;

import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BytecodeWriterTest {
    private static final ClassLoader LOADER = BytecodeWriterTest.class.getClassLoader();
    private static final JExpr.Local A = new JExpr.Local("a", JType.FLOAT), B = new JExpr.Local("b", JType.FLOAT);

    private static JClass cls(String name, JClass.Method... methods) {
        return new JClass("dev.ember.inductor.codegen", name, "test", List.of(), List.of(methods));
    }

    private static MethodHandle load(JClass c, String method, MethodType type) throws ReflectiveOperationException {
        byte[] bytes = BytecodeWriter.write(c, LOADER);
        assertEquals(List.of(), BytecodeWriter.verify(bytes, LOADER), SourcePrinter.print(c));
        MethodHandles.Lookup l = MethodHandles.lookup().defineHiddenClass(bytes, true);
        return l.findStatic(l.lookupClass(), method, type);
    }

    @Test
    void theVerifierRejectsABadClass() {
        // An int local given a float: the model does not stop it, the verifier must.
        JClass bad = cls("Bad", new JClass.Method(null, false, JType.VOID, "f", List.of(),
                List.of(new JStmt.Declare(new JExpr.Local("x", JType.INT), new JExpr.Lit(1.5f, JType.FLOAT)))));
        assertFalse(BytecodeWriter.verify(BytecodeWriter.write(bad, LOADER), LOADER).isEmpty());
    }

    /** Every comparison, as a value, negated, and as a condition, agrees with Java's (NaN makes all but != false). */
    @Test
    void floatComparisonsFollowJavaIncludingNaN() throws Throwable {
        List<JClass.Method> methods = new ArrayList<>();
        for (JExpr.CmpOp op : JExpr.CmpOp.values()) {
            JExpr cmp = new JExpr.Compare(op, A, B);
            methods.add(new JClass.Method(null, false, JType.BOOLEAN, op + "_value", List.of(A, B), List.of(new JStmt.Return(cmp))));
            methods.add(new JClass.Method(null, false, JType.BOOLEAN, op + "_not", List.of(A, B), List.of(new JStmt.Return(new JExpr.Not(cmp)))));
            methods.add(new JClass.Method(null, false, JType.INT, op + "_cond", List.of(A, B),
                    List.of(new JStmt.Return(new JExpr.Cond(cmp, JavaTypes.intLit(1), JavaTypes.intLit(0))))));
        }
        JClass c = cls("Compare", methods.toArray(JClass.Method[]::new));
        float[] values = {Float.NaN, -1f, 0f, 2f};
        MethodType bool = MethodType.methodType(boolean.class, float.class, float.class), integer = MethodType.methodType(int.class, float.class, float.class);
        for (JExpr.CmpOp op : JExpr.CmpOp.values()) {
            MethodHandle value = load(c, op + "_value", bool), not = load(c, op + "_not", bool), cond = load(c, op + "_cond", integer);
            for (float a : values) {
                for (float b : values) {
                    boolean want = switch (op) {
                        case EQ -> a == b; case NE -> a != b; case LT -> a < b; case LE -> a <= b; case GT -> a > b; case GE -> a >= b;
                    };
                    String where = a + " " + op + " " + b;
                    assertEquals(want, (boolean) value.invokeExact(a, b), where);
                    assertEquals(!want, (boolean) not.invokeExact(a, b), "!(" + where + ")");
                    assertEquals(want ? 1 : 0, (int) cond.invokeExact(a, b), where + " ? 1 : 0");
                }
            }
        }
    }

    /** Kernels may call any static method on vectors (a fast {@code exp} of the Ember kernels, say). */
    public static jdk.incubator.vector.FloatVector twice(jdk.incubator.vector.FloatVector v) { return v.add(v); }

    @Test
    void staticCallsTakeAndReturnVectors() throws Throwable {
        JExpr.Local in = new JExpr.Local("in", JType.FLOAT.array()), out = new JExpr.Local("out", JType.FLOAT.array());
        Code m = new Code();
        JExpr.Local x = m.declare(VectorApi.FLOAT_VECTOR, "x", VectorApi.fromArray(dev.ember.tensor.DType.FLOAT32, in, JavaTypes.intLit(0)));
        JExpr y = Calls.staticCall(JType.imported(BytecodeWriterTest.class.getName()), "twice", VectorApi.FLOAT_VECTOR, x);
        m.eval(VectorApi.intoArray(y, out, JavaTypes.intLit(0)));
        JExpr.GetStatic species = (JExpr.GetStatic) VectorApi.species(dev.ember.tensor.DType.FLOAT32);
        JClass c = new JClass("dev.ember.inductor.codegen", "Vec", "test",
                List.of(new JClass.Field(species.name(), species.type(), VectorApi.preferred(dev.ember.tensor.DType.FLOAT32))),
                List.of(new JClass.Method(null, false, JType.VOID, "f", List.of(in, out), m.statements())));
        String source = SourcePrinter.print(c);
        assertTrue(source.contains("BytecodeWriterTest.twice(x).intoArray(out, 0);") && source.contains("import jdk.incubator.vector.FloatVector;"), source);
        float[] a = new float[64], b = new float[64];
        for (int i = 0; i < a.length; i++) a[i] = i;
        load(c, "f", MethodType.methodType(void.class, float[].class, float[].class)).invokeExact(a, b);
        int lanes = jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.length();
        for (int i = 0; i < lanes; i++) assertEquals(2f * i, b[i]);
    }

    /** A parallel body becomes a lambda capturing exactly the locals it reads from outside. */
    @Test
    void parallelBodiesCaptureWhatTheyRead() throws Throwable {
        JExpr.Local out = new JExpr.Local("out", JType.INT.array()), k = new JExpr.Local("k", JType.INT), unused = new JExpr.Local("unused", JType.LONG);
        JExpr.Local lo = new JExpr.Local("lo", JType.INT), hi = new JExpr.Local("hi", JType.INT), i = new JExpr.Local("i", JType.INT);
        Code body = new Code();
        body.openFor(new JStmt.Declare(i, lo), new JExpr.Compare(JExpr.CmpOp.LT, i, hi), new JStmt.Assign(i, new JExpr.Arith(JExpr.ArithOp.ADD, i, JavaTypes.intLit(1))));
        body.store(out, i, new JExpr.Arith(JExpr.ArithOp.MUL, i, k));
        body.close();
        Code m = new Code();
        m.openParallel(JavaTypes.intLit(100_000), new JExpr.Lit(1L, JType.LONG), lo, hi).append(body).close();
        assertEquals(List.of(out, k), List.copyOf(BytecodeWriter.freeLocals(body.statements(), java.util.Set.of("lo", "hi"))));
        JClass c = cls("Par", new JClass.Method(null, false, JType.VOID, "f", List.of(out, k, unused), m.statements()));
        assertTrue(SourcePrinter.print(c).contains("Parallel.forRange(100000, 1L, (lo, hi) -> {"), SourcePrinter.print(c));
        int[] result = new int[100_000];
        load(c, "f", MethodType.methodType(void.class, int[].class, int.class, long.class)).invokeExact(result, 3, 0L);
        for (int x = 0; x < result.length; x++) assertEquals(3 * x, result[x]);
    }
}
