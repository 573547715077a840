package dev.ember.nn;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Parameters in a list, registered on this module as "0", "1", …, as PyTorch's
 * {@code nn.ParameterList}. It has no forward of its own.
 */
public class ParameterList extends Module implements Iterable<Parameter> {
    private final List<String> names = new ArrayList<>();

    public ParameterList(Parameter... parameters) {
        for (Parameter p : parameters) append(p);
    }

    public ParameterList(List<? extends Parameter> parameters) {
        for (Parameter p : parameters) append(p);
    }

    /** Adds {@code parameter} at the end; returns this list. */
    public ParameterList append(Parameter parameter) {
        if (parameter == null) throw new IllegalArgumentException("ParameterList: cannot append null");
        String name = Integer.toString(names.size());
        registerParameter(name, parameter);
        names.add(name);
        return this;
    }

    public Parameter get(int index) {
        if (index < 0) index += names.size();
        if (index < 0 || index >= names.size()) throw new IndexOutOfBoundsException("index " + index + " is out of range for a ParameterList of " + names.size());
        return parameter(names.get(index));
    }

    public int size() { return names.size(); }

    @Override
    public Iterator<Parameter> iterator() {
        List<Parameter> out = new ArrayList<>();
        for (String n : names) out.add(parameter(n));
        return out.iterator();
    }
}
