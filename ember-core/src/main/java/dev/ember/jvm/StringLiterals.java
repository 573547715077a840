package dev.ember.jvm;

/** Strings as Java source writes them: quoted, with escapes, so generated code and listings show them the same way. */
public final class StringLiterals {
    private StringLiterals() {}

    /** {@code "a\"b\n"}: the Java literal that is {@code s} (control and non-ASCII characters as {@code \}{@code uXXXX}). */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
