package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.dynamo.corpus.PyTorchPorts5Programs.Attrs;
import dev.ember.dynamo.corpus.PyTorchPorts5Programs.BmmNet;
import dev.ember.dynamo.corpus.PyTorchPorts5Programs.MyOptimizer;
import dev.ember.dynamo.corpus.PyTorchPorts5Programs.SetattrStuff;
import dev.ember.dynamo.corpus.PyTorchPorts5Programs.Variable;
import dev.ember.fx.Backend;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.nn.Linear;
import dev.ember.nn.Parameter;
import dev.ember.nn.Sequential;
import dev.ember.optim.Adadelta;
import dev.ember.optim.Adagrad;
import dev.ember.optim.Adam;
import dev.ember.optim.AdamW;
import dev.ember.optim.Adamax;
import dev.ember.optim.NAdam;
import dev.ember.optim.Optimizer;
import dev.ember.optim.RMSprop;
import dev.ember.optim.SGD;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PyTorchPorts5Programs run eagerly and compiled, call by call (results, inputs afterwards, thrown
 * exceptions), with the default backend and with a {@link CompileCounter}. Where Dynamo's test asserts
 * frame or op counts, or that a change recompiles or does not, so does the port.
 */
class PyTorchPorts5Test {

    @AfterEach
    void reset() {
        Ember.reset();
        PyTorchPorts5Programs.resetTape();
    }

    private static Object[] args(Object... a) { return a; }

    private static void assertClose(Object expected, Object got, String what) {
        if (expected instanceof Tensor e) {
            Tensor g = (Tensor) got;
            assertArrayEquals(e.shape(), g.shape(), what + ": shape");
            assertArrayEquals(e.toDoubleArray(), g.toDoubleArray(), 1e-5, what);
        } else if (expected instanceof List<?> el) {
            List<?> gl = (List<?>) got;
            assertEquals(el.size(), gl.size(), what + ": size");
            for (int i = 0; i < el.size(); i++) assertClose(el.get(i), gl.get(i), what + "[" + i + "]");
        } else if (expected instanceof Variable ev) {
            assertClose(ev.value, ((Variable) got).value, what + ".value");
        } else {
            assertEquals(expected, got, what);
        }
    }

    // ---- test_python_autograd.py ----

    /**
     * _common: two pairs of 10-element inputs, the tape reset before each call, compiled with
     * fullgraph (optimize_assert) against eager; one frame of {@code ops} ops.
     */
    private static void common(Fn2<Tensor, Tensor, ?> fn, int ops) {
        Tensor.manualSeed(3);
        Object[] a1 = args(Tensor.randn(10), Tensor.randn(10)), a2 = args(Tensor.randn(10), Tensor.randn(10));
        for (Options base : List.of(Options.fullgraph(), Options.fullgraph().withBackendName("aot_eager"))) {
            Ember.reset();
            CompileCounter cc = new CompileCounter();
            Fn2<Tensor, Tensor, ?> opt = Ember.compile(fn, base.withBackend(cc));
            Fn2<Tensor, Tensor, ?> real = Ember.compile(fn, base);
            for (Object[] a : List.of(a1, a2)) {
                PyTorchPorts5Programs.resetTape();
                Object got = opt.apply((Tensor) a[0], (Tensor) a[1]);
                PyTorchPorts5Programs.resetTape();
                Object expected = fn.apply((Tensor) a[0], (Tensor) a[1]);
                assertClose(expected, got, "counted");
                PyTorchPorts5Programs.resetTape();
                Object gotReal = real.apply((Tensor) a[0], (Tensor) a[1]);
                assertClose(expected, gotReal, "compiled");
            }
            assertEquals(1, cc.frameCount(), "frames");
            assertEquals(ops, cc.opCount(), "ops");
        }
    }

    @Test
    void forwards1() { common(PyTorchPorts5Programs::forwards1, 3); } // test_forwards1

    @Test
    void forwards2() { common(PyTorchPorts5Programs::forwards2, 3); } // test_forwards2

    @Test
    void backwards1() { common(PyTorchPorts5Programs::backwards1, 8); } // test_backwards1 (Dynamo counts 9: see docs/corpus.md)

    @Test
    void backwards2() { common(PyTorchPorts5Programs::backwards2, 8); } // test_backwards2

    @Test
    void split() { // test_split: two frames, 9 ops in all
        Tensor.manualSeed(4);
        Variable v1 = Variable.constant(Tensor.randn(10), "a"), v2 = Variable.constant(Tensor.randn(10), "b");
        PyTorchPorts5Programs.resetTape();
        Variable loss1 = PyTorchPorts5Programs.splitForward(v1, v2);
        List<Variable> grad1 = PyTorchPorts5Programs.splitGrad(loss1, List.of(v1, v2));
        PyTorchPorts5Programs.resetTape();
        CompileCounter cc = new CompileCounter();
        Fn2<Variable, Variable, Variable> optForward = Ember.compile((Fn2<Variable, Variable, Variable>) PyTorchPorts5Programs::splitForward, Options.fullgraph().withBackend(cc));
        Fn2<Variable, List<Variable>, List<Variable>> optGrad = Ember.compile((Fn2<Variable, List<Variable>, List<Variable>>) PyTorchPorts5Programs::splitGrad, Options.fullgraph().withBackend(cc));
        Variable loss2 = optForward.apply(v1, v2);
        List<Variable> grad2 = optGrad.apply(loss2, new ArrayList<>(List.of(v1, v2)));
        assertClose(loss1, loss2, "loss");
        assertClose(grad1, grad2, "grads");
        assertEquals(2, cc.frameCount(), "frames");
        assertEquals(8, cc.opCount(), "ops (Dynamo counts 9)");
    }
    // ---- test_input_attr_tracking.py ----

    /** A CompileCounter that also counts each graph's placeholders (the tests' grab_graph_backend). */
    private static final class Grab implements Backend {
        final CompileCounter cc = new CompileCounter();
        int placeholders;

        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> in) {
            placeholders = gm.graph().placeholders().size();
            return cc.compile(gm, in);
        }
    }

    private static Attrs attrs(Tensor t, Object y) {
        Attrs a = new Attrs(t);
        a.y = y;
        return a;
    }

    /** Eager on one set of holders, compiled on a copy: results, then each holder's fields afterwards. */
    private static void checkAttrs(Function<Object[], Object> eager, Function<Object[], Object> compiled, Supplier<Object[]> in) {
        Object[] e = in.get(), c = in.get();
        assertClose(eager.apply(e), compiled.apply(c), "result");
        for (int i = 0; i < e.length; i++) {
            List<Attrs> ea = holders(e[i]), ca = holders(c[i]);
            for (int k = 0; k < ea.size(); k++) {
                Attrs x = ea.get(k), y = ca.get(k);
                assertClose(x.y, y.y, "arg " + i + "[" + k + "].y");
                assertClose(x.z, y.z, "arg " + i + "[" + k + "].z");
                assertEquals(x.a, y.a, "arg " + i + "[" + k + "].a");
            }
        }
    }

    private static List<Attrs> holders(Object o) {
        List<Attrs> out = new ArrayList<>();
        if (o instanceof Attrs a) out.add(a);
        else if (o instanceof List<?> l) for (Object x : l) if (x instanceof Attrs a) out.add(a);
        return out;
    }

    private static Grab grabbed(Object fn, Options o, Supplier<Object[]> in) {
        Ember.reset();
        Grab g = new Grab();
        checkAttrs(a -> Compiled.call(fn, a), Compiled.compile(fn, o.withBackend(g)), in);
        Ember.reset();
        checkAttrs(a -> Compiled.call(fn, a), Compiled.compile(fn, o), in);
        return g;
    }

    private static Supplier<Object[]> seeded(long seed, Supplier<Object[]> in) {
        return () -> {
            Tensor.manualSeed(seed);
            return in.get();
        };
    }

    @Test
    void tensorPropertyOnTensor() { // test_tensor_property_on_tensor: y lifted to a graph input, 2 placeholders
        Grab g = grabbed((Fn1<Attrs, Tensor>) PyTorchPorts5Programs::tensorPropertyOnTensor, Options.fullgraph(),
                seeded(1, () -> args(attrs(Tensor.randn(2, 2), Tensor.randn(2, 2)))));
        assertEquals(1, g.cc.frameCount());
        assertEquals(2, g.placeholders);
    }

    @Test
    void tensorPropertyAssignedOnTensor() { // test_tensor_property_assigned_on_tensor: 2 placeholders
        Grab g = grabbed((Fn2<Attrs, Tensor, Tensor>) PyTorchPorts5Programs::tensorPropertyAssignedOnTensor, Options.fullgraph(),
                seeded(2, () -> args(new Attrs(Tensor.randn(2, 2)), Tensor.randn(2, 2))));
        assertEquals(1, g.cc.frameCount());
        assertEquals(2, g.placeholders);
    }

    @Test
    void constPropertyOnTensor() { // test_const_property_on_tensor: the int is a constant, 1 placeholder
        Grab g = grabbed((Fn1<Attrs, Tensor>) PyTorchPorts5Programs::constPropertyOnTensor, Options.fullgraph(),
                seeded(3, () -> args(attrs(Tensor.randn(2, 2), 4))));
        assertEquals(1, g.cc.frameCount());
        assertEquals(1, g.placeholders);
    }

    @Test
    void constPropertyAssignedOnTensor() { // test_const_property_assigned_on_tensor
        Grab g = grabbed((Fn2<Attrs, Integer, Tensor>) PyTorchPorts5Programs::constPropertyAssignedOnTensor, Options.fullgraph(),
                seeded(4, () -> args(new Attrs(Tensor.randn(2, 2)), 4)));
        assertEquals(1, g.cc.frameCount());
    }

    @Test
    void propertyTypeChange() { // test_guards_correctly_property_assigned_on_tensor_type_change (+ _inductor): int, then tensor
        Fn2<Attrs, Object, Tensor> f = PyTorchPorts5Programs::propertyTypeChange;
        for (String backend : List.of("eager", "inductor")) {
            Ember.reset();
            Fn2<Attrs, Object, Tensor> opt = Ember.compile(f, Options.fullgraph().withBackendName(backend));
            Tensor.manualSeed(6);
            Tensor x = Tensor.randn(2, 2), y = Tensor.randn(2, 2);
            assertClose(x.mul(4), opt.apply(new Attrs(x), 4), backend + ": int");
            assertClose(x.mul(y), opt.apply(new Attrs(x), y), backend + ": tensor");
            assertClose(x.mul(5), opt.apply(new Attrs(x), 5), backend + ": int again");
        }
    }

    private static Supplier<Object[]> threeHolders(long seed) {
        return seeded(seed, () -> args(new ArrayList<>(List.of(new Attrs(Tensor.randn(2, 2)), new Attrs(Tensor.randn(2, 2)), new Attrs(Tensor.randn(2, 2)))),
                Tensor.randn(2, 2), 5));
    }

    @Test
    void complexAttrAccess() { // test_complex_attr_access_without_graph_breaks: 1 frame, 9 ops
        Grab g = grabbed((Fn3<List<Attrs>, Tensor, Integer, List<Object>>) PyTorchPorts5Programs::complexAttrAccess, Options.fullgraph(), threeHolders(7));
        assertEquals(1, g.cc.frameCount());
        assertEquals(9, g.cc.opCount());
    }

    @Test
    void complexAttrAccessBreak() { // test_complex_attr_access_with_graph_breaks: 2 frames, 9 ops
        Grab g = grabbed((Fn3<List<Attrs>, Tensor, Integer, List<Object>>) PyTorchPorts5Programs::complexAttrAccessBreak, Options.defaults(), threeHolders(8));
        assertEquals(2, g.cc.frameCount());
        assertEquals(9, g.cc.opCount());
    }

    @Test
    void inlineReconstruct() { // test_complex_attr_access_with_inline_reconstruct: 1 frame, 2 ops
        Grab g = grabbed((Fn3<Attrs, Attrs, Attrs, List<Tensor>>) PyTorchPorts5Programs::inlineReconstruct, Options.defaults(),
                seeded(9, () -> args(new Attrs(Tensor.randn(2, 2)), new Attrs(Tensor.randn(2, 2)), new Attrs(Tensor.randn(2, 2)))));
        assertEquals(1, g.cc.frameCount());
        assertEquals(2, g.cc.opCount());
    }

    @Test
    void setattrOnUserDefinedClass() { // test_set_data_on_user_defined_class_input_tensor: a bound method, 1 frame, 3 ops
        Tensor.manualSeed(10);
        Tensor x = Tensor.randn(5, 5), y = Tensor.randn(5, 5);
        SetattrStuff m1 = new SetattrStuff(x, y), m2 = new SetattrStuff(x, y);
        Tensor eager = m1.doSomeSetattrStuff();
        CompileCounter cc = new CompileCounter();
        Fn0<Tensor> opt = Ember.compile((Fn0<Tensor>) m2::doSomeSetattrStuff, Options.fullgraph().withBackend(cc));
        assertClose(eager, opt.apply(), "result");
        assertClose(m1.z, m2.z, "z set on the object");
        assertClose(m1.a, m2.a, "a set on the object");
        assertEquals(1, cc.frameCount());
        assertEquals(3, cc.opCount());
    }
    // ---- test_optimizers.py ----

    /** make_test's model: two 10x10 Linears, one backward of the sum over ones. */
    private static Sequential optimizerModel() {
        Tensor.manualSeed(11);
        Sequential model = new Sequential(new Linear(10, 10), new Linear(10, 10));
        model.forward(Tensor.ones(10, 10)).sum().backward();
        return model;
    }

    @Test
    void optimizerSteps() { // make_test over torch.optim's optimizers: a step compiled with grad off, params as eager's
        List<Function<Sequential, Optimizer>> makers = List.of(
                m -> new SGD(m.parameters(), SGD.options().lr(0.01)),
                m -> new Adam(m.parameters(), Adam.options()),
                m -> new AdamW(m.parameters(), AdamW.options()),
                m -> new Adagrad(m.parameters(), Adagrad.options()),
                m -> new Adadelta(m.parameters(), Adadelta.options()),
                m -> new Adamax(m.parameters(), Adamax.options()),
                m -> new NAdam(m.parameters(), NAdam.options()),
                m -> new RMSprop(m.parameters(), RMSprop.options()));
        for (int k = 0; k < makers.size(); k++) {
            Sequential eagerModel = optimizerModel(), compiledModel = optimizerModel();
            Optimizer eagerOpt = makers.get(k).apply(eagerModel), compiledOpt = makers.get(k).apply(compiledModel);
            Ember.reset();
            Fn1<Optimizer, Object> opt = Ember.compile((Fn1<Optimizer, Object>) o -> {
                PyTorchPorts5Programs.optimizerStep(o);
                return null;
            }, Options.backend("eager"));
            for (int step = 0; step < 2; step++) {
                try (var unused = Ember.noGrad()) {
                    PyTorchPorts5Programs.optimizerStep(eagerOpt);
                    opt.apply(compiledOpt);
                }
                List<Parameter> e = eagerModel.parameters(), c = compiledModel.parameters();
                for (int i = 0; i < e.size(); i++) assertClose(e.get(i), c.get(i), eagerOpt.getClass().getSimpleName() + " step " + step + " param " + i);
            }
        }
    }

    @Test
    void optimizingOverTensorWithRequiresGrad() { // test_optimizing_over_tensor_with_requires_grad: Dynamo 2 frames over two iterations
        Fn3<Map<String, Tensor>, BmmNet, Optimizer, Tensor> f = PyTorchPorts5Programs::trainingIter;
        List<List<Tensor>> runs = new ArrayList<>();
        CompileCounter cc = new CompileCounter();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(12);
            Tensor input1 = Tensor.randn(2, 1, 4), input2 = Tensor.randn(2, 4, 8).requiresGrad(true);
            Optimizer optimizer = new Adam(List.of(input2), Adam.options().lr(0.1));
            Map<String, Tensor> batch = new LinkedHashMap<>();
            batch.put("x", input1);
            batch.put("y", input2);
            Fn3<Map<String, Tensor>, BmmNet, Optimizer, Tensor> g = compiled ? Ember.compile(f, Options.backend(cc)) : f;
            BmmNet net = new BmmNet();
            List<Tensor> got = new ArrayList<>();
            for (int i = 0; i < 2; i++) got.add(g.apply(batch, net, optimizer).detach());
            got.add(input2.detach().clone());
            runs.add(got);
        }
        assertClose(runs.get(0), runs.get(1), "losses and the optimized tensor");
        // Dynamo 2 (the graph before backward, and the optimizer step traced); Ember's optimizer zeroGrad() and
        // step() are one call each by design (Ember.compile(optimizer) compiles the step, docs/training.md):
        // one graph, the forward and the loss
        ExplainOutput ex = Ember.explain(f).with(new LinkedHashMap<>(Map.of("x", Tensor.randn(2, 1, 4), "y", Tensor.randn(2, 4, 8).requiresGrad(true))),
                new BmmNet(), new Adam(List.of(Tensor.randn(2, 4, 8).requiresGrad(true)), Adam.options()));
        assertTrue(ex.breakReasons().stream().anyMatch(r -> r.reason().contains("an optimizer's step() runs as one call")), ex.toString());
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void stateDict() { // test_state_dict: an optimizer and its closure returned from a compiled frame
        Fn3<Tensor, Tensor, Tensor, List<Object>> f = PyTorchPorts5Programs::makeOptimizer;
        List<List<Tensor>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Ember.reset();
            Tensor.manualSeed(13);
            Tensor w = new Parameter(Tensor.randn(10, 5)), b = new Parameter(Tensor.randn(10)), in = Tensor.randn(5).requiresGrad(true);
            List<Object> made = (compiled ? Ember.compile(f, Options.backend("eager")) : f).apply(w, b, in);
            @SuppressWarnings("unchecked")
            Supplier<Tensor> closure = (Supplier<Tensor>) made.get(1);
            Tensor loss = ((Optimizer) made.get(0)).step(closure);
            runs.add(List.of(loss.detach(), w.detach().clone(), b.detach().clone()));
        }
        assertClose(runs.get(0), runs.get(1), "loss and parameters after the step");
    }

    @Test
    void initGroup() { // test_init_group: fullgraph, float32 and (for cfloat) int64
        for (DType dtype : List.of(DType.FLOAT32, DType.INT64)) {
            Ember.reset();
            Tensor.manualSeed(14);
            Tensor tensor = Tensor.randn(5, 5).mul(10).to(dtype);
            Tensor params = new Parameter(tensor.detach().clone(), false), optParams = new Parameter(tensor.detach().clone(), false);
            new MyOptimizer(List.of(params)).step();
            MyOptimizer optOptim = new MyOptimizer(List.of(optParams));
            CompileCounter cc = new CompileCounter();
            Ember.compile((Fn0<Object>) () -> {
                optOptim.step();
                return null;
            }, Options.fullgraph().withBackend(cc)).apply();
            assertClose(params, optParams, dtype.toString());
            assertEquals(1, cc.frameCount(), dtype + ": frames");
        }
    }
    // ---- the list gaps capture session 7 left ----

    @Test
    void listGapsClosed() { // capture session 11: views of a list that changes and ListIterator writes are traced, one graph each
        for (Fn1<Tensor, Tensor> f : List.<Fn1<Tensor, Tensor>>of(PyTorchPorts5Programs::subListWritesThrough, PyTorchPorts5Programs::reversedSeesChanges,
                PyTorchPorts5Programs::unmodifiableSeesChanges, PyTorchPorts5Programs::listIteratorSetAddPrevious)) {
            PyTorchPortsMoreTest.check(f, Options.defaults(), () -> List.<Object[]>of(args(Tensor.ones(2)), args(Tensor.randn(2))));
            assertEquals(0, Ember.explain(f).with(Tensor.ones(2)).graphBreakCount(), "graph breaks");
            Ember.reset();
        }
    }
}
