package dev.ember.dynamo.corpus;

import dev.ember.Fn0;
import dev.ember.tensor.Device;
import dev.ember.tensor.Tensor;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An eighth set of programs ported from PyTorch's Dynamo tests (test_misc.py, test_functions.py),
 * each in its Java spelling: Python's {@code __getattr__} and {@code __radd__} are ordinary methods,
 * {@code torch.Size} is the {@code int[]} of {@code shape()}, {@code collections.deque} is an
 * ArrayDeque (pop is pollLast, appendleft addFirst), a defaultdict is {@code computeIfAbsent},
 * {@code nonlocal} a one-element array. PyTorchPorts8Test runs them eagerly and compiled.
 *
 * <p>Skipped, with no Java meaning: test_is_complex and test_tensor_is_complex (no complex dtype),
 * test_is_sparse and test_is_quantized (no such layouts).
 */
final class PyTorchPorts8Programs {
    private PyTorchPorts8Programs() {}

    // test_misc.py::test_user_getattr1: a dict subclass whose attributes are its entries
    static final class MyConfig extends HashMap<String, Object> {
        MyConfig(Map<String, Object> entries) { super(entries); }

        double offset() { return ((Number) get("offset")).doubleValue(); }
    }

    static Tensor userGetattr1(MyConfig cfg, Tensor x, Tensor y) { return x.add(y).add(cfg.offset()); }

    // test_misc.py::test_user_defined_binop: y = x.shape[0] + c, c's __radd__
    static final class MyClass {
        final int value;

        MyClass(int value) { this.value = value; }

        int radd(int other) { return value + other; }
    }

    static Tensor userDefinedBinop(Tensor x, MyClass c) {
        int y = c.radd(x.shape()[0]);
        return x.add(y);
    }

    // test_misc.py::test_size_dim and test_stride_dim: x.size(dim=dim), x.stride(dim=dim)
    static Integer sizeDim(Tensor x, Integer dim) { return x.size(dim); }

    static Integer strideDim(Tensor x, Integer dim) { return x.stride(dim); }

    // test_misc.py::test_torch_size_numel_dynamic: x.size().numel()
    static Integer sizeNumel(Tensor x) { return Arrays.stream(x.shape()).reduce(1, (a, b) -> a * b); }

    // test_misc.py::test_torch_size_numel: torch.Size([10, 8]).numel(), no tensor at all
    static Integer constantSizeNumel() { return Arrays.stream(new int[] {10, 8}).reduce(1, (a, b) -> a * b); }

    // test_misc.py::test_shape_type: x + (type(x.shape) == torch.Size)
    static Tensor shapeType(Tensor x) { return x.add(x.shape().getClass() == int[].class ? 1 : 0); }

    // test_misc.py::test_deque_input: a = q.pop(); b = q.pop(); return a * b
    static Tensor dequeInput(ArrayDeque<Object> q) {
        Tensor a = (Tensor) q.pollLast();
        Tensor b = (Tensor) q.pollLast();
        return a.mul(b);
    }

    // test_misc.py::test_deque_append_left
    static Tensor dequeAppendLeft(ArrayDeque<Object> q, Tensor a, Tensor b) {
        q.addFirst(a);
        q.addFirst(b);
        return ((Tensor) q.pollFirst()).mul((Tensor) q.pollFirst());
    }

    // test_functions.py::test_min_max: min/max of a 0-d tensor and a number are clamps (as Dynamo rewrites them)
    static Tensor minMax(Tensor a, Tensor b) {
        Tensor c = a.add(b);
        Tensor sa = a.sum().clampMin(0).clampMax(1);
        Tensor sb = b.sum().clampMax(1).clampMin(0);
        return sa.maximum(sb).sub(sa.minimum(sb)).add(c);
    }

    // test_functions.py::test_default_dict_tuple / _set: the factory's empty tuple, set
    static final Tensor PARAM = Tensor.ones(2, 2);
    static final Map<Object, Object> DD = new HashMap<>();

    static List<Object> defaultDictTuple(Tensor x) {
        DD.put("a", x.add(1));
        DD.put(PARAM, 123);
        DD.put("c", x.mul(2));
        return List.of(DD.computeIfAbsent("b", k -> List.of()), DD);
    }

    static List<Object> defaultDictSet(Tensor x) {
        DD.put("a", x.add(1));
        DD.put(PARAM, 123);
        DD.put("c", x.mul(2));
        return List.of(DD.computeIfAbsent("b", k -> new HashSet<>()), DD);
    }

    // test_functions.py::test_reduce_with_none_initial: functools.reduce(lambda a, b: (a, b), [x], None), no graph
    static Object reduceWithNoneInitial(Tensor x) { return Stream.<Object>of(x).reduce(null, (a, b) -> Arrays.asList(a, b)); }

    // test_functions.py::test_tensor_new_with_shape: z = x.new(y.shape); assert z.size() == y.size()
    static Object tensorNewWithShape(Tensor x) {
        Tensor y = Tensor.rand(5, 8);
        Tensor z = x.newEmpty(y.shape());
        if (!Arrays.equals(z.shape(), y.shape())) throw new AssertionError("sizes differ");
        return null;
    }

    // test_functions.py::test_device: if not x.is_cuda: return x + 1
    static Tensor device(Tensor x) {
        if (x.device() == Device.CPU) return x.add(1);
        return null;
    }

    // test_misc.py::test_nested_closure_mutation: fn3 changes fn1's v1 and fn2's v2 (nonlocal: one-element arrays)
    static Fn0<Tensor> nestedClosureMutation() {
        Tensor[] v1 = {Tensor.randn(10)};
        Fn0<Fn0<Tensor>> fn2 = () -> {
            Tensor[] v2 = {Tensor.randn(10)};
            return () -> {
                v1[0] = v1[0].add(1);
                v2[0] = v2[0].add(2);
                return v1[0].add(v2[0]);
            };
        };
        Fn0<Tensor> rv = fn2.apply();
        rv.apply();
        rv.apply();
        return rv;
    }
}
