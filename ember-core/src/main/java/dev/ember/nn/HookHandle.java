package dev.ember.nn;

import java.util.List;

/** A registered hook, as PyTorch's {@code RemovableHandle}: {@link #remove()} unregisters it (once; again does nothing). */
public final class HookHandle implements AutoCloseable {
    private final List<?> hooks;
    private final Object hook;

    HookHandle(List<?> hooks, Object hook) {
        this.hooks = hooks;
        this.hook = hook;
    }

    public void remove() {
        for (int i = 0; i < hooks.size(); i++) {
            if (hooks.get(i) == hook) {
                hooks.remove(i);
                return;
            }
        }
    }

    /** {@link #remove()}: a hook registered for one block, in try-with-resources. */
    @Override
    public void close() { remove(); }
}
