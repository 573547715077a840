package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A {@code java.lang.StringBuilder} or {@code StringBuffer} (the same methods, synchronized; a
 * trace runs on one thread) made during the trace, or passed in. Everything appended to it
 * is text known while tracing (constants, sizes, strings), so the trace keeps the builder itself:
 * {@link #text()} is a real StringBuilder the trace owns and changes as the program changes its
 * builder, and its methods answer as Java's do. After the graph a builder made in the trace is
 * made again with its text; the caller's builder gets what the trace appended, or (once the trace
 * read its text, which is then guarded) its final text.
 */
public final class StringBuilderVariable implements VariableTracker {
    private final StringBuilder text;
    private final Class<? extends CharSequence> type;
    private final Source source;
    private final String initial;
    private boolean read;

    /** A builder of {@code type} (StringBuilder or StringBuffer) made in the trace. */
    public StringBuilderVariable(Class<? extends CharSequence> type) { this(type, null, ""); }

    /** The caller's builder of {@code type} at {@code source}, holding {@code initial} when the call came. */
    public StringBuilderVariable(Class<? extends CharSequence> type, Source source, String initial) {
        if (type != StringBuilder.class && type != StringBuffer.class) throw new IllegalArgumentException(type.getName());
        this.type = type;
        this.source = source;
        this.initial = initial;
        this.text = new StringBuilder(initial);
    }

    /** The class the program sees: StringBuilder or StringBuffer. */
    public Class<? extends CharSequence> type() { return type; }

    /** The builder's text so far, the real StringBuilder the traced calls run on. */
    public StringBuilder text() { return text; }

    /** The caller's builder's text when the call came ("" for one made in the trace). */
    public String initial() { return initial; }

    /** Whether the trace depended on the text (anything but appending): the caller's text is then guarded, and its final text set. */
    public boolean isRead() { return read; }

    public void markRead() { read = true; }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() {
        String shown = text.length() <= 40 ? text.toString() : text.substring(0, 37) + "...";
        return (source == null ? "" : source.name() + ", ") + type.getSimpleName() + " \"" + shown + "\"";
    }
}
