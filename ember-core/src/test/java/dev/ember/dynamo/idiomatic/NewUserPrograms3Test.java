package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.stream.IntStream;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A fourth batch of tensor code as a Java developer new to Ember writes it (NewUserProgramsTest and
 * NewUserPrograms2Test have the first three): bounded generics, records whose compact constructors
 * validate and normalise, sealed operations in a switch with record patterns and guards, stream
 * pipelines, Optional chains, an Iterable of the program's own, a Map&lt;String, Tensor&gt; of state,
 * labelled loops, char and short arithmetic, a StringBuilder message in an exception of the
 * program's own caught inside, enums with a method per constant, interfaces with default methods,
 * inheritance with super calls, varargs, and boxing. Each runs eagerly and compiled (same values,
 * same exceptions), in one graph with no break unless a test says otherwise.
 */
class NewUserPrograms3Test {
    static final Tensor X = Tensor.randn(4, 6);

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- bounded generics ----

    static <T extends Comparable<T>> T largest(List<T> xs) {
        T best = xs.getFirst();
        for (T x : xs) if (x.compareTo(best) > 0) best = x;
        return best;
    }

    static Tensor boundedGenerics(Tensor x) {
        int widest = largest(List.of(x.size(0), x.size(1), 3));
        String last = largest(List.of("rows", "cols", "depth"));
        return x.mul(widest).add(last.length());
    }

    @Test
    void boundedGenericHelper() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::boundedGenerics, X)); }

    // ---- a record whose compact constructor validates and normalises ----

    record Blend(double weight, double bias) {
        Blend {
            if (Double.isNaN(weight)) throw new IllegalArgumentException("weight is NaN");
            weight = Math.min(1.0, Math.max(0.0, weight));   // clamp into [0, 1]
        }

        Tensor apply(Tensor a, Tensor b) { return a.mul(weight).add(b.mul(1 - weight)).add(bias); }
    }

    static Tensor blends(Tensor x) {
        Blend over = new Blend(1.7, 0.5), half = new Blend(0.5, -1);
        return over.apply(x, x.neg()).add(half.apply(x.exp(), x)).mul(over.weight());
    }

    static Tensor blendsNaN(Tensor x) { return new Blend(Double.NaN, 0).apply(x, x); }

    @Test
    void recordCompactConstructorNormalises() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::blends, X));
        assertEquals("weight is NaN", checkThrows((Fn1<Tensor, Tensor>) NewUserPrograms3Test::blendsNaN, X).getMessage());
    }

    // ---- sealed operations, a switch with record patterns and guards ----

    sealed interface Step permits Scale, Shift, Clip, Chain {}

    record Scale(double by) implements Step {}

    record Shift(double by) implements Step {}

    record Clip(double lo, double hi) implements Step {}

    record Chain(Step first, Step second) implements Step {}

    static Tensor run(Step s, Tensor x) {
        return switch (s) {
            case Scale(var by) when by == 0 -> x.mul(0);
            case Scale(var by) -> x.mul(by);
            case Shift(double by) -> x.add(by);
            case Clip(double lo, double hi) when lo > hi -> x.clamp(hi, lo);
            case Clip(double lo, double hi) -> x.clamp(lo, hi);
            case Chain(Step first, Step second) -> run(second, run(first, x));
        };
    }

    static Tensor sealedSteps(Tensor x) {
        List<Step> plan = List.of(new Scale(2), new Chain(new Shift(-0.5), new Clip(1, -1)), new Scale(0), new Clip(-2, 2));
        Tensor out = x;
        for (Step s : plan) out = run(s, out).add(out);
        return out;
    }

    @Test
    void sealedStepsInAPatternSwitch() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::sealedSteps, X)); }

    // ---- a stream pipeline ----

    static Tensor streamOfRows(Tensor x) {
        return IntStream.range(0, x.size(0))
                .filter(i -> i % 2 == 0)
                .mapToObj(i -> x.select(0, i).mul(i + 1))
                .reduce(Tensor.zeros(x.size(1)), Tensor::add);
    }

    @Test
    void streamPipelineOverRows() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::streamOfRows, X)); }

    // ---- Optional chains over a map of state ----

    static Tensor optionalChains(Tensor x) {
        Map<String, Tensor> cache = new LinkedHashMap<>();
        cache.put("mean", x.mean(0));
        Tensor a = Optional.ofNullable(cache.get("mean")).map(t -> t.mul(2)).orElseGet(() -> x.sum(0));
        Tensor b = Optional.ofNullable(cache.get("max")).map(t -> t.mul(2)).orElseGet(() -> x.amax(0));
        int n = Optional.of(x).filter(t -> t.dim() == 2).map(t -> t.size(1)).orElse(-1);
        return a.add(b).mul(n);
    }

    @Test
    void optionalChainsOverAMap() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::optionalChains, X)); }

    // ---- an Iterable of the program's own ----

    /** Sliding windows of {@code width} rows, as a for-each loop sees them. */
    record Windows(Tensor x, int width) implements Iterable<Tensor> {
        @Override
        public Iterator<Tensor> iterator() {
            return new Iterator<>() {
                private int start;

                @Override
                public boolean hasNext() { return start + width <= x.size(0); }

                @Override
                public Tensor next() {
                    if (!hasNext()) throw new NoSuchElementException("no window at " + start);
                    return x.narrow(0, start++, width);
                }
            };
        }
    }

    static Tensor slidingWindows(Tensor x) {
        Tensor acc = Tensor.zeros(2, x.size(1));
        for (Tensor w : new Windows(x, 2)) acc = acc.add(w.mul(w));
        return acc;
    }

    @Test
    void iterableOfTheProgramsOwn() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::slidingWindows, X)); }

    // ---- Map<String, Tensor> state updated with merge and compute ----

    static Map<String, Tensor> momentumStep(Map<String, Tensor> state, Tensor grad) {
        Map<String, Tensor> next = new LinkedHashMap<>(state);
        next.merge("velocity", grad, (v, g) -> v.mul(0.9).add(g));
        next.compute("steps", (k, v) -> v == null ? Tensor.ones(1) : v.add(1));
        next.computeIfAbsent("first", k -> grad.clone());
        next.replaceAll((k, v) -> k.startsWith("v") ? v.clamp(-1.0, 1.0) : v);
        return next;
    }

    @Test
    void stateMapMergedAndComputed() {
        Map<String, Tensor> state = new LinkedHashMap<>();
        state.put("velocity", Tensor.randn(4, 6));
        oneGraph(check((Fn2<Map<String, Tensor>, Tensor, Map<String, Tensor>>) NewUserPrograms3Test::momentumStep, state, X));
    }

    // ---- labelled loops ----

    static Tensor labelledLoops(Tensor x) {
        Tensor out = x.mul(0);
        rows:
        for (int i = 0; i < x.size(0); i++) {
            for (int j = 0; j < x.size(1); j++) {
                if (j > i + 1) continue rows;
                if (i * j > 6) break rows;
                out = out.add(x.select(0, i).select(0, j));
            }
        }
        return out;
    }

    @Test
    void labelledBreakAndContinue() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::labelledLoops, X)); }

    // ---- char and short arithmetic ----

    static Tensor charsAndShorts(Tensor x) {
        char c = 'a';
        c += 2;                                  // 'c'
        short s = (short) (c * 300);             // overflows: 29700 fits, times 300 of 'c' (99) wraps
        byte b = (byte) s;
        int code = Character.isLetter(c) ? Character.toUpperCase(c) - 'A' : -1;
        return x.mul(code + 1).add(s % 7).sub(b);
    }

    @Test
    void charAndShortArithmetic() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::charsAndShorts, X)); }

    // ---- a StringBuilder message in an exception of the program's own, caught inside ----

    static final class ShapeMismatch extends RuntimeException {
        final int expected;

        ShapeMismatch(String message, int expected) {
            super(message);
            this.expected = expected;
        }
    }

    static Tensor requireColumns(Tensor x, int cols) {
        if (x.size(1) != cols) {
            StringBuilder sb = new StringBuilder("expected ").append(cols).append(" columns, got ").append(x.size(1));
            sb.append(" (shape ").append(x.size(0)).append('x').append(x.size(1)).append(')');
            throw new ShapeMismatch(sb.toString(), cols);
        }
        return x;
    }

    static Tensor recovers(Tensor x) {
        try {
            return requireColumns(x, 5).sum();
        } catch (ShapeMismatch e) {
            return x.narrow(1, 0, Math.min(e.expected, x.size(1))).sum().add(e.getMessage().length());
        }
    }

    static Tensor doesNotRecover(Tensor x) { return requireColumns(x.t(), 5); }

    @Test
    void customExceptionWithABuiltMessage() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::recovers, X));
        assertEquals("expected 5 columns, got 4 (shape 6x4)", checkThrows((Fn1<Tensor, Tensor>) NewUserPrograms3Test::doesNotRecover, X).getMessage());
    }

    // ---- an enum with a method per constant ----

    enum Act {
        RELU { Tensor apply(Tensor x) { return x.relu(); } },
        LEAKY { Tensor apply(Tensor x) { return x.relu().add(x.neg().relu().mul(-0.01)); } },
        TANH { Tensor apply(Tensor x) { return x.tanh(); } };

        abstract Tensor apply(Tensor x);
    }

    static Tensor enumPerConstant(Tensor x) {
        Tensor out = x;
        for (Act a : Act.values()) {
            out = switch (a) {
                case RELU -> a.apply(out).add(1);
                case LEAKY, TANH -> a.apply(out).mul(a.ordinal());
            };
        }
        return out.add(Act.valueOf("TANH").name().length());
    }

    @Test
    void enumWithAMethodPerConstant() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::enumPerConstant, X)); }

    // ---- interfaces with default methods, inheritance with super calls ----

    interface Layer {
        Tensor forward(Tensor x);

        default Tensor twice(Tensor x) { return forward(forward(x)); }

        default Layer then(Layer next) { return x -> next.forward(forward(x)); }
    }

    static class Affine implements Layer {
        final double a, b;

        Affine(double a, double b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public Tensor forward(Tensor x) { return x.mul(a).add(b); }
    }

    static class ClampedAffine extends Affine {
        ClampedAffine(double a, double b) { super(a, b * 2); }

        @Override
        public Tensor forward(Tensor x) { return super.forward(x).clamp(-3.0, 3.0); }
    }

    static Tensor layers(Tensor x) {
        Layer first = new ClampedAffine(2, 0.25);
        Layer both = first.then(new Affine(-1, 1)).then(Tensor::sigmoid);
        return both.forward(x).add(first.twice(x));
    }

    @Test
    void defaultMethodsAndSuperCalls() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::layers, X)); }

    // ---- varargs and boxing ----

    static Tensor sumAll(double scale, Tensor... ts) {
        Tensor s = ts[0].mul(0);
        for (Tensor t : ts) s = s.add(t);
        return s.mul(scale).div(ts.length);
    }

    static Tensor varargsAndBoxing(Tensor x) {
        List<Integer> dims = new ArrayList<>();
        for (int d = 0; d < x.dim(); d++) dims.add(x.size(d));
        Integer rows = dims.get(0), alsoRows = Integer.valueOf(x.size(0));
        Double half = 0.5;
        long total = 0;
        for (Integer d : dims) total += d;                   // unboxed in the loop
        boolean same = rows.equals(alsoRows) && rows == 4;  // equals for boxes; == on an int after unboxing
        return sumAll(half, x, x.exp(), x.abs()).add(same ? total : -total).add(sumAll(1));
    }

    static Tensor sumAll(int n) { return Tensor.scalar((double) n); }

    @Test
    void varargsAndBoxedNumbers() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms3Test::varargsAndBoxing, X)); }
}
