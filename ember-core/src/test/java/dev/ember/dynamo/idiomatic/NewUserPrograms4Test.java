package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A fifth batch of tensor code as a Java developer new to Ember writes it (NewUserPrograms3Test and
 * earlier have the first four): ternaries over shapes, try/finally around tensor code, nested lambdas
 * capturing locals, chains of static helpers, an ArrayDeque and a LinkedList of tensors, a
 * TreeMap&lt;String, Tensor&gt;, an Iterator over an Iterable of the program's own, generic bounds
 * on an interface, a switch on strings, bit tricks on ints, a long loop with an early return,
 * Tensor[] and float[] constants, String.format in an error path, instanceof patterns on inputs,
 * a ListIterator from an index, try-with-resources and switch blocks that yield.
 * Each runs eagerly and compiled (same values, same exceptions), in one graph with no break unless a
 * test says otherwise.
 */
class NewUserPrograms4Test {
    static final Tensor X = Tensor.randn(4, 6);

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- ternaries over shapes ----

    static Tensor shapeTernaries(Tensor x) {
        Tensor wide = x.size(1) > x.size(0) ? x.t() : x;
        int rows = wide.size(0) % 2 == 0 ? wide.size(0) / 2 : wide.size(0);
        Tensor top = wide.narrow(0, 0, rows);
        return x.dim() == 2 ? top.sum(0).mul(rows) : top.flatten();
    }

    @Test
    void ternariesOverShapes() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::shapeTernaries, X)); }

    // ---- try/finally with tensors ----

    static int cleanups;

    static Tensor tryFinally(Tensor x) {
        Tensor acc = x;
        int steps = 0;
        try {
            acc = acc.relu();
            steps++;
            if (acc.size(0) > 10) return acc;
            acc = acc.mul(2);
            steps++;
        } finally {
            acc = acc.add(steps);       // runs on both ways out; its change to acc is seen only on the fall-through way
        }
        return acc.sub(1);
    }

    static Tensor tryFinallyThrows(Tensor x) {
        Tensor y = x.exp();
        try {
            if (y.dim() == 2) throw new IllegalStateException(String.format("expected a vector, got %d dims (%dx%d)", y.dim(), y.size(0), y.size(1)));
            return y;
        } finally {
            y = y.neg();
        }
    }

    @Test
    void tryFinallyAroundTensorCode() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::tryFinally, X));
        assertEquals("expected a vector, got 2 dims (4x6)", checkThrows((Fn1<Tensor, Tensor>) NewUserPrograms4Test::tryFinallyThrows, X).getMessage());
    }

    // ---- nested lambdas capturing locals ----

    static Tensor nestedLambdas(Tensor x) {
        double scale = 0.5;
        int shift = x.size(1);
        Function<Double, UnaryOperator<Tensor>> scaler = s -> t -> t.mul(s * scale).add(shift);
        Supplier<Function<Tensor, Tensor>> twice = () -> t -> scaler.apply(2.0).apply(scaler.apply(3.0).apply(t));
        return twice.get().apply(x).add(scaler.apply(1.0).apply(x.neg()));
    }

    @Test
    void nestedLambdasCapturingLocals() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::nestedLambdas, X)); }

    // ---- static helper chains ----

    static Tensor normalize(Tensor x) { return center(x).div(spread(x)); }

    static Tensor center(Tensor x) { return x.sub(x.mean()); }

    static Tensor spread(Tensor x) { return clampMin(x.std(), 1e-6); }

    static Tensor clampMin(Tensor t, double lo) { return t.clamp(lo, Double.POSITIVE_INFINITY); }

    static Tensor helperChain(Tensor x) { return normalize(normalize(x).mul(3)).add(center(x)); }

    @Test
    void staticHelperChains() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::helperChain, X)); }

    // ---- ArrayDeque and LinkedList of tensors ----

    static Tensor dequeWindow(Tensor x) {
        Deque<Tensor> window = new ArrayDeque<>();
        Tensor out = Tensor.zeros(x.size(1));
        for (int i = 0; i < x.size(0); i++) {
            window.addLast(x.select(0, i));
            if (window.size() > 2) window.removeFirst();
            Tensor sum = Tensor.zeros(x.size(1));
            for (Tensor t : window) sum = sum.add(t);
            out = out.add(sum.div(window.size()));
        }
        return out.add(window.peekFirst()).sub(window.peekLast());
    }

    static Tensor linkedListStack(Tensor x) {
        LinkedList<Tensor> stack = new LinkedList<>();
        stack.push(x);
        stack.push(x.sin());
        stack.addLast(x.cos());
        Tensor top = stack.pop();
        stack.add(1, top.mul(2));
        Tensor acc = x.mul(0);
        var it = stack.descendingIterator();
        while (it.hasNext()) acc = acc.mul(0.5).add(it.next());
        return acc.add(stack.getLast()).add(stack.indexOf(top) + stack.size());
    }

    @Test
    void dequesOfTensors() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::dequeWindow, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::linkedListStack, X));
    }

    // ---- TreeMap<String, Tensor> ----

    static Map<String, Tensor> treeMapState(Tensor x) {
        TreeMap<String, Tensor> params = new TreeMap<>();
        params.put("weight", x.mul(0.1));
        params.put("bias", x.sum(0));
        params.put("alpha", x.abs().max());
        Tensor first = params.firstEntry().getValue();
        String lastKey = params.lastKey();
        TreeMap<String, Tensor> out = new TreeMap<>();
        for (Map.Entry<String, Tensor> e : params.entrySet()) out.put(e.getKey().toUpperCase(), e.getValue().add(first).mul(lastKey.length()));
        out.put(params.floorKey("c") + "-" + params.higherEntry("alpha").getKey(), params.ceilingEntry("b").getValue());
        if (params.lowerEntry("alpha") == null && params.floorEntry("zeta").getValue() == params.lastEntry().getValue()) out.put("checked", first.neg());
        return out;
    }

    @Test
    void treeMapOfNamedTensors() { oneGraph(check((Fn1<Tensor, Map<String, Tensor>>) NewUserPrograms4Test::treeMapState, X)); }

    // ---- an Iterator over a custom Iterable ----

    /** The columns of a matrix, {@code step} apart. */
    static final class Columns implements Iterable<Tensor> {
        private final Tensor m;
        private final int step;

        Columns(Tensor m, int step) {
            this.m = m;
            this.step = step;
        }

        @Override
        public Iterator<Tensor> iterator() {
            return new Iterator<>() {
                int at = 0;

                @Override
                public boolean hasNext() { return at < m.size(1); }

                @Override
                public Tensor next() {
                    if (at >= m.size(1)) throw new NoSuchElementException();
                    Tensor c = m.select(1, at);
                    at += step;
                    return c;
                }
            };
        }
    }

    static Tensor explicitIterator(Tensor x) {
        Iterator<Tensor> it = new Columns(x, 2).iterator();
        Tensor acc = it.next();
        while (it.hasNext()) acc = acc.mul(it.next()).tanh();
        return acc;
    }

    @Test
    void iteratorOverACustomIterable() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::explicitIterator, X)); }

    // ---- generic bounds on an interface ----

    interface Layer<T extends Layer<T>> {
        Tensor apply(Tensor x);

        T then();

        default Tensor twice(Tensor x) { return then().apply(apply(x)); }
    }

    record Affine(double a, double b) implements Layer<Affine> {
        public Tensor apply(Tensor x) { return x.mul(a).add(b); }

        public Affine then() { return new Affine(b, a); }
    }

    static <L extends Layer<L>> Tensor runAll(List<L> layers, Tensor x) {
        for (L l : layers) x = l.twice(x);
        return x;
    }

    static Tensor boundedInterfaces(Tensor x) { return runAll(List.of(new Affine(2, 1), new Affine(0.5, -1)), x); }

    @Test
    void interfaceWithAGenericBound() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::boundedInterfaces, X)); }

    // ---- a switch on strings ----

    static Tensor activation(String name, Tensor x) {
        return switch (name) {
            case "relu" -> x.relu();
            case "tanh", "hyperbolic" -> x.tanh();
            case "sigmoid" -> x.sigmoid();
            default -> throw new IllegalArgumentException(String.format("unknown activation '%s' (expected relu, tanh or sigmoid)", name));
        };
    }

    static Tensor stringSwitch(Tensor x) {
        Tensor out = x;
        for (String a : new String[] {"relu", "hyperbolic", "sigmoid"}) out = activation(a, out).add(out);
        return out;
    }

    @Test
    void switchOnStrings() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::stringSwitch, X));
        assertEquals("unknown activation 'gelu' (expected relu, tanh or sigmoid)",
                checkThrows((Fn2<String, Tensor, Tensor>) NewUserPrograms4Test::activation, "gelu", X).getMessage());
    }

    // ---- bit tricks on ints ----

    static Tensor bitTricks(Tensor x) {
        int n = x.size(1);                               // 6
        int nextPow2 = Integer.highestOneBit(n - 1) << 1;
        boolean pow2 = (n & (n - 1)) == 0;
        int low = n & -n, bits = Integer.bitCount(n), mask = ~0 >>> 28, flipped = n ^ 0b101;
        long packed = ((long) n << 32) | nextPow2;
        return x.mul(nextPow2).add(pow2 ? 1 : 0).add(low + bits + mask + flipped).add((int) (packed >> 32)).add(Integer.numberOfTrailingZeros(nextPow2));
    }

    @Test
    void bitTricksOnInts() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::bitTricks, X)); }

    // ---- a long loop with an early return ----

    static Tensor earlyReturn(Tensor x) {
        Tensor acc = x;
        for (int i = 0; i < 1000; i++) {
            acc = acc.mul(0.9).add(0.01 * i);
            if (i * i > 40) return acc.add(i);
        }
        return acc;
    }

    @Test
    void longLoopWithEarlyReturn() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::earlyReturn, X)); }

    // ---- Tensor[] and float[] constants ----

    static final float[] WEIGHTS = {0.25f, 0.5f, 1.5f};

    static Tensor arraysOfTensors(Tensor x) {
        Tensor[] parts = new Tensor[WEIGHTS.length];
        for (int i = 0; i < parts.length; i++) parts[i] = x.mul(WEIGHTS[i]).add(i);
        Tensor[] reversed = parts.clone();
        for (int i = 0, j = reversed.length - 1; i < j; i++, j--) {
            Tensor t = reversed[i];
            reversed[i] = reversed[j];
            reversed[j] = t;
        }
        Tensor acc = Tensor.zeros(x.size(0), x.size(1));
        for (Tensor p : reversed) acc = acc.mul(2).add(p);
        return acc.add(parts[0].sub(reversed[reversed.length - 1]));
    }

    @Test
    void tensorArraysAndFloatConstants() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::arraysOfTensors, X)); }

    // ---- instanceof patterns on inputs ----

    static Tensor describeInput(Object input, Tensor x) {
        if (input instanceof Tensor t && t.dim() == x.dim()) return x.add(t);
        if (input instanceof Number n) return x.mul(n.doubleValue());
        if (input instanceof List<?> l && !l.isEmpty() && l.getFirst() instanceof Tensor first) return x.add(first).mul(l.size());
        if (input instanceof String s) return x.add(s.length());
        throw new IllegalArgumentException(String.format("cannot combine %s with a tensor", input == null ? "null" : input.getClass().getSimpleName()));
    }

    @Test
    void instanceofPatternsOnInputs() {
        Fn2<Object, Tensor, Tensor> f = NewUserPrograms4Test::describeInput;
        oneGraph(check(f, Tensor.randn(4, 6), X));
        oneGraph(check(f, 2.5, X));
        oneGraph(check(f, List.of(Tensor.randn(6), Tensor.randn(6)), X));
        oneGraph(check(f, "four", X));
        assertEquals("cannot combine Boolean with a tensor", checkThrows(f, true, X).getMessage());
    }

    // ---- a ListIterator from an index over a LinkedList of rows, removing and replacing as it goes ----

    static Tensor rowsEditedInPlace(Tensor x) {
        LinkedList<Tensor> rows = new LinkedList<>();
        for (int i = 0; i < x.size(0); i++) rows.add(x.select(0, i));
        ListIterator<Tensor> it = rows.listIterator(1);
        while (it.hasNext()) {
            Tensor row = it.next();
            if (it.nextIndex() % 2 == 0) it.remove();
            else it.set(row.mul(2));
        }
        Tensor acc = Tensor.zeros(x.size(1));
        for (Tensor row : rows) acc = acc.add(row);
        return acc.mul(rows.size());
    }

    @Test
    void listIteratorFromAnIndex() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::rowsEditedInPlace, X)); }

    // ---- try-with-resources on a resource of the program's own, a record's static factory, char arithmetic ----

    record Shape(int rows, int cols) {
        static Shape of(Tensor t) { return new Shape(t.size(0), t.size(1)); }

        int area() { return rows * cols; }
    }

    static final class Stopwatch implements AutoCloseable {
        int closed;

        @Override
        public void close() { closed++; }
    }

    static Tensor withResources(Tensor x) {
        Stopwatch watch = new Stopwatch();
        Tensor y;
        try (watch) {
            Shape s = Shape.of(x);
            y = x.reshape(s.cols(), s.rows()).mul(s.area());
        }
        char c = 'a';
        c += 2;
        return y.add(watch.closed).add(c - 'a');
    }

    @Test
    void tryWithResourcesOfTheProgramsOwn() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::withResources, X)); }

    // ---- a switch on strings with blocks that yield ----

    static Tensor yieldingSwitch(Tensor x) {
        Tensor out = x;
        for (String mode : List.of("sum", "max", "none")) {
            out = switch (mode) {
                case "sum" -> {
                    Tensor s = out.sum(1, true);
                    yield out.sub(s);
                }
                case "max" -> {
                    yield out.amax(1).unsqueeze(1).add(out);
                }
                default -> {
                    yield out;
                }
            };
        }
        return out;
    }

    @Test
    void stringSwitchWithYieldingBlocks() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserPrograms4Test::yieldingSwitch, X)); }
}
