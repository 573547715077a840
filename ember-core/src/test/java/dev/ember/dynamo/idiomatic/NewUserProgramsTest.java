package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import static dev.ember.dynamo.idiomatic.Idioms.breaksAt;
import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Tensor code as a Java developer new to Ember writes it, before reading any guide: streams and
 * for-each over lists of tensors, records, enums and switches choosing an activation, Optional,
 * var, ternaries on shapes, String.format in shape checks, helpers, model objects with fields,
 * interfaces with default methods, StringBuilder logs, Math on Java numbers, arrays of tensors,
 * nested loops over dimensions, early returns, try/finally. Each runs eagerly and compiled (same
 * values, same exceptions) in one graph with no break, except where Dynamo breaks too (a value
 * read out of a tensor with item() deciding the control flow).
 */
class NewUserProgramsTest {
    static final Tensor X = Tensor.randn(4, 3);

    @AfterEach
    void reset() { Ember.reset(); }

    // ---- lists of tensors ----

    static Tensor sumWithStream(List<Tensor> parts) {
        return parts.stream().map(t -> t.mul(2)).reduce(Tensor::add).orElseThrow();
    }

    static Tensor sumWithForEach(List<Tensor> parts) {
        var total = Tensor.zeros(4, 3);
        for (var t : parts) {
            total = total.add(t);
        }
        return total;
    }

    static Tensor sumWithIndexLoop(List<Tensor> parts) {
        Tensor total = parts.get(0);
        for (int i = 1; i < parts.size(); i++) total = total.add(parts.get(i).mul(i));
        return total;
    }

    static Tensor sumWithIterator(List<Tensor> parts) {
        Iterator<Tensor> it = parts.iterator();
        Tensor total = it.next();
        while (it.hasNext()) total = total.sub(it.next());
        return total;
    }

    @Test
    void listsOfTensors() {
        List<Tensor> parts = List.of(X, X.mul(2), X.neg());
        oneGraph(check((Fn1<List<Tensor>, Tensor>) NewUserProgramsTest::sumWithStream, parts));
        oneGraph(check((Fn1<List<Tensor>, Tensor>) NewUserProgramsTest::sumWithForEach, parts));
        oneGraph(check((Fn1<List<Tensor>, Tensor>) NewUserProgramsTest::sumWithIndexLoop, new ArrayList<>(parts)));
        oneGraph(check((Fn1<List<Tensor>, Tensor>) NewUserProgramsTest::sumWithIterator, parts));
    }

    static List<Tensor> splitHeads(Tensor x) {
        List<Tensor> heads = new ArrayList<>();
        for (int h = 0; h < 3; h++) heads.add(x.select(1, h).mul(h + 1));
        Collections.reverse(heads);
        return heads;
    }

    @Test
    void buildingAListOfTensors() { oneGraph(check((Fn1<Tensor, List<Tensor>>) NewUserProgramsTest::splitHeads, X)); }

    // ---- records ----

    record Batch(Tensor inputs, Tensor targets) {
        Batch {
            Objects.requireNonNull(inputs, "inputs");
            if (inputs.shape()[0] != targets.shape()[0]) {
                throw new IllegalArgumentException(String.format("batch sizes differ: %d inputs, %d targets", inputs.shape()[0], targets.shape()[0]));
            }
        }

        int size() { return inputs.shape()[0]; }
    }

    static Tensor mseLoss(Tensor inputs, Tensor targets) {
        Batch batch = new Batch(inputs, targets);
        Tensor diff = batch.inputs().sub(batch.targets());
        return diff.pow(2).sum().div(batch.size());
    }

    @Test
    void aRecordHoldingTensors() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserProgramsTest::mseLoss, X, X.mul(0.5)));
        Throwable t = checkThrows((Fn2<Tensor, Tensor, Tensor>) NewUserProgramsTest::mseLoss, X, Tensor.randn(2, 3));
        assertEquals("batch sizes differ: 4 inputs, 2 targets", t.getMessage());
    }

    // ---- enums, switch expressions and strings ----

    enum Activation { RELU, TANH, SIGMOID, NONE }

    static Tensor activate(Tensor x, Activation act) {
        return switch (act) {
            case RELU -> x.relu();
            case TANH -> x.tanh();
            case SIGMOID -> x.sigmoid();
            case NONE -> x;
        };
    }

    static Tensor activateByName(Tensor x, String name) {
        Tensor y = switch (name.toLowerCase()) {
            case "relu" -> x.relu();
            case "gelu" -> x.gelu();
            case "tanh", "hardtanh" -> {
                Tensor t = x.tanh();
                yield t.mul(1.0);
            }
            default -> throw new IllegalArgumentException("unknown activation: " + name);
        };
        return y.add(1);
    }

    @Test
    void enumsAndStringsChooseTheActivation() {
        for (Activation a : List.of(Activation.RELU, Activation.TANH, Activation.SIGMOID)) oneGraph(check((Fn2<Tensor, Activation, Tensor>) NewUserProgramsTest::activate, X, a));
        for (String name : List.of("ReLU", "gelu", "hardtanh")) oneGraph(check((Fn2<Tensor, String, Tensor>) NewUserProgramsTest::activateByName, X, name));
        assertEquals("unknown activation: swish", checkThrows((Fn2<Tensor, String, Tensor>) NewUserProgramsTest::activateByName, X, "swish").getMessage());
    }

    // ---- Optional, var, ternaries on shapes ----

    static Tensor addBias(Tensor x, Tensor biasOrNull) {
        Optional<Tensor> bias = Optional.ofNullable(biasOrNull);
        return bias.map(x::add).orElse(x).mul(2);
    }

    static Tensor poolIfTall(Tensor x) {
        var rows = x.shape()[0];
        var pooled = rows > 2 ? x.mean(0, true) : x;
        return pooled.dim() == 2 && pooled.shape()[0] == 1 ? pooled.squeeze(0) : pooled.sum(0);
    }

    @Test
    void optionalAndShapeTernaries() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserProgramsTest::addBias, X, Tensor.ones(3)));
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) NewUserProgramsTest::addBias, X, null));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::poolIfTall, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::poolIfTall, Tensor.randn(2, 3)));
    }

    // ---- shape checks with String.format, helpers ----

    static Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        if (x.shape()[x.dim() - 1] != weight.shape()[1]) {
            throw new IllegalArgumentException(String.format("linear: input has %d features, weight expects %d (shapes %s and %s)",
                    x.shape()[x.dim() - 1], weight.shape()[1], Arrays.toString(x.shape()), Arrays.toString(weight.shape())));
        }
        return x.matmul(weight.t()).add(bias);
    }

    static Tensor twoLayers(Tensor x, Tensor w1, Tensor w2) {
        Tensor h = linear(x, w1, Tensor.zeros(w1.shape()[0])).relu();
        return linear(h, w2, Tensor.ones(w2.shape()[0]));
    }

    @Test
    void helperMethodsWithShapeChecks() {
        oneGraph(check((Fn3<Tensor, Tensor, Tensor, Tensor>) NewUserProgramsTest::twoLayers, X, Tensor.randn(5, 3), Tensor.randn(2, 5)));
        Throwable t = checkThrows((Fn3<Tensor, Tensor, Tensor, Tensor>) NewUserProgramsTest::twoLayers, X, Tensor.randn(5, 4), Tensor.randn(2, 5));
        assertEquals("linear: input has 3 features, weight expects 4 (shapes [4, 3] and [5, 4])", t.getMessage());
    }

    // ---- a model object with fields, inheritance, interfaces with default methods ----

    interface Layer {
        Tensor forward(Tensor x);

        default Tensor residual(Tensor x) { return forward(x).add(x); }

        default String describe() { return getClass().getSimpleName(); }
    }

    static final class Scale implements Layer {
        private final double factor;

        Scale(double factor) { this.factor = factor; }

        @Override
        public Tensor forward(Tensor x) { return x.mul(factor); }
    }

    abstract static class Block implements Layer {
        protected final Tensor weight;
        protected int calls;

        Block(Tensor weight) { this.weight = weight; }

        abstract Tensor mix(Tensor x);

        @Override
        public Tensor forward(Tensor x) {
            calls++;
            return mix(x).tanh();
        }
    }

    static final class Dense extends Block {
        Dense(Tensor weight) { super(weight); }

        @Override
        Tensor mix(Tensor x) { return x.matmul(weight); }
    }

    static final class Model {
        final List<Layer> layers = new ArrayList<>();
        final StringBuilder trace = new StringBuilder();

        Model add(Layer l) {
            layers.add(l);
            return this;
        }

        Tensor forward(Tensor x) {
            Tensor h = x;
            for (Layer l : layers) {
                trace.append(l.describe()).append(' ');
                h = l.residual(h);
            }
            return h;
        }
    }

    @Test
    void aModelObjectWithLayers() {
        Model eager = new Model().add(new Dense(Tensor.randn(3, 3))).add(new Scale(0.5));
        Model compiled = new Model().add(eager.layers.get(0)).add(eager.layers.get(1));
        Tensor expected = eager.forward(X);
        Tensor got = Ember.compile((Fn1<Tensor, Tensor>) compiled::forward).apply(X);
        Idioms.assertSameValue(expected, got, "model");
        assertEquals(eager.trace.toString(), compiled.trace.toString(), "the log the model keeps");
        assertEquals(2, ((Block) eager.layers.get(0)).calls, "a field bumped at each call, replayed after the graph");
        Ember.reset();
        oneGraph(Ember.explain((Fn1<Tensor, Tensor>) new Model().add(new Scale(2))::forward).with(X));
    }

    // ---- lambdas in fields ----

    static final class Pipeline {
        private final UnaryOperator<Tensor> normalize = t -> t.sub(t.mean()).div(t.std().add(1e-5));
        private final List<UnaryOperator<Tensor>> steps;

        Pipeline(List<UnaryOperator<Tensor>> steps) { this.steps = steps; }

        Tensor run(Tensor x) {
            Tensor y = normalize.apply(x);
            for (UnaryOperator<Tensor> s : steps) y = s.apply(y);
            return y;
        }
    }

    @Test
    void lambdasHeldInFields() {
        // the field's lambda is traced, and so are the two plain lambdas of one shape made in this class: a plain lambda's
        // class has no class file, but its constant pool names its implementation (Tensor.relu, lambda$…), so each is known
        Pipeline p = new Pipeline(List.of(Tensor::relu, t -> t.mul(3)));
        oneGraph(check((Fn1<Tensor, Tensor>) p::run, X));
        Pipeline reordered = new Pipeline(List.of(t -> t.mul(3), Tensor::relu));
        oneGraph(check((Fn1<Tensor, Tensor>) reordered::run, X.neg()));
        Pipeline serializable = new Pipeline(List.of((UnaryOperator<Tensor> & java.io.Serializable) Tensor::relu, (UnaryOperator<Tensor> & java.io.Serializable) t -> t.mul(3)));
        oneGraph(check((Fn1<Tensor, Tensor>) serializable::run, X));
    }

    // ---- StringBuilder logging, String.format of shapes ----

    static List<Object> logged(Tensor x) {
        StringBuilder log = new StringBuilder();
        log.append("input ").append(Arrays.toString(x.shape())).append(", dtype ").append(x.dtype()).append('\n');
        Tensor y = x.relu();
        log.append(String.format("relu -> %s%n", Arrays.toString(y.shape())));
        Tensor z = y.sum(1);
        log.append("sum(1) -> ").append(z.dim()).append("-D");
        return List.of(z, log.toString());
    }

    @Test
    void aStringBuilderLog() { oneGraph(check((Fn1<Tensor, List<Object>>) NewUserProgramsTest::logged, X)); }

    // ---- numbers: int/long/double mixing, Math on shapes, item() ----

    static Tensor scaledByNumel(Tensor x) {
        int rows = x.shape()[0];
        long total = (long) rows * x.shape()[1];
        double scale = 1.0 / Math.sqrt(total);
        float half = 0.5f;
        return x.mul(scale).add(half * rows).div(Math.max(rows, 2));
    }

    static Tensor normalizedByMax(Tensor x) {
        double m = x.abs().max().item();
        double s = Math.sqrt(m) + 1e-6;
        return x.div(s);
    }

    static Tensor clipIfLarge(Tensor x) {
        if (x.abs().max().item() > 100) return x.clamp(-100.0, 100.0);
        return x.mul(2);
    }

    @Test
    void numbersAndItem() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::scaledByNumel, X));
        // item() ends the graph as in Dynamo (capture_scalar_outputs off): the value is read, then the rest is a graph of its own
        breaksAt(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::normalizedByMax, X), "item", "x.abs().max().item()");
        breaksAt(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::clipIfLarge, X), "item", "x.abs().max().item()");
    }

    // ---- arrays of tensors, nested loops over dims ----

    static Tensor arrayOfTensors(Tensor x) {
        Tensor[] rows = new Tensor[x.shape()[0]];
        for (int i = 0; i < rows.length; i++) rows[i] = x.select(0, i).mul(i);
        return Tensor.stack(Arrays.asList(rows), 0).add(Tensor.cat(List.of(rows), 0).sum());
    }

    static Tensor nestedLoops(Tensor x) {
        int[] shape = x.shape();
        Tensor acc = Tensor.zeros(1);
        for (int i = 0; i < shape[0]; i++) {
            for (int j = 0; j < shape[1]; j++) {
                if ((i + j) % 2 == 0) acc = acc.add(x.select(0, i).select(0, j));
            }
        }
        return acc;
    }

    static Tensor flattenByDims(Tensor x) {
        int numel = IntStream.range(0, x.dim()).map(d -> x.shape()[d]).reduce(1, (a, b) -> a * b);
        return x.reshape(numel).mul(numel);
    }

    @Test
    void arraysAndLoopsOverDims() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::arrayOfTensors, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::nestedLoops, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::flattenByDims, X));
    }

    // ---- early returns, try/finally, caught validation ----

    static Tensor ensureBatched(Tensor x) {
        if (x.dim() == 1) return x.unsqueeze(0).mul(2);
        if (x.dim() != 2) throw new IllegalArgumentException("expected 1-D or 2-D input, got shape " + Arrays.toString(x.shape()));
        return x.mul(3);
    }

    static final List<String> CALLS = new ArrayList<>();

    static Tensor withFinally(Tensor x) {
        try {
            return x.relu().add(1);
        } finally {
            CALLS.add("withFinally " + x.dim());
        }
    }

    static void requirePositiveRank(Tensor x) {
        if (x.dim() == 0) throw new IllegalStateException("scalar input");
    }

    static Tensor validateOrDefault(Tensor x) {
        try {
            requirePositiveRank(x);
            return x.sum(0);
        } catch (IllegalStateException e) {
            return x.mul(0).add(e.getMessage().length());
        }
    }

    @Test
    void earlyReturnsAndExceptions() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::ensureBatched, Tensor.randn(3)));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::ensureBatched, X));
        checkThrows((Fn1<Tensor, Tensor>) NewUserProgramsTest::ensureBatched, Tensor.randn(2, 2, 2));
        CALLS.clear();
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::withFinally, X));
        // eager once, compiled twice, explain once: each appended after its graph
        assertEquals(Collections.nCopies(4, "withFinally 2"), CALLS);
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::validateOrDefault, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::validateOrDefault, Tensor.scalar(3)));
    }

    // ---- maps of named parameters, generic helpers ----

    static <T> T firstOr(List<T> xs, T fallback) { return xs.isEmpty() ? fallback : xs.getFirst(); }

    static Tensor namedParameters(Tensor x) {
        Map<String, Tensor> params = new LinkedHashMap<>();
        params.put("scale", Tensor.full(2.0, 3));
        params.put("shift", Tensor.ones(3));
        Tensor y = x;
        for (Map.Entry<String, Tensor> e : params.entrySet()) {
            y = e.getKey().equals("scale") ? y.mul(e.getValue()) : y.add(e.getValue());
        }
        return y.add(firstOr(new ArrayList<>(params.values()), x));
    }

    @Test
    void aMapOfNamedParameters() { oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::namedParameters, X)); }

    // ---- dtype checks, instanceof on Object arguments ----

    static Tensor asFloat(Tensor x, Object scale) {
        Tensor f = x.dtype() == DType.FLOAT32 ? x : x.to(DType.FLOAT32);
        if (scale instanceof Integer i) return f.mul(i);
        if (scale instanceof Double d && d > 0) return f.div(d);
        return f;
    }

    @Test
    void dtypeTernaryAndPatternMatching() {
        oneGraph(check((Fn2<Tensor, Object, Tensor>) NewUserProgramsTest::asFloat, X, 3));
        oneGraph(check((Fn2<Tensor, Object, Tensor>) NewUserProgramsTest::asFloat, X, 2.5));
        oneGraph(check((Fn2<Tensor, Object, Tensor>) NewUserProgramsTest::asFloat, Tensor.ones(DType.INT64, 2), "none"));
    }

    // ---- a caught index error while reading a list ----

    static Tensor pickOrLast(List<Tensor> xs, int i) {
        try {
            return xs.get(i).mul(2);
        } catch (IndexOutOfBoundsException e) {
            return xs.getLast().neg();
        }
    }

    @Test
    void aCaughtIndexError() {
        List<Tensor> xs = new ArrayList<>(List.of(X, X.add(1)));
        oneGraph(check((Fn2<List<Tensor>, Integer, Tensor>) NewUserProgramsTest::pickOrLast, xs, 1));
        oneGraph(check((Fn2<List<Tensor>, Integer, Tensor>) NewUserProgramsTest::pickOrLast, xs, 5));
    }

    // ---- a second batch: more of what a newcomer reaches for ----

    static Tensor chunksAndVarargs(Tensor x) {
        List<Tensor> halves = x.chunk(2, 0);
        Tensor total = sumAll(halves.get(0), halves.get(1).mul(2));
        for (Tensor row : x.unbind(0)) total = total.add(row.sum());
        return total;
    }

    static Tensor sumAll(Tensor... ts) {
        Tensor acc = ts[0];
        for (int i = 1; i < ts.length; i++) acc = acc.add(ts[i]);
        return acc;
    }

    static Tensor labeledBreak(Tensor x) {
        Tensor acc = x.mul(0);
        int[] shape = x.shape();
        outer:
        for (int i = 0; i < shape[0]; i++) {
            for (int j = 0; j < shape[1]; j++) {
                if (i * shape[1] + j >= 5) break outer;
                acc = acc.add(j);
            }
        }
        int k = 0;
        do {
            acc = acc.mul(1.5);
            k++;
        } while (k < 3);
        while (true) {
            if (--k == 0) break;
            acc = acc.sub(1);
        }
        return acc;
    }

    static Tensor oldStyleSwitch(Tensor x, int mode) {
        Tensor y = x;
        switch (mode) {
            case 0:
                y = y.relu();
            case 1:                                   // falls through from 0
                y = y.add(1);
                break;
            case 2:
                y = y.neg();
                break;
            default:
                y = y.mul(0);
        }
        return y;
    }

    static Tensor textDecides(Tensor x, String spec) {
        String[] parts = spec.split(",");
        Tensor y = x;
        for (String p : parts) {
            String op = p.trim();
            if (op.isEmpty()) continue;
            if (op.charAt(0) == 's') y = y.mul(Integer.parseInt(op.substring(1)));
            else if (op.startsWith("add")) y = y.add(Double.parseDouble(op.substring(3)));
            else if (op.equalsIgnoreCase("RELU")) y = y.relu();
        }
        return y;
    }

    record Pair<A, B>(A first, B second) {
        static <A, B> Pair<A, B> of(A a, B b) { return new Pair<>(a, b); }
    }

    static Pair<Tensor, String> genericRecordAndObjects(Tensor x) {
        Pair<Tensor, Integer> p = Pair.of(x.mul(2), x.dim());
        String tag = Objects.equals(p.second(), 2) ? "matrix" : "other";
        int h = Objects.hash(tag, p.second());
        return Pair.of(p.first().add(h % 7), tag + "#" + String.valueOf(h % 7));
    }

    static Tensor mapForEachWithAccumulator(Tensor x) {
        Map<String, Double> weights = new LinkedHashMap<>();
        weights.put("a", 0.5);
        weights.put("b", 2.0);
        Tensor[] acc = {x.mul(0)};
        weights.forEach((name, w) -> acc[0] = acc[0].add(x.mul(w)).add(name.length()));
        int largest = Collections.max(List.of(x.shape()[0], x.shape()[1], 2));
        return acc[0].div(largest);
    }

    static Tensor shapeMath(Tensor x) {
        int[] shape = x.shape().clone();
        Arrays.sort(shape);
        long half = Math.round(shape[shape.length - 1] * 0.5);
        int mod = Math.floorMod(-shape[0], 3);
        return x.mul(half).add(mod).add(shape.length);
    }

    static String describeAndCatch(Tensor x) {
        try {
            if (x.dim() != 3) throw new IllegalStateException("bad shape " + Arrays.toString(x.shape()));
            return "ok";
        } catch (IllegalStateException e) {
            return "caught: " + e;
        }
    }

    static Tensor streamCollect(Tensor x) {
        List<Tensor> rows = x.unbind(0);
        List<Tensor> scaled = IntStream.range(0, rows.size()).mapToObj(i -> rows.get(i).mul(i + 1)).toList();
        Map<Boolean, List<Tensor>> byParity = IntStream.range(0, rows.size()).boxed()
                .collect(java.util.stream.Collectors.partitioningBy(i -> i % 2 == 0, java.util.stream.Collectors.mapping(rows::get, java.util.stream.Collectors.toList())));
        return Tensor.stack(scaled, 0).sum(0).add(Tensor.stack(byParity.get(true), 0).mean(0));
    }

    @Test
    void aSecondBatch() {
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::chunksAndVarargs, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::labeledBreak, X));
        for (int mode = 0; mode < 4; mode++) oneGraph(check((Fn2<Tensor, Integer, Tensor>) NewUserProgramsTest::oldStyleSwitch, X, mode));
        oneGraph(check((Fn2<Tensor, String, Tensor>) NewUserProgramsTest::textDecides, X, "s3, add0.5,, relu"));
        oneGraph(check((Fn1<Tensor, Pair<Tensor, String>>) NewUserProgramsTest::genericRecordAndObjects, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::mapForEachWithAccumulator, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::shapeMath, X));
        assertEquals("caught: java.lang.IllegalStateException: bad shape [4, 3]", describeAndCatch(X));
        Idioms.noGraph(check((Fn1<Tensor, String>) NewUserProgramsTest::describeAndCatch, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::streamCollect, X));
    }

    // ---- a third batch: modules as a newcomer writes them ----

    static final class MyNet extends dev.ember.nn.Module {
        final dev.ember.nn.Linear fc1 = new dev.ember.nn.Linear(3, 8);
        final dev.ember.nn.LayerNorm norm = new dev.ember.nn.LayerNorm(8);
        final dev.ember.nn.ModuleList<dev.ember.nn.Linear> blocks = new dev.ember.nn.ModuleList<>(new dev.ember.nn.Linear(8, 8), new dev.ember.nn.Linear(8, 8));
        final dev.ember.nn.Linear head = new dev.ember.nn.Linear(8, 2);
        final dev.ember.nn.Dropout dropout = new dev.ember.nn.Dropout(0.1);
        int calls;

        @Override
        public Tensor forward(Tensor x) {
            calls++;
            Tensor h = norm.forward(fc1.forward(x)).relu();
            for (dev.ember.nn.Linear block : blocks) h = h.add(block.forward(h).tanh());   // residual blocks
            h = isTraining() ? dropout.forward(h) : h;
            return dev.ember.nn.F.logSoftmax(head.forward(h), -1);
        }

        Tensor l2Penalty() {
            Tensor total = Tensor.zeros();
            for (dev.ember.nn.Parameter p : parameters()) total = total.add(p.pow(2).sum());
            return total;
        }

        Tensor loss(Tensor x, Tensor target) {
            Tensor out = forward(x);
            return dev.ember.nn.F.mseLoss(out, target).add(l2Penalty().mul(1e-4));
        }
    }

    @Test
    void aModuleAsANewcomerWritesIt() {
        MyNet net = new MyNet();
        net.eval();
        oneGraph(check((Fn1<Tensor, Tensor>) net::forward, X));
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) net::loss, X, Tensor.randn(4, 2)));
        assertEquals(8, net.calls, "forward's counter: eager, twice compiled and explain, for each of the two programs");
    }

    // ---- a fourth batch: caches, comparators, text ----

    static final class Normalizer {
        private Tensor cachedScale;
        private final Map<String, Integer> seen = new java.util.HashMap<>();

        Tensor apply(Tensor x, String tag) {
            if (cachedScale == null) cachedScale = Tensor.full(2.0, x.shape()[1]);   // computed once, kept in the field
            seen.merge(tag, 1, Integer::sum);
            assert x.dim() == 2 : "expected a matrix";
            return x.mul(cachedScale).add(seen.get(tag));
        }
    }

    @Test
    void aLazilyFilledField() {
        Normalizer eager = new Normalizer(), compiled = new Normalizer();
        Fn2<Tensor, String, Tensor> f = Ember.compile((Fn2<Tensor, String, Tensor>) compiled::apply);
        for (String tag : List.of("a", "b", "a")) Idioms.assertSameValue(eager.apply(X, tag), f.apply(X, tag), "tag " + tag);
        assertEquals(eager.seen, compiled.seen, "the counts the field keeps");
        Ember.reset();
        oneGraph(Ember.explain((Fn2<Tensor, String, Tensor>) new Normalizer()::apply).with(X, "a"));
    }

    static List<Object> sortedByShape(Tensor x) {
        List<Tensor> parts = new ArrayList<>(List.of(x, x.select(0, 0), x.reshape(2, 6), x.sum()));
        parts.sort(java.util.Comparator.comparingInt(Tensor::dim).thenComparingInt(t -> -t.numel()));
        Tensor biggest = parts.stream().max(java.util.Comparator.comparingInt(Tensor::numel)).orElseThrow();
        String dims = String.join(",", parts.stream().map(t -> String.valueOf(t.dim())).toList());
        return List.of(biggest.mul(2), dims, "-".repeat(parts.size()), new StringBuilder(dims).reverse().toString());
    }

    static Tensor powersInARange(Tensor x) {
        return IntStream.rangeClosed(1, 3).mapToObj(k -> x.pow(k)).reduce(Tensor::add).orElseThrow().div(Math.max(x.dim(), 3));
    }

    static String textBlockReport(Tensor x) {
        return """
                shape: %s
                rank:  %d
                """.formatted(Arrays.toString(x.shape()), x.dim());
    }

    @Test
    void comparatorsAndText() {
        oneGraph(check((Fn1<Tensor, List<Object>>) NewUserProgramsTest::sortedByShape, X));
        oneGraph(check((Fn1<Tensor, Tensor>) NewUserProgramsTest::powersInARange, X));
        Idioms.noGraph(check((Fn1<Tensor, String>) NewUserProgramsTest::textBlockReport, X));
    }

    // ---- a fifth batch: arguments a newcomer passes ----

    static Tensor optionalArgument(Tensor x, Optional<Tensor> bias) {
        return bias.isPresent() ? x.add(bias.get()) : x.neg();
    }

    static Tensor arrayArgument(Tensor[] xs, double[] weights) {
        Tensor acc = xs[0].mul(weights[0]);
        for (int i = 1; i < xs.length; i++) acc = acc.add(xs[i].mul(weights[i]));
        return acc;
    }

    static Tensor mapArgument(Map<String, Tensor> params, Tensor x) {
        Tensor w = params.get("weight");
        Tensor b = params.getOrDefault("bias", Tensor.zeros(w.shape()[0]));
        return x.matmul(w.t()).add(b);
    }

    @Test
    void argumentsOfManyKinds() {
        oneGraph(check((Fn2<Tensor, Optional<Tensor>, Tensor>) NewUserProgramsTest::optionalArgument, X, Optional.of(Tensor.ones(3))));
        oneGraph(check((Fn2<Tensor, Optional<Tensor>, Tensor>) NewUserProgramsTest::optionalArgument, X, Optional.empty()));
        oneGraph(check((Fn2<Tensor[], double[], Tensor>) NewUserProgramsTest::arrayArgument, new Tensor[] {X, X.mul(2)}, new double[] {0.5, 0.25}));
        Map<String, Tensor> params = new LinkedHashMap<>();
        params.put("weight", Tensor.randn(5, 3));
        oneGraph(check((Fn2<Map<String, Tensor>, Tensor, Tensor>) NewUserProgramsTest::mapArgument, params, X));
        params.put("bias", Tensor.randn(5));
        oneGraph(check((Fn2<Map<String, Tensor>, Tensor, Tensor>) NewUserProgramsTest::mapArgument, params, X));
    }
}
