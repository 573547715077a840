package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Function;

import static dev.ember.dynamo.corpus.PyTorchFunctionsPrograms.pyAdd;
import static dev.ember.dynamo.corpus.PyTorchFunctionsPrograms.pySum;

/**
 * More ports of programs in PyTorch's test/dynamo tests: test_functions.py ({@code @make_test}
 * functions and a few of its own tests), test_exceptions.py (try/catch in compiled code: Python's
 * NotImplementedError is UnsupportedOperationException, KeyError the NullPointerException of
 * unboxing a missing map value), test_ctx_manager.py (grad-mode scopes and switches) and
 * test_unspec.py (Python numbers as inputs). Same rules as the other corpus files: the original's
 * control flow and number of tensor ops, the source test named in a comment.
 */
final class PyTorchMorePrograms {
    private PyTorchMorePrograms() {}

    // ------------------------------------------------------------------ test_functions.py

    static final class MyCls {}

    // test_functions.py::test_obj_eq (Python's default __eq__ is identity: Object.equals)
    static Object objEq(Tensor a, Tensor b) {
        Tensor v = a.add(b);
        if (new MyCls().equals(null)) return -1;
        if (!new MyCls().equals(null)) v = v.sin();
        if (new MyCls().equals(new MyCls())) return -2;
        if (!new MyCls().equals(new MyCls())) return v.add(1);
        return -3;
    }

    // test_functions.py::test_obj_is
    @SuppressWarnings("all")
    static Object objIs(Tensor a, Tensor b) {
        Tensor v = a.add(b);
        if (new MyCls() == null) return -1;
        if (new MyCls() != null) v = v.sin();
        if (new MyCls() == new MyCls()) return -2;
        if (new MyCls() != new MyCls()) return v.add(1);
        return -3;
    }

    // test_functions.py::test_viamethod
    static Tensor viamethod(Tensor a, Tensor b) { return a.sub(b); }

    // test_functions.py::test_indirect2 (a bound method called with an argument tuple: a method reference, an array)
    static Tensor indirect2(Tensor a, Tensor b) {
        Function<Tensor, Tensor> t = a::sub;
        Object[] args = {b};
        return t.apply((Tensor) args[0]);
    }

    static Tensor constant3(Tensor a, double b) { return a.sub(b).add(1.0 + 2); }

    // test_functions.py::test_methodcall3 (constant3(a, b=1.0): an overload taking a double)
    static Tensor methodcall3(Tensor a, Tensor b) { return constant3(a, 1.0).add(b); }

    // test_functions.py::test_tuple2 (sub(*[a, b]): a list spread into varargs)
    static Tensor tuple2(Tensor a, Tensor b) {
        List<Tensor> args = new ArrayList<>(List.of(a, b));
        return PyTorchFunctionsPrograms.subAll(args.toArray(new Tensor[0]));
    }

    // test_functions.py::test_listarg5
    static Tensor listarg5(Tensor a, Tensor b) {
        List<List<Tensor>> args = List.of(List.of(a, b));
        Map<String, Integer> kwargs = Map.of("dim", 0);
        return Tensor.cat(args.get(0), kwargs.get("dim"));
    }

    // test_functions.py::test_slice3
    static Tensor slice3(Tensor a) { return a.slice(0, 5, a.size(0), 1); }

    // test_functions.py::test_slice4
    static Tensor slice4(Tensor a) { return a.slice(0, 2, 5, 1); }

    // test_functions.py::test_unpack3
    static Tensor unpack3(Tensor a) {
        Tensor[] packed = {a.slice(0, 0, 5, 1), a.slice(0, 5, a.size(0), 1)};
        Tensor x = packed[0], y = packed[1];
        return x.sub(y);
    }

    // test_functions.py::test_shape2
    static Tensor shape2(Tensor x) {
        if (x.size(1) == 10) return x.add(1);
        return null;
    }

    // test_functions.py::test_dict_setdefault3 (setdefault("c") is putIfAbsent("c", null))
    static Tensor dictSetdefault3(Tensor x) {
        Map<String, Integer> d = new LinkedHashMap<>(Map.of("a", 1, "b", 2));
        d.putIfAbsent("c", null);
        if (d.get("c") == null) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_call_dict1 (dict() a HashMap, OrderedDict() a LinkedHashMap)
    static Tensor callDict1(Tensor x) {
        Map<String, Tensor> d1 = new HashMap<>();
        d1.put("x", x.add(1));
        Map<String, Tensor> d2 = new LinkedHashMap<>();
        d2.put("x", x.add(2));
        return d1.get("x").add(d2.get("x")).add(1);
    }

    // test_functions.py::test_call_dict2
    static Tensor callDict2(Tensor x) {
        Map<String, Tensor> d1 = new HashMap<>();
        d1.put("x", x);
        Map<String, Tensor> d2 = new LinkedHashMap<>(d1);
        if (d2 instanceof LinkedHashMap) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_call_dict3~ (dict(list of pairs): the pairs put in a loop)
    static Tensor callDict3(Tensor x) {
        List<Map.Entry<String, Tensor>> myList = List.of(Map.entry("a", x), Map.entry("b", x.add(1)), Map.entry("c", x.add(2)));
        Map<String, Tensor> d1 = new HashMap<>();
        for (Map.Entry<String, Tensor> e : myList) d1.put(e.getKey(), e.getValue());
        d1.put("a", x.add(10));
        Map<String, Tensor> d2 = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : myList) d2.put(e.getKey(), e.getValue());
        d2.put("c", x.add(20));
        return d1.get("a").add(d2.get("c")).add(1);
    }

    // test_functions.py::test_dict_keys~ (a live keySet view; the tuple of results a list)
    static List<Object> dictKeys(Tensor x) {
        Map<Integer, Tensor> d = new LinkedHashMap<>();
        d.put(3, x);
        Set<Integer> keys = d.keySet();
        d.put(4, x.add(1));
        Map<Integer, Object> d2 = new LinkedHashMap<>();
        d2.put(3, 2);
        d2.put(4, "aa");
        return List.of(keys.contains(3), keys.contains(4), keys.contains(5), d2.keySet().equals(keys));
    }

    // test_functions.py::test_symbool_to_int (sum of a generator of bools over x.size())
    static Tensor symboolToInt(Tensor x) {
        int n = 0;
        for (int s : x.shape()) n += s == -1 ? 1 : 0;
        if (n == 0) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_sum (Python's sum starts at 0)
    static Object sum(Tensor a, Tensor b, Tensor c, Tensor d) { return pySum(List.<Object>of(a, b, c, d)); }

    // test_functions.py::test_reduce_with_initial
    static Tensor reduceWithInitial(Tensor a, Tensor b, Tensor c, Tensor d) {
        BinaryOperator<Tensor> add = Tensor::add;
        return List.of(b, c, d).stream().reduce(a, add);
    }

    // test_functions.py::test_set_difference
    static List<Tensor> setDifference(Tensor a, Tensor b) {
        Set<String> set1 = new HashSet<>(Set.of("apple", "banana", "cherry"));
        Set<String> set2 = Set.of("google", "microsoft", "apple");
        Set<String> difference = new HashSet<>(set1);
        difference.removeAll(set2);
        Tensor x = difference.contains("apple") ? a.add(b) : a.sub(b);
        Tensor y = difference.contains("banana") ? a.add(b) : a.sub(b);
        return List.of(x, y);
    }

    // test_functions.py::test_unpack_ex2 (*ab, c, d = output)
    static Tensor unpackEx2(Tensor x) {
        List<Tensor> output = List.of(x, x.add(1), x.add(2), x.add(3));
        List<Tensor> ab = output.subList(0, output.size() - 2);
        Tensor c = output.get(output.size() - 2), d = output.get(output.size() - 1);
        return c.sub(d.div(ab.get(0)));
    }

    // test_functions.py::test_unpack_ex3 (a, *bc, d = output)
    static Tensor unpackEx3(Tensor x) {
        List<Tensor> output = List.of(x, x.add(1), x.add(2), x.add(3));
        Tensor a = output.get(0);
        List<Tensor> bc = output.subList(1, output.size() - 1);
        Tensor d = output.get(output.size() - 1);
        return a.sub(d.div(bc.get(0)));
    }

    // test_functions.py::test_const_tuple_add1 (() + output + ())
    static Tensor constTupleAdd1(Tensor x) {
        List<Tensor> output = List.of(x, x.add(1), x.add(2), x.add(3));
        List<Tensor> joined = new ArrayList<>(List.of());
        joined.addAll(output);
        joined.addAll(List.of());
        return joined.get(2).add(joined.get(3));
    }

    // test_functions.py::test_not_list
    static Boolean notList(Tensor a) {
        List<Tensor> l = List.of(a.add(1));
        return l.isEmpty();
    }

    /** collections.namedtuple("mytuple", ["x", "y", "xy"], defaults=(None, 1, None)). */
    record DefaultsTuple(Tensor x, Object y, Tensor xy) {
        static DefaultsTuple of(Tensor x, Tensor xy) { return new DefaultsTuple(x, 1, xy); }
    }

    // test_functions.py::test_namedtuple_defaults~ (mytuple(a, xy=b): a factory filling y's default)
    static DefaultsTuple namedtupleDefaults(Tensor a, Tensor b) {
        DefaultsTuple tmp = DefaultsTuple.of(a, b);
        return new DefaultsTuple(tmp.x(), tmp.y(), tmp.xy().add(b));
    }

    record Student(String name, String grade, int age) implements Comparable<Student> {
        public int compareTo(Student o) {
            return Comparator.comparing(Student::name).thenComparing(Student::grade).thenComparingInt(Student::age).compare(this, o);
        }
    }

    // test_functions.py::test_list_sorted2~ (tuples records; sorted() a sorted copy, key= a Comparator)
    static List<Object> listSorted2(Tensor x) {
        List<Student> y = List.of(new Student("john", "A", 8), new Student("jane", "B", 5), new Student("dave", "B", 10));
        List<Student> byAll = new ArrayList<>(y);
        byAll.sort(null);
        List<Student> byAge = new ArrayList<>(y);
        byAge.sort(Comparator.comparingInt(Student::age));
        List<Student> byAgeReversed = new ArrayList<>(y);
        byAgeReversed.sort(Comparator.comparingInt(Student::age).reversed());
        return List.of(x.add(1), byAll, byAge, byAgeReversed);
    }

    // test_functions.py::test_list_slice_assignment~ (m[1:] = [6] * (len(m) - 1): a subList view cleared and refilled)
    static Tensor listSliceAssignment(Tensor x) {
        List<Integer> m = new ArrayList<>(List.of(1, 2, 3, 4));
        int n = m.size() - 1;
        List<Integer> tail = m.subList(1, m.size());
        tail.clear();
        tail.addAll(Collections.nCopies(n, 6));
        return x.add(1);
    }

    static Tensor augment(Tensor x) {
        try (var noGrad = Ember.noGrad()) {
            return x.add(1).mul(2);
        }
    }

    // test_functions.py::test_context_wrapping_nested_functions_no_closure (@torch.no_grad() on the helper: its body in noGrad)
    static Tensor contextWrappingNoClosure(Tensor x) { return augment(x); }

    static Tensor udfMul(Tensor x, Tensor y) { return x.mul(y); }

    // test_functions.py::test_partials_udf_kwarg (functools.partial(udf_mul, y=...): a lambda capturing y)
    static Tensor partialsUdfKwarg(Tensor x) {
        Tensor y = Tensor.ones(10, 10);
        Function<Tensor, Tensor> parMul = t -> udfMul(t, y);
        return parMul.apply(x);
    }

    // test_functions.py::test_math_radians
    static Tensor mathRadians(Tensor x, Integer a) { return x.add(Math.toRadians(a)); }

    // test_functions.py::test_tensor_size_indexed_by_symint
    static Tensor sizeIndexedBySize(Tensor x, Tensor y) {
        int index = x.size(-1);
        return x.add(y.size(index));
    }

    // test_functions.py::test_pow_int (dynamic=True)
    static Tensor powInt(Tensor a, Integer b) { return a.pow(b); }

    // ------------------------------------------------------------------ test_exceptions.py

    // test_exceptions.py::test_exception (except Exception: catch RuntimeException)
    static Tensor exception(Tensor x) {
        x = x.cos();
        try {
            x = x.sin();
            throw new UnsupportedOperationException();
        } catch (RuntimeException e) {
            x = x.sigmoid();
        }
        return x;
    }

    // test_exceptions.py::test_exception2 (except (NotImplementedError, AttributeError))
    static Tensor exception2(Tensor x) {
        x = x.cos();
        try {
            x = x.sin();
            throw new UnsupportedOperationException();
        } catch (UnsupportedOperationException | IllegalStateException e) {
            x = x.sigmoid();
        }
        return x;
    }

    // test_exceptions.py::test_exception3
    static Tensor exception3(Tensor x) {
        x = x.cos();
        try {
            x = x.sin();
            throw new UnsupportedOperationException("Not implemented");
        } catch (AssertionError e) {
            x = x.sigmoid();
        } catch (UnsupportedOperationException e) {
            x = x.cos();
        } finally {
            x = x.cos();
        }
        return x;
    }

    // test_exceptions.py::test_exception4
    static Tensor exception4(Tensor x) {
        for (int i = 0; i < 10; i++) {
            if (i == 5) return x;
            try {
                x = x.sin();
                throw new UnsupportedOperationException();
            } catch (RuntimeException e) {
                x = x.sigmoid();
            }
        }
        return x;
    }

    // test_exceptions.py::test_exception_with_another_exception (returns None)
    static Tensor exceptionWithAnotherException(Tensor x) {
        x = x.cos();
        try {
            x = x.sin();
            throw new UnsupportedOperationException("Not implemented");
        } catch (UnsupportedOperationException e) {
            x = x.sigmoid();
            try {
                x = x.cos();
                throw new AssertionError();
            } catch (AssertionError e2) {
                x = x.cos();
            }
        }
        return null;
    }

    static Tensor gnCos(Tensor x) { return x.cos(); }

    // test_exceptions.py::test_exception_else~ (try/except/else: the else block behind a flag the handler sets)
    static Tensor exceptionElse(Tensor x) {
        x = x.cos();
        boolean raised = false;
        try {
            x = x.sin();
            x = gnCos(x);
        } catch (RuntimeException e) {
            raised = true;
            x = x.sigmoid();
        }
        if (!raised) x = x.cos();
        return x;
    }

    // test_exceptions.py::test_exception_with_ctx_manager
    static Tensor exceptionWithCtxManager(Tensor x) {
        x = x.cos();
        try {
            try (var noGrad = Ember.noGrad()) {
                x = x.sin();
                throw new UnsupportedOperationException("Not implemented");
            }
        } catch (UnsupportedOperationException e) {
            x = x.sigmoid();
        }
        return x;
    }

    static void gnRaises() { throw new UnsupportedOperationException("foo"); }

    // test_exceptions.py::test_exception_raised_from_child
    static Tensor exceptionRaisedFromChild(Tensor x) {
        x = x.cos();
        try {
            x = x.sin();
            gnRaises();
            x = x.sin();
        } catch (RuntimeException e) {
            x = x.sigmoid();
        }
        return x;
    }

    static Tensor gK(Tensor x, boolean k) {
        if (k) throw new IllegalArgumentException("error");
        return x.sin();
    }

    // test_exceptions.py::test_dynamo_undo_kw_names (y = 0; y += b.sum(): Python's 0 + t)
    static Object dynamoUndoKwNames(Tensor x) {
        Map<String, Tensor> d = new LinkedHashMap<>();
        d.put("a", x);
        Object y = null;
        try {
            gK(x, true);
        } catch (RuntimeException e) {
            y = 0;
            for (Map.Entry<String, Tensor> entry : d.entrySet()) y = pyAdd(y, entry.getValue().sum());
        }
        return y;
    }

    static final class Exc extends RuntimeException {}

    // test_exceptions.py::test_raise_custom_exception
    static Tensor raiseCustomException(Tensor t) {
        try {
            throw new Exc();
        } catch (Exc e) {
            return t.sin();
        } catch (RuntimeException e) {
            return t.cos();
        }
    }

    static final class ExcWithArgs extends RuntimeException {
        final int a;
        final double b;

        ExcWithArgs(int a, double b) {
            this.a = a;
            this.b = b;
        }
    }

    // test_exceptions.py::test_raise_custom_exception_with_args (e.args[0], e.args[1]: fields)
    static Tensor raiseCustomExceptionWithArgs(Tensor t) {
        try {
            throw new ExcWithArgs(1, 2.0);
        } catch (ExcWithArgs e) {
            return t.sin().add(e.a).add(e.b);
        } catch (RuntimeException e) {
            return t.cos();
        }
    }

    // test_exceptions.py::test_key_error~ (d["b"] raising KeyError: unboxing the null of a missing key)
    static Tensor keyError(Tensor x, Map<String, Integer> d) {
        int a;
        try {
            a = d.get("b");
        } catch (NullPointerException e) {
            a = 2;
        }
        return x.mul(a);
    }

    // ------------------------------------------------------------------ test_ctx_manager.py

    // test_ctx_manager.py::test_no_grad (fn1, called with grad enabled)
    static Tensor noGradFn1(Tensor a, Tensor b) {
        Tensor x = a.add(1);
        try (var noGrad = Ember.noGrad()) {
            x = x.add(b);
        }
        x = x.add(2);
        return x;
    }

    // test_ctx_manager.py::test_no_grad (fn3, called with grad enabled: a redundant enable_grad)
    static Tensor noGradFn3(Tensor a, Tensor b) {
        Tensor x = a.add(1);
        try (var grad = Ember.enableGrad()) {
            x = x.add(b);
        }
        x = x.add(2);
        return x;
    }

    // test_ctx_manager.py::test_no_grad~ (fn4: set_grad_enabled(True) as enableGrad, is_grad_enabled as GradMode.isEnabled)
    static Tensor noGradFn4(Tensor a, Tensor b) {
        Tensor x = a.add(1);
        try (var grad = Ember.enableGrad()) {
            if (GradMode.isEnabled()) x = x.add(b);
        }
        x = x.add(2);
        return x;
    }

    // test_ctx_manager.py::test_grad_mode_guard (a.tolist() is toFloatArray())
    static Tensor gradModeGuard(Tensor a, Tensor b) {
        boolean prevGrad = GradMode.isEnabled();
        GradMode.setEnabled(false);
        a = a.add(1);
        a.toFloatArray();
        Tensor ret = a.add(b);
        GradMode.setEnabled(prevGrad);
        return ret;
    }

    // test_ctx_manager.py::test_nested_grad_mode_graph_break~ (set_grad_enabled(False/True) as noGrad/enableGrad)
    static Tensor nestedGradModeGraphBreak(Tensor x) {
        boolean before = GradMode.isEnabled();
        try (var off = Ember.noGrad()) {
            Ember.graphBreak();
            try (var on = Ember.enableGrad()) {
                x = x.mul(5);
                Ember.graphBreak();
                x = x.sqrt();
                if (!GradMode.isEnabled()) throw new AssertionError();
            }
            if (GradMode.isEnabled()) throw new AssertionError();
        }
        if (GradMode.isEnabled() != before) throw new AssertionError();
        return x;
    }

    // ------------------------------------------------------------------ test_unspec.py (assume_static_by_default=False: dynamic)

    // test_unspec.py::test_use_and_specialize
    static Tensor useAndSpecialize(Tensor x, Integer y) {
        x = x.add(y);
        if (y == 2) return x.sub(1);
        return x.add(1);
    }

    // test_unspec.py::test_no_recompiles
    static Tensor addInt(Tensor x, Integer y) { return x.add(y); }

    // test_unspec.py::test_sym_int_conversion
    static Tensor symIntConversion(Tensor x) {
        int y = x.size(0);
        return x.mul(y == 0 ? 1 : 0);
    }
}
