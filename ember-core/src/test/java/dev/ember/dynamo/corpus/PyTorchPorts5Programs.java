package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.nn.F;
import dev.ember.nn.Module;
import dev.ember.optim.Adagrad;
import dev.ember.optim.Optimizer;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A fifth set of programs ported from PyTorch's Dynamo tests: test_python_autograd.py (a tape-based
 * autograd written in the host language: variables with generated names, a static tape of entries
 * holding lambdas, a backward pass over the reversed tape accumulating into a map) and
 * test_input_attr_tracking.py (attributes set on and read from inputs: a tensor has no attribute
 * dictionary in Java, so the attributes live in a holder object's fields). PyTorchPorts5Test runs them
 * eagerly and compiled.
 *
 * <p>Skipped, with no Java meaning: test_input_attr_tracking.py's {@code x.data = y} tests (Ember's
 * tensors have no settable {@code .data}) and its functorch/vmap variants; test_backward_higher_order_ops.py
 * (compiled autograd of {@code register_hook} HOPs, Ember's backward is not traced by Dynamo);
 * test_base_output.py ({@code diffusers}' BaseOutput, a Python dataclass/OrderedDict hybrid: the
 * record and map cases are PyTorchPorts4Programs' ModelOutput ports); test_optimizers.py (patching of
 * {@code torch.optim} step functions).
 */
final class PyTorchPorts5Programs {
    private PyTorchPorts5Programs() {}

    // ---- test_python_autograd.py ----

    static int nameCounter = 0;

    static final List<TapeEntry> TAPE = new ArrayList<>();

    /** v0, v1, v2…: a new unique variable name. */
    static String freshName() {
        String r = "v" + nameCounter;
        nameCounter++;
        return r;
    }

    static void resetTape() {
        TAPE.clear();
        nameCounter = 0;
    }

    /** A value with a name, whose operations are recorded on the tape. */
    static final class Variable {
        Tensor value;
        final String name;

        Variable(Tensor value, String name) {
            this.value = value;
            this.name = name != null ? name : freshName();
        }

        Variable(Tensor value) { this(value, null); }

        static Variable constant(Tensor value, String name) { return new Variable(value, name); }

        /** Pointwise product; a Double rhs of 1.0 is the peephole (the variable itself). */
        Variable mul(Object rhs) {
            if (rhs instanceof Double d && d == 1.0) return this;
            Variable other = (Variable) rhs;
            Variable r = new Variable(value.mul(other.value));
            Variable self = this;
            TAPE.add(new TapeEntry(List.of(name, other.name), List.of(r.name), dOuts -> {
                Variable dr = dOuts.get(0);
                return List.of(dr.mul(other), dr.mul(self));
            }));
            return r;
        }

        Variable add(Variable rhs) {
            Variable r = new Variable(value.add(rhs.value));
            TAPE.add(new TapeEntry(List.of(name, rhs.name), List.of(r.name), dOuts -> {
                Variable dr = dOuts.get(0);
                Double dSelf = 1.0, dRhs = 1.0;
                return List.of(dr.mul(dSelf), dr.mul(dRhs));
            }));
            return r;
        }

        Variable sum(String name) {
            Variable r = new Variable(value.sum(), name);
            Variable self = this;
            TAPE.add(new TapeEntry(List.of(this.name), List.of(r.name), dOuts -> List.of(dOuts.get(0).expand(self.value.shape()))));
            return r;
        }

        Variable sum() { return sum(null); }

        Variable expand(int... sizes) {
            if (value.dim() != 0) throw new IllegalStateException("only works for scalars");
            Variable r = new Variable(value.expand(sizes));
            TAPE.add(new TapeEntry(List.of(name), List.of(r.name), dOuts -> List.of(dOuts.get(0).sum())));
            return r;
        }
    }

    /** Names of an op's inputs and outputs, and its chain rule. */
    record TapeEntry(List<String> inputs, List<String> outputs, Function<List<Variable>, List<Variable>> propagate) {}

    private static List<Variable> gatherGrad(Map<String, Variable> dLd, List<String> entries) {
        List<Variable> out = new ArrayList<>();
        for (String e : entries) out.add(dLd.get(e));
        return out;
    }

    /** dL/dX of each desired variable (null where the loss does not depend on it). */
    static List<Variable> grad(Variable loss, List<Variable> desired) {
        Map<String, Variable> dLd = new LinkedHashMap<>();
        dLd.put(loss.name, new Variable(Tensor.ones()));
        for (int i = TAPE.size() - 1; i >= 0; i--) {
            TapeEntry entry = TAPE.get(i);
            List<Variable> dOuts = gatherGrad(dLd, entry.outputs());
            boolean allNull = true;
            for (Variable v : dOuts) if (v != null) allNull = false;
            if (allNull) continue;
            List<Variable> dIns = entry.propagate().apply(dOuts);
            for (int k = 0; k < entry.inputs().size(); k++) {
                String input = entry.inputs().get(k);
                Variable d = dIns.get(k);
                if (!dLd.containsKey(input)) dLd.put(input, d);
                else dLd.get(input).value.add_(d.value);
            }
        }
        List<String> names = new ArrayList<>();
        for (Variable v : desired) names.add(v.name);
        return gatherGrad(dLd, names);
    }

    static Variable simple(Variable a, Variable b) {
        Variable t = a.add(b);
        return t.mul(b);
    }

    private static List<Tensor> values(List<Variable> vs) {
        List<Tensor> out = new ArrayList<>();
        for (Variable v : vs) out.add(v == null ? null : v.value);
        return out;
    }

    // test_forwards1
    static Tensor forwards1(Tensor a, Tensor b) {
        Variable va = Variable.constant(a, "a");
        Variable vb = Variable.constant(b, "b");
        Variable loss = simple(va, vb).sum();
        return loss.value;
    }

    // test_forwards2: the tape reset inside the frame
    static Tensor forwards2(Tensor a, Tensor b) {
        resetTape();
        Variable va = Variable.constant(a, "a");
        Variable vb = Variable.constant(b, "b");
        Variable loss = simple(va, vb).sum();
        resetTape();
        return loss.value;
    }

    // test_backwards1
    static List<Tensor> backwards1(Tensor a, Tensor b) {
        Variable va = Variable.constant(a, "a");
        Variable vb = Variable.constant(b, "b");
        Variable loss = simple(va, vb).sum();
        return values(grad(loss, List.of(va, vb)));
    }

    // test_backwards2
    static List<Tensor> backwards2(Tensor a, Tensor b) {
        resetTape();
        Variable va = Variable.constant(a, "a");
        Variable vb = Variable.constant(b, "b");
        Variable loss = simple(va, vb).sum();
        List<Variable> res = grad(loss, List.of(va, vb));
        resetTape();
        return values(res);
    }

    // test_split: forward and grad compiled as two frames over Variable arguments
    static Variable splitForward(Variable a, Variable b) { return simple(a, b).sum(); }

    static List<Variable> splitGrad(Variable loss, List<Variable> desired) { return grad(loss, desired); }
    // ---- test_input_attr_tracking.py: a tensor's attributes as a holder's fields ----

    /** An input carrying a tensor and attributes set on it (Python's {@code x.y = ...}). */
    static final class Attrs {
        Tensor t;
        Object y;
        Tensor z;
        int a;

        Attrs(Tensor t) { this.t = t; }
    }

    // test_tensor_property_on_tensor: y a tensor attribute, lifted to an input
    static Tensor tensorPropertyOnTensor(Attrs x) { return x.t.mul((Tensor) x.y); }

    // test_tensor_property_assigned_on_tensor
    static Tensor tensorPropertyAssignedOnTensor(Attrs x, Tensor y) {
        x.y = y;
        return x.t.mul((Tensor) x.y);
    }

    // test_const_property_on_tensor: y an int attribute, a constant
    static Tensor constPropertyOnTensor(Attrs x) { return x.t.mul((Integer) x.y); }

    // test_const_property_assigned_on_tensor
    static Tensor constPropertyAssignedOnTensor(Attrs x, Integer y) {
        x.y = y;
        return x.t.mul((Integer) x.y);
    }

    // test_guards_correctly_property_assigned_on_tensor_type_change: an int, then a tensor
    static Tensor propertyTypeChange(Attrs x, Object y) {
        x.y = y;
        return x.y instanceof Tensor t ? x.t.mul(t) : x.t.mul((Integer) x.y);
    }

    /** new_y = t.y * new_y where new_y starts as the int 1. */
    private static Object mulAcc(Tensor v, Object acc) { return acc instanceof Tensor a ? v.mul(a) : v.mul((Integer) acc); }

    // test_complex_attr_access_without_graph_breaks: 1 frame, 9 ops
    static List<Object> complexAttrAccess(List<Attrs> x, Tensor y, int z) {
        for (Attrs t : x) {
            t.y = y;
            t.z = y.mul(z);
        }
        Object newY = 1, newZ = 1;
        for (Attrs t : x) {
            newY = mulAcc((Tensor) t.y, newY);
            newZ = mulAcc(t.z, newZ);
        }
        return List.of(newY, newZ);
    }

    // test_complex_attr_access_with_graph_breaks: 2 frames, 9 ops
    static List<Object> complexAttrAccessBreak(List<Attrs> x, Tensor y, int z) {
        for (Attrs t : x) {
            t.y = y;
            t.z = y.mul(z);
        }
        Ember.graphBreak();
        Object newY = 1, newZ = 1;
        for (Attrs t : x) {
            newY = mulAcc((Tensor) t.y, newY);
            newZ = mulAcc(t.z, newZ);
        }
        return List.of(newY, newZ);
    }

    static int inlineTestFn(Attrs x, Attrs y, Attrs z) {
        Ember.graphBreak(); // the test's print("f")
        return x.a + y.a + z.a;
    }

    // test_complex_attr_access_with_inline_reconstruct: 1 frame (the part before the break has no op), 2 ops
    static List<Tensor> inlineReconstruct(Attrs x, Attrs y, Attrs z) {
        x.a = 1;
        y.a = 2;
        z.a = 3;
        int mult = inlineTestFn(x, y, z);
        Tensor yt = y.t.mul(mult);
        Tensor xt = x.t.mul(mult);
        return List.of(xt, yt);
    }

    /** test_set_data_on_user_defined_class_input_tensor's MyUserDefinedClass. */
    static final class SetattrStuff {
        final Tensor x, y;
        Tensor z, a;

        SetattrStuff(Tensor x, Tensor y) {
            this.x = x;
            this.y = y;
        }

        // 1 frame, 3 ops
        Tensor doSomeSetattrStuff() {
            z = x.mul(y);
            a = x.add(x);
            return z.mul(a);
        }
    }
    // ---- test_optimizers.py ----

    // make_test: one optimizer step compiled (the test runs it with grad off)
    static void optimizerStep(Optimizer opt) { opt.step(); }

    /** End2EndTests' Net: bmm then flatten. */
    static final class BmmNet extends Module {
        Tensor forward2(Tensor x, Tensor y) {
            Tensor z = x.bmm(y);
            return z.flatten(1);
        }
    }

    // test_optimizing_over_tensor_with_requires_grad: Dynamo 2 frames over two iterations
    static Tensor trainingIter(Map<String, Tensor> batch, BmmNet model, Optimizer optimizer) {
        optimizer.zeroGrad();
        Tensor out = model.forward2(batch.get("x"), batch.get("y"));
        Tensor target = Tensor.of(new long[] {0, 7}, 2);
        Tensor loss = F.crossEntropy(out, target);
        loss.backward();
        optimizer.step();
        return loss;
    }

    // test_state_dict: an optimizer and its closure made in a compiled frame, stepped outside it
    static List<Object> makeOptimizer(Tensor weight, Tensor bias, Tensor input) {
        Optimizer optimizer = new Adagrad(List.of(weight, bias), Adagrad.options());
        Supplier<Tensor> fn = () -> {
            optimizer.zeroGrad();
            Tensor loss = weight.mv(input).add(bias).pow(2).sum();
            loss.backward();
            return loss;
        };
        return List.of(optimizer, fn);
    }

    /**
     * test_init_group's MyOptimizer: groups of parameters, the first moved by one. Ember has no complex
     * dtype, so the test's float32/cfloat pair is float32/int64 and {@code is_complex()} is {@code isIntegral()}.
     */
    static final class MyOptimizer {
        final List<Map<String, Object>> paramGroups = new ArrayList<>();

        MyOptimizer(List<Tensor> params) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("params", params);
            paramGroups.add(g);
        }

        @SuppressWarnings("unchecked")
        boolean initGroup(List<Tensor> params, Map<String, Object> group) {
            boolean anyIntegral = false;
            for (Tensor p : (List<Tensor>) group.get("params")) {
                params.add(p);
                anyIntegral |= p.dtype().isIntegral();
            }
            return anyIntegral;
        }

        void step() {
            for (Map<String, Object> group : paramGroups) {
                List<Tensor> params = new ArrayList<>();
                boolean anyIntegral = initGroup(params, group);
                if (anyIntegral) params.get(0).add_(-1L);
                else params.get(0).add_(1);
            }
        }
    }
    // ---- the list gaps capture session 7 left (not ports: each compared with eager, its break asserted) ----

    static Tensor subListWritesThrough(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1), x.add(2), x.add(3)));
        List<Tensor> v = l.subList(1, 3);
        v.set(0, x.mul(10));
        v.clear();
        return l.get(1).add(l.size());
    }

    static Tensor reversedSeesChanges(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(1, 2, 3));
        List<Integer> r = l.reversed();
        l.add(4);
        return x.mul(r.get(0));
    }

    static Tensor unmodifiableSeesChanges(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(1, 2, 3));
        List<Integer> u = java.util.Collections.unmodifiableList(l);
        l.set(0, 7);
        return x.mul(u.get(0));
    }

    static Tensor listIteratorSetAddPrevious(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(1, 2, 3));
        java.util.ListIterator<Integer> it = l.listIterator();
        while (it.hasNext()) {
            int v = it.next();
            if (v == 2) {
                it.set(20);
                it.add(5);
            }
        }
        Tensor acc = x;
        while (it.hasPrevious()) acc = acc.mul(it.previous()).add(it.nextIndex());
        return acc;
    }
}
