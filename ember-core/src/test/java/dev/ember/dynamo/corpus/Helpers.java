package dev.ember.dynamo.corpus;

import dev.ember.tensor.Tensor;

import java.util.List;

/** Helpers in another class, as user code often has them. */
final class Helpers {
    private Helpers() {}

    static Tensor transposeCopy(Tensor x) { return x.t().contiguous(); }

    static Tensor joinRows(List<Tensor> parts) {
        Tensor out = parts.get(0);
        for (int i = 1; i < parts.size(); i++) out = Tensor.cat(List.of(out, parts.get(i)), 0);
        return out;
    }
}
