package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * More programs ported from PyTorch's Dynamo tests (test/dynamo/test_functions.py first), written as
 * a Java developer would write them: Python's partials are lambdas capturing their bound arguments,
 * defaultdicts are maps read through {@code computeIfAbsent}, frozensets {@code Set.of}, a user
 * MutableMapping an {@code AbstractMap}. Each names the test it ports (a trailing {@code ~}: an
 * adaptation, said why); PyTorchPortsMoreTest runs them eagerly and compiled.
 */
final class PyTorchPortsMorePrograms {
    private PyTorchPortsMorePrograms() {}

    // ---- test_functions.py ----

    // test_functions.py::test_functools_partial (clip01 = functools.partial(torch.clip, min=0.0, max=1.0): a static lambda)
    static final UnaryOperator<Tensor> CLIP01 = t -> t.clamp(0.0, 1.0);

    static Tensor functoolsPartial(Tensor a, Tensor b) { return CLIP01.apply(a.add(b)); }

    // test_functions.py::test_finfo (torch.finfo(a.dtype).min: the Java constant of the dtype's type)
    static Tensor finfo(Tensor a, Tensor b) {
        if (Integer.SIZE == 32) {
            double min = a.dtype() == DType.FLOAT32 ? -Float.MAX_VALUE : -Double.MAX_VALUE;
            return b.mul(min);
        }
        return null;
    }

    // test_functions.py::test_indirect3 (t = a.sub; t(*args, **kwargs): a bound method reference applied to an argument array)
    static Tensor indirect3(Tensor a, Tensor b) {
        Function<Tensor, Tensor> t = a::sub;
        Object[] args = {b};
        return t.apply((Tensor) args[0]);
    }

    // test_functions.py::test_is_integer (float.is_integer)
    static Tensor isInteger(Tensor t, double m) {
        return m == Math.floor(m) && !Double.isInfinite(m) ? t.mul(2) : t;
    }

    // test_functions.py::test_listarg2 (torch.cat((a, b), dim=0): the tuple is an array seen as a list)
    static Tensor listarg2(Tensor a, Tensor b) { return Tensor.cat(Arrays.asList(new Tensor[] {a, b}), 0); }

    // test_functions.py::test_listarg4 (torch.cat(tensors=[a, b], dim=0))
    static Tensor listarg4(Tensor a, Tensor b) {
        List<Tensor> tensors = new ArrayList<>();
        Collections.addAll(tensors, a, b);
        return Tensor.cat(tensors, 0);
    }

    // test_functions.py::test_range1 (torch.tensor(range(a.size(0))))
    static Tensor range1(Tensor a) { return Tensor.tensor(IntStream.range(0, a.size(0)).toArray()); }

    /** collections.defaultdict.fromkeys("a", "b"): a key per character of the string. */
    private static Map<String, Object> fromKeys(String keys, Object value) {
        Map<String, Object> d = new HashMap<>();
        for (char c : keys.toCharArray()) d.put(String.valueOf(c), value);
        return d;
    }

    // test_functions.py::test_defaultdict_setdefault1 (setdefault is putIfAbsent)
    static Tensor defaultdictSetdefault1(Tensor x) {
        Map<String, Object> d = fromKeys("a", "b");
        d.put("a", 1);
        d.put("b", 2);
        d.putIfAbsent("a", 10);
        if (d.get("a").equals(1)) return x.add(1);
        else return x.sub(1);
    }

    // test_functions.py::test_defaultdict_setdefault2
    static Tensor defaultdictSetdefault2(Tensor x) {
        Map<String, Object> d = fromKeys("a", "b");
        d.put("a", 1);
        d.put("b", 2);
        d.putIfAbsent("c", 10);
        if ((Integer) d.get("c") == 10) return x.add(1);
        else return x.sub(1);
    }

    // test_functions.py::test_defaultdict_setdefault3 (setdefault("c") stores None: a null value)
    static Tensor defaultdictSetdefault3(Tensor x) {
        Map<String, Object> d = fromKeys("a", "b");
        d.put("a", 1);
        d.put("b", 2);
        d.putIfAbsent("c", null);
        if (d.get("c") == null) return x.add(1);
        else return x.sub(1);
    }

    // test_functions.py::test_custom_dict_kwargs (a subclass of OrderedDict)
    static final class CustomDict extends LinkedHashMap<String, Tensor> {}

    static Map<String, Tensor> customDictKwargs(Tensor x) {
        CustomDict z = new CustomDict();
        z.put("sample", Tensor.ones(10));
        return z;
    }

    // test_functions.py::test_tensor_type~ (b.type(m.type()) with m half precision: Ember has no float16, float64 here)
    static Tensor tensorType(Tensor a, Tensor b) {
        Tensor m = a.to(DType.FLOAT64);
        return b.to(m.dtype());
    }

    // test_functions.py::test_dict_param_keys (a Parameter as a dict key, next to a string key)
    static final Parameter A_PARAM = new Parameter(Tensor.ones(4, 4));

    static Tensor dictParamKeys(Tensor a) {
        Map<Object, Object> tmp = new HashMap<>();
        tmp.put("a", a);
        tmp.put(A_PARAM, 3);
        return ((Tensor) tmp.get("a")).add((Integer) tmp.get(A_PARAM));
    }

    /** test_functions.py's TensorDict, a MutableMapping over a dict: an AbstractMap over a HashMap. */
    static final class TensorDict extends AbstractMap<String, Tensor> {
        private final Map<String, Tensor> dict = new HashMap<>();

        void add(String key, Tensor value) { dict.put(key, value); }

        @Override public Set<Entry<String, Tensor>> entrySet() { return dict.entrySet(); }

        @Override public Tensor get(Object key) { return dict.get(key); }

        @Override public Tensor put(String key, Tensor value) { return dict.put(key, value); }
    }

    static final TensorDict TENSOR_DICT = new TensorDict();

    static {
        TENSOR_DICT.add("a", Tensor.ones(4).mul(2));
    }

    // test_functions.py::test_dict_mutable_map (dict(tensor_dict): a HashMap copied from the user map)
    static Tensor dictMutableMap(Tensor x) {
        Map<String, Tensor> copy = new HashMap<>(TENSOR_DICT);
        return x.mul(copy.get("a"));
    }

    static Tensor gn(Tensor x, Tensor a) { return x.mul(a); }

    // test_functions.py::test_unpack_mutable_map (gn(x, **tensor_dict): the user map's entries passed on, one by one)
    static Tensor unpackMutableMap(Tensor x) {
        Tensor out = x;
        for (Map.Entry<String, Tensor> e : TENSOR_DICT.entrySet()) out = gn(out, e.getValue());
        return out;
    }

    static final Parameter PARAM22 = new Parameter(Tensor.ones(2, 2));

    // test_functions.py::test_default_dict_list (defaultdict(list): computeIfAbsent with a constructor reference;
    // the map is an argument here, so the test compares it afterwards)
    static List<Object> defaultDictList(Map<Object, Object> dd, Tensor x) {
        dd.put("a", x.add(1));
        dd.put(PARAM22, 123);
        dd.put("c", x.mul(2));
        return List.of(dd.computeIfAbsent("b", k -> new ArrayList<>()), dd);
    }

    // test_functions.py::test_default_dict_lambda (defaultdict(lambda: dict()))
    static List<Object> defaultDictLambda(Map<Object, Object> dd, Tensor x) {
        dd.put("a", x.add(1));
        dd.put(PARAM22, 123);
        dd.put("c", x.mul(2));
        Function<Object, Object> factory = k -> new HashMap<String, Object>();
        return List.of(dd.computeIfAbsent("b", factory), dd);
    }

    static Set<Object> setFactory(Object key) { return new HashSet<>(); }

    // test_functions.py::test_default_dict_closure (defaultdict(factory), factory a named function: a method reference)
    static List<Object> defaultDictClosure(Map<Object, Object> dd, Tensor x) {
        dd.put("a", x.add(1));
        dd.put(PARAM22, 123);
        dd.put("c", x.mul(2));
        return List.of(dd.computeIfAbsent("b", PyTorchPortsMorePrograms::setFactory), dd);
    }

    // test_functions.py::test_default_dict_constr (update from a dict, from pairs and from zip(\"ab\", ...))
    static List<Object> defaultDictConstr(Tensor x) {
        Map<Object, Object> dd = new LinkedHashMap<>();
        dd.put("a", x.add(1));
        dd.put(PARAM22, 123);
        dd.put("c", x.mul(2));
        dd.putAll(Map.of("b", x.mul(3)));
        for (Object[] kv : new Object[][] {{"d", x.sub(2)}, {"e", x.add(2)}}) dd.put(kv[0], kv[1]);
        String keys = "ab";
        List<Tensor> values = List.of(x.add(3), x.add(4));
        for (int i = 0; i < keys.length(); i++) dd.put(String.valueOf(keys.charAt(i)), values.get(i));
        return List.of(dd.computeIfAbsent("b", k -> new HashMap<>()), dd);
    }

    /** test_functions.py's StringKeys (a KeysView whose iterator yields its keys): a user collection. */
    static final class StringKeys extends AbstractCollection<Integer> {
        private final List<Integer> keys;

        StringKeys(List<Integer> keys) { this.keys = keys; }

        @Override public Iterator<Integer> iterator() { return keys.iterator(); }

        @Override public int size() { return keys.size(); }
    }

    static final StringKeys STRING_KEYS = new StringKeys(List.of(1, 2, 3, 3));

    // test_functions.py::test_set_keys_view (set(a) of the user collection)
    static Tensor setKeysView(Tensor x) {
        Set<Integer> s = new HashSet<>(STRING_KEYS);
        return x.mul(s.size());
    }

    // test_functions.py::test_tensor_new_with_size (x.new(y.size()): an uninitialized tensor of y's shape; returns None)
    static Tensor tensorNewWithSize(Tensor x) {
        Tensor y = Tensor.rand(5, 8);
        Tensor z = Tensor.empty(y.shape());
        assert Arrays.equals(z.shape(), y.shape());
        return null;
    }

    // test_functions.py::test_is_contiguous_memory_format
    static Tensor isContiguousMemoryFormat(Tensor t) {
        if (t.isContiguous()) return t.add(1);
        return null;
    }

    // test_functions.py::test_is_contiguous_frame_counts~ (the channels_last branch left out: Ember has no memory formats)
    static Tensor isContiguousFrameCounts(Tensor x) {
        if (x.isContiguous()) return x.add(1);
        else return x.add(3);
    }

    /** test_functions.py's SmallNN: a module whose forward takes two tensors, making its ReLUs each call. */
    static final class SmallNN extends Module {
        Tensor forward2(Tensor x, Tensor y) {
            Tensor combined = Tensor.cat(List.of(x, y), 1);
            Tensor out = new ReLU().forward(combined);
            return new ReLU().forward(out);
        }
    }

    static Tensor udfModule(SmallNN mod, Tensor x, Tensor y) { return mod.forward2(x, y); }

    // test_functions.py::test_partials_udf_kwarg_module (partial(udf_module, mod=SmallNN()): a lambda capturing the module)
    static Tensor partialsUdfKwargModule(Tensor x, Tensor y) {
        SmallNN mod = new SmallNN();
        BiFunction<Tensor, Tensor, Tensor> parMod = (a, b) -> udfModule(mod, a, b);
        return parMod.apply(x, y);
    }

    // test_functions.py::test_partials_udf_kwarg_method (mod=SmallNN().forward: a bound method reference)
    static Tensor partialsUdfKwargMethod(Tensor x, Tensor y) {
        BiFunction<Tensor, Tensor, Tensor> forward = new SmallNN()::forward2;
        BiFunction<Tensor, Tensor, Tensor> parMod = (a, b) -> forward.apply(a, b);
        return parMod.apply(x, y);
    }

    // test_functions.py::test_partials_as_input_partials_mod (the partials are arguments: lambdas made by the caller)
    static Tensor partialsAsInput(Function<Tensor, Tensor> f0, Function<Tensor, Tensor> f1, Tensor x) {
        return f0.apply(x).mul(f1.apply(x));
    }

    static Tensor udfMul(Tensor x, Tensor y) { return x.mul(y); }

    static Tensor udfAdd(Tensor x, Tensor y) { return x.add(y); }

    // test_functions.py::test_partials_graph_break_reconstruct (partial(udf, y=x) held across a print)
    static Tensor partialsGraphBreakReconstruct(BinaryOperator<Tensor> udfMul0, BinaryOperator<Tensor> udfMul1, Tensor x) {
        UnaryOperator<Tensor> lambda0 = t -> udfMul0.apply(t, x);
        UnaryOperator<Tensor> lambda1 = t -> udfMul1.apply(t, x);
        System.out.println("break");
        return lambda0.apply(x).mul(lambda1.apply(x));
    }

    // test_functions.py::test_partials_graph_break_reconstruct_mix (the second binds the first argument: partial(udf_add_1, x))
    static Tensor partialsGraphBreakReconstructMix(BinaryOperator<Tensor> udfMul0, BinaryOperator<Tensor> udfAdd1, Tensor x) {
        UnaryOperator<Tensor> lambda0 = t -> udfMul0.apply(t, x);
        UnaryOperator<Tensor> lambda1 = t -> udfAdd1.apply(x, t);
        System.out.println("break");
        return lambda0.apply(x).mul(lambda1.apply(x));
    }

    // test_functions.py::test_partials_graph_break_reconstruct_mix_no_source (udf_add_1 a lambda made in the function)
    static Tensor partialsGraphBreakReconstructMixNoSource(BinaryOperator<Tensor> udfMul0, Tensor x) {
        BinaryOperator<Tensor> udfAdd1 = (a, b) -> a.add(b);
        UnaryOperator<Tensor> lambda0 = t -> udfMul0.apply(t, x);
        UnaryOperator<Tensor> lambda1 = t -> udfAdd1.apply(x, t);
        System.out.println("break");
        return lambda0.apply(x).mul(lambda1.apply(x));
    }

    /** udf_mul2(x, y, z) = x * y * z over Python numbers and tensors alike. */
    interface Mul3 {
        Tensor apply(Object x, Object y, Tensor z);
    }

    /** Python's * on an int or a tensor, either side: a pattern switch. */
    static Object times(Object a, Object b) {
        return switch (a) {
            case Tensor t when b instanceof Tensor u -> t.mul(u);
            case Tensor t -> t.mul(((Number) b).doubleValue());
            case Integer n when b instanceof Tensor u -> u.mul(n);
            case Integer n -> n * (Integer) b;
            default -> throw new IllegalArgumentException("unsupported operand " + a);
        };
    }

    static Tensor udfMul2(Object x, Object y, Tensor z) { return (Tensor) times(times(x, y), z); }

    // test_functions.py::test_partials_graph_break_reconstruct_args_and_kwargs (partial(udf_mul_0, x, 4, z=x) and partial(udf_mul_0, 4, z=x))
    static Tensor partialsArgsAndKwargs(Mul3 udfMul0, Tensor x) {
        Supplier<Tensor> lambda0 = () -> udfMul0.apply(x, 4, x);
        Function<Object, Tensor> lambda1 = y -> udfMul0.apply(4, y, x);
        return lambda0.get().mul(lambda1.apply(5));
    }

    static Tensor bar(Tensor x, int ignored) { return x.add(x); }

    // test_functions.py::test_partial_across_graph_break_uninvoked (inner() prints, then calls the partial the
    // enclosing function rebinds between the calls: nonlocal cells are one-element arrays)
    @SuppressWarnings("unchecked")
    static Tensor partialAcrossGraphBreakUninvoked(Tensor x0, int i) {
        Tensor[] x = {x0};
        Function<Tensor, Tensor>[] op = new Function[1];
        Supplier<Tensor> inner = () -> {
            System.out.println("this is a graph_break");
            return op[0].apply(x[0]);
        };
        op[0] = t -> bar(t, 10);
        x[0] = inner.get();
        op[0] = t -> bar(t, i);
        return inner.get().add(x[0]);
    }

    // test_functions.py::test_unary_fold_op (list(map(abs, range(-10, 10))): no tensor, no graph)
    static List<Integer> unaryFoldOpAbs() { return IntStream.range(-10, 10).map(Math::abs).boxed().toList(); }

    // test_functions.py::test_unary_fold_op (operator.neg)
    static List<Integer> unaryFoldOpNeg() { return IntStream.range(-10, 10).map(i -> -i).boxed().collect(Collectors.toList()); }

    // test_functions.py::test_unary_fold_op_seq (length_hint of tuple(range(-10, i)) for i in range(10))
    static List<Integer> unaryFoldOpSeq() {
        List<List<Integer>> a = new ArrayList<>();
        for (int i = 0; i < 10; i++) a.add(IntStream.range(-10, i).boxed().toList());
        return a.stream().map(List::size).toList();
    }

    // test_functions.py::test_range_with_slice_index (range(2)[1::2]: IntStream.iterate with a bound)
    static Tensor rangeWithSliceIndex(Tensor x) {
        int acc = 1;
        for (int k : IntStream.iterate(1, k -> k < 2, k -> k + 2).toArray()) acc *= acc * k;
        return x.mul(acc);
    }

    // test_functions.py::test_range_with_index (range(10, 20, 2)[2])
    static Tensor rangeWithIndex(Tensor x) {
        int acc = 1;
        int[] r = IntStream.iterate(10, v -> v < 20, v -> v + 2).toArray();
        acc *= acc * r[2];
        return x.mul(acc);
    }

    /** test_functions.py's SdpaShape namedtuple. */
    record SdpaShape(int batch, int numHeads, int seqLen, int headDim) {
        int[] dims() { return new int[] {batch, numHeads, seqLen, headDim}; }
    }

    // test_functions.py::test_rand_tensor_partial~ (float16 is float32 here, the shapes smaller; returns t3 instead of None)
    static Tensor randTensorPartial() {
        Function<int[], Tensor> makeTensor = shape -> Tensor.rand(shape);
        int bsz = 2, numHeads = 2, seqLenQ = 4, seqLenKv = 4, headDim = 3;
        Supplier<Tensor> makeQTensor = () -> makeTensor.apply(new SdpaShape(bsz, numHeads, seqLenQ, headDim).dims());
        Supplier<Tensor> makeKvTensor = () -> makeTensor.apply(new SdpaShape(bsz, numHeads, seqLenKv, headDim).dims());
        Tensor t1 = makeQTensor.get();
        Tensor t2 = makeKvTensor.get();
        return t1.add(t2);
    }

    // test_functions.py::test_listlike_of_tensors_contains_constant (1 in [x] and 1 in {x})
    static List<Boolean> listlikeContainsConstant(Tensor x) {
        x.add_(1);
        List<Object> l = List.of(x);
        Set<Object> s = new HashSet<>(l);
        return List.of(l.contains(1), s.contains(1));
    }

    // test_functions.py::test_set_construction (set({x}) then add(y), y the same tensor as x)
    static int setConstruction(Tensor x) {
        Tensor y = x.add_(1);
        Set<Tensor> s = new HashSet<>(Set.of(x));
        s.add(y);
        return s.size();
    }

    // test_functions.py::test_frozenset_construction
    static int frozensetConstruction(Tensor x) {
        Set<Tensor> s = Set.of(x);
        Set<Tensor> t = Set.copyOf(s);
        return t.size();
    }

    static final Map<Set<Object>, Tensor> FROZEN_KEYED = new HashMap<>();

    static {
        Tensor.manualSeed(7);
        FROZEN_KEYED.put(Set.of(), Tensor.randn(4));
    }

    // test_functions.py::test_frozenset_reconstruction (an empty frozenset made before a break, a dict key after it)
    static Tensor frozensetReconstruction(Tensor x) {
        Set<Object> k = Set.of();
        Ember.graphBreak();
        return FROZEN_KEYED.get(k).mul(x);
    }

    // test_functions.py::test_frozenset_illegal_call_method (Dynamo raises an internal error; Java's immutable sets
    // throw UnsupportedOperationException, and compiled must too)
    static int frozensetIllegalCallMethod(int which) {
        Set<Integer> s = Set.of(1, 2, 3);
        switch (which) {
            case 0 -> s.add(2);
            case 1 -> s.remove(2);
            case 2 -> s.addAll(Set.of(4, 5, 6));
            case 3 -> s.clear();
            default -> s.removeIf(v -> v == 2);
        }
        return s.size();
    }

    // test_functions.py::test_in_set_would_fail_broadcast (set membership by identity, not by ==)
    static boolean inSetWouldFailBroadcast(Tensor param, Tensor param2) {
        param.add_(1);
        Set<Tensor> tensorList = new HashSet<>(List.of(param2));
        return tensorList.contains(param);
    }

    // test_functions.py::test_in_set_inplace
    static boolean inSetInplace(Tensor param, Tensor param2) {
        Tensor y = param.add_(1);
        Tensor z = y.add_(1);
        Set<Tensor> tensorList = new HashSet<>(List.of(param2));
        return tensorList.contains(y) && tensorList.contains(z);
    }

    // test_functions.py::test_zip_strict (zip(strict=True) raises on unequal lengths: a checked loop)
    static Tensor zipStrict(Tensor x, List<Double> ys, List<Double> zs) {
        if (ys.size() != zs.size()) throw new IllegalArgumentException("zip() argument 2 is longer than argument 1");
        x = x.clone();
        for (int i = 0; i < ys.size(); i++) x.add_(ys.get(i) * zs.get(i));
        return x;
    }

    /** A class with its own toString (test_str_handler_for_user_defined_object's CustomStr). */
    static final class CustomStr {
        @Override public String toString() { return "ok"; }
    }

    /** One with Object's toString. */
    static final class DefaultStr {}

    // test_functions.py::test_str_handler_for_user_defined_object (str(a) of a class with its own __str__)
    static List<Object> strHandlerForUserDefinedObject(Tensor x) { return List.of(x, String.valueOf(new CustomStr())); }

    // test_functions.py::test_str_handler_for_user_defined_object (of a class without: the class name before the hash is compared)
    static List<Object> strHandlerForDefaultObject(Tensor x) { return List.of(x.add(1), String.valueOf(new DefaultStr()).split("@")[0]); }

    // ---- test_enum.py ----

    enum MyEnum { FOO, BAR }

    /** test_enum_as_dict_key_with_overloaded_str's enum, whose text is its value. */
    enum MyStrEnum {
        FOO(10), BAR(20);

        final int value;

        MyStrEnum(int value) { this.value = value; }

        @Override public String toString() { return String.valueOf(value); }
    }

    // test_enum.py::test_enum_as_dict_key (enum, string and int keys in one map, read after a break)
    static List<Tensor> enumAsDictKey(Tensor x) {
        Tensor y = x.add(2);
        Map<Object, Object> z = new LinkedHashMap<>();
        z.put(MyEnum.FOO, Tensor.scalar(1L));
        z.put(MyEnum.BAR, 10);
        z.put("MyEnum.BAR", Tensor.scalar(8L));
        z.put(5, Tensor.rand(3));
        Ember.graphBreak();
        Tensor a = ((Tensor) z.get(MyEnum.FOO)).add((Tensor) z.get("MyEnum.BAR"));
        Tensor b = y.mul(2);
        return List.of(a, b);
    }

    // test_enum.py::test_enum_as_dict_key_with_overloaded_str
    static List<Tensor> enumAsDictKeyWithOverloadedStr(Tensor x) {
        Tensor y = x.add(2);
        Map<Object, Object> z = new HashMap<>();
        z.put(MyStrEnum.FOO, Tensor.scalar(1L));
        z.put(MyStrEnum.BAR, 10);
        z.put("MyEnum.BAR", Tensor.scalar(8L));
        z.put(5, Tensor.rand(3));
        Ember.graphBreak();
        Tensor a = ((Tensor) z.get(MyStrEnum.FOO)).add((Tensor) z.get("MyEnum.BAR"));
        Tensor b = y.mul(2);
        return List.of(a, b);
    }

    // test_enum.py::test_enum_no_graphbreaks (foo is Foo.FOO: identity of an enum constant)
    static Tensor enumNoGraphbreaks(Tensor x, MyEnum foo) {
        if (foo == MyEnum.FOO) x = x.add(1.0);
        x = x.mul(1.0);
        return x;
    }

    enum Reduction { SUM, MAX, MIN }

    // test_enum.py::test_enum_membership_check (reduction in Reduction: an EnumSet of all constants)
    static Tensor enumMembershipIn(Tensor x, Reduction reduction) {
        if (java.util.EnumSet.allOf(Reduction.class).contains(reduction)) x = x.add(1.0);
        return x;
    }

    // test_enum.py::test_enum_membership_check (not in: raise)
    static Tensor enumMembershipNotIn(Tensor x, Reduction reduction) {
        if (!List.of(Reduction.values()).contains(reduction)) throw new IllegalArgumentException("Unknown reduction");
        return x.mul(2.0);
    }

    // test_enum.py::test_enum_guards (y == MyEnum.FOO with BAR passed)
    static Tensor enumGuards(Tensor x, MyEnum y) {
        if (y.equals(MyEnum.FOO)) return x.add(1);
        else return x.sub(1);
    }

    /** test_enum_method's IntEnum with a method returning a pair: a record. */
    enum Bool {
        TRUE, FALSE;

        record Result(boolean cond, Tensor y) {}

        Result isTrue(Tensor x) { return new Result(this == TRUE, x.add(1)); }
    }

    // test_enum.py::test_enum_method
    static Tensor enumMethod(Tensor x, Bool e) {
        Bool.Result r = e.isTrue(x);
        if (r.cond()) return r.y().add(2);
        else return r.y().sub(2);
    }

    /** An enum whose constants carry a value, as Python's Enum members do. */
    enum Color {
        RED(1), GREEN(2), BLUE(3);

        final int value;

        Color(int value) { this.value = value; }

        /** Color(1): the constant of a value. */
        static Color of(int value) {
            for (Color c : values()) if (c.value == value) return c;
            throw new IllegalArgumentException(value + " is not a valid Color");
        }
    }

    static Tensor gnEnumDefault(Tensor x) { return gnEnumDefault(x, MyEnum.FOO); }

    static Tensor gnEnumDefault(Tensor x, MyEnum y) {
        if (y == MyEnum.FOO) return x;
        else return x.add(1);
    }

    // test_enum.py::test_user_function_variable_supports_enum_argument (y=Foo.FOO as a default: an overload)
    static Tensor userFunctionSupportsEnumArgument(Tensor x) { return gnEnumDefault(x); }

    // test_enum.py::test_enum_len (len(Color))
    static Tensor enumLen(Tensor x) { return x.add(Color.values().length); }

    // test_enum.py::test_enum_iter (Dynamo's expected failure: for color in Color)
    static Tensor enumIter(Tensor x) {
        int total = 0;
        for (Color color : Color.values()) total += color.value;
        return x.add(total);
    }

    // test_enum.py::test_enum_list (list(Color); Dynamo's expected failure)
    static Tensor enumList(Tensor x) {
        List<Color> colors = new ArrayList<>(java.util.EnumSet.allOf(Color.class));
        return x.add(colors.size());
    }

    // test_enum.py::test_enum_getitem (Color["RED"])
    static Tensor enumGetitem(Tensor x) {
        Color color = Color.valueOf("RED");
        if (color == Color.RED) return x.add(1);
        return x;
    }

    // test_enum.py::test_enum_reversed (Dynamo's expected failure)
    static Tensor enumReversed(Tensor x) {
        List<Color> colors = new ArrayList<>(List.of(Color.values()));
        Collections.reverse(colors);
        if (colors.get(0) == Color.BLUE && colors.get(2) == Color.RED) return x.add(1);
        return x;
    }

    // test_enum.py::test_enum_call (Color(1): the constant of a value)
    static Tensor enumCall(Tensor x) {
        Color color = Color.of(1);
        if (color == Color.RED) return x.add(1);
        return x;
    }

    // test_enum.py::test_enum_name_value_properties
    static Tensor enumNameValueProperties(Tensor x, Color color) {
        if (color.name().equals("RED")) return x.add(color.value);
        return x;
    }

    // test_enum.py::test_int_enum_arithmetic (x + Priority.HIGH: an IntEnum is its int)
    static Tensor intEnumArithmetic(Tensor x, Color priority) { return x.add(priority.ordinal() + 1); }

    enum Permission { READ, WRITE, EXECUTE }

    // test_enum.py::test_flag_enum (Permission.READ in READ | WRITE: an EnumSet; Dynamo's expected failure)
    static Tensor flagEnum(Tensor x, Set<Permission> perm) {
        if (perm.contains(Permission.READ)) return x.add(1);
        return x;
    }

    // test_enum.py::test_enum_comparison
    static Tensor enumComparison(Tensor x, Color a, Color b) {
        if (a.equals(b)) return x.add(1);
        else if (a == b) return x.add(2);
        else return x.sub(1);
    }

    /** test_tuple_enum_as_key_dict's model: a Linear reading an enum-keyed map. */
    static final class EnumKeyedModel {
        final dev.ember.nn.Linear linear = new dev.ember.nn.Linear(1, 1);

        Tensor forward(Map<MyEnum, Tensor> x) { return linear.forward(x.get(MyEnum.FOO)); }
    }

    // test_repros.py::test_tuple_enum_as_key_dict
    static Tensor tupleEnumAsKeyDict(EnumKeyedModel model, Map<MyEnum, Tensor> x) { return model.forward(x); }

    // ---- test_subgraphs.py ----

    // test_subgraphs.py::test_control_flow5 (and/or of tensor comparisons: each a data-dependent branch)
    static List<Object> controlFlow5(Tensor a, Tensor b) {
        boolean tmp1 = a.sum().gt(b.sum()).asBoolean() && a.sum().gt(0).asBoolean();
        boolean tmp2 = a.sum().lt(b.sum()).asBoolean() || b.sum().gt(0).asBoolean();
        if (tmp1 && tmp2) return List.of(1, tmp1, tmp2);
        else return List.of(2, tmp1, tmp2);
    }

    @dev.ember.dynamo.Disable
    static Tensor unsupported(Tensor a, Tensor b) { return a.add(b); }

    static Tensor indirectlyUnsupported(Tensor a, Tensor b) {
        Tensor c = a.add(b);
        return unsupported(a, c);
    }

    // test_subgraphs.py::test_indirect_unsupported2 (7 / (22 - t): Java has no number-over-tensor operator, rsub then reciprocal and mul)
    static Tensor indirectUnsupported2(Tensor a, Tensor b) {
        int localConst1 = 7;
        int localConst2 = 22;
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        return indirectlyUnsupported(c1, c2).rsub(localConst2).reciprocal().mul(localConst1);
    }

    // test_subgraphs.py::test_extended_args~ (the 512-term sums, a+b+a+b+..., are loops here: one op per term as in Dynamo)
    static Tensor extendedArgs(Tensor a, Tensor b) {
        if (a.sum().gt(0).asBoolean()) {
            Tensor s = a.add(b);
            for (int i = 1; i < 256; i++) s = s.add(a).add(b);
            return s.add(a);
        }
        Tensor s = a.add(b);
        for (int i = 1; i < 256; i++) s = s.add(a).add(b);
        return s.sub(b);
    }

    // test_subgraphs.py::test_dynamic_getitem (a[b.size(0) - 1] with dynamic sizes)
    static Tensor dynamicGetitem(Tensor a, Tensor b) { return a.select(0, b.size(0) - 1); }

    // ---- test_repros.py ----

    static final ThreadLocal<Tensor> FOO_LOCAL = ThreadLocal.withInitial(() -> Tensor.rand(1));

    // test_repros.py::test_threading_local (threading.local(): a ThreadLocal)
    static Tensor threadingLocal(Tensor x) { return Tensor.cat(List.of(x, FOO_LOCAL.get()), 0); }

    // test_repros.py::test_nn_parameter (a Parameter made in the function is returned as one)
    static Tensor nnParameter() {
        Parameter a = new Parameter(Tensor.randn(5, 5));
        assert a instanceof Parameter;
        return a;
    }

    /** The repro's get_parameter_dtype: the first parameter's dtype (an early return from a loop). */
    static DType parameterDtype(Module model) {
        for (Tensor p : model.parameters()) return p.dtype();
        return DType.FLOAT32;
    }

    // test_repros.py::test_get_parameter_dtype
    static Tensor getParameterDtype(Module model, Tensor x) { return x.add(Tensor.randn(10).to(parameterDtype(model))); }

    // ---- test_exceptions.py ----

    static Tensor gnRethrows(Tensor x) {
        try {
            x = x.cos();
            throw new UnsupportedOperationException("Not implemented");
        } catch (UnsupportedOperationException e) {
            x = x.sigmoid();
            throw e;
        }
    }

    // test_exceptions.py::test_exception_with_another_exception2 (a handler that rethrows, caught by the caller)
    static Tensor exceptionWithAnotherException2(Tensor x) {
        try {
            x = x.cos();
            gnRethrows(x);
        } catch (RuntimeException e) {
            // pass
        }
        return x;
    }

    /** test_nn_module_getattr's A: attributes by name, with a fallback that raises. */
    static class AttrA {
        final Map<String, Integer> dict = new HashMap<>(Map.of("_b", 20));

        int attr(String name) {
            String fixedName = "_" + name;
            if (dict.containsKey(fixedName)) return dict.get(fixedName);
            throw new NoSuchElementException(name + " absent");
        }
    }

    /** B: a field of its own, and a getattr that falls back to 30 when A's raises (a super call in a try). */
    static final class AttrB extends AttrA {
        final int a = 10;

        @Override
        int attr(String name) {
            try {
                return super.attr(name);
            } catch (NoSuchElementException e) {
                return 30;
            }
        }
    }

    static final AttrB ATTR_OBJ = new AttrB();

    // test_exceptions.py::test_nn_module_getattr
    static Tensor nnModuleGetattr(Tensor x) { return x.mul(ATTR_OBJ.a).mul(ATTR_OBJ.attr("b")).mul(ATTR_OBJ.attr("c")); }

    /** test_stop_iteration's zip_longest: next() past the end raises, caught to stop. */
    static List<Object> zipLongest(Object fillvalue, List<?>... iterables) {
        List<Iterator<?>> iterators = new ArrayList<>();
        for (List<?> it : iterables) iterators.add(it.iterator());
        List<Object> result = new ArrayList<>();
        while (true) {
            for (Iterator<?> it : iterators) {
                Object value;
                try {
                    value = it.next();
                } catch (java.util.NoSuchElementException e) {
                    result.add(fillvalue);
                    return result;
                }
                result.add(value);
            }
        }
    }

    // test_exceptions.py::test_stop_iteration
    static List<Object> stopIteration(List<Integer> x, List<Integer> y) {
        Tensor.randn(4).cos();
        return zipLongest(null, x, y);
    }

    /** test_raise_from_None's MyMapping: a missing key raises a new exception of the mapping's own. */
    static final class MyMapping {
        private final Map<String, Integer> d;

        MyMapping(Map<String, Integer> d) { this.d = d; }

        int getItem(String key) {
            if (!d.containsKey(key)) throw new NoSuchElementException(key);
            return d.get(key);
        }
    }

    static Integer mappingGet(MyMapping obj, String key, Integer value) {
        try {
            return obj.getItem(key);
        } catch (NoSuchElementException e) {
            return value;
        }
    }

    // test_exceptions.py::test_raise_from_None
    static List<Object> raiseFromNone(Tensor x, MyMapping d, String key) {
        x = x.add(1).sin();
        return Arrays.asList(x, mappingGet(d, key, null));
    }

    // ---- Java idioms (no PyTorch source: code as Java users write it) ----

    // labeled continue and break over a list of tensors
    static Tensor labeledLoops(List<Tensor> xs) {
        Tensor acc = xs.get(0).mul(0);
        outer:
        for (int i = 0; i < xs.size(); i++) {
            for (int j = 0; j < 3; j++) {
                if (j == i) continue outer;
                if (i + j > 4) break outer;
                acc = acc.add(xs.get(i).mul(j + 1));
            }
        }
        return acc;
    }

    sealed interface Spec permits Scale, Shift, Chain {}

    record Scale(double by) implements Spec {}

    record Shift(double by) implements Spec {}

    record Chain(List<Spec> parts) implements Spec {}

    // a switch over a sealed interface's records, recursive
    static Tensor applySpec(Spec spec, Tensor x) {
        return switch (spec) {
            case Scale s -> x.mul(s.by());
            case Shift s when s.by() == 0 -> x;
            case Shift s -> x.add(s.by());
            case Chain c -> {
                Tensor y = x;
                for (Spec part : c.parts()) y = applySpec(part, y);
                yield y;
            }
        };
    }

    static Tensor sealedSwitch(Tensor x) {
        return applySpec(new Chain(List.of(new Scale(2), new Shift(0), new Chain(List.of(new Shift(1), new Scale(-1))))), x);
    }

    /** An interface with a default method and a static constant made in a static initializer. */
    interface Activation {
        Tensor apply(Tensor x);

        default Tensor twice(Tensor x) { return apply(apply(x)); }
    }

    static final double LEAK;

    static {
        double base = 0.1;
        LEAK = base / 10;
    }

    static final class Leaky implements Activation {
        @Override public Tensor apply(Tensor x) { return x.relu().add(x.neg().relu().mul(-LEAK)); }
    }

    static Tensor defaultMethodAndStaticInit(Tensor x) { return new Leaky().twice(x); }

    // do/while, ternaries, bit operations and long arithmetic on shapes
    static Tensor doWhileAndBits(Tensor x) {
        int n = x.size(0);
        int steps = 0;
        do {
            n >>= 1;
            steps++;
        } while (n > 1);
        long mask = (1L << steps) - 1;
        int ones = Long.bitCount(mask) + Integer.numberOfTrailingZeros(8);
        return x.mul(steps % 2 == 0 ? ones : -ones).add(Math.floorMod(-7, 3));
    }

    /** A varargs helper, generic over tensors. */
    @SafeVarargs
    static <T extends Tensor> Tensor sumAll(T first, T... rest) {
        Tensor acc = first;
        for (T t : rest) acc = acc.add(t);
        return acc;
    }

    static Tensor varargsGeneric(Tensor a, Tensor b) { return sumAll(a, b, a.mul(2)).add(sumAll(b)); }

    // instanceof patterns on mixed arguments
    static Tensor instanceofPatterns(Tensor x, List<Object> extras) {
        for (Object o : extras) {
            if (o instanceof Tensor t) x = x.add(t);
            else if (o instanceof Integer i && i > 0) x = x.mul(i);
            else if (o instanceof String s && !s.isEmpty()) x = x.add(s.length());
        }
        return x;
    }

    // Optional, chars and strings: a name built and looked up
    static Tensor optionalAndStrings(Tensor x, Map<String, Tensor> table) {
        StringBuilder key = new StringBuilder();
        for (char c : "w1".toCharArray()) key.append(Character.toUpperCase(c));
        String name = key.toString().toLowerCase() + "_" + x.dim();
        return java.util.Optional.ofNullable(table.get(name)).map(x::mul).orElse(x.neg());
    }

    // multi-dimensional arrays, Arrays.fill and clone, a shape table
    static Tensor shapeTable(Tensor x) {
        int[][] shapes = new int[2][];
        shapes[0] = x.shape().clone();
        shapes[1] = new int[x.dim()];
        Arrays.fill(shapes[1], 1);
        shapes[1][0] = x.size(0) * x.size(1);
        int[] copy = Arrays.copyOf(shapes[1], 2);
        return x.reshape(copy).add(x.view(shapes[0]).flatten().unsqueeze(1));
    }

    /** A module calling its submodules in a loop, mutating a counter field. */
    static final class Stack extends Module {
        final dev.ember.nn.ModuleList<Module> layers = new dev.ember.nn.ModuleList<>(new dev.ember.nn.Linear(4, 4), new dev.ember.nn.Linear(4, 4));
        int calls;

        @Override
        public Tensor forward(Tensor x) {
            calls++;
            for (Module m : layers) x = m.forward(x).relu();
            return calls % 2 == 0 ? x : x.neg();
        }
    }

    // a synchronized block: the graph before it, the rest eagerly (GB0009)
    static final Object LOCK = new Object();

    static Tensor synchronizedBlock(Tensor x) {
        Tensor y = x.sin();
        int k;
        synchronized (LOCK) {
            k = x.dim() + 1;
        }
        return y.add(k);
    }
}
