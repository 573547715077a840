package dev.ember.dynamo;

import dev.ember.dynamo.source.SizeSource;
import dev.ember.dynamo.source.Source;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.SizeSymbols;
import dev.ember.fx.SymbolicShapes;
import dev.ember.logging.Log;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The size symbols of one trace: which input dimensions are dynamic, the symbol each stands for,
 * and what the guards must check about them. A dimension is dynamic when the user marked it
 * ({@code Ember.markDynamic}), when {@code Options.dynamic(true)} says all are, or when its size
 * changed between calls (automatic dynamic); never when its size is 0 or 1 (PyTorch's 0/1
 * specialization: those sizes broadcast), for a parameter, or after a restart specialized it.
 * Dimensions with equal sizes share one symbol (duck sizing), so an add of two inputs of the same
 * batch stays valid.
 */
final class ShapeEnv {

    /** In a trace's specialized names: every size is static (the backend could not compile the generic graph). */
    static final String ALL_SIZES = "*every tensor size*";

    /** Symbol {@code s<id>}, read from {@code source}, valid in [min, max]; {@code narrowedBy} says which branch narrowed the range, and where (or null). */
    record Symbol(int id, Source source, long hint, long min, long max, String narrowedBy, long divisor) {
        /** A symbol read from an automatic dynamic int input used as a size, not from a tensor dimension. */
        boolean isInt() { return !(source instanceof SizeSource); }
    }

    /** A dynamic input dimension after the first one of its symbol: the guard checks it equals the symbol. */
    record Occurrence(SizeSource source, int symbol) {}

    /** An input tensor with dynamic dimensions: its symbolic metadata, checked by the guards. */
    record DynamicInput(Source source, SymShape shape) {}

    private final Boolean dynamicSetting;
    private final Set<String> changedSizes;
    private final Set<String> specialized;
    private final List<Symbol> symbols = new ArrayList<>();
    private final List<Occurrence> occurrences = new ArrayList<>();
    private final List<DynamicInput> inputs = new ArrayList<>();

    ShapeEnv(Boolean dynamicSetting, Set<String> changedSizes, Set<String> specialized) {
        this.dynamicSetting = dynamicSetting;
        this.changedSizes = changedSizes;
        this.specialized = specialized;
    }

    List<Symbol> symbols() { return List.copyOf(symbols); }

    List<Occurrence> occurrences() { return List.copyOf(occurrences); }

    List<DynamicInput> inputs() { return List.copyOf(inputs); }

    boolean isEmpty() { return symbols.isEmpty(); }

    /**
     * Narrows symbol {@code id}'s range to [min, max] because the trace took a branch that holds
     * only there ({@code why}, at {@code where}); the guards check the narrowed range.
     */
    void narrow(int id, long min, long max, String why, dev.ember.events.UserFrame where) {
        Symbol s = symbols.get(id);
        String at = why + (where == null ? "" : " at " + where.fileName() + ":" + where.line());
        symbols.set(id, new Symbol(id, s.source(), s.hint(), min, max, s.narrowedBy() == null ? at : s.narrowedBy() + "; " + at, s.divisor()));
        Log.of("dynamic").info(() -> "range of s" + id + " (" + s.source().shortName() + ") narrowed to [" + min + ", " + (max == Long.MAX_VALUE ? "int_oo" : max)
                + "]: " + at);
    }

    /**
     * In a trace's specialized names, {@code L['x'].size()[0]%2}: a restart found the code dividing
     * that size by 2, so the size is made {@code 2*s} (the guard checks it is even).
     */
    static String multipleName(SizeSource source, long multiple) { return source.name() + "%" + multiple; }

    /** The multiple a restart asked {@code source}'s size to be (the least common multiple of all asked), 1 when none. */
    private long divisorOf(SizeSource source) {
        long d = 1;
        String prefix = source.name() + "%";
        for (String name : specialized) {
            if (!name.startsWith(prefix)) continue;
            long m = Long.parseLong(name.substring(prefix.length()));
            d = d / java.math.BigInteger.valueOf(d).gcd(java.math.BigInteger.valueOf(m)).longValue() * m;
        }
        return d;
    }

    /** Each symbol's size in this trace, by id. */
    long[] hints() { return symbols.stream().mapToLong(Symbol::hint).toArray(); }

    /** The sources of every dimension {@code ids}' symbols were read from: what specializing them makes static. */
    List<Source> sourcesOf(int[] ids) {
        List<Source> out = new ArrayList<>();
        for (int id : ids) out.add(symbols.get(id).source());
        for (Occurrence o : occurrences) if (Arrays.stream(ids).anyMatch(i -> i == o.symbol())) out.add(o.source());
        return out;
    }

    /** Every dynamic dimension's source: specializing all of them makes the trace static. */
    List<Source> allSources() { return sourcesOf(symbols.stream().mapToInt(Symbol::id).toArray()); }

    /**
     * What a graph that is not generic specializes: the ints used as sizes first (an int passed as
     * an index or a dim is no size any polynomial describes), every size when there are none.
     */
    List<Source> sourcesToSpecialize() {
        int[] ints = symbols.stream().filter(Symbol::isInt).mapToInt(Symbol::id).toArray();
        return ints.length > 0 ? sourcesOf(ints) : allSources();
    }

    /**
     * The symbolic metadata of input tensor {@code t} read from {@code source}, or null when none of
     * its dimensions is dynamic. Dense tensors only (any dimension order): their strides are
     * products of sizes; other layouts stay static.
     */
    SymShape shapeOf(Source source, Tensor t, boolean parameter) {
        if (parameter || specialized.contains(ALL_SIZES)) return null;
        int rank = t.dim();
        SymInt[] sizes = new SymInt[rank];
        boolean any = false;
        for (int d = 0; d < rank; d++) {
            int size = t.size(d);
            SizeSource at = new SizeSource(source, d);
            DimMarks.Mark mark = DimMarks.of(t, d);
            // an explicit mark wins over Options.dynamic: export declares its dynamic dimensions with marks and specializes all else
            boolean wanted = mark != null ? mark.dynamic()
                    : Boolean.TRUE.equals(dynamicSetting) || dynamicSetting == null && changedSizes.contains(at.name());
            if (!wanted || size < 2 && (mark == null || mark.min() >= 2) || specialized.contains(at.name())) {
                sizes[d] = SymInt.of(size);
                continue;
            }
            sizes[d] = null;
            any = true;
        }
        if (!any) return null;
        int[] order = denseOrder(t);
        if (order == null) {
            Log.of("dynamic").info(() -> source.shortName() + " stays static: its strides " + Arrays.toString(t.strides()) + " are not those of a dense tensor");
            return null;
        }
        for (int d = 0; d < rank; d++) {
            if (sizes[d] != null) continue;
            DimMarks.Mark mark = DimMarks.of(t, d);
            SizeSource at = new SizeSource(source, d);
            long divisor = divisorOf(at);
            sizes[d] = t.size(d) % divisor != 0 ? SymInt.of(t.size(d))
                    : symbolFor(at, t.size(d), mark == null ? 2 : mark.min(), mark == null ? Long.MAX_VALUE : mark.max(), divisor);
        }
        SymInt[] strides = new SymInt[rank];
        SymInt stride = SymInt.of(1);
        for (int d : order) {
            strides[d] = stride;
            stride = stride.times(sizes[d]);
        }
        SymShape shape = new SymShape(sizes, strides, SymInt.of(t.storageOffset()));
        inputs.add(new DynamicInput(source, shape));
        return shape;
    }

    /**
     * The symbol of the automatic dynamic int read from {@code source} (its 0-d graph input is
     * {@code placeholder}), made when the trace first uses the int as a size ({@code x.view(n, -1)}):
     * valid for ints of 2 or more, as a dimension's symbol (0 and 1 broadcast; the caller specializes
     * those). Each int has a symbol of its own: equal values are no reason to share one.
     */
    SymInt intSymbol(Source source, long hint, Node placeholder) {
        for (Symbol s : symbols) if (s.isInt() && s.source().name().equals(source.name())) return SymInt.symbol(s.id());
        Symbol s = new Symbol(symbols.size(), source, hint, 2, Integer.MAX_VALUE, null, 1);
        symbols.add(s);
        placeholder.meta().put(SizeSymbols.INT_SYMBOL, SymInt.symbol(s.id()));
        Log.of("dynamic").info(() -> "create_symbol s" + s.id() + " = " + hint + " for " + source.shortName() + " (an int used as a size) [2, " + Integer.MAX_VALUE + "]");
        return SymInt.symbol(s.id());
    }

    /** The symbol of a dynamic dimension: an existing one of the same size and range (duck sizing), else a new one. */
    private SymInt symbolFor(SizeSource source, long size, long min, long max, long divisor) {
        // a size the code divided is divisor * s: the symbol counts in units of the divisor
        long hint = size / divisor, lo = -Math.floorDiv(-min, divisor), hi = max == Long.MAX_VALUE ? max : max / divisor;
        for (Symbol s : symbols) {
            if (!s.isInt() && s.hint() == hint && s.min() == lo && s.max() == hi && s.divisor() == divisor) {
                occurrences.add(new Occurrence(source, s.id()));
                return SymInt.symbol(s.id()).times(divisor);
            }
        }
        Symbol s = new Symbol(symbols.size(), source, hint, lo, hi, null, divisor);
        symbols.add(s);
        Log.of("dynamic").info(() -> "create_symbol s" + s.id() + " = " + hint + " for " + source.shortName() + (divisor == 1 ? "" : " / " + divisor)
                + " [" + lo + ", " + (hi == Long.MAX_VALUE ? "int_oo" : hi) + "]");
        return SymInt.symbol(s.id()).times(divisor);
    }

    /**
     * The symbolic metadata of a tensor the trace holds, or null when the trace has no symbols. A
     * computed tensor's is interpolated from the graph so far ({@link SymbolicShapes}), once: the
     * nodes keep theirs. When the graph so far is not generic, the trace restarts with every
     * dimension static.
     */
    SymShape shapeOf(OutputGraph graph, Node node, dev.ember.events.UserFrame where) {
        if (symbols.isEmpty()) return null;
        if (node.symVal() instanceof SymShape s) return s;
        List<Node> nodes = graph.graph().nodes();
        Graph copy = graph.graph().copy();
        List<Node> copies = copy.nodes();
        copy.output(List.of(copies.get(nodes.indexOf(node))));
        GraphModule gm = graph.toGraphModule(copy);
        SizeSymbols sizeSymbols = sizeSymbols(copy.placeholders());
        gm.setSizeSymbols(sizeSymbols);
        try {
            new SymbolicShapes(sizeSymbols).annotate(gm);
        } catch (SymbolicShapes.NotGeneric e) {
            throw new SpecializeAndRestart(sourcesToSpecialize(), "the graph is not generic in its sizes (" + e.getMessage() + ")", where);
        }
        for (int i = 0; i < nodes.size(); i++) if (nodes.get(i).symVal() == null) nodes.get(i).setSymVal(copies.get(i).symVal());
        return (SymShape) node.symVal();
    }

    /** Dimensions from innermost to outermost when {@code t} is dense (strides are running products of sizes), else null. */
    private static int[] denseOrder(Tensor t) {
        Integer[] dims = new Integer[t.dim()];
        for (int d = 0; d < dims.length; d++) dims[d] = d;
        Arrays.sort(dims, (a, b) -> t.stride(a) != t.stride(b) ? Integer.compare(t.stride(a), t.stride(b)) : Integer.compare(b, a));
        long expected = 1;
        for (int d : dims) {
            if (t.size(d) != 1 && t.stride(d) != expected) return null;
            expected *= t.size(d);
        }
        return Arrays.stream(dims).mapToInt(Integer::intValue).toArray();
    }

    /** The symbols as a graph module carries them: each read from the first placeholder dimension that is exactly it. */
    SizeSymbols sizeSymbols(List<Node> placeholders) {
        List<SizeSymbols.Symbol> out = new ArrayList<>();
        for (Symbol s : symbols) out.add(new SizeSymbols.Symbol(s.id(), s.source().shortName(), -1, -1, s.hint(), s.min(), s.max(), s.divisor()));
        return new SizeSymbols(out).readFrom(placeholders);
    }
}
