package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static dev.ember.testing.SameBits.assertSameBits;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * prod and cumprod compiled equal eager bit for bit: prod is a reduction in generated code that
 * multiplies its terms in eager's order and precision (float32 in double, rounded once), fused with
 * the pointwise ops that feed it; cumprod runs its eager kernel. Their gradients at zeros, compiled
 * into the backward graph, equal eager's too.
 */
class ProdCompiledTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** Products over each dim, all elements, a keepdim, the zeros relu makes, running products; flattened into one vector. */
    static Tensor products(Tensor x) {
        Tensor rows = x.prod(1), cols = x.mul(3L).prod(0, true), all = x.prod(), clipped = x.relu().prod(-1);
        return Tensor.cat(List.of(rows, cols.reshape(-1), all.reshape(1), clipped, x.cumprod(1).reshape(-1), x.prod(-1, true).cumprod(0).reshape(-1)), 0);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"inductor, FLOAT32", "inductor, FLOAT64", "inductor, INT64", "inductor, INT32", "aot_eager, FLOAT32", "aot_eager, INT64"})
    void compiledEqualsEagerBitForBit(String backend, DType dtype) {
        Generator g = new Generator(dtype.ordinal() + 3);
        Tensor x = dtype.isFloatingPoint() ? Tensor.randn(g, 5, 67).to(dtype) : Tensor.randint(g, -3, 4, 5, 67).to(dtype);
        Fn1<Tensor, Tensor> compiled = Ember.compile(ProdCompiledTest::products, Options.backend(backend).fullgraph(true));
        assertSameBits(products(x), compiled.apply(x), "products " + backend + " " + dtype);
        Tensor strided = x.t();
        assertSameBits(products(strided), compiled.apply(strided), "products of a transposed input " + backend + " " + dtype);
    }

    /** prod lowers to a reduction loop of its own, fused with the multiplication feeding it: no eager kernel runs for it. */
    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64", "INT64"})
    void prodIsAGeneratedReduction(DType dtype) {
        Graph graph = new Graph();
        Node a = graph.placeholder("a", null);
        Node scaled = graph.callFunction(PointwiseOps.MUL_SCALAR, List.of(a, 2L), Map.of());
        graph.output(graph.callFunction(ReductionOps.PROD_DIM, List.of(scaled, 1L, false), Map.of()));
        GraphModule gm = new GraphModule(graph);
        Tensor x = Tensor.randn(new Generator(5), 6, 40).to(dtype);
        InductorGraph compiled = Inductor.compile(gm, List.of(x), CompileMode.DEFAULT, null);
        assertTrue(compiled.sourceCode().contains("prod over"), compiled.sourceCode());
        assertFalse(compiled.perfHints().stream().anyMatch(h -> h.contains("eager kernel")), compiled.perfHints().toString());
        assertSameBits((Tensor) gm.run(new Object[] {x}), (Tensor) compiled.run(new Object[] {x}), "prod graph " + dtype);
    }

    static Tensor loss(Tensor x) {
        return x.prod(1).sum().add(x.prod(0, true).sum()).add(x.prod()).add(x.cumprod(1).sum()).add(x.cumprod(0).mul(0.5).sum());
    }

    /** Rows with no, one, two and three zeros: the gradients at zeros (product of the others, or 0) compiled equal eager's. */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void gradientsAtZerosCompiledEqualEager(String backend) {
        double[] v = {1.5, -0.5, 2, 0.7, -1.2, 0.9, 0, 1.3, -2, 0.6, 0, 1.1, 0.8, 0, -1.4, 1.2, 0, -0.7, 0, 0};
        Tensor eager = Tensor.of(v, 4, 5).requiresGrad(true), compiledX = Tensor.of(v, 4, 5).requiresGrad(true);
        loss(eager).backward();
        Fn1<Tensor, Tensor> compiled = Ember.compile(ProdCompiledTest::loss, Options.backend(backend));
        compiled.apply(compiledX).backward();
        assertSameBits(eager.grad(), compiledX.grad(), "gradient " + backend);
    }
}
