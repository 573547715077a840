package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shorthands for building graphs by hand and checking compiled results against the interpreter. */
final class Graphs {
    private Graphs() {}

    static Node call(Graph g, String op, Object... args) { return g.callFunction(OpRegistry.get("aten." + op), args); }

    /** The kernels in a generated class's source: its {@code kernelN} methods (a kernel's scalar form, {@code kernelN_scalar}, is the same kernel). */
    static int kernels(String source) { return (int) java.util.regex.Pattern.compile("static void kernel\\d+\\(").matcher(source).results().count(); }

    /** A generated class's source without its kernels' scalar forms ({@code kernelN_scalar}, which repeat their kernel's host calls). */
    static String simdForms(String source) {
        return source.replaceAll("(?s)\\n    /\\*\\*[^\\n]*\\*/\\n    static void kernel\\d+_scalar\\(.*?\\n    }\\n", "\n");
    }

    /** Compiles {@code gm} (no disk cache), runs it and the interpreter on {@code inputs}, and compares every output. */
    static InductorGraph checkAgainstEager(GraphModule gm, double tol, Object... inputs) {
        List<Tensor> examples = Arrays.stream(inputs).filter(x -> x instanceof Tensor).map(x -> (Tensor) x).toList();
        InductorGraph compiled = Inductor.compile(gm, examples, CompileMode.DEFAULT, null);
        Object got = compiled.run(inputs);
        Object want = gm.run(inputs);
        assertSame(want, got, tol, "output");
        return compiled;
    }

    static void assertSame(Object want, Object got, double tol, String where) {
        if (want instanceof List<?> w) {
            List<?> g = (List<?>) got;
            assertEquals(w.size(), g.size(), where + ": number of outputs");
            for (int i = 0; i < w.size(); i++) assertSame(w.get(i), g.get(i), tol, where + "[" + i + "]");
            return;
        }
        Tensor a = (Tensor) got, b = (Tensor) want;
        assertArrayEquals(b.shape(), a.shape(), where + ": shape");
        assertEquals(b.dtype(), a.dtype(), where + ": dtype");
        double[] x = a.to(DType.FLOAT64).toDoubleArray(), y = b.to(DType.FLOAT64).toDoubleArray();
        for (int i = 0; i < x.length; i++) {
            boolean ok = Double.isNaN(y[i]) ? Double.isNaN(x[i]) : y[i] == x[i] || Math.abs(x[i] - y[i]) <= tol * (1 + Math.abs(y[i]));
            assertTrue(ok, where + ": element " + i + " is " + x[i] + ", eager gives " + y[i]);
        }
    }
}
