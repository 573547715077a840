package dev.ember.fx;

import dev.ember.tensor.SymInt;

import java.util.List;

/**
 * The size symbols a graph is generic in: for each, where its value comes from (the first
 * placeholder dimension whose size is exactly that symbol), the value it had when the graph was
 * traced (the hint), and the range the graph is valid for. A backend reads each symbol's value
 * from its input at run time; the guards of the compiled frame have already checked the range.
 */
public record SizeSymbols(List<Symbol> symbols) {

    /**
     * The meta key of a placeholder that is an int input (a 0-d integer tensor) whose value is a
     * symbol ({@link SymInt#symbol}): such a symbol is read from the input's value, {@code dim} -1.
     */
    public static final String INT_SYMBOL = "int_symbol";

    /**
     * Symbol {@code s<id>}: {@code source} is the user's name for it ({@code x.size(0)}), read at
     * run time from placeholder {@code input}'s dimension {@code dim} (or, {@code dim} -1, from the
     * value of an int input: {@link #INT_SYMBOL}), whose size is
     * {@code divisor * s<id>} (1 but for a size the code divided: {@code x.size(0) / 2} makes the
     * size {@code 2*s0}, guarded even).
     */
    public record Symbol(int id, String source, int input, int dim, long hint, long min, long max, long divisor) {
        public Symbol(int id, String source, int input, int dim, long hint, long min, long max) { this(id, source, input, dim, hint, min, max, 1); }

        public SymInt expr() { return SymInt.symbol(id); }

        /** The size of the dimension the symbol is read from: {@code divisor * s<id>}. */
        public SymInt size() { return SymInt.symbol(id).times(divisor); }

        /** {@code 2 <= s0} or {@code 2 <= s0 <= 64}. */
        public String range() { return min + " <= s" + id + (max == Long.MAX_VALUE ? "" : " <= " + max); }
    }

    public SizeSymbols {
        symbols = List.copyOf(symbols);
        for (int i = 0; i < symbols.size(); i++) {
            if (symbols.get(i).id() != i) throw new IllegalArgumentException("symbol " + i + " has id " + symbols.get(i).id() + "; ids must be 0, 1, 2, … in order");
        }
    }

    public int size() { return symbols.size(); }

    public Symbol get(int id) { return symbols.get(id); }

    /** Each symbol's hint, indexed by id: the example sizes the graph was traced with. */
    public long[] hints() {
        long[] h = new long[symbols.size()];
        for (Symbol s : symbols) h[s.id()] = s.hint();
        return h;
    }

    /**
     * The same symbols, each read from the first of {@code placeholders} (in order) whose symbolic
     * metadata has a dimension that is exactly it: where a graph whose inputs were added, removed or
     * reordered reads them.
     *
     * @throws IllegalStateException when some symbol is no placeholder's dimension
     */
    public SizeSymbols readFrom(List<Node> placeholders) {
        List<Symbol> out = new java.util.ArrayList<>();
        for (Symbol s : symbols) {
            Symbol found = null;
            for (int i = 0; i < placeholders.size() && found == null; i++) {
                if (s.size().equals(placeholders.get(i).meta().get(INT_SYMBOL))) found = new Symbol(s.id(), s.source(), i, -1, s.hint(), s.min(), s.max(), s.divisor());
                if (found != null || !(placeholders.get(i).symVal() instanceof dev.ember.tensor.SymShape shape)) continue;
                for (int d = 0; d < shape.dim() && found == null; d++) {
                    if (shape.sizes()[d].equals(s.size())) found = new Symbol(s.id(), s.source(), i, d, s.hint(), s.min(), s.max(), s.divisor());
                }
            }
            if (found == null) throw new IllegalStateException("symbol s" + s.id() + " (" + s.source() + ") is no dimension of the graph's inputs");
            out.add(found);
        }
        return new SizeSymbols(out);
    }

    /** Each symbol's value in {@code inputs} (the graph's inputs in placeholder order). */
    public long[] valuesIn(Object[] inputs) {
        long[] v = new long[symbols.size()];
        for (Symbol s : symbols) v[s.id()] = valueIn(s, inputs[s.input()]);
        return v;
    }

    /** Symbol {@code s}'s value in {@code input}, the input it is read from: a dimension's size, or an int input's value. */
    public static long valueIn(Symbol s, Object input) {
        if (s.dim() < 0) return input instanceof Number n ? n.longValue() : ((dev.ember.tensor.Tensor) input).longItem();
        return ((dev.ember.tensor.Tensor) input).size(s.dim()) / s.divisor();
    }
}
