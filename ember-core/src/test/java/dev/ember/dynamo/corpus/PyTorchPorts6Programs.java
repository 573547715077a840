package dev.ember.dynamo.corpus;

import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sixth set of programs ported from PyTorch's Dynamo tests: test_repros.py's repros of models
 * met in the wild that turn on containers (a dict iterated, a dict's list zipped with a counter, a
 * slice of an argument list written into, a user dict subclass, a dict of user objects, a nested
 * tuple argument whose structure changes), on module attributes and buffers, and on a size read
 * across a break. A Python slice is a copy; Java's subList is a live view, so the slice repro is
 * ported both ways. Then test_misc.py's: a property (a getter) of a config object, a dataclass
 * whose optional fields are summed when set (a record with null components), a dataclass made
 * and returned, getattr with a default on None, and {@code torch.cat([*x])}. PyTorchPorts6Test runs
 * them eagerly and compiled.
 *
 * <p>Skipped, with no Java meaning: test_sort_out and test_sigmoid_out ({@code out=} arguments),
 * test_optimized_deepcopy ({@code copy.deepcopy} of a compiled module), test_numpy_list, the
 * detectron2 and relative-import tests.
 */
final class PyTorchPorts6Programs {
    private PyTorchPorts6Programs() {}

    // test_dict_iter: a dict of constants iterated by key, its values summed (Dynamo: nopython, the constant 10)
    static Integer dictIter(Tensor x) {
        Map<String, Integer> z = new LinkedHashMap<>();
        z.put("my", 1);
        z.put("const", 2);
        z.put("dict", 3);
        z.put("variable", 4);
        int tot = 0;
        for (String key : z.keySet()) tot += z.get(key);
        return tot;
    }

    // test_dict_list_values: inner_fn(zip(itertools.count(), tensors["args"])): the shapes, by a counter
    static List<int[]> dictListValues(Map<String, List<Tensor>> tensors) {
        List<int[]> shapes = new ArrayList<>();
        int i = 0;
        for (Tensor t : tensors.get("args")) {
            if (i++ >= 0) shapes.add(t.shape());
        }
        return shapes;
    }

    // test_slice_into_list_mutable: x = listy[3:5] (a copy in Python), x[0] written ten times (Dynamo: one frame)
    static List<Tensor> sliceIntoListCopy(List<Tensor> listy) {
        List<Tensor> x = new ArrayList<>(listy.subList(3, 5));
        for (int i = 0; i < 10; i++) {
            Tensor z = Tensor.randn(10).abs().add(1);
            x.set(0, z);
        }
        return x;
    }

    // the same with Java's live view: the writes reach the caller's list
    static List<Tensor> sliceIntoListView(List<Tensor> listy) {
        List<Tensor> x = listy.subList(3, 5);
        for (int i = 0; i < 10; i++) {
            Tensor z = Tensor.randn(10).abs().add(1);
            x.set(0, z);
        }
        return new ArrayList<>(x);
    }

    // test_vdd_duplicate_error: a dict of user objects read through a list of its keys
    static final class Value {
        final Tensor value = Tensor.randn(4);
    }

    static final class Sample {
        final Map<String, Value> jtDict = new HashMap<>();

        Sample() { jtDict.put("POSITION_ID", new Value()); }
    }

    static Tensor vddDuplicateError(Tensor a, Sample dt) {
        List<String> keys = new ArrayList<>(dt.jtDict.keySet());
        Tensor p = dt.jtDict.get(keys.get(0)).value.cos();
        Tensor q = a.sin();
        Tensor r = dt.jtDict.get(keys.get(0)).value.sigmoid();
        return p.add(q).add(r);
    }

    // test_guard_fail_nested_tuple: args[1] a tuple, then a tensor
    static List<Tensor> guardFailNestedTuple(List<Object> args) {
        return List.of(Tensor.ones(), ((Tensor) args.get(0)).mul(2));
    }

    // test_tokenization: a UserDict subclass (HuggingFace's BatchEncoding) read by key
    static final class BatchEncoding extends HashMap<String, Object> {
        BatchEncoding(Map<String, Object> data) { super(data); }

        /** __getattr__: the item of that name, or AttributeError (here IllegalArgumentException). */
        Object attribute(String item) {
            if (!containsKey(item)) throw new IllegalArgumentException(item);
            return get(item);
        }
    }

    static Object tokenization(Tensor x) {
        BatchEncoding encoding = new BatchEncoding(Map.of("key", x));
        return encoding.get("key");
    }

    static Object tokenizationAttribute(Tensor x) {
        BatchEncoding encoding = new BatchEncoding(Map.of("key", x));
        return ((Tensor) encoding.attribute("key")).mul(2);
    }

    // test_tensor_isinstance_tuple: isinstance(t, (int, torch.Tensor)), else a ValueError with a formatted message
    static Boolean tensorIsinstanceTuple() {
        Object t = Tensor.ones(5, 5);
        if (!(t instanceof Integer || t instanceof Tensor)) {
            throw new IllegalArgumentException(String.format("%s is not an instance of %s", t.getClass(), List.of(Integer.class, Tensor.class)));
        }
        return true;
    }

    // test_specialized_stride: the stride of a strided slice of a new tensor
    static int[] specializedStride() {
        Tensor e = Tensor.empty(4);
        Tensor x = e.slice(0, 0, 4, 2);
        return x.strides();
    }

    // test_class_member: class attributes (an int, a tensor) and an instance attribute in forward
    static final class ClassMember extends Module {
        static final int A = 4;
        static final Tensor B = Tensor.ones(3, 4);
        final int c = 4;

        @Override
        public Tensor forward(Tensor x) { return x.cos().add(A).add(B).add(c); }
    }

    // test_named_buffers: forward sums its named buffers
    static final class NamedBuffers extends Module {
        NamedBuffers() {
            registerBuffer("x", Tensor.ones(3));
            registerBuffer("y", Tensor.ones(3));
        }

        @Override
        public Tensor forward(Tensor inp) {
            Tensor res = Tensor.zeros();
            for (Map.Entry<String, Tensor> e : namedBuffers().entrySet()) res = res.add(e.getValue().sum());
            return inp.cos().add(res);
        }
    }

    // test_issue1466_size_aot_autograd: a size read before a print, used after it (aot_eager, an input that requires grad)
    static Tensor sizeAcrossAPrint(Tensor x) {
        Tensor y = x.mul(2);
        int[] size = x.shape();
        System.out.println("arf");
        return y.view(size).add(1);
    }

    // ---- test_misc.py ----

    // test_user_property: cfg.prop5, a property (a getter here) read in the graph (Dynamo: one frame, two ops)
    static final class MyConfig {
        int prop5() { return 5; }
    }

    static Tensor userProperty(MyConfig cfg, Tensor x, Tensor y) { return x.add(y).add(cfg.prop5()); }

    // test_dataclass_fields: the first field plus every other field that is set (Dynamo: ops 2 for obj1, 1 for obj2)
    record MyDataClass(Tensor a, Tensor b, Tensor c, Tensor d, Tensor e) {
        MyDataClass(Tensor a) { this(a, null, null, null, null); }
    }

    static Tensor dataclassFields(MyDataClass obj) {
        List<Tensor> others = java.util.Arrays.asList(obj.b(), obj.c(), obj.d(), obj.e());
        if (others.stream().allMatch(java.util.Objects::isNull)) throw new AssertionError("other fields are all null");
        Tensor total = obj.a();
        for (Tensor v : others) {
            if (v != null) total = total.add(v);
        }
        return total;
    }

    // test_dataclass_local_hasattr: a dataclass made from the input and returned (Dynamo: one frame, two ops)
    record Pair(Tensor a, Tensor b) {}

    /** The test's closure variable x; in a class of its own, so that making it draws from the generator only when first used. */
    static final class Captured {
        static final Tensor X = Tensor.randn(10);
    }

    static Pair dataclassLocal() { return new Pair(Captured.X.add(1), Captured.X.sub(1)); }

    // test_constant_getattr: getattr(None, "arg", 3): a field of a null holder, defaulted
    static final class Holder {
        Integer arg;
    }

    static Integer constantGetattr() {
        Holder h = null;
        return h != null && h.arg != null ? h.arg : 3;
    }

    // test_tensor_build_list_unpack: torch.cat([*x], dim=-1) (Dynamo: one frame, two ops: x[0] and cat)
    static Tensor tensorBuildListUnpack(Tensor x) {
        List<Tensor> parts = new ArrayList<>();
        for (int i = 0; i < x.size(0); i++) parts.add(x.select(0, i));       // [*x]: x iterated along its first dimension
        return Tensor.cat(parts, -1);
    }
}
