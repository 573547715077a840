package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PyTorchPorts6Programs (test_repros.py) run eagerly and compiled, call by call (results, inputs
 * afterwards, thrown exceptions), with the default backend and with a {@link CompileCounter}; where
 * Dynamo's test asserts a frame count or nopython, so does the port.
 */
class PyTorchPorts6Test {
    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    private static CompileCounter check(Object fn, Options options, Supplier<List<Object[]>> calls) {
        return PyTorchPortsMoreTest.check(fn, options, calls);
    }

    @Test
    void dictIter() { // test_dict_iter: nopython
        CompileCounter cc = check((Fn1<Tensor, Integer>) PyTorchPorts6Programs::dictIter, Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.of(new long[] {0}, 1))));
        assertEquals(0, cc.frameCount(), "no tensor work: no graph (Dynamo returns the constant too)");
    }

    @Test
    void dictListValues() { // test_dict_list_values: a list of three, then of one
        check((Fn1<Map<String, List<Tensor>>, List<int[]>>) PyTorchPorts6Programs::dictListValues, Options.defaults(), () -> List.<Object[]>of(
                args(Map.of("args", List.of(Tensor.ones(5, 5), Tensor.ones(5, 6), Tensor.ones(5, 7)))), args(Map.of("args", List.of(Tensor.ones(5, 5))))));
    }

    private static Supplier<List<Object[]>> tenTensors() {
        return () -> List.<Object[]>of(args(new ArrayList<>(Collections.nCopies(10, Tensor.randn(10)))));
    }

    @Test
    void sliceIntoListMutable() { // test_slice_into_list_mutable: one frame, nopython
        CompileCounter cc = check((Fn1<List<Tensor>, List<Tensor>>) PyTorchPorts6Programs::sliceIntoListCopy, Options.fullgraph(), tenTensors());
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void sliceIntoListMutableThroughAView() { // the Java view: the caller's list changes as eager's does (checked: inputs afterwards)
        CompileCounter cc = check((Fn1<List<Tensor>, List<Tensor>>) PyTorchPorts6Programs::sliceIntoListView, Options.fullgraph(), tenTensors());
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void vddDuplicateError() { // test_vdd_duplicate_error: nopython
        PyTorchPorts6Programs.Sample sample = new PyTorchPorts6Programs.Sample();
        CompileCounter cc = check((Fn2<Tensor, PyTorchPorts6Programs.Sample, Tensor>) PyTorchPorts6Programs::vddDuplicateError, Options.fullgraph(),
                () -> List.<Object[]>of(args(Tensor.randn(4), sample)));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void guardFailNestedTuple() { // test_guard_fail_nested_tuple: the second element a pair, then a tensor
        Tensor one = Tensor.ones(1);
        CompileCounter cc = check((Fn1<List<Object>, List<Tensor>>) PyTorchPorts6Programs::guardFailNestedTuple, Options.defaults(),
                () -> List.<Object[]>of(args(List.<Object>of(one, List.of(one, one))), args(List.<Object>of(one, one))));
        assertEquals(1, cc.frameCount(), "args[1] is never read: no guard on it, no recompile");
    }

    @Test
    void tokenization() { // test_tokenization: a user subclass of a dict, read by key and through its own method; no break
        int graphs = 0;
        for (Fn1<Tensor, Object> f : List.<Fn1<Tensor, Object>>of(PyTorchPorts6Programs::tokenization, PyTorchPorts6Programs::tokenizationAttribute)) {
            check(f, Options.defaults(), () -> List.<Object[]>of(args(Tensor.rand(1, 4))));
            Ember.reset();
            var explained = Ember.explain(f).with(Tensor.rand(1, 4));
            assertEquals(0, explained.graphBreakCount(), explained.toString());
            graphs += explained.graphCount();
            Ember.reset();
        }
        assertEquals(1, graphs, "the input returned as it is needs no graph; the attribute's mul is one");
    }

    @Test
    void tensorIsinstanceTuple() { // test_tensor_isinstance_tuple
        check((Fn0<Boolean>) PyTorchPorts6Programs::tensorIsinstanceTuple, Options.fullgraph(), () -> List.<Object[]>of(args()));
    }

    @Test
    void specializedStride() { // test_specialized_stride
        check((Fn0<int[]>) PyTorchPorts6Programs::specializedStride, Options.defaults(), () -> List.<Object[]>of(args()));
    }

    @Test
    void classMember() { // test_class_member: nopython
        CompileCounter cc = check(new PyTorchPorts6Programs.ClassMember(), Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(3, 4))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void namedBuffers() { // test_named_buffers: nopython
        CompileCounter cc = check(new PyTorchPorts6Programs.NamedBuffers(), Options.fullgraph(), () -> List.<Object[]>of(args(Tensor.randn(3))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void issue1466SizeAotAutograd() { // test_issue1466_size_aot_autograd: aot_eager, an input that requires grad
        check((Fn1<Tensor, Tensor>) PyTorchPorts6Programs::sizeAcrossAPrint, Options.defaults().withBackendName("aot_eager"),
                () -> List.<Object[]>of(args(Tensor.randn(2, 3).requiresGrad(true))));
    }

    // ---- test_misc.py ----

    @Test
    void userProperty() { // test_user_property: one frame, two ops
        Tensor x = Tensor.randn(10);
        CompileCounter cc = check((dev.ember.Fn3<PyTorchPorts6Programs.MyConfig, Tensor, Tensor, Tensor>) PyTorchPorts6Programs::userProperty, Options.defaults(),
                () -> List.<Object[]>of(args(new PyTorchPorts6Programs.MyConfig(), x, x)));
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(2, cc.opCount(), "ops");
    }

    @Test
    void dataclassFields() { // test_dataclass_fields: obj1 two ops, obj2 (compiled afresh) one
        Fn1<PyTorchPorts6Programs.MyDataClass, Tensor> f = PyTorchPorts6Programs::dataclassFields;
        CompileCounter cc = check(f, Options.defaults(), () -> List.<Object[]>of(args(new PyTorchPorts6Programs.MyDataClass(Tensor.randn(10), Tensor.randn(10),
                Tensor.randn(10), null, null))));
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(2, cc.opCount(), "ops");
        Ember.reset();
        cc = check(f, Options.defaults(), () -> List.<Object[]>of(args(new PyTorchPorts6Programs.MyDataClass(Tensor.randn(10), null, null, null, Tensor.randn(10)))));
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(1, cc.opCount(), "ops");
        Ember.reset();
        check(f, Options.defaults(), () -> List.<Object[]>of(args(new PyTorchPorts6Programs.MyDataClass(Tensor.randn(10))))); // the assert, as eager's
    }

    @Test
    void dataclassLocalHasattr() { // test_dataclass_local_hasattr: nopython, one frame, two ops
        CompileCounter cc = check((Fn0<PyTorchPorts6Programs.Pair>) PyTorchPorts6Programs::dataclassLocal, Options.fullgraph(), () -> List.<Object[]>of(args()));
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(2, cc.opCount(), "ops");
    }

    @Test
    void constantGetattr() { // test_constant_getattr
        check((Fn0<Integer>) PyTorchPorts6Programs::constantGetattr, Options.fullgraph(), () -> List.<Object[]>of(args()));
    }

    @Test
    void tensorBuildListUnpack() { // test_tensor_build_list_unpack: one frame, two ops
        CompileCounter cc = check((Fn1<Tensor, Tensor>) PyTorchPorts6Programs::tensorBuildListUnpack, Options.defaults(),
                () -> List.<Object[]>of(args(Tensor.randn(1, 1, 47, 76))));
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(2, cc.opCount(), "ops");
    }
}
