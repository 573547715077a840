package dev.ember.fx;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hands out unique identifiers the way FX does: a candidate is kept when free, otherwise it gets the
 * next numeric suffix of its base ({@code add}, {@code add_1}, {@code add_2}, …). Characters that
 * cannot appear in a Java identifier become {@code _}, camelCase becomes snake_case, and reserved
 * words never appear bare ({@code int} becomes {@code int_1}).
 */
final class Namespace {
    /** Java's keywords and literals: no generated local may be called this. */
    static final Set<String> JAVA_RESERVED = Set.of(
            "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
            "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
            "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
            "protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
            "throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null", "_",
            "var", "yield", "record", "sealed", "permits");

    private static final Pattern NAME = Pattern.compile("^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\\d+))?$");
    private static final Pattern ILLEGAL_CHARS = Pattern.compile("[^0-9a-zA-Z_]+");
    private static final Pattern CAMEL_HUMP = Pattern.compile("(?<=[a-z])([A-Z])");

    private final Set<String> reserved;
    private final Set<String> used = new HashSet<>();
    private final Map<String, Integer> baseCount = new HashMap<>();

    Namespace() { this(JAVA_RESERVED); }

    Namespace(Set<String> reserved) { this.reserved = reserved; }

    /** A fresh name based on {@code candidate}, now taken. */
    String create(String candidate) {
        String c = CAMEL_HUMP.matcher(candidate).replaceAll("_$1").toLowerCase(java.util.Locale.ROOT);
        Matcher m = NAME.matcher(c);
        if (!m.matches()) {
            c = ILLEGAL_CHARS.matcher(c).replaceAll("_");
            if (c.isEmpty()) c = "_unnamed";
            if (Character.isDigit(c.charAt(0))) c = "_" + c;
            m = NAME.matcher(c);
            if (!m.matches()) throw new IllegalStateException("cannot make an identifier of '" + candidate + "'");
        }
        String base = m.group(1);
        int num;
        if (m.group(2) == null || used.contains(c)) {
            num = baseCount.getOrDefault(c, 0);
            if (reserved.contains(c)) {
                num++;
                c = base + "_" + num;
            }
        } else {
            num = Integer.parseInt(m.group(2));
        }
        while (used.contains(c)) {
            num++;
            c = base + "_" + num;
        }
        used.add(c);
        baseCount.put(base, num);
        return c;
    }

    /** Marks {@code name} as taken without creating it (for names chosen elsewhere). */
    void reserve(String name) { used.add(name); }
}
