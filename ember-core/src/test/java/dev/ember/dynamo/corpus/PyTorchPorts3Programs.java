package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.autograd.CustomFunction;
import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A third set of programs ported from PyTorch's Dynamo tests: test_autograd_function.py (as
 * {@link CustomFunction} subclasses), test_dicts.py and test_sets.py (Java's Map and Set idioms),
 * list and sequence idioms, test_generator.py (iterators and streams), test_ctx_manager.py (grad-mode
 * scopes in try-with-resources), test_aot_autograd.py and test_recompiles.py. Each names the test it
 * ports (a trailing {@code ~}: an adaptation, said why); PyTorchPorts3Test runs them eagerly and compiled.
 */
final class PyTorchPorts3Programs {
    private PyTorchPorts3Programs() {}

    // ---- test_autograd_function.py ----

    /** CustomFunc1: forward foo + foo, backward passes the gradient through. */
    static final class CustomFunc1 extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0].add(in[0])}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0]}; }
    }

    // test_autograd_function.py::test_autograd_function_equivalence (Module1: CustomFunc1().apply(foo))
    static Tensor customFunc1(Tensor foo) { return new CustomFunc1().apply(foo); }

    /** A function object kept in a static field, as Module2's self.fn = CustomFunc1.apply. */
    static final CustomFunc1 FUNC1 = new CustomFunc1();

    // test_autograd_function.py::test_autograd_function_equivalence (Module2: a stored apply)
    static Tensor storedFunc1(Tensor foo) { return FUNC1.apply(foo); }

    /** CustomFunc3: a graph break inside forward; backward scales by sqrt(numel) of the saved result. */
    static final class CustomFunc3 extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor result = in[0].add(in[0]);
            Ember.graphBreak();
            result = result.add(in[0]);
            ctx.saveForBackward(result);
            return new Tensor[] {result};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            Tensor result = ctx.savedTensors().get(0);
            return new Tensor[] {grad[0].mul(Math.sqrt(result.numel()))};
        }
    }

    // test_autograd_function.py::test_autograd_function_has_graph_break
    static Tensor customFunc3(Tensor foo) { return new CustomFunc3().apply(foo); }

    /** LinearFunction: input.mm(weight.t()) plus a broadcast bias; gradients only where needsInputGrad. */
    static final class LinearFunction extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor output = in[0].mm(in[1].t());
            if (in.length > 2) output = output.add(in[2].unsqueeze(0).expandAs(output));
            ctx.saveForBackward(in);
            return new Tensor[] {output};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            List<Tensor> saved = ctx.savedTensors();
            Tensor[] out = new Tensor[saved.size()];
            if (ctx.needsInputGrad(0)) out[0] = grad[0].mm(saved.get(1));
            if (ctx.needsInputGrad(1)) out[1] = grad[0].t().mm(saved.get(0));
            if (saved.size() > 2 && ctx.needsInputGrad(2)) out[2] = grad[0].sum(0);
            return out;
        }
    }

    // test_autograd_function.py::test_linear_setup_context (bias=None: the two-input call)
    static Tensor linearFunction(Tensor input, Tensor weight) { return new LinearFunction().apply(input, weight); }

    // test_autograd_function.py::test_linear_setup_context ~ (with a bias)
    static Tensor linearFunctionBias(Tensor input, Tensor weight, Tensor bias) { return new LinearFunction().apply(input, weight, bias); }

    /** MaterializingGradFunction: two clones; backward adds their gradients (one input). */
    static final class TwoClones extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0].clone(), in[0].clone()}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0].add(grad[1])}; }
    }

    // test_autograd_function.py::test_multi_output, test_materialize_grad (only the first output used: the other's gradient is zeros)
    static List<Tensor> multiOutput(Tensor x) { return new TwoClones().applyAll(x); }

    static Tensor materializeGrad(Tensor x) { return new TwoClones().applyAll(x).get(0).mul(2); }

    /** CustomFuncStrideBwd: backward reads its gradient's last stride. */
    static final class StrideBwd extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0].add(in[0])}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            int[] strides = grad[0].strides();
            return new Tensor[] {grad[0].mul(strides[strides.length - 1])};
        }
    }

    // test_autograd_function.py::test_stride_in_bwd
    static Tensor strideInBwd(Tensor x) { return new StrideBwd().apply(x); }

    enum SomeEnum { A, B }

    /** Foo of test_enum_arg: the enum, not a tensor, is a field set by the constructor. */
    static final class EnumArg extends CustomFunction {
        final SomeEnum e;

        EnumArg(SomeEnum e) { this.e = e; }

        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {e == SomeEnum.A ? in[0].sin() : in[0].cos()}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0]}; }
    }

    // test_autograd_function.py::test_enum_arg
    static Tensor enumArg(Tensor x, SomeEnum e) { return new EnumArg(e).apply(x); }

    /** CustomFuncSaveForBwd. */
    static final class SaveForBwd extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            Tensor result = in[0].add(in[0]);
            result = result.add(in[0]);
            ctx.saveForBackward(result);
            return new Tensor[] {result};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            return new Tensor[] {grad[0].mul(Math.sqrt(ctx.savedTensors().get(0).numel()))};
        }
    }

    // test_autograd_function.py::test_save_for_bwd
    static Tensor saveForBwd(Tensor x) { return new SaveForBwd().apply(x).sum(); }

    /** ScaleGradient of test_once_differentiable: forward returns its input itself. */
    static final class ScaleGradient extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) { return new Tensor[] {in[0]}; }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0].mul(0.5)}; }
    }

    // test_autograd_function.py::test_once_differentiable
    static Tensor onceDifferentiable(Tensor x) { return new ScaleGradient().apply(x).mul(3); }

    /** ContextSaveAndMark: inside no_grad, saves and marks its input non-differentiable, returns it. */
    static final class SaveAndMark extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            try (var scope = Ember.noGrad()) {
                ctx.saveForBackward(in[0]);
                ctx.markNonDifferentiable(in[0]);
                return new Tensor[] {in[0]};
            }
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) { return new Tensor[] {grad[0]}; }
    }

    // test_autograd_function.py::test_function_context_save_and_mark
    static Tensor contextSaveAndMark(Tensor x) { return new SaveAndMark().apply(x); }

    /** Foo of test_function_ctx_does_not_instantiate_function: ctx.scale = 3 read back in backward. */
    static final class CtxScale extends CustomFunction {
        @Override
        protected Tensor[] forward(Context ctx, Tensor... in) {
            ctx.put("scale", 3);
            return new Tensor[] {in[0].sin()};
        }

        @Override
        protected Tensor[] backward(Context ctx, Tensor... grad) {
            int scale = ctx.get("scale");
            return new Tensor[] {grad[0].mul(scale)};
        }
    }

    // test_autograd_function.py::test_function_ctx_does_not_instantiate_function
    static Tensor ctxScale(Tensor x) { return new CtxScale().apply(x); }

    /** Two functions in a row with plain ops around them (test_autograd_function.py::test_nested_*, flattened ~). */
    static Tensor twoFunctionsInARow(Tensor x, Tensor w) {
        Tensor h = new CustomFunc1().apply(x.mul(w));
        h = new ScaleGradient().apply(h.sin());
        return new CtxScale().apply(h).sum();
    }

    // ---- test_dicts.py ----

    /** SimpleDict(dict): a HashMap subclass with nothing added. */
    static final class SimpleDict<K, V> extends HashMap<K, V> {}

    // test_dicts.py::test_dict_subclass_local_mutation
    static Tensor dictSubclassLocalMutation(Tensor x) {
        SimpleDict<String, Integer> sd = new SimpleDict<>();
        sd.put("x", 5);
        Tensor z = x.mul(sd.get("x"));
        sd.put("x", 10);
        return z.mul(sd.get("x"));
    }

    /** MethodDict(dict) with a method of its own. */
    static final class MethodDict extends HashMap<String, Integer> {
        Tensor add1(Tensor x) { return x.add(1); }
    }

    // test_dicts.py::test_dict_subclass_local_with_non_dict_method
    static Tensor dictSubclassNonDictMethod(Tensor x) {
        MethodDict sd = new MethodDict();
        sd.put("x", 5);
        Tensor z = x.mul(sd.get("x"));
        sd.put("x", 10);
        return sd.add1(z.mul(sd.get("x")));
    }

    static final Map<Integer, Integer> SD = new HashMap<>(Map.of(2, 5, 4, 10));

    // test_dicts.py::test_dict_contains (a global map: adding key 1 recompiles, changing key 2's value does not)
    static Tensor dictContains(Tensor x) { return SD.containsKey(1) ? x.mul(2) : x.mul(3); }

    // test_dicts.py::test_dict_subclass_methods_fallback_mutation
    static Tensor dictMethodsMutation(Map<Integer, Integer> sd, Tensor x) {
        for (int value : sd.values()) x = x.mul(value);
        sd.put(6, 14);
        for (int key : sd.keySet()) x = x.mul(key);
        for (Map.Entry<Integer, Integer> e : sd.entrySet()) x = x.mul(e.getKey()).mul(e.getValue());
        x = sd.containsKey(1) ? x.mul(2) : x.mul(3);
        x = x.mul(sd.getOrDefault(2, 0));
        x = x.mul(sd.getOrDefault(3, 4));
        return x.mul(sd.size());
    }

    /** SetItemDict: put adds one to the value. */
    static final class SetItemDict extends LinkedHashMap<String, Object> {
        @Override
        public Object put(String key, Object value) {
            return super.put(key, value instanceof Integer i ? i + 1 : ((Tensor) value).add(1));
        }
    }

    // test_dicts.py::test_dict_subclass_setitem
    static Map<String, Object> dictSubclassSetitem(Tensor x) {
        SetItemDict sd = new SetItemDict();
        sd.put("x", x.mul(5));
        sd.put("y", 10);
        return sd;
    }

    // test_dicts.py::test_dict_guard_on_keys_order (a LinkedHashMap: moving key 2 to the end recompiles)
    static Tensor dictKeysOrder(Tensor x, Map<Integer, Integer> d) {
        for (Map.Entry<Integer, Integer> e : d.entrySet()) x = x.mul(e.getKey()).add(e.getValue());
        return x;
    }

    // test_dicts.py::test_dict_guard_on_keys_order2
    static Tensor dictKeysOrder2(Tensor x, Map<Integer, Integer> d) {
        for (int key : d.keySet()) x = x.mul(key).add(d.get(key));
        return x;
    }

    static final Map<String, Integer> LAZY = new LinkedHashMap<>(Map.of("a", 2, "b", 3, "c", 5));

    // test_dicts.py::test_lazy_key_guarding (only key "a" is read: removing "c" and adding "d" does not recompile)
    static Tensor lazyKeyGuarding(Tensor x) { return x.mul(LAZY.get("a")); }

    // test_dicts.py::test_dict_mutation_side_effect
    static Map<String, Tensor> dictMutationSideEffect(Map<String, Tensor> d) {
        d.put("c", d.get("a").add(d.remove("b")));
        return d;
    }

    // test_dicts.py::test_dict_copy_alias
    static List<Object> dictCopyAlias(Tensor x, Map<Integer, Integer> d0) {
        Map<Integer, Integer> d1 = new HashMap<>(d0);
        d1.put(0, 1);
        return List.of(x.add(1), d1);
    }

    // test_dicts.py::test_dict_order_keys
    static Tensor dictOrderKeys(Map<String, Tensor> d) {
        Tensor c = null;
        for (Tensor v : d.values()) c = c == null ? v : c.add(v);
        return c;
    }

    // test_dicts.py::test_dict_setdefault ~ (putIfAbsent and computeIfAbsent)
    static Tensor dictSetdefault(Tensor x) {
        Map<String, Tensor> d = new LinkedHashMap<>();
        d.putIfAbsent("a", x.sin());
        d.putIfAbsent("a", x.cos());
        Tensor b = d.computeIfAbsent("b", k -> x.add(1));
        return d.get("a").add(b);
    }

    // test_dicts.py::test_dict_update ~ (putAll and merge)
    static Map<String, Tensor> dictUpdate(Tensor x) {
        Map<String, Tensor> d = new LinkedHashMap<>();
        d.put("a", x);
        d.putAll(Map.of("b", x.mul(2)));
        d.merge("a", x.mul(3), Tensor::add);
        d.merge("c", x.mul(4), Tensor::add);
        return d;
    }

    // test_dicts.py::test_dict_popitem ~ (remove(key, value) and replaceAll)
    static Map<String, Tensor> dictReplaceAll(Tensor x) {
        Map<String, Tensor> d = new LinkedHashMap<>();
        d.put("a", x);
        d.put("b", x.mul(2));
        d.replaceAll((k, v) -> k.equals("a") ? v.sin() : v.cos());
        d.computeIfPresent("b", (k, v) -> v.add(1));
        d.compute("z", (k, v) -> v == null ? x.neg() : v);
        return d;
    }

    // test_dicts.py::test_dict_fromkeys ~ (a map from a key list, each to one value)
    static Tensor dictFromkeys(Tensor x) {
        Map<String, Integer> d = new LinkedHashMap<>();
        for (String k : List.of("a", "b", "c")) d.put(k, 2);
        int total = 0;
        for (int v : d.values()) total += v;
        return x.mul(total);
    }

    // test_dicts.py::test_dict_items_view_stream ~ (entries streamed and summed by key)
    static Tensor dictEntryStream(Map<String, Tensor> d) {
        return d.entrySet().stream().filter(e -> !e.getKey().startsWith("skip")).map(Map.Entry::getValue).reduce(Tensor::add).orElseThrow();
    }

    // test_dicts.py::test_sorted_keys ~ (a TreeMap: keys in sorted order)
    static Tensor dictSortedKeys(Tensor x) {
        Map<String, Integer> d = new TreeMap<>();
        d.put("c", 3);
        d.put("a", 1);
        d.put("b", 2);
        for (Map.Entry<String, Integer> e : d.entrySet()) x = x.mul(e.getValue()).add(e.getKey().length());
        return x.add(((TreeMap<String, Integer>) d).firstKey().equals("a") ? 1 : 0);
    }

    // test_dicts.py::test_dict_forEach ~ (Map.forEach with a lambda writing a captured list)
    static List<Tensor> dictForEach(Tensor x) {
        Map<Integer, String> d = new LinkedHashMap<>();
        d.put(1, "sin");
        d.put(2, "cos");
        List<Tensor> out = new ArrayList<>();
        d.forEach((k, v) -> out.add(v.equals("sin") ? x.sin().mul(k) : x.cos().mul(k)));
        return out;
    }

    // test_dicts.py::test_dict_equality ~ (Map.equals between a literal and a built map)
    static Tensor dictEquality(Tensor x) {
        Map<String, Integer> a = new HashMap<>();
        a.put("p", 1);
        a.put("q", 2);
        return a.equals(Map.of("q", 2, "p", 1)) ? x.add(1) : x.sub(1);
    }

    // test_dicts.py::test_dict_keys_set_ops ~ (key sets intersected with retainAll)
    static Tensor dictKeysIntersection(Tensor x) {
        Map<String, Integer> a = new LinkedHashMap<>(Map.of("a", 1));
        a.put("b", 2);
        Map<String, Integer> b = Map.of("b", 3, "c", 4);
        Set<String> common = new HashSet<>(a.keySet());
        common.retainAll(b.keySet());
        return x.mul(common.size()).add(a.get(common.iterator().next()));
    }

    // ---- test_sets.py ----

    // test_sets.py::test_set_union ~ (addAll)
    static Tensor setUnion(Tensor x) {
        Set<Integer> s = new HashSet<>(Set.of(1, 2));
        s.addAll(Set.of(2, 3));
        return x.mul(s.size());
    }

    // test_sets.py::test_set_intersection_difference ~ (retainAll, removeAll)
    static Tensor setIntersectionDifference(Tensor x) {
        Set<Integer> a = new HashSet<>(List.of(1, 2, 3, 4));
        Set<Integer> b = new HashSet<>(a);
        a.retainAll(Set.of(2, 3, 9));
        b.removeAll(Set.of(1));
        int sa = 0, sb = 0;
        for (int v : a) sa += v;
        for (int v : b) sb += v;
        return x.mul(sa).add(sb);
    }

    // test_sets.py::test_set_symmetric_difference ~ (two copies and removeAll)
    static Tensor setSymmetricDifference(Tensor x) {
        Set<Integer> a = new HashSet<>(Set.of(1, 2, 3)), b = Set.of(3, 4);
        Set<Integer> sym = new HashSet<>(a);
        sym.addAll(b);
        Set<Integer> both = new HashSet<>(a);
        both.retainAll(b);
        sym.removeAll(both);
        return sym.contains(3) ? x : x.mul(sym.size());
    }

    // test_sets.py::test_set_issubset ~ (containsAll)
    static Tensor setIssubset(Tensor x) {
        Set<String> a = Set.of("a", "b"), b = new HashSet<>(List.of("a", "b", "c"));
        return b.containsAll(a) && !a.containsAll(b) ? x.sin() : x.cos();
    }

    // test_sets.py::test_set_discard_remove ~ (remove returns whether it was there)
    static Tensor setRemove(Tensor x) {
        Set<Integer> s = new LinkedHashSet<>(List.of(3, 1, 2));
        boolean removed = s.remove(1);
        boolean again = s.remove(1);
        return x.mul(removed ? 2 : 1).add(again ? 10 : 0).mul(s.iterator().next());
    }

    // test_sets.py::test_set_of_tensors_membership ~ (tensors in a set by identity)
    static Tensor setOfTensors(Tensor x, Tensor y) {
        Set<Tensor> s = new HashSet<>();
        s.add(x);
        s.add(x);
        s.add(y);
        return s.contains(x) && s.size() == 2 ? x.add(y) : x;
    }

    // test_sets.py::test_set_as_input (a set argument: iteration order of a LinkedHashSet)
    static Tensor setInput(Set<String> names, Tensor x) {
        for (String n : names) x = n.equals("double") ? x.mul(2) : x.add(n.length());
        return x;
    }

    // test_sets.py::test_sorted_set ~ (a TreeSet: ordered and navigable)
    static Tensor treeSet(Tensor x) {
        TreeSet<Integer> s = new TreeSet<>(List.of(5, 1, 3));
        return x.mul(s.first()).add(s.last()).add(s.higher(1));
    }

    // test_sets.py::test_set_stream_collect ~ (Collectors.toSet then size)
    static Tensor setCollect(Tensor x) {
        Set<Integer> s = Stream.of(1, 2, 2, 3, 3, 3).collect(Collectors.toSet());
        return x.mul(s.size());
    }

    // test_sets.py::test_enumset_ops ~ (EnumSet.complementOf and range)
    static Tensor enumSetOps(Tensor x, SomeEnum e) {
        EnumSet<SomeEnum> rest = EnumSet.complementOf(EnumSet.of(e));
        return rest.contains(SomeEnum.A) ? x.mul(rest.size() + 1) : x.neg();
    }

    // test_sets.py::test_set_equality ~
    static Tensor setEquality(Tensor x) {
        Set<Integer> a = new HashSet<>(List.of(1, 2, 3));
        return a.equals(Set.of(3, 2, 1)) && !a.equals(Set.of(1)) ? x.add(1) : x;
    }

    // ---- list and sequence idioms (test_list.py ~, test_functions.py's list tests) ----

    // subList as a view: a write through it changes the list
    static Tensor subListView(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1), x.add(2), x.add(3)));
        List<Tensor> mid = l.subList(1, 3);
        mid.set(0, x.mul(10));
        mid.remove(1);
        return Tensor.stack(l, 0);
    }

    // indexOf / lastIndexOf / contains on a list of ints
    static Tensor listIndexOf(Tensor x) {
        List<Integer> l = List.of(4, 2, 7, 2, 9);
        return x.mul(l.indexOf(2)).add(l.lastIndexOf(2)).add(l.contains(9) ? 1 : 0).add(l.indexOf(42));
    }

    // sort with a comparator (list.sort(key=...))
    static Tensor listSortComparator(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(3, -5, 1, 4));
        l.sort((a, b) -> Integer.compare(Math.abs(a), Math.abs(b)));
        Tensor out = x;
        for (int v : l) out = out.mul(2).add(v);
        return out;
    }

    // Collections.swap and rotate
    static Tensor listSwapRotate(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.sin(), x.cos()));
        Collections.swap(l, 0, 2);
        Collections.rotate(l, 1);
        return l.get(0).add(l.get(1).mul(2)).add(l.get(2).mul(3));
    }

    // replaceAll and removeIf on a list of tensors
    static List<Tensor> listReplaceAllRemoveIf(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.mul(2), x.mul(3)));
        l.replaceAll(Tensor::relu);
        int[] seen = {0};
        l.removeIf(t -> seen[0]++ == 1);
        return l;
    }

    // a ListIterator that sets and adds while walking
    static List<Tensor> listIteratorSet(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1)));
        ListIterator<Tensor> it = l.listIterator();
        while (it.hasNext()) {
            Tensor t = it.next();
            it.set(t.mul(2));
            if (it.nextIndex() == 1) it.add(t.neg());
        }
        return l;
    }

    // reversed() (Java 21's SequencedCollection) and getFirst / getLast
    static Tensor listReversed(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.mul(2), x.mul(3)));
        Tensor acc = Tensor.zerosLike(x);
        int i = 1;
        for (Tensor t : l.reversed()) acc = acc.add(t.mul(i++));
        return acc.add(l.getFirst()).sub(l.getLast());
    }

    // an unmodifiable view: a write throws, the code catches it
    static Tensor unmodifiableList(Tensor x) {
        List<Tensor> l = Collections.unmodifiableList(new ArrayList<>(List.of(x)));
        try {
            l.add(x);
            return x;
        } catch (UnsupportedOperationException e) {
            return l.get(0).add(1);
        }
    }

    // arrays: fill, copyOfRange, System.arraycopy, clone
    static Tensor arrayCopies(Tensor x) {
        int[] a = new int[5];
        Arrays.fill(a, 2);
        a[3] = 7;
        int[] b = Arrays.copyOfRange(a, 2, 5);
        int[] c = a.clone();
        System.arraycopy(b, 0, c, 0, 3);
        return x.mul(c[0] + c[1] * 10 + c[4] * 100).add(b.length);
    }

    // an array of tensors: Arrays.asList view, set through the array
    static Tensor tensorArrayView(Tensor x) {
        Tensor[] arr = {x, x.add(1)};
        List<Tensor> view = Arrays.asList(arr);
        arr[1] = x.mul(5);
        return view.get(0).add(view.get(1));
    }

    // list equality and hashCode of an int list
    static Tensor listEquality(Tensor x) {
        List<Integer> a = new ArrayList<>(List.of(1, 2));
        a.add(3);
        return a.equals(List.of(1, 2, 3)) && a.hashCode() == List.of(1, 2, 3).hashCode() ? x.add(1) : x;
    }

    // a list argument's size and elements (test_list.py ~: len and slicing)
    static Tensor listSlicing(List<Tensor> xs) {
        List<Tensor> tail = xs.subList(1, xs.size());
        Tensor acc = xs.get(0);
        for (Tensor t : tail) acc = acc.mul(t);
        return acc;
    }

    // ---- test_generator.py (iterators and streams) ----

    /** A generator: yields x, x*2, x*3 ... count times. */
    static final class Multiples implements Iterator<Tensor> {
        private final Tensor x;
        private final int count;
        private int i;

        Multiples(Tensor x, int count) { this.x = x; this.count = count; }

        @Override
        public boolean hasNext() { return i < count; }

        @Override
        public Tensor next() {
            if (!hasNext()) throw new NoSuchElementException();
            return x.mul(++i);
        }
    }

    // test_generator.py::test_generator_simple ~ (a user Iterator drained with a while loop)
    static Tensor generatorSimple(Tensor x) {
        Iterator<Tensor> it = new Multiples(x, 3);
        Tensor acc = Tensor.zerosLike(x);
        while (it.hasNext()) acc = acc.add(it.next());
        return acc;
    }

    // test_generator.py::test_generator_as_iterable ~ (an Iterable lambda in a for-each)
    static Tensor generatorIterable(Tensor x) {
        Iterable<Tensor> gen = () -> new Multiples(x, 4);
        Tensor acc = x;
        for (Tensor t : gen) acc = acc.mul(t.sigmoid());
        return acc;
    }

    // test_generator.py::test_generator_next_past_end ~ (next() past the end throws, caught)
    static Tensor generatorExhausted(Tensor x) {
        Iterator<Tensor> it = new Multiples(x, 1);
        Tensor first = it.next();
        try {
            return first.add(it.next());
        } catch (NoSuchElementException e) {
            return first.neg();
        }
    }

    // test_generator.py::test_generator_in_list_comprehension ~ (a stream map/filter/toList)
    static List<Tensor> streamMapFilter(Tensor x) {
        return IntStream.rangeClosed(1, 5).filter(i -> i % 2 == 1).mapToObj(x::mul).toList();
    }

    // test_generator.py::test_infinite_generator ~ (Stream.generate with limit)
    static Tensor streamGenerateLimit(Tensor x) {
        int[] n = {0};
        return Stream.generate(() -> x.mul(++n[0])).limit(3).reduce(Tensor::add).orElseThrow();
    }

    // test_generator.py::test_generator_zip ~ (two lists zipped by index)
    static Tensor streamZip(List<Tensor> a, List<Tensor> b) {
        return IntStream.range(0, Math.min(a.size(), b.size())).mapToObj(i -> a.get(i).mul(b.get(i))).reduce(Tensor::add).orElseThrow();
    }

    // test_generator.py::test_generator_yield_from ~ (flatMap of nested lists)
    static Tensor streamFlatMap(Tensor x) {
        List<List<Integer>> nested = List.of(List.of(1, 2), List.of(3), List.of());
        return nested.stream().flatMap(List::stream).map(x::mul).reduce(Tensor::add).orElseThrow();
    }

    // test_generator.py::test_generator_early_stop ~ (takeWhile)
    static Tensor streamTakeWhile(Tensor x) {
        List<Integer> taken = Stream.of(1, 2, 5, 1).takeWhile(i -> i < 4).toList();
        return x.mul(taken.size()).add(taken.getLast());
    }

    // test_generator.py::test_generator_send ~ (collect to a map, groupingBy)
    static Tensor streamGroupingBy(Tensor x) {
        Map<Boolean, List<Integer>> parts = Stream.of(1, 2, 3, 4, 5).collect(Collectors.partitioningBy(i -> i % 2 == 0));
        return x.mul(parts.get(true).size()).add(parts.get(false).size());
    }

    // ---- test_ctx_manager.py (grad-mode scopes) ----

    // test_ctx_manager.py::test_no_grad ~ (a noGrad block in the middle)
    static Tensor noGradBlock(Tensor x) {
        Tensor a = x.mul(2);
        Tensor b;
        try (var s = Ember.noGrad()) {
            b = a.sin();
        }
        return a.add(b);
    }

    // test_ctx_manager.py::test_enable_grad_inside_no_grad
    static Tensor enableGradInsideNoGrad(Tensor x) {
        Tensor out;
        try (var s = Ember.noGrad()) {
            Tensor a = x.mul(2);
            try (var e = Ember.enableGrad()) {
                out = x.mul(3).add(a);
            }
        }
        return out;
    }

    // test_ctx_manager.py::test_inference_mode ~
    static Tensor inferenceModeBlock(Tensor x) {
        try (var s = Ember.inferenceMode()) {
            return x.cos().mul(2);
        }
    }

    // test_ctx_manager.py::test_is_grad_enabled ~ (the mode read inside and outside a scope)
    static Tensor isGradEnabled(Tensor x) {
        boolean outside = GradMode.isEnabled();
        boolean inside;
        try (var s = Ember.noGrad()) {
            inside = GradMode.isEnabled();
        }
        return x.mul(outside ? 2 : 3).add(inside ? 10 : 20);
    }

    // test_ctx_manager.py::test_set_grad_enabled ~ (setEnabled and back, in a finally)
    static Tensor setGradEnabled(Tensor x) {
        boolean prev = GradMode.isEnabled();
        GradMode.setEnabled(false);
        try {
            return x.mul(2).add(x);
        } finally {
            GradMode.setEnabled(prev);
        }
    }

    // test_ctx_manager.py::test_no_grad_graph_break ~ (a break inside the scope)
    static Tensor noGradGraphBreak(Tensor x) {
        Tensor out;
        try (var s = Ember.noGrad()) {
            Tensor a = x.sin();
            Ember.graphBreak();
            out = a.add(x.requiresGrad() ? 1 : 2);
        }
        return out.mul(x);
    }

    // test_ctx_manager.py::test_no_grad_exception ~ (an exception thrown inside the scope, caught outside: the mode is restored)
    static Tensor noGradException(Tensor x) {
        try (var s = Ember.noGrad()) {
            if (x.dim() == 2) throw new IllegalStateException("two dims");
            return x;
        } catch (IllegalStateException e) {
            return x.mul(GradMode.isEnabled() ? 2 : 3);
        }
    }

    static Tensor noGradHelper(Tensor x) {
        try (var s = Ember.noGrad()) {
            return x.exp();
        }
    }

    // test_ctx_manager.py::test_no_grad_in_helper ~ (the scope in a called method)
    static Tensor noGradInHelper(Tensor x) { return noGradHelper(x.mul(2)).add(x); }

    // ---- test_aot_autograd.py ----

    // test_aot_autograd.py::test_simple ~ (a small MLP's forward; the test compares gradients)
    static Tensor aotSimple(Tensor x, Tensor w1, Tensor w2) { return x.matmul(w1).relu().matmul(w2).sum(); }

    // test_aot_autograd.py::test_mutation ~ (an input changed in place, then used)
    static Tensor aotMutation(Tensor a, Tensor b) {
        a.mul_(2);
        return a.add(b);
    }

    // test_aot_autograd.py::test_multiple_outputs_require_grad ~
    static List<Tensor> aotMultipleOutputs(Tensor x, Tensor w) {
        Tensor h = x.mul(w);
        return List.of(h.sum(), h.sin().mean(), x.detach().add(1));
    }

    // test_aot_autograd.py::test_view_output ~ (an output that views the input)
    static Tensor aotViewOutput(Tensor x) { return x.mul(2).view(-1).slice(0, 1, 5, 1); }

    // test_aot_autograd.py::test_input_no_grad_and_grad ~ (one input requires grad, one does not)
    static Tensor aotMixedInputs(Tensor x, Tensor c) { return x.mul(c).tanh().sum(); }

    // ---- test_recompiles.py ----

    // test_recompiles.py::test_int_arg ~ (a plain int argument: a new value recompiles)
    static Tensor intArg(Tensor x, int n) { return x.mul(n); }

    // test_recompiles.py::test_requires_grad_change ~
    static Tensor requiresGradChange(Tensor x) { return x.mul(2).sin(); }

    static int globalScale = 2;

    // test_recompiles.py::test_global_change ~ (a static field read: a new value recompiles)
    static Tensor globalRead(Tensor x) { return x.mul(globalScale); }

    // test_recompiles.py::test_list_length_change ~
    static Tensor listLengthChange(List<Tensor> xs) {
        Tensor acc = xs.get(0);
        for (int i = 1; i < xs.size(); i++) acc = acc.add(xs.get(i));
        return acc;
    }

    // test_recompiles.py::test_string_arg ~ (a string argument: equal strings share an entry)
    static Tensor stringArg(Tensor x, String mode) { return mode.equals("sin") ? x.sin() : x.cos(); }

    // ---- known leftovers: containers made in the function ----

    // new IdentityHashMap<>() keyed by tensors
    static Tensor identityHashMap(Tensor x, Tensor y) {
        Map<Tensor, Integer> m = new IdentityHashMap<>();
        m.put(x, 2);
        m.put(y, 3);
        m.put(x, 4);
        return x.mul(m.get(x)).add(y.mul(m.get(y))).add(m.size());
    }

    // new EnumMap<>(Class)
    static Tensor enumMapOfClass(Tensor x, SomeEnum e) {
        Map<SomeEnum, Integer> m = new EnumMap<>(SomeEnum.class);
        m.put(SomeEnum.B, 3);
        m.put(e, 5);
        int acc = 0;
        for (Map.Entry<SomeEnum, Integer> en : m.entrySet()) acc = acc * 10 + en.getValue() + en.getKey().ordinal();
        return x.mul(acc);
    }

    // catching a ConcurrentModificationException (a list changed while iterating)
    static Tensor concurrentModification(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.add(1)));
        try {
            for (Tensor t : l) l.add(t.mul(2));
            return x;
        } catch (ConcurrentModificationException e) {
            return Tensor.stack(l, 0).sum(0);
        }
    }

    // a map changed while iterating its keys
    static Tensor concurrentModificationMap(Tensor x) {
        Map<String, Tensor> m = new HashMap<>(Map.of("a", x));
        try {
            for (String k : m.keySet()) m.put(k + "!", x.mul(2));
            return x;
        } catch (ConcurrentModificationException e) {
            return x.mul(m.size());
        }
    }
}
