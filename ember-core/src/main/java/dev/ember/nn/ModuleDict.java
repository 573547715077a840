package dev.ember.nn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Submodules by name, registered so their parameters belong to the owner, as PyTorch's
 * {@code nn.ModuleDict}: insertion order is kept, names are the state dict's prefixes. It has no
 * forward of its own; a compiled caller traces lookups and iteration like a {@code LinkedHashMap}'s.
 */
public class ModuleDict<M extends Module> extends Module {
    private final Map<String, M> modules = new LinkedHashMap<>();

    public ModuleDict() {}

    public ModuleDict(Map<String, ? extends M> modules) {
        modules.forEach(this::put);
    }

    /** Adds or replaces {@code name}; returns this dict. */
    public ModuleDict<M> put(String name, M module) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("ModuleDict: module name can't be empty");
        if (name.contains(".")) throw new IllegalArgumentException("ModuleDict: module name can't contain \".\", got '" + name + "'");
        if (module == null) throw new IllegalArgumentException("ModuleDict: module '" + name + "' can't be null");
        modules.put(name, module);
        return this;
    }

    /** The module under {@code name}; PyTorch's KeyError as an exception naming the keys there are. */
    public M get(String name) {
        M m = modules.get(name);
        if (m == null) throw new IllegalArgumentException("ModuleDict has no module '" + name + "'; its keys: " + modules.keySet());
        return m;
    }

    public boolean containsKey(String name) { return modules.containsKey(name); }

    /** Removes and returns the module under {@code name} (PyTorch's {@code pop}). */
    public M remove(String name) {
        M m = get(name);
        modules.remove(name);
        return m;
    }

    public int size() { return modules.size(); }

    /** The names, in insertion order (a copy). */
    public Set<String> keySet() { return new java.util.LinkedHashSet<>(modules.keySet()); }

    /** The modules, in insertion order (a copy). */
    public Collection<M> values() { return new ArrayList<>(modules.values()); }

    /** The entries, in insertion order (a copy). */
    public List<Map.Entry<String, M>> entries() {
        List<Map.Entry<String, M>> out = new ArrayList<>();
        modules.forEach((k, v) -> out.add(Map.entry(k, v)));
        return out;
    }

    @Override
    public Map<String, Module> namedChildren() {
        Map<String, Module> out = new LinkedHashMap<>(super.namedChildren());
        out.putAll(modules);
        return out;
    }

    @Override
    @SuppressWarnings("unchecked")
    void replaceChild(String name, Module child) {
        if (modules.containsKey(name)) {
            modules.put(name, (M) child);
            return;
        }
        super.replaceChild(name, child);
    }
}
