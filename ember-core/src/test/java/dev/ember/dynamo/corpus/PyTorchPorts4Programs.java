package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.Disable;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A fourth set of programs ported from PyTorch's Dynamo tests: test_hooks.py (gradient hooks on
 * inputs and intermediates, handles removed in the frame or after it, module forward hooks added
 * between calls), test_decorators.py (disable, graph_break, allow_in_graph as Ember's hatches),
 * test_global.py (module globals as static fields), test_model_output.py (ModelOutput dataclasses as
 * records and maps), test_list.py and test_view.py. PyTorchPorts4Test runs them eagerly and compiled.
 *
 * <p>Skipped, with no Java meaning: test_hooks.py's compiled-autograd tests
 * ({@code compiled_autograd._enable}: Ember's backward is never traced by Dynamo, so the tests'
 * backward frame counts have no equivalent; their forward programs are ported, their gradients
 * compared with eager's), {@code register_post_accumulate_grad_hook} (Ember has no such hook),
 * {@code register_module_forward_pre_hook} (global module hooks: Ember has none),
 * {@code wrap_top_frame}; test_decorators.py's {@code torch._dynamo.mark_static_address},
 * {@code substitute_in_graph}, {@code nonstrict_trace}, {@code assume_constant_result} and
 * {@code torch._dynamo.config.patch} as a decorator (Python decorators and config); test_nops.py
 * (the eval-frame callback on Python bytecode); test_global.py's tests of {@code globals()} from
 * another module object (Java's static fields have one owner class).
 */
final class PyTorchPorts4Programs {
    private PyTorchPorts4Programs() {}

    // ---- test_hooks.py ----

    static Tensor globalHook0(Tensor grad) { return grad.mul(4); }

    static Tensor globalHook1(Tensor grad) { return grad.div(2); }

    static Tensor globalHook2(Tensor grad) { return grad.mul(3); }

    // test_tensor_only_register_hook_in_graph_lambda
    static Tensor onlyRegisterHookLambda(Tensor x) {
        x.registerHook(grad -> grad.mul(2));
        return x;
    }

    // test_tensor_register_hook_in_graph_lambda
    static List<Tensor> registerHookLambda(Tensor x, Tensor y, Tensor z) {
        x.registerHook(grad -> grad.mul(2));
        return List.of(x, y.mul(y), z.mul(z));
    }

    // test_tensor_register_hook_in_graph_break_handle_lambda
    static List<Tensor> registerHookBreakHandle(Tensor x, Tensor y, Tensor z) {
        Autograd.HookHandle handle = x.registerHook(grad -> grad.mul(2));
        z = z.mul(z);
        handle.remove();
        x.registerHook(grad -> grad.mul(3));
        return List.of(x, y.mul(y), z);
    }

    // test_tensor_register_hook_multi_handle_return: the handles are returned too
    static List<Object> multiHandleReturn(Tensor x, Tensor y, Tensor z) {
        Autograd.HookHandle handle = x.registerHook(grad -> grad.mul(2));
        Autograd.HookHandle h2 = handle;
        z = z.mul(z);
        return List.of(x, y.mul(y), z, handle, h2);
    }

    // test_removed_handle_return: removed twice, returned twice
    static List<Object> removedHandleReturn(Tensor x, Tensor y, Tensor z) {
        Autograd.HookHandle handle = x.registerHook(grad -> grad.mul(2));
        z = z.mul(z);
        handle.remove();
        handle.remove();
        return List.of(x, y.mul(y), z, handle, handle);
    }

    /** torch.nn.Module() with a handle attribute. */
    static final class HandleHolder {
        Autograd.HookHandle handle;
    }

    // test_tensor_register_hook_repeated_handle_not_local
    static List<Tensor> handleNotLocal(Tensor x, Tensor y, Tensor z, HandleHolder mod) {
        mod.handle = x.registerHook(grad -> grad.mul(2));
        z = z.mul(z);
        return List.of(x, y.mul(y), z);
    }

    // test_tensor_only_register_hook_in_graph_local_inner
    static List<Tensor> hookLocalInner(Tensor x) {
        UnaryOperator<Tensor> localHook = grad -> grad.mul(2);
        Tensor z = x.mul(x);
        x.registerHook(localHook);
        z.registerHook(localHook);
        return List.of(x, z);
    }

    // test_tensor_register_global_hook
    static List<Tensor> globalHook(Tensor x) {
        x.registerHook(PyTorchPorts4Programs::globalHook0);
        return List.of(x, x.mul(x));
    }

    // test_tensor_register_multiple_hooks
    static List<Tensor> multipleHooks(Tensor x) {
        x.registerHook(PyTorchPorts4Programs::globalHook0);
        x.registerHook(PyTorchPorts4Programs::globalHook1);
        x.registerHook(PyTorchPorts4Programs::globalHook2);
        return List.of(x, x.mul(x));
    }

    // test_tensor_register_multiple_hooks_handles_in_list
    static List<Object> multipleHooksHandles(Tensor x) {
        Autograd.HookHandle h0 = x.registerHook(PyTorchPorts4Programs::globalHook0);
        Autograd.HookHandle h1 = x.registerHook(PyTorchPorts4Programs::globalHook1);
        Autograd.HookHandle h2 = x.registerHook(PyTorchPorts4Programs::globalHook2);
        return List.of(x, x.mul(x), h0, h1, h2);
    }

    static Autograd.HookHandle globalHandle;

    // test_tensor_register_global_hooks_handles_in_list: the handle in a static field
    static List<Tensor> globalHandleField(Tensor x) {
        globalHandle = x.registerHook(PyTorchPorts4Programs::globalHook0);
        return List.of(x, x.mul(x));
    }

    // test_hook_on_intermediate
    static Tensor hookOnIntermediate(Tensor x) {
        Tensor y = x.mul(2);
        y.registerHook(grad -> grad.add(1));
        return y.sum();
    }

    static final List<Tensor> GLB_LIST = new ArrayList<>();
    static final Map<String, Tensor> GLB_DICT = new LinkedHashMap<>();

    // test_hook_on_intermediate_with_container
    static Tensor hookOnIntermediateWithContainer(Tensor x) {
        Tensor y = x.mul(2);
        GLB_LIST.add(y);
        GLB_DICT.put("tensor", y);
        Tensor a = GLB_LIST.get(0).mul(3);
        Tensor b = GLB_DICT.get("tensor");
        y.registerHook(grad -> grad.add(1));
        return a.add(b).sum();
    }

    // test_hook_on_intermediate_used_before_and_after, test_hook_has_side_effect
    static Tensor hookUsedBeforeAndAfter(Tensor x) {
        Tensor y = x.mul(2);
        Tensor z = y.add(1);
        y.registerHook(g -> g.mul(2));
        Tensor w = y.mul(3);
        return z.add(w).sum();
    }

    // test_hook_on_intermediate_with_higher_order_op
    static Tensor hookWithCond(Tensor x) {
        Tensor y = x.mul(2);
        y.registerHook(g -> g.mul(2));
        Tensor z = dev.ember.Cond.cond(x.sum().gt(0.0), ops -> ops.get(0).add(1), ops -> ops.get(0).sub(1), List.of(y));
        return z.sum();
    }

    // test_hook_on_intermediate_returns_none
    static Tensor hookReturnsNull(Tensor x) {
        Tensor y = x.mul(2);
        y.registerHook(g -> null);
        return y.sum();
    }

    // test_intermediary_hooks
    static Tensor intermediaryHooks(Tensor x) {
        Tensor y = x.add(1);
        y.registerHook(PyTorchPorts4Programs::simpleHook);
        return y.add(1);
    }

    static Tensor simpleHook(Tensor g) { return g.mul(2); }

    static Tensor myHook(Tensor grad, int k) { return grad.add(k); }

    // test_intermediary_hooks_same_on_aot_eager, _on_inductor: functools.partial(my_hook, k=3) as a lambda
    static List<Tensor> intermediaryPartialHooks(Tensor x) {
        Tensor y = x.mul(2);
        UnaryOperator<Tensor> hook1 = g -> myHook(g, 3);
        UnaryOperator<Tensor> hook2 = g -> myHook(g, 4);
        y.registerHook(hook1);
        y.registerHook(hook2);
        Tensor z = y.mul(3);
        return List.of(z);
    }

    // test_input_hooks_same
    static List<Tensor> inputHooksSame(Tensor x) {
        x.registerHook(g -> myHook(g, 3));
        Tensor y = x.mul(2);
        Tensor z = y.mul(3);
        return List.of(z);
    }

    /** SomePyClass of test_complex_state_mutation_in_intermediary_hooks_same_on_inductor. */
    static final class StateCounter {
        int count;

        Tensor doStuff(Tensor grad) {
            Tensor r = count % 2 == 0 ? grad.mul(grad) : grad.add(grad);
            count += 1;
            return r;
        }
    }

    // test_complex_state_mutation_in_intermediary_hooks_same_on_inductor
    static List<Tensor> stateMutatingHooks(Tensor x, StateCounter obj) {
        Tensor y = x.mul(2);
        y.registerHook(obj::doStuff);
        y.registerHook(g -> obj.doStuff(g));
        Tensor z = y.mul(3);
        return List.of(z);
    }

    /** ClassWithVal. */
    record WithVal(Tensor val) {}

    // test_register_hook_partial_guarding
    static List<Tensor> partialGuarding(Tensor x, WithVal obj) {
        Tensor y = x.mul(2);
        y.registerHook(g -> g.add(obj.val()));
        Tensor z = y.mul(3);
        return List.of(z);
    }

    // test_hook_with_closure
    static Tensor hookWithClosure(Tensor x, WithVal obj) {
        Tensor y = x.sin();
        x.registerHook(grad -> grad.add(obj.val()));
        return y.sin();
    }

    // test_hook_with_nested_closure
    static Tensor hookWithNestedClosure(Tensor x) {
        java.util.function.Supplier<Tensor> run = () -> {
            Tensor y = x.sin();
            x.registerHook(grad -> grad.add(y));
            return y.sin();
        };
        return run.get();
    }

    // test_intermediate_hook_with_closure_eager, _aot
    static Tensor intermediateHookWithClosure(Tensor x, WithVal obj) {
        Tensor y = x.sin();
        y.registerHook(grad -> grad.add(obj.val()));
        return y.sin();
    }

    static UnaryOperator<Tensor> hookField = g -> g.mul(1);

    // test_functools_arg_vary: the hook a static field holds changes between calls
    static Tensor hookFromField(Tensor x) {
        Tensor y = x.mul(2);
        y.registerHook(hookField);
        return y.mul(3);
    }

    /** Mod of test_nnmodule_hook_guards. */
    static final class LinearMod extends Module {
        final Linear linear = new Linear(16, 16);

        @Override
        public Tensor forward(Tensor x) { return linear.forward(x); }
    }

    static final LinearMod HOOKED = new LinearMod();

    // test_nnmodule_hook_guards: fn calls the module as mod(x) (call runs its hooks)
    static Tensor callHookedModule(Tensor x) { return HOOKED.call(x); }

    // ---- test_decorators.py ----

    @Disable
    static Tensor disallowedSub(Tensor x) { return x.sub(1); }

    // test_disallow_in_graph: torch.sub disallowed, a break around it
    static Tensor disallowInGraph(Tensor a) {
        Tensor x = a.add(1);
        x = disallowedSub(x);
        x = x.add(1);
        return x;
    }

    // test_graph_break
    static Tensor graphBreak(Tensor x) {
        x = x.cos();
        Ember.graphBreak();
        return x.sin();
    }

    static Tensor myCustomFunction(Tensor x) { return x.add(1); }

    // test_allow_in_graph
    static Tensor allowInGraph(Tensor a) {
        Tensor x = a.add(1);
        x = myCustomFunction(x);
        x = x.add(1);
        return x;
    }

    @Disable
    static Tensor disabledInner(Tensor x) { return x.mul(2); }

    // test_disable_for_custom_op~ / test_nested_disable_decorator: a disabled call between two graphs, twice
    static Tensor disabledTwice(Tensor x) {
        Tensor a = x.sin();
        Tensor b = disabledInner(a);
        Tensor c = b.cos();
        Tensor d = disabledInner(c);
        return d.add(a);
    }

    /** A module whose forward is disabled (test_disable_nn_module~). */
    static final class DisabledForward extends Module {
        @Override
        @Disable
        public Tensor forward(Tensor x) { return x.mul(3); }
    }

    static final DisabledForward DISABLED_MOD = new DisabledForward();

    // test_disable_nn_module_with_class_decorator~: calling a module whose forward is disabled
    static Tensor callDisabledModule(Tensor x) { return DISABLED_MOD.forward(x.add(1)).sub(1); }

    // test_graph_break_in_loop~: graph_break in a helper called in a loop
    static Tensor graphBreakInHelper(Tensor x) {
        for (int i = 0; i < 3; i++) x = breakingHelper(x);
        return x;
    }

    static Tensor breakingHelper(Tensor x) {
        x = x.add(1);
        Ember.graphBreak();
        return x.mul(2);
    }

    // test_disable_region~: Ember.disabled() as a region inside the function
    static Tensor disabledRegion(Tensor x) {
        Tensor y = x.sin();
        try (var s = Ember.disabled()) {
            y = y.add(1);
        }
        return y.cos();
    }

    // ---- test_global.py ----

    static int gCounter = 1;
    static Tensor gTensor = null;
    static final Map<String, Integer> G_DICT = new LinkedHashMap<>();
    static final List<Tensor> G_LIST = new ArrayList<>();

    // test_global.py::test_store_global_1
    static Tensor storeGlobal1(Tensor x) {
        Tensor val = x.add(gCounter);
        gCounter += 1;
        return val;
    }

    // test_global.py::test_store_global_2: the write after a break
    static Tensor storeGlobal2(Tensor x) {
        Tensor val = x.add(gCounter);
        gCounter += 1;
        Ember.graphBreak();
        gCounter += 1;
        return val.add(gCounter);
    }

    // test_global.py::test_store_global_tensor
    static Tensor storeGlobalTensor(Tensor x) {
        gTensor = x.mul(2);
        return gTensor.add(gCounter);
    }

    // test_global.py::test_store_global_dict / list
    static Tensor storeGlobalContainers(Tensor x) {
        G_DICT.merge("calls", 1, Integer::sum);
        G_LIST.add(x.sin());
        return x.add(G_DICT.get("calls")).add(G_LIST.size());
    }

    // test_global.py::test_store_global_inline_1: the write in an inlined helper
    static Tensor storeGlobalInline(Tensor x) {
        Tensor a = x.add(gCounter);
        bumpCounter();
        return a.add(gCounter);
    }

    static void bumpCounter() { gCounter = gCounter * 2 + 1; }

    static double gFloat = 0.5;

    // test_global.py::test_read_global_float~: a static double read and written
    static Tensor globalDouble(Tensor x) {
        gFloat = gFloat * 1.5;
        return x.mul(gFloat);
    }

    // ---- test_model_output.py ----

    /** A ModelOutput as a record: fields read by name. */
    record ModelOut(Tensor lastHiddenState, Tensor pooler) {}

    // test_mo_getattr~: a record output built and its fields read
    static Tensor modelOutputGetattr(Tensor x) {
        ModelOut o = new ModelOut(x.mul(2), x.sum(1));
        return o.lastHiddenState().add(o.pooler().unsqueeze(1));
    }

    // test_mo_init / test_mo_reorder~: a record returned
    static ModelOut modelOutputReturned(Tensor x) { return new ModelOut(x.relu(), x.mean(0)); }

    // test_mo_getitem~: a ModelOutput indexed by name, as a LinkedHashMap; absent entries skipped
    static Tensor modelOutputMap(Tensor x) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        out.put("last_hidden_state", x.sin());
        Tensor maybe = null;
        if (maybe != null) out.put("attentions", maybe);
        out.put("pooler_output", x.cos());
        Tensor acc = x.mul(0);
        for (Tensor t : out.values()) acc = acc.add(t);
        return acc.add(out.size());
    }

    // test_mo_setattr~: a record replaced with a changed copy
    static ModelOut modelOutputWith(Tensor x) {
        ModelOut o = new ModelOut(x, x.sum(0));
        o = new ModelOut(o.lastHiddenState().add(1), o.pooler());
        return o;
    }

    // test_mo_to_tuple~: values as a list, index 0
    static List<Tensor> modelOutputToList(Tensor x) {
        ModelOut o = new ModelOut(x.exp(), x.neg());
        return List.of(o.lastHiddenState(), o.pooler());
    }

    // ---- test_view.py ----

    // test_view.py::test_view_to_2d~: view, add, view back
    static Tensor viewRoundTrip(Tensor x) {
        Tensor v = x.view(-1, 4);
        v = v.add(1);
        return v.view(x.shape());
    }

    // test_view.py::test_view_with_tensor_shape_params~: view by a shape read from another tensor
    static Tensor viewByShape(Tensor x, Tensor shapeOf) {
        return x.view(shapeOf.size(0), -1).mul(2);
    }

    // test_view.py~: writing through a view changes the base
    static Tensor viewMutation(Tensor x) {
        Tensor b = x.clone();
        Tensor v = b.view(-1);
        v.mul_(2);
        return b.add(v.view(b.shape()));
    }

    // ---- test_list.py ----

    // test_list.py::test_list_extend~ (addAll of a list argument, a new list)
    static Tensor listExtend(Tensor x, List<Tensor> more) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.sin()));
        l.addAll(more);
        Tensor acc = x.mul(0);
        for (Tensor t : l) acc = acc.add(t);
        return acc;
    }

    // test_list.py::test_list_insert_pop~
    static Tensor listInsertPop(Tensor x) {
        List<Tensor> l = new ArrayList<>();
        l.add(x.cos());
        l.add(0, x.sin());
        l.add(1, x.exp());
        Tensor last = l.remove(l.size() - 1);
        return l.get(0).add(l.get(1)).mul(last);
    }

    // test_list.py::test_list_remove_value~: remove(Object) by identity of a tensor
    static Tensor listRemoveObject(Tensor x) {
        Tensor a = x.add(1), b = x.add(2);
        List<Tensor> l = new ArrayList<>(List.of(a, b, a));
        l.remove(a);
        return l.get(0).mul(l.get(1)).add(l.size());
    }

    // test_list.py::test_list_index_count~: indexOf, lastIndexOf, frequency of ints
    static Tensor listIndexCount(Tensor x) {
        List<Integer> l = List.of(3, 1, 4, 1, 5);
        return x.mul(l.indexOf(1)).add(l.lastIndexOf(1)).add(java.util.Collections.frequency(l, 1));
    }

    // test_list.py::test_list_mul~: nCopies and a list grown by repeat
    static Tensor listRepeat(Tensor x) {
        List<Tensor> l = new ArrayList<>(java.util.Collections.nCopies(3, x));
        l.addAll(List.copyOf(l));
        Tensor acc = x;
        for (int i = 1; i < l.size(); i++) acc = acc.add(l.get(i).mul(i));
        return acc;
    }

    // test_list.py::test_list_clear_setitem~
    static Tensor listClearSet(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.neg()));
        l.set(1, x.abs());
        Tensor kept = l.get(1);
        l.clear();
        l.add(kept.mul(2));
        return l.get(0).add(l.size());
    }

    // test_list.py::test_list_of_lists~
    static Tensor listOfLists(Tensor x) {
        List<List<Tensor>> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<Tensor> row = new ArrayList<>();
            for (int j = 0; j <= i; j++) row.add(x.mul(i + j));
            rows.add(row);
        }
        Tensor acc = x.mul(0);
        for (List<Tensor> row : rows) acc = acc.add(row.get(row.size() - 1));
        return acc.add(rows.get(2).size());
    }

    // test_list.py::test_list_sort_key~: ints sorted by a comparator, then used
    static Tensor listSortKey(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(5, -3, 2, -1));
        l.sort(java.util.Comparator.comparingInt(Math::abs));
        return x.mul(l.get(0)).add(l.get(3));
    }

    // test_list.py::test_list_contains~: contains of ints and of a tensor (identity)
    static Tensor listContains(Tensor x, Tensor y) {
        List<Tensor> l = List.of(x);
        List<Integer> n = List.of(1, 2, 3);
        Tensor out = l.contains(x) ? x.add(1) : x.sub(1);
        out = l.contains(y) ? out.mul(2) : out.mul(3);
        return n.contains(2) ? out.add(y) : out;
    }

    // test_list.py::test_list_argument_mutated~: a list argument appended to and set, seen by the caller afterwards
    static Tensor listArgumentMutated(List<Tensor> l, Tensor x) {
        l.add(x.mul(2));
        l.set(0, l.get(0).add(1));
        return l.get(l.size() - 1);
    }

    // test_list.py::test_list_slice_copy~: a copy of a slice of an immutable list (traced as a copy)
    static Tensor immutableSubList(Tensor x) {
        List<Tensor> l = List.of(x, x.add(1), x.add(2), x.add(3));
        Tensor acc = x.mul(0);
        for (Tensor t : l.subList(1, 3)) acc = acc.add(t);
        for (Tensor t : l.reversed()) acc = acc.mul(t);
        return acc;
    }

    // test_list.py::test_list_iter_index~: a ListIterator walked backwards
    static Tensor listIteratorBackwards(Tensor x) {
        List<Tensor> l = List.of(x, x.sin(), x.cos());
        java.util.ListIterator<Tensor> it = l.listIterator(l.size());
        Tensor acc = x.mul(0);
        while (it.hasPrevious()) acc = acc.mul(2).add(it.previous()).add(it.nextIndex());
        return acc;
    }

    // test_list.py::test_list_comparison~: equality of int lists decides a branch
    static Tensor listCompare(Tensor x, List<Integer> shape) {
        return shape.equals(List.of(2, 3)) ? x.reshape(2, 3) : x.reshape(3, 2).t();
    }

    // test_list.py::test_list_of_shapes~: a list of sizes built from a tensor and unpacked
    static Tensor listOfSizes(Tensor x) {
        List<Integer> dims = new ArrayList<>();
        for (int d = 0; d < x.dim(); d++) dims.add(x.size(d));
        java.util.Collections.reverse(dims);
        return x.reshape(dims.get(0), dims.get(1)).add(dims.size());
    }

    // test_list.py::test_list_error~: an index out of range is Java's IndexOutOfBoundsException, compiled too
    static Tensor listOutOfRange(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x));
        return l.get(2).add(1);
    }

    // ---- the list views that still break (docs/corpus.md) ----

    // a subList view of an ArrayList, written through
    static Tensor arrayListSubListView(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1), x.add(2)));
        List<Tensor> tail = l.subList(1, 3);
        tail.set(0, x.mul(10));
        return l.get(1).add(tail.size());
    }

    // ---- test_skip_non_tensor.py ----

    // test_add_tensor1~: no tensor at all: nothing to compile
    static Integer noTensor(Integer n) { return n + 1; }

    // test_add_tensor_list~: a list of ints only
    static Integer intListOnly(List<Integer> l) {
        int s = 0;
        for (int v : l) s += v;
        return s;
    }

    // test_do_not_skip_side_effects~: no tensor op, but a static field written
    static int sideCounter;

    static Integer sideEffectNoTensor(Integer n) {
        sideCounter += n;
        return sideCounter;
    }

    // ---- test_recompile_ux.py ----

    // test_cache_limit~: a new rank each call
    static Tensor rankChange(Tensor x) { return x.sin().add(1); }

    // test_nvfuser_guards~ / test_recompile_message~: a dtype change recompiles with a message naming the guard
    static Tensor dtypeChange(Tensor x) { return x.mul(2); }
}
