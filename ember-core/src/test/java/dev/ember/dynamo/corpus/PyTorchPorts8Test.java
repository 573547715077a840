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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** PyTorchPorts8Programs run eagerly and compiled; where Dynamo's test asserts nopython, a frame or an op count, so does the port. */
class PyTorchPorts8Test {
    @AfterEach
    void reset() {
        Ember.reset();
        PyTorchPorts8Programs.DD.clear();
    }

    private static Object[] args(Object... a) { return a; }

    @Test
    void userGetattr1() { // test_misc.py::test_user_getattr1: one frame, two ops
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn3<PyTorchPorts8Programs.MyConfig, Tensor, Tensor, Tensor>) PyTorchPorts8Programs::userGetattr1, Options.defaults(),
                () -> {
                    Tensor x = Tensor.randn(10);
                    return List.<Object[]>of(args(new PyTorchPorts8Programs.MyConfig(Map.of("offset", 5)), x, x));
                });
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(2, cc.opCount(), "ops");
    }

    @Test
    void userDefinedBinop() { // test_misc.py::test_user_defined_binop: one frame, one op (static shapes)
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn2<Tensor, PyTorchPorts8Programs.MyClass, Tensor>) PyTorchPorts8Programs::userDefinedBinop, Options.defaults(),
                () -> List.<Object[]>of(args(Tensor.randn(3), new PyTorchPorts8Programs.MyClass(4))));
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(1, cc.opCount(), "ops");
    }

    @Test
    void sizeAndStrideOfADim() { // test_misc.py::test_size_dim, test_stride_dim, test_torch_size_numel(_dynamic), test_shape_type: nopython
        PyTorchPortsMoreTest.check((Fn2<Tensor, Integer, Integer>) PyTorchPorts8Programs::sizeDim, Options.fullgraph(),
                () -> List.of(args(Tensor.empty(4, 9, 8), 1), args(Tensor.empty(4, 9, 8), -2)));
        assertEquals(9, PyTorchPorts8Programs.sizeDim(Tensor.empty(4, 9, 8), -2));
        Ember.reset();
        PyTorchPortsMoreTest.check((Fn2<Tensor, Integer, Integer>) PyTorchPorts8Programs::strideDim, Options.fullgraph(),
                () -> List.of(args(Tensor.empty(4, 9, 8), 0), args(Tensor.empty(4, 9, 8), -2)));
        Ember.reset();
        PyTorchPortsMoreTest.check((Fn1<Tensor, Integer>) PyTorchPorts8Programs::sizeNumel, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.rand(10, 1, 8, 1))));
        Ember.reset();
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn0<Integer>) PyTorchPorts8Programs::constantSizeNumel, Options.fullgraph(), () -> List.<Object[]>of(args()));
        assertEquals(0, cc.frameCount(), "no tensor, no graph");
        Ember.reset();
        PyTorchPortsMoreTest.check((Fn1<Tensor, Tensor>) PyTorchPorts8Programs::shapeType, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.zeros())));
    }

    private static ArrayDeque<Object> deque(Object... items) { return new ArrayDeque<>(List.of(items)); }

    @Test
    void dequeInput() { // test_misc.py::test_deque_input: fullgraph, one frame, the caller's deque popped as eager's
        Tensor a = Tensor.randn(2, 3), b = Tensor.randn(2, 3);
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn1<ArrayDeque<Object>, Tensor>) PyTorchPorts8Programs::dequeInput, Options.fullgraph(),
                () -> List.<Object[]>of(args(deque("foo", a, b))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void dequeAppendLeft() { // test_misc.py::test_deque_append_left: fullgraph, one frame
        Tensor a = Tensor.randn(3, 3), b = Tensor.randn(3, 3);
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn3<ArrayDeque<Object>, Tensor, Tensor, Tensor>) PyTorchPorts8Programs::dequeAppendLeft, Options.fullgraph(),
                () -> List.<Object[]>of(args(deque("foo", 10, 10), a, b)));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void minMax() { // test_functions.py::test_min_max: standard_test, compared exactly on the counting backend (inductor's sum may round
        // its last bit otherwise than eager's, which Dynamo's same() tolerates)
        CompileCounter cc = PyTorchMiscPortsTest.check((Fn2<Tensor, Tensor, Tensor>) PyTorchPorts8Programs::minMax, Options.fullgraph(), PyTorchMiscPortsTest.standardInputs(2));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void defaultDictTupleAndSet() { // test_default_dict_tuple, _set: optimize_assert (nopython)
        Tensor x = Tensor.randn(10, 10);
        for (Fn1<Tensor, List<Object>> fn : List.<Fn1<Tensor, List<Object>>>of(PyTorchPorts8Programs::defaultDictTuple, PyTorchPorts8Programs::defaultDictSet)) {
            PyTorchPorts8Programs.DD.clear();
            List<Object> ref = fn.apply(x);
            Map<Object, Object> eagerDd = new java.util.HashMap<>(PyTorchPorts8Programs.DD);
            PyTorchPorts8Programs.DD.clear();
            CompileCounter cc = new CompileCounter();
            List<Object> res = Ember.compile(fn, Options.fullgraph().withBackend(cc)).apply(x);
            Compiled.assertSame(ref.get(0), res.get(0), "dd[\"b\"], the factory's empty container");
            assertSame(PyTorchPorts8Programs.DD, res.get(1), "the global map itself is returned");
            for (Object key : List.of("a", "c", PyTorchPorts8Programs.PARAM)) {
                Compiled.assertSame(eagerDd.get(key), PyTorchPorts8Programs.DD.get(key), "dd[" + key + "]");
            }
            assertEquals(1, cc.frameCount(), "frames");
            Ember.reset();
        }
    }

    @Test
    void reduceWithNoneInitial() { // test_functions.py::test_reduce_with_none_initial: expected_frame_count=0
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn1<Tensor, Object>) PyTorchPorts8Programs::reduceWithNoneInitial, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.randn(10, 10))));
        assertEquals(0, cc.frameCount(), "frames");
    }

    @Test
    void tensorNewWithShape() { // test_functions.py::test_tensor_new_with_shape
        PyTorchPortsMoreTest.check((Fn1<Tensor, Object>) PyTorchPorts8Programs::tensorNewWithShape, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(10, 10))));
    }

    @Test
    void device() { // test_functions.py::test_device
        CompileCounter cc = PyTorchPortsMoreTest.check((Fn1<Tensor, Tensor>) PyTorchPorts8Programs::device, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(10, 10))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void nestedClosureMutation() { // test_misc.py::test_nested_closure_mutation: the counter made compiled counts on as eager's
        Tensor.manualSeed(9000);
        Fn0<Tensor> counter1 = PyTorchPorts8Programs.nestedClosureMutation();
        List<Tensor> result1 = List.of(counter1.apply(), counter1.apply(), counter1.apply());
        Tensor.manualSeed(9000);
        CompileCounter cc = new CompileCounter();
        Fn0<Fn0<Tensor>> opt1 = Ember.compile((Fn0<Fn0<Tensor>>) PyTorchPorts8Programs::nestedClosureMutation, Options.backend(cc));
        Fn0<Tensor> counter2 = Ember.compile(opt1.apply(), Options.backend(cc));
        List<Tensor> result2 = new ArrayList<>(List.of(counter2.apply(), counter2.apply(), counter2.apply()));
        Compiled.assertSame(result1, result2, "three counts after the two made inside");
    }
}
