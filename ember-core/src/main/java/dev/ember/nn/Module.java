package dev.ember.nn;

import dev.ember.autograd.GradMode;

import dev.ember.nn.ModuleFields.Kind;
import dev.ember.nn.ModuleFields.Slot;
import dev.ember.tensor.DType;
import dev.ember.tensor.SafeTensors;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A layer or model, as PyTorch's {@code nn.Module}. A subclass declares its state as fields:
 * {@link Parameter} fields are its parameters, other {@link Tensor} fields its buffers, and
 * {@code Module} fields its submodules (a {@code null} field is absent). They are found by
 * reflection, superclass first and then in declaration order, and named as in PyTorch: the field
 * name in snake_case ({@code inProjWeight} is {@code in_proj_weight}), so PyTorch state dicts
 * load. Parameter and buffer fields must not be final: {@link #to(DType)} replaces them.
 *
 * <p>Parametrizations ({@link Parametrize}, {@code torch.nn.utils.parametrize}): PyTorch turns a
 * parametrized {@code weight} into a property that computes the weight from its originals on every
 * read. A Java field read cannot run code, so a module's forward reads each parameter and buffer
 * through {@link #read(String, Tensor) read("weight", weight)}: the field's value while the name is
 * not parametrized (one null check), the parametrization's output when it is. Registering a
 * parametrization moves the field's tensor to the child {@code parametrizations.weight.original}
 * (the state dict's key, as PyTorch's) and sets the field to null, so code that reads the field
 * directly fails loudly instead of using a stale weight; {@link #tensor(String)} is PyTorch's
 * {@code getattr(module, "weight")} for code outside the module. The built-in layers all read
 * through {@code read}; a user's module that is to be parametrized does the same.
 *
 * <p>{@code forward} methods are plain Java over tensors and fields, so the compiler can capture
 * them. A module with one tensor input overrides {@link #forward(Tensor)}; others define their
 * own {@code forward} overloads.
 */
public abstract class Module {
    private boolean training = true;
    private final Map<String, Tensor> registeredBuffers = new LinkedHashMap<>();
    private final Map<String, Parameter> registeredParameters = new LinkedHashMap<>();
    private final ArrayList<ForwardPreHook> forwardPreHooks = new ArrayList<>();
    private final ArrayList<ForwardHook> forwardHooks = new ArrayList<>();
    /**
     * The parametrized tensors' {@link ParametrizationList}s by tensor name: the child PyTorch names
     * {@code parametrizations}, so their originals save as {@code parametrizations.weight.original}.
     * Null while nothing is parametrized, so {@link #read} costs one null check.
     */
    private ModuleDict<ParametrizationList> parametrizations;
    /**
     * Tensors that a forward pre-hook computes and the module reads by name: old-style
     * {@link WeightNorm#weightNorm weight_norm} and {@link SpectralNorm#spectralNorm spectral_norm}'s
     * {@code weight} (a plain attribute in PyTorch, in no state dict). Null while there are none.
     */
    private Map<String, Tensor> computedTensors;
    /** PyTorch's {@code _register_load_state_dict_pre_hook}s: each may rename keys of the dict being loaded (given this module's key prefix). */
    private List<java.util.function.BiConsumer<Map<String, Tensor>, String>> loadStateDictPreHooks;

    protected Module() {}

    /** Runs the module on one input. Modules taking other inputs define their own {@code forward}. */
    public Tensor forward(Tensor input) {
        throw new UnsupportedOperationException(name() + " has no single-input forward(Tensor): call the forward(...) overload it defines"
                + " (or override forward(Tensor) in a subclass)");
    }

    // ------------------------------------------------------------------ hooks

    /**
     * Calls the module as PyTorch's {@code module(x)} does: the forward pre-hooks (each may replace
     * the input), {@link #forward(Tensor)}, then the forward hooks (each may replace the output), in
     * the order they were registered. {@code forward(x)} called directly runs no hooks, as in
     * PyTorch. {@link Sequential} calls its children this way; a compiled caller traces the hooks.
     */
    public final Tensor call(Tensor input) {
        Tensor x = input;
        for (ForwardPreHook hook : forwardPreHooks) {
            Tensor replaced = hook.apply(this, x);
            if (replaced != null) x = replaced;
        }
        Tensor y = forward(x);
        for (ForwardHook hook : forwardHooks) {
            Tensor replaced = hook.apply(this, x, y);
            if (replaced != null) y = replaced;
        }
        return y;
    }

    /** Registers a hook run before {@code forward} by {@link #call}; the handle removes it. */
    public HookHandle registerForwardPreHook(ForwardPreHook hook) {
        if (hook == null) throw new NullPointerException("registerForwardPreHook: the hook is null");
        forwardPreHooks.add(hook);
        return new HookHandle(forwardPreHooks, hook);
    }

    /** Registers a hook run after {@code forward} by {@link #call}; the handle removes it. */
    public HookHandle registerForwardHook(ForwardHook hook) {
        if (hook == null) throw new NullPointerException("registerForwardHook: the hook is null");
        forwardHooks.add(hook);
        return new HookHandle(forwardHooks, hook);
    }

    /** The forward pre-hooks, in order (old-style weight_norm looks for its own among them). */
    final List<ForwardPreHook> forwardPreHooks() { return forwardPreHooks; }

    /** Whether {@link #call} runs anything besides {@code forward}. */
    public boolean hasForwardHooks() { return !forwardPreHooks.isEmpty() || !forwardHooks.isEmpty(); }

    // ------------------------------------------------------------------ training mode

    /** Training mode for this module and all submodules (dropout active, batch norm updating its statistics). */
    public Module train() { return train(true); }

    public Module train(boolean mode) {
        for (Module m : namedModules().values()) m.training = mode;
        return this;
    }

    /** Evaluation mode for this module and all submodules. */
    public Module eval() { return train(false); }

    public boolean isTraining() { return training; }

    // ------------------------------------------------------------------ parameters, buffers, submodules

    /** All parameters of this module and its submodules, each once, in {@link #namedParameters()} order. */
    public List<Parameter> parameters() { return List.copyOf(namedParameters().values()); }

    /** Parameters by dotted name ({@code 0.weight}), submodules after their parent, shared ones once. */
    public Map<String, Parameter> namedParameters() {
        Map<String, Parameter> out = new LinkedHashMap<>();
        Set<Tensor> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        namedModules().forEach((prefix, m) -> m.ownParameters().forEach((name, p) -> {
            if (seen.add(p)) out.put(qualify(prefix, name), p);
        }));
        return out;
    }

    public List<Tensor> buffers() { return List.copyOf(namedBuffers().values()); }

    /** Buffers (non-parameter state such as {@code running_mean}) by dotted name, shared ones once. */
    public Map<String, Tensor> namedBuffers() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        Set<Tensor> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        namedModules().forEach((prefix, m) -> m.ownBuffers().forEach((name, b) -> {
            if (seen.add(b)) out.put(qualify(prefix, name), b);
        }));
        return out;
    }

    /** The direct submodules. */
    public List<Module> children() { return List.copyOf(namedChildren().values()); }

    /**
     * The direct submodules by name: the {@code Module} fields (containers name theirs "0", "1", …),
     * then {@code parametrizations} when a tensor is parametrized.
     */
    public Map<String, Module> namedChildren() {
        Map<String, Module> out = new LinkedHashMap<>();
        for (Slot s : slots()) {
            if (s.kind() == Kind.MODULE && s.get(this) instanceof Module m) out.put(s.name(), m);
        }
        if (parametrizations != null) out.put("parametrizations", parametrizations);
        return out;
    }

    /**
     * Puts {@code child} in place of the submodule {@code name} (PyTorch's {@code add_module} over an
     * existing name), as {@link SyncBatchNorm#convertSyncBatchnorm} does. A field must be able to hold
     * the new module's class: Java's field types are checked where Python's attributes are not.
     */
    void replaceChild(String name, Module child) {
        for (Slot s : slots()) {
            if (s.kind() == Kind.MODULE && s.name().equals(name)) {
                if (!s.field().getType().isInstance(child)) {
                    throw new IllegalArgumentException("cannot put a " + child.getClass().getSimpleName() + " in " + getClass().getSimpleName() + "."
                            + s.field().getName() + ": the field's type is " + s.field().getType().getSimpleName()
                            + " (declare it as a supertype both share, such as " + commonSupertype(s.field().getType(), child.getClass()).getSimpleName() + ")");
                }
                s.set(this, child);
                return;
            }
        }
        throw new IllegalArgumentException("'" + name() + "' has no submodule '" + name + "'");
    }

    private static Class<?> commonSupertype(Class<?> a, Class<?> b) {
        Class<?> c = a;
        while (!c.isAssignableFrom(b)) c = c.getSuperclass();
        return c;
    }

    // ------------------------------------------------------------------ reading tensors (parametrizations)

    /**
     * The tensor {@code name} as a forward computation uses it: {@code field} (the value of the
     * field of that name, or null for a registered one) unless {@code name} is parametrized or
     * computed by a pre-hook, and then that value. Forward methods read every parameter and buffer
     * this way, {@code F.linear(x, read("weight", weight), read("bias", bias))}, so that
     * {@link Parametrize} can stand between the stored originals and the computation.
     */
    protected final Tensor read(String name, Tensor field) {
        if (parametrizations == null && computedTensors == null) return field;
        if (computedTensors != null && computedTensors.containsKey(name)) return computedTensors.get(name);
        if (parametrizations != null && parametrizations.containsKey(name)) return parametrizations.get(name).value(this, name);
        return field;
    }

    /**
     * Whether the tensor {@code name} is there, as PyTorch's {@code self.bias is not None}: its field
     * holds one, or it is parametrized or computed by a pre-hook (the field then holds null). For a
     * printout or a check that must not compute a parametrization's value.
     */
    protected final boolean present(String name, Tensor field) {
        return field != null || (parametrizations != null && parametrizations.containsKey(name))
                || (computedTensors != null && computedTensors.containsKey(name));
    }

    /** {@link #read} for a registered parameter ({@link #parameter(String)}): LSTM's {@code weight_hh_l0}, parametrized or not. */
    protected final Tensor readParameter(String name) {
        if (parametrizations == null && computedTensors == null) return parameter(name);
        return tensor(name);
    }

    /**
     * The parameter, buffer, parametrized or pre-hook-computed tensor named {@code name} (a field's
     * state-dict name or a registered one), as PyTorch's {@code getattr(module, name)}: a
     * parametrized name gives the parametrization's output, computed now (or taken from
     * {@link Parametrize#cached()}'s cache). Null for a field that holds null (Linear's absent bias).
     */
    public Tensor tensor(String name) {
        if (computedTensors != null && computedTensors.containsKey(name)) return computedTensors.get(name);
        if (parametrizations != null && parametrizations.containsKey(name)) return parametrizations.get(name).value(this, name);
        if (registeredParameters.containsKey(name)) return registeredParameters.get(name);   // before the fields: no reflection on the way to a parametrization's original
        if (registeredBuffers.containsKey(name)) return registeredBuffers.get(name);
        for (Slot s : slots()) {
            if (s.kind() != Kind.MODULE && s.name().equals(name)) return (Tensor) s.get(this);
        }
        throw new IllegalArgumentException("'" + name() + "' object has no attribute '" + name + "'");
    }

    /** Whether {@code name} is a tensor slot of this module: a parameter or buffer field, or a registered one. */
    final boolean hasTensorSlot(String name) {
        for (Slot s : slots()) {
            if (s.kind() != Kind.MODULE && s.name().equals(name)) return true;
        }
        return registeredParameters.containsKey(name) || registeredBuffers.containsKey(name);
    }

    /** Whether {@code name}'s slot is a parameter (a {@code Parameter} field, or a registered parameter). */
    final boolean isParameterSlot(String name) {
        for (Slot s : slots()) {
            if (s.name().equals(name)) return s.kind() == Kind.PARAMETER;
        }
        return registeredParameters.containsKey(name);
    }

    /**
     * Empties the slot {@code name} (the field becomes null, a registered tensor is dropped) and
     * returns what it held: the parametrization takes the tensor over.
     */
    final Tensor takeTensorSlot(String name) {
        for (Slot s : slots()) {
            if (s.kind() != Kind.MODULE && s.name().equals(name)) {
                Tensor t = (Tensor) s.get(this);
                s.set(this, null);
                return t;
            }
        }
        if (registeredParameters.containsKey(name)) return registeredParameters.remove(name);
        return registeredBuffers.remove(name);
    }

    /** Puts {@code tensor} back into the slot {@code name} (a field, or registered as a parameter or buffer by its class). */
    final void restoreTensorSlot(String name, Tensor tensor) {
        for (Slot s : slots()) {
            if (s.kind() != Kind.MODULE && s.name().equals(name)) {
                if (s.kind() == Kind.PARAMETER && !(tensor instanceof Parameter)) {
                    throw new IllegalArgumentException("cannot assign a plain tensor to the parameter field " + s.field().getName() + " of " + name());
                }
                s.set(this, tensor);
                return;
            }
        }
        if (tensor instanceof Parameter p) registeredParameters.put(name, p);
        else registeredBuffers.put(name, tensor);
    }

    /** The parametrizations child, made on first use (Parametrize's). */
    final ModuleDict<ParametrizationList> parametrizations(boolean create) {
        if (parametrizations == null && create) parametrizations = new ModuleDict<>();
        return parametrizations;
    }

    /** Drops the parametrizations child once it is empty, as PyTorch deletes {@code module.parametrizations}. */
    final void dropParametrizationsIfEmpty() {
        if (parametrizations != null && parametrizations.size() == 0) parametrizations = null;
    }

    final boolean hasComputedTensor(String name) { return computedTensors != null && computedTensors.containsKey(name); }

    final Tensor computedTensor(String name) { return computedTensors == null ? null : computedTensors.get(name); }

    /** Adds a hook that rewrites a state dict before {@link #loadStateDict} reads it (old key names of a parametrized tensor). */
    final void addLoadStateDictPreHook(java.util.function.BiConsumer<Map<String, Tensor>, String> hook) {
        if (loadStateDictPreHooks == null) loadStateDictPreHooks = new ArrayList<>();
        loadStateDictPreHooks.add(hook);
    }

    /** Sets (or with null removes) a pre-hook-computed tensor read by {@link #read}. */
    final void setComputedTensor(String name, Tensor value) {
        if (value == null) {
            if (computedTensors != null) computedTensors.remove(name);
            if (computedTensors != null && computedTensors.isEmpty()) computedTensors = null;
            return;
        }
        if (computedTensors == null) computedTensors = new LinkedHashMap<>();
        computedTensors.put(name, value);
    }

    /** This module (named "") and every submodule below it by dotted path, each once, parents first. */
    public Map<String, Module> namedModules() {
        Map<String, Module> out = new LinkedHashMap<>();
        collectModules("", this, out, Collections.newSetFromMap(new IdentityHashMap<>()));
        return out;
    }

    private static void collectModules(String prefix, Module m, Map<String, Module> out, Set<Module> seen) {
        if (!seen.add(m)) return;
        out.put(prefix, m);
        m.namedChildren().forEach((name, child) -> collectModules(qualify(prefix, name), child, out, seen));
    }

    /**
     * Adds a buffer made at run time (one not declared as a field), as PyTorch's
     * {@code register_buffer}; read it with {@link #buffer(String)}. Registering a name again
     * replaces the buffer.
     */
    public void registerBuffer(String name, Tensor tensor) {
        checkRegisteredName("buffer", name, tensor);
        if (tensor instanceof Parameter) {
            throw new IllegalArgumentException("cannot register a Parameter as buffer '" + name + "'; use registerParameter");
        }
        if (registeredParameters.containsKey(name)) throw new IllegalArgumentException("attribute '" + name + "' already exists in " + name() + " (a registered parameter)");
        registeredBuffers.put(name, tensor);
    }

    /**
     * Adds a parameter made at run time (one not declared as a field), as PyTorch's
     * {@code register_parameter}: it belongs to {@link #parameters()}, the state dict and
     * {@link #to(DType)} like a field's; read it with {@link #parameter(String)}. Modules whose
     * number of parameters depends on their configuration ({@link LSTM}'s {@code weight_ih_l0},
     * {@code weight_ih_l1}, …, {@link ParameterList}) register theirs. Registering a name again
     * replaces the parameter.
     */
    public void registerParameter(String name, Parameter parameter) {
        checkRegisteredName("parameter", name, parameter);
        if (registeredBuffers.containsKey(name)) throw new IllegalArgumentException("attribute '" + name + "' already exists in " + name() + " (a registered buffer)");
        registeredParameters.put(name, parameter);
    }

    /** The parameter registered under {@code name} with {@link #registerParameter}. */
    public Parameter parameter(String name) {
        Parameter p = registeredParameters.get(name);
        if (p == null) throw new IllegalArgumentException(name() + " has no registered parameter '" + name + "'; registered: " + registeredParameters.keySet());
        return p;
    }

    private void checkRegisteredName(String what, String name, Tensor tensor) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException(what + " name can't be empty");
        if (name.contains(".")) throw new IllegalArgumentException(what + " name can't contain \".\", got '" + name + "'");
        if (tensor == null) throw new IllegalArgumentException(what + " '" + name + "' can't be null");
        for (Slot s : slots()) {
            if (s.name().equals(name)) throw new IllegalArgumentException("attribute '" + name + "' already exists in " + name() + " (field " + s.field().getName() + ")");
        }
    }

    /** Drops the parameter registered as {@code name} (PyTorch's {@code del module._parameters[name]}). */
    final void removeRegisteredParameter(String name) { registeredParameters.remove(name); }

    final void removeRegisteredBuffer(String name) { registeredBuffers.remove(name); }

    /** The buffer registered under {@code name} with {@link #registerBuffer}. */
    public Tensor buffer(String name) {
        Tensor t = registeredBuffers.get(name);
        if (t == null) throw new IllegalArgumentException(name() + " has no registered buffer '" + name + "'; registered: " + registeredBuffers.keySet());
        return t;
    }

    // ------------------------------------------------------------------ gradients

    /**
     * Clears the gradients of every parameter, as PyTorch's {@code zero_grad()} (whose default is
     * {@code set_to_none=True}): each {@link Tensor#grad()} becomes null, so the next backward
     * writes fresh gradients instead of adding to old ones.
     */
    public void zeroGrad() { zeroGrad(true); }

    /**
     * With {@code setToNone}, as {@link #zeroGrad()}; without, each existing gradient is kept and
     * filled with zeros in place (detached first if it was itself recorded, as PyTorch does).
     */
    public void zeroGrad(boolean setToNone) { zeroGrads(parameters(), setToNone); }

    private static void zeroGrads(Iterable<? extends Tensor> tensors, boolean setToNone) {
        for (Tensor p : tensors) {
            Tensor g = p.grad();
            if (g == null) continue;
            if (setToNone) {
                p.setGrad(null);
                continue;
            }
            if (g.gradFn() != null) {
                g = g.detach();
                p.setGrad(g);
            }
            try (var unused = GradMode.noGrad()) {
                g.zero_();
            }
        }
    }

    // ------------------------------------------------------------------ dtype

    /**
     * Converts every floating-point parameter and buffer of this module and its submodules to
     * {@code dtype} (integer buffers such as {@code num_batches_tracked} stay as they are).
     * Parameters shared between modules stay shared.
     */
    public Module to(DType dtype) {
        if (!dtype.isFloatingPoint()) {
            throw new IllegalArgumentException("nn.Module.to only accepts floating point dtypes, but got desired dtype=" + dtype);
        }
        Map<Tensor, Tensor> converted = new IdentityHashMap<>();
        try (var unused = GradMode.noGrad()) {   // converted parameters are new leaves, not results of a conversion
            for (Module m : namedModules().values()) m.convertOwn(dtype, converted);
        }
        return this;
    }

    private void convertOwn(DType dtype, Map<Tensor, Tensor> converted) {
        for (Slot s : slots()) {
            if (s.kind() != Kind.MODULE && s.get(this) instanceof Tensor t) s.set(this, convert(t, dtype, converted));
        }
        registeredBuffers.replaceAll((name, t) -> convert(t, dtype, converted));
        registeredParameters.replaceAll((name, p) -> (Parameter) convert(p, dtype, converted));
    }

    private static Tensor convert(Tensor t, DType dtype, Map<Tensor, Tensor> converted) {
        if (!t.dtype().isFloatingPoint() || t.dtype() == dtype) return t;
        return converted.computeIfAbsent(t, x -> x instanceof Parameter p ? new Parameter(p.to(dtype), p.requiresGrad()) : x.to(dtype));
    }

    // ------------------------------------------------------------------ state dict

    /**
     * Parameters and buffers by dotted name in PyTorch's order (a module's parameters, then its
     * buffers, then each submodule's). The map is a fresh mutable copy; its tensors are the
     * module's own, so writing into them changes the module.
     */
    public Map<String, Tensor> stateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        saveInto(out, "");
        return out;
    }

    private void saveInto(Map<String, Tensor> out, String prefix) {
        ownParameters().forEach((name, p) -> out.put(prefix + name, p));
        ownBuffers().forEach((name, b) -> out.put(prefix + name, b));
        namedChildren().forEach((name, child) -> child.saveInto(out, prefix + name + "."));
    }

    /** {@link #loadStateDict(Map, boolean)} with {@code strict = true}. */
    public LoadResult loadStateDict(Map<String, ? extends Tensor> stateDict) { return loadStateDict(stateDict, true); }

    /**
     * Copies {@code stateDict}'s tensors into this module's parameters and buffers of the same
     * name. Every key is checked first and nothing is copied if any check fails: a missing or
     * unexpected key (when {@code strict}), or a tensor whose shape or dtype differs from the
     * module's, fails with PyTorch's "Error(s) in loading state_dict" listing every problem.
     */
    public LoadResult loadStateDict(Map<String, ? extends Tensor> given, boolean strict) {
        Map<String, Tensor> stateDict = new LinkedHashMap<>(given);
        namedModules().forEach((prefix, m) -> {
            if (m.loadStateDictPreHooks != null) m.loadStateDictPreHooks.forEach(h -> h.accept(stateDict, prefix.isEmpty() ? "" : prefix + "."));
        });
        Map<String, Tensor> own = stateDict();
        List<String> missing = new ArrayList<>(), unexpected = new ArrayList<>(), errors = new ArrayList<>();
        for (String key : own.keySet()) if (!stateDict.containsKey(key)) missing.add(key);
        for (String key : stateDict.keySet()) if (!own.containsKey(key)) unexpected.add(key);
        own.forEach((key, target) -> {
            if (!stateDict.containsKey(key)) return;
            Tensor source = stateDict.get(key);
            if (source == null) {
                errors.add("null tensor for " + key + " in the state dict");
            } else if (!Shapes.same(source.shape(), target.shape())) {
                errors.add("size mismatch for " + key + ": copying a param with shape " + torchSize(source) + " from checkpoint, the shape in current model is "
                        + torchSize(target) + ".");
            } else if (source.dtype() != target.dtype()) {
                errors.add("dtype mismatch for " + key + ": copying a param with dtype " + source.dtype() + " from checkpoint, the dtype in current model is "
                        + target.dtype() + ".");
            }
        });
        if (strict) {
            if (!unexpected.isEmpty()) errors.addFirst("Unexpected key(s) in state_dict: " + quoted(unexpected) + ". ");
            if (!missing.isEmpty()) errors.addFirst("Missing key(s) in state_dict: " + quoted(missing) + ". ");
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("Error(s) in loading state_dict for " + name() + ":\n\t" + String.join("\n\t", errors));
        }
        try (var unused = GradMode.noGrad()) {   // loading state is not a computation to differentiate
            own.forEach((key, target) -> {
                if (stateDict.containsKey(key)) target.copy_(stateDict.get(key));
            });
        }
        return new LoadResult(missing, unexpected);
    }

    // ------------------------------------------------------------------ files

    /**
     * Writes this module's {@link #stateDict()} to {@code file} in the safetensors format
     * ({@link SafeTensors}), replacing the file. A parameter shared by two submodules is saved
     * under each of its names, as in the state dict.
     */
    public void save(Path file) throws IOException { SafeTensors.save(stateDict(), file); }

    /** {@link #load(Path, boolean)} with {@code strict = true}. */
    public LoadResult load(Path file) throws IOException { return load(file, true); }

    /**
     * Loads a safetensors file written by {@link #save(Path)} (or by Hugging Face's
     * {@code safetensors.torch.save_file(model.state_dict(), …)}) into this module, as
     * {@link #loadStateDict(Map, boolean)}. Nothing changes unless everything checks out: the file
     * is read and validated whole first ({@link SafeTensors.FormatException} for a truncated or
     * corrupt file), then every key, shape and dtype is checked, then the tensors are copied.
     *
     * @throws IllegalArgumentException naming the file, for missing or unexpected keys (when
     *     {@code strict}) or a shape or dtype that differs from the module's
     */
    public LoadResult load(Path file, boolean strict) throws IOException {
        Map<String, Tensor> tensors = SafeTensors.load(file);
        try {
            return loadStateDict(tensors, strict);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    private static String torchSize(Tensor t) { return "torch.Size(" + Shapes.format(t.shape()) + ")"; }

    private static String quoted(List<String> keys) {
        StringBuilder sb = new StringBuilder();
        for (String k : keys) sb.append(sb.isEmpty() ? "" : ", ").append('"').append(k).append('"');
        return sb.toString();
    }

    // ------------------------------------------------------------------ printing

    /** The settings shown inside this module's parentheses when printed, e.g. {@code in_features=4, out_features=8, bias=True}. */
    protected String extraRepr() { return ""; }

    /** The module tree as PyTorch prints it. */
    @Override
    public String toString() {
        List<String> lines = new ArrayList<>();
        String extra = extraRepr();
        if (!extra.isEmpty()) lines.addAll(List.of(extra.split("\n")));
        int extraLines = lines.size();
        namedChildren().forEach((name, child) -> lines.add("(" + name + "): " + Repr.indent(child.toString())));
        StringBuilder sb = new StringBuilder(name()).append('(');
        if (extraLines == 1 && lines.size() == 1) sb.append(lines.getFirst());
        else if (!lines.isEmpty()) sb.append("\n  ").append(String.join("\n  ", lines)).append('\n');
        return sb.append(')').toString();
    }

    // ------------------------------------------------------------------ own state

    private List<Slot> slots() { return ModuleFields.of(getClass()); }

    private Map<String, Parameter> ownParameters() {
        Map<String, Parameter> out = new LinkedHashMap<>();
        for (Slot s : slots()) {
            if (s.kind() == Kind.PARAMETER && s.get(this) instanceof Parameter p) out.put(s.name(), p);
        }
        out.putAll(registeredParameters);
        return out;
    }

    private Map<String, Tensor> ownBuffers() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (Slot s : slots()) {
            if (s.kind() == Kind.BUFFER && s.get(this) instanceof Tensor t) out.put(s.name(), t);
        }
        out.putAll(registeredBuffers);
        return out;
    }

    /** The class name PyTorch prints: a parametrized module's class is {@code Parametrized<name>} there (parametrize's injected subclass). */
    private String name() {
        String simple = getClass().getSimpleName();
        if (simple.isEmpty()) simple = getClass().getName();
        return parametrizations != null ? "Parametrized" + simple : simple;
    }

    private static String qualify(String prefix, String name) { return prefix.isEmpty() ? name : prefix + "." + name; }
}
