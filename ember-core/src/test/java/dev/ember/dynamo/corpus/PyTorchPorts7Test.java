package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** PyTorchPorts7Programs run eagerly and compiled; where Dynamo's test asserts nopython or a frame count, so does the port. */
class PyTorchPorts7Test {
    @AfterEach
    void reset() {
        Ember.reset();
        PyTorchPorts7Programs.variable = 0;
        PyTorchPorts7Programs.DD.clear();
    }

    private static Object[] args(Object... a) { return a; }

    @Test
    void numberMethods() { // test_number_method: fullgraph, for 0, 1 and 2.5 (as an int: 0, 1, 2)
        PyTorchPortsMoreTest.check((Fn2<Tensor, Integer, Tensor>) PyTorchPorts7Programs::intBitLength, Options.fullgraph(),
                () -> List.of(args(Tensor.ones(1), 0), args(Tensor.ones(1), 1), args(Tensor.ones(1), 2)));
        Ember.reset();
        PyTorchPortsMoreTest.check((Fn2<Tensor, Integer, Tensor>) PyTorchPorts7Programs::intConjugate, Options.fullgraph(),
                () -> List.of(args(Tensor.ones(1), 0), args(Tensor.ones(1), 1), args(Tensor.ones(1), 2)));
        for (Fn2<Tensor, Double, Tensor> f : List.<Fn2<Tensor, Double, Tensor>>of(PyTorchPorts7Programs::doubleConjugate,
                PyTorchPorts7Programs::doubleHex, PyTorchPorts7Programs::doubleIsInteger)) {
            Ember.reset();
            PyTorchPortsMoreTest.check(f, Options.fullgraph(), () -> List.of(args(Tensor.ones(1), 0.0), args(Tensor.ones(1), 1.0), args(Tensor.ones(1), 2.5)));
        }
    }

    @Test
    void updateGlobal() { // test_update_global: each call sees the global as the previous call left it
        Tensor x = Tensor.randn(3);
        List<Tensor> eager = List.of(PyTorchPorts7Programs.updateGlobal(x), PyTorchPorts7Programs.updateGlobal(x));
        PyTorchPorts7Programs.variable = 0;
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(PyTorchPorts7Programs::updateGlobal, Options.backend(cc));
        List<Tensor> compiled = List.of(f.apply(x), f.apply(x));
        Compiled.assertSame(eager, compiled, "x * 1, then x * 2");
        assertEquals(2, PyTorchPorts7Programs.variable, "the store replayed after each call");
    }

    @Test
    void defaultDicts() { // test_default_dict_dict, _list: optimize_assert (nopython)
        Tensor x = Tensor.randn(10, 10);
        for (Fn1<Tensor, List<Object>> fn : List.<Fn1<Tensor, List<Object>>>of(PyTorchPorts7Programs::defaultDictDict, PyTorchPorts7Programs::defaultDictList)) {
            PyTorchPorts7Programs.DD.clear();
            List<Object> ref = fn.apply(x);
            Map<Object, Object> eagerDd = new java.util.HashMap<>(PyTorchPorts7Programs.DD);
            PyTorchPorts7Programs.DD.clear();
            CompileCounter cc = new CompileCounter();
            List<Object> res = Ember.compile(fn, Options.fullgraph().withBackend(cc)).apply(x);
            Compiled.assertSame(ref.get(0), res.get(0), "dd[\"b\"], the factory's empty container");
            assertSame(PyTorchPorts7Programs.DD, res.get(1), "the global map itself is returned");
            for (Object key : List.of("a", "c", PyTorchPorts7Programs.PARAM)) {
                Compiled.assertSame(eagerDd.get(key), PyTorchPorts7Programs.DD.get(key), "dd[" + key + "]");
            }
            assertEquals(1, cc.frameCount(), "frames");
            Ember.reset();
        }
    }
}
