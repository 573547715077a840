package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.GradMode;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Programs ported from PyTorch's test/dynamo/test_misc.py (and a few from test_ctx_manager.py and
 * test_repros.py) about capture semantics, written as a Java developer would write them. Each
 * names the test it ports; PyTorchMiscPortsTest runs them eagerly and compiled.
 */
final class PyTorchMiscPortsPrograms {
    private PyTorchMiscPortsPrograms() {}

    // test_misc.py::test_boolarg (None is Python's third truth value: a null Boolean here)
    static Tensor boolarg(Tensor aa, Tensor bb, Boolean flag) {
        if (flag != null && flag) return aa.sub(bb);
        return bb.sub(aa);
    }

    // test_misc.py::test_raises
    static Tensor raises(Tensor a, Tensor b, Tensor c) {
        Tensor x = a.add(b).sub(c.mul(10));
        throw new AssertionError(x.toString());
    }

    // test_misc.py::test_unpack4
    static Tensor unpack4(Tensor a, Tensor b) {
        a = a.slice(0, 0, 5, 1);
        b = b.slice(0, 0, 5, 1);
        int[] size = a.shape();
        int x = size[0], y = size[1];
        Tensor o = Tensor.empty(x, y);
        o.copy_(a.div(b));
        return o;
    }

    // test_misc.py::test_unpack5
    static Tensor unpack5(Tensor a, Tensor b) {
        a = a.narrow(0, 0, 5);
        b = b.narrow(0, 0, 5);
        int x = a.size(0), y = a.size(1);
        Tensor o = Tensor.empty(x, y);
        o.copy_(a.div(b));
        return o;
    }

    // test_misc.py::test_int_shape_binops (Python's // and % floor; for these positive ints Java's / and % agree)
    static Tensor intShapeBinops(Tensor x) {
        int y = 15 - x.shape()[0];
        y = 4 + y;
        y = 5 * y;
        y = 2 % y;
        y = (int) Math.pow(3, y);
        y = 10 / y;
        double p = Math.pow(2, y);
        double q = 10 / p;
        return x.add(q);
    }

    // test_misc.py::test_shape_int_inplace_binops (p /= 2 makes p a float in Python: a double here)
    static Tensor shapeIntInplaceBinops(Tensor x) {
        int n = x.shape()[0];
        n += 2;
        n -= 2;
        n = n * n;
        double p = n;
        p /= 2;
        p *= 2;
        p = Math.floor(p / 2);
        p %= 2;
        return x.add(p);
    }

    // test_misc.py::test_int_shape_inplace_binops
    static Tensor intShapeInplaceBinops(Tensor x) {
        int p = x.shape()[0];
        int y = 2;
        y += p;
        y = 2;
        y -= p;
        y = 2;
        y = (int) Math.pow(y, p);
        y = 2;
        double z = y;
        z /= p;
        y = 2;
        y *= p;
        y = 2;
        y /= p;
        y = 2;
        y %= p;
        return x.add(y);
    }

    // test_misc.py::test_int_int_comparisons
    @SuppressWarnings("all")
    static Tensor intIntComparisons(Tensor x) {
        int out;
        if (2 != 2) out = 1;
        else if (2 < 1) out = 1;
        else if (1 > 2) out = 1;
        else if (1 >= 2) out = 1;
        else if (2 <= 1) out = 1;
        else if (2 == 2) out = 2;
        else out = 1;
        return x.add(out);
    }

    // test_misc.py::test_shape_int_comparisons
    static Tensor shapeIntComparisons(Tensor x) {
        int a = x.shape()[0];
        int out;
        if (a != 10) out = 1;
        else if (a < 2) out = 1;
        else if (a > 12) out = 1;
        else if (a >= 12) out = 1;
        else if (a <= 2) out = 1;
        else if (a == 10) out = 2;
        else out = 1;
        return x.add(out);
    }

    // test_misc.py::test_int_shape_comparisons
    static Tensor intShapeComparisons(Tensor x) {
        int a = x.shape()[0];
        int out;
        if (10 != a) out = 1;
        else if (12 < a) out = 1;
        else if (2 > a) out = 1;
        else if (2 >= a) out = 1;
        else if (12 <= a) out = 1;
        else if (10 == a) out = 2;
        else out = 1;
        return x.add(out);
    }

    // test_misc.py::test_param_shape_binops (15 ** 15 fits a long; Python's ints are unbounded)
    static final class ParamShapeModule extends Module {
        Parameter param = new Parameter(Tensor.randn(15));

        @Override
        public Tensor forward(Tensor x) {
            long p = param.shape()[0];
            long y = p - x.shape()[0];
            y = p + y;
            y = p * y;
            y = p % y;
            long power = 1;
            for (long i = 0; i < y; i++) power *= p;
            y = power;
            y = p / y;
            y = (long) Math.pow(p, y);
            double z = (double) p / y;
            return x.add(z);
        }
    }

    // test_misc.py::test_user_defined_iter
    static final class IterableModule implements Iterable<Tensor> {
        final List<Tensor> a = new ArrayList<>(List.of(Tensor.randn(2, 2), Tensor.randn(2, 2)));

        @Override
        public Iterator<Tensor> iterator() { return a.iterator(); }
    }

    static List<Tensor> userDefinedIter(IterableModule mod) {
        List<Tensor> ret = new ArrayList<>();
        for (Tensor x : mod) ret.add(x.add(1));
        return ret;
    }

    // test_misc.py::test_compare_shapes_eq (a list of sizes, and the shape array itself)
    static Tensor compareShapesEqList(Tensor a, Tensor b) {
        List<Integer> x = new ArrayList<>(), y = new ArrayList<>();
        for (int d : a.unsqueeze(-1).shape()) x.add(d);
        for (int d : b.unsqueeze(-1).shape()) y.add(d);
        return x.equals(y) ? a.add(1) : a.add(2);
    }

    static Tensor compareShapesEqArray(Tensor a, Tensor b) {
        return Arrays.equals(a.shape(), b.shape()) ? a.add(1) : a.add(2);
    }

    // test_misc.py::test_compare_shapes_neq
    static Tensor compareShapesNeq(Tensor a, Tensor b) {
        List<Integer> x = new ArrayList<>(), y = new ArrayList<>();
        for (int d : a.unsqueeze(-1).shape()) x.add(d);
        for (int d : b.unsqueeze(-1).shape()) y.add(d);
        return !x.equals(y) ? a.add(1) : a.add(2);
    }

    // test_misc.py::test_compare_shapes_with_constant
    static Tensor compareShapesWithConstant(Tensor a) {
        int[] x = a.shape();
        if (x[0] != 3) return a.mul(4);
        return a.mul(3);
    }

    // test_misc.py::test_builtin_abs
    static Tensor builtinAbs(Tensor x, Tensor y) { return x.abs().add(y.abs()); }

    static Tensor builtinAbsOfNumber(double x, Tensor y) { return y.abs().add(Math.abs(x)); }

    // test_misc.py::test_builtin_isinstance
    static List<Boolean> builtinIsinstance(Tensor x) {
        Tensor t = Tensor.arange(1, 3, 1);
        Object ox = x, ot = t, three = 3, list = List.of(1, 2, 3), dict = Map.of("foo", 1, "bar", 2);
        boolean a = ox instanceof Tensor;
        boolean b = ot instanceof Tensor;
        boolean c = ox instanceof Integer;
        boolean d = three instanceof Integer;
        boolean e = list instanceof List<?>;
        boolean f = dict instanceof Map<?, ?>;
        return List.of(a, b, c, d, e, f);
    }

    // test_misc.py::test_fold
    static Tensor fold(Tensor a) { return a.add(Math.sqrt(63)); }

    // test_misc.py::test_shape_unpack
    static Tensor shapeUnpack(Tensor x) {
        int[] s = x.shape();
        int b = s[1];
        return x.mul(b);
    }

    // test_misc.py::test_tensor_iter (the rows are views: add_ writes through to x)
    static Tensor tensorIter(Tensor x) {
        Tensor y = null;
        for (Tensor row : x.unbind(0)) {
            y = row;
            y.add_(1.0);
        }
        return y;
    }

    // test_misc.py::test_empty_list
    static Tensor emptyList(Tensor x, List<Tensor> ll) {
        if (ll.size() == 0 && ll.isEmpty() && ll != null) return x.add(1);
        return null;
    }

    // test_misc.py::test_min_max_over_iterable (a list, an iterator, a copy, and the numbers one by one)
    static Tensor minOverIterable(Tensor a, Tensor b) {
        List<Integer> lst = List.of(a.shape()[0] + 1, 8, a.shape()[0]);
        int x = Collections.min(lst);
        int y = lst.stream().min(Integer::compare).orElseThrow();
        int z = Collections.min(List.copyOf(lst));
        int w = Math.min(Math.min(lst.get(0), lst.get(1)), lst.get(2));
        return a.add(x + y + z + w);
    }

    static Tensor maxOverIterable(Tensor a, Tensor b) {
        List<Integer> lst = List.of(a.shape()[0] + 1, 8, a.shape()[0]);
        int x = Collections.max(lst);
        int y = lst.stream().max(Integer::compare).orElseThrow();
        int z = Collections.max(List.copyOf(lst));
        int w = Math.max(Math.max(lst.get(0), lst.get(1)), lst.get(2));
        return a.add(x + y + z + w);
    }

    // test_misc.py::test_assert (Java's assert: the tests run with -ea, as surefire does)
    static Tensor assertFails(Tensor x) {
        assert !Arrays.equals(x.shape(), x.shape());
        return x;
    }

    static Tensor assertHolds(Tensor x) {
        assert Arrays.equals(x.shape(), x.shape());
        return x.abs();
    }

    // test_misc.py::test_config_obj
    static final class Cfg {
        double val = 0.5;
        int count = 3;
    }

    static Tensor configObj(Tensor x, Cfg cfg) {
        for (int i = 0; i < cfg.count; i++) x = x.add(cfg.val);
        return x;
    }

    // test_misc.py::test_size_input (torch.Size, tuple and list: List.of, Arrays.asList and ArrayList here)
    static Tensor sizeInput(Tensor x, List<Integer> s) {
        int a = s.get(0), b = s.get(1);
        return x.add(a - b);
    }

    // test_misc.py::test_cell_output1 (nonlocal out: a static field)
    static Tensor out;

    static Object cellOutput1(Tensor a, Tensor b) {
        out = a.add(b.mul(10));
        return null;
    }

    // test_misc.py::test_cell_output2 (unsupported(a, b): a helper that breaks the graph)
    static Tensor unsupported(Tensor a, Tensor b) {
        Ember.graphBreak();
        return a.add(b);
    }

    static Object cellOutput2(Tensor a, Tensor b) {
        Tensor c = unsupported(a, b);
        out = a.add(b.mul(10)).add(c);
        return null;
    }

    // test_misc.py::test_return_nested_function
    static Fn1<Double, Tensor> returnNestedFunction(Tensor a, Tensor b) {
        Tensor c = a.add(b);
        Tensor d = a.add(1.0);
        return f -> {
            out = a.add(b.mul(10));
            return c.mul(f).sub(d.mul(9.0));
        };
    }

    static Tensor tensorDict2Values(Map<String, Tensor> inputs) {
        Tensor total = Tensor.zeros(1);
        for (Tensor v : inputs.values()) total.add_(v);
        return total;
    }

    static Tensor tensorDict2Keys(Map<String, Tensor> inputs) {
        Tensor total = Tensor.zeros(1);
        for (String k : inputs.keySet()) total.add_(inputs.get(k));
        return total;
    }

    // test_misc.py::test_tensor_dict3
    static Tensor tensorDict3(Map<String, Tensor> inputsA, Map<String, Tensor> inputsB) {
        Tensor total = Tensor.zeros(1);
        Set<String> keys = new HashSet<>(inputsA.keySet());
        keys.addAll(inputsB.keySet());
        for (String k : keys) {
            if (inputsA.containsKey(k)) total.add_(inputsA.get(k));
            if (inputsB.containsKey(k)) total.add_(inputsB.get(k));
        }
        return total;
    }

    // test_misc.py::test_listcomp
    static Tensor listcomp(Map<String, Tensor> inputs) {
        return Tensor.cat(inputs.values().stream().map(v -> v.add(1)).toList(), 0).sum();
    }

    // test_misc.py::test_is_floating_point and test_is_floating_point2
    static Tensor isFloatingPoint(Tensor a, Tensor b) {
        Tensor x = a.add(1.0);
        if (b.dtype().isFloatingPoint()) x = x.add(b);
        return x.add(2.0);
    }

    // test_misc.py::test_is_tensor
    static Tensor isTensor(Tensor a, Object b) {
        Tensor x = a.add(1.0);
        if (b instanceof Tensor t) x = x.add(t);
        return x.add(2.0);
    }

    // test_misc.py::test_is_tensor2
    static Tensor isTensor2(Object x) {
        if (x instanceof Tensor t) return t.add(1);
        return Tensor.ones(2, 3);
    }

    // test_ctx_manager.py::test_no_grad (fn1, fn3, fn4: no_grad, enable_grad, is_grad_enabled inside set_grad_enabled(True))
    static Tensor noGrad(Tensor a, Tensor b) {
        Tensor x = a.add(1);
        try (var s = GradMode.noGrad()) {
            x = x.add(b);
        }
        return x.add(2);
    }

    static Tensor enableGrad(Tensor a, Tensor b) {
        Tensor x = a.add(1);
        try (var s = GradMode.enableGrad()) {
            x = x.add(b);
        }
        return x.add(2);
    }

    static Tensor gradEnabledInside(Tensor a, Tensor b) {
        Tensor x = a.add(1);
        try (var s = GradMode.enableGrad()) {
            if (GradMode.isEnabled()) x = x.add(b);
        }
        return x.add(2);
    }

    // test_empty_list_contains_with_jump
    static Tensor emptyListContainsWithJump(Tensor x, List<Tensor> l) {
        if (l.contains(x)) return x.cos();
        return x.sin();
    }

    // test_string_format
    static Tensor stringFormat(Tensor x) {
        String s = "temp%d";
        if (String.format(s, 4).equals("temp4")) return x.sin();
        return x.cos();
    }

    // test_misc.py::test_tensor_item_capture and test_tensor_item_no_capture
    static double tensorItem(Tensor a, Tensor b) { return a.add(b).sum().item(); }

    // test_misc.py::test_namedtuple1, test_namedtuple2, test_namedtuple3 (a record for the namedtuple)
    record MyTuple(Object a, Object b, Object ab) {}

    static MyTuple namedtuple1(Tensor a, Tensor b) {
        MyTuple tmp = new MyTuple(a, b, a.add(b));
        return new MyTuple(tmp.a(), tmp.b(), ((Tensor) tmp.ab()).add(b));
    }

    static Tensor namedtuple2(MyTuple packed) {
        Tensor a = (Tensor) packed.a(), b = (Tensor) packed.b(), c = (Tensor) packed.ab();
        b = ((Tensor) packed.b()).add(1);
        int d = MyTuple.class.getRecordComponents().length;
        return a.add(b).add(c).add(d);
    }

    static Tensor namedtuple3(Tensor x, Object packed) {
        if (packed instanceof MyTuple) return x.add(1);
        return x.sub(1);
    }

    // test_misc.py::test_range_input
    static Tensor rangeInput(Tensor a, int n) {
        Tensor x = a;
        for (int i = 0; i < n; i++) x = x.add(i);
        return x;
    }

    static Tensor rangeInputOf3(Tensor a) { return rangeInput(a, 3); }

    // test_misc.py::test_range_with_shape (a += 1 writes the caller's tensor)
    static Tensor rangeWithShape(Tensor a) {
        for (int i = 1; i < a.shape()[0]; i++) a.add_(1);
        return a;
    }

    // test_misc.py::test_build_tuple_unpack (varargs and arrays spread into a call)
    static Tensor fn1(Tensor a, Tensor b, Tensor c) { return a.sub(b.div(c)); }

    static Tensor spread(Tensor a, Tensor... rest) { return fn1(a, rest[0], rest[1]); }

    static Tensor buildTupleUnpack(Tensor a, Tensor b, Tensor c) {
        Tensor[] tmp1 = {a};
        Tensor[] tmp2 = {b, c};
        Tensor[] all = new Tensor[3];
        System.arraycopy(tmp1, 0, all, 0, 1);
        System.arraycopy(tmp2, 0, all, 1, 2);
        return fn1(all[0], all[1], all[2]);
    }

    static Tensor buildTupleUnpackVarargs(Tensor a, Tensor b, Tensor c) { return spread(a, b, c); }

    // test_misc.py::test_list_mul
    static List<Object> listMul(int count) { return Collections.nCopies(count * count, null); }

    // test_misc.py::test_tuple_mul_with_shape
    static Tensor tupleMulWithShape(Tensor a) {
        int x = a.shape()[0];
        List<Integer> y = new ArrayList<>();
        for (int i = 0; i < 2 * 2; i++) y.addAll(List.of(x, 3));
        return a.add(y.get(4));
    }

    // test_misc.py::test_list_iadd_with_shape
    static List<Tensor> listIaddWithShape(Tensor a) {
        List<Tensor> output = new ArrayList<>(List.of(a.add(a.shape()[0]), a.sub(a.shape()[0])));
        output.addAll(List.of(a.sub(a.shape()[0]), a.add(a.shape()[0])));
        output.addAll(Arrays.asList(a.add(a.shape()[0]), a.sub(a.shape()[0])));
        return output;
    }

    // test_misc.py::test_list_iadd_side_effect
    static List<Object> listIaddSideEffect(List<Object> a, Tensor b) {
        a.add(b);
        Ember.graphBreak();
        return a;
    }

    // test_misc.py::test_class_binop (__add__: a method of the class)
    static final class Foo {
        final Tensor x;

        Foo(Tensor x) { this.x = x; }

        Foo plus(Foo other) { return new Foo(x.add(other.x)); }
    }

    static Foo classBinop(Foo a, Foo b) { return a.plus(b); }

    // test_misc.py::test_user_getattr2 (a static field, an instance field, and a method for what __getattr__ answers)
    static final class MyConfig {
        static int definedOnClass = 1;
        final int definedOnObject = 2;

        int notDefined() { return 3; }
    }

    static Tensor userGetattr2(MyConfig cfg, Tensor x) {
        return x.add(MyConfig.definedOnClass).sub(cfg.definedOnObject).add(cfg.notDefined());
    }

    // test_misc.py::test_closure_recompiles
    static Fn1<Tensor, Tensor> closureAdder(double val) { return x -> x.add(val); }

    static Fn1<Tensor, Tensor> closureAdder(Tensor val) { return x -> x.add(val); }

    static Tensor closureRecompiles(Tensor x, Fn1<Tensor, Tensor> otherFn) { return otherFn.apply(x.add(1)).sub(1); }

    // test_repros.py::test_for_loop_graph_break
    static Tensor inner(Tensor x) { return x.sin(); }

    static Tensor forLoopGraphBreak(Tensor x) {
        for (int i = 0; i < 100; i++) {
            inner(x);
            Ember.graphBreak();
        }
        return x;
    }

    // test_repros.py::test_for_loop_graph_break_before
    static Tensor forLoopGraphBreakBefore(Tensor x) {
        Ember.graphBreak();
        for (int i = 0; i < 100; i++) inner(x);
        return x;
    }

    // test_repros.py::test_while_loop_graph_break
    static Tensor whileLoopGraphBreak(Tensor x) {
        int i = 20;
        while (i > 10) {
            x = inner(x);
            i -= 1;
            Ember.graphBreak();
        }
        return x;
    }

    // test_repros.py::test_rewrite_assert_with_msg (an assert on tensor data: item() reads it)
    static Tensor rewriteAssertWithMsg(Tensor x) {
        Tensor b = x.sin();
        assert x.select(0, 0).item() == 3 : "First dim need to be 3";
        return x.cos().add(b);
    }

    /** The failing assert caught: its message read in the function. */
    static Tensor assertCaught(Tensor x) {
        try {
            return rewriteAssertWithMsg(x);
        } catch (AssertionError e) {
            return x.mul(e.getMessage().length());
        }
    }

    // test_repros.py::test_not_rewrite_assert_for_other_errors
    static Tensor notRewriteAssertForOtherErrors(Tensor x) {
        Tensor b = x.sin();
        if (!(x.sum().item() <= 3)) throw new IllegalArgumentException("input sum needs to be 3");
        return x.cos().add(b);
    }

    // test_repros.py::test_rewrite_assert_noop
    static Tensor rewriteAssertNoop(Tensor x) {
        Tensor b = x.sin();
        assert true;
        assert x.dtype() == dev.ember.tensor.DType.FLOAT32;
        return x.cos().add(b);
    }

    // test_repros.py::test_modules (for mod in self.modules(): the module and its one child)
    static final class Foos extends Module {
        final dev.ember.nn.Linear fc = new dev.ember.nn.Linear(4, 3);

        @Override
        public Tensor forward(Tensor inp) {
            Tensor res = Tensor.zeros(3, 3);
            for (Module m : namedModules().values()) res.add_(fc.forward(inp));
            return res;
        }
    }
}
