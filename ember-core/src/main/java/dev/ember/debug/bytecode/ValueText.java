package dev.ember.debug.bytecode;

import dev.ember.tensor.Tensor;

import java.lang.classfile.TypeKind;
import java.lang.reflect.Array;
import java.util.Collection;
import java.util.Map;

/** Values as the debugger prints them: typed and short ({@code f32[3, 4]}, {@code int 3}, {@code String "a"}, {@code Object[2]}). */
final class ValueText {
    private ValueText() {}

    private static final int MAX = 60;

    /** A value of a JVM computational type: {@code int 3}, {@code long 4}, or a reference as {@link #of}. */
    static String typed(TypeKind kind, Object value) {
        return switch (kind) {
            case INT, LONG, FLOAT, DOUBLE -> kind.name().toLowerCase() + " " + value;
            default -> of(value);
        };
    }

    /** A reference: a tensor by its type ({@code f32[3, 4]}), a list by its elements' types, others by class and short text. */
    static String of(Object v) {
        return switch (v) {
            case null -> "null";
            case Tensor t -> t.meta().describe();
            case String s -> "String " + shorten('"' + s + '"');
            case Number n -> v.getClass().getSimpleName() + " " + n;
            case Boolean b -> "Boolean " + b;
            case Character c -> "Character '" + c + "'";
            case Uninitialized u -> u.toString();
            case Collection<?> c -> v.getClass().getSimpleName() + " " + shorten(c.stream().map(ValueText::element).toList().toString());
            case Map<?, ?> m -> v.getClass().getSimpleName() + " (" + m.size() + " entries)";
            case Enum<?> e -> e.getDeclaringClass().getSimpleName() + "." + e.name();
            default -> v.getClass().isArray() ? array(v) : name(v.getClass());
        };
    }

    /** A list's element: a tensor by its type, a number by its value. */
    private static String element(Object v) {
        return switch (v) {
            case null -> "null";
            case Tensor t -> t.meta().describe();
            case Number n -> String.valueOf(n);
            default -> of(v);
        };
    }

    private static String array(Object a) {
        int n = Array.getLength(a);
        return name(a.getClass().getComponentType()) + "[" + n + "]";
    }

    /** A class's simple name; a lambda or generated class by the interface or class it stands for. */
    private static String name(Class<?> c) {
        if (c.isHidden()) {
            Class<?>[] ifaces = c.getInterfaces();
            return ifaces.length > 0 ? "lambda " + ifaces[0].getSimpleName() : c.getSuperclass().getSimpleName();
        }
        return c.getSimpleName();
    }

    private static String shorten(String s) { return s.length() <= MAX ? s : s.substring(0, MAX - 1) + "…"; }
}
