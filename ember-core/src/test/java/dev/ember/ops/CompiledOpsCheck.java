package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the op-group tests check of a function of their ops under Ember.compile. */
final class CompiledOpsCheck {
    private CompiledOpsCheck() {}

    /** The parts of a many-op sample, each flattened, in one 1-d tensor: one output for the compiled check to compare. */
    static Tensor flattenedAndJoined(java.util.List<Tensor> parts) {
        java.util.List<Tensor> flat = new java.util.ArrayList<>();
        for (Tensor p : parts) flat.add(p.reshape(-1));
        return Tensor.cat(flat, 0);
    }

    /**
     * {@code fn} captures in one graph (no break; compiled with fullgraph on {@code backend}) and
     * gives eager's values on {@code (a, b)}; on float64 copies requiring grad, a weighted nansum of
     * its result (NaN-carrying elements left out) gives eager's gradients of both arguments.
     */
    static void oneGraphWithEagersValuesAndGradients(Fn2<Tensor, Tensor, Tensor> fn, Tensor a, Tensor b, String backend, String aName, String bName) {
        ExplainOutput e = Ember.explain(fn).with(a, b);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(fn, Options.backend(backend).fullgraph(true));
        assertClose(f.apply(a, b), fn.apply(a, b), backend);

        Tensor ae = a.to(DType.FLOAT64).requiresGrad(true), be = b.to(DType.FLOAT64).requiresGrad(true);
        Tensor ac = a.to(DType.FLOAT64).requiresGrad(true), bc = b.to(DType.FLOAT64).requiresGrad(true);
        Tensor want = fn.apply(ae, be), got = Ember.compile(fn, Options.backend(backend)).apply(ac, bc);
        Tensor weights = Tensor.randn(want.shape()).to(DType.FLOAT64);
        want.mul(weights).nansum().backward();
        got.mul(weights).nansum().backward();
        assertClose(ac.grad(), ae.grad(), backend + " grad " + aName);
        assertClose(bc.grad(), be.grad(), backend + " grad " + bName);
    }
}
