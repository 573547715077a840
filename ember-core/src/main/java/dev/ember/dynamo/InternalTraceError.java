package dev.ember.dynamo;

import dev.ember.events.UserFrame;
import dev.ember.fx.GraphModule;
import dev.ember.logging.Verbose;

import java.lang.classfile.Instruction;

/**
 * A bug in the translator (not in user code): something it should handle failed while tracing.
 * Without {@code EMBER_VERBOSE=1} it is one message for the user — what failed, the line of their
 * code being traced, what to do — with their frames only as its stack; with it, the message adds the
 * trace context (the frame, the instruction and its bytecode index, the user stack, the graph so
 * far) and the cause keeps Ember's stack, so a report can reproduce it.
 */
public final class InternalTraceError extends RuntimeException {
    private final boolean verbose;

    private InternalTraceError(String message, Throwable cause, boolean verbose) {
        super(message, verbose ? cause : null);
        this.verbose = verbose;
    }

    /** Whether the error was made with EMBER_VERBOSE on: its stack and cause are Ember's, for Ember's developers. */
    public boolean verbose() { return verbose; }

    /** The translator of {@code frame} failed running {@code ins}. */
    static InternalTraceError at(TraceContext ctx, InstructionTranslator frame, Instruction ins, RuntimeException cause) {
        boolean verbose = Verbose.enabled();
        String context = null;
        if (verbose) {
            StringBuilder sb = new StringBuilder("trace context:\n");
            sb.append("  frame: ").append(frame.code).append(ctx.frames.size() > 1 ? " (inlined into " + ctx.frames.getFirst().code + ")" : "").append('\n');
            sb.append("  instruction: ").append(ins.opcode().name().toLowerCase()).append(" at bci ").append(frame.code.bci[frame.currentIndex()]).append('\n');
            sb.append("  user stack (most recent call last):\n");
            for (UserFrame f : ctx.userStack()) sb.append("    ").append(line(f)).append('\n');
            sb.append("  graph so far:\n").append(new GraphModule(ctx.graph.graph()).code().indent(4));
            context = sb.toString();
        }
        return new InternalTraceError(message(functionName(ctx.frames.getFirst().code), describe(cause), ctx.currentLocation(), context, verbose), cause, verbose);
    }

    /** Ember failed on its own while tracing {@code function}, at {@code where} in the user's code (or null). */
    static InternalTraceError of(String function, String problem, UserFrame where, Throwable cause) {
        boolean verbose = Verbose.enabled();
        return new InternalTraceError(message(function, problem, where, null, verbose), cause, verbose);
    }

    private static String message(String function, String problem, UserFrame where, String context, boolean verbose) {
        StringBuilder sb = new StringBuilder("Ember internal error while compiling ").append(function).append(": ").append(problem);
        if (where != null) sb.append("\n  while tracing your code at ").append(line(where));
        sb.append("\n  This is a bug in Ember, not in your code; please report it. Meanwhile Ember.disable(fn) or Ember.setStance(Stance.FORCE_EAGER)"
                + " runs the function eagerly.");
        if (!verbose) return sb.append("\n  ").append(Verbose.HINT).toString();
        if (context != null) sb.append('\n').append(context.stripTrailing());
        return sb.toString();
    }

    /** {@code MyApp.java:13 in MyApp.fn:  Tensor z = x.add(y);} */
    private static String line(UserFrame f) { return f + (f.sourceText() == null ? "" : ":  " + f.sourceText().strip()); }

    private static String describe(Throwable t) { return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage()); }

    /** {@code MyApp.fn}, as the logs name a compiled method. */
    static String functionName(MethodCode code) {
        String cls = ClassFiles.origin(code.owner).getName();
        return cls.substring(cls.lastIndexOf('.') + 1) + "." + code.name;
    }
}
