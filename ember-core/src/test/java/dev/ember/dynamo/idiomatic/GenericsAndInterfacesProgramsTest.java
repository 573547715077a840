package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Generics and interfaces: a Module-like interface with default methods, generic containers and
 * methods, bounded type parameters, abstract classes with template methods, and an interface's
 * static factory. Each program runs eagerly and compiled; all are one graph.
 */
class GenericsAndInterfacesProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3), W = Tensor.randn(3, 3);

    /** A user's own "module" interface, with defaults built on its one abstract method. */
    interface Layer {
        Tensor forward(Tensor x);

        default Layer then(Layer next) { return x -> next.forward(forward(x)); }

        default Tensor twice(Tensor x) { return forward(forward(x)); }

        static Layer scale(double s) { return x -> x.mul(s); }

        static Layer identity() { return x -> x; }
    }

    static final class Linear implements Layer {
        private final Tensor weight;

        Linear(Tensor weight) { this.weight = weight; }

        @Override public Tensor forward(Tensor x) { return x.matmul(weight); }
    }

    static final class Relu implements Layer {
        @Override public Tensor forward(Tensor x) { return x.relu(); }
    }

    /** A generic box with a functor-like map. */
    static final class Box<T> {
        private final T value;

        Box(T value) { this.value = value; }

        <R> Box<R> map(Function<? super T, ? extends R> f) { return new Box<>(f.apply(value)); }

        T get() { return value; }
    }

    /** A generic pair of anything. */
    record Pair<A, B>(A left, B right) {
        static <T> Pair<T, T> twin(T t) { return new Pair<>(t, t); }
    }

    /** A template method: the abstract class fixes the steps, subclasses fill one in. */
    abstract static class Block {
        Tensor run(Tensor x) { return post(core(pre(x))); }

        Tensor pre(Tensor x) { return x.sub(x.mean(-1, true)); }

        abstract Tensor core(Tensor x);

        Tensor post(Tensor x) { return x.tanh(); }
    }

    static final class ExpBlock extends Block {
        @Override Tensor core(Tensor x) { return x.exp(); }
    }

    static final class SquareBlock extends Block {
        @Override Tensor core(Tensor x) { return x.mul(x); }

        @Override Tensor post(Tensor x) { return super.post(x).mul(2); }
    }

    /** A generic registry keyed by name, as a model zoo would hold layers. */
    static final class Registry<T extends Layer> {
        private final Map<String, T> byName;

        Registry(Map<String, T> byName) { this.byName = byName; }

        Tensor apply(String name, Tensor x) { return byName.get(name).forward(x); }
    }

    // ------------------------------------------------------------------ programs

    static Tensor interfaceDefaults(Tensor x, Tensor w) {
        Layer net = new Linear(w).then(new Relu()).then(Layer.scale(0.5));
        return net.forward(x);
    }

    static Tensor defaultTwice(Tensor x, Tensor w) { return new Linear(w).twice(x); }

    static Tensor layersAsAList(Tensor x, Tensor w) {
        List<Layer> layers = List.of(new Linear(w), new Relu(), Layer.identity(), new Linear(w.t()));
        Tensor h = x;
        for (Layer l : layers) h = l.forward(h);
        return h;
    }

    static Tensor genericBox(Tensor x) {
        Box<Tensor> b = new Box<>(x);
        Box<Integer> rank = b.map(Tensor::dim);
        return b.map(t -> t.mul(rank.get())).map(Tensor::sigmoid).get();
    }

    static <T extends Comparable<T>> T maxOf(List<T> items) {
        T best = items.getFirst();
        for (T t : items) if (t.compareTo(best) > 0) best = t;
        return best;
    }

    static Tensor boundedGenericMethod(Tensor x) {
        int widest = maxOf(List.of(x.size(0), x.size(1), 2));
        String last = maxOf(List.of("alpha", "gamma", "beta"));
        return x.mul(widest).add(last.length());
    }

    static Pair<Tensor, Tensor> genericRecordFactory(Tensor x) {
        Pair<Tensor, Tensor> p = Pair.twin(x.abs());
        return new Pair<>(p.left().sqrt(), p.right().neg());
    }

    static List<Tensor> templateMethods(Tensor x) {
        List<Block> blocks = List.of(new ExpBlock(), new SquareBlock());
        List<Tensor> out = new ArrayList<>();
        for (Block b : blocks) out.add(b.run(x));
        return out;
    }

    static Tensor registryLookup(Tensor x, Tensor w) {
        Registry<Layer> zoo = new Registry<>(Map.of("proj", new Linear(w), "act", new Relu()));
        return zoo.apply("act", zoo.apply("proj", x));
    }

    static Tensor wildcardSum(List<? extends Tensor> parts) {
        Tensor total = Tensor.zeros(4, 3);
        for (Tensor t : parts) total = total.add(t);
        return total;
    }

    static Tensor anonymousClass(Tensor x) {
        Layer shift = new Layer() {
            @Override public Tensor forward(Tensor t) { return t.add(3); }
        };
        return shift.then(new Relu()).forward(x);
    }

    // ------------------------------------------------------------------ tests

    @Test
    void anInterfaceWithDefaultMethodsComposes() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) GenericsAndInterfacesProgramsTest::interfaceDefaults, X, W), 3);
    }

    @Test
    void aDefaultMethodCallsTheAbstractOneTwice() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) GenericsAndInterfacesProgramsTest::defaultTwice, X, W), 2);
    }

    @Test
    void aListOfInterfaceImplementations() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) GenericsAndInterfacesProgramsTest::layersAsAList, X, W), 4);
    }

    @Test
    void aGenericBoxWithMap() {
        oneGraph(check((Fn1<Tensor, Tensor>) GenericsAndInterfacesProgramsTest::genericBox, X), 2);
    }

    @Test
    void aBoundedGenericMethod() {
        oneGraph(check((Fn1<Tensor, Tensor>) GenericsAndInterfacesProgramsTest::boundedGenericMethod, X), 2);
    }

    @Test
    void aGenericRecordsStaticFactory() {
        oneGraph(check((Fn1<Tensor, Pair<Tensor, Tensor>>) GenericsAndInterfacesProgramsTest::genericRecordFactory, X), 3);
    }

    @Test
    void templateMethodsWithOverridesAndSuperCalls() {
        oneGraph(check((Fn1<Tensor, List<Tensor>>) GenericsAndInterfacesProgramsTest::templateMethods, X));
    }

    @Test
    void aGenericRegistryOverMapOf() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) GenericsAndInterfacesProgramsTest::registryLookup, X, W), 2);
    }

    @Test
    void aWildcardListArgument() {
        Fn1<List<? extends Tensor>, Tensor> fn = GenericsAndInterfacesProgramsTest::wildcardSum;
        oneGraph(check(fn, List.of(X, X.neg(), X.exp())));
    }

    @Test
    void anAnonymousClassImplementingTheInterface() {
        oneGraph(check((Fn1<Tensor, Tensor>) GenericsAndInterfacesProgramsTest::anonymousClass, X), 2);
        assertEquals(2, Ember.explain((Fn1<Tensor, Tensor>) GenericsAndInterfacesProgramsTest::anonymousClass).with(X).opCount());
    }
}
