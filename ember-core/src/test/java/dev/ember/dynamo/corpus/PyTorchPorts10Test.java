package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A tenth batch of ports of PyTorch's Dynamo tests (test_misc.py, test_sets.py, test_unspec.py,
 * test_generator.py), each run eagerly and compiled; where Dynamo's test asserts fullgraph, a frame
 * or an op count, so does the port.
 */
class PyTorchPorts10Test {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    private static CompileCounter check(Object fn, Options options, java.util.function.Supplier<List<Object[]>> calls) {
        return PyTorchPortsMoreTest.check(fn, options, calls);
    }

    // ---- test_misc.py ----

    static Tensor onesWhenCompiling() { return Ember.isCompiling() ? Tensor.ones(2, 2) : Tensor.zeros(2, 2); }

    @Test
    void isCompiling() { // test_misc.py::test_is_compiling: torch.compiler.is_compiling() is true compiled, false eager
        Fn0<Tensor> f = PyTorchPorts10Test::onesWhenCompiling;
        assertArrayEquals(Tensor.zeros(2, 2).toDoubleArray(), f.apply().toDoubleArray(), 0);
        assertArrayEquals(Tensor.ones(2, 2).toDoubleArray(), Ember.compile(f, Options.fullgraph()).apply().toDoubleArray(), 0);
    }

    static Tensor cosOf(Tensor x) { return x.cos(); }

    @Test
    void markStatic() { // test_misc.py::test_mark_static: a dimension marked static recompiles for a new size: 2 frames
        CompileCounter cc = new CompileCounter();
        Tensor y = Tensor.randn(3);
        Ember.markStatic(y, 0);
        Fn1<Tensor, Tensor> f = PyTorchPorts10Test::cosOf;
        assertArrayEquals(y.cos().toDoubleArray(), Ember.compile(f, Options.backend(cc)).apply(y).toDoubleArray(), 1e-6);
        Tensor z = Tensor.randn(4);
        assertArrayEquals(z.cos().toDoubleArray(), Ember.compile(f, Options.backend(cc)).apply(z).toDoubleArray(), 1e-6);
        assertEquals(2, cc.frameCount(), "frames");
    }

    static Tensor sinOrCos(Tensor x) { return x.size(0) > 3 ? x.sin() : x.cos(); }

    @Test
    void noRaiseGuardPartialConstraint() { // test_misc.py::test_no_raise_guard_partial_constraint: a marked dimension compared (> 3) compiles, answers as eager
        Tensor y = Tensor.randn(3, 3, 3);
        Fn1<Tensor, Tensor> f = PyTorchPorts10Test::sinOrCos;
        Ember.compile(f, Options.backend("eager")).apply(y);
        Ember.markDynamic(y, 0);
        Ember.reset();
        assertArrayEquals(sinOrCos(y).toDoubleArray(), Ember.compile(f, Options.backend("eager")).apply(y).toDoubleArray(), 1e-6);
    }

    static Tensor intNeg(Tensor a, Tensor b) {
        int x = a.size(0), y = b.size(0);
        return a.mul(-x * -y).mul(b);
    }

    @Test
    void intNeg() { PyTorchPortsMoreTest.standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPorts10Test::intNeg, 2, -1); } // test_misc.py::test_int_neg

    static List<Integer> addSizes(Tensor x) {
        int[] y = x.shape();
        List<Integer> both = new ArrayList<>(IntStream.of(y).boxed().toList());
        both.addAll(IntStream.of(y).boxed().toList());
        return both;
    }

    @Test
    void addSizes() { // test_misc.py::test_add_sizes: a size list concatenated with itself, as eager's
        check((Fn1<Tensor, List<Integer>>) PyTorchPorts10Test::addSizes, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.ones(10, 10, 3))));
    }

    static List<Object> formatReturn(Tensor img) {
        Tensor x = img.sin();
        String y = String.format("shape %s batch size %d", java.util.Arrays.toString(java.util.Arrays.copyOfRange(img.shape(), img.dim() - 2, img.dim())), img.size(0));
        return List.of(img.add(x), y);
    }

    @Test
    void strFormatReturn1() { // test_misc.py::test_str_format_return1: fullgraph, the string returned with the tensor
        CompileCounter cc = check((Fn1<Tensor, List<Object>>) PyTorchPorts10Test::formatReturn, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(1, 1, 8, 8))));
        assertEquals(1, cc.frameCount());
    }

    static Tensor formatAssert(Tensor img) {
        Tensor x = img.sin();
        if (!(img.size(-2) == 8 && img.size(-1) == 16)) throw new AssertionError(String.format("shape %s", java.util.Arrays.toString(img.shape())));
        return img.add(x);
    }

    @Test
    void strFormatAssert2() { // test_misc.py::test_str_format_assert2: one frame; a failing shape recompiles and raises eager's AssertionError
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) PyTorchPorts10Test::formatAssert, Options.backend(cc));
        Tensor img1 = Tensor.randn(1, 3, 8, 16);
        assertArrayEquals(img1.add(img1.sin()).toDoubleArray(), f.apply(img1).toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount());
        AssertionError e = assertThrows(AssertionError.class, () -> f.apply(Tensor.randn(1, 3, 8, 15)));
        assertEquals("shape [1, 3, 8, 15]", e.getMessage());
    }

    static Integer sumOfACopiedLinkedHashMap() {
        Map<String, Integer> d1 = new HashMap<>();
        d1.put("a", 1);
        Map<String, Integer> d2 = new LinkedHashMap<>(d1);
        d2.put("b", 2);
        Ember.graphBreak();
        return d2 instanceof LinkedHashMap<String, Integer> od ? od.get("a") + od.get("b") : 0;
    }

    @Test
    void orderedDictAliasReconstruct() { // test_misc.py::test_ordered_dict_alias_reconstruct: the LinkedHashMap rebuilt across the break is one still
        assertEquals(3, Ember.compile((Fn0<Integer>) PyTorchPorts10Test::sumOfACopiedLinkedHashMap, Options.backend("eager")).apply());
    }

    static Tensor strIter(Tensor x) { return "a".chars().iterator().nextInt() == 'a' ? x.add(1) : x; }

    @Test
    void strIterator() { // test_misc.py::test_str___iter__: the first char of a string's iterator, fullgraph
        check((Fn1<Tensor, Tensor>) PyTorchPorts10Test::strIter, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(3))));
    }

    // ---- test_sets.py (test_misc.py in older trees) ----

    static Tensor iterSet(List<Tensor> x, Tensor y) {
        Set<Tensor> setty = new HashSet<>();
        for (Tensor t : x) setty.add(t);
        return y.mul(setty.size());
    }

    @Test
    void iterSet() { // test_iter_set: a set of the list's tensors (by identity), fullgraph, one frame
        Tensor x = Tensor.randn(10, 10), y = Tensor.randn(2, 2);
        CompileCounter cc = check((Fn2<List<Tensor>, Tensor, Tensor>) PyTorchPorts10Test::iterSet, Options.fullgraph(), () -> List.<Object[]>of(args(List.of(x, x, x, x, y), y)));
        assertEquals(1, cc.frameCount());
    }

    static Tensor addToSet(List<Tensor> x, Tensor y) {
        Set<Tensor> setty = new HashSet<>();
        setty.add(x.get(0));
        setty.add(x.get(1));
        setty.add(x.get(2));
        setty.add(y);
        return y.mul(setty.size());
    }

    @Test
    void addToSet() { // test_add_to_set: fullgraph, one frame
        Tensor x = Tensor.randn(10, 10), y = Tensor.randn(2, 2);
        CompileCounter cc = check((Fn2<List<Tensor>, Tensor, Tensor>) PyTorchPorts10Test::addToSet, Options.fullgraph(), () -> List.<Object[]>of(args(List.of(x, x, x, x, y), y)));
        assertEquals(1, cc.frameCount());
    }

    static Tensor removeSet(Tensor x) {
        Set<Integer> setA = new HashSet<>(List.of(4, 5));
        setA.remove(4);
        return x.mul(setA.size());
    }

    @Test
    void removeSet() { check((Fn1<Tensor, Tensor>) PyTorchPorts10Test::removeSet, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(4)))); } // test_remove_set

    static Tensor simpleSetUsage(Tensor x, Tensor y) {
        Set<Tensor> setty = new HashSet<>(List.of(x, y));
        Iterator<Tensor> it = setty.iterator();
        return it.next().mul(it.next());
    }

    static Tensor simpleLinkedSetUsage(Tensor x, Tensor y) {
        Set<Tensor> setty = new java.util.LinkedHashSet<>(List.of(x, y));
        Iterator<Tensor> it = setty.iterator();
        return it.next().mul(it.next());
    }

    @Test
    void simpleSetUsage() { // test_simple_set_usage: fullgraph, one frame
        // a HashSet of tensors iterates in their identity hash codes' order, which only the run knows: Java's answer needs a
        // break (where Python's set is traced); a LinkedHashSet iterates in insertion order and is captured whole, as Dynamo's
        CompileCounter cc = check((Fn2<Tensor, Tensor, Tensor>) PyTorchPorts10Test::simpleLinkedSetUsage, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.randn(10, 10), Tensor.randn(10, 10))));
        assertEquals(1, cc.frameCount());
        check((Fn2<Tensor, Tensor, Tensor>) PyTorchPorts10Test::simpleSetUsage, Options.defaults(), () -> List.<Object[]>of(args(Tensor.randn(10, 10), Tensor.randn(10, 10))));
        var e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) PyTorchPorts10Test::simpleSetUsage).with(Tensor.randn(10, 10), Tensor.randn(10, 10));
        org.junit.jupiter.api.Assertions.assertTrue(e.breakReasons().getFirst().reason().contains("identity hash codes, which are not known while tracing"), e.toString());
    }

    static Tensor setAcrossABreak(List<Tensor> x, Tensor y) {
        Set<Tensor> setty = new HashSet<>();
        for (Tensor t : x) setty.add(t);
        Ember.graphBreak();
        return y.mul(setty.size());
    }

    @Test
    void reconstructSetAcrossGraphBreak() { // test_reconstruct_set_across_graph_break: the set rebuilt for the code after the break
        Tensor x = Tensor.randn(10, 10), y = Tensor.randn(2, 2);
        check((Fn2<List<Tensor>, Tensor, Tensor>) PyTorchPorts10Test::setAcrossABreak, Options.defaults(), () -> List.<Object[]>of(args(List.of(x, x, x, x, y), y)));
    }

    static final Tensor G1 = Tensor.randn(10);

    static Tensor setAliasing(Tensor a, Tensor b, Tensor c) {
        Set<Tensor> mySet = new HashSet<>(List.of(G1, a, b, c));
        return a.add(mySet.size());
    }

    @Test
    void setAliasingRecompiles() { // test_set_aliasing_recompiles: a new aliasing of the inputs recompiles; the same one does not
        Tensor g2 = Tensor.randn(10), g3 = Tensor.randn(10), g4 = Tensor.randn(10);
        CompileCounter cc = new CompileCounter();
        Fn3<Tensor, Tensor, Tensor, Tensor> foo = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) PyTorchPorts10Test::setAliasing, Options.backend(cc));
        int[] expected = {1, 1, 2, 2, 3};
        Tensor[][] calls = {{g2, g3, g4}, {g3, g2, g4}, {g2, g2, g2}, {g3, g3, g3}, {G1, G1, G1}};
        for (int i = 0; i < calls.length; i++) {
            Tensor[] c = calls[i];
            assertArrayEquals(setAliasing(c[0], c[1], c[2]).toDoubleArray(), foo.apply(c[0], c[1], c[2]).toDoubleArray(), 1e-6, "call " + i);
            assertEquals(expected[i], cc.frameCount(), "frames after call " + i);
        }
    }

    // ---- test_generator.py (generators as the streams a Java program writes) ----

    static List<Tensor> yieldFrom(List<Tensor> tList, int k) {
        List<Tensor> l2 = tList.stream().map(t -> t.mul(k)).toList();
        return l2.stream().map(t -> t.mul(k)).toList();
    }

    @Test
    void yieldFrom() { // test_generator.py::test_yield_from: one frame
        CompileCounter cc = check((Fn2<List<Tensor>, Integer, List<Tensor>>) PyTorchPorts10Test::yieldFrom, Options.defaults(),
                () -> List.<Object[]>of(args(List.of(Tensor.randn(2, 3), Tensor.randn(2, 3), Tensor.randn(2, 3)), 2)));
        assertEquals(1, cc.frameCount());
    }

    static Tensor yieldFromInALoop(Tensor x) {
        int c = IntStream.range(0, 5).flatMap(v -> IntStream.of(1)).sum();
        return x.add(c);
    }

    @Test
    void yieldFromInALoop() { check((Fn1<Tensor, Tensor>) PyTorchPorts10Test::yieldFromInALoop, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.zeros(4)))); } // test_yield_from_in_a_loop

    // ---- test_unspec.py ----

    static Map<String, Object> twoOutputs(Tensor x, Double y) { return Map.of("a", x.add(1), "b", y / 2); }

    @Test
    void noRecompilations() { // test_unspec.py::test_no_recompilations: a new double is no recompile: one frame, two ops
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Double, Map<String, Object>> f = Ember.compile((Fn2<Tensor, Double, Map<String, Object>>) PyTorchPorts10Test::twoOutputs, Options.backend(cc));
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2);
        for (int i = 0; i < 10; i++) Compiled.assertSame(twoOutputs(x, (double) i), f.apply(x, (double) i), "call " + i);
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(2, cc.opCount(), "ops");
    }

    static List<Object> builtinMaxMin(int x, int y, Tensor z) { return List.of(z.add(1), Math.max(x, y), Math.min(x - 4, y)); }

    @Test
    void builtinMaxMin() { // test_unspec.py::test_builtin_max_min: max and min of ints beside a tensor op, as eager's
        check((Fn3<Integer, Integer, Tensor, List<Object>>) PyTorchPorts10Test::builtinMaxMin, Options.defaults(),
                () -> List.<Object[]>of(args(5, 7, Tensor.randn(2)), args(6, 3, Tensor.randn(2)), args(9, 1, Tensor.randn(2))));
    }
}
