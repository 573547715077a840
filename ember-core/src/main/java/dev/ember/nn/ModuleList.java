package dev.ember.nn;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A list of submodules, registered so their parameters belong to the owner, as PyTorch's
 * {@code nn.ModuleList}; children are named "0", "1", …. It has no forward of its own.
 */
public class ModuleList<M extends Module> extends Module implements Iterable<M> {
    private final List<M> modules = new ArrayList<>();

    @SafeVarargs
    public ModuleList(M... modules) {
        for (M m : modules) append(m);
    }

    public ModuleList(List<? extends M> modules) {
        for (M m : modules) append(m);
    }

    /** Adds {@code module} at the end; returns this list. */
    public ModuleList<M> append(M module) {
        if (module == null) throw new IllegalArgumentException("ModuleList: cannot append null");
        modules.add(module);
        return this;
    }

    public M get(int index) { return modules.get(index); }

    public int size() { return modules.size(); }

    @Override
    public Iterator<M> iterator() { return List.copyOf(modules).iterator(); }

    @Override
    public Map<String, Module> namedChildren() {
        Map<String, Module> out = new LinkedHashMap<>(super.namedChildren());
        for (int i = 0; i < modules.size(); i++) out.put(Integer.toString(i), modules.get(i));
        return out;
    }

    @Override
    @SuppressWarnings("unchecked")
    void replaceChild(String name, Module child) {
        if (name.matches("\\d+") && Integer.parseInt(name) < modules.size()) {
            modules.set(Integer.parseInt(name), (M) child);
            return;
        }
        super.replaceChild(name, child);
    }
}
