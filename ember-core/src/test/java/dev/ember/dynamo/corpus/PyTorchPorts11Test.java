package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An eleventh batch of ports of PyTorch's Dynamo tests, from test_dicts.py (a Python dict is a
 * Java Map; a dict subclass a subclass of HashMap or LinkedHashMap; an OrderedDict a
 * LinkedHashMap), each run eagerly and compiled; where Dynamo's test asserts fullgraph, a frame
 * count or a recompile, so does the port.
 */
class PyTorchPorts11Test {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    private static CompileCounter check(Object fn, Options options, java.util.function.Supplier<List<Object[]>> calls) {
        return PyTorchPortsMoreTest.check(fn, options, calls);
    }

    /** A dict subclass: a HashMap that only adds methods. */
    static class SimpleDict<K, V> extends HashMap<K, V> {}

    static Tensor subclassInstantiation(Tensor x) {
        SimpleDict<String, Integer> sd = new SimpleDict<>();
        sd.put("x", 5);
        return x.mul(sd.get("x"));
    }

    @Test
    void dictSubclassInstantiation() { // test_dict_subclass_instantiation: fullgraph
        check((Fn1<Tensor, Tensor>) PyTorchPorts11Test::subclassInstantiation, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(4))));
    }

    static final SimpleDict<Integer, Integer> SD = new SimpleDict<>();

    static {
        SD.put(2, 5);
        SD.put(4, 10);
    }

    static Tensor fallbackReadonly(Tensor x) {
        for (int value : SD.values()) x = x.mul(value);
        for (int key : SD.keySet()) x = x.mul(key);
        for (var e : SD.entrySet()) x = x.mul(e.getKey()).mul(e.getValue());
        x = SD.containsKey(1) ? x.mul(2) : x.mul(3);
        x = x.mul(SD.getOrDefault(2, 0)).mul(SD.getOrDefault(3, 4));
        return x.mul(SD.size());
    }

    @Test
    void dictSubclassMethodsFallbackReadonly() { // test_dict_subclass_methods_fallback_readonly: fullgraph; a key added to the global recompiles
        Fn1<Tensor, Tensor> f = PyTorchPorts11Test::fallbackReadonly;
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> opt = Ember.compile(f, Options.fullgraph().withBackend(cc));
        Tensor x = Tensor.randn(4);
        assertArrayEquals(f.apply(x).toDoubleArray(), opt.apply(x).toDoubleArray(), 1e-4);
        SD.put(6, 15);
        try {
            assertArrayEquals(f.apply(x).toDoubleArray(), opt.apply(x).toDoubleArray(), 1e-2);
            assertEquals(2, cc.frameCount(), "a new key recompiles");
        } finally {
            SD.remove(6);
        }
    }

    static Map<String, Object> subclassReturn(Tensor x) {
        SimpleDict<String, Object> sd = new SimpleDict<>();
        sd.put("x", x.mul(5));
        sd.put("y", 10);
        return sd;
    }

    @Test
    void dictSubclassInstantiationReturn() { // test_dict_subclass_instantiation_return: the returned map is of the subclass
        Fn1<Tensor, Map<String, Object>> f = PyTorchPorts11Test::subclassReturn;
        Tensor x = Tensor.randn(4);
        Map<String, Object> ref = f.apply(x), res = Ember.compile(f, Options.fullgraph()).apply(x);
        assertEquals(ref.getClass(), res.getClass());
        assertArrayEquals(((Tensor) ref.get("x")).toDoubleArray(), ((Tensor) res.get("x")).toDoubleArray(), 1e-6);
        assertEquals(ref.get("y"), res.get("y"));
    }

    static Tensor byTensorKey(Map<Object, Tensor> d, Tensor x) { return d.get(x).add(3); }

    @Test
    void dictOrderKeysTensors() { // test_dict_order_keys_tensors: a tensor key and an int key; the same map again does not recompile, another order does
        Tensor x = Tensor.randn(10), y = Tensor.randn(10), z = Tensor.randn(10);
        Map<Object, Tensor> args1 = new LinkedHashMap<>();
        args1.put(x, y);
        args1.put(3, z);
        CompileCounter cc = new CompileCounter();
        Fn2<Map<Object, Tensor>, Tensor, Tensor> f = PyTorchPorts11Test::byTensorKey;
        Fn2<Map<Object, Tensor>, Tensor, Tensor> opt = Ember.compile(f, Options.fullgraph().withBackend(cc));
        assertArrayEquals(f.apply(args1, x).toDoubleArray(), opt.apply(args1, x).toDoubleArray(), 1e-6);
        opt.apply(args1, x);
        assertEquals(1, cc.frameCount());
        Map<Object, Tensor> args2 = new LinkedHashMap<>();
        args2.put(3, z);
        args2.put(x, y);
        assertArrayEquals(f.apply(args2, x).toDoubleArray(), opt.apply(args2, x).toDoubleArray(), 1e-6);
        assertEquals(2, cc.frameCount());
    }

    static List<Object> updateNoArgs(Tensor x) {
        Map<String, Tensor> d = new HashMap<>(Map.of("a", x));
        d.putAll(Map.of());
        return List.of(d.get("a"), d.size());
    }

    @Test
    void dictUpdateNoArgs() { // test_dict_update_no_args: update() of nothing (putAll of an empty map) changes nothing
        check((Fn1<Tensor, List<Object>>) PyTorchPorts11Test::updateNoArgs, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(4))));
    }

    static Tensor dictIter(Tensor x) {
        Map<String, Integer> z = new LinkedHashMap<>();
        z.put("my", 1);
        z.put("const", 2);
        z.put("dict", 3);
        z.put("variable", 4);
        int tot = 0;
        for (String key : z.keySet()) tot += z.get(key);
        return x.mul(0).add(tot);
    }

    @Test
    void dictIter() { // test_dict_iter: fullgraph, the sum 10
        Tensor y = Ember.compile((Fn1<Tensor, Tensor>) PyTorchPorts11Test::dictIter, Options.fullgraph()).apply(Tensor.zeros(1));
        assertEquals(10.0, y.toDoubleArray()[0], 0);
    }

    /** An OrderedDict subclass from huggingface: a LinkedHashMap that adds nothing. */
    static class ClassInstantier<K, V> extends LinkedHashMap<K, V> {
        ClassInstantier(Map<K, V> m) { super(m); }
    }

    static Tensor subclassContains(Tensor x, Map<String, Tensor> d) {
        if (d.containsKey("key1")) x = x.add(2);
        if (d.containsKey("key2")) x = x.add(4);
        return x.add(8);
    }

    @Test
    void dictSubclassContains() { // test_dict_subclass_contains: 11 with key1, 13 with key2
        Fn2<Tensor, Map<String, Tensor>, Tensor> opt = Ember.compile((Fn2<Tensor, Map<String, Tensor>, Tensor>) PyTorchPorts11Test::subclassContains, Options.fullgraph());
        assertArrayEquals(Tensor.full(new int[] {8}, 11.0).toDoubleArray(), opt.apply(Tensor.ones(8), new ClassInstantier<>(Map.of("key1", Tensor.ones(8)))).toDoubleArray(), 0);
        assertArrayEquals(Tensor.full(new int[] {8}, 13.0).toDoubleArray(), opt.apply(Tensor.ones(8), new ClassInstantier<>(Map.of("key2", Tensor.ones(8)))).toDoubleArray(), 0);
    }

    static final class Foo {
        int scalar = 10;
    }

    static Tensor tagGuard(Map<String, Object> d, Tensor x) {
        return x.mul((Integer) d.get("a")).mul((Integer) d.get("b")).mul(((Foo) d.get("c")).scalar);
    }

    @Test
    void dictTagGuard() { // test_dict_tag_guard: a changed int value and a changed field of an object value each answer as eager
        Foo foo = new Foo();
        Map<String, Object> d = new HashMap<>(Map.of("a", 2, "b", 3, "c", foo));
        Fn2<Map<String, Object>, Tensor, Tensor> f = PyTorchPorts11Test::tagGuard;
        Fn2<Map<String, Object>, Tensor, Tensor> opt = Ember.compile(f, Options.backend("eager"));
        Tensor inp = Tensor.randn(3, 3);
        assertArrayEquals(f.apply(d, inp).toDoubleArray(), opt.apply(d, inp).toDoubleArray(), 1e-5);
        d.put("a", 4);
        assertArrayEquals(f.apply(d, inp).toDoubleArray(), opt.apply(d, inp).toDoubleArray(), 1e-5);
        foo.scalar = 12;
        assertArrayEquals(f.apply(d, inp).toDoubleArray(), opt.apply(d, inp).toDoubleArray(), 1e-5);
    }

    static Tensor emptyOrNot(Map<String, Integer> d, Tensor x) { return d.isEmpty() ? x.sin() : x.cos(); }

    @Test
    void emptyDictRecompilation() { // test_empty_dict_recompilation: fullgraph; an empty map and a non-empty one each answer as eager
        Fn2<Map<String, Integer>, Tensor, Tensor> f = PyTorchPorts11Test::emptyOrNot;
        Fn2<Map<String, Integer>, Tensor, Tensor> opt = Ember.compile(f, Options.fullgraph());
        Tensor x = Tensor.randn(4);
        assertArrayEquals(f.apply(Map.of(), x).toDoubleArray(), opt.apply(Map.of(), x).toDoubleArray(), 1e-6);
        assertArrayEquals(f.apply(Map.of("a", 1), x).toDoubleArray(), opt.apply(Map.of("a", 1), x).toDoubleArray(), 1e-6);
    }

    static Tensor enumeratedValues(Tensor x, Map<Integer, Integer> d) {
        Tensor y = x.mul(0);
        int idx = 0;
        for (int value : d.values()) {
            y = idx == 0 ? y.add(x.mul(value).sin()) : y.add(x.mul(value).cos());
            idx++;
        }
        return y;
    }

    @Test
    void orderedDictReorderedKeys() { // test_ordered_dict_reordered_keys: move_to_end is LinkedHashMap.putLast; the values in the reordered order
        Map<Integer, Integer> d = new LinkedHashMap<>();
        d.put(2, 4);
        d.put(3, 5);
        ((LinkedHashMap<Integer, Integer>) d).putLast(2, d.get(2));
        check((Fn2<Tensor, Map<Integer, Integer>, Tensor>) PyTorchPorts11Test::enumeratedValues, Options.backend("eager"), () -> List.<Object[]>of(args(Tensor.randn(4), d)));
    }

    /** A mapping of the user's: keys() and get over a map field. */
    static final class MappingLike extends AbstractMap<String, Tensor> {
        private final Map<String, Tensor> d = new LinkedHashMap<>();

        MappingLike(Tensor x) {
            d.put("a", x);
            d.put("b", x.add(1));
        }

        @Override
        public Set<Entry<String, Tensor>> entrySet() { return d.entrySet(); }
    }

    static List<Object> updateFromMappingLike(Tensor x) {
        Map<String, Tensor> d = new HashMap<>();
        d.put("a", x.sub(1));
        d.putAll(new MappingLike(x));
        return List.of(d.get("a"), d.get("b"));
    }

    @Test
    void dictUpdateFromMappingLike() { // test_dict_update_from_mapping_like: update from a mapping of the user's
        check((Fn1<Tensor, List<Object>>) PyTorchPorts11Test::updateFromMappingLike, Options.backend("eager"), () -> List.<Object[]>of(args(Tensor.randn(4))));
    }

    static List<int[]> shapesOfArgs(Map<String, List<Tensor>> tensors) {
        List<int[]> out = new java.util.ArrayList<>();
        int i = 0;
        for (Tensor t : tensors.get("args")) {
            if (i++ >= 0) out.add(t.shape());
        }
        return out;
    }

    @Test
    void dictListValues() { // test_dict_list_values: a map holding a list of tensors of three, then one, shape
        Fn1<Map<String, List<Tensor>>, List<int[]>> f = PyTorchPorts11Test::shapesOfArgs;
        Fn1<Map<String, List<Tensor>>, List<int[]>> opt = Ember.compile(f, Options.backend("eager"));
        Map<String, List<Tensor>> a = Map.of("args", List.of(Tensor.ones(5, 5), Tensor.ones(5, 6), Tensor.ones(5, 7)));
        Map<String, List<Tensor>> b = Map.of("args", List.of(Tensor.ones(5, 5)));
        for (var m : List.of(a, b)) {
            List<int[]> ref = f.apply(m), res = opt.apply(m);
            assertEquals(ref.size(), res.size());
            for (int i = 0; i < ref.size(); i++) assertArrayEquals(ref.get(i), res.get(i));
        }
    }

    /** dotdict: attribute access that reads the map (dict.get). */
    static final class DotDict extends HashMap<String, Integer> {
        DotDict(Map<String, Integer> m) { super(m); }
    }

    static final DotDict CONFIG = new DotDict(Map.of("a", 1, "b", 2));

    static Tensor subclassGet(Tensor x) {
        Tensor x2 = x.mul(2);
        return x.mul(CONFIG.getOrDefault("a", 3));
    }

    @Test
    void dictSubclassGetMethod() { // test_dict_subclass_get_method: fullgraph
        check((Fn1<Tensor, Tensor>) PyTorchPorts11Test::subclassGet, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(2))));
    }

    /** An enum with a string value (class TensorDim(str, Enum)). */
    enum TensorDim {
        DDP("ddp"), FSDP("fsdp");

        final String value;

        TensorDim(String value) { this.value = value; }
    }

    static Tensor containsEnum(Tensor x) {
        Tensor val = x.sin();
        if (TensorDim.DDP.value.equals("ddp")) val = val.add(x.cos());
        if ("ddp".equals(TensorDim.DDP.value)) val = val.add(x.cos());
        Map<TensorDim, Integer> byDim = new java.util.EnumMap<>(TensorDim.class);
        byDim.put(TensorDim.FSDP, 2);
        return byDim.containsKey(TensorDim.DDP) ? val : val.mul(byDim.get(TensorDim.FSDP));
    }

    @Test
    void dictContainsEnum() { // test_dict_contains_enum: fullgraph
        check((Fn1<Tensor, Tensor>) PyTorchPorts11Test::containsEnum, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(4, 4))));
    }

    static Map<Integer, Tensor> copyThenWrite(Tensor x, Map<Integer, Tensor> d0) {
        Map<Integer, Tensor> d1 = new TreeMap<>(d0);
        d1.put(0, x.add(1));
        return d1;
    }

    @Test
    void dictCopyThenWriteLeavesTheOriginal() { // test_dict_copy_alias (a TreeMap copy): the copy is written, the argument is not
        Map<Integer, Tensor> d0 = new HashMap<>();
        Map<Integer, Tensor> d1 = Ember.compile((Fn2<Tensor, Map<Integer, Tensor>, Map<Integer, Tensor>>) PyTorchPorts11Test::copyThenWrite, Options.fullgraph())
                .apply(Tensor.zeros(1), d0);
        assertTrue(d0.isEmpty());
        assertNotSame(d0, d1);
        assertEquals(Set.of(0), d1.keySet());
        assertSame(TreeMap.class, d1.getClass());
    }
}
