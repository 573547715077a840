package dev.ember.logging;

/**
 * {@code EMBER_VERBOSE=1} (or the system property {@code ember.verbose=1}), PyTorch's
 * {@code TORCHDYNAMO_VERBOSE}: an error that is Ember's own — the translator failing, a backend
 * throwing — keeps Ember's stack and says the full trace context (the frame, the instruction and its
 * bytecode index, the graph so far). Off (the default) it is one message for the user: what failed,
 * at which line of their code, and this switch. Read when the error is made.
 */
public final class Verbose {
    private Verbose() {}

    public static final String ENV = "EMBER_VERBOSE";
    /** The system property read first, so a program (or a test) can switch it on for itself. */
    public static final String PROPERTY = "ember.verbose";
    /** The line a short error ends with. */
    public static final String HINT = "set EMBER_VERBOSE=1 for Ember's own stack and the full trace context";

    /**
     * Whether errors are verbose now.
     *
     * @throws IllegalArgumentException when the setting is neither 1 nor 0
     */
    public static boolean enabled() {
        return Switches.flag(PROPERTY, ENV, "Ember's own stack and the trace context in its errors", "one message");
    }
}
