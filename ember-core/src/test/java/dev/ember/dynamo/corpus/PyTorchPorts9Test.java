package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.nn.Dropout;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;
import java.util.Iterator;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A ninth batch of ports of PyTorch's Dynamo tests (test_recompiles.py, test_functions.py,
 * test_misc.py), each run eagerly and compiled; where Dynamo's test asserts nopython, a frame or an
 * op count, so does the port.
 */
class PyTorchPorts9Test {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    private static CompileCounter check(Object fn, Options options, java.util.function.Supplier<List<Object[]>> calls) {
        return PyTorchPortsMoreTest.check(fn, options, calls);
    }

    // ---- test_recompiles.py ----

    static Tensor g1 = Tensor.randn(3), g2 = Tensor.randn(3);

    static Tensor addsAGlobal(Tensor a) {
        a.add_(g1);
        return g2.add(1);
    }

    @Test
    void aliasingGuardFailuresWithGlobals() { // test_recompiles.py::test_aliasing_guard_failures_with_globals: eager's values when the input aliases the global
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) PyTorchPorts9Test::addsAGlobal, Options.fullgraph().withBackend(cc));
        Tensor z = Tensor.randn(3);
        assertArrayEquals(addsAGlobal(z.clone()).toDoubleArray(), f.apply(z.clone()).toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount());
        Tensor before = g1.clone();
        g1 = before.clone();
        Tensor compiled = f.apply(g1);           // a.add_(g1) with a == g1: doubles it
        double[] compiledG1 = g1.toDoubleArray();
        g1 = before.clone();
        Tensor eager = addsAGlobal(g1);
        assertArrayEquals(eager.toDoubleArray(), compiled.toDoubleArray(), 1e-6);
        assertArrayEquals(g1.toDoubleArray(), compiledG1, 1e-6, "the global doubled in place, as eager's");
        // as Dynamo's: the graph was traced with the global and the argument as two tensors, so NO_TENSOR_ALIASING (which
        // covers tensors read from static fields, capture session 16) fails and the frame recompiles
        assertEquals(2, cc.frameCount(), "the argument aliasing the global recompiles");
    }

    static Tensor plusNThrice(Tensor x, int n) { return h3(g3(x.add(n), n), n); }

    static Tensor g3(Tensor x, int n) { return x.add(n); }

    static Tensor h3(Tensor x, int n) { return x.add(n); }

    @Test
    void noRecursiveCompileAfterCacheLimitHit() { // test_recompiles.py::test_no_recursive_compile_after_cache_limit_hit: cache limit 2, static ints: 2 frames
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Integer, Tensor> f = Ember.compile((Fn2<Tensor, Integer, Tensor>) PyTorchPorts9Test::plusNThrice,
                Options.defaults().dynamic(false).recompileLimit(2).withBackend(cc));
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(plusNThrice(Tensor.ones(3), i).toDoubleArray(), f.apply(Tensor.ones(3), i).toDoubleArray(), 1e-6);
        }
        assertEquals(2, cc.frameCount(), "frames");
    }

    static IntFunction<Fn1<Tensor, Tensor>> ADDER = i -> y -> y.add(i);

    static Tensor callsIt(Tensor x, Fn1<Tensor, Tensor> g) { return g.apply(x); }

    @Test
    void automaticDynamicOnClosedInts() { // test_recompiles.py::test_automatic_dynamic_on_closed_ints: 2 frames over 10 closures
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Fn1<Tensor, Tensor>, Tensor> h = Ember.compile((Fn2<Tensor, Fn1<Tensor, Tensor>, Tensor>) PyTorchPorts9Test::callsIt, Options.backend(cc));
        for (int i = 0; i < 10; i++) {
            Tensor x = Tensor.randn(5);
            assertArrayEquals(x.add(i).toDoubleArray(), h.apply(x, ADDER.apply(i)).toDoubleArray(), 1e-6);
        }
        assertEquals(2, cc.frameCount(), "frames");
    }

    static final class SimpleDropout extends Module {
        final Dropout dropout = new Dropout(0.5);
        final Linear linear = new Linear(10, 1);

        @Override
        public Tensor forward(Tensor x) { return dropout.forward(linear.forward(x)); }
    }

    static Tensor runModel(SimpleDropout m, Tensor x) { return m.forward(x); }

    @Test
    void simpleModuleRecompile() { // test_recompiles.py::test_simple_module_recompile: eval/train toggled 20 times, fullgraph: 2 frames
        SimpleDropout model = new SimpleDropout();
        Tensor x = Tensor.randn(10);
        CompileCounter cc = new CompileCounter();
        Fn2<SimpleDropout, Tensor, Tensor> f = Ember.compile((Fn2<SimpleDropout, Tensor, Tensor>) PyTorchPorts9Test::runModel, Options.fullgraph().withBackend(cc));
        for (int i = 0; i < 20; i++) {
            model.eval();
            assertArrayEquals(model.forward(x).toDoubleArray(), f.apply(model, x).toDoubleArray(), 1e-6);
            model.train();
            assertEquals(1, f.apply(model, x).numel());
        }
        assertEquals(2, cc.frameCount(), "frames");
    }

    // ---- test_functions.py ----

    static Tensor addcmulInPlace(Tensor x, Tensor y, Tensor z, Double s) { return x.addcmul_(y, z, s); }

    @Test
    void addcmulInPlace() { // test_functions.py::test_addcmul_: fullgraph, one frame
        CompileCounter cc = check((Fn4<Tensor, Tensor, Tensor, Double, Tensor>) PyTorchPorts9Test::addcmulInPlace, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.ones(2, 2), Tensor.ones(2, 2).add(1), Tensor.rand(2, 2), 0.3)));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static List<Tensor> foreachLerpInPlace(List<Tensor> xs, List<Tensor> ys, Tensor s) {
        for (int i = 0; i < xs.size(); i++) xs.get(i).lerp_(ys.get(i), s);
        return xs;
    }

    @Test
    void foreachLerpInPlace() { // test_functions.py::test_foreach_lerp_ (torch._foreach_lerp_ as the loop it stands for): fullgraph, one frame
        CompileCounter cc = check((Fn3<List<Tensor>, List<Tensor>, Tensor, List<Tensor>>) PyTorchPorts9Test::foreachLerpInPlace, Options.fullgraph(),
                () -> List.<Object[]>of(args(List.of(Tensor.ones(2, 2).mul(4.26), Tensor.ones(2, 2).mul(3.14)), List.of(Tensor.ones(2, 2), Tensor.ones(2, 2)), Tensor.scalar(0.5))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static Tensor onesLikeT(Tensor x) { return Tensor.onesLike(x.T()); }

    static Tensor onesLikeMT(Tensor x) { return Tensor.onesLike(x.mT()); }

    @Test
    void transposeProperties() { // test_functions.py::test_T, test_mT: standard_test, one frame each
        PyTorchMiscPortsTest.standardTest((Fn1<Tensor, Tensor>) PyTorchPorts9Test::onesLikeT, 1, -1);
        Ember.reset();
        PyTorchMiscPortsTest.standardTest((Fn1<Tensor, Tensor>) PyTorchPorts9Test::onesLikeMT, 1, -1);
    }

    static Tensor plusIndexOfThree(Tensor t, List<Integer> xs) { return t.add(xs.indexOf(3)); }

    @Test
    void listIndex() { // test_functions.py::test_list_index: list, tuple-like and view lists, fullgraph, t + 2
        for (List<Integer> xs : List.<List<Integer>>of(new ArrayList<>(List.of(1, 2, 3, 4)), List.of(1, 2, 3, 4), Arrays.asList(1, 2, 3, 4),
                List.of(0, 1, 2, 3, 4).subList(1, 5), List.of(4, 3, 2, 1).reversed())) {
            Ember.reset();
            CompileCounter cc = check((Fn2<Tensor, List<Integer>, Tensor>) PyTorchPorts9Test::plusIndexOfThree, Options.fullgraph(),
                    () -> List.<Object[]>of(args(Tensor.zeros(1), xs)));
            assertEquals(1, cc.frameCount(), xs.getClass().getName());
            assertEquals(2.0, Ember.compile((Fn2<Tensor, List<Integer>, Tensor>) PyTorchPorts9Test::plusIndexOfThree).apply(Tensor.zeros(1), xs).item());
        }
    }

    static Tensor addsRepeated(Tensor x) {
        for (double i : Collections.nCopies(5, 100.0)) x.add_(i);
        return x;
    }

    @Test
    void itertoolsRepeat() { // test_functions.py::test_itertools_repeat (itertools.repeat as Collections.nCopies): fullgraph, no break
        CompileCounter cc = check((Fn1<Tensor, Tensor>) PyTorchPorts9Test::addsRepeated, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(2, 5))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static List<Integer> headMask(int count) {
        List<Integer> out = new ArrayList<>();
        for (List<Integer> part : Collections.nCopies(count * count, List.of(2, 3))) out.addAll(part);
        return out;
    }

    @Test
    void tupleMul() { // test_misc.py::test_tuple_mul: no tensor, static by default: no frame, no op
        CompileCounter cc = check((Fn1<Integer, List<Integer>>) PyTorchPorts9Test::headMask, Options.defaults(), () -> List.<Object[]>of(args(2)));
        assertEquals(0, cc.frameCount(), "frames");
        assertEquals(0, cc.opCount(), "ops");
    }

    // ---- test_misc.py ----

    static final class C {
        static Tensor twice(Tensor x) { return x.add(x); }

        Tensor twiceOnObject(Tensor x) { return x.add(x); }
    }

    static Tensor staticOnANewObject() { return C.twice(Tensor.ones(2, 3)); }

    static Tensor methodOnANewObject() { return new C().twiceOnObject(Tensor.ones(2, 3)); }

    @Test
    void objectStaticAndClassMethods() { // test_misc.py::test_object_staticmethod, test_object_classmethod: nopython, all 2.0
        for (Fn0<Tensor> fn : List.<Fn0<Tensor>>of(PyTorchPorts9Test::staticOnANewObject, PyTorchPorts9Test::methodOnANewObject)) {
            Ember.reset();
            CompileCounter cc = check(fn, Options.fullgraph(), () -> List.<Object[]>of(args()));
            assertEquals(1, cc.frameCount());
            assertArrayEquals(new double[] {2, 2, 2, 2, 2, 2}, Ember.compile(fn, Options.fullgraph()).apply().toDoubleArray());
        }
    }
    // ---- test_functions.py: itertools, as a Java program writes them (streams, iterators, loops) ----

    static Tensor addsAnEndlessStream(Tensor x) {
        Iterator<Double> r = Stream.generate(() -> 100.0).iterator();
        int idx = 0;
        while (r.hasNext()) {
            x.add_(r.next());
            idx++;
            if (idx > 10) break;
        }
        return x;
    }

    @Test
    void itertoolsInfiniteRepeat() { // test_functions.py::test_itertools_infinite_repeat (itertools.repeat(100.0) as Stream.generate): fullgraph
        CompileCounter cc = check((Fn1<Tensor, Tensor>) PyTorchPorts9Test::addsAnEndlessStream, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(2, 5))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static Tensor addsACount(Tensor x, Integer start, Integer step) {
        int idx = 0;
        for (PrimitiveIterator.OfInt r = IntStream.iterate(start, i -> i + step).iterator(); r.hasNext(); ) {
            x.add_(r.nextInt());
            idx++;
            if (idx > 10) break;
        }
        return x;
    }

    @Test
    void itertoolsInfiniteCount() { // test_functions.py::test_itertools_infinite_count (count(), count(10), count(5, -1) as IntStream.iterate): fullgraph
        CompileCounter cc = check((Fn3<Tensor, Integer, Integer, Tensor>) PyTorchPorts9Test::addsACount, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.randn(2, 5), 0, 1), args(Tensor.randn(2, 5), 10, 1), args(Tensor.randn(2, 5), 5, -1)));
        // fullgraph: no break; start changes at the second call and step at the third, each a recompile that makes it dynamic, as Dynamo's
        assertEquals(3, cc.frameCount(), "frames");
    }

    static List<Tensor> everyThirdOfAnEndlessStream(Tensor x) {
        Iterator<Tensor> it = Stream.iterate(x, t -> t.mul(2)).skip(1).filter(t -> t.dim() == 1).limit(3).iterator();
        List<Tensor> out = new ArrayList<>();
        while (it.hasNext()) out.add(it.next());
        try {
            it.next();
        } catch (java.util.NoSuchElementException e) {
            out.add(x.neg());
        }
        return out;
    }

    @Test
    void anEndlessStreamsIteratorThroughSteps() { // the same mechanism with skip, filter and limit before the iterator: it ends where Java's does
        CompileCounter cc = check((Fn1<Tensor, List<Tensor>>) PyTorchPorts9Test::everyThirdOfAnEndlessStream, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(4))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static Tensor multipliesBySizes(Tensor x) {
        int running = 0;
        for (int size : List.of(x.size(0), x.size(1))) {
            running += size;
            x.mul_(running);
        }
        return x;
    }

    @Test
    void itertoolsAccumulateSymintDefaultSum() { // test_functions.py::test_itertools_accumulate_symint_default_sum (accumulate as a running sum): fullgraph
        CompileCounter cc = check((Fn1<Tensor, Tensor>) PyTorchPorts9Test::multipliesBySizes, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(2, 3))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    /** itertools.accumulate written as a Java iterator over running sums. */
    static final class Accumulate implements Iterator<Tensor> {
        private final Iterator<Tensor> it;
        private Tensor accumulator;

        Accumulate(Iterable<Tensor> items) { this.it = items.iterator(); }

        @Override
        public boolean hasNext() { return it.hasNext(); }

        @Override
        public Tensor next() {
            Tensor t = it.next();
            accumulator = accumulator == null ? t : accumulator.add(t);
            return accumulator;
        }
    }

    static List<Tensor> runningSums(Tensor a, Tensor b, Tensor c, Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(a, b, c, x));
        for (int i = 0; i < l.size(); i++) l.set(i, l.get(i).mul(x));
        List<Tensor> out = new ArrayList<>();
        for (Iterator<Tensor> it = new Accumulate(l); it.hasNext(); ) out.add(it.next());
        return out;
    }

    @Test
    void itertoolsAccumulateTensorsDefaultSum() { // test_functions.py::test_itertools_accumulate_tensors_default_sum, test_pure_python_accumulate: fullgraph, one frame
        CompileCounter cc = check((Fn4<Tensor, Tensor, Tensor, Tensor, List<Tensor>>) PyTorchPorts9Test::runningSums, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.of(1), Tensor.of(2), Tensor.of(3), Tensor.of(new double[] {1, 2, 3, 4}, 2, 2))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static List<Map.Entry<Integer, List<Integer>>> groupRuns(List<Integer> l) {
        List<Map.Entry<Integer, List<Integer>>> out = new ArrayList<>();
        for (int v : l) {
            if (out.isEmpty() || !out.getLast().getKey().equals(v)) out.add(Map.entry(v, new ArrayList<>()));
            out.getLast().getValue().add(v);
        }
        return out;
    }

    @Test
    void itertoolsGroupbyDefaultKey() { // test_functions.py::test_itertools_groupby_pure_python_default_identify_func: no tensor, no frame, no break
        CompileCounter cc = check((Fn1<List<Integer>, List<Map.Entry<Integer, List<Integer>>>>) PyTorchPorts9Test::groupRuns, Options.fullgraph(),
                () -> List.<Object[]>of(args(List.of(1, 2, 2, 3, 4, 4, 4, 1, 2))));
        assertEquals(0, cc.frameCount(), "frames");
    }

    static List<Tensor> everyOtherRow(Tensor x) {
        List<Tensor> rows = x.unbind(0);
        List<Tensor> out = new ArrayList<>();
        for (int i = 2; i < Math.min(5, rows.size()); i += 2) out.add(rows.get(i));
        return out;
    }

    @Test
    void itertoolsIslice() { // test_functions.py::test_itertools_islice (islice(x, 2, 5, 2) over a tensor's rows): fullgraph, no break
        CompileCounter cc = check((Fn1<Tensor, List<Tensor>>) PyTorchPorts9Test::everyOtherRow, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(6, 3))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    static final Iterator<Integer> COUNTER = IntStream.iterate(0, i -> i + 1).iterator();

    static Tensor timesNextCount(Tensor x) { return x.mul(COUNTER.next() + 1); }

    @Test
    void itertoolsCountFromUncompiledRegion() { // test_functions.py::test_itertools_count_from_uncompiled_region: the counter made outside advances once per call
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) PyTorchPorts9Test::timesNextCount);
        Tensor x = Tensor.randn(2, 5);
        int first = COUNTER.next();
        assertArrayEquals(x.mul(first + 2).toDoubleArray(), f.apply(x).toDoubleArray(), 1e-6);
        assertArrayEquals(x.mul(first + 3).toDoubleArray(), f.apply(x).toDoubleArray(), 1e-6);
        assertEquals(first + 3, COUNTER.next(), "advanced once per call, as eager's");
    }
}
