package dev.ember.optim;

import dev.ember.autograd.GradMode;
import dev.ember.logging.JsonReader;
import dev.ember.logging.JsonWriter;
import dev.ember.tensor.SafeTensors;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Updates parameters from their gradients, as PyTorch's {@code torch.optim.Optimizer}. The
 * parameters are held in {@linkplain ParamGroup parameter groups}, each with its own options
 * (PyTorch's names: {@code lr}, {@code momentum}, {@code betas}, …); options a group does not set
 * come from the optimizer's defaults. A training step:
 * <pre>{@code
 * var opt = new AdamW(model.parameters(), AdamW.options().lr(1e-3));
 * opt.zeroGrad();
 * Tensor loss = model.forward(x).sub(y).pow(2).mean();
 * loss.backward();
 * opt.step();
 * }</pre>
 *
 * <p>{@link #step()} runs with gradient recording off and writes each parameter in place, so
 * everything holding the parameter (its module, a compiled function) sees the new values.
 * Parameters whose {@link Tensor#grad()} is null are skipped. Per-parameter state (momentum
 * buffers, Adam's moments) is kept by parameter and saved by index with {@link #stateDict()}.
 */
public abstract class Optimizer {
    private final Map<String, Object> defaults;
    private final List<ParamGroup> groups = new ArrayList<>();
    private final Map<Tensor, Map<String, Tensor>> state = new IdentityHashMap<>();

    /** @param defaults each option's default, by PyTorch's name; a group's options have the same keys and value types */
    protected Optimizer(Iterable<? extends Tensor> params, Map<String, Object> defaults) {
        this.defaults = Collections.unmodifiableMap(new LinkedHashMap<>(defaults));
        validate(this.defaults);
        List<Tensor> list = list(params);
        if (list.isEmpty()) throw new IllegalArgumentException("optimizer got an empty parameter list");
        addGroup(list, this.defaults);
    }

    // ------------------------------------------------------------------ options and groups

    /** Checks one group's options, throwing PyTorch's {@code ValueError} messages as IllegalArgumentException. */
    protected abstract void validate(Map<String, Object> options);

    /** The default options, by PyTorch's name. */
    public Map<String, Object> defaults() { return defaults; }

    /** The parameter groups, in the order they were added. */
    public List<ParamGroup> paramGroups() { return Collections.unmodifiableList(groups); }

    /** Adds a group of parameters that takes every option from the defaults (PyTorch's {@code add_param_group}). */
    public void addParamGroup(Iterable<? extends Tensor> params) { addGroup(list(params), defaults); }

    /** Adds a group with the given options over the defaults; a subclass's typed {@code addParamGroup} calls this. */
    protected final void addGroup(Iterable<? extends Tensor> params, Map<String, Object> options) {
        List<Tensor> list = list(params);
        Set<Tensor> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Tensor p : list) {
            if (p == null) throw new IllegalArgumentException("optimizer can only optimize Tensors, but one of the params is null");
            if (!p.isLeaf()) throw new IllegalArgumentException("can't optimize a non-leaf Tensor (" + p.describe() + ", grad_fn=" + p.gradFn().name() + ")");
            if (p.isFake()) throw new IllegalArgumentException("can't optimize a fake tensor: " + p.describe());
            if (!p.dtype().isFloatingPoint()) throw new IllegalArgumentException("can only optimize floating point tensors, got " + p.describe());
            if (!seen.add(p)) throw new IllegalArgumentException("optimizer contains a parameter group with duplicate parameters (" + p.describe() + ")");
        }
        for (ParamGroup g : groups) {
            for (Tensor p : g.params) {
                if (seen.contains(p)) throw new IllegalArgumentException("some parameters appear in more than one parameter group");
            }
        }
        Map<String, Object> merged = new LinkedHashMap<>(defaults);
        options.forEach((k, v) -> merged.put(k, coerce(k, v)));
        validate(merged);
        groups.add(new ParamGroup(this, List.copyOf(list), merged));
    }

    private static List<Tensor> list(Iterable<? extends Tensor> params) {
        if (params == null) throw new IllegalArgumentException("params can't be null");
        List<Tensor> out = new ArrayList<>();
        for (Tensor p : params) out.add(p);
        return out;
    }

    /** {@code value} as the type of the default for {@code key} (numbers as Double, betas as a list of two Doubles). */
    private Object coerce(String key, Object value) {
        Object like = defaults.get(key);
        if (like == null) return value instanceof Long l ? (Object) l.doubleValue() : value;   // a key the optimizer does not read (initial_lr)
        if (like instanceof Double) {
            if (value instanceof Number n) return n.doubleValue();
        } else if (like instanceof Boolean) {
            if (value instanceof Boolean) return value;
        } else if (like instanceof List<?> l) {
            if (value instanceof List<?> v && v.size() == l.size() && v.stream().allMatch(x -> x instanceof Number)) {
                return v.stream().map(x -> ((Number) x).doubleValue()).toList();
            }
            if (value instanceof double[] a && a.length == l.size()) {
                List<Double> out = new ArrayList<>();
                for (double d : a) out.add(d);
                return List.copyOf(out);
            }
        }
        throw new IllegalArgumentException("option '" + key + "' of " + name() + " takes a value like " + Py.repr(like) + ", got " + Py.repr(value)
                + (value == null ? "" : " (" + value.getClass().getSimpleName() + ")"));
    }

    /**
     * A set of parameters and their options (PyTorch's {@code param_group} dict). The options
     * can be changed between steps ({@link #setLr}, {@link #set}), as schedulers do.
     */
    public static final class ParamGroup {
        private final Optimizer owner;
        private final List<Tensor> params;
        private final Map<String, Object> options;

        private ParamGroup(Optimizer owner, List<Tensor> params, Map<String, Object> options) {
            this.owner = owner;
            this.params = params;
            this.options = options;
        }

        public List<Tensor> params() { return params; }

        /** The options by PyTorch's name, read-only. */
        public Map<String, Object> options() { return Collections.unmodifiableMap(options); }

        public Object get(String key) {
            if (!options.containsKey(key)) throw new IllegalArgumentException("parameter group has no option '" + key + "'; it has " + options.keySet());
            return options.get(key);
        }

        public double getDouble(String key) { return ((Number) get(key)).doubleValue(); }

        public boolean getBoolean(String key) { return (Boolean) get(key); }

        /** A two-number option such as Adam's {@code betas}. */
        public double[] getPair(String key) {
            List<?> l = (List<?>) get(key);
            return new double[] {((Number) l.get(0)).doubleValue(), ((Number) l.get(1)).doubleValue()};
        }

        public double lr() { return getDouble("lr"); }

        public ParamGroup setLr(double lr) { return set("lr", lr); }

        /** Changes an option, checked as the optimizer checks its constructor's options. */
        public ParamGroup set(String key, Object value) {
            if (!options.containsKey(key)) throw new IllegalArgumentException("parameter group has no option '" + key + "'; it has " + options.keySet());
            Map<String, Object> next = new LinkedHashMap<>(options);
            next.put(key, owner.coerce(key, value));
            owner.validate(next);
            options.putAll(next);
            return this;
        }

        /** Sets an option without the optimizer's checks, adding it if new (schedulers: {@code initial_lr}, and lr values they compute). */
        void put(String key, Object value) { options.put(key, value); }

        @Override
        public String toString() { return "ParamGroup" + options + " of " + params.size() + " parameter" + (params.size() == 1 ? "" : "s"); }
    }

    // ------------------------------------------------------------------ stepping

    private java.util.function.UnaryOperator<ForeachUpdate> updateCompiler;
    private ForeachUpdate compiledUpdate;

    /**
     * Makes {@link #step()} run each group's updates as one compiled function of the parameter
     * lists ({@link ForeachUpdate}) compiled by {@code compiler}: what {@code Ember.compile(optimizer)}
     * calls.
     */
    public final void compileUpdatesWith(java.util.function.UnaryOperator<ForeachUpdate> compiler) {
        this.updateCompiler = compiler;
        this.compiledUpdate = null;
    }

    /** Whether {@code Ember.compile(optimizer)} made this optimizer's steps compiled. */
    protected final boolean stepsCompiled() { return updateCompiler != null; }

    /**
     * One group's updates: {@code update} (a static method of the optimizer, the one definition of
     * its step, eager and compiled alike) over the parameters that have a gradient, run as it is or,
     * after {@code Ember.compile(optimizer)}, compiled. The numbers are graph inputs, so a new step
     * count or a scheduler's learning rate runs the same compiled code; a branch on one (weight
     * decay on or off) specializes it.
     */
    protected final void runUpdates(ForeachUpdate update, List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] numbers) {
        if (params.isEmpty()) return;
        if (updateCompiler == null) {
            update.apply(params, grads, states, numbers);
            return;
        }
        if (compiledUpdate == null) compiledUpdate = updateCompiler.apply(update);
        compiledUpdate.apply(params, grads, states, numbers);
    }

    /** Updates every parameter that has a gradient, once; recording is off meanwhile. */
    public final void step() {
        try (var unused = GradMode.noGrad()) {
            for (ParamGroup g : groups) update(g);
        }
    }

    /**
     * Evaluates {@code closure} with recording on (it should zero the gradients, compute the loss
     * and call backward), then steps; returns the closure's loss, as PyTorch's {@code step(closure)}.
     */
    public final Tensor step(Supplier<Tensor> closure) {
        Tensor loss;
        try (var unused = GradMode.enableGrad()) {
            loss = closure.get();
        }
        step();
        return loss;
    }

    /** One update of {@code group}'s parameters, run with recording off. */
    protected abstract void update(ParamGroup group);

    /** Sets every parameter's gradient to null (PyTorch's {@code zero_grad()}, whose default is {@code set_to_none=True}). */
    public void zeroGrad() { zeroGrad(true); }

    /** Without {@code setToNone}, fills each existing gradient with zeros in place instead (detaching it first if it was recorded). */
    public void zeroGrad(boolean setToNone) {
        for (ParamGroup g : groups) {
            for (Tensor p : g.params) {
                Tensor grad = p.grad();
                if (grad == null) continue;
                if (setToNone) {
                    p.setGrad(null);
                    continue;
                }
                if (grad.gradFn() != null) {
                    grad = grad.detach();
                    p.setGrad(grad);
                }
                try (var unused = GradMode.noGrad()) {
                    grad.zero_();
                }
            }
        }
    }

    // ------------------------------------------------------------------ state

    /** The state of {@code param} (e.g. {@code step}, {@code exp_avg}), read-only; empty before its first update. */
    public Map<String, Tensor> state(Tensor param) {
        Map<String, Tensor> s = state.get(param);
        return s == null ? Map.of() : Collections.unmodifiableMap(s);
    }

    /** The mutable state of {@code param}, made empty on first use; for subclasses' updates. */
    protected final Map<String, Tensor> stateOf(Tensor param) { return state.computeIfAbsent(param, p -> new StateMap()); }

    /**
     * A parameter's state: what is put in outlives any {@link TensorScope} the step runs in (a
     * training loop with a scope per step releases the step's temporaries, never the moments).
     */
    private static final class StateMap extends LinkedHashMap<String, Tensor> {
        @Override
        public Tensor put(String key, Tensor value) { return super.put(key, TensorScope.escape(value)); }
    }

    /**
     * An optimizer's state as PyTorch's {@code optimizer.state_dict()}: {@code state} maps a
     * parameter's index (counting through the groups in order) to its state tensors; each of
     * {@code paramGroups} holds a group's options and, under {@code "params"}, its parameters' indices.
     */
    public record StateDict(Map<Integer, Map<String, Tensor>> state, List<Map<String, Object>> paramGroups) {}

    /** The state and options by parameter index. The tensors are the optimizer's own (not copies), as in PyTorch. */
    public StateDict stateDict() {
        Map<Integer, Map<String, Tensor>> packedState = new TreeMap<>();
        List<Map<String, Object>> packedGroups = new ArrayList<>();
        int index = 0;
        for (ParamGroup g : groups) {
            Map<String, Object> packed = new LinkedHashMap<>(g.options);
            List<Integer> ids = new ArrayList<>();
            for (Tensor p : g.params) {
                Map<String, Tensor> s = state.get(p);
                if (s != null && !s.isEmpty()) packedState.put(index, new LinkedHashMap<>(s));
                ids.add(index++);
            }
            packed.put("params", List.copyOf(ids));
            packedGroups.add(packed);
        }
        return new StateDict(packedState, packedGroups);
    }

    /**
     * Replaces this optimizer's state and group options with {@code stateDict}'s (PyTorch's
     * {@code load_state_dict}). The groups must have the same sizes; state tensors are copied,
     * converted to their parameter's dtype (except {@code step}), and those kept per element must have its shape.
     * Everything is checked before anything changes.
     */
    public void loadStateDict(StateDict stateDict) {
        List<Map<String, Object>> saved = stateDict.paramGroups();
        if (saved.size() != groups.size()) throw new IllegalArgumentException("loaded state dict has a different number of parameter groups");
        Map<Integer, Tensor> byIndex = new TreeMap<>();
        List<Map<String, Object>> newOptions = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            ParamGroup g = groups.get(i);
            Object ids = saved.get(i).get("params");
            if (!(ids instanceof List<?> idList) || idList.size() != g.params.size()) {
                throw new IllegalArgumentException("loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
            }
            for (int j = 0; j < idList.size(); j++) {
                if (!(idList.get(j) instanceof Number n)) throw new IllegalArgumentException("loaded state dict's param group " + i + " has a non-integer parameter index " + idList.get(j));
                byIndex.put(n.intValue(), g.params.get(j));
            }
            Map<String, Object> options = new LinkedHashMap<>();
            saved.get(i).forEach((k, v) -> {
                if (!k.equals("params")) options.put(k, coerce(k, v));
            });
            for (String k : defaults.keySet()) {
                if (!options.containsKey(k)) throw new IllegalArgumentException("loaded state dict's param group " + i + " has no option '" + k + "'");
            }
            validate(options);
            newOptions.add(options);
        }
        Map<Tensor, Map<String, Tensor>> newState = new IdentityHashMap<>();
        try (var unused = GradMode.noGrad()) {   // copies of state are not computations to record
            stateDict.state().forEach((index, values) -> {
                Tensor p = byIndex.get(index);
                if (p == null) throw new IllegalArgumentException("loaded state dict has state for parameter " + index + ", which is in none of its param groups");
                Map<String, Tensor> copy = new StateMap();
                values.forEach((key, t) -> {
                    if (t == null) throw new IllegalArgumentException("loaded state dict has a null '" + key + "' for parameter " + index);
                    // step and NAdam's mu_product are one number per parameter; the rest are per element.
                    // Only step keeps its dtype (PyTorch's _process_value_according_to_param_policy)
                    boolean perElement = !key.equals("step") && !key.equals("mu_product");
                    if (perElement && !Shapes.same(t.shape(), p.shape())) {
                        throw new IllegalArgumentException("loaded state dict's '" + key + "' for parameter " + index + " has shape " + Shapes.format(t.shape())
                                + ", but the parameter has shape " + Shapes.format(p.shape()));
                    }
                    copy.put(key, (key.equals("step") ? t : t.to(p.dtype())).clone());
                });
                newState.put(p, copy);
            });
        }
        state.clear();
        state.putAll(newState);
        for (int i = 0; i < groups.size(); i++) {
            ParamGroup g = groups.get(i);
            g.options.clear();
            g.options.putAll(newOptions.get(i));
        }
    }

    // ------------------------------------------------------------------ files

    /**
     * Writes {@link #stateDict()} to a safetensors file: each state tensor as
     * {@code state.<index>.<key>}, the groups' options as JSON in the metadata.
     */
    public void save(Path file) throws IOException {
        StateDict sd = stateDict();
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        sd.state().forEach((i, values) -> values.forEach((k, t) -> tensors.put("state." + i + "." + k, t)));
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("format", "ember.optim");
        metadata.put("optimizer", name());
        metadata.put("param_groups", JsonWriter.write(sd.paramGroups()));
        SafeTensors.save(tensors, metadata, file);
    }

    /** Loads a file written by {@link #save(Path)} of an optimizer of the same class and group sizes, as {@link #loadStateDict}. */
    @SuppressWarnings("unchecked")
    public void load(Path file) throws IOException {
        SafeTensors.Contents contents = SafeTensors.read(file);
        Map<String, String> meta = contents.metadata();
        if (!"ember.optim".equals(meta.get("format"))) throw new IllegalArgumentException(file + ": not an optimizer state file (no \"format\": \"ember.optim\" in its metadata)");
        if (!name().equals(meta.get("optimizer"))) throw new IllegalArgumentException(file + ": holds the state of a " + meta.get("optimizer") + ", not of a " + name());
        List<Map<String, Object>> groupsJson;
        try {
            Object parsed = JsonReader.parse(meta.getOrDefault("param_groups", ""));
            groupsJson = (List<Map<String, Object>>) (List<?>) parsed;
            for (Object g : groupsJson) if (!(g instanceof Map)) throw new ClassCastException();
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IllegalArgumentException(file + ": its \"param_groups\" metadata is not a JSON list of objects", e);
        }
        Map<Integer, Map<String, Tensor>> st = new TreeMap<>();
        for (Map.Entry<String, Tensor> e : contents.tensors().entrySet()) {
            String[] parts = e.getKey().split("\\.", 3);
            int index;
            try {
                if (parts.length != 3 || !parts[0].equals("state")) throw new NumberFormatException();
                index = Integer.parseInt(parts[1]);
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(file + ": unexpected tensor '" + e.getKey() + "' (optimizer state tensors are named state.<index>.<key>)");
            }
            st.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(parts[2], e.getValue());
        }
        try {
            loadStateDict(new StateDict(st, groupsJson));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ printing

    private String name() { return getClass().getSimpleName(); }

    /** As PyTorch prints an optimizer: each group's options, sorted by name. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(name()).append(" (");
        for (int i = 0; i < groups.size(); i++) {
            sb.append("\nParameter Group ").append(i);
            new TreeMap<>(groups.get(i).options).forEach((k, v) -> sb.append("\n    ").append(k).append(": ").append(Py.repr(v)));
        }
        return sb.append("\n)").toString();
    }
}
