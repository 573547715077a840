package dev.ember.dynamo.guards;

/**
 * A comparison the trace made on ints computed from automatic dynamic int inputs, holding as it
 * held while tracing ({@code L['n'] % 2 != 0}): the trace took one side of a branch on it, and a
 * call for which the comparison comes out the other way recompiles. The two sides are evaluated
 * with Java's arithmetic on the call's inputs ({@link IntExpr}), so the guard decides exactly as
 * the compiled code's source would; an evaluation that throws (a division by zero) fails it.
 */
public record SymIntGuard(IntExpr left, IntRelation.Relation relation, IntExpr right) implements FrameGuard {

    @Override
    public String kind() { return "SYMBOLIC_INT"; }

    @Override
    public boolean check(Object[] frame) {
        try {
            return relation.test(left.eval(frame), right.eval(frame));
        } catch (ArithmeticException e) {
            return false;
        }
    }

    @Override
    public String explainFailure(Object frame) {
        Object[] f = (Object[]) frame;
        if (check(f)) return null;
        try {
            if (left instanceof IntExpr.DoubleCompare d) return condition() + " failed: " + d.inputsIn(f);
            return condition() + " failed: actual " + left.eval(f) + " " + relation + " " + right.eval(f) + " is false";
        } catch (ArithmeticException e) {
            return condition() + " failed: " + e.getMessage();
        }
    }

    @Override
    public String describe() { return "SYMBOLIC_INT: " + condition(); }

    private String condition() {
        if (left instanceof IntExpr.DoubleCompare d && right instanceof IntExpr.Constant c) return d.condition(relation, c.value());
        return left.render() + " " + relation + " " + right.render();
    }
}
