package dev.ember.dynamo;

/**
 * Code that runs while Ember traces a compiled function, not when the function runs (PyTorch's
 * {@code torch._dynamo.comptime}): put a call in the function, and the tracer evaluates it where
 * the trace reaches it and adds nothing to the graph. It shows what the tracer sees there: each
 * local as a fake tensor with its shape, a constant or a symbolic number; the graph built so far;
 * the guards installed so far.
 * <pre>{@code
 * static Tensor fn(Tensor x, int n) {
 *     Tensor y = x.relu().mul(n);
 *     Comptime.printLocals();      // x, n, y as the tracer holds them
 *     Comptime.breakpoint();       // a console on the terminal: locals, local y, graph, guards, stack, disas, continue
 *     return y.sum();
 * }
 * }</pre>
 * When the code runs without being traced (the function called directly, or its compiled form
 * running this code eagerly: after a graph break that cannot resume, past the recompile limit),
 * there is nothing to show: {@link #breakpoint()} throws, saying so, and every other method does
 * nothing, so that the function still runs eagerly, e.g. to compare its result with the compiled one.
 * See docs/comptime.md.
 */
public final class Comptime {
    private Comptime() {}

    /**
     * Pauses tracing here and opens a console on the terminal to look at the tracer's state
     * ({@code help} lists the commands, {@code continue} resumes tracing). Without a terminal
     * (output redirected, a test) it prints the locals, the graph and the operand stack, and
     * tracing continues.
     *
     * @throws IllegalStateException when it runs as ordinary Java code instead of being traced
     */
    public static void breakpoint() {
        StackWalker.StackFrame caller = StackWalker.getInstance().walk(s -> s.skip(1).findFirst()).orElse(null);
        String at = caller == null ? "" : " at " + caller.getFileName() + ":" + caller.getLineNumber() + " in "
                + caller.getClassName().substring(caller.getClassName().lastIndexOf('.') + 1) + "." + caller.getMethodName();
        throw new IllegalStateException("Comptime.breakpoint() ran as ordinary Java code" + at + ", not while Ember traced it. It pauses tracing, "
                + "so it works only in a function passed to Ember.compile (or Ember.explain), on a call that traces: the first call, or one that "
                + "recompiles. Here the function was called directly, or its compiled form ran this code eagerly (after a graph break that cannot "
                + "resume, past the recompile limit). Call the compiled function, e.g. Ember.compile(MyApp::fn).apply(x), and remove the "
                + "breakpoint before running the function eagerly.");
    }

    /** Prints the graph built so far, as {@code EMBER_LOGS=graph_code} prints graphs, with source lines. */
    public static void printGraph() {}

    /** Prints each local: slot, name, declared type, and what the tracer holds (a fake tensor, a constant, a symbolic number). */
    public static void printLocals() {}

    /** Prints the guards installed so far. */
    public static void printGuards() {}

    /** Prints the operand stack, bottom first (empty between statements). */
    public static void printStack() {}

    /** Prints the method's bytecode with an arrow at this call. */
    public static void printDisas() {}

    /** Prints the user frames being traced: the compiled function, then each inlined call down to this one. */
    public static void printBacktrace() {}

    /**
     * Fails tracing with an {@link AssertionError} unless {@code value} is a constant while tracing:
     * not a symbolic size ({@code x.size(0)} of a dynamic dimension), not a number the graph takes as
     * an input or computes. The error says why it is not, and what makes it static.
     */
    public static void assertStatic(int value) {}

    /** {@link #assertStatic(int)} for a long. */
    public static void assertStatic(long value) {}

    /** {@link #assertStatic(int)} for a double (a graph input unless {@code Options.specializeFloat(true)}). */
    public static void assertStatic(double value) {}

    /** {@link #assertStatic(int)} for a boolean. */
    public static void assertStatic(boolean value) {}

    /** {@link #assertStatic(int)} for any other value: a tensor is never static. */
    public static void assertStatic(Object value) {}

    /**
     * A graph break here, as {@code Ember.graphBreak()} (GB0016): the graph so far is compiled, and
     * the code after the call continues in a resume method. Run eagerly (as the code at the break
     * is), it does nothing.
     */
    public static void graphBreak() {}
}
