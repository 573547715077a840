package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.SizeSource;
import dev.ember.dynamo.source.Source;
import dev.ember.fx.GraphModule;
import dev.ember.fx.SymbolicShapes;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a graph generic in some input sizes needs of a call: each symbol's size in its range
 * ({@code 2 <= x.size(0)}), every other dimension that shares the symbol equal to it
 * ({@code y.size(0) == x.size(0)}), the strides the graph assumed ({@code x.stride(0) == 512}),
 * and — once per new assignment of the symbols — the graph's shapes re-derived by its meta
 * functions equal to its symbolic ones ({@link SymbolicShapes#check}). Printed with the user's names.
 */
public final class SymbolicShapeGuard implements FrameGuard {

    /** Symbol {@code s<id>}, read from {@code source}, valid in [min, max]; {@code narrowedBy}: the branch that narrowed the range, and its line (or null). */
    public record Symbol(int id, Source source, long min, long max, String narrowedBy, long divisor) {
        String describe() {
            if (!(source instanceof SizeSource)) return min + " <= " + source.shortName() + (max >= Integer.MAX_VALUE ? "" : " <= " + max) + " (an int used as a size)";
            String name = divisor == 1 ? source.shortName() : source.shortName() + " / " + divisor;
            return (divisor == 1 ? "" : source.shortName() + " % " + divisor + " == 0, ") + (min > 0 ? min + " <= " : "0 <= ") + name
                    + (max == Long.MAX_VALUE ? "" : " <= " + max);
        }
    }

    /** A dimension that duck sizing gave an existing symbol. */
    public record SameSize(SizeSource source, int symbol) {}

    /** Stride {@code dim} of the tensor at {@code tensor} is {@code expected} (skipped where that dimension's size is 1). */
    public record StrideIs(Source tensor, int dim, SymInt expected) {}

    private final List<Symbol> symbols;
    private final List<SameSize> sameSizes;
    private final List<StrideIs> strides;
    private final GraphModule graph;
    /** The assignments of the symbols at which the graph's shapes were re-derived and found to follow its symbolic ones. */
    private final Set<List<Long>> checked = ConcurrentHashMap.newKeySet();
    /** The sizes of the last call that passed: most calls repeat them, and are checked without allocating a key. */
    private volatile long[] lastChecked;

    public SymbolicShapeGuard(List<Symbol> symbols, List<SameSize> sameSizes, List<StrideIs> strides, GraphModule graph) {
        this.symbols = List.copyOf(symbols);
        this.sameSizes = List.copyOf(sameSizes);
        this.strides = List.copyOf(strides);
        this.graph = graph;
    }

    @Override
    public String kind() { return "SYMBOLIC_SHAPE"; }

    @Override
    public boolean check(Object[] frame) { return explainFailure(frame) == null; }

    @Override
    public String explainFailure(Object value) {
        Object[] frame = (Object[]) value;
        long[] values = new long[symbols.size()];
        for (Symbol s : symbols) {
            Object size = s.source().read(frame);
            if (!(size instanceof Integer whole)) {
                return s.source() instanceof SizeSource d ? s.source().shortName() + " cannot be read: " + d.tensor().shortName() + " has fewer dimensions"
                        : s.source().shortName() + " is no int: " + size;
            }
            if (whole % s.divisor() != 0) {
                return s.source().shortName() + " % " + s.divisor() + " == 0 failed: actual " + whole + " (the code divides it by " + s.divisor() + ")";
            }
            long v = whole / s.divisor();
            if (v < s.min() || v > s.max()) {
                return s.describe() + " failed: actual " + v + (s.narrowedBy() != null ? " (the range of the branch taken: " + s.narrowedBy() + ")"
                        : v < 2 && s.min() >= 2 ? " (sizes 0 and 1 are specialized: such a call compiles its own graph)" : "");
            }
            values[s.id()] = v;
        }
        for (SameSize d : sameSizes) {
            Object size = d.source().read(frame);
            long expected = values[d.symbol()] * symbols.get(d.symbol()).divisor();
            if (!(size instanceof Integer v) || v != expected) {
                return d.source().shortName() + " == " + symbols.get(d.symbol()).source().shortName() + " failed: " + size + " != " + expected
                        + " (both were " + "s" + d.symbol() + ")";
            }
        }
        for (StrideIs st : strides) {
            if (!(st.tensor().read(frame) instanceof Tensor t) || st.dim() >= t.dim()) return st.tensor().shortName() + " is not the tensor it was";
            if (t.size(st.dim()) == 1) continue;
            long expected = st.expected().eval(values);
            if (t.stride(st.dim()) != expected) {
                return st.tensor().shortName() + ".stride(" + st.dim() + ") == " + render(st.expected()) + " failed: actual " + t.stride(st.dim()) + ", expected " + expected;
            }
        }
        long[] previous = lastChecked;
        if (previous != null && java.util.Arrays.equals(previous, values)) return null;   // the common call: the sizes of the last one
        List<Long> key = new ArrayList<>(values.length);
        for (long v : values) key.add(v);
        if (!checked.contains(key)) {
            String differs = SymbolicShapes.check(graph, values);
            if (differs != null) return "the graph's shapes do not follow its symbolic sizes " + differs;
            checked.add(key);
        }
        lastChecked = values;
        return null;
    }

    /** {@code 512*x.size(1)}: a polynomial of the symbols, written with the sizes they stand for. */
    private String render(SymInt e) { return e.render(id -> symbols.get(id).source().shortName()); }

    @Override
    public String describe() {
        List<String> parts = new ArrayList<>();
        for (Symbol s : symbols) parts.add(s.describe());
        for (SameSize d : sameSizes) parts.add(d.source().shortName() + " == " + symbols.get(d.symbol()).source().shortName());
        for (StrideIs st : strides) if (!st.expected().isConstant()) parts.add(st.tensor().shortName() + ".stride(" + st.dim() + ") == " + render(st.expected()));
        return "SYMBOLIC_SHAPE: " + String.join(", ", parts);
    }
}
