package dev.ember.dynamo;

import dev.ember.Stance;

import java.util.Objects;

/**
 * The stance compiled functions run under ({@code Ember.setStance}): one for the whole process, as
 * PyTorch's {@code set_stance} is, so a stance set on one thread is seen by compiled functions
 * called on every thread. The frame evaluator reads it at each call ({@link CompiledFrame}).
 */
public final class Stances {
    private static volatile Stance current = Stance.DEFAULT;

    private Stances() {}

    public static Stance current() { return current; }

    public static void set(Stance stance) { current = Objects.requireNonNull(stance, "stance"); }

    /** Sets {@code stance} until the scope closes, then puts back the stance it replaced. */
    public static Scope enter(Stance stance) {
        Stance before = current;
        set(stance);
        return new Scope(before);
    }

    /** A stance for a block: {@code try (var s = Ember.stance(Stance.FORCE_EAGER)) { … }}. Scopes nest. */
    public static final class Scope implements AutoCloseable {
        private final Stance before;
        private boolean closed;

        private Scope(Stance before) { this.before = before; }

        /** The stance in force when the scope opened, which closing it restores. */
        public Stance before() { return before; }

        /** Restores the stance the scope replaced; closing twice does nothing. */
        @Override
        public void close() {
            if (closed) return;
            closed = true;
            current = before;
        }
    }
}
