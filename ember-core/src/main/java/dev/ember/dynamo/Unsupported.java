package dev.ember.dynamo;

import dev.ember.events.UserFrame;

import java.util.List;

/**
 * A graph break: the translator met something it cannot put in a graph. With {@code fullgraph} it
 * reaches the user; otherwise the frame falls back to eager and the break is recorded.
 */
public final class Unsupported extends RuntimeException {
    private final GraphBreakType type;
    private final String reason;
    private final List<UserFrame> userStack;
    /** Why no resume method may start at this break (the frame then runs eagerly), or null when one may. */
    private String noResume;

    public Unsupported(GraphBreakType type, String reason, List<UserFrame> userStack, Throwable cause) {
        super(format(type, reason, userStack), cause);
        this.type = type;
        this.reason = reason;
        this.userStack = List.copyOf(userStack);
    }

    public GraphBreakType type() { return type; }

    /** The graph-break id, e.g. {@code GB0002}. */
    public String gbId() { return type.id(); }

    /** What happened, in words (the developer context). */
    public String reason() { return reason; }

    /** The innermost user frame where the break happened (library frames such as Tensor.java are skipped). */
    public UserFrame userFrame() { return userStack.isEmpty() ? null : userStack.getLast(); }

    /** Outermost first: the compiled function, then each inlined call down to the break. */
    public List<UserFrame> userStack() { return userStack; }

    public List<String> hints() { return type.hints(); }

    /** Why the code after this break must not resume in a graph of its own (the frame runs eagerly), or null. */
    String noResume() { return noResume; }

    /** This break, marked as one no resume method may start at, for {@code why}. */
    Unsupported withoutResume(String why) {
        noResume = why;
        return this;
    }

    private static String format(GraphBreakType type, String reason, List<UserFrame> stack) {
        StringBuilder sb = new StringBuilder();
        sb.append("Graph break in user code at ").append(stack.isEmpty() ? "<unknown>" : stack.getLast()).append('\n');
        sb.append("  Reason: ").append(type.shortType()).append(" (").append(type.id()).append(")\n");
        sb.append("  Explanation: ").append(type.explanation()).append('\n');
        for (String h : type.hints()) sb.append("  Hint: ").append(h).append('\n');
        sb.append("  Developer context: ").append(reason).append('\n');
        sb.append("  See ").append(type.docsPath()).append('\n');
        if (!stack.isEmpty()) {
            sb.append("  User stack (most recent call last):\n");
            for (UserFrame f : stack) {
                sb.append("    ").append(f).append(f.sourceText() == null ? "" : ":  " + f.sourceText().strip()).append('\n');
            }
        }
        return sb.toString().stripTrailing();
    }
}
