package dev.ember.inductor.runtime;

import dev.ember.kernels.ColdStart;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which form of a generated kernel a call runs: its scalar form (plain loops, the same
 * kernel written with vectorization off, its reductions folding lane by lane as the SIMD form
 * does) for its first {@link #SCALAR_CALLS} calls, then its SIMD form (Vector API loops) for good
 * once a call of the SIMD form has run about as fast as the scalar form's fastest call. Until then the
 * SIMD form is tried on every few calls only ({@link #MAX_GAP} scalar calls between two tries at
 * most), so the calls between run a form the JIT has compiled.
 *
 * <p>Why the tries. Switching for good after the scalar calls left every kernel of a graph in its
 * SIMD form while C2 compiled them one by one: C2 took 0.5-1 s for each of the encoder layer's
 * training kernels on this 2-core host, so for about ten seconds its training steps ran the Vector
 * API's fallback and took 90-1,900 ms against 22-29 once compiled (session 37, a probe of 2-second
 * windows). A try that runs slower than the scalar form puts the next one further off (1, 2, 4 …
 * up to {@value #MAX_GAP} scalar calls). The choice follows timing, but never the result: both forms give the same
 * bits (below, and {@code KernelTierTest}).
 *
 * <p>Why. Until C2 has compiled a kernel, every Vector API operation in it runs the API's Java
 * fallback: the bias-and-ReLU epilogue of one 64x2048 product took 79-88 ms on its first call in a
 * fresh JVM and 2-18 ms on each of the next thirty, where the same loop written as scalar code took
 * 5 ms interpreted and 0.3 ms from its second call (docs/benchmarks.md, sessions 21 and 22). So a fresh JVM's first results, and a model's first training step, were spent in
 * the Vector API's fallback.
 *
 * <p>Both forms give the same bits: every SIMD formula equals its scalar twin, and a reduction's
 * scalar form folds each term into the accumulator and lane the SIMD form would, then sums the
 * lanes in {@code VectorMath.sumLanes}'s order (the loop writer's lane emulation).
 *
 * <p>Which kernels. Row kernels (with a reduction) all have both forms. A pointwise kernel has them
 * when its SIMD form calls no polynomial formula of {@code VectorMath} (exp, sin, cos, tanh, log,
 * log1p, sigmoid, silu, gelu): relu, rsqrt and plain arithmetic qualify, the MLP's bias-and-ReLU
 * epilogues among them. The SIMD form calls the formulas through
 * constant method handles, and whether C2 inlines one (87-298 bytes, over the 35 bytes it inlines
 * at any call site) is decided from the profile of the JDK's method-handle code, which the whole
 * process shares. With a scalar form run first, the transcendental chain's SIMD form was compiled
 * without {@code exp} and {@code sin} inlined and stayed at 16-20 ms against 5-9 ms for the rest
 * of the process (JMH, {@code InductorPointwiseBench.trans4M_compiled}); so it did when the SIMD
 * form was tried on every fourth call instead (session 21's design), and with
 * {@code -XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*} one fork in two still stayed at
 * 9.7 against 5.3-5.7 ms (session 23, again: 15-22 ms in two forks of three). Such pointwise
 * kernels keep their one form, and their first calls run it interpreted. Row kernels whose
 * pointwise stages call one (softmax, its backward) showed no such trap (softmax, the encoder's
 * training step: three forks each), and without their scalar forms the encoder's first backward ran
 * exp's SIMD form interpreted (docs/tuning.md).
 *
 * <p>When. The same profile decides for the polynomial kernels that have one form: with tiers on
 * the arithmetic chain's scalar form alone, run before it in the same process, left the
 * transcendental chain at 24-26 ms against 6.4-7.2 (a probe doing what the benchmark's set-up
 * does). With {@link #INLINE_VECTOR_MATH} it ran at 6.2 ms. So tiers are on only in a JVM
 * started with that flag ({@code ./ember}, the tests and the benchmarks pass it; README, "Flags
 * the JVM needs"); without it every call runs the SIMD form, as before tiers.
 *
 * <p>A size-generic graph's kernels have no tier. {@code EMBER_COLD_START=java} turns tiers off
 * (every call runs the SIMD form), as it does for the eager kernels' ({@link ColdStart}).
 */
public final class KernelTier {
    /**
     * Calls that run the scalar form before the SIMD form's first try. A handful: the first result
     * and the first training steps come from code the JIT compiles within a call, and the SIMD
     * form's own warm-up starts soon after.
     */
    public static final int SCALAR_CALLS = 8;

    /** The JVM flag that has C2 inline every {@code VectorMath} function wherever it is called; tiers need it. */
    public static final String INLINE_VECTOR_MATH = "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*";

    private static final boolean ENABLED = ColdStart.enabled() && vectorMathInlined(runtimeArguments());

    /** Whether kernels get tiers in this JVM: started with {@link #INLINE_VECTOR_MATH}, and not {@code EMBER_COLD_START=java}. */
    public static boolean enabled() { return ENABLED; }

    /** Whether these JVM arguments have C2 inline all of VectorMath's functions (the flag, in either of HotSpot's spellings of the pattern). */
    public static boolean vectorMathInlined(List<String> jvmArguments) {
        for (String a : jvmArguments) {
            if (!a.startsWith("-XX:CompileCommand=inline,")) continue;
            String pattern = a.substring("-XX:CompileCommand=inline,".length());
            if (pattern.equals("dev.ember.kernels.VectorMath::*") || pattern.equals("dev/ember/kernels/VectorMath.*")) return true;
        }
        return false;
    }

    /** The JVM's own arguments: from the JDK when its {@code jdk.internal.misc} is exported to Ember, else from the process's command line. */
    private static List<String> runtimeArguments() {
        try {
            Object args = Class.forName("jdk.internal.misc.VM").getMethod("getRuntimeArguments").invoke(null);
            return List.of((String[]) args);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
        }
    }

    /** Every kernel runs this form (true: SIMD, false: scalar), or null for the tiers' own choice: set by tests and the differential fuzzer. */
    private static volatile Boolean forcedForm;

    /** Scalar-form calls of every kernel in this process (tests and diagnostics). */
    private static final AtomicLong SCALAR_CALLS_IN_PROCESS = new AtomicLong();

    /** At most this many scalar calls between two tries of the SIMD form. */
    public static final int MAX_GAP = 16;

    /** Decided: every call runs the SIMD form. */
    private volatile boolean simd = !ENABLED;
    private final AtomicInteger scalarCalls = new AtomicInteger();
    // the deciding state, guarded by this
    private long calls, nextTry = SCALAR_CALLS;
    private int gap = 1, tries;
    private long scalarFastest = Long.MAX_VALUE;

    /** Whether this call runs the SIMD form (else the scalar one). */
    public boolean simd() {
        Boolean forced = forcedForm;
        if (forced != null) return forced;
        if (simd) return true;
        synchronized (this) {
            if (calls++ >= nextTry) return true;
        }
        scalarCalls.incrementAndGet();
        SCALAR_CALLS_IN_PROCESS.incrementAndGet();
        return false;
    }

    /** The clock before a call while the form is being decided ({@link System#nanoTime}), else 0: the call passes it back to {@link #ran}. */
    public long clock() { return simd || forcedForm != null ? 0L : System.nanoTime(); }

    /**
     * A call of the form {@link #simd()} chose has returned; {@code startedAt} is what {@link #clock()}
     * gave before it. A try of the SIMD form within a tenth of the scalar form's fastest call decides
     * for the SIMD form (a compiled SIMD form is several times faster where it matters; forms of
     * equal speed are as good as each other); a slower one puts the next try further off. The tries
     * never stop, so a SIMD form that C2 compiles late is still taken, at the cost of at most one
     * call in {@value #MAX_GAP} + 1 in the slower form meanwhile.
     */
    public void ran(boolean simdForm, long startedAt) {
        if (startedAt == 0L) return;
        long took = System.nanoTime() - startedAt;
        synchronized (this) {
            if (simd) return;
            if (!simdForm) {
                scalarFastest = Math.min(scalarFastest, took);
            } else if (scalarFastest != Long.MAX_VALUE && 10 * took <= 11 * scalarFastest) {
                simd = true;
            } else {
                tries++;
                gap = Math.min(2 * gap, MAX_GAP);
                nextTry = calls + gap;
            }
        }
    }

    /** Calls that ran the scalar form. */
    public int scalarCalls() { return scalarCalls.get(); }

    /** Calls that ran a kernel's scalar form, over every kernel of this process. */
    public static long scalarCallsInProcess() { return SCALAR_CALLS_IN_PROCESS.get(); }

    /**
     * Makes every kernel run its SIMD form ({@code true}) or its scalar form ({@code false}), or
     * (null) lets tiers choose: for tests, and for the differential fuzzer, which judges both forms.
     */
    public static void forceForm(Boolean simd) { forcedForm = simd; }

    @Override
    public synchronized String toString() {
        if (simd) return "simd";
        return "deciding: " + scalarCalls() + " scalar call(s), " + tries + " SIMD tr" + (tries == 1 ? "y" : "ies");
    }
}
