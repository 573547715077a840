package dev.ember.logging;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON into plain Java values: objects as {@code LinkedHashMap<String, Object>} (key order kept), arrays
 * as {@code List<Object>}, strings, {@code Long} for integers that fit, {@code Double} for other numbers,
 * {@code Boolean}, {@code null}. Strict: trailing text, trailing commas and bad escapes are errors.
 */
public final class JsonReader {
    private final String text;
    private int pos;

    private JsonReader(String text) {
        this.text = text;
    }

    /** Parses one JSON value. @throws IllegalArgumentException saying what was expected and at which column */
    public static Object parse(String text) {
        JsonReader r = new JsonReader(text);
        r.skipSpace();
        Object v = r.value();
        r.skipSpace();
        if (r.pos != text.length()) throw r.error("end of JSON");
        return v;
    }

    /** Parses a JSON object. @throws IllegalArgumentException when the text is not one */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) throw new IllegalArgumentException("expected a JSON object, got " + describe(v));
        return (Map<String, Object>) v;
    }

    private static String describe(Object v) {
        return switch (v) {
            case null -> "null";
            case List<?> l -> "an array";
            case String s -> "a string";
            default -> "a " + v.getClass().getSimpleName().toLowerCase();
        };
    }

    private Object value() {
        if (pos >= text.length()) throw error("a value");
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) yield number();
                throw error("a value");
            }
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}') {
            pos++;
            return m;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') throw error("a string key");
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            m.put(key, value());
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else if (peek() == '}') {
                pos++;
                return m;
            } else {
                throw error("',' or '}'");
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']') {
            pos++;
            return l;
        }
        while (true) {
            skipSpace();
            l.add(value());
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else if (peek() == ']') {
                pos++;
                return l;
            } else {
                throw error("',' or ']'");
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) throw error("a closing '\"'");
            char c = text.charAt(pos++);
            if (c == '"') return sb.toString();
            if (c < 0x20) {
                pos--;
                throw error("an escaped control character");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) throw error("an escape");
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    if (pos + 4 > text.length()) throw error("4 hex digits");
                    try {
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("4 hex digits");
                    }
                    pos += 4;
                }
                default -> {
                    pos--;
                    throw error("a valid escape");
                }
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') pos++;
        if (!digits()) throw error("a digit");
        boolean integral = true;
        if (peek() == '.') {
            pos++;
            integral = false;
            if (!digits()) throw error("a digit");
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            integral = false;
            if (peek() == '+' || peek() == '-') pos++;
            if (!digits()) throw error("a digit");
        }
        String s = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException tooBig) {
                return Double.parseDouble(s);
            }
        }
        return Double.parseDouble(s);
    }

    private boolean digits() {
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos)) && text.charAt(pos) < 128) pos++;
        return pos > start;
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) throw error("a value");
        pos += word.length();
        return value;
    }

    private void expect(char c) {
        if (peek() != c) throw error("'" + c + "'");
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            pos++;
        }
    }

    private IllegalArgumentException error(String expected) {
        String found = pos >= text.length() ? "end of text" : "'" + text.charAt(pos) + "'";
        return new IllegalArgumentException("bad JSON at column " + (pos + 1) + ": expected " + expected + ", found " + found);
    }
}
