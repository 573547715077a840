package dev.ember.ops;

import java.util.ArrayList;
import java.util.List;

/**
 * An op's signature in ATen's schema language, parsed:
 * {@code add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor}.
 * It names and types the arguments (for error messages and printed graphs) and supplies defaults.
 * The namespace is {@code aten} unless the name carries one, as custom ops do: {@code mylib::scale(Tensor x, float s) -> Tensor}.
 */
public record Schema(String namespace, String name, String overload, List<Param> params, String returns) {

    /** One argument: its type as written ({@code Tensor}, {@code Tensor(a!)}, {@code int[]}, {@code Scalar?}, …) and default. */
    public record Param(String name, String type, boolean hasDefault, Object defaultValue, boolean kwargOnly) {
        public boolean optional() { return type.endsWith("?"); }

        /** The op writes into this argument: its alias annotation has a {@code !} ({@code Tensor(a!) self}). */
        public boolean mutable() { return type.contains("!)"); }
    }

    /**
     * What an op does with its arguments, as torchgen's {@code SchemaKind} tells it from the schema:
     * a functional op writes nothing it is given; an in-place op ({@code add_}) writes its first
     * argument; an out op ({@code add.out}) writes a keyword-only {@code Tensor(a!) out} argument.
     */
    public enum Kind { FUNCTIONAL, INPLACE, OUT }

    public Kind kind() {
        if (outIndex() >= 0) return Kind.OUT;
        return !params.isEmpty() && params.getFirst().mutable() ? Kind.INPLACE : Kind.FUNCTIONAL;
    }

    /** The position of the keyword-only mutated argument ({@code *, Tensor(a!) out}), or -1. Ember's out ops have one. */
    public int outIndex() {
        for (int i = 0; i < params.size(); i++) if (params.get(i).kwargOnly() && params.get(i).mutable()) return i;
        return -1;
    }

    public static Schema parse(String text) {
        try {
            int open = text.indexOf('('), close = matchingParen(text, open);
            String fullName = text.substring(0, open).trim();
            int colons = fullName.indexOf("::");
            String namespace = colons < 0 ? "aten" : fullName.substring(0, colons);
            fullName = fullName.substring(colons < 0 ? 0 : colons + 2);
            int dot = fullName.indexOf('.');
            String name = dot < 0 ? fullName : fullName.substring(0, dot);
            String overload = dot < 0 ? "default" : fullName.substring(dot + 1);
            String returns = text.substring(text.indexOf("->", close) + 2).trim();
            List<Param> params = new ArrayList<>();
            boolean kwargOnly = false;
            for (String part : splitTopLevel(text.substring(open + 1, close))) {
                String p = part.trim();
                if (p.isEmpty()) continue;
                if (p.equals("*")) { kwargOnly = true; continue; }
                int eq = p.indexOf('=');
                String decl = eq < 0 ? p : p.substring(0, eq).trim();
                int sp = decl.lastIndexOf(' ');
                String type = decl.substring(0, sp).trim(), pname = decl.substring(sp + 1).trim();
                Object def = eq < 0 ? null : parseDefault(type, p.substring(eq + 1).trim());
                params.add(new Param(pname, type, eq >= 0, def, kwargOnly));
            }
            if (params.stream().filter(p -> p.kwargOnly() && p.mutable()).count() > 1) {
                throw new IllegalArgumentException("more than one out argument (Ember's out ops write one tensor)");
            }
            return new Schema(namespace, name, overload, List.copyOf(params), returns);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed op schema: " + text, e);
        }
    }

    private static int matchingParen(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            if (s.charAt(i) == '(') depth++;
            else if (s.charAt(i) == ')' && --depth == 0) return i;
        }
        throw new IllegalArgumentException("unbalanced parentheses");
    }

    private static List<String> splitTopLevel(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[' || c == '(') depth++;
            else if (c == ']' || c == ')') depth--;
            else if (c == ',' && depth == 0) { out.add(s.substring(start, i)); start = i + 1; }
        }
        out.add(s.substring(start));
        return out;
    }

    private static Object parseDefault(String type, String v) {
        if (v.equals("None")) return null;
        if (v.equals("True")) return Boolean.TRUE;
        if (v.equals("False")) return Boolean.FALSE;
        if (v.startsWith("\"") || v.startsWith("'")) return v.substring(1, v.length() - 1);
        String base = type.replace("?", "");
        if (v.startsWith("[")) {
            String inner = v.substring(1, v.length() - 1).trim();
            if (inner.isEmpty()) return new int[0];
            String[] parts = inner.split(",");
            int[] out = new int[parts.length];
            for (int i = 0; i < parts.length; i++) out[i] = Integer.parseInt(parts[i].trim());
            return out;
        }
        if (base.startsWith("int[")) {       // int[2] stride=1 means [1, 1]
            int n = Integer.parseInt(base.substring(4, base.length() - 1));
            int[] out = new int[n];
            java.util.Arrays.fill(out, Integer.parseInt(v));
            return out;
        }
        if (base.equals("int") || base.equals("SymInt")) return switch (v) {
            // the loss ops' `int reduction=Mean`: ATen's at::Reduction enum (None = 0, Mean = 1, Sum = 2)
            case "Mean" -> 1L;
            case "Sum" -> 2L;
            default -> Long.parseLong(v);
        };
        if (base.equals("float")) return Double.parseDouble(v);
        if (base.equals("Scalar")) return v.contains(".") || v.contains("e") ? (Object) Double.parseDouble(v) : (Object) Long.parseLong(v);
        return v;
    }

    /** {@code aten.add.Tensor}, {@code mylib.scale.default} */
    public String qualifiedName() { return namespace + "." + name + "." + overload; }

    public Param param(int i) { return params.get(i); }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(namespace.equals("aten") ? name : namespace + "::" + name);
        if (!overload.equals("default")) sb.append('.').append(overload);
        sb.append('(');
        boolean star = false;
        for (int i = 0; i < params.size(); i++) {
            Param p = params.get(i);
            if (i > 0) sb.append(", ");
            if (p.kwargOnly && !star) { sb.append("*, "); star = true; }
            sb.append(p.type).append(' ').append(p.name);
        }
        return sb.append(") -> ").append(returns).toString();
    }
}
