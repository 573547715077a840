package dev.ember.kernels;

import dev.ember.testing.ChildJvm;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A floating sum across a vector's lanes adds in one order in every JIT tier. The Vector API's
 * {@code reduceLanes(ADD)} does not promise that (the interpreter adds lane by lane, C2's intrinsic
 * halves the vector): eager's batch_norm changed in the last bit from its third call on, and a
 * fuzzed program that multiplied that rounding by thousands (seed 371588) printed a different eager
 * result in one fresh JVM of five. Every kernel now sums lanes with {@link VectorMath#sumLanes}.
 */
class LaneSumOrderTest {
    private static final VectorSpecies<Float> F32 = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_PREFERRED;

    @Test
    void sumLanesAddsTheHalvesAsATreeBeforeAndAfterC2() {
        SplittableRandom r = new SplittableRandom(371588);
        float[] f = new float[F32.length()];
        double[] d = new double[F64.length()];
        for (int call = 0; call < 50_000; call++) {
            for (int i = 0; i < f.length; i++) f[i] = (float) (r.nextDouble(-1, 1) * Math.scalb(1.0, r.nextInt(-20, 20)));
            for (int i = 0; i < d.length; i++) d[i] = r.nextDouble(-1, 1) * Math.scalb(1.0, r.nextInt(-50, 50));
            float fs = VectorMath.sumLanes(FloatVector.fromArray(F32, f, 0));
            double ds = VectorMath.sumLanes(DoubleVector.fromArray(F64, d, 0));
            if (Float.floatToIntBits(fs) != Float.floatToIntBits(treeSum(f))) {
                throw new AssertionError("call " + call + ": float lanes summed to " + fs + ", the tree of halves gives " + treeSum(f));
            }
            if (Double.doubleToLongBits(ds) != Double.doubleToLongBits(treeSum(d))) {
                throw new AssertionError("call " + call + ": double lanes summed to " + ds + ", the tree of halves gives " + treeSum(d));
            }
        }
        // 2^24 then ones: adding lane by lane never moves off 2^24, the tree of halves reaches 2^24 + 2·(n/2 − 1)
        if (f.length >= 4) {
            java.util.Arrays.fill(f, 1f);
            f[0] = 1 << 24;
            assertEquals((1 << 24) + f.length - 2, VectorMath.sumLanes(FloatVector.fromArray(F32, f, 0)));
        }
    }

    private static float treeSum(float[] lanes) {
        float[] a = lanes.clone();
        for (int h = a.length / 2; h >= 1; h /= 2) for (int i = 0; i < h; i++) a[i] += a[i + h];
        return a[0];
    }

    private static double treeSum(double[] lanes) {
        double[] a = lanes.clone();
        for (int h = a.length / 2; h >= 1; h /= 2) for (int i = 0; i < h; i++) a[i] += a[i + h];
        return a[0];
    }

    private static final Fn1<Tensor, Tensor> ROW_SUMS = Ember.compile((Tensor x) -> x.sum(new int[] {-1}, false));

    /** The reductions the test compares (eager ones and a compiled one), each on inputs of its own from a fixed seed. */
    static Map<String, Tensor> reductions() {
        Generator g = new Generator(371588L);
        Tensor image = Tensor.randn(g, 8, 16, 12, 12), rows = Tensor.randn(g, 64, 300).mul(100.0);
        Tensor q = Tensor.randn(g, 2, 4, 40, 32), k = Tensor.randn(g, 2, 4, 40, 32), v = Tensor.randn(g, 2, 4, 40, 32);
        Map<String, Tensor> out = new LinkedHashMap<>();
        out.put("sum (whole tensor)", rows.sum());
        out.put("sum (last dim)", rows.sum(new int[] {-1}, false));
        out.put("softmax", F.softmax(rows, -1));
        out.put("batch_norm (training)", F.batchNorm(image, null, null, null, null, true, 0.1, 1e-5));
        out.put("scaled_dot_product_attention", F.scaledDotProductAttention(q, k, v));
        out.put("sum (whole tensor, float64)", rows.to(DType.FLOAT64).mul(1e-3).exp().sum());
        out.put("compiled row sums", ROW_SUMS.apply(rowSumsInput()));
        return out;
    }

    /** Rows of 2^24 then ones, which vanish into 2^24 when added lane by lane but not as a tree. */
    private static Tensor rowSumsInput() {
        int n = 8 * F32.length();
        float[] row = new float[n];
        java.util.Arrays.fill(row, 0, F32.length(), 1f);
        row[0] = 1 << 24;
        return Tensor.of(row, 1, n).expand(64, n).contiguous();
    }

    /** Prints each reduction's bits: run by the test in a JVM that only interprets ({@code -Xint}). */
    public static final class InterpretedChild {
        public static void main(String[] args) {
            reductions().forEach((name, t) -> System.out.println(name + " = " + bits(t)));
        }
    }

    /** Every element's bits, hashed: equal results print the same line. */
    static String bits(Tensor t) {
        Tensor c = t.contiguous();
        long h = 1125899906842597L;
        for (double x : c.toDoubleArray()) h = 31 * h + (c.dtype() == DType.FLOAT32 ? Float.floatToIntBits((float) x) : Double.doubleToLongBits(x));
        return c.numel() + " elements, bits " + Long.toHexString(h);
    }

    @Test
    void reductionsGiveTheSameBitsInterpretedAndCompiled() throws Exception {
        // this JVM: every kernel compiled by C2 after a few thousand calls
        Map<String, String> compiled = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) reductions();
        Tensor rows = rowSumsInput();
        for (int i = 0; i < 10_000; i++) ROW_SUMS.apply(rows);
        reductions().forEach((name, t) -> compiled.put(name, bits(t)));
        String interpreted = runInterpreted();
        for (Map.Entry<String, String> e : compiled.entrySet()) {
            String line = e.getKey() + " = " + e.getValue();
            assertTrue(interpreted.contains(line), "interpreted and compiled differ for " + e.getKey() + ":\n  compiled    " + line
                    + "\n  interpreted " + interpreted.lines().filter(l -> l.startsWith(e.getKey() + " =")).findFirst().orElse("(missing)"));
        }
    }

    private static String runInterpreted() throws IOException, InterruptedException {
        ChildJvm.Run r = ChildJvm.main(InterpretedChild.class).flags("-Xint").env("EMBER_CACHE_DIR", ChildJvm.cacheDir("lane-sum-test"))
                .timeoutSeconds(300).run();
        assertEquals(0, r.exit(), r.said());
        return r.said();
    }

    @Test
    void noKernelSumsLanesWithReduceLanesAdd() throws IOException {
        // generated kernels and every hand-written one: MAX and MIN are exact in any order, ADD and MUL are not
        List<String> offenders = new ArrayList<>();
        int read = 0;
        for (String dir : List.of("src/main/java", "src/main/templates")) {
            try (Stream<Path> files = Files.walk(Path.of(dir))) {
                for (Path p : files.filter(Files::isRegularFile).toList()) {
                    String text = Files.readString(p);
                    read++;
                    if (text.matches("(?s).*reduceLanes\\((VectorOperators\\.)?(ADD|MUL)\\b.*") && !p.endsWith("VectorMath.java")) offenders.add(p.toString());
                }
            }
        }
        assertTrue(offenders.isEmpty(), "reduceLanes(ADD/MUL) adds in an order that changes with the JIT tier; use VectorMath.sumLanes: " + offenders);
        assertTrue(read > 100, "read only " + read + " source files");
    }
}
