package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-place samplers uniform_, normal_, exponential_, cauchy_, geometric_, log_normal_ and
 * bernoulli_: each distribution's moments (or, for Cauchy, its quartiles) on a million draws within
 * six standard errors of the exact float64 values, the support's bounds, determinism under a
 * seeded Generator, writes into self (views too) with its version bumped, a zero gradient as
 * ATen's, ATen's refusals word for word with libtorch's, and Ember.compile drawing eager's values.
 */
class InPlaceSamplersTest {
    private static final int N = 1_000_000;

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static Tensor draws(DType dtype, Function<Tensor, Tensor> sampler) {
        Tensor t = Tensor.zeros(dtype, N);
        assertSame(t, sampler.apply(t), "an in-place sampler returns self");
        return t;
    }

    /** The sample mean within six standard errors of {@code mean}, and the sample variance within six of {@code variance}. */
    private static void assertMoments(double[] v, double mean, double variance, double fourthCentralMoment, String what) {
        double m = Arrays.stream(v).average().orElseThrow();
        double s2 = Arrays.stream(v).map(x -> (x - m) * (x - m)).sum() / (v.length - 1);
        double meanError = Math.sqrt(variance / v.length), varianceError = Math.sqrt((fourthCentralMoment - variance * variance) / v.length);
        assertTrue(Math.abs(m - mean) < 6 * meanError, what + ": mean " + m + ", expected " + mean + " ± " + 6 * meanError);
        assertTrue(Math.abs(s2 - variance) < 6 * varianceError, what + ": variance " + s2 + ", expected " + variance + " ± " + 6 * varianceError);
    }

    @Test
    void uniformHasItsMomentsAndBounds() {
        for (DType d : List.of(DType.FLOAT64, DType.FLOAT32)) {
            double[] v = draws(d, t -> t.uniform_(-2, 3, new Generator(1))).toDoubleArray();
            double w = 5;
            assertMoments(v, 0.5, w * w / 12, Math.pow(w, 4) / 80, "uniform_(-2, 3) " + d);
            assertTrue(Arrays.stream(v).allMatch(x -> x >= -2 && x < 3), "uniform_ stays in [from, to) " + d);
            double[] unit = draws(d, t -> t.uniform_(0, 1, new Generator(2))).toDoubleArray();
            assertTrue(Arrays.stream(unit).allMatch(x -> x >= 0 && x < 1), "uniform_(0, 1) stays below 1, rounded to " + d);
        }
        double[] point = draws(DType.FLOAT64, t -> t.uniform_(1.5, 1.5)).toDoubleArray();
        assertTrue(Arrays.stream(point).allMatch(x -> x == 1.5), "an empty range [1.5, 1.5) gives from, as ATen's");
    }

    @Test
    void normalAndLogNormalHaveTheirMoments() {
        for (DType d : List.of(DType.FLOAT64, DType.FLOAT32)) {
            double sigma = 2;
            double[] v = draws(d, t -> t.normal_(1.5, sigma, new Generator(3))).toDoubleArray();
            assertMoments(v, 1.5, sigma * sigma, 3 * Math.pow(sigma, 4), "normal_(1.5, 2) " + d);
            // log-normal: its logarithm is normal(mean, std); and its own mean is exp(μ + σ²/2)
            double mu = 0.5, s = 0.75;
            double[] ln = draws(d, t -> t.logNormal_(mu, s, new Generator(4))).toDoubleArray();
            assertTrue(Arrays.stream(ln).allMatch(x -> x > 0), "log_normal_ is positive " + d);
            assertMoments(Arrays.stream(ln).map(Math::log).toArray(), mu, s * s, 3 * Math.pow(s, 4), "log of log_normal_(0.5, 0.75) " + d);
            double lnMean = Math.exp(mu + s * s / 2), lnVar = (Math.exp(s * s) - 1) * Math.exp(2 * mu + s * s);
            double mean = Arrays.stream(ln).average().orElseThrow();
            assertTrue(Math.abs(mean - lnMean) < 6 * Math.sqrt(lnVar / N), "log_normal_ mean " + mean + " vs " + lnMean);
        }
        double[] constant = draws(DType.FLOAT64, t -> t.normal_(-4, 0)).toDoubleArray();
        assertTrue(Arrays.stream(constant).allMatch(x -> x == -4), "std 0 gives the mean");
    }

    @Test
    void exponentialAndCauchyHaveTheirShapes() {
        for (DType d : List.of(DType.FLOAT64, DType.FLOAT32)) {
            double lambda = 2;
            double[] v = draws(d, t -> t.exponential_(lambda, new Generator(5))).toDoubleArray();
            assertTrue(Arrays.stream(v).allMatch(x -> x >= 0 && Double.isFinite(x)), "exponential_ is in [0, inf) " + d);
            assertMoments(v, 1 / lambda, 1 / (lambda * lambda), 9 / Math.pow(lambda, 4), "exponential_(2) " + d);
            // Cauchy has no moments: its median is `median` and half the draws lie within sigma of it
            double median = 1, sigma = 2;
            double[] c = draws(d, t -> t.cauchy_(median, sigma, new Generator(6))).toDoubleArray();
            double[] sorted = c.clone();
            Arrays.sort(sorted);
            double sampleMedian = sorted[N / 2], medianError = Math.PI * sigma / (2 * Math.sqrt(N));
            assertTrue(Math.abs(sampleMedian - median) < 6 * medianError, "cauchy_ median " + sampleMedian);
            double within = Arrays.stream(c).filter(x -> Math.abs(x - median) <= sigma).count() / (double) N;
            assertTrue(Math.abs(within - 0.5) < 6 * 0.5 / Math.sqrt(N), "cauchy_: a fraction " + within + " within sigma of the median, expected one half");
        }
        double[] zeros = draws(DType.FLOAT64, t -> t.exponential_(Double.POSITIVE_INFINITY)).toDoubleArray();
        assertTrue(Arrays.stream(zeros).allMatch(x -> x == 0), "rate inf gives zeros, as libtorch's");
    }

    @Test
    void geometricAndBernoulliCountAsTheyShould() {
        double p = 0.3;
        for (DType d : List.of(DType.FLOAT64, DType.FLOAT32, DType.INT64, DType.INT32)) {
            double[] v = draws(d, t -> t.geometric_(p, new Generator(7))).toDoubleArray();
            assertTrue(Arrays.stream(v).allMatch(x -> x >= 1 && x == Math.rint(x)), "geometric_ counts trials: 1, 2, … " + d);
            double var = (1 - p) / (p * p);
            double fourth = (1 - p) * (p * p - 9 * p + 9) / Math.pow(p, 4);   // the geometric distribution's fourth central moment
            assertMoments(v, 1 / p, var, fourth, "geometric_(0.3) " + d);
            double[] b = draws(d, t -> t.bernoulli_(p, new Generator(8))).toDoubleArray();
            assertTrue(Arrays.stream(b).allMatch(x -> x == 0 || x == 1), "bernoulli_ gives 0 or 1 " + d);
            assertMoments(b, p, p * (1 - p), p * (1 - p) * (1 - 3 * p + 3 * p * p), "bernoulli_(0.3) " + d);
        }
        Tensor bools = Tensor.zeros(DType.BOOL, N).bernoulli_(0.25, new Generator(9));
        double share = bools.toDoubleArray().length == 0 ? 0 : Arrays.stream(bools.toDoubleArray()).average().orElseThrow();
        assertTrue(Math.abs(share - 0.25) < 6 * Math.sqrt(0.25 * 0.75 / N), "bernoulli_ on bools " + share);
    }

    @Test
    void aSeededGeneratorRepeatsItsDraws() {
        List<Function<Generator, Tensor>> samplers = List.of(
                g -> Tensor.zeros(DType.FLOAT32, 5, 7).uniform_(-1, 1, g), g -> Tensor.zeros(DType.FLOAT64, 5, 7).normal_(0, 1, g),
                g -> Tensor.zeros(DType.FLOAT32, 5, 7).exponential_(1.5, g), g -> Tensor.zeros(DType.FLOAT64, 5, 7).cauchy_(0, 1, g),
                g -> Tensor.zeros(DType.INT64, 5, 7).geometric_(0.2, g), g -> Tensor.zeros(DType.FLOAT32, 5, 7).logNormal_(1, 0.5, g),
                g -> Tensor.zeros(DType.FLOAT64, 5, 7).bernoulli_(0.5, g));
        for (Function<Generator, Tensor> sampler : samplers) {
            Tensor a = sampler.apply(new Generator(42)), b = sampler.apply(new Generator(42)), c = sampler.apply(new Generator(43));
            assertArrayEquals(a.toDoubleArray(), b.toDoubleArray(), "the same seed, the same draws");
            assertFalse(Arrays.equals(a.toDoubleArray(), c.toDoubleArray()), "another seed, other draws");
            Generator g = new Generator(42);
            Tensor first = sampler.apply(g), second = sampler.apply(g);
            assertFalse(Arrays.equals(first.toDoubleArray(), second.toDoubleArray()), "a generator moves on from call to call");
        }
        Tensor.manualSeed(5);
        Tensor x = Tensor.zeros(4).normal_(0, 1);
        Tensor.manualSeed(5);
        assertArrayEquals(x.toDoubleArray(), Tensor.zeros(4).normal_(0, 1).toDoubleArray(), "the global generator reseeded repeats too");
    }

    @Test
    void samplersWriteIntoSelfAndItsViews() {
        Tensor base = Tensor.zeros(4, 6);
        int version = base.version();
        Tensor column = base.narrow(1, 2, 1);
        column.uniform_(5, 6, new Generator(1));
        assertTrue(base.version() > version, "the write bumps the version autograd checks");
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 6; c++) {
                double v = base.get(r, c);
                if (c == 2) assertTrue(v >= 5 && v < 6, "the view's elements are drawn");
                else assertEquals(0.0, v, "the other elements stay");
            }
        }
        Tensor t = Tensor.zeros(3, 5).t();
        t.normal_(0, 1, new Generator(2));
        assertArrayEquals(new int[] {5, 3}, t.shape());
        assertArrayEquals(new int[] {1, 5}, t.strides(), "a transposed tensor keeps its strides");
        Tensor empty = Tensor.zeros(0, 3).exponential_(1);
        assertArrayEquals(new int[] {0, 3}, empty.shape());
    }

    @Test
    void theGradientThroughASamplerIsZero() {
        Tensor leaf = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor y = leaf.mul(2.0);
        y.uniform_(0, 1).mul(leaf).sum().backward();
        // ATen: uniform_'s derivative is zeros_like(grad), so leaf gets only the product's own term, d(u·leaf)/d leaf = u (and 0 through y)
        assertClose(leaf.grad(), y.detach(), "the drawn values, nothing through the sampler");
        Tensor leaf2 = Tensor.randn(3).to(DType.FLOAT64).requiresGrad(true);
        RuntimeException e = assertThrows(RuntimeException.class, () -> leaf2.normal_(0, 1));
        assertTrue(e.getMessage().contains("leaf"), e.getMessage());
    }

    /** docs/tensors.md's example: each line draws within its distribution's support, in the tensor's own dtype. */
    @Test
    void docsExampleDrawsWhereItSays() {
        Generator g = new Generator(7);
        Tensor w = Tensor.empty(256, 128).uniform_(-0.1, 0.1, g);
        assertTrue(Arrays.stream(w.toDoubleArray()).allMatch(x -> x >= -0.1f && x < 0.1f));
        Tensor e = Tensor.empty(1000).exponential_(2.0, g);
        assertTrue(Arrays.stream(e.toDoubleArray()).allMatch(x -> x >= 0));
        Tensor k = Tensor.empty(DType.INT64, 1000).geometric_(0.3, g);
        assertEquals(DType.INT64, k.dtype());
        assertTrue(Arrays.stream(k.toDoubleArray()).allMatch(x -> x >= 1));
        Tensor l = Tensor.empty(1000).logNormal_(1, 0.5, g);
        assertTrue(Arrays.stream(l.toDoubleArray()).allMatch(x -> x > 0));
        Tensor m = Tensor.empty(DType.BOOL, 1000).bernoulli_(0.25, g);
        assertEquals(DType.BOOL, m.dtype());
    }

    /** Ember refuses with {@code words}, and libtorch refuses {@code torchExpr} with the same words. */
    private static void sameRefusal(String words, Executable ember, String torchExpr, Tensor a) {
        Throwable torch = assertThrows(RuntimeException.class, () -> Torch.call(torchExpr, a), torchExpr);
        assertTrue(Torch.refusalText(torch).contains(words), "libtorch: " + Torch.refusalText(torch));
        Throwable e = assertThrows(IllegalArgumentException.class, ember, words);
        assertTrue(e.getMessage().contains(words), "Ember: " + e.getMessage());
    }

    @Test
    void samplersRefuseAsAten() {
        Tensor f = Tensor.zeros(3), l = Tensor.zeros(DType.INT64, 3), i = Tensor.zeros(DType.INT32, 3), b = Tensor.zeros(DType.BOOL, 3);
        sameRefusal("uniform_ expects to return a [from, to) range, but found from=2 > to=1", () -> f.uniform_(2, 1), "a.uniform_(2.0, 1.0)", f);
        sameRefusal("\"check_uniform_bounds\" not implemented for 'Long'", () -> l.uniform_(0, 1), "a.uniform_(0.0, 1.0)", l);
        sameRefusal("uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3.4e+38 and from=-3.4e+38 which result in to-from to exceed the limit",
                () -> f.uniform_(-3.4e38, 3.4e38), "a.uniform_(-3.4e38, 3.4e38)", f);
        sameRefusal("normal expects std >= 0.0, but found std -1.5", () -> f.normal_(0, -1.5), "a.normal_(0.0, -1.5)", f);
        sameRefusal("\"normal_kernel_cpu\" not implemented for 'Int'", () -> i.normal_(0, 1), "a.normal_(0.0, 1.0)", i);
        sameRefusal("exponential_ expects lambda > 0.0, but found lambda=0", () -> f.exponential_(0), "a.exponential_(0.0)", f);
        sameRefusal("Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified Long",
                () -> l.exponential_(1), "a.exponential_(1.0)", l);
        sameRefusal("cauchy_ expects sigma > 0.0, but found sigma=-1", () -> f.cauchy_(0, -1), "a.cauchy_(0.0, -1.0)", f);
        sameRefusal("Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified int",
                () -> i.cauchy_(0, 1), "a.cauchy_(0.0, 1.0)", i);
        sameRefusal("geometric_ expects p to be in (0, 1), but got p=1.5", () -> f.geometric_(1.5), "a.geometric_(1.5)", f);
        sameRefusal("geometric_ expects p to be in (0, 1), but got p=0", () -> l.geometric_(0), "a.geometric_(0.0)", l);
        sameRefusal("\"geometric_cpu\" not implemented for 'Bool'", () -> b.geometric_(0.5), "a.geometric_(0.5)", b);
        sameRefusal("log_normal_ expects std > 0.0, but found std=0", () -> f.logNormal_(1, 0), "a.log_normal_(1.0, 0.0)", f);
        sameRefusal("\"log_normal_cpu\" not implemented for 'Long'", () -> l.logNormal_(1, 2), "a.log_normal_(1.0, 2.0)", l);
        sameRefusal("bernoulli_ expects p to be in [0, 1], but got p=1.5", () -> f.bernoulli_(1.5), "a.bernoulli_(1.5)", f);
        sameRefusal("bernoulli_ expects p to be in [0, 1], but got p=-0.25", () -> b.bernoulli_(-0.25), "a.bernoulli_(-0.25)", b);
    }

    static Tensor sampled(Tensor x) {
        Tensor y = x.mul(2.0);
        y.uniform_(-1, 1);
        Tensor z = x.add(1.0).normal_(3, 0.5).add(x.clone().exponential_(2)).add(x.clone().cauchy_(0, 1));
        return y.add(z).add(x.clone().logNormal_(0, 0.25)).add(x.clone().geometric_(0.4)).add(x.clone().bernoulli_(0.5));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledSamplersDrawEagersValues(String backend) {
        Tensor x = Tensor.randn(3, 4);
        Fn1<Tensor, Tensor> f = Ember.compile(InPlaceSamplersTest::sampled, Options.backend(backend).fullgraph(true));
        Tensor.manualSeed(21);
        Tensor compiled = f.apply(x);
        Tensor.manualSeed(21);
        assertClose(compiled, sampled(x), backend + ": the generator's stream draw for draw");
    }
}
