package dev.ember.dynamo;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Who hears of graph breaks on this thread while they are compiled ({@code Ember.explain} collects them). */
final class BreakListeners {
    private static final ThreadLocal<List<Consumer<Unsupported>>> LISTENERS = ThreadLocal.withInitial(ArrayList::new);

    private BreakListeners() {}

    static void graphBreak(Unsupported u) {
        for (Consumer<Unsupported> l : LISTENERS.get()) l.accept(u);
    }

    /** Listens until the returned handle is closed. */
    static AutoCloseable listen(Consumer<Unsupported> l) {
        LISTENERS.get().add(l);
        return () -> LISTENERS.get().remove(l);
    }
}
