package dev.ember.nn;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Parameters by name, registered on this module, as PyTorch's {@code nn.ParameterDict}
 * (insertion order). It has no forward of its own.
 */
public class ParameterDict extends Module {
    private final Set<String> names = new LinkedHashSet<>();

    public ParameterDict() {}

    /** Adds or replaces {@code name}; returns this dict. */
    public ParameterDict put(String name, Parameter parameter) {
        registerParameter(name, parameter);
        names.add(name);
        return this;
    }

    public Parameter get(String name) { return parameter(name); }

    public boolean containsKey(String name) { return names.contains(name); }

    public int size() { return names.size(); }

    /** The names, in insertion order (a copy). */
    public List<String> keys() { return new ArrayList<>(names); }
}
