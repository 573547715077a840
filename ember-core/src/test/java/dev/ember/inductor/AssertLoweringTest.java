package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.ops.AssertOps;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An assert node (an op returning nothing) is compiled, not sent back to the interpreter: an extern
 * call in its place among the kernels, after the ops it checks and before those after it.
 */
class AssertLoweringTest {

    /** x -> amax(x) > 0 asserted, then exp(x): the assert's condition is a reduction kernel's result. */
    private static InductorGraph compiled(Tensor example) {
        Graph g = new Graph();
        var x = g.placeholder("x", null);
        var max = g.callFunction(OpRegistry.get("aten.amax.default"), x);
        var positive = g.callFunction(OpRegistry.get("aten.gt.Scalar"), max, 0.0);
        g.callFunction(AssertOps.ASSERT_ASYNC_MSG, positive, "x has no positive element");
        g.output(g.callFunction(OpRegistry.get("aten.exp.default"), x));
        return Inductor.compile(new GraphModule(g), List.of(example), CompileMode.DEFAULT, null);
    }

    @Test
    void anAssertIsGeneratedCodeThatThrowsTheUsersMessage() {
        Tensor pass = Tensor.of(new float[] {-1, 2, 0.5f}, 3);
        InductorGraph c = compiled(pass);
        assertNotNull(c.sourceCode(), "compiled, not interpreted: " + c.perfHints());
        assertTrue(c.sourceCode().contains("_assert_async"), c.sourceCode());
        Object out = c.run(pass);
        Tensor result = out instanceof List<?> l ? (Tensor) l.getFirst() : (Tensor) out;
        assertTrue(result.sub(pass.exp()).abs().amax().item() <= 1e-6, result.toString());
        AssertionError e = assertThrows(AssertionError.class, () -> c.run(Tensor.of(new float[] {-1, -2, -0.5f}, 3)));
        assertEquals("x has no positive element", e.getMessage());
    }

    @Test
    void theAssertRunsBeforeTheKernelsAfterIt() {
        InductorGraph c = compiled(Tensor.of(new float[] {1, 2}, 2));
        String src = c.sourceCode();
        String body = src.substring(src.indexOf("public static Object call("));
        int reduction = body.indexOf("// row kernel: amax"), check = body.indexOf("// extern aten._assert_async.msg"), exp = body.indexOf("// pointwise kernel: exp");
        assertTrue(reduction >= 0 && reduction < check && check < exp, "amax, then the assert, then exp:\n" + src);
        assertTrue(c.perfHints().isEmpty(), "an assert is an eager call by design, not a missing lowering: " + c.perfHints());
    }
}
