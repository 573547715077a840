package dev.ember.debug.fuzz;

import dev.ember.tensor.DType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Delta debugging over statements, on a predicate alone (no compiling): what is left is what the failure needs. */
class ShrinkerTest {
    private static final TensorType F34 = TensorType.of(DType.FLOAT32, 3, 4);

    @Test
    void dropsEveryStatementTheFailureDoesNotNeedRewiresReadersAndSimplifiesInputs() {
        Var a0 = new Var("a0", F34), a1 = new Var("a1", F34), v0 = new Var("v0", F34), v1 = new Var("v1", F34), v2 = new Var("v2", F34), v3 = new Var("v3", F34);
        Program p = new Program(3, List.of(new Input(a0, Input.Layout.CONTIGUOUS, -1), new Input(a1, Input.Layout.TRANSPOSED, -1)), List.of(), List.of(
                new Stmt.Let(v0, Call.of("$0.add($1)", a0, a1)),
                new Stmt.Break(),
                new Stmt.Let(v1, Call.of("$0.sigmoid()", v0)),
                new Stmt.Mutate(v1, Call.of("$0.mul_(0.5)", v1)),
                new Stmt.Let(v2, Call.of("$0.tanh()", v1)),
                new Stmt.Let(v3, Call.of("$0.relu()", v2))), List.of(v3, v0));
        Program small = Shrinker.shrink(p, q -> q.source("P").contains("sigmoid"));
        // v0 = a0.add(a1) went, its readers now read a1 (the last earlier f32[3, 4]); a0, unread, went
        // too. The predicate asks only for the text, so the sigmoid need not be returned.
        assertEquals(List.of(new Stmt.Let(v1, Call.of("$0.sigmoid()", a1))), small.body());
        assertEquals(List.of(a1), small.returns());
        assertEquals(List.of(new Input(a1, Input.Layout.CONTIGUOUS, -1)), small.inputs());
    }

    @Test
    void dropsNumberParametersNothingReadsAndKeepsTheOnesReadAsAWordOfTheirOwn() {
        Var a0 = new Var("a0", F34), v0 = new Var("v0", F34);
        ScalarInput s0 = new ScalarInput("s0", ScalarInput.Kind.DOUBLE, List.of(0.3)), s1 = new ScalarInput("s1", ScalarInput.Kind.DOUBLE, List.of(0.6));
        ScalarInput s10 = new ScalarInput("s10", ScalarInput.Kind.INT, List.of(2.0));
        Program p = new Program(4, List.of(new Input(a0, Input.Layout.CONTIGUOUS, -1)), List.of(s0, s1, s10),
                List.of(new Stmt.Let(v0, Call.of("$0.mul(s10)", a0))), List.of(v0));
        Program small = Shrinker.shrink(p, q -> q.source("P").contains(".mul("));
        assertEquals(List.of(s10), small.scalars(), "s0 and s1 unread (s10 is not s1)");
    }
}
