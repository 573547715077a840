package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;

/**
 * A sixth batch of tensor code as a Java developer new to Ember writes it (NewUserPrograms4Test and
 * earlier have the first five): records holding tensors, a sealed interface of layers switched
 * over by pattern, enhanced for over Map.entrySet, IntStream.range(...).mapToObj(...).reduce over
 * tensors, varargs helpers, Optional&lt;Tensor&gt;, an exception thrown and caught inside the
 * function, recursion, StringBuilder for names, a static nested class with state, Math.* on
 * shapes, labelled break and continue, do/while with a condition on shapes, and a TreeMap sorted
 * by a comparator of the program's. Each runs eagerly and compiled (same values, same exceptions),
 * in one graph with no break.
 */
class NewUserPrograms5Test {
    static final Tensor X = Tensor.randn(4, 6);

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- records holding tensors ----

    record Batch(Tensor inputs, Tensor targets, String name) {
        Batch scaled(double by) { return new Batch(inputs.mul(by), targets, name + "*" + by); }
    }

    static Object recordsOfTensors(Tensor x) {
        Batch b = new Batch(x, x.sum(1), "train");
        Batch s = b.scaled(0.5);
        Tensor loss = s.inputs().sum(1).sub(s.targets()).pow(2).mean();
        return List.of(loss, s.name(), s.equals(b) ? 1 : 0);
    }

    @Test
    void recordsHoldingTensors() { oneGraph(check((Fn1<Tensor, Object>) NewUserPrograms5Test::recordsOfTensors, X)); }

    // ---- a sealed interface of layers, switched over by pattern ----

    sealed interface Layer permits Scale, Shift, Act {}

    record Scale(double by) implements Layer {}

    record Shift(Tensor by) implements Layer {}

    record Act(String kind) implements Layer {}

    static Tensor apply(Layer layer, Tensor x) {
        return switch (layer) {
            case Scale s -> x.mul(s.by());
            case Shift(Tensor by) -> x.add(by);
            case Act a when a.kind().equals("relu") -> x.relu();
            case Act a -> x.tanh();
        };
    }

    static Tensor sealedLayers(Tensor x) {
        List<Layer> net = List.of(new Scale(2.0), new Shift(x.mean(0)), new Act("relu"), new Act("tanh"));
        for (Layer l : net) x = apply(l, x);
        return x;
    }

    @Test
    void sealedLayersSwitchedByPattern() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::sealedLayers, X)); }

    // ---- enhanced for over Map.entrySet ----

    static Tensor weightedSum(Tensor x) {
        Map<String, Double> weights = new LinkedHashMap<>();
        weights.put("sin", 0.5);
        weights.put("cos", 2.0);
        weights.put("exp", -1.0);
        Tensor acc = Tensor.zeros(x.shape());
        for (Map.Entry<String, Double> e : weights.entrySet()) {
            Tensor term = switch (e.getKey()) {
                case "sin" -> x.sin();
                case "cos" -> x.cos();
                default -> x.exp();
            };
            acc = acc.add(term.mul(e.getValue()));
        }
        return acc;
    }

    @Test
    void enhancedForOverEntrySet() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::weightedSum, X)); }

    // ---- IntStream.range(...).mapToObj(...).reduce over tensors ----

    static Tensor streamReduce(Tensor x) {
        return IntStream.range(0, x.size(0))
                .mapToObj(i -> x.select(0, i).mul(i + 1))
                .reduce(Tensor::add)
                .orElseThrow();
    }

    @Test
    void intStreamReduceOverRows() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::streamReduce, X)); }

    // ---- varargs helpers ----

    static Tensor sumAll(Tensor first, Tensor... rest) {
        Tensor acc = first;
        for (Tensor t : rest) acc = acc.add(t);
        return acc.div(rest.length + 1);
    }

    static Tensor varargs(Tensor x) { return sumAll(x, x.sin(), x.cos()).add(sumAll(x)); }

    @Test
    void varargsHelper() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::varargs, X)); }

    // ---- Optional<Tensor> ----

    static Optional<Tensor> maybeMask(Tensor x, boolean masked) { return masked ? Optional.of(x.gt(0)) : Optional.empty(); }

    static Tensor optionals(Tensor x) {
        Tensor a = maybeMask(x, true).map(m -> x.mul(m)).orElse(x);
        Tensor b = maybeMask(x, false).map(m -> x.mul(m)).orElseGet(() -> x.neg());
        return a.add(b).add(maybeMask(x, false).isPresent() ? 1 : 0);
    }

    @Test
    void optionalOfTensor() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::optionals, X)); }

    // ---- an exception thrown and caught inside the function ----

    static final class ShapeError extends RuntimeException {
        ShapeError(String message) { super(message); }
    }

    static Tensor checked(Tensor x, int dim) {
        if (dim >= x.dim()) throw new ShapeError("dim " + dim + " out of range for " + x.dim() + "-d tensor");
        return x.sum(dim);
    }

    static Object caughtInside(Tensor x) {
        List<String> errors = new ArrayList<>();
        Tensor acc = x.sum();
        for (int d = 0; d < 4; d++) {
            try {
                acc = acc.add(checked(x, d).sum());
            } catch (ShapeError e) {
                errors.add(e.getMessage());
            }
        }
        return List.of(acc, errors);
    }

    @Test
    void exceptionCaughtInside() { oneGraph(check((Fn1<Tensor, Object>) NewUserPrograms5Test::caughtInside, X)); }

    // ---- recursion ----

    static Tensor power(Tensor x, int n) { return n == 0 ? Tensor.onesLike(x) : n % 2 == 0 ? power(x.mul(x), n / 2) : x.mul(power(x, n - 1)); }

    static Tensor recursion(Tensor x) { return power(x.tanh(), 5); }

    @Test
    void recursiveHelper() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::recursion, X)); }

    // ---- StringBuilder for names, a static nested class with state ----

    static final class Registry {
        private final Map<String, Tensor> byName = new LinkedHashMap<>();
        private int count;

        String register(String prefix, Tensor t) {
            StringBuilder name = new StringBuilder(prefix).append('_').append(count++);
            if (t.dim() > 1) name.append("_").append(t.size(0)).append('x').append(t.size(1));
            byName.put(name.toString(), t);
            return name.toString();
        }
    }

    static Object namedRegistry(Tensor x) {
        Registry r = new Registry();
        String a = r.register("act", x.relu());
        String b = r.register("sum", x.sum(0));
        Tensor total = r.byName.get(a).sum().add(r.byName.get(b).sum());
        return List.of(total, String.join(",", r.byName.keySet()), r.count);
    }

    @Test
    void stringBuilderNamesAndNestedState() { oneGraph(check((Fn1<Tensor, Object>) NewUserPrograms5Test::namedRegistry, X)); }

    // ---- Math.* on shapes ----

    static Tensor mathOnShapes(Tensor x) {
        int rows = x.size(0), cols = x.size(1);
        int tile = Math.max(1, Math.min(rows, cols) / 2);
        int pad = Math.floorMod(-cols, tile);
        double scale = 1.0 / Math.sqrt(cols);
        int half = (int) Math.ceil(rows / 2.0);
        return x.narrow(0, 0, half).mul(scale).add(pad + Math.abs(rows - cols));
    }

    @Test
    void mathOnShapes() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::mathOnShapes, X)); }

    // ---- labelled break and continue ----

    static Tensor labelled(Tensor x) {
        Tensor acc = x.mul(0);
        outer:
        for (int i = 0; i < x.size(0); i++) {
            for (int j = 0; j < x.size(1); j++) {
                if ((i + j) % 3 == 0) continue outer;
                if (i * j > 6) break outer;
                acc = acc.add(x.select(0, i).select(0, j));
            }
        }
        return acc;
    }

    @Test
    void labelledBreakAndContinue() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::labelled, X)); }

    // ---- do/while with a condition on shapes ----

    static Tensor halveUntilSmall(Tensor x) {
        Tensor y = x.flatten();
        int steps = 0;
        do {
            y = y.narrow(0, 0, y.size(0) / 2).add(y.narrow(0, y.size(0) / 2, y.size(0) / 2));
            steps++;
        } while (y.size(0) % 2 == 0 && y.size(0) > 2);
        return y.mul(steps);
    }

    @Test
    void doWhileOnShapes() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms5Test::halveUntilSmall, X)); }

    // ---- a TreeMap sorted by a comparator of the program's ----

    record Ranked(String name, int priority) {}

    static Object rankedLayers(Tensor x) {
        TreeMap<Ranked, Tensor> byPriority = new TreeMap<>(Comparator.comparingInt(Ranked::priority).reversed().thenComparing(Ranked::name));
        byPriority.put(new Ranked("norm", 1), x.sub(x.mean()));
        byPriority.put(new Ranked("act", 3), x.relu());
        byPriority.put(new Ranked("scale", 3), x.mul(2));
        Tensor acc = x.mul(0);
        StringBuilder order = new StringBuilder();
        for (var e : byPriority.entrySet()) {
            acc = acc.mul(0.5).add(e.getValue());
            order.append(e.getKey().name()).append(' ');
        }
        TreeSet<String> names = new TreeSet<>(Comparator.comparing(String::length).thenComparing(Comparator.reverseOrder()));
        for (Ranked r : byPriority.keySet()) names.add(r.name());
        return List.of(acc, order.toString().trim(), new ArrayList<>(names), byPriority.firstKey().name());
    }

    @Test
    void treeMapWithAComparator() { oneGraph(check((Fn1<Tensor, Object>) NewUserPrograms5Test::rankedLayers, X)); }

    // ---- two arguments: a helper picks by a lambda given ----

    static Tensor pick(Tensor a, Tensor b) {
        java.util.function.BinaryOperator<Tensor> blend = a.size(1) == b.size(1) ? (p, q) -> p.add(q).div(2) : (p, q) -> p;
        return blend.apply(a, b).sum(1);
    }

    @Test
    void lambdaChosenByShape() { oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserPrograms5Test::pick, X, Tensor.randn(4, 6))); }
}
