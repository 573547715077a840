package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Ports of more programs in PyTorch's test/dynamo/test_functions.py (its {@code @make_test}
 * functions, run by standard_test, and its own tests), written as a Java developer would write
 * them: tuples are lists, arrays or records, dicts maps, {@code isinstance} {@code instanceof},
 * generators loops or streams, closures lambdas, {@code functools.partial} a lambda that fixes an
 * argument, {@code nonlocal} a captured array or a field. Each keeps the original's control flow
 * and tensor ops and names the test it ports; where the Java port must differ, the comment says how.
 */
final class PyTorchPortsPrograms {
    private PyTorchPortsPrograms() {}

    static final class MyCls {}

    // test_functions.py::test_cls_eq (a class object: Class.equals)
    @SuppressWarnings("all")
    static Object clsEq(Tensor a, Tensor b) {
        Tensor v = a.add(b);
        Class<?> cls = MyCls.class;
        if (cls.equals(null)) return -1;
        if (!cls.equals(null)) v = v.sin();
        if (!cls.equals(MyCls.class)) return -2;
        if (cls.equals(MyCls.class)) return v.add(1);
        return -3;
    }

    // test_functions.py::test_cls_is
    @SuppressWarnings("all")
    static Object clsIs(Tensor a, Tensor b) {
        Tensor v = a.add(b);
        Class<?> cls = MyCls.class;
        if (cls == null) return -1;
        if (cls != null) v = v.sin();
        if (cls != MyCls.class) return -2;
        if (cls == MyCls.class) return v.add(1);
        return -3;
    }

    // test_functions.py::test_itertools_product (product(...) as nested loops)
    static Tensor itertoolsProduct(Tensor a, Tensor b) {
        Tensor v = a;
        for (Tensor x : List.of(a, b)) {
            for (int i : new int[] {1, 2}) v = v.add(x.mul(i));
        }
        return v;
    }

    // test_functions.py::test_itertools_chain (chain(...) as one list of tensors and ints)
    static Tensor itertoolsChain(Tensor a, Tensor b) {
        Tensor v = a;
        List<Object> chain = new ArrayList<>(List.of(a, b));
        chain.addAll(List.of(1, 2));
        for (Object x : chain) v = x instanceof Tensor t ? v.add(t) : v.add((Integer) x);
        return v;
    }

    // test_functions.py::test_itertools_chain_from_iterable (a flatMap over the lists)
    static Tensor itertoolsChainFromIterable(Tensor a, Tensor b) {
        Tensor v = a;
        List<List<Object>> nested = List.of(List.of(a, b), List.of(1, 2));
        for (Object x : nested.stream().flatMap(List::stream).toList()) v = x instanceof Tensor t ? v.add(t) : v.add((Integer) x);
        return v;
    }

    // test_functions.py::test_itertools_combinations (combinations of size 2 as nested loops)
    static List<Tensor> itertoolsCombinations(Tensor a, Tensor b) {
        int[] items = {1, 2, 3, 4};
        List<Tensor> combs = new ArrayList<>();
        for (int i = 0; i < items.length; i++) {
            for (int j = i + 1; j < items.length; j++) combs.add(Tensor.ones(items[i], items[j]));
        }
        return combs;
    }

    // test_functions.py::test_device_constant
    static Tensor deviceConstant(Tensor a) { return a.add(Tensor.ones(1)); }

    // test_functions.py::test_list_slice (self.ets = self.ets[-3:]: a new list of the last three)
    static final class Mock {
        List<Tensor> ets = new ArrayList<>();

        Tensor run(Tensor x) {
            ets = new ArrayList<>(ets.subList(Math.max(0, ets.size() - 3), ets.size()));
            ets.add(x);
            return x.sin();
        }
    }

    static final Map<String, Integer> D1 = new LinkedHashMap<>(Map.of("a", 2));
    static final Map<String, Integer> D2 = D1;

    // test_functions.py::test_dict_id_guard (two names of one global map)
    static Tensor dictIdGuard(Tensor x) {
        for (String k : D1.keySet()) x = x.mul(D1.get(k)).mul(D2.get(k));
        return x;
    }

    static final class CallableClass implements Runnable {
        @Override
        public void run() {}
    }

    static final class NotCallableClass {}

    // test_functions.py::test_callable_class fn1 (callable(arg): a Runnable)
    static Tensor callableClass1(Tensor x, Object arg) {
        if (arg instanceof Runnable) return x;
        return x.add(1);
    }

    // test_functions.py::test_callable_class fn2
    static Tensor callableClass2(Tensor x, Object arg) {
        if (arg instanceof Runnable) return x.mul(2);
        return x.add(1);
    }

    // test_functions.py::test_ordered_dict_kwargs
    static Map<String, Tensor> orderedDictKwargs(Tensor x) {
        Map<String, Tensor> z = new LinkedHashMap<>();
        z.put("sample", Tensor.ones(10));
        return z;
    }

    // test_functions.py::test_is_floating_point (the tuple of both spellings: a list)
    static List<Boolean> isFloatingPoint(Tensor x) {
        Tensor y = x.add(1);
        return List.of(y.dtype().isFloatingPoint(), y.dtype().kind() == DType.Kind.FLOATING);
    }

    // test_functions.py::test_get_default_dtype
    static Tensor getDefaultDtype(Tensor x) {
        if (x.dtype() == Defaults.dtype()) return x.add(1);
        return x.sub(1);
    }

    record Comparison(int[] a, int[] b, double c) {}

    // test_functions.py::test_list_compare_polyfill (tuple comparison: Arrays.equals and Arrays.compare; x += ... is add_)
    static Tensor listComparePolyfill(Tensor x) {
        List<Comparison> cases = List.of(
                new Comparison(new int[] {1, 2, 3}, new int[] {1, 2, 3}, 7.77),
                new Comparison(new int[] {1, 4, 3}, new int[] {1, 2, 3}, 3.33),
                new Comparison(new int[] {1, 2}, new int[] {1, 2, 3}, 5.55),
                new Comparison(new int[] {1, 2, 3}, new int[] {1, 2}, 11.11),
                new Comparison(new int[] {1, -1, 3}, new int[] {1, 2, 3}, 13.33));
        for (Comparison k : cases) {
            int cmp = Arrays.compare(k.a(), k.b());
            if (!Arrays.equals(k.a(), k.b())) x.add_(1 * k.c());
            if (Arrays.equals(k.a(), k.b())) x.add_(2 * k.c());
            if (cmp < 0) x.add_(4 * k.c());
            if (cmp > 0) x.add_(8 * k.c());
            if (cmp <= 0) x.add_(16 * k.c());
            if (cmp >= 0) x.add_(32 * k.c());
        }
        return x;
    }

    // test_functions.py::test_promote_types
    static Tensor promoteTypes(Tensor x) {
        if (x.dtype() == DType.promote(DType.INT32, DType.FLOAT32)) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_tensor_element_size
    static List<Tensor> tensorElementSize(Tensor a) {
        if (a.dtype().itemSize() > 1) return List.of(a.add(a.dtype().itemSize()), a.sub(a.dtype().itemSize()));
        return List.of(a.sub(a.dtype().itemSize()), a.add(a.dtype().itemSize()));
    }

    // test_functions.py::test_mT
    static Tensor mT(Tensor x) { return Tensor.onesLike(x.transpose(-2, -1)); }

    // test_functions.py::test_zip_longest (zip_longest with fillvalue=None: a loop to the longest list, rows as Arrays.asList)
    static List<Object> zipLongest(Tensor x) {
        List<Integer> list1 = List.of(1, 2, 3);
        List<String> list2 = List.of("a", "b");
        List<Boolean> list3 = List.of(true, false, true, false);
        int n = Math.max(list1.size(), Math.max(list2.size(), list3.size()));
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(Arrays.asList(i < list1.size() ? list1.get(i) : null, i < list2.size() ? list2.get(i) : null,
                    i < list3.size() ? list3.get(i) : null));
        }
        return List.of(x.add(1).sin(), rows);
    }

    // test_functions.py::test_torch_size_as_dict_key (the shape as a key: Arrays.toString of it)
    static Tensor torchSizeAsDictKey(Tensor x, Map<String, Tensor> cached) {
        String key = Arrays.toString(x.shape());
        if (!cached.containsKey(key)) cached.put(key, x);
        return x.add(cached.get(key));
    }

    // test_functions.py::test_dict_tuple_lazy_guard (the dict argument)
    static Tensor dictLazyGuard(Tensor x, Map<Integer, Integer> y) { return x.sin().mul(y.get(1)); }

    // test_functions.py::test_dict_tuple_lazy_guard (the tuple argument)
    static Tensor tupleLazyGuard(Tensor x, List<Integer> y) { return x.sin().mul(y.get(1)); }

    // test_functions.py::test_call_dict4 (a tuple of pairs: an array of {key, value} arrays)
    static Tensor callDict4(Tensor x) {
        Object[][] myList = {{"a", x}, {"b", x.add(1)}, {"c", x.add(2)}};
        Map<String, Tensor> d1 = new HashMap<>();
        for (Object[] kv : myList) d1.put((String) kv[0], (Tensor) kv[1]);
        d1.put("a", x.add(10));
        Map<String, Tensor> d2 = new LinkedHashMap<>();
        for (Object[] kv : myList) d2.put((String) kv[0], (Tensor) kv[1]);
        d2.put("c", x.add(20));
        return d1.get("a").add(d2.get("c")).add(1);
    }

    // test_functions.py::test_call_dict5 (an iterator of pairs: the first dict drains it, the second gets nothing)
    static Tensor callDict5(Tensor x) {
        Iterator<Map.Entry<String, Tensor>> myList = List.of(Map.entry("a", x), Map.entry("b", x.add(1)), Map.entry("c", x.add(2))).iterator();
        Map<String, Tensor> d1 = new HashMap<>();
        while (myList.hasNext()) {
            Map.Entry<String, Tensor> e = myList.next();
            d1.put(e.getKey(), e.getValue());
        }
        d1.put("a", x.add(10));
        Map<String, Tensor> d2 = new LinkedHashMap<>();
        while (myList.hasNext()) {
            Map.Entry<String, Tensor> e = myList.next();
            d2.put(e.getKey(), e.getValue());
        }
        d2.put("c", x.add(20));
        return d1.get("a").add(d2.get("c")).add(1);
    }

    // test_functions.py::test_dict_fromkeys (fromkeys as loops; the shared value computed once, as Python does)
    static Tensor dictFromkeys(Tensor x, Tensor y) {
        List<String> lst = List.of("a", "b");
        Map<String, Object> d = new HashMap<>();
        for (String k : lst) d.put(k, null);
        Map<String, Tensor> d1 = new HashMap<>();
        Tensor v1 = x.add(1);
        for (String k : d.keySet()) d1.put(k, v1);
        Map<String, Tensor> d2 = new HashMap<>();
        Tensor v2 = x.sub(2);
        for (Iterator<String> it = d1.keySet().iterator(); it.hasNext(); ) d2.put(it.next(), v2);
        Map<String, Tensor> d3 = new LinkedHashMap<>();
        for (String k : lst.toArray(new String[0])) d3.put(k, y);
        return d1.get("a").mul(d2.get("b")).add(d2.get("a")).add(d1.get("b")).add(d3.get("a")).add(d3.get("b")).add(1);
    }

    // test_functions.py::test_dict_update (update(dict): putAll; update(pairs) and update(zip(...)): loops of put)
    static Tensor dictUpdate(Tensor x, Tensor y, Tensor z) {
        Map<String, Tensor> d = new HashMap<>();
        d.put("a", x);
        d.put("b", y);
        d.putAll(Map.of("a", y.sub(1)));
        for (Object[] kv : new Object[][] {{"b", z.add(1)}, {"c", z}}) d.put((String) kv[0], (Tensor) kv[1]);
        List<Tensor> dv = List.of(z.add(3), y.add(2));
        for (int i = 0; i < 2; i++) d.put(String.valueOf("ab".charAt(i)), dv.get(i));
        Map<String, Tensor> od = new LinkedHashMap<>();
        od.put("a", x.mul(3));
        od.put("b", y.add(2));
        od.putAll(Map.of("a", y.add(5)));
        for (Object[] kv : new Object[][] {{"b", z.add(6)}, {"c", z.sub(7)}}) od.put((String) kv[0], (Tensor) kv[1]);
        List<Tensor> ov = List.of(z.sub(3), x.add(2));
        for (int i = 0; i < 2; i++) od.put(String.valueOf("ab".charAt(i)), ov.get(i));
        return d.get("a").mul(od.get("a")).add(od.get("c")).add(d.get("b")).add(od.get("b").mul(d.get("c")));
    }

    // test_functions.py::test_sum_shortcut (no tensor: no frame)
    static Double sumShortcut() {
        double s = 0;
        for (Number n : List.<Number>of(0, 1.0, 2, 3.0)) s += n.doubleValue();
        return s;
    }

    // test_functions.py::test_sum_shortcut_with_start_arg
    static Double sumShortcutWithStartArg() {
        double s = -10;
        for (Number n : List.<Number>of(0, 1.0, 2, 3.0)) s += n.doubleValue();
        return s;
    }

    // test_functions.py::test_reduce_with_single (reduce over one element returns it: no op, no frame)
    static Object reduceWithSingle(Tensor x) { return Stream.<Object>of(x).reduce((a, b) -> List.of(a, b)).orElseThrow(); }

    // test_functions.py::test_reduce_with_single_with_initial
    static Object reduceWithSingleWithInitial(Tensor x, Tensor y) { return Stream.<Object>of(y).reduce(x, (a, b) -> List.of(a, b)); }

    // test_functions.py::test_set_update_bytecode
    static Tensor setUpdateBytecode(Tensor x) {
        Set<String> var = new HashSet<>(Set.of("apple", "banana", "cherry"));
        if (var instanceof Set) return x.add(1);
        return x.sub(1);
    }

    // test_functions.py::test_set_update_list_with_duplicated_items ({*list1, *list2}: a set of both)
    static Tensor setUpdateListWithDuplicatedItems(Tensor x) {
        List<String> list1 = List.of("apple", "banana", "apple");
        List<String> list2 = List.of("orange", "banana");
        Set<String> s = new HashSet<>(list1);
        s.addAll(list2);
        if (s.size() == 3) return x.add(1);
        return x.sub(1);
    }

    static final Set<String> FRUIT = Set.of("apple", "banana", "cherry");
    static final Set<String> COMPANIES = Set.of("google", "microsoft", "apple");

    // test_functions.py::test_set_isdisjoint (Collections.disjoint)
    static Tensor setIsdisjoint(Tensor a) {
        if (Collections.disjoint(FRUIT, COMPANIES)) return a.add(1);
        return a.sub(1);
    }

    /** test_functions.py::test_constant_set's global set, which the test changes between calls. */
    static final Set<Integer> CONSTANT_SET = new HashSet<>(Set.of(1, 2));

    // test_functions.py::test_constant_set
    static Tensor constantSet(Tensor x) { return x.cos().mul(CONSTANT_SET.size()); }

    // test_functions.py::test_set_add (the set is the program's, made fresh for the eager and the compiled run)
    static final class SetAdd {
        final Set<Integer> s = new HashSet<>(Set.of(1, 2));

        Tensor fn(Tensor x) {
            s.add(3);
            return x.cos().mul(x.size(0));
        }
    }

    // test_functions.py::test_tuple_sorted
    static List<Object> tupleSorted(Tensor x) {
        List<Integer> tmp = List.of(1, 10, 3, 0);
        return List.of(x.add(1), tmp.stream().sorted().toList(), tmp.stream().sorted(Comparator.reverseOrder()).toList());
    }

    // test_functions.py::test_dict_sorted (sorted(dict): its keys sorted)
    static List<Object> dictSorted(Tensor x) {
        Map<Integer, String> tmp = new HashMap<>(Map.of(1, "D", 10, "B", 3, "E", 0, "F"));
        List<Integer> reversed = new ArrayList<>(tmp.keySet());
        reversed.sort(Comparator.reverseOrder());
        return List.of(x.add(1), new ArrayList<>(new TreeMap<>(tmp).keySet()), reversed);
    }

    // test_functions.py::test_dict_hasattr (hasattr(x, "to") / hasattr(x, "items"): instanceof; x.to("cpu") is x)
    static Object dictHasattr(Object x) {
        if (x instanceof Tensor t) return t;
        if (x instanceof Map<?, ?> m) return ((Tensor) m.get("a")).cos();
        return x;
    }

    // test_functions.py::test_islice_chain (islice(chain(...), 1, 3): Stream.concat, skip, limit)
    static Tensor isliceChain(Tensor a, Tensor b) {
        List<Tensor> tmp1 = List.of(a.add(1), a.add(2));
        List<Tensor> tmp2 = List.of(a.add(3), a.add(4));
        List<Tensor> ab = Stream.concat(tmp1.stream(), tmp2.stream()).skip(1).limit(2).toList();
        Tensor c = tmp1.stream().skip(1).findFirst().orElseThrow();
        return ab.get(0).sub(ab.get(1).div(c));
    }

    record MyNamedTuple(Tensor first, Tensor second) {}

    // test_functions.py::test_namedtuple_hasattr (a namedtuple is a record)
    static Tensor namedtupleHasattr(Tensor a, Tensor b) {
        Object mytuple = new MyNamedTuple(a, b);
        if (mytuple instanceof Record) return a.add(b);
        return a.sub(b);
    }

    // test_functions.py::test_fstrings1
    static Tensor fstrings1(Tensor a, Tensor b) {
        double x = 1.229;
        String tmp = String.format("%.2f bar", x);
        if (tmp.startsWith("1.23")) return a.add(b);
        return null;
    }

    // test_functions.py::test_fstrings3
    static Tensor fstrings3(Tensor x) {
        String tmp = x.getClass().getSimpleName() + " foo";
        if (tmp.startsWith("Tensor")) return x.add(1);
        return null;
    }

    // test_functions.py::test_fstrings4
    static Tensor fstrings4(Tensor x) {
        String tmp = x.shape()[0] + " bar";
        if (tmp.contains("10")) return x.add(1);
        return null;
    }

    // test_functions.py::test_fstrings5
    static Tensor fstrings5(Tensor x) {
        String tmp = x.shape()[0] + " bar";
        if ((tmp + "haha").contains("10")) return x.add(1);
        return null;
    }

    static Tensor udfMul(Tensor x, Tensor y) { return x.mul(y); }

    // test_functions.py::test_partials_torch_op_kwarg (partial(torch.mul, other=...): a lambda)
    static Tensor partialsTorchOpKwarg(Tensor x) {
        Function<Tensor, Tensor> parMul = t -> t.mul(Tensor.ones(10, 10));
        return parMul.apply(x);
    }

    // test_functions.py::test_partials_torch_op_arg (partial(torch.mul, ones): a method reference bound to the new tensor)
    static Tensor partialsTorchOpArg(Tensor x) {
        Function<Tensor, Tensor> parMul = Tensor.ones(10, 10)::mul;
        return parMul.apply(x);
    }

    // test_functions.py::test_partials_udf_arg
    static Tensor partialsUdfArg(Tensor x) {
        Tensor ones = Tensor.ones(10, 10);
        Function<Tensor, Tensor> parMul = y -> udfMul(ones, y);
        return parMul.apply(x);
    }

    /*
     * Partials passed in: Fn1, not Function. A plain lambda has no class file; Ember tells it from
     * the others of its shape by its constant pool, which needs two JVM flags (GB0017); a
     * serializable type needs none.
     */

    /** functools.partial(multiply, y=...): the multiplier fixed in a lambda. */
    static Fn1<Tensor, Tensor> times(double y) { return x -> x.mul(y); }

    /** functools.partial(udf_mul, y=...). */
    static Fn1<Tensor, Tensor> udfMulBy(Tensor y) { return x -> udfMul(x, y); }

    /** The multiply lambda of test_partials_recompilation, a function other than udf_mul. */
    static Fn1<Tensor, Tensor> multiplyBy(Tensor y) { return x -> x.mul(y); }

    // test_functions.py::test_partials_as_input_partials_lambda, _UDF and test_partials_recompilation's fn
    static Tensor callBoth(Fn1<Tensor, Tensor> f0, Fn1<Tensor, Tensor> f1, Tensor x) { return f0.apply(x).mul(f1.apply(x)); }

    // test_functions.py::test_manual_seed
    static Tensor manualSeed() {
        Tensor.manualSeed(3);
        return Tensor.randint(0, 5, 5);
    }

    // test_functions.py::test_no_recompile_inner_lambda
    static Tensor noRecompileInnerLambda(Tensor inp) {
        Function<Tensor, Tensor> g = y -> inp.add(y);
        System.out.println("graph break");
        return g.apply(Tensor.rand(1));
    }

    // test_functions.py::test_complex_closure (the compiled function returns a closure over its argument)
    static Function<Tensor, Tensor> complexClosure(Tensor y) {
        Supplier<Function<Tensor, Tensor>> a = () -> z -> y.add(z);
        return a.get();
    }

    // test_functions.py::test_compare_constant_and_tensor (op(-10, x) for lt, le, gt, ge, ne, eq: the comparison flipped onto x)
    static final List<Fn1<Tensor, Tensor>> COMPARE_CONSTANT_AND_TENSOR = List.of(
            x -> x.gt(-10), x -> x.ge(-10), x -> x.lt(-10), x -> x.le(-10), x -> x.ne(-10), x -> x.eq(-10));

    /** test_functions.py's @dataclass Output: fields with defaults, a factory for the map and list, a method. */
    static final class Output {
        int scalar = 2;
        Map<String, Tensor> namedTensors = new HashMap<>();
        List<Tensor> lists = new ArrayList<>();

        Output() {}

        Output(int scalar) { this.scalar = scalar; }

        Output(int scalar, Map<String, Tensor> namedTensors) {
            this.scalar = scalar;
            this.namedTensors = namedTensors;
        }

        int scale() { return scalar * 2; }
    }

    // test_functions.py::test_dataclass_factory
    static List<Object> dataclassFactory(Tensor x) {
        Output a = new Output(1);
        int scaledValue = a.scale();
        Output b = new Output(5, Map.of("x", x));
        Output c = new Output();
        if (a.namedTensors instanceof Map) x = x.sin();
        c.scalar = 6;
        c.namedTensors.put("x", x);
        return List.of(c, x.cos().mul(scaledValue).add(b.namedTensors.get("x")).add(c.scalar));
    }

    static class Base {
        final int outerA, outerB;

        Base(int outerA, int outerB) {
            this.outerA = outerA;
            this.outerB = outerB;
        }
    }

    static final class Derived extends Base {
        final List<Object> innerA = new ArrayList<>();

        Derived(int outerA, int outerB) { super(outerA, outerB); }
    }

    // test_functions.py::test_dataclass_nested
    static Tensor dataclassNested(Tensor x) {
        Derived l = new Derived(1, 2);
        return x.mul(l.outerA);
    }

    // test_functions.py::test_is_tensor_tensor
    static Tensor isTensorTensor(Tensor x, Tensor y) { return x == y ? x.mul(2) : x.add(y); }

    // test_functions.py::test_is_not_tensor_tensor
    static Tensor isNotTensorTensor(Tensor x, Tensor y) { return x != y ? x.mul(2) : x.add(y); }

    // test_functions.py::test_is_mutated_tensor_tensor
    static Boolean isMutatedTensorTensor(Tensor x) {
        Tensor y = x.add_(1);
        return x == y;
    }

    // test_functions.py::test_is_init_in_compile_mutated_tensor_tensor
    static Boolean isInitInCompileMutatedTensorTensor(Tensor x) {
        Tensor z = x.clone();
        Tensor y = z.add_(1);
        return y == z;
    }

    // test_functions.py::test_is_mutated_tensor_tensor_across_graph_break
    static List<Boolean> isMutatedTensorTensorAcrossGraphBreak(Tensor x) {
        Tensor y = x.add_(1);
        boolean cond = x == y;
        x.add_(1);
        Ember.graphBreak();
        x.add_(1);
        return List.of(x == y, cond);
    }

    // test_functions.py::test_zip_strict (zip(strict=True) raising ValueError: an IllegalArgumentException)
    static Tensor zipStrict(Tensor x, List<Double> ys, List<Double> zs) {
        if (ys.size() != zs.size()) throw new IllegalArgumentException("zip() argument 2 is longer than argument 1");
        x = x.clone();
        for (int i = 0; i < ys.size(); i++) x.add_(ys.get(i) * zs.get(i));
        return x;
    }

    /** test_functions.py::test_fn_with_attr's fn.pred, which the test flips. */
    static boolean pred = true;

    // test_functions.py::test_fn_with_attr
    static Tensor fnWithAttr(Tensor x) {
        if (pred) return x.mul(2).relu();
        return x.add(3).abs();
    }

    static final class CustomStr {
        @Override
        public String toString() { return "ok"; }
    }

    static final class DefaultStr {}

    // test_functions.py::test_str_handler_for_user_defined_object (str(a): String.valueOf)
    static List<Object> fooCustomStr(Tensor x) { return List.of(x, String.valueOf(new CustomStr())); }

    // test_functions.py::test_str_handler_for_user_defined_object (the default __str__: Object.toString, whose identity hash the trace cannot know)
    static List<Object> fooDefaultStr(Tensor x) { return List.of(x, String.valueOf(new DefaultStr())); }

    /** test_functions.py's global_func_with_default_tensor_args defaults: static fields the helper mutates. */
    static Tensor defaultX = Tensor.zeros(2, 2);
    static Tensor defaultKwX = Tensor.zeros(1, 2);

    static List<Tensor> globalFuncWithDefaultTensorArgs() {
        defaultX.add_(1);
        defaultKwX.add_(1);
        return List.of(defaultX, defaultKwX);
    }

    // test_functions.py::DefaultsTests::test_func_default_tensor_args
    static List<Tensor> funcDefaultTensorArgs() { return globalFuncWithDefaultTensorArgs(); }
}
