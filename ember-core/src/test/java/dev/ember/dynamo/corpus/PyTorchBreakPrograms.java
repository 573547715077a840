package dev.ember.dynamo.corpus;

import dev.ember.Cond;
import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.dynamo.Disable;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * Ports of programs in PyTorch's test/dynamo test_subgraphs.py (graph breaks and resumes),
 * test_misc.py, test_repros.py, test_recompiles.py and test_higher_order_ops.py. Python's
 * {@code torch._dynamo.testing.unsupported} (a {@code @torch._dynamo.disable} function) is
 * {@link #unsupported}, marked {@link Disable}; {@code print} is {@code System.out.println};
 * {@code if tensor:} is {@link Tensor#asBoolean()}; {@code torch.cond} is {@link Cond#cond}.
 */
final class PyTorchBreakPrograms {
    private PyTorchBreakPrograms() {}

    @Disable
    static Tensor unsupported(Tensor a, Tensor b) { return a.add(b); }

    static Tensor indirectlyUnsupported(Tensor a, Tensor b) {
        Tensor c = a.add(b);
        return unsupported(a, c);
    }

    static final ReLU GLOBALMOD = new ReLU();

    // ------------------------------------------------------------------ test_subgraphs.py

    // test_subgraphs.py::test_control_flow1
    static Tensor controlFlow1(Tensor a, Tensor b) {
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        if (c1.sum().gt(c2.sum()).asBoolean()) return c1;
        return c2;
    }

    // test_subgraphs.py::test_control_flow2
    static Integer controlFlow2(Tensor a, Tensor b) {
        if (a.sum().gt(b.sum()).asBoolean()) return 1;
        return 2;
    }

    // test_subgraphs.py::test_control_flow3
    static Tensor controlFlow3(Tensor a, Tensor b) {
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        Module m = GLOBALMOD;
        if (c1.sum().gt(c2.sum()).asBoolean()) return m.forward(c1);
        return m.forward(c2);
    }

    // test_subgraphs.py::test_control_flow4 (Python's `and` returns its first falsy operand)
    static Integer controlFlow4(Tensor a, Tensor b) {
        Tensor first = a.sum().gt(b.sum());
        Tensor tmp1 = first.asBoolean() ? a.sum().gt(0.0) : first;
        if (tmp1.asBoolean()) return 1;
        return 2;
    }

    // test_subgraphs.py::test_capi_call1
    static Tensor capiCall1(Tensor a, Tensor b) {
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        return unsupported(c1, c2);
    }

    // test_subgraphs.py::test_capi_call2
    static Tensor capiCall2(Tensor a, Tensor b) {
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        return a.sub(b.sub(unsupported(c1, c2)));
    }

    // test_subgraphs.py::test_indirect_unsupported1
    static Tensor indirectUnsupported1(Tensor a, Tensor b) {
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        return indirectlyUnsupported(c1, c2);
    }

    // test_subgraphs.py::test_indirect_unsupported3
    static Tensor indirectUnsupported3(Tensor a, Tensor b) {
        List<Tensor> args = List.of(a.sub(b), b.sub(a));
        return indirectlyUnsupported(args.get(0), args.get(1));
    }

    // test_subgraphs.py::test_stack_state1
    static Tensor stackState1(Tensor a, Tensor b) {
        Tensor t1 = a.mul(1.23);
        Tensor t2 = a.mul(4.56);
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        return t1.div(t2.sub(unsupported(c1, c2)));
    }

    // test_subgraphs.py::test_stack_state2
    static Tensor stackState2(Tensor a, Tensor b) {
        Tensor t1 = a.mul(1.23);
        Tensor t2 = a.mul(4.56);
        Tensor c1 = a.sub(b);
        Tensor c2 = b.sub(a);
        return t1.div(t2.sub(indirectlyUnsupported(c1, c2)));
    }

    // test_subgraphs.py::test_multigraph
    static Tensor multigraph(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        x = x.div(2.0);
        if (x.sum().lt(0.0).asBoolean()) return x.mul(-1.0);
        return x;
    }

    // test_subgraphs.py::test_resume1
    static Tensor resume1(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        x = x.div(2.0);
        x = x.add(2.0);
        x = unsupported(x, a);
        x = x.add(2.0);
        x = x.add(2.0);
        x = x.add(2.0);
        return x;
    }

    // test_subgraphs.py::test_resume2
    static Tensor resume2(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        x = x.div(2.0);
        x = x.add(2.0);
        x = indirectlyUnsupported(x, a);
        x = x.add(2.0);
        x = x.add(2.0);
        x = x.add(2.0);
        return x;
    }

    // test_subgraphs.py::test_resume5
    static Tensor resume5(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        x = x.div(2.0);
        x = x.add(2.0);
        System.out.println(x);
        x = x.add(2.0);
        x = x.add(2.0);
        x = x.add(2.0);
        return x;
    }

    // test_subgraphs.py::test_start1
    static Tensor start1(Tensor a, Tensor b) {
        System.out.println(a);
        Tensor x = a.add(b);
        x = x.add(2.0);
        x = x.add(2.0);
        return x;
    }

    // test_subgraphs.py::test_start2
    static Tensor start2(Tensor a, Tensor b) {
        Tensor x = indirectlyUnsupported(a, b);
        x = x.add(2.0);
        x = x.add(2.0);
        x = x.add(2.0);
        return x;
    }

    // test_subgraphs.py::test_start3
    static Tensor start3(Tensor a, Tensor b) {
        Tensor x = unsupported(a, b);
        x = x.add(2.0);
        x = x.add(2.0);
        x = x.add(2.0);
        return x;
    }

    // test_subgraphs.py::test_start4
    static Tensor start4(Tensor a, Tensor b, Tensor check) {
        if (check.asBoolean()) return a.add(b).add(10);
        return a.add(b).sub(10);
    }

    // test_subgraphs.py::test_resume_freevars (c1, c2 are the closure's free variables)
    static Fn2<Tensor, Tensor, Tensor> resumeFreevars(Tensor c1, Tensor c2) {
        return (a, b) -> {
            Tensor x = a.add(b).add(c1.sub(c2));
            x = unsupported(x, x);
            return x.add(c1.sub(c2));
        };
    }

    // test_subgraphs.py::test_restore_state
    static Tensor restoreState(Tensor a, Tensor b) {
        ToIntFunction<Tensor> len = t -> t.size(0);
        Tensor x = a.add(b);
        x = unsupported(x, x).add(1);
        return a.mul(x).add(len.applyAsInt(b));
    }

    // test_subgraphs.py::test_restore_range
    static Tensor restoreRange(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        x = unsupported(x, x);
        for (int i = 3; i < 8; i += 2) x = x.add(i);
        return x;
    }

    // test_subgraphs.py::test_pop_after_resume (x += t is in place on a tensor)
    static Tensor popAfterResume(Tensor a, Tensor b) {
        List<Tensor> tmp = new ArrayList<>(List.of(a.add(1), b.add(2), a.add(b)));
        Tensor x = a;
        x = unsupported(x, x);
        for (int i = 0; i < 3; i++) x.add_(tmp.removeLast());
        return x;
    }

    // test_subgraphs.py::test_graph_break_on_item
    static Tensor graphBreakOnItem(Tensor a, Tensor b) {
        Tensor x = a.add(b).sub(1.5);
        x = x.sum();
        x.item();
        x = x.div(a.add(b));
        return x;
    }

    // test_subgraphs.py::test_resume_paths_join
    static Tensor resumePathsJoin(Tensor x, Tensor c1, Tensor c2, Tensor c3) {
        x = x.add(1);
        if (c1.asBoolean()) x = x.add(2);
        x = x.add(3);
        if (c2.asBoolean()) x = x.add(4);
        x = x.add(5);
        if (c3.asBoolean()) x = x.add(6);
        return x.add(7);
    }

    // test_subgraphs.py::- (test_resume_paths_join with the second if inside the first)
    static Tensor nestedPathsJoin(Tensor x, Tensor c1, Tensor c2) {
        x = x.add(1);
        if (c1.asBoolean()) {
            x = x.mul(2);
            if (c2.asBoolean()) x = x.add(3);
            x = x.sub(1);
        }
        return x.add(5);
    }

    // test_recompiles.py::- (arguments the frame never reads: test_no_recompile_over_unused_objects with tensors)
    static Tensor unreadArguments(Tensor x, Tensor a, Tensor b) {
        return x.add(1);
    }

    // test_subgraphs.py::test_resume_with_no_grad1
    static Tensor resumeWithNoGrad1(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        try (var noGrad = Ember.noGrad()) {
            x = x.add(1);
            x.sum().toFloatArray(); // graph break
            x = x.add(2);
        }
        x = x.add(3);
        return x;
    }

    // test_subgraphs.py::test_resume_with_no_grad2
    static Tensor resumeWithNoGrad2(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        try (var noGrad = Ember.noGrad()) {
            x = x.add(1);
            x.sum().toFloatArray(); // graph break
            x = x.add(2);
            x.sum().toFloatArray(); // graph break
            x = x.add(3);
        }
        x = x.add(4);
        return x;
    }

    // ------------------------------------------------------------------ test_misc.py

    // test_misc.py::test_boolarg (None: null)
    static Tensor boolarg(Tensor aa, Tensor bb, Boolean flag) {
        if (Boolean.TRUE.equals(flag)) return aa.sub(bb);
        return bb.sub(aa);
    }

    // test_misc.py::test_callpacked (a list, then a tuple: List.of, then Arrays.asList)
    static Tensor callPacked(List<Tensor> args) {
        Tensor a = args.get(0), b = args.get(1), c = args.get(2);
        return a.sub(b.mul(c));
    }

    // test_misc.py::test_inplace
    static Tensor inplace(Tensor a, Tensor b) {
        Tensor o = Tensor.empty(10, 10);
        o.copy_(a);
        o.sub_(b);
        return o;
    }

    // test_misc.py::test_unpack4 (adapted: an older version, torch.add(a, b, out=o))
    static Tensor unpack4(Tensor a, Tensor b) {
        a = a.slice(0, 0, 5, 1);
        b = b.slice(0, 0, 5, 1);
        int[] xy = a.shape();
        Tensor o = Tensor.empty(xy[0], xy[1]);
        a.addOut(b, o);
        return o;
    }

    // test_misc.py::test_matmul1
    static Tensor matmul1(Tensor a, Tensor b) { return a.matmul(b); }

    // test_misc.py::test_numel
    static List<Tensor> numel(Tensor a) { return List.of(a.add(a.numel()).add(a.numel()), a.add(a.numel())); }

    // test_misc.py::test_int_shape_binops
    static Tensor intShapeBinops(Tensor x) {
        int y = 15 - x.shape()[0];
        y = 4 + y;
        y = 5 * y;
        y = 2 % y;
        y = (int) Math.pow(3, y);
        y = Math.floorDiv(10, y);
        y = (int) Math.pow(2, y);
        double z = 10.0 / y;
        return x.add(z);
    }

    // test_misc.py::test_shape_int_inplace_binops
    static Tensor intShapeInplaceBinops(Tensor x) {
        double p = x.shape()[0];
        p += 2;
        p -= 2;
        p = Math.pow(p, 2);
        p /= 2;
        p *= 2;
        p = Math.floor(p / 2);
        p %= 2;
        return x.add(p);
    }

    // test_misc.py::test_int_int_comparisons
    static Tensor intIntComparisons(Tensor x) {
        int two = 2, one = 1, out;
        if (two != two) out = 1;
        else if (two < one) out = 1;
        else if (one > two) out = 1;
        else if (one >= two) out = 1;
        else if (two <= one) out = 1;
        else if (two == two) out = 2;
        else out = 1;
        return x.add(out);
    }

    // test_misc.py::test_shape_int_comparisons
    static Tensor shapeIntComparisons(Tensor x) {
        int a = x.shape()[0], out;
        if (a != 10) out = 1;
        else if (a < 2) out = 1;
        else if (a > 12) out = 1;
        else if (a >= 12) out = 1;
        else if (a <= 2) out = 1;
        else if (a == 10) out = 2;
        else out = 1;
        return x.add(out);
    }

    // test_misc.py::test_inplace_desugaring (int += tensor makes a tensor)
    static List<Tensor> inplaceDesugaring(Tensor y) {
        Tensor x0 = y.add(1);
        Tensor x1 = y.rsub(1);
        return List.of(x0, x1);
    }

    // test_misc.py::test_tensor_dict1
    static Tensor tensorDict1(Map<String, Tensor> inputs) { return inputs.get("a").sub(inputs.get("b").mul(1.5)); }

    // test_misc.py::test_tensor_dict2 (adapted)
    static Tensor tensorDict2(Map<String, Tensor> inputs) {
        Tensor total = Tensor.zeros(1);
        for (Map.Entry<String, Tensor> e : inputs.entrySet()) total.add_(e.getValue());
        return total;
    }

    // test_misc.py::test_tensor_dict3 (adapted: the key union sorted)
    static Tensor tensorDict3(Map<String, Tensor> inputsA, Map<String, Tensor> inputsB) {
        Tensor total = Tensor.zeros(1);
        Set<String> inputKeys = new TreeSet<>(inputsA.keySet());
        inputKeys.addAll(inputsB.keySet());
        for (String k : inputKeys) {
            if (inputsA.containsKey(k)) total.add_(inputsA.get(k));
            if (inputsB.containsKey(k)) total.add_(inputsB.get(k));
        }
        return total;
    }

    // test_misc.py::test_rewrite_assert_noop
    static Tensor rewriteAssertNoop(Tensor x) {
        Tensor b = x.sin();
        if (x.dtype() != DType.FLOAT32) throw new AssertionError();
        return x.cos().add(b);
    }

    // test_misc.py::test_rewrite_assert_without_msg
    static Tensor rewriteAssertWithoutMsg(Tensor x) {
        Tensor b = x.sin();
        if (!x.select(0, 0).eq(3).asBoolean()) throw new AssertionError();
        return x.cos().add(b);
    }

    // test_misc.py::test_dictcomp (adapted)
    static Map<String, Tensor> dictcomp(Map<String, Tensor> inputs) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : inputs.entrySet()) out.put(e.getKey(), e.getValue().add(1));
        return out;
    }

    // test_misc.py::test_listcomp (adapted)
    static Tensor listcomp(Tensor x) {
        List<Tensor> parts = new ArrayList<>();
        for (int i = 0; i < 3; i++) parts.add(x.slice(0, i, i + 1, 1).mul(2));
        return Tensor.cat(parts, 0);
    }

    // test_misc.py (written for this corpus): a closure returned by a closure
    static Tensor nestedClosure(Tensor x) {
        IntFunction<Fn1<Tensor, Tensor>> outer = a -> b -> b.mul(a).add(x);
        return outer.apply(2).apply(x).add(outer.apply(3).apply(x));
    }

    static Tensor noGradHelper(Tensor t) {
        try (var noGrad = Ember.noGrad()) {
            return t.sin().mul(2);
        }
    }

    // test_misc.py (written for this corpus): no_grad inside an inlined helper
    static Tensor noGradInHelper(Tensor x) { return noGradHelper(x).add(1); }

    static Tensor breakingHelper(Tensor t) {
        t = t.sin();
        Ember.graphBreak();
        return t.cos();
    }

    // test_misc.py (written for this corpus): a graph break inside an inlined helper
    static Tensor graphBreakInHelper(Tensor x) { return breakingHelper(x).add(x); }

    // test_misc.py (written for this corpus): a list of rows built in a loop, stacked
    static Tensor stackListOfRows(Tensor x) {
        List<Tensor> rows = new ArrayList<>();
        for (int i = 0; i < x.size(0); i++) rows.add(x.select(0, i));
        return Tensor.stack(rows, 1);
    }

    static final class ScaleShift {
        final double scale = 3.0;
        final int shift = 1;
    }

    // test_misc.py (written for this corpus): attributes of a user object made in the frame
    static Tensor userObjectAttr(Tensor x) {
        ScaleShift c = new ScaleShift();
        return x.mul(c.scale).add(c.shift);
    }

    enum Mode { A, B }

    // test_misc.py (written for this corpus): an enum compared in a branch
    static Tensor enumBranch(Tensor x) {
        Mode m = Mode.B;
        if (m == Mode.A) return x.add(1);
        return x.mul(2);
    }

    // test_misc.py::test_cond_nested
    static Tensor condNested(Tensor pred, Tensor pred2, Tensor x) {
        Cond.Branch trueFnNested = ops -> ops.get(0).mul(10);
        Cond.Branch falseFnNested = ops -> ops.get(0).mul(-1);
        Cond.Branch trueFn = ops -> ops.get(1).sin();
        Cond.Branch falseFn = ops -> ops.get(1).add(Cond.cond(ops.get(0), trueFnNested, falseFnNested, List.of(ops.get(1))));
        return Cond.cond(pred, trueFn, falseFn, List.of(pred2, x));
    }

    // ------------------------------------------------------------------ test_repros.py

    static final class DummyConfig {
        final List<String> attnLayers = List.of("local", "lsh");
        final int lshAttnChunkLength = 64;
        final int localAttnChunkLength = 64;
    }

    static int getMinChunkLen(DummyConfig config) {
        List<String> attnTypes = config.attnLayers;
        Set<String> attnTypesSet = Set.copyOf(attnTypes);
        if (attnTypesSet.size() == 1 && attnTypes.get(0).equals("lsh")) return config.lshAttnChunkLength;
        else if (attnTypesSet.size() == 1 && attnTypes.get(0).equals("local")) return config.localAttnChunkLength;
        else if (attnTypesSet.size() == 2 && attnTypesSet.equals(Set.of("lsh", "local"))) return Math.min(config.lshAttnChunkLength, config.localAttnChunkLength);
        throw new UnsupportedOperationException();
    }

    // test_repros.py::test_reformer_min_chunk_len
    static Tensor reformerMinChunkLen(DummyConfig cfg) {
        Tensor t = Tensor.empty(10);
        t.fill_(getMinChunkLen(cfg));
        return t.select(0, 0).add(1);
    }

    static final class SequentialAppendList extends Sequential {
        SequentialAppendList(Module... modules) { super(modules); }

        List<Object> forward(Tensor input, List<Tensor> collectList) {
            for (int i = 0; i < size(); i++) {
                Tensor out = get(i).forward(input);
                collectList.add(out);
            }
            return List.of(input, collectList);
        }
    }

    // test_repros.py::test_rewrite_assert_with_msg
    static Tensor assertWithMsg(Tensor x) {
        Tensor b = x.sin();
        if (!x.select(0, 0).eq(3).asBoolean()) throw new AssertionError("First dim need to be 3");
        return x.cos().add(b);
    }

    static Tensor rec(Tensor t, int n) {
        if (n == 0) return t;
        return rec(t.mul(2), n - 1).add(1);
    }

    // test_repros.py (written for this corpus): a recursive helper unrolled by the trace
    static Tensor recursiveHelper(Tensor x) { return rec(x, 3); }

    // test_repros.py::test_chunk_reformer_ff (adapted: chunks through a small feed-forward)
    static Tensor chunkedFeedForward(Tensor x) {
        List<Tensor> outs = new ArrayList<>();
        for (Tensor c : x.chunk(4, 1)) outs.add(c.mul(2).add(1).relu());
        return Tensor.cat(outs, 1);
    }

    // test_repros.py (written for this corpus): a branch on a bool tensor's sum
    static Tensor tensorBoolGuard(Tensor x) {
        Tensor y = x.to(DType.FLOAT32).sum();
        if (y.gt(0.0).asBoolean()) return y.add(1);
        return y.sub(1);
    }

    // test_repros.py (written for this corpus): two names for one list
    static Tensor listAliasing(Tensor x) {
        List<Tensor> a = new ArrayList<>(List.of(x));
        List<Tensor> b = a;
        b.add(x.add(1));
        return a.get(0).add(a.get(1));
    }

    // test_repros.py (written for this corpus): a dict iterated in insertion order
    static Tensor dictOrderKeys(Map<String, Tensor> d) {
        Tensor out = null;
        for (String k : d.keySet()) out = out == null ? d.get(k) : out.sub(d.get(k));
        return out;
    }

    // test_repros.py (written for this corpus): a branch on a size
    static Tensor sizeBranch(Tensor x) {
        if (x.size(0) == 2) return x.add(1);
        return x.sum(0, false);
    }

    static final class BatchNormAct extends Module {
        final BatchNorm2d bn = new BatchNorm2d(4);
        final ReLU act = new ReLU();

        @Override
        public Tensor forward(Tensor x) { return act.forward(bn.forward(x)); }
    }

    // test_repros.py (written for this corpus): in place on a slice of a copy
    static Tensor inplaceOnSlice(Tensor x) {
        Tensor y = x.clone();
        y.slice(1, 0, 2, 1).mul_(2);
        return y.add(1);
    }

    // ------------------------------------------------------------------ test_recompiles.py

    // test_recompiles.py::test_automatic_dynamic_reduce_recompiles
    static Tensor mulXY(Tensor x, Tensor y) { return x.mul(y); }

    // test_recompiles.py::test_recompiles_true_false_flop
    static Tensor trueFalseFlop(Boolean x, Tensor y) {
        if (x) return y.mul(2);
        return y.mul(y);
    }

    // test_recompiles.py::test_aliasing_guard_failures
    static Tensor aliasing(Tensor a, Tensor b, Tensor c) {
        a.add_(b);
        return c.add(1);
    }

    // test_recompiles.py (written for this corpus): float32 then float64 inputs
    static Tensor dtypeChange(Tensor x) { return x.sin().add(1); }

    // test_recompiles.py (written for this corpus): 1, 2 and 3 dimensional inputs
    static Tensor ndimChange(Tensor x) { return x.mul(2); }

    // test_recompiles.py (written for this corpus): an int argument that changes
    static Tensor intArg(Tensor x, Integer n) { return x.mul(n).add(n); }

    // test_recompiles.py (written for this corpus): an int argument deciding a branch, twelve values
    static Tensor intArgPastLimit(Tensor x, Integer n) {
        if (n % 2 == 0) return x.add(n);
        return x.sub(n);
    }

    static Tensor innerGradFn(Tensor x) { return x.sin().mul(2); }

    // test_recompiles.py (written for this corpus): grad mode set from an argument
    static Tensor gradModeChange(Tensor x, Boolean grad) {
        try (var mode = grad ? Ember.enableGrad() : Ember.noGrad()) {
            return innerGradFn(x);
        }
    }

    // test_recompiles.py (written for this corpus): a transposed (non-contiguous) input
    static Tensor strideChange(Tensor x) { return x.add(1); }

    // test_recompiles.py (written for this corpus): a string argument deciding a branch
    static Tensor stringArg(Tensor x, String mode) {
        if (mode.equals("sin")) return x.sin();
        return x.cos();
    }

    // ------------------------------------------------------------------ test_higher_order_ops.py

    // test_higher_order_ops.py::test_cond_branches_no_arguments (the operand passed, not captured)
    static Tensor condBranches(Tensor x) {
        return Cond.cond(x.sum().gt(0.0), ops -> ops.get(0).sin(), ops -> ops.get(0).cos(), List.of(x));
    }

    // test_higher_order_ops.py::test_cond_subgraph_name_is_valid (adapted)
    static Tensor condThenAdd(Tensor x) {
        Tensor pred = x.sum().gt(0.0);
        Tensor y = x.mul(2);
        return Cond.cond(pred, ops -> ops.get(0).add(1), ops -> ops.get(0).sub(1), List.of(y)).add(1);
    }

    // test_higher_order_ops.py::test_cond_pytree_operands (adapted: two operands)
    static Tensor condTwoOperands(Tensor x) {
        return Cond.cond(x.sum().gt(0.0), ops -> ops.get(0).add(ops.get(1)), ops -> ops.get(0).sub(ops.get(1)), List.of(x, x.mul(3)));
    }

    // test_higher_order_ops.py (written for this corpus): a Python bool predicate inlines one branch
    static Tensor condBoolPred(Tensor x) {
        return Cond.cond(x.shape()[0] > 2, ops -> ops.get(0).sin(), ops -> ops.get(0).cos(), List.of(x));
    }

    // test_higher_order_ops.py (written for this corpus): a cond after a graph break
    static Tensor condAfterBreak(Tensor x) {
        Tensor y = x.add(1);
        Ember.graphBreak();
        return Cond.cond(y.sum().gt(0.0), ops -> ops.get(0).sin(), ops -> ops.get(0).cos(), List.of(y));
    }

    // ------------------------------------------------------------------ more ports

    // test_subgraphs.py::test_resume_tuple_iterator (iter(tuple(range(10))))
    static Tensor resumeTupleIterator(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        Iterator<Integer> it = List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9).iterator();
        x = x.add(it.next());
        x = x.add(it.next());
        x = x.add(it.next());
        x = unsupported(x, x);
        x = x.add(it.next());
        x = x.add(it.next());
        x = x.add(it.next());
        x = x.add(it.next());
        return x;
    }

    // test_subgraphs.py::test_tuple_iterator_return (the rest of the iterator returned as a list)
    static List<Object> tupleIteratorReturn(Tensor x) {
        Iterator<Integer> it = List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9).iterator();
        x = x.add(it.next());
        x = x.add(it.next());
        x = unsupported(x, x);
        x = x.add(it.next());
        x = x.add(it.next());
        x = unsupported(x, x);
        x = x.add(it.next());
        x = x.add(it.next());
        List<Integer> rest = new ArrayList<>();
        while (it.hasNext()) rest.add(it.next());
        return List.of(x, rest);
    }

    // test_subgraphs.py::test_restore_range_iter
    static List<Object> restoreRangeIter(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        Iterator<Integer> rng = List.of(3, 5, 7).iterator();
        x = unsupported(x, x);
        x.add_(rng.next());
        List<Integer> rest = new ArrayList<>();
        while (rng.hasNext()) rest.add(rng.next());
        return List.of(x, rest);
    }

    // test_subgraphs.py::test_enumerate_not_break_graph
    static Tensor enumerateNotBreakGraph(Tensor a, Tensor b) {
        int[] aShape = a.shape();
        for (int i = 0; i < aShape.length; i++) b = b.add(aShape[i]);
        int[] bShape = b.shape();
        for (int j = 0, i = 8; j < bShape.length; j++, i++) b = b.add(bShape[j] * i);
        return b;
    }

    // test_subgraphs.py::test_resume_with_no_grad3
    static Tensor resumeWithNoGrad3(Tensor a, Tensor b) {
        Tensor x = a.add(b);
        try (var outer = Ember.noGrad()) {
            try (var inner = Ember.noGrad()) {
                x = x.add(1);
                try (var grad = Ember.enableGrad()) {
                    x.sum().toFloatArray(); // graph break
                    x = x.select(0, 0).add(2);
                }
                x = x.add(3);
            }
        }
        x = x.add(4);
        return x;
    }

    // test_subgraphs.py::test_dynamic_kwarg
    static Tensor subTimesTen(Tensor a, Tensor b) { return a.sub(b.mul(10)); }

    // test_subgraphs.py::test_dynamic_duck_size
    static Tensor duckSize(Tensor a, Tensor b) {
        if (a.size(0) == b.size(0)) return a.add(b);
        return a.sum().add(b.sum());
    }

    // test_subgraphs.py::test_dynamic_order_dependence
    static Tensor sumOfSums(Tensor a, Tensor b) { return a.sum().add(b.sum()); }

    // test_subgraphs.py::test_dynamic_zero_inference
    static Tensor zeroInference(Tensor a) {
        if (a.size(0) != 0) return a.mul(2);
        return a.add(1);
    }

    // test_recompiles.py::test_automatic_dynamic_tensor_scalar_change (y a tensor or an int)
    static Tensor mulTensorOrInt(Tensor x, Object y) {
        return y instanceof Tensor t ? x.mul(t) : x.mul((Integer) y);
    }

    // test_misc.py::test_unpack5
    static Tensor unpack5(Tensor a, Tensor b) {
        a = a.slice(0, 0, 5, 1);
        b = b.slice(0, 0, 5, 1);
        int x = a.shape()[0], y = a.shape()[1];
        Tensor o = Tensor.empty(x, y);
        o.copy_(a.div(b));
        return o;
    }

    // test_misc.py::test_shape_int_inplace_binops
    static Tensor intShapeInplaceBinopsConstFirst(Tensor x) {
        int p = x.shape()[0];
        int y = 2;
        y += p;
        y = 2;
        y -= p;
        y = 2;
        y = (int) Math.pow(y, p);
        double q = 2;
        q /= p;
        y = 2;
        y *= p;
        y = 2;
        y = Math.floorDiv(y, p);
        y = 2;
        y %= p;
        return x.add(y);
    }

    // test_misc.py::test_int_shape_comparisons (constants on the left)
    static Tensor intShapeComparisons(Tensor x) {
        int a = x.shape()[0], out;
        if (10 != a) out = 1;
        else if (12 < a) out = 1;
        else if (2 > a) out = 1;
        else if (2 >= a) out = 1;
        else if (12 <= a) out = 1;
        else if (10 == a) out = 2;
        else out = 1;
        return x.add(out);
    }

    static long ipow(long base, long exp) {
        long r = 1;
        for (long i = 0; i < exp; i++) r *= base;
        return r;
    }

    // test_misc.py::test_param_shape_binops (Python ints are longs here: 15**15 fits)
    static final class ParamShapeModule extends Module {
        Parameter param = new Parameter(Tensor.randn(15));

        @Override
        public Tensor forward(Tensor x) {
            long p = param.shape()[0];
            long y = p - x.shape()[0];
            y = p + y;
            y = p * y;
            y = p % y;
            y = ipow(p, y);
            y = Math.floorDiv(p, y);
            y = ipow(p, y);
            double z = (double) p / y;
            return x.add(z);
        }
    }

    // test_misc.py::test_raises
    static Tensor raises(Tensor a, Tensor b, Tensor c, Function<String, AssertionError> cls) {
        Tensor x = a.add(b).sub(c.mul(10));
        throw cls.apply(x.toString());
    }

    // test_misc.py::test_closure_recompiles (closure_adder over an int, then over a tensor)
    static Fn1<Tensor, Tensor> closureAdder(int val) { return x -> x.add(val).sin(); }

    static Fn1<Tensor, Tensor> closureAdder(Tensor val) { return x -> x.add(val).sin(); }

    static Tensor callOther(Tensor x, Fn1<Tensor, Tensor> otherFn) { return otherFn.apply(x.add(1)).sub(1); }

    // ------------------------------------------------------------------ test_functions.py, with breaks

    static Tensor udfMul(Tensor x, Tensor y) { return x.mul(y); }

    /** functools.partial(udf_mul, y=y). */
    static Fn1<Tensor, Tensor> partialUdfMul(Tensor y) { return t -> udfMul(t, y); }

    /** functools.partial(multiply, y=y) over a lambda multiply. */
    static Fn1<Tensor, Tensor> partialMultiply(Tensor y) {
        Fn2<Tensor, Tensor, Tensor> multiply = (a, b) -> a.mul(b);
        return t -> multiply.apply(t, y);
    }

    // test_functions.py::test_partials_recompilation
    static Tensor callTwo(Fn1<Tensor, Tensor> f0, Fn1<Tensor, Tensor> f1, Tensor x) { return f0.apply(x).mul(f1.apply(x)); }

    // test_functions.py::test_no_recompile_inner_function
    static Tensor noRecompileInnerFunction(Tensor inp) {
        Fn1<Tensor, Tensor> g = y -> inp.add(y);
        System.out.println("graph break");
        return g.apply(Tensor.rand(1));
    }

    /** A closure cell: Java lambdas capture values, so a variable the closure sees change lives in a holder. */
    static final class Cell<T> {
        T value;

        Cell(T value) { this.value = value; }
    }

    // test_functions.py::test_non_inlined_closure
    static Tensor nonInlinedClosure(Tensor x, Tensor y) {
        Cell<Fn2<Tensor, Tensor, Tensor>> one = new Cell<>((a, b) -> a.add(b));
        Fn0<Tensor> inner = () -> {
            Ember.graphBreak();
            return one.value.apply(x, y);
        };
        Tensor res = inner.apply();
        one.value = (a, b) -> a.sub(b);
        res.add_(inner.apply());
        return res;
    }

    // ------------------------------------------------------------------ state across breaks (written for this corpus)

    // test_misc.py (written for this corpus): the caller's list appended to before and after a break
    static Tensor inputListMutatedAcrossBreak(List<Tensor> xs, Tensor x) {
        xs.add(x.add(1));
        System.out.println("break");
        xs.add(x.mul(2));
        return xs.getFirst().add(xs.getLast());
    }

    // test_misc.py (written for this corpus): a view of the input changed in place, then a break
    static Tensor inplaceViewAcrossBreak(Tensor x) {
        Tensor v = x.select(0, 0);
        v.add_(1);
        System.out.println("break");
        return x.mul(2);
    }

    // test_misc.py (written for this corpus): the caller's map written on both sides of a break
    static Tensor dictMutatedAcrossBreak(Map<String, Tensor> d, Tensor x) {
        d.put("a", x.add(1));
        System.out.println("break");
        d.put("b", d.get("a").mul(2));
        return d.get("b").sum().add(d.get("z"));
    }

    // test_misc.py (written for this corpus): a closure's counter (nonlocal: a cell) bumped on both sides of a break
    static Tensor nonlocalCounterAcrossBreak(Tensor x) {
        int[] count = {0};
        Fn1<Tensor, Tensor> bump = t -> {
            count[0] += 1;
            return t.mul(count[0]);
        };
        Tensor y = bump.apply(x);
        System.out.println("break");
        y = y.add(bump.apply(x));
        return y;
    }

    // test_misc.py (written for this corpus): a break in a loop that accumulates into a list
    static Tensor breakInLoopAccumulates(Tensor x) {
        List<Tensor> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(x.mul(i));
            System.out.println(i);
        }
        return Tensor.stack(out, 0);
    }

    // test_misc.py (written for this corpus): a break inside try, with a finally
    static List<Object> tryFinallyAcrossBreak(Tensor x) {
        List<String> log = new ArrayList<>();
        Tensor y;
        try {
            y = x.add(1);
            System.out.println("break");
            y = y.mul(2);
        } finally {
            log.add("done");
        }
        return List.of(y, log.size());
    }

    // test_repros.py (written for this corpus): the input scaled in place, then a branch on its data
    static Tensor inplaceInputThenBranch(Tensor x) {
        x.mul_(2);
        if (x.sum().gt(0.0).asBoolean()) return x.add(1);
        return x.sub(1);
    }

    // test_repros.py (written for this corpus): b is a view of a; a changed in place shows through b
    static Tensor inplaceOnAliasedInput(Tensor a, Tensor b) {
        a.add_(1);
        return b.mul(2);
    }

    // test_modules.py (written for this corpus): a buffer updated in place, then a break
    static final class BufferAcrossBreak extends Module {
        Tensor total = Tensor.zeros(10);

        @Override
        public Tensor forward(Tensor x) {
            total.add_(x.sum(0, false));
            System.out.println("break");
            return x.mul(total);
        }
    }
}
