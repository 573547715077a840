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
 * ported both ways. PyTorchPorts6Test runs them eagerly and compiled.
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
}
