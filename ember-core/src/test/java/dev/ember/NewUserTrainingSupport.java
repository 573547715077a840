package dev.ember;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ember.dynamo.FrameRegistry;
import dev.ember.nn.Linear;
import dev.ember.nn.Sequential;
import dev.ember.nn.Tanh;
import java.util.List;

/** What the new-user training programs ({@code NewUserTraining5*Test}) share: cache counts, trace comparison, a small MLP. */
final class NewUserTrainingSupport {
    private NewUserTrainingSupport() {}

    /** Compiled graphs held by every frame's cache. */
    static int allEntries() {
        return FrameRegistry.frames().stream().mapToInt(f -> f.entries().size()).sum();
    }

    /** Two runs' traces (losses, parameters, step by step) equal within {@code tol}. */
    static void sameTrace(List<float[]> eager, List<float[]> compiled, float tol, String what) {
        assertEquals(eager.size(), compiled.size(), what + ": trace length");
        for (int i = 0; i < eager.size(); i++) assertArrayEquals(eager.get(i), compiled.get(i), tol, what + ": value " + i);
    }

    static Sequential mlp(int in, int hidden, int out) {
        return new Sequential(new Linear(in, hidden), new Tanh(), new Linear(hidden, out));
    }
}
