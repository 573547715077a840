package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Modules applied in order, each to the previous one's output, as PyTorch's {@code nn.Sequential}; children are named "0", "1", …. */
public class Sequential extends Module {
    private final List<Module> modules = new ArrayList<>();

    public Sequential(Module... modules) {
        for (Module m : modules) append(m);
    }

    /** Adds {@code module} at the end; returns this container. */
    public Sequential append(Module module) {
        if (module == null) throw new IllegalArgumentException("Sequential: cannot append null");
        modules.add(module);
        return this;
    }

    public Module get(int index) { return modules.get(index); }

    public int size() { return modules.size(); }

    @Override
    public Tensor forward(Tensor input) {
        Tensor x = input;
        for (int i = 0; i < modules.size(); i++) x = modules.get(i).call(x);
        return x;
    }

    @Override
    public Map<String, Module> namedChildren() {
        Map<String, Module> out = new LinkedHashMap<>(super.namedChildren());
        for (int i = 0; i < modules.size(); i++) out.put(Integer.toString(i), modules.get(i));
        return out;
    }

    @Override
    void replaceChild(String name, Module child) {
        if (name.matches("\\d+") && Integer.parseInt(name) < modules.size()) {
            modules.set(Integer.parseInt(name), child);
            return;
        }
        super.replaceChild(name, child);
    }
}
