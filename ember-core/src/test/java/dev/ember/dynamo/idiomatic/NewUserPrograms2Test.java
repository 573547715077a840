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
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A third batch of tensor code as a Java developer new to Ember writes it (NewUserProgramsTest has
 * the first two): generic helpers, records with compact constructors, sealed layer kinds in a
 * pattern-matching switch, enhanced instanceof, text blocks, builders, varargs, IntStream loops,
 * collectors into maps of tensors, labelled continue, char/byte/short arithmetic, bit tricks on
 * shapes, Math.floorMod, long overflow, Integer caching and ==, string switches and exceptions of
 * the program's own. Each runs eagerly and compiled (same values, same exceptions) in one graph
 * with no break.
 */
class NewUserPrograms2Test {
    static final Tensor X = Tensor.randn(4, 6);

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- generic helpers ----

    static <T> T firstOr(List<T> xs, T fallback) { return xs.isEmpty() ? fallback : xs.get(0); }

    static <A, B> List<B> mapAll(List<A> xs, Function<? super A, ? extends B> f) {
        List<B> out = new ArrayList<>();
        for (A a : xs) out.add(f.apply(a));
        return out;
    }

    static Tensor genericHelpers(Tensor x) {
        List<Tensor> rows = mapAll(List.of(0, 1, 2), i -> x.select(0, i).mul(i + 1));
        Tensor head = firstOr(rows, x.sum(0));
        Tensor none = firstOr(List.<Tensor>of(), x.sum(0));
        return head.add(none).add(rows.get(2));
    }

    @Test
    void genericHelpersOverTensors() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms2Test::genericHelpers, X)); }

    // ---- records with compact constructors ----

    record Affine(Tensor weight, double scale) {
        Affine {
            if (weight.dim() != 2) throw new IllegalArgumentException("weight must be 2-D, got " + weight.dim() + "-D");
            if (scale <= 0) scale = 1.0;   // a compact constructor may normalize a component
        }

        Tensor apply(Tensor x) { return x.matmul(weight).mul(scale); }
    }

    static Tensor affineLayers(Tensor x, Tensor w) {
        Affine a = new Affine(w, -3), b = new Affine(w.t(), 0.5);
        return b.apply(a.apply(x).relu());
    }

    @Test
    void recordsWithCompactConstructors() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms2Test::affineLayers, X, Tensor.randn(6, 3)));
        Throwable t = checkThrows((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms2Test::affineLayers, X, Tensor.randn(6));
        assertEquals("weight must be 2-D, got 1-D", t.getMessage());
    }

    // ---- sealed interfaces and a pattern-matching switch over layer kinds ----

    sealed interface Layer permits Dense, Act, Drop, Residual {}

    record Dense(Tensor w) implements Layer {}

    record Act(String kind) implements Layer {}

    record Drop(double p) implements Layer {}

    record Residual(List<Layer> body) implements Layer {}

    static Tensor run(List<Layer> layers, Tensor x) {
        for (Layer layer : layers) {
            x = switch (layer) {
                case Dense d -> x.matmul(d.w());
                case Act(String kind) when kind.equals("relu") -> x.relu();
                case Act a -> x.tanh();
                case Drop d when d.p() == 0 -> x;
                case Drop d -> x.mul(1 - d.p());
                case Residual r -> x.add(run(r.body(), x));
            };
        }
        return x;
    }

    static Tensor sealedModel(Tensor x, Tensor w) {
        return run(List.of(new Dense(w), new Act("relu"), new Residual(List.of(new Act("tanh"), new Drop(0.25))), new Drop(0)), x);
    }

    @Test
    void sealedLayersInAPatternSwitch() { oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms2Test::sealedModel, X, Tensor.randn(6, 6))); }

    // ---- enhanced instanceof on mixed inputs ----

    static Tensor describeAll(List<Object> things, Tensor x) {
        Tensor acc = x.mul(0);
        for (Object o : things) {
            if (o instanceof Tensor t && t.dim() == 2) acc = acc.add(t);
            else if (o instanceof Number n && n.doubleValue() > 0) acc = acc.add(n.doubleValue());
            else if (o instanceof String s && !s.isBlank()) acc = acc.mul(s.length());
        }
        return acc;
    }

    @Test
    void enhancedInstanceof() {
        oneGraph(check((Fn2<List<Object>, Tensor, Tensor>) NewUserPrograms2Test::describeAll, List.of(X, 2.5, "ab", -1, Tensor.randn(6), "  "), X));
    }

    // ---- text blocks in error messages ----

    static Tensor checkedMatmul(Tensor a, Tensor b) {
        if (a.size(1) != b.size(0)) {
            throw new IllegalArgumentException("""
                    cannot multiply:
                      left  %s
                      right %s""".formatted(java.util.Arrays.toString(a.shape()), java.util.Arrays.toString(b.shape())));
        }
        return a.matmul(b);
    }

    @Test
    void textBlockErrorMessages() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms2Test::checkedMatmul, X, Tensor.randn(6, 2)));
        Throwable t = checkThrows((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms2Test::checkedMatmul, X, Tensor.randn(5, 2));
        assertEquals("cannot multiply:\n  left  [4, 6]\n  right [5, 2]", t.getMessage());
    }

    // ---- a static nested model configured by a builder ----

    static final class Mlp {
        static final class Builder {
            private int hidden = 8;
            private String activation = "relu";
            private double dropout;

            Builder hidden(int h) { this.hidden = h; return this; }

            Builder activation(String a) { this.activation = a; return this; }

            Builder dropout(double d) { this.dropout = d; return this; }

            Mlp build(Tensor w1, Tensor w2) {
                if (w1.size(1) != hidden) throw new IllegalStateException("w1 has " + w1.size(1) + " columns, hidden is " + hidden);
                return new Mlp(this, w1, w2);
            }
        }

        private final Builder config;
        private final Tensor w1, w2;

        private Mlp(Builder config, Tensor w1, Tensor w2) {
            this.config = config;
            this.w1 = w1;
            this.w2 = w2;
        }

        static Builder builder() { return new Builder(); }

        Tensor forward(Tensor x) {
            Tensor h = x.matmul(w1);
            h = "gelu".equals(config.activation) ? h.sigmoid().mul(h) : h.relu();
            return h.mul(1 - config.dropout).matmul(w2);
        }
    }

    static Tensor builtModel(Tensor x, Tensor w1) {
        Mlp m = Mlp.builder().hidden(5).activation("gelu").dropout(0.1).build(w1, Tensor.ones(5, 2));
        return m.forward(x);
    }

    @Test
    void builderConfiguredModel() { oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms2Test::builtModel, X, Tensor.randn(6, 5))); }

    // ---- varargs helpers ----

    static Tensor sumAll(Tensor first, Tensor... rest) {
        Tensor s = first;
        for (Tensor t : rest) s = s.add(t);
        return s;
    }

    static Tensor weighted(double... ws) {
        return Tensor.ones(2).mul(java.util.Arrays.stream(ws).sum());
    }

    static Tensor varargsCalls(Tensor x) {
        return sumAll(x).add(sumAll(x, x.neg(), x.exp())).sum().add(weighted(0.5, 1.5).sum()).add(weighted().sum());
    }

    @Test
    void varargsTensorHelpers() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms2Test::varargsCalls, X)); }

    // ---- IntStream.range loops and collectors into maps ----

    static Map<String, Tensor> heads(Tensor x) {
        return IntStream.range(0, x.size(0))
                .boxed()
                .collect(Collectors.toMap(i -> "head" + i, i -> x.select(0, i).softmax(0), (a, b) -> a, LinkedHashMap::new));
    }

    static Tensor rangeSum(Tensor x) {
        return IntStream.range(0, 3).mapToObj(i -> x.mul(i)).reduce(x, Tensor::add);
    }

    @Test
    void intStreamsAndCollectors() {
        oneGraph(check((Fn1<Tensor, Map<String, Tensor>>) NewUserPrograms2Test::heads, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms2Test::rangeSum, X));
    }

    // ---- Map<String, Tensor> state and iterators ----

    static Map<String, Tensor> sgdStep(Map<String, Tensor> params, Map<String, Tensor> grads) {
        Map<String, Tensor> next = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : params.entrySet()) {
            Tensor g = grads.getOrDefault(e.getKey(), e.getValue().mul(0));
            next.put(e.getKey(), e.getValue().sub(g.mul(0.1)));
        }
        next.computeIfAbsent("step", k -> Tensor.ones(1));
        return next;
    }

    static Tensor dropsSmall(List<Tensor> xs) {
        List<Tensor> kept = new ArrayList<>(xs);
        for (Iterator<Tensor> it = kept.iterator(); it.hasNext(); ) {
            if (it.next().dim() < 2) it.remove();
        }
        return kept.stream().reduce(Tensor::add).orElseThrow();
    }

    @Test
    void stateMapsAndIterators() {
        Map<String, Tensor> params = new LinkedHashMap<>(Map.of("w", X));
        params.put("b", Tensor.randn(6));
        oneGraph(check((Fn2<Map<String, Tensor>, Map<String, Tensor>, Map<String, Tensor>>) NewUserPrograms2Test::sgdStep, params, Map.of("w", X.neg())));
        oneGraph(check((Fn1<List<Tensor>, Tensor>) NewUserPrograms2Test::dropsSmall, List.of(X, Tensor.randn(6), X.mul(2))));
    }

    // ---- labelled continue, char/byte/short arithmetic, ternary chains ----

    static Tensor labelled(Tensor x) {
        Tensor acc = x.mul(0);
        rows:
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 6; j++) {
                if (j > i) continue rows;
                if ((i + j) % 3 == 0) continue;
                acc = acc.add(x.select(0, i).select(0, j));
            }
        }
        return acc;
    }

    static List<Object> smallTypes(Tensor x) {
        char c = 'a';
        c += 2;
        byte b = (byte) 200;
        short s = (short) (b * 300);
        int shift = c - 'a';
        char next = (char) (c + 1);
        String tag = "" + c + next + (char) ('A' + shift);
        return List.of(x.mul(b).add(s).add(shift), tag, (int) b, s, Character.isLetter(c), Character.toUpperCase(next));
    }

    static Tensor ternaries(Tensor x) {
        int d = x.dim();
        String how = d == 0 ? "scalar" : d == 1 ? "vector" : d == 2 ? "matrix" : "tensor";
        int dim = how.equals("matrix") ? (x.size(0) > x.size(1) ? 0 : 1) : 0;
        return x.sum(dim).mul(how.length());
    }

    @Test
    void controlFlowAndSmallTypes() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms2Test::labelled, X));
        oneGraph(check((Fn1<Tensor, List<Object>>) NewUserPrograms2Test::smallTypes, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms2Test::ternaries, X));
    }

    // ---- bit tricks on shapes, floorMod, long overflow, Integer caching ----

    static List<Object> shapeBits(Tensor x) {
        int n = x.size(1);
        boolean powerOfTwo = n > 0 && (n & (n - 1)) == 0;
        int padded = powerOfTwo ? n : Integer.highestOneBit(n) << 1;
        int half = padded >>> 1, low = n & -n, bits = Integer.bitCount(n), zeros = Integer.numberOfTrailingZeros(padded);
        int lastDim = Math.floorMod(-1, x.dim()), wrapped = Math.floorMod(-7, 3), plainMod = -7 % 3;
        return List.of(x.sum(lastDim).mul(half + low + bits + zeros), padded, wrapped, plainMod, ~n, n ^ 5);
    }

    static List<Object> longArithmetic(Tensor x) {
        long big = Long.MAX_VALUE;
        long wrapped = big + 1;
        int narrowed = (int) 3_000_000_000L;
        long numel = 1L * x.size(0) * x.size(1) * 1_000_000_000L;
        String overflow;
        try {
            Math.multiplyExact(numel, 1_000_000_000L);
            overflow = "fits";
        } catch (ArithmeticException e) {
            overflow = e.getMessage();
        }
        return List.of(x.mul(narrowed % 7), wrapped, narrowed, numel, overflow, Long.numberOfLeadingZeros(numel));
    }

    static List<Object> integerCaching(Tensor x) {
        Integer a = 127, b = 127;
        Integer c = x.size(0) * 32, d = x.size(0) * 32;   // 128: outside Integer's cache
        boolean small = a == b, large = c == d, equal = c.equals(d);
        return List.of(x.mul(small ? 1 : 2).add(large ? 10 : 20).add(equal ? 100 : 200), small, large, equal);
    }

    @Test
    void numbersAsJavaHasThem() {
        oneGraph(check((Fn1<Tensor, List<Object>>) NewUserPrograms2Test::shapeBits, X));
        oneGraph(check((Fn1<Tensor, List<Object>>) NewUserPrograms2Test::longArithmetic, X));
        oneGraph(check((Fn1<Tensor, List<Object>>) NewUserPrograms2Test::integerCaching, X));
    }

    // ---- string switches and exceptions of the program's own ----

    static final class ShapeMismatch extends RuntimeException {
        final int expected, got;

        ShapeMismatch(int expected, int got) {
            super("expected " + expected + " features, got " + got);
            this.expected = expected;
            this.got = got;
        }
    }

    static Tensor activation(String name, Tensor x) {
        switch (name) {
            case "relu": return x.relu();
            case "gelu":
            case "silu": return x.mul(x.sigmoid());
            default: throw new IllegalArgumentException("unknown activation: " + name);
        }
    }

    static Tensor features(Tensor x, int expected) {
        if (x.size(1) != expected) throw new ShapeMismatch(expected, x.size(1));
        return x.sum(1);
    }

    static List<Object> safely(Tensor x) {
        List<Object> out = new ArrayList<>();
        for (String name : List.of("relu", "silu", "swish")) {
            try {
                out.add(activation(name, x).sum());
            } catch (IllegalArgumentException e) {
                out.add(e.getMessage());
            }
        }
        try {
            out.add(features(x, 5));
        } catch (ShapeMismatch e) {
            out.add(e.getMessage() + " (" + (e.got - e.expected) + " too many)");
            out.add(features(x, e.got));
        }
        return out;
    }

    @Test
    void stringSwitchAndOwnExceptions() { oneGraph(check((Fn1<Tensor, List<Object>>) NewUserPrograms2Test::safely, X)); }
}
