package dev.ember.ops.eager;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Equal inputs give bit-equal outputs wherever they sit in a tensor: in a kernel's vector body or in
 * its tail (reliability.md class 14). A scalar tail that rounds a transcendental function
 * differently from the vector lanes broke ties, and amax's backward then gave the whole gradient to
 * one element where compiled code split it. Each input repeats a few values along a row whose length
 * is not a multiple of any vector width, in eager mode and compiled by the inductor.
 */
class PositionIndependenceTest {
    private static final int DISTINCT = 5, ROW = 37;

    private static Map<String, Fn1<Tensor, Tensor>> ops() {
        Map<String, Fn1<Tensor, Tensor>> ops = new LinkedHashMap<>();
        ops.put("exp", t -> t.exp());
        ops.put("log", t -> t.abs().add(0.1).log());
        ops.put("log1p", t -> t.abs().log1p());
        ops.put("sin", t -> t.sin());
        ops.put("cos", t -> t.cos());
        ops.put("tanh", t -> t.tanh());
        ops.put("sigmoid", t -> t.sigmoid());
        ops.put("silu", t -> t.silu());
        ops.put("gelu", t -> t.gelu());
        ops.put("gelu tanh", t -> t.gelu("tanh"));
        ops.put("pow 2.5", t -> t.abs().pow(2.5));
        ops.put("softmax", t -> t.softmax(1));
        ops.put("log_softmax", t -> t.logSoftmax(1));
        ops.put("x * sigmoid(x)", t -> t.mul(t.sigmoid()));
        return ops;
    }

    /** {@code [rows, ROW]}: row r repeats DISTINCT random values; column j holds value j % DISTINCT. */
    private static Tensor repeating(DType dtype, long seed, int rows) {
        Random r = new Random(seed);
        double[] data = new double[rows * ROW];
        for (int i = 0; i < rows; i++) {
            double[] values = new double[DISTINCT];
            for (int k = 0; k < DISTINCT; k++) values[k] = r.nextGaussian() * 3;
            for (int j = 0; j < ROW; j++) data[i * ROW + j] = values[j % DISTINCT];
        }
        return Tensor.of(data, rows, ROW).to(dtype);
    }

    private static void assertEqualWhereInputsAre(String what, Tensor out, int rows) {
        double[] y = out.to(DType.FLOAT64).toDoubleArray();
        for (int i = 0; i < rows; i++) {
            for (int j = DISTINCT; j < ROW; j++) {
                double first = y[i * ROW + j % DISTINCT], here = y[i * ROW + j];
                if (Double.compare(first, here) != 0) {
                    fail(what + ": row " + i + " holds equal inputs at columns " + j % DISTINCT + " and " + j
                            + " but gives " + first + " and " + here);
                }
            }
        }
    }

    /** Inputs of one row each (a tensor of 64 rows would be 64·37 elements, a multiple of 8: no tail at all). */
    @Test
    void eagerKernelsGiveEqualInputsEqualOutputs() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (long seed = 0; seed < 200; seed++) {
                Tensor x = repeating(dtype, seed, 1);
                long s = seed;
                ops().forEach((name, op) -> assertEqualWhereInputsAre("eager " + name + " " + dtype + " (seed " + s + ")", op.apply(x), 1));
            }
        }
    }

    @Test
    void compiledKernelsGiveEqualInputsEqualOutputs() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            ops().forEach((name, op) -> {
                var compiled = Ember.compile(op, Options.backend("inductor"));
                for (long seed = 0; seed < 50; seed++) {
                    assertEqualWhereInputsAre("compiled " + name + " " + dtype + " (seed " + seed + ")", compiled.apply(repeating(dtype, seed, 1)), 1);
                }
            });
        }
    }

    /**
     * The fuzzer's program (seed 5403386): {@code a.mul(a.sigmoid()).amax(0)} on five equal rows of
     * two (ten elements: a vector body of eight and a tail of two). Every element ties, so amax's
     * gradient splits five ways, in eager mode as in compiled code.
     */
    @Test
    void amaxOfEqualRowsSplitsTheGradientInEagerAsCompiled() {
        Fn1<Tensor, Tensor> fn = a -> a.mul(a.sigmoid()).amax(0, false);
        var compiled = Ember.compile(fn, Options.backend("inductor"));
        Random r = new Random(5403386);
        for (int trial = 0; trial < 50; trial++) {
            Tensor rows = Tensor.of(new float[] {(float) r.nextGaussian() * 3, (float) r.nextGaussian() * 3}, 1, 2).expand(5, 2).contiguous();
            Tensor eagerIn = rows.requiresGrad(true), compiledIn = rows.detach().requiresGrad(true);
            fn.apply(eagerIn).sum().backward();
            compiled.apply(compiledIn).sum().backward();
            float[] eager = eagerIn.grad().toFloatArray(), comp = compiledIn.grad().toFloatArray();
            for (int i = 0; i < eager.length; i++) {
                assertEquals(eager[i % 2], eager[i], 0, "trial " + trial + ": eager's tie at " + i + " did not split");
                assertEquals(eager[i], comp[i], 1e-6, "trial " + trial + ": gradient at " + i);
            }
        }
    }
}
