package dev.ember.dynamo;

/** Thrown instead of falling back to eager when {@code Options.failOnRecompileLimitHit(true)} is set. */
public final class RecompileLimitExceeded extends RuntimeException {
    public RecompileLimitExceeded(String message) { super(message); }
}
