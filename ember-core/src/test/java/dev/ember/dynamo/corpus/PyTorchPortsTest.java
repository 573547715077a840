package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.corpus.PyTorchPortsPrograms.CallableClass;
import dev.ember.dynamo.corpus.PyTorchPortsPrograms.Mock;
import dev.ember.dynamo.corpus.PyTorchPortsPrograms.NotCallableClass;
import dev.ember.dynamo.corpus.PyTorchPortsPrograms.Output;
import dev.ember.dynamo.corpus.PyTorchPortsPrograms.SetAdd;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PyTorchPortsPrograms run eagerly and compiled: every call's result, and the inputs afterwards,
 * must equal eager's; where PyTorch's test asserts a frame count, an op count or fullgraph
 * capture, so does the port. {@code @make_test} programs run as torch._dynamo.testing.standard_test
 * runs them ({@link #standardTest}). Each test names the PyTorch test it ports.
 */
class PyTorchPortsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static Object[] args(Object... a) { return a; }

    /** Inputs made under a fixed seed, so the eager and the compiled run get equal ones. */
    private static Supplier<List<Object[]>> seeded(Supplier<List<Object[]>> make) {
        return () -> {
            Tensor.manualSeed(0);
            return make.get();
        };
    }

    /**
     * Calls {@code eagerFn} and the compiled {@code compiledFn} (the same program, or a fresh copy of
     * a stateful one) on equal inputs, call by call: results and inputs afterwards must be the same,
     * and a call that throws eagerly must throw the same compiled. Returns the counter of the compiled run.
     */
    static CompileCounter check(Object eagerFn, Object compiledFn, Options options, Supplier<List<Object[]>> calls) {
        CompileCounter cc = new CompileCounter();
        Function<Object[], Object> compiled = Compiled.compile(compiledFn, options.withBackend(cc));
        Compiled.assertCallsAlike(eagerFn, compiled, calls.get(), calls.get(), "");
        return cc;
    }

    static CompileCounter check(Object fn, Options options, Supplier<List<Object[]>> calls) { return check(fn, fn, options, calls); }

    /**
     * torch._dynamo.testing.standard_test: two sets of 10x10 inputs, each called twice, captured
     * whole (optimize_assert), in {@code expectedFrames} frames.
     */
    static CompileCounter standardTest(Object fn, int nargs, int expectedFrames) {
        CompileCounter cc = check(fn, Options.fullgraph(), seeded(() -> {
            Object[] a1 = new Object[nargs], a2 = new Object[nargs];
            for (int i = 0; i < nargs; i++) a1[i] = Tensor.randn(10, 10);
            for (int i = 0; i < nargs; i++) a2[i] = Tensor.randn(10, 10);
            return List.of(a1, a2, a1, a2);
        }));
        assertEquals(expectedFrames, cc.frameCount(), "frames");
        return cc;
    }

    static CompileCounter standardTest(Object fn, int nargs) { return standardTest(fn, nargs, 1); }

    /** Calls captured whole (torch.compile(fullgraph=True)) on the given inputs. */
    static CompileCounter fullgraph(Object fn, Supplier<List<Object[]>> calls) { return check(fn, Options.fullgraph(), seeded(calls)); }

    // ------------------------------------------------------------------ @make_test programs (test_functions.py)

    @Test
    void clsEq() { standardTest((Fn2<Tensor, Tensor, Object>) PyTorchPortsPrograms::clsEq, 2); } // test_functions.py::test_cls_eq

    @Test
    void clsIs() { standardTest((Fn2<Tensor, Tensor, Object>) PyTorchPortsPrograms::clsIs, 2); } // test_functions.py::test_cls_is

    @Test
    void itertoolsProduct() { standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::itertoolsProduct, 2); } // test_functions.py::test_itertools_product

    @Test
    void itertoolsChain() { standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::itertoolsChain, 2); } // test_functions.py::test_itertools_chain

    @Test
    void itertoolsChainFromIterable() { // test_functions.py::test_itertools_chain_from_iterable
        standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::itertoolsChainFromIterable, 2);
    }

    @Test
    void itertoolsCombinations() { // test_functions.py::test_itertools_combinations
        standardTest((Fn2<Tensor, Tensor, List<Tensor>>) PyTorchPortsPrograms::itertoolsCombinations, 2);
    }

    @Test
    void deviceConstant() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::deviceConstant, 1); } // test_functions.py::test_device_constant

    @Test
    void orderedDictKwargs() { // test_functions.py::test_ordered_dict_kwargs
        standardTest((Fn1<Tensor, Map<String, Tensor>>) PyTorchPortsPrograms::orderedDictKwargs, 1);
    }

    @Test
    void isFloatingPoint() { standardTest((Fn1<Tensor, List<Boolean>>) PyTorchPortsPrograms::isFloatingPoint, 1); } // test_functions.py::test_is_floating_point

    @Test
    void getDefaultDtype() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::getDefaultDtype, 1); } // test_functions.py::test_get_default_dtype

    @Test
    void listComparePolyfill() { // test_functions.py::test_list_compare_polyfill
        standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::listComparePolyfill, 1);
    }

    @Test
    void promoteTypes() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::promoteTypes, 1); } // test_functions.py::test_promote_types

    @Test
    void tensorElementSize() { // test_functions.py::test_tensor_element_size
        standardTest((Fn1<Tensor, List<Tensor>>) PyTorchPortsPrograms::tensorElementSize, 1);
    }

    @Test
    void mT() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::mT, 1); } // test_functions.py::test_mT

    @Test
    void zipLongest() { standardTest((Fn1<Tensor, List<Object>>) PyTorchPortsPrograms::zipLongest, 1); } // test_functions.py::test_zip_longest

    @Test
    void callDict4() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::callDict4, 1); } // test_functions.py::test_call_dict4

    @Test
    void callDict5() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::callDict5, 1); } // test_functions.py::test_call_dict5

    @Test
    void dictFromkeys() { standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::dictFromkeys, 2); } // test_functions.py::test_dict_fromkeys

    @Test
    void dictUpdate() { standardTest((Fn3<Tensor, Tensor, Tensor, Tensor>) PyTorchPortsPrograms::dictUpdate, 3); } // test_functions.py::test_dict_update

    @Test
    void sumShortcut() { standardTest((Fn0<Double>) PyTorchPortsPrograms::sumShortcut, 0, 0); } // test_functions.py::test_sum_shortcut

    @Test
    void sumShortcutWithStartArg() { // test_functions.py::test_sum_shortcut_with_start_arg
        standardTest((Fn0<Double>) PyTorchPortsPrograms::sumShortcutWithStartArg, 0, 0);
    }

    @Test
    void reduceWithSingle() { standardTest((Fn1<Tensor, Object>) PyTorchPortsPrograms::reduceWithSingle, 1, 0); } // test_functions.py::test_reduce_with_single

    @Test
    void reduceWithSingleWithInitial() { // test_functions.py::test_reduce_with_single_with_initial
        standardTest((Fn2<Tensor, Tensor, Object>) PyTorchPortsPrograms::reduceWithSingleWithInitial, 2, 0);
    }

    @Test
    void setUpdateBytecode() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::setUpdateBytecode, 1); } // test_functions.py::test_set_update_bytecode

    @Test
    void setUpdateListWithDuplicatedItems() { // test_functions.py::test_set_update_list_with_duplicated_items
        standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::setUpdateListWithDuplicatedItems, 1);
    }

    @Test
    void setIsdisjoint() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::setIsdisjoint, 1); } // test_functions.py::test_set_isdisjoint

    @Test
    void tupleSorted() { standardTest((Fn1<Tensor, List<Object>>) PyTorchPortsPrograms::tupleSorted, 1); } // test_functions.py::test_tuple_sorted

    @Test
    void dictSorted() { standardTest((Fn1<Tensor, List<Object>>) PyTorchPortsPrograms::dictSorted, 1); } // test_functions.py::test_dict_sorted

    @Test
    void isliceChain() { standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::isliceChain, 2); } // test_functions.py::test_islice_chain

    @Test
    void namedtupleHasattr() { standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::namedtupleHasattr, 2); } // test_functions.py::test_namedtuple_hasattr

    @Test
    void fstrings1() { standardTest((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::fstrings1, 2); } // test_functions.py::test_fstrings1

    @Test
    void fstrings3() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::fstrings3, 1); } // test_functions.py::test_fstrings3

    @Test
    void fstrings4() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::fstrings4, 1); } // test_functions.py::test_fstrings4

    @Test
    void fstrings5() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::fstrings5, 1); } // test_functions.py::test_fstrings5

    @Test
    void partialsTorchOpKwarg() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::partialsTorchOpKwarg, 1); } // test_functions.py::test_partials_torch_op_kwarg

    @Test
    void partialsTorchOpArg() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::partialsTorchOpArg, 1); } // test_functions.py::test_partials_torch_op_arg

    @Test
    void partialsUdfArg() { standardTest((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::partialsUdfArg, 1); } // test_functions.py::test_partials_udf_arg

    @Test
    void dictIdGuard() { // test_functions.py::test_dict_id_guard
        fullgraph((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::dictIdGuard, () -> List.<Object[]>of(args(Tensor.randn(4))));
    }

    // ------------------------------------------------------------------ test_functions.py's own tests

    @Test
    void listSlice() { // test_functions.py::test_list_slice
        Mock eager = new Mock(), compiled = new Mock();
        check((Fn1<Tensor, Tensor>) eager::run, (Fn1<Tensor, Tensor>) compiled::run, Options.defaults(),
                seeded(() -> List.of(args(Tensor.randn(4)), args(Tensor.randn(4)), args(Tensor.randn(4)), args(Tensor.randn(4)), args(Tensor.randn(4)))));
        assertEquals(4, compiled.ets.size());
        Compiled.assertSame(eager.ets, compiled.ets, "ets");
    }

    @Test
    void callableClass() { // test_functions.py::test_callable_class
        for (Fn2<Tensor, Object, Tensor> fn : List.<Fn2<Tensor, Object, Tensor>>of(PyTorchPortsPrograms::callableClass1, PyTorchPortsPrograms::callableClass2)) {
            Tensor input = Tensor.randn(4);
            fullgraph(fn, () -> List.of(args(input, new NotCallableClass()), args(input, new CallableClass()), args(input, 1), args(input, 1.1),
                    args(input, true), args(input, input)));
        }
    }

    @Test
    void callableList() { // test_functions.py::test_callable_list
        Tensor input = Tensor.randn(4);
        fullgraph((Fn2<Tensor, Object, Tensor>) PyTorchPortsPrograms::callableClass1, () -> List.of(args(input, List.of(1, 2, 3)), args(input, new int[] {1, 2, 3})));
    }

    @Test
    void torchSizeAsDictKey() { // test_functions.py::test_torch_size_as_dict_key: one cache for both calls
        fullgraph((Fn2<Tensor, Map<String, Tensor>, Tensor>) PyTorchPortsPrograms::torchSizeAsDictKey, () -> {
            Map<String, Tensor> cached = new HashMap<>();
            return List.of(args(Tensor.randn(2, 3), cached), args(Tensor.randn(2, 3), cached));
        });
    }

    @Test
    void dictTupleLazyGuard() { // test_functions.py::test_dict_tuple_lazy_guard: a value the program does not read changes without a recompile
        CompileCounter dict = check((Fn2<Tensor, Map<Integer, Integer>, Tensor>) PyTorchPortsPrograms::dictLazyGuard, Options.defaults(),
                seeded(() -> List.of(args(Tensor.randn(3), Map.of(1, 1, 2, 2)), args(Tensor.randn(3), Map.of(1, 1, 2, 3)))));
        assertEquals(1, dict.frameCount(), "frames");
        CompileCounter tuple = check((Fn2<Tensor, List<Integer>, Tensor>) PyTorchPortsPrograms::tupleLazyGuard, Options.defaults(),
                seeded(() -> List.of(args(Tensor.randn(3), List.of(1, 2, 3)), args(Tensor.randn(3), List.of(11, 2, 13)))));
        assertEquals(1, tuple.frameCount(), "frames");
    }

    @Test
    void constantSet() { // test_functions.py::test_constant_set: adding to the global set recompiles
        Fn1<Tensor, Tensor> fn = PyTorchPortsPrograms::constantSet;
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> opt = Ember.compile(fn, Options.fullgraph().withBackend(cc));
        Tensor x = Tensor.rand(4);
        try {
            Compiled.assertSame(fn.apply(x), opt.apply(x), "before");
            PyTorchPortsPrograms.CONSTANT_SET.add(3);
            Compiled.assertSame(fn.apply(x), opt.apply(x), "after the set changed");
            assertEquals(2, cc.frameCount(), "frames");
        } finally {
            PyTorchPortsPrograms.CONSTANT_SET.remove(3);
        }
    }

    @Test
    void setAdd() { // test_functions.py::test_set_add
        SetAdd eager = new SetAdd(), compiled = new SetAdd();
        check((Fn1<Tensor, Tensor>) eager::fn, (Fn1<Tensor, Tensor>) compiled::fn, Options.fullgraph(), seeded(() -> List.<Object[]>of(args(Tensor.rand(4)))));
        assertEquals(3, compiled.s.size());
    }

    @Test
    void dictHasattr() { // test_functions.py::test_dict_hasattr
        fullgraph((Fn1<Object, Object>) PyTorchPortsPrograms::dictHasattr,
                () -> List.of(args(new LinkedHashMap<>(Map.of("a", Tensor.randn(3)))), args(Tensor.randn(4))));
    }

    @Test
    void partialsAsInputPartialsLambda() { // test_functions.py::test_partials_as_input_partials_lambda
        CompileCounter cc = fullgraph((Fn3<Fn1<Tensor, Tensor>, Fn1<Tensor, Tensor>, Tensor, Tensor>) PyTorchPortsPrograms::callBoth,
                () -> List.<Object[]>of(args(PyTorchPortsPrograms.times(3), PyTorchPortsPrograms.times(2), Tensor.randn(2, 2))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void partialsAsInputUdf() { // test_functions.py::test_partials_as_input_UDF
        CompileCounter cc = fullgraph((Fn3<Fn1<Tensor, Tensor>, Fn1<Tensor, Tensor>, Tensor, Tensor>) PyTorchPortsPrograms::callBoth,
                () -> List.<Object[]>of(args(PyTorchPortsPrograms.udfMulBy(Tensor.randn(2, 2)), PyTorchPortsPrograms.udfMulBy(Tensor.randn(2, 2)),
                        Tensor.randn(2, 2))));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void partialsRecompilation() { // test_functions.py::test_partials_recompilation (its fn; fn2 spreads an argument list, which Java has no call for)
        Fn3<Fn1<Tensor, Tensor>, Fn1<Tensor, Tensor>, Tensor, Tensor> fn = PyTorchPortsPrograms::callBoth;
        CompileCounter cc = new CompileCounter();
        Fn3<Fn1<Tensor, Tensor>, Fn1<Tensor, Tensor>, Tensor, Tensor> opt = Ember.compile(fn, Options.fullgraph().withBackend(cc));
        Fn1<Tensor, Tensor> lambda0 = PyTorchPortsPrograms.udfMulBy(Tensor.randn(2, 2)), lambda1 = PyTorchPortsPrograms.udfMulBy(Tensor.randn(2, 2));
        Tensor x = Tensor.randn(2, 2);
        Compiled.assertSame(fn.apply(lambda0, lambda1, x), opt.apply(lambda0, lambda1, x), "first");
        assertEquals(1, cc.frameCount(), "frames");
        Compiled.assertSame(fn.apply(lambda1, lambda0, x), opt.apply(lambda1, lambda0, x), "swapped");
        assertEquals(1, cc.frameCount(), "no recompile: the function and the tensors are guarded, not which tensor");
        Fn1<Tensor, Tensor> lambda2 = PyTorchPortsPrograms.udfMulBy(Tensor.randn(3, 3));
        Tensor x3 = Tensor.randn(3, 3);
        Compiled.assertSame(fn.apply(lambda2, lambda2, x3), opt.apply(lambda2, lambda2, x3), "3x3");
        assertEquals(2, cc.frameCount(), "recompile: the tensor size changed");
        Fn1<Tensor, Tensor> lambda3 = PyTorchPortsPrograms.multiplyBy(Tensor.randn(3, 3));
        Compiled.assertSame(fn.apply(lambda3, lambda3, x3), opt.apply(lambda3, lambda3, x3), "another function");
        assertEquals(3, cc.frameCount(), "recompile: the function changed");
    }

    @Test
    void manualSeed() { // test_functions.py::test_manual_seed
        Fn0<Tensor> opt = Ember.compile((Fn0<Tensor>) PyTorchPortsPrograms::manualSeed);
        Tensor first = opt.apply();
        Compiled.assertSame(first, opt.apply(), "compiled twice");
        Compiled.assertSame(PyTorchPortsPrograms.manualSeed(), first, "eager");
    }

    @Test
    void noRecompileInnerLambda() { // test_functions.py::test_no_recompile_inner_lambda
        Tensor input = Tensor.rand(2);
        CompileCounter cc = check((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::noRecompileInnerLambda, Options.defaults().reorderableLogging(false),
                () -> List.of(args(input), args(input), args(input)));
        assertEquals(1, cc.frameCount(), "frames");
    }

    @Test
    void complexClosure() { // test_functions.py::test_complex_closure
        Fn1<Tensor, Function<Tensor, Tensor>> opt = Ember.compile((Fn1<Tensor, Function<Tensor, Tensor>>) PyTorchPortsPrograms::complexClosure);
        Tensor input1 = Tensor.rand(2), input2 = Tensor.rand(2);
        Compiled.assertSame(input1.add(input2), opt.apply(input1).apply(input2), "closure");
    }

    @Test
    void compareConstantAndTensor() { // test_functions.py::test_compare_constant_and_tensor
        for (Fn1<Tensor, Tensor> op : PyTorchPortsPrograms.COMPARE_CONSTANT_AND_TENSOR) {
            Ember.reset();
            fullgraph(op, () -> List.<Object[]>of(args(Tensor.randn(10))));
        }
    }

    @Test
    void dataclassFactory() { // test_functions.py::test_dataclass_factory
        Fn1<Tensor, List<Object>> fn = PyTorchPortsPrograms::dataclassFactory;
        CompileCounter cc = new CompileCounter();
        Tensor x = Tensor.randn(4);
        List<Object> eager = fn.apply(x), compiled = Ember.compile(fn, Options.fullgraph().withBackend(cc)).apply(x);
        Output e = (Output) eager.get(0), c = (Output) compiled.get(0);
        assertEquals(e.scalar, c.scalar);
        Compiled.assertSame(e.namedTensors, c.namedTensors, "named_tensors");
        Compiled.assertSame(eager.get(1), compiled.get(1), "out");
        assertEquals(1, cc.frameCount(), "frames");
        assertEquals(5, cc.opCount(), "ops");
    }

    @Test
    void dataclassNested() { // test_functions.py::test_dataclass_nested
        fullgraph((Fn1<Tensor, Tensor>) PyTorchPortsPrograms::dataclassNested, () -> List.<Object[]>of(args(Tensor.randn(4))));
    }

    @Test
    void isTensorTensor() { // test_functions.py::test_is_tensor_tensor
        Tensor x = Tensor.zeros(2), y = Tensor.ones(2);
        check((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::isTensorTensor, Options.fullgraph().dynamic(true), () -> List.of(args(x, y), args(x, x)));
    }

    @Test
    void isNotTensorTensor() { // test_functions.py::test_is_not_tensor_tensor
        Tensor x = Tensor.zeros(2), y = Tensor.ones(2);
        check((Fn2<Tensor, Tensor, Tensor>) PyTorchPortsPrograms::isNotTensorTensor, Options.fullgraph().dynamic(true), () -> List.of(args(x, y), args(x, x)));
    }

    @Test
    void isMutatedTensorTensor() { // test_functions.py::test_is_mutated_tensor_tensor
        check((Fn1<Tensor, Boolean>) PyTorchPortsPrograms::isMutatedTensorTensor, Options.fullgraph().dynamic(true), () -> List.<Object[]>of(args(Tensor.ones(4))));
    }

    @Test
    void isInitInCompileMutatedTensorTensor() { // test_functions.py::test_is_init_in_compile_mutated_tensor_tensor
        check((Fn1<Tensor, Boolean>) PyTorchPortsPrograms::isInitInCompileMutatedTensorTensor, Options.fullgraph().dynamic(true),
                () -> List.<Object[]>of(args(Tensor.ones(4, 1))));
    }

    @Test
    void isMutatedTensorTensorAcrossGraphBreak() { // test_functions.py::test_is_mutated_tensor_tensor_across_graph_break
        check((Fn1<Tensor, List<Boolean>>) PyTorchPortsPrograms::isMutatedTensorTensorAcrossGraphBreak, Options.defaults().dynamic(true),
                () -> List.<Object[]>of(args(Tensor.ones(4))));
    }

    @Test
    void zipStrict() { // test_functions.py::test_zip_strict
        check((Fn3<Tensor, List<Double>, List<Double>, Tensor>) PyTorchPortsPrograms::zipStrict, Options.defaults(),
                () -> List.of(args(Tensor.ones(3), List.of(1.0, 2.0, 3.0), List.of(2.0, 5.0, 8.0)), args(Tensor.ones(3), List.of(1.0), List.of(2.0, 5.0, 8.0))));
    }

    @Test
    void fnWithAttr() { // test_functions.py::test_fn_with_attr
        Fn1<Tensor, Tensor> fn = PyTorchPortsPrograms::fnWithAttr;
        CompileCounter cc = new CompileCounter();
        Tensor t = Tensor.ones(3);
        try {
            PyTorchPortsPrograms.pred = true;
            Compiled.assertSame(fn.apply(t), Ember.compile(fn, Options.fullgraph().withBackend(cc)).apply(t), "pred");
            assertEquals(1, cc.frameCount(), "frames");
            PyTorchPortsPrograms.pred = false;
            Compiled.assertSame(fn.apply(t), Ember.compile(fn, Options.fullgraph().withBackend(cc)).apply(t), "not pred");
            assertEquals(2, cc.frameCount(), "frames");
        } finally {
            PyTorchPortsPrograms.pred = true;
        }
    }

    @Test
    void strHandlerForUserDefinedObject() { // test_functions.py::test_str_handler_for_user_defined_object
        Fn1<Tensor, List<Object>> custom = PyTorchPortsPrograms::fooCustomStr;
        assertEquals("ok", Ember.compile(custom, Options.fullgraph()).apply(Tensor.ones(4)).get(1));
        // Object.toString shows the identity hash, unknown while tracing: unlike Python's default str, a graph break, not fullgraph
        Fn1<Tensor, List<Object>> byDefault = PyTorchPortsPrograms::fooDefaultStr;
        List<Object> eager = byDefault.apply(Tensor.ones(4)), compiled = Ember.compile(byDefault).apply(Tensor.ones(4));
        Compiled.assertSame(eager.get(0), compiled.get(0), "tensor");
        assertEquals(((String) eager.get(1)).split("@")[0], ((String) compiled.get(1)).split("@")[0], "class name");
    }

    @Test
    void funcDefaultTensorArgs() { // test_functions.py::DefaultsTests::test_func_default_tensor_args (the defaults: static fields)
        Fn0<List<Tensor>> func = PyTorchPortsPrograms::funcDefaultTensorArgs;
        CompileCounter cc = new CompileCounter();
        Fn0<List<Tensor>> compiledFunc = Ember.compile(func, Options.defaults().withBackend(cc));
        Tensor savedX = PyTorchPortsPrograms.defaultX, savedKwX = PyTorchPortsPrograms.defaultKwX;
        try {
            PyTorchPortsPrograms.defaultX = Tensor.zeros(2, 2);
            PyTorchPortsPrograms.defaultKwX = Tensor.zeros(1, 2);
            for (int i = 0; i < 4; i++) {
                List<Tensor> out = i % 2 == 0 ? func.apply() : compiledFunc.apply();
                Compiled.assertSame(Tensor.onesLike(out.get(0)).add(i), out.get(0), "x " + i);
                Compiled.assertSame(Tensor.onesLike(out.get(1)).add(i), out.get(1), "kw_x " + i);
            }
            assertEquals(1, cc.frameCount(), "frames");
            assertEquals(2, cc.opCount(), "ops");
            PyTorchPortsPrograms.defaultX = Tensor.ones(3, 4, 5);
            compiledFunc.apply();
            assertEquals(2, cc.frameCount(), "a new default tensor recompiles");
            assertEquals(4, cc.opCount(), "ops");
        } finally {
            PyTorchPortsPrograms.defaultX = savedX;
            PyTorchPortsPrograms.defaultKwX = savedKwX;
        }
    }
}
