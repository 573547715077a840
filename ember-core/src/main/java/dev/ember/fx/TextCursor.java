package dev.ember.fx;

/**
 * A position in one line of a printed graph, for the parsers of its two text forms ({@link GraphText}
 * and {@link ReadableParser}): the pieces both read the same way. Columns count from 1.
 */
class TextCursor {
    final String s;
    int at;

    TextCursor(String s) { this.s = s; }

    void skipSpace() { while (at < s.length() && s.charAt(at) == ' ') at++; }

    boolean atEnd() {
        skipSpace();
        return at >= s.length();
    }

    boolean peek(char ch) {
        skipSpace();
        return at < s.length() && s.charAt(at) == ch;
    }

    /** Whether the text here (after spaces) starts with {@code text}; moves past it when it does. */
    boolean eat(String text) {
        skipSpace();
        if (!s.startsWith(text, at)) return false;
        at += text.length();
        return true;
    }

    void expect(char ch) {
        if (!peek(ch)) throw new IllegalArgumentException("expected '" + ch + "' at column " + (at + 1) + (at < s.length() ? ", found '" + s.charAt(at) + "'" : ", found the end of the line"));
        at++;
    }

    boolean eatWord(String w) {
        skipSpace();
        if (s.startsWith(w, at) && (at + w.length() == s.length() || s.charAt(at + w.length()) == ' ')) {
            at += w.length();
            return true;
        }
        return false;
    }

    /** A name, dots allowed: {@code x}, {@code aten.add.Tensor}, {@code linear.weight}. */
    String identifier() {
        skipSpace();
        int start = at;
        while (at < s.length() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_' || s.charAt(at) == '.')) at++;
        if (start == at) throw new IllegalArgumentException("expected a name at column " + (at + 1));
        return s.substring(start, at);
    }

    void end() {
        skipSpace();
        if (at != s.length()) throw new IllegalArgumentException("unexpected text at column " + (at + 1) + ": '" + s.substring(at) + "'");
    }

    /** A Java string literal starting here (at its opening quote), unescaped. */
    String string() {
        StringBuilder sb = new StringBuilder();
        at++;
        while (at < s.length()) {
            char ch = s.charAt(at++);
            if (ch == '"') return sb.toString();
            if (ch != '\\') { sb.append(ch); continue; }
            if (at >= s.length()) break;
            char e = s.charAt(at++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'u' -> { sb.append((char) Integer.parseInt(s.substring(at, at + 4), 16)); at += 4; }
                default -> sb.append(e);
            }
        }
        throw new IllegalArgumentException("unterminated string");
    }
}
