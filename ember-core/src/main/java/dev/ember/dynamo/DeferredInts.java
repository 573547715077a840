package dev.ember.dynamo;

import dev.ember.dynamo.guards.EqualsMatch;
import dev.ember.dynamo.guards.IntRange;
import dev.ember.dynamo.guards.IntRelation;
import dev.ember.dynamo.guards.IntRelation.Relation;
import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.DeferredInt;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.classfile.Opcode;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The int inputs of one trace whose value guards wait until the trace reads their values
 * ({@link DeferredInt}). A trace that only compares such an int and adds constants to it (a loop
 * bound, a loop counter carried into a resume method) is guarded by what it found: a range per
 * input for comparisons with known ints ({@code L['n'] >= 1}), a relation for comparisons of two
 * inputs ({@code L['i'] + 1 < L['n']}). Any other use reads the value and guards it exactly, as
 * before. So a loop that breaks in its body compiles its resume method once for the iterations that
 * go round and once for the exit, whatever its trip count.
 */
final class DeferredInts {
    private final OutputGraph graph;
    private final Map<String, Input> inputs = new LinkedHashMap<>();
    private final Set<IntRelation> relations = new LinkedHashSet<>();

    /** An input: its value in this trace, the range its comparisons held in, and whether a use read it. */
    private static final class Input {
        final Source source;
        final int value;
        long min = Integer.MIN_VALUE, max = Integer.MAX_VALUE;
        boolean specialized;

        Input(Source source, int value) {
            this.source = source;
            this.value = value;
        }
    }

    DeferredInts(OutputGraph graph) { this.graph = graph; }

    /** The int input {@code value} read from {@code source}, its value guard deferred. */
    ConstantVariable wrap(int value, Source source) {
        Input in = inputs.computeIfAbsent(source.name(), k -> new Input(source, value));
        return ConstantVariable.deferred(value, new DeferredInt(source, 0, () -> specialize(in)));
    }

    private void specialize(Input in) {
        if (in.specialized) return;
        in.specialized = true;
        graph.addGuard(new EqualsMatch(in.source, in.value));
    }

    /** {@code a + b} or {@code a - b} of a deferred int and a known int, still deferred; null for anything else. */
    static VariableTracker add(Opcode op, VariableTracker a, VariableTracker b) {
        if (op != Opcode.IADD && op != Opcode.ISUB) return null;
        if (a instanceof ConstantVariable x && x.deferred() != null && known(b) instanceof Integer c) {
            int k = op == Opcode.ISUB ? -c : c;
            return ConstantVariable.deferred((Integer) x.peek() + k, x.deferred().plus(k));
        }
        if (op == Opcode.IADD && b instanceof ConstantVariable y && y.deferred() != null && known(a) instanceof Integer c) {
            return ConstantVariable.deferred((Integer) y.peek() + c, y.deferred().plus(c));
        }
        return null;
    }

    /** {@code v + c} for {@code iinc}: deferred when {@code v} is; null when {@code v} is not a deferred int. */
    static VariableTracker increment(VariableTracker v, int c) {
        return v instanceof ConstantVariable x && x.deferred() != null ? ConstantVariable.deferred((Integer) x.peek() + c, x.deferred().plus(c)) : null;
    }

    private static Object known(VariableTracker v) { return v instanceof ConstantVariable c && c.deferred() == null ? c.value() : null; }

    /**
     * The outcome of {@code a rel b} when one side is a deferred int and the other an int, guarded by
     * the comparison instead of the values; null when neither side is deferred.
     */
    Boolean compare(VariableTracker a, VariableTracker b, Relation rel) {
        if (!(a instanceof ConstantVariable x && x.peek() instanceof Integer xv && b instanceof ConstantVariable y && y.peek() instanceof Integer yv)) return null;
        DeferredInt dx = x.deferred(), dy = y.deferred();
        if (dx == null && dy == null) return null;
        boolean outcome = rel.test(xv, yv);
        Relation holds = outcome ? rel : rel.negated();
        if (dx != null && dy != null) {
            if (dx.source().name().equals(dy.source().name())) {
                // the same input on both sides: the offsets decide, at its value
                x.value();
                return outcome;
            }
            IntRelation guard = new IntRelation(dx.source(), dx.offset(), holds, dy.source(), dy.offset());
            if (relations.add(guard)) graph.addGuard(guard);
            return outcome;
        }
        if (dx != null) narrow(dx, holds, yv);
        else narrow(dy, flipped(holds), xv);
        return outcome;
    }

    /** Narrows the range of {@code d}'s input to where {@code input + offset holds c} (and the sum does not overflow). */
    private void narrow(DeferredInt d, Relation holds, long c) {
        Input in = inputs.get(d.source().name());
        long k = c - d.offset();
        switch (holds) {
            case LT -> in.max = Math.min(in.max, k - 1);
            case LE -> in.max = Math.min(in.max, k);
            case GT -> in.min = Math.max(in.min, k + 1);
            case GE -> in.min = Math.max(in.min, k);
            case EQ -> {
                in.min = Math.max(in.min, k);
                in.max = Math.min(in.max, k);
            }
            case NE -> specialize(in);
        }
        in.min = Math.max(in.min, (long) Integer.MIN_VALUE - d.offset());
        in.max = Math.min(in.max, (long) Integer.MAX_VALUE - d.offset());
    }

    /** {@code c rel s} as {@code s rel' c}. */
    private static Relation flipped(Relation r) {
        return switch (r) {
            case LT -> Relation.GT;
            case LE -> Relation.GE;
            case GT -> Relation.LT;
            case GE -> Relation.LE;
            default -> r;
        };
    }

    /** Adds the range guards of the inputs whose values no use read (those have EQUALS_MATCH guards). */
    void finish() {
        for (Input in : inputs.values()) {
            if (in.specialized || in.min <= Integer.MIN_VALUE && in.max >= Integer.MAX_VALUE) continue;
            graph.addGuard(new IntRange(in.source, in.min, in.max));
        }
    }
}
