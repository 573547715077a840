package dev.ember.dynamo.corpus;

import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * Ports of programs in PyTorch's test/dynamo/test_functions.py (most are {@code @make_test}
 * functions, run by standard_test on 10x10 inputs). Each keeps the original's control flow and
 * its number of tensor ops; Python tuples become lists or arrays, dicts LinkedHashMaps, closures
 * lambdas, namedtuples records. The PyTorch counts are in pytorch-counts.tsv under the same name.
 */
final class PyTorchFunctionsPrograms {
    private PyTorchFunctionsPrograms() {}

    static final Tensor D;
    static final Linear E;
    static boolean flag = true;

    static {
        Tensor.manualSeed(0);
        D = Tensor.ones(10, 10);
        E = new Linear(10, 10);
    }

    static Tensor constant3(Tensor a, Tensor b) { return a.sub(b).add(1.0 + 2); }

    static Tensor funcWithDefault(Tensor a, Tensor b) { return funcWithDefault(a, b, true); }

    static Tensor funcWithDefault(Tensor a, Tensor b, boolean someDefaultArg) {
        if (someDefaultArg) return a.sub(b);
        return null;
    }

    static Tensor sub(Tensor a, Tensor b) { return a.sub(b); }

    static Tensor subAll(Tensor... args) { return sub(args[0], args[1]); }

    // test_functions.py::test_add
    static Tensor add(Tensor a, Tensor b) { return a.add(b); }

    // test_functions.py::test_add_ (torch.tensor(a) copies: clone)
    static Tensor addInplace(Tensor a, Tensor b) {
        Tensor aCopy = a.clone();
        return aCopy.add_(b, 5.0);
    }

    // test_functions.py::test_addcdiv (Dynamo decomposes addcdiv with a value into div, mul, add)
    static Tensor addcdiv(Tensor a, Tensor b, Tensor c) { return a.add(b.div(c).mul(5.0)); }

    // test_functions.py::test_is_not_null
    static Tensor isNotNull(Tensor a, Tensor b) {
        if (a != null && b != null) return a.add(b);
        return null;
    }

    // test_functions.py::test_constant1
    static Tensor constant1(Tensor a, Tensor b, Tensor c) { return a.sub(b.mul(c)).add(1.0); }

    // test_functions.py::test_constant2
    static Tensor constant2(Tensor a, Tensor b, Tensor c) { return a.sub(b.mul(c)).add(1); }

    // test_functions.py::test_constant3
    static Tensor constant3Test(Tensor a) {
        int b = 1, c = 2, d = 3;
        return a.add(b + c - d);
    }

    // test_functions.py::test_constant4
    static Tensor constant4(Tensor a, Tensor b) {
        int c = 2, d = 3;
        if (c > d) return a.sub(b);
        return b.sub(a);
    }

    // test_functions.py::test_globalfn
    static Tensor globalfn(Tensor a, Tensor b) { return sub(a, b); }

    // test_functions.py::test_indirect1
    static Tensor indirect1(Tensor a, Tensor b) {
        Fn1<Tensor, Tensor> t = a::sub;
        return t.apply(b);
    }

    // test_functions.py::test_methodcall1
    static Tensor methodcall1(Tensor a, Tensor b, Tensor c) { return constant3(a, b).mul(c); }

    // test_functions.py::test_methodcall2
    static Tensor methodcall2(Tensor a, Tensor b) { return constant3(b, a).add(1); }

    // test_functions.py::test_tuple1
    static Tensor tuple1(Tensor a, Tensor b) {
        Tensor[] args = {a, b};
        return subAll(args);
    }

    // test_functions.py::test_listarg1
    static Tensor listarg1(Tensor a, Tensor b) { return Tensor.cat(List.of(a, b), 0); }

    // test_functions.py::test_listarg3
    @SuppressWarnings("unchecked")
    static Tensor listarg3(Tensor a, Tensor b) {
        Map<String, Object> kwargs = new LinkedHashMap<>();
        kwargs.put("tensors", List.of(a, b));
        kwargs.put("dim", 0);
        return Tensor.cat((List<Tensor>) kwargs.get("tensors"), (Integer) kwargs.get("dim"));
    }

    // test_functions.py::test_slice1
    static Tensor slice1(Tensor a) { return a.select(0, 5); }

    // test_functions.py::test_slice2
    static Tensor slice2(Tensor a) { return a.slice(0, 0, 5, 1); }

    // test_functions.py::test_slice5
    static Tensor slice5(Tensor a) { return a.slice(0, 0, a.size(0), 2); }

    // test_functions.py::test_slice6
    static Tensor slice6(Tensor a) { return a.unsqueeze(0).slice(1, 2, a.size(0), 1); }

    // test_functions.py::test_range2
    static Tensor range2(Tensor x, Tensor y) {
        Tensor r = x.add(y);
        for (int i = 0; i < x.size(0) + 2; i++) r = r.div(y);
        return r;
    }

    // test_functions.py::test_unpack1
    static Tensor unpack1(Tensor a) {
        Tensor[] ab = {a.slice(0, 0, 5, 1), a.slice(0, 5, a.size(0), 1)};
        return ab[0].sub(ab[1]);
    }

    // test_functions.py::test_unpack2
    static Tensor unpack2(Tensor a) {
        List<Tensor> packed = List.of(a.slice(0, 0, 5, 1), a.slice(0, 5, a.size(0), 1));
        Tensor x = packed.get(0), y = packed.get(1);
        return x.sub(y);
    }

    // test_functions.py::test_fn_with_self_set
    static Tensor fnWithSelfSet(Tensor a, Tensor b) { return F.avgPool2d(a.unsqueeze(0).mul(b.unsqueeze(1)), 2, 2, 1); }

    // test_functions.py::test_return_tuple1
    static List<Tensor> returnTuple1(Tensor a, Tensor b) { return List.of(a.sub(b), b.sub(a), a, b); }

    // test_functions.py::test_globalvar
    static Tensor globalvar(Tensor a, Tensor b) { return a.sub(b).add(D); }

    // test_functions.py::test_globalmodule
    static Tensor globalmodule(Tensor x) { return E.forward(x); }

    // test_functions.py::test_inline_with_default
    static Tensor inlineWithDefault(Tensor a, Tensor b, Tensor c) { return funcWithDefault(a, b).mul(c); }

    // test_functions.py::test_inner_function
    static Tensor innerFunction(Tensor x) {
        Fn1<Tensor, Tensor> fn = t -> t.add(t);
        return fn.apply(x);
    }

    // test_functions.py::test_transpose_for_scores
    static Tensor transposeForScores(Tensor x) {
        int[] shape = Arrays.copyOf(x.shape(), x.dim() + 1);
        shape[x.dim() - 1] = 2;
        shape[x.dim()] = 5;
        return x.view(shape).permute(0, 2, 1);
    }

    // test_functions.py::test_return_tuple2
    static List<Tensor> returnTuple2(Tensor x) { return List.of(x.add(x), x); }

    // test_functions.py::test_load_global_bool
    static Tensor loadGlobalBool(Tensor x) {
        if (flag) return x.add(x);
        return x;
    }

    // test_functions.py::test_len_tensor
    static Tensor lenTensor(Tensor x) {
        int z = x.size(0);
        return x.add(z);
    }

    // test_functions.py::test_len_constant_list
    static Tensor lenConstantList(Tensor x) {
        int z = List.of(1, 2, 3).size();
        return x.add(z);
    }

    // test_functions.py::test_len_constant_dict
    static Tensor lenConstantDict(Tensor x) {
        int z = Map.of("foo", "bar").size();
        return x.add(z);
    }

    // test_functions.py::test_dict_copy
    static Map<String, Tensor> dictCopy(Tensor x) {
        Map<String, Tensor> z = new LinkedHashMap<>(Map.of("foo", x.add(1)));
        return z;
    }

    // test_functions.py::test_dict_values
    static int dictValues(Tensor x) {
        Map<Integer, Tensor> d = new LinkedHashMap<>();
        d.put(3, x);
        Collection<Tensor> values = d.values();
        d.put(3, x.add(1));
        d.put(4, x.add(2));
        return values.size();
    }

    // test_functions.py::test_dict_setdefault1
    static Tensor dictSetdefault1(Tensor x) {
        Map<String, Integer> d = new LinkedHashMap<>(Map.of("a", 1, "b", 2));
        d.putIfAbsent("a", 10);
        if (d.get("a") == 1) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_dict_setdefault2
    static Tensor dictSetdefault2(Tensor x) {
        Map<String, Integer> d = new LinkedHashMap<>(Map.of("a", 1, "b", 2));
        d.putIfAbsent("c", 10);
        if (d.get("c") == 10) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_dict_update_kwargs
    static Tensor dictUpdateKwargs(Tensor x) {
        Map<String, Integer> d = new LinkedHashMap<>();
        d.put("a", 2);
        d.putAll(Map.of("b", 4));
        return x.mul(d.get("a")).mul(d.get("b"));
    }

    // test_functions.py::test_callable_lambda
    static Tensor callableLambda(Tensor x) {
        Object f = (Fn1<Tensor, Boolean>) t -> true;
        if (f instanceof Fn1<?, ?>) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_len_constant_misc_iterables
    static Tensor lenConstantMiscIterables(Tensor x) {
        int a = List.of(1, 2, 3).size();
        int b = "test str".length();
        int c = a + b;
        return x.add(c);
    }

    // test_functions.py::test_dict_kwargs
    static Map<String, Tensor> dictKwargs(Tensor x) {
        Map<String, Tensor> z = new LinkedHashMap<>();
        z.put("text_embed", x.add(1));
        z.put("other", x.add(2));
        return z;
    }

    // test_functions.py::test_float
    static Tensor floatParse(Tensor x) {
        double y = 1.2;
        y += Double.parseDouble("1.2");
        return x.add(y);
    }

    // test_functions.py::test_dtype
    static Tensor dtype(Tensor x) {
        if (x.dtype() == DType.FLOAT32) return x.add(1);
        return null;
    }

    // test_functions.py::test_ndim
    static Tensor ndim(Tensor x) {
        if (x.dim() == 2 && x.shape().length == 2 && x.dim() == 2) return x.add(1);
        return null;
    }

    // test_functions.py::test_T
    static Tensor transposeOnesLike(Tensor x) { return Tensor.onesLike(x.t()); }

    // test_functions.py::test_shape1
    static Tensor shape1(Tensor x) {
        if (x.shape()[0] == 10) return x.add(1);
        return null;
    }

    // test_functions.py::test_del
    static Tensor del(Tensor a, Tensor b) {
        Tensor c = a.add(1);
        Tensor d = c.add(2);
        c = null;
        a = null;
        return b.add(d);
    }

    // test_functions.py::test_chunks1
    static Tensor chunks1(Tensor x) {
        int chunkSize = 5;
        if (x.shape()[0] % chunkSize != 0) throw new AssertionError();
        if (x.shape()[0] / chunkSize != 2) throw new AssertionError();
        return x.slice(0, 0, chunkSize, 1).sub(x.slice(0, chunkSize, x.size(0), 1));
    }

    // test_functions.py::test_return_dict
    static Map<String, Object> returnDict(Tensor x, Tensor y) {
        List<Object> z = List.of(x.add(y), y, false);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("x", x);
        out.put("z", z);
        out.put("a", x);
        out.put("b", z);
        out.put("c", x);
        return out;
    }

    // test_functions.py::test_return_dict2
    @SuppressWarnings("unchecked")
    static Map<String, Object> returnDict2(Tensor x, Tensor y) {
        Map<String, Object> tmp = new LinkedHashMap<>();
        tmp.put("x", x);
        tmp.put("z", new ArrayList<Object>(List.of(x.add(y), y)));
        tmp.put("y", y);
        ((List<Object>) tmp.get("z")).add(false);
        return tmp;
    }

    // test_functions.py::test_funcdef_closure (nonlocal x, y: a two-cell array the lambda writes)
    static List<Tensor> funcdefClosure(Tensor x, Tensor y) {
        Tensor[] cells = {x.add(y).add(1.0), y};
        java.util.function.DoubleConsumer inner = z -> {
            cells[1] = cells[0].add(z).add(20.0);
            cells[0] = cells[1].add(z).add(10.0);
        };
        inner.accept(2.0);
        inner.accept(3.0);
        return List.of(cells[0], cells[1]);
    }

    static final int THREE = 3;

    // test_functions.py::test_module_constant
    static Tensor moduleConstant(Tensor x, Tensor y) {
        Tensor r = x.add(y);
        for (int i = 0; i < THREE; i++) r = r.div(y);
        return r;
    }

    // test_functions.py::test_inline_softmax
    static Tensor inlineSoftmax(Tensor x, Tensor y) { return F.softmax(x.add(y.mul(2)), -1); }

    // test_functions.py::test_dtype_compare (Ember has no float16: float64 is the other dtype)
    static Tensor dtypeCompare(Tensor a, Tensor b) {
        if (a.dtype() == DType.FLOAT64) return a.add(10);
        if (a.dtype() == DType.FLOAT32) return a.sub(b.mul(32));
        return null;
    }

    // test_functions.py::test_build_list_unpack (generators: lambdas over the pair)
    static Tensor buildListUnpack(Tensor a, Tensor b) {
        List<Tensor> pair = List.of(a, b);
        List<Tensor> all = new ArrayList<>();
        for (Tensor x : pair) all.add(x.add(1));
        for (Tensor x : pair) all.add(x.sub(1));
        return Tensor.cat(all, -1);
    }

    // test_functions.py::test_tensor_len
    static Tensor tensorLen(Tensor a, Tensor b) { return a.add(b).add(a.size(0)).add(b.size(0)); }

    // test_functions.py::test_pop
    static Tensor pop(Tensor a, Tensor b) {
        List<Tensor> ll = new ArrayList<>(List.of(a, b));
        ll.add(a.add(1));
        ll.addAll(List.of(b.add(2), a.add(b)));
        ll.remove(ll.size() - 1);
        ll.remove(0);
        ll.removeLast();
        Tensor v1 = ll.get(0), v2 = ll.get(1);
        return v1.sub(v2);
    }

    // test_functions.py::test_list_convert
    static Tensor listConvert(Tensor a, Tensor b) {
        List<Tensor> ll = List.of(a.add(2), b);
        Tensor[] asArray = ll.toArray(new Tensor[0]);
        Tensor tmp = b.add(3);
        ll = new ArrayList<>(Arrays.asList(asArray));
        Tensor v1 = ll.get(0), v2 = ll.get(1);
        return v1.sub(v2).add(tmp);
    }

    // test_functions.py::test_list_add
    static Tensor listAdd(Tensor a, Tensor b) {
        List<Tensor> l1 = List.of(a, b);
        List<Tensor> l2 = List.of();
        List<Tensor> l3 = new ArrayList<>(l1);
        l3.addAll(l2);
        return l3.get(0).add(l3.get(1));
    }

    // test_functions.py::test_startswith
    static Tensor startswith(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        if ("foobar".startsWith("foo") && PyTorchFunctionsPrograms.class.getSimpleName().contains("Programs")) x = x.add(1);
        return x;
    }

    // test_functions.py::test_dict_ops
    static Tensor dictOps(Tensor a, Tensor b) {
        Map<String, Object> tmp = new LinkedHashMap<>();
        tmp.put("a", a.add(1));
        tmp.put("b", b.add(2));
        if (tmp.get("zzz") != null) throw new AssertionError();
        Tensor v = ((Tensor) tmp.remove("b")).add((Tensor) tmp.get("a")).add((Integer) tmp.getOrDefault("missing", 3))
                .add(tmp.containsKey("missing") ? (Integer) tmp.remove("missing") : 4);
        tmp.putAll(Map.of("d", 3));
        tmp.put("c", v.add((Integer) tmp.get("d")));
        if (tmp.containsKey("c") && !tmp.containsKey("missing")) return ((Tensor) tmp.get("c")).sub((Tensor) tmp.get("a")).add(tmp.size());
        return null;
    }

    // test_functions.py::test_sum_with_start_arg
    static Tensor sumWithStartArg(Tensor a, Tensor b, Tensor c, Tensor d) {
        Tensor total = a;
        for (Tensor t : List.of(b, c, d)) total = total.add(t);
        return total;
    }

    // test_functions.py::test_reduce (functools.reduce(operator.add, ...))
    static Tensor reduce(Tensor a, Tensor b, Tensor c, Tensor d) {
        BinaryOperator<Tensor> add = Tensor::add;
        return List.of(a, b, c, d).stream().reduce(add).orElseThrow();
    }

    // test_functions.py::test_map_sum
    static Object mapSum(Tensor a, Tensor b, Tensor c, Tensor d) {
        Function<Tensor, Tensor> plusOne = x -> x.add(1);
        List<Object> mapped = new ArrayList<>();
        for (Tensor t : List.of(a, b, c, d)) mapped.add(plusOne.apply(t));
        return pySum(mapped);
    }

    // test_functions.py::test_tuple_contains
    static Tensor tupleContains(Tensor a, Tensor b) {
        String v1 = "a", v2 = "b", v3 = "c";
        List<String> vals1 = List.of(v1, v2, v3);
        List<String> vals2 = List.of("d", "e", "f");
        if (vals1.contains("a") && !vals2.contains("b")) return a.add(b);
        return a.sub(b);
    }

    // test_functions.py::test_set_contains
    static List<Tensor> setContains(Tensor a, Tensor b) {
        Set<String> vals = new HashSet<>(List.of("a", "b", "c"));
        Tensor x = vals.contains("a") ? a.add(b) : a.sub(b);
        Tensor y = vals.contains("d") ? a.add(b) : a.sub(b);
        return List.of(x, y);
    }

    // test_functions.py::test_set_intersection
    static List<Tensor> setIntersection(Tensor a, Tensor b) {
        Set<String> set1 = new HashSet<>(Set.of("apple", "banana", "cherry"));
        Set<String> set2 = Set.of("google", "microsoft", "apple");
        set1.retainAll(set2);
        Tensor x = set1.contains("apple") ? a.add(b) : a.sub(b);
        Tensor y = set1.contains("banana") ? a.add(b) : a.sub(b);
        return List.of(x, y);
    }

    // test_functions.py::test_set_union
    static List<Tensor> setUnion(Tensor a, Tensor b) {
        Set<String> union = new HashSet<>(Set.of("apple", "banana", "cherry"));
        union.addAll(Set.of("google", "microsoft", "apple"));
        Tensor x = union.contains("apple") ? a.add(b) : a.sub(b);
        Tensor y = union.contains("banana") ? a.add(b) : a.sub(b);
        return List.of(x, y);
    }

    // test_functions.py::test_tuple_iadd
    static List<Tensor> tupleIadd(Tensor a, Tensor b) {
        List<Tensor> output = List.of(a, b);
        List<Tensor> more = new ArrayList<>(output);
        more.addAll(List.of(a.add(b), a.sub(b)));
        output = List.copyOf(more);
        return output;
    }

    // test_functions.py::test_unpack_ex1
    static Tensor unpackEx1(Tensor x) {
        List<Tensor> output = List.of(x, x.add(1), x.add(2), x.add(3));
        Tensor a = output.get(0), b = output.get(1);
        List<Tensor> cd = output.subList(2, output.size());
        return a.sub(b.div(cd.get(0)));
    }

    // test_functions.py::test_const_tuple_add2
    static Tensor constTupleAdd2(Tensor x) {
        List<Tensor> output = new ArrayList<>();
        output.add(null);
        output.addAll(List.of(x, x.add(1), x.add(2), x.add(3)));
        output.add(null);
        return output.get(2).add(output.get(3));
    }

    // test_functions.py::test_list_truth
    static Tensor listTruth(Tensor a, Tensor b) {
        List<Integer> tmp = List.of(1, 2, 3);
        if (!tmp.isEmpty()) return a.add(b);
        return a.sub(b);
    }

    // test_functions.py::test_list_reversed
    static Tensor listReversed(Tensor a, Tensor b) {
        List<Tensor> tmp = List.of(a.add(1), a.add(2), a.add(3));
        Iterator<Tensor> it = tmp.reversed().iterator();
        return a.add(b).add(it.next());
    }

    // test_functions.py::test_list_sorted1
    static List<Object> listSorted1(Tensor x) {
        List<Integer> tmp = List.of(1, 10, 3, 0);
        List<Integer> up = new ArrayList<>(tmp);
        Collections.sort(up);
        List<Integer> down = new ArrayList<>(tmp);
        down.sort(Collections.reverseOrder());
        return List.of(x.add(1), up, down);
    }

    // test_functions.py::test_list_clear
    static List<Tensor> listClear(Tensor a, Tensor b) {
        List<Tensor> tmp = new ArrayList<>(List.of(a.add(1), a.add(2)));
        tmp.clear();
        tmp.add(a.add(b));
        return tmp;
    }

    record MyTuple(Tensor x, Tensor y, Tensor xy) {}

    // test_functions.py::test_namedtuple
    static MyTuple namedtuple(Tensor a, Tensor b) {
        MyTuple tmp = new MyTuple(a, b, a.add(b));
        return new MyTuple(tmp.x(), tmp.y(), tmp.xy().add(b));
    }

    record MyNamedTuple(Tensor first, Tensor second) {
        Tensor add() { return first.add(second); }

        static int staticMethod() { return 1; }

        String className() { return getClass().getSimpleName(); }
    }

    // test_functions.py::test_namedtuple_user_methods
    static List<Object> namedtupleUserMethods(Tensor a, Tensor b) {
        MyNamedTuple mytuple = new MyNamedTuple(a, b);
        return List.of(mytuple.add(), MyNamedTuple.staticMethod(), mytuple.className());
    }

    // test_functions.py::test_fstrings2
    static Tensor fstrings2(Tensor x) {
        String tmp = x.shape()[0] + " bar";
        if (tmp.startsWith("10")) return x.add(1);
        return null;
    }

    // test_functions.py::test_fstrings6
    static Tensor fstrings6(Tensor x) {
        String tmp = String.valueOf(x.shape()[0] + x.shape()[1]);
        if (tmp.contains("20")) return x.add(1);
        return null;
    }

    // test_functions.py::test_partials_lambda
    static Tensor partialsLambda(Tensor x) {
        Fn2<Tensor, Integer, Tensor> multiply = (t, y) -> t.mul(y);
        Fn1<Tensor, Tensor> triple = t -> multiply.apply(t, 3);
        return triple.apply(x);
    }

    /** Python's sum over a list of ints and tensors: starts at 0, int + int stays an int. */
    static Object pySum(List<Object> items) {
        Object acc = 0;
        for (Object o : items) acc = pyAdd(acc, o);
        return acc;
    }

    static Object pyAdd(Object a, Object b) {
        if (a instanceof Integer i && b instanceof Integer j) return i + j;
        if (a instanceof Tensor t) return b instanceof Tensor u ? t.add(u) : t.add((Integer) b);
        return ((Tensor) b).add((Integer) a);
    }

    // test_functions.py::test_list_add_then_mutate
    static Object listAddThenMutate(Tensor x) {
        List<Object> myList = List.of(1, x);
        Tensor y = x.div(4.0);
        List<Object> joined = new ArrayList<>(myList);
        joined.addAll(List.of(x.div(2.0), 4));
        joined.add(y);
        return pySum(joined);
    }

    // test_functions.py::test_in_not_in
    static Object inNotIn(Tensor x) {
        List<Object> mylist = List.of(1, 2, 3, 4, 5, x);
        List<Integer> myotherlist = List.of(1, 2, 3, 4, 5);
        if (!mylist.contains(3)) throw new AssertionError();
        if (myotherlist.contains(6)) throw new AssertionError();
        return pySum(mylist);
    }

    // test_functions.py::test_list_expand_lhs
    static Object listExpandLhs(Tensor x) { return pySum(new ArrayList<>(Collections.nCopies(4, x))); }
}
