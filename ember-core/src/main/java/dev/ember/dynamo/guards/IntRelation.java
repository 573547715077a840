package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * Two int inputs, each plus a constant, compare as the trace found them ({@code L['i'] + 1 < L['n']}):
 * a loop counter and its bound, neither guarded by its value. Compared as longs, and both sides
 * must be ints whose sums do not overflow, as they did not while tracing.
 */
public record IntRelation(Source left, long leftOffset, Relation relation, Source right, long rightOffset) implements FrameGuard {
    /** How the two sides compare. */
    public enum Relation {
        LT("<"), LE("<="), GT(">"), GE(">="), EQ("=="), NE("!=");

        private final String text;

        Relation(String text) { this.text = text; }

        public boolean test(long a, long b) {
            return switch (this) {
                case LT -> a < b;
                case LE -> a <= b;
                case GT -> a > b;
                case GE -> a >= b;
                case EQ -> a == b;
                case NE -> a != b;
            };
        }

        public Relation negated() {
            return switch (this) {
                case LT -> GE;
                case LE -> GT;
                case GT -> LE;
                case GE -> LT;
                case EQ -> NE;
                case NE -> EQ;
            };
        }

        @Override
        public String toString() { return text; }
    }

    @Override
    public String kind() { return "INT_RELATION"; }

    @Override
    public boolean check(Object[] frame) {
        return left.read(frame) instanceof Integer a && right.read(frame) instanceof Integer b && fits(a + leftOffset) && fits(b + rightOffset)
                && relation.test(a + leftOffset, b + rightOffset);
    }

    @Override
    public String explainFailure(Object frame) {
        Object[] f = (Object[]) frame;
        if (check(f)) return null;
        return condition() + " failed: actual " + left.name() + " = " + left.read(f) + ", " + right.name() + " = " + right.read(f);
    }

    @Override
    public String describe() { return "INT_RELATION: " + condition(); }

    private String condition() { return side(left, leftOffset) + " " + relation + " " + side(right, rightOffset); }

    private static String side(Source s, long offset) { return s.name() + (offset == 0 ? "" : offset > 0 ? " + " + offset : " - " + -offset); }

    private static boolean fits(long v) { return Integer.MIN_VALUE <= v && v <= Integer.MAX_VALUE; }
}
