package dev.ember.tensor;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * A size that depends on the sizes of a compiled function's inputs: an integer polynomial over
 * the symbols {@code s0, s1, …} of a shape environment ({@code 512*s0}, {@code s0*s1 + 2}). A
 * constant is a polynomial without symbols, so one type carries static and dynamic sizes alike.
 *
 * <p>Polynomials are kept in canonical form (terms ordered, zero coefficients dropped), so two
 * equal sizes are {@link #equals equal} objects: the graph can tell that {@code s0*512} and
 * {@code 512*s0} are the same dimension without asking a solver.
 */
public final class SymInt {

    /** A product of symbols, each id repeated for its power ({@code [0, 0, 1]} is {@code s0^2*s1}). */
    private record Monomial(int[] ids) implements Comparable<Monomial> {
        static final Monomial ONE = new Monomial(new int[0]);

        Monomial times(Monomial o) {
            int[] all = Arrays.copyOf(ids, ids.length + o.ids.length);
            System.arraycopy(o.ids, 0, all, ids.length, o.ids.length);
            Arrays.sort(all);
            return new Monomial(all);
        }

        @Override
        public int compareTo(Monomial o) {
            if (ids.length != o.ids.length) return Integer.compare(o.ids.length, ids.length); // higher degree first
            return Arrays.compare(ids, o.ids);
        }

        @Override
        public boolean equals(Object o) { return o instanceof Monomial m && Arrays.equals(ids, m.ids); }

        @Override
        public int hashCode() { return Arrays.hashCode(ids); }
    }

    private static final SymInt[] SMALL = new SymInt[10];

    static {
        for (int i = 0; i < SMALL.length; i++) SMALL[i] = new SymInt(i == 0 ? new TreeMap<>() : new TreeMap<>(Map.of(Monomial.ONE, (long) i)));
    }

    private final SortedMap<Monomial, Long> terms;

    private SymInt(TreeMap<Monomial, Long> terms) {
        terms.values().removeIf(c -> c == 0);
        this.terms = Collections.unmodifiableSortedMap(terms);
    }

    public static SymInt of(long c) { return c >= 0 && c < SMALL.length ? SMALL[(int) c] : new SymInt(new TreeMap<>(Map.of(Monomial.ONE, c))); }

    /** The symbol {@code s<id>}. */
    public static SymInt symbol(int id) {
        if (id < 0) throw new IllegalArgumentException("symbol ids start at 0, got " + id);
        return new SymInt(new TreeMap<>(Map.of(new Monomial(new int[] {id}), 1L)));
    }

    /** {@code sizes} as constant sizes. */
    public static SymInt[] of(int[] sizes) {
        SymInt[] out = new SymInt[sizes.length];
        for (int i = 0; i < sizes.length; i++) out[i] = of(sizes[i]);
        return out;
    }

    public SymInt plus(SymInt o) {
        TreeMap<Monomial, Long> t = new TreeMap<>(terms);
        o.terms.forEach((m, c) -> t.merge(m, c, Math::addExact));
        return new SymInt(t);
    }

    public SymInt plus(long c) { return plus(of(c)); }

    public SymInt minus(SymInt o) { return plus(o.times(-1)); }

    public SymInt times(long k) {
        TreeMap<Monomial, Long> t = new TreeMap<>();
        terms.forEach((m, c) -> t.put(m, Math.multiplyExact(c, k)));
        return new SymInt(t);
    }

    public SymInt times(SymInt o) {
        TreeMap<Monomial, Long> t = new TreeMap<>();
        terms.forEach((m1, c1) -> o.terms.forEach((m2, c2) -> t.merge(m1.times(m2), Math.multiplyExact(c1, c2), Math::addExact)));
        return new SymInt(t);
    }

    /** This divided by {@code d} when every coefficient divides exactly ({@code 512*s0 / 2 = 256*s0}), else null. */
    public SymInt exactDiv(long d) {
        if (d == 0) return null;
        TreeMap<Monomial, Long> t = new TreeMap<>();
        for (var e : terms.entrySet()) {
            if (e.getValue() % d != 0) return null;
            t.put(e.getKey(), e.getValue() / d);
        }
        return new SymInt(t);
    }

    public boolean isConstant() { return terms.isEmpty() || (terms.size() == 1 && terms.containsKey(Monomial.ONE)); }

    /** The value of a constant; throws for a symbolic size. */
    public long constant() {
        if (!isConstant()) throw new IllegalStateException(this + " is not a constant");
        return terms.getOrDefault(Monomial.ONE, 0L);
    }

    /** The symbol's id when this is exactly one symbol ({@code s3} → 3), else -1. */
    public int symbolId() {
        if (terms.size() != 1) return -1;
        var e = terms.entrySet().iterator().next();
        return e.getValue() == 1 && e.getKey().ids.length == 1 ? e.getKey().ids[0] : -1;
    }

    /** One term of the polynomial: {@code coefficient} times the product of the symbols {@code ids} (an id repeated for a power). */
    public record Term(long coefficient, int[] ids) {}

    /** The terms, highest degree first and the constant last: what code generators turn into arithmetic. */
    public java.util.List<Term> terms() {
        return terms.entrySet().stream().map(e -> new Term(e.getValue(), e.getKey().ids.clone())).toList();
    }

    /** The coefficient of {@code s<id>} itself (its degree-1 term): 3 in {@code 3*s0 + s0*s1 + 2}. */
    public long coefficient(int id) { return terms.getOrDefault(new Monomial(new int[] {id}), 0L); }

    /** The term without symbols: 2 in {@code 3*s0 + 2}. */
    public long constantTerm() { return terms.getOrDefault(Monomial.ONE, 0L); }

    /** The ids of the symbols this size depends on, ascending. */
    public int[] symbols() {
        TreeSet<Integer> ids = new TreeSet<>();
        for (Monomial m : terms.keySet()) for (int id : m.ids) ids.add(id);
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The value when symbol {@code i} is {@code values[i]}. */
    public long eval(long[] values) {
        long sum = 0;
        for (var e : terms.entrySet()) {
            long p = e.getValue();
            for (int id : e.getKey().ids) {
                if (id >= values.length) throw new IllegalArgumentException(this + " needs a value for s" + id + "; " + values.length + " given");
                p = Math.multiplyExact(p, values[id]);
            }
            sum = Math.addExact(sum, p);
        }
        return sum;
    }

    /** The value as an int (a size), evaluated at {@code values}. */
    public int evalInt(long[] values) { return Math.toIntExact(eval(values)); }

    /**
     * Written with symbol names from {@code name}: {@code 512*s0 + 3}; code generators pass their
     * variable names, printers the symbols'.
     */
    public String render(IntFunction<String> name) {
        if (terms.isEmpty()) return "0";
        StringBuilder sb = new StringBuilder();
        for (var e : terms.entrySet()) {
            long c = e.getValue();
            int[] ids = e.getKey().ids;
            if (!sb.isEmpty()) sb.append(c < 0 ? " - " : " + ");
            else if (c < 0) sb.append("-");
            long abs = Math.abs(c);
            StringBuilder factors = new StringBuilder();
            for (int id : ids) factors.append(factors.isEmpty() ? "" : "*").append(name.apply(id));
            if (ids.length == 0) sb.append(abs);
            else sb.append(abs == 1 ? "" : abs + "*").append(factors);
        }
        return sb.toString();
    }

    @Override
    public String toString() { return render(id -> "s" + id); }

    /**
     * The polynomial {@link #toString()} printed: {@code 512*s0 + 3}, {@code s0*s1 - 2}.
     *
     * @throws IllegalArgumentException naming the text that is no such polynomial
     */
    public static SymInt parse(String text) {
        String t = text.replace(" ", "");
        if (t.isEmpty()) throw new IllegalArgumentException("'" + text + "' is not a size polynomial");
        SymInt sum = of(0);
        int at = 0;
        while (at < t.length()) {
            long sign = 1;
            if (t.charAt(at) == '+' || t.charAt(at) == '-') sign = t.charAt(at++) == '-' ? -1 : 1;
            int end = at;
            while (end < t.length() && t.charAt(end) != '+' && t.charAt(end) != '-') end++;
            if (end == at) throw new IllegalArgumentException("'" + text + "' is not a size polynomial: a term is missing");
            SymInt term = of(sign);
            for (String factor : t.substring(at, end).split("\\*")) {
                try {
                    term = factor.startsWith("s") ? term.times(symbol(Integer.parseInt(factor.substring(1)))) : term.times(Long.parseLong(factor));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + text + "' is not a size polynomial: '" + factor + "' is no number or symbol s<n>");
                }
            }
            sum = sum.plus(term);
            at = end;
        }
        return sum;
    }

    @Override
    public boolean equals(Object o) { return o instanceof SymInt s && s.terms.equals(terms); }

    @Override
    public int hashCode() { return terms.hashCode(); }
}
