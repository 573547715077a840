package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * A graph input the compiled code writes by value (computes its new value, then copies it back)
 * shares memory with no other tensor input: were it to, the other input would have to see the
 * write in the middle of the graph. PyTorch's {@code NO_TENSOR_ALIASING}.
 */
public record NoTensorAliasing(Source source, List<Source> others) implements Guard {
    public NoTensorAliasing {
        others = List.copyOf(others);
    }

    @Override
    public String kind() { return "NO_TENSOR_ALIASING"; }

    @Override
    public Object read(Object[] frame) {
        Object[] values = new Object[others.size() + 1];
        values[0] = source.read(frame);
        for (int i = 0; i < others.size(); i++) values[i + 1] = others.get(i).read(frame);
        return values;
    }

    @Override
    public boolean check(Object[] frame) {
        if (!(source.read(frame) instanceof Tensor t) || t.storage() == null) return true;
        for (Source o : others) if (o.read(frame) instanceof Tensor u && u.storage() == t.storage()) return false;
        return true;
    }

    @Override
    public boolean test(Object value) {
        Object[] values = (Object[]) value;
        if (!(values[0] instanceof Tensor t) || t.storage() == null) return true;
        for (int i = 1; i < values.length; i++) if (values[i] instanceof Tensor u && u.storage() == t.storage()) return false;
        return true;
    }

    @Override
    public String explainFailure(Object value) {
        Object[] values = (Object[]) value;
        for (int i = 1; i < values.length; i++) {
            if (values[0] instanceof Tensor t && values[i] instanceof Tensor u && u.storage() == t.storage()) {
                return source.name() + " shares memory with " + others.get(i - 1).name() + " (the graph writes " + source.name() + ")";
            }
        }
        return "no aliasing";
    }

    @Override
    public String describe() {
        return "NO_TENSOR_ALIASING: " + source.name() + " (written) shares memory with none of " + others.stream().map(Source::name).toList();
    }
}
