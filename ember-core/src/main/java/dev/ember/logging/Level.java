package dev.ember.logging;

/** Log levels, lowest first, with the one-letter tag each line starts with (glog's letters, as PyTorch prints them). */
public enum Level {
    DEBUG('V'), INFO('I'), WARNING('W'), ERROR('E');

    private final char tag;

    Level(char tag) { this.tag = tag; }

    /** The letter that starts a log line at this level: V(erbose), I, W, E. */
    public char tag() { return tag; }

    /** True when a message at this level passes a log set to {@code threshold}. */
    public boolean atLeast(Level threshold) { return compareTo(threshold) >= 0; }
}
