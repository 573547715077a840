package dev.ember.inductor.codegen;

/** Java source being written, with indentation. */
final class Code {
    private final StringBuilder sb = new StringBuilder();
    private int depth;

    Code line(String s) {
        sb.append("    ".repeat(depth)).append(s).append('\n');
        return this;
    }

    /** A line ending in {@code {}, indenting what follows. */
    Code open(String s) {
        line(s);
        depth++;
        return this;
    }

    /** Dedents and writes {@code s} (usually {@code }} or {@code });}). */
    Code close(String s) {
        depth--;
        return line(s);
    }

    Code blank() {
        sb.append('\n');
        return this;
    }

    Code append(Code other) {
        for (String l : other.toString().split("\n", -1)) if (!l.isEmpty()) line(l);
        return this;
    }

    @Override
    public String toString() { return sb.toString(); }
}
