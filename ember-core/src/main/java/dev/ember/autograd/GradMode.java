package dev.ember.autograd;

/**
 * Whether autograd records operations (PyTorch's {@code torch.is_grad_enabled()}), per thread, and
 * the scopes that switch it: {@link #noGrad()}, {@link #enableGrad()}, {@link #inferenceMode()}
 * (also on {@code Ember}). Compiled code guards on it.
 * <pre>{@code
 * try (var scope = Ember.noGrad()) {
 *     p.sub_(p.grad().mul(lr));      // an optimizer step: not recorded
 * }                                  // grad mode is what it was before
 * }</pre>
 */
public final class GradMode {
    private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(() -> new State(true, false));

    private record State(boolean enabled, boolean inference) {}

    private GradMode() {}

    public static boolean isEnabled() { return STATE.get().enabled; }

    public static void setEnabled(boolean enabled) {
        State s = STATE.get();
        STATE.set(new State(enabled, s.inference));
    }

    /** True inside {@link #inferenceMode()}. */
    public static boolean isInferenceMode() { return STATE.get().inference; }

    /** Turns recording off until the scope closes (PyTorch's {@code torch.no_grad()}). */
    public static Scope noGrad() { return enter(false, STATE.get().inference, "noGrad"); }

    /** Turns recording on until the scope closes, e.g. inside a {@link #noGrad()} (PyTorch's {@code torch.enable_grad()}). */
    public static Scope enableGrad() { return enter(true, false, "enableGrad"); }

    /**
     * No recording, for inference (PyTorch's {@code torch.inference_mode()}). Ember treats it as
     * {@link #noGrad()} that says so: tensors made inside are ordinary tensors afterwards.
     */
    public static Scope inferenceMode() { return enter(false, true, "inferenceMode"); }

    /**
     * A scope that changes nothing now and, closed, sets recording back to {@code enabled}: what
     * compiled code hands the rest of a method when a graph break falls inside a traced scope (the
     * graph already switched the mode), on whichever thread runs it.
     */
    public static Scope restoring(boolean enabled, String name) {
        return new Scope(new State(enabled, false), null, name);
    }

    private static Scope enter(boolean enabled, boolean inference, String name) {
        State before = STATE.get();
        STATE.set(new State(enabled, inference));
        return new Scope(before, Thread.currentThread(), name);
    }

    /** A grad-mode scope: closing it restores the mode it found. Use it in try-with-resources. */
    public static final class Scope implements AutoCloseable {
        private final State before;
        private final Thread owner;
        private final String name;
        private boolean closed;

        private Scope(State before, Thread owner, String name) {
            this.before = before;
            this.owner = owner;
            this.name = name;
        }

        /** Whether recording was on when the scope opened. */
        public boolean wasEnabled() { return before.enabled; }

        @Override
        public void close() {
            if (owner == null) {   // restoring(): closed once per call of the compiled code that holds it
                STATE.set(before);
                return;
            }
            if (closed) return;
            if (owner != null && Thread.currentThread() != owner) {
                throw new IllegalStateException(name + "() scope opened on thread " + owner.getName() + " closed on " + Thread.currentThread().getName()
                        + ": grad mode is per thread; open and close it on the same thread");
            }
            closed = true;
            STATE.set(before);
        }

        @Override
        public String toString() { return name + "()"; }
    }
}
