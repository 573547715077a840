package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.PointwiseOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static dev.ember.testing.SameBits.assertSameBits;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rounding, trigonometric, logarithmic and classification ops compiled: one graph, and the
 * bits eager computes (generated code calls the same ScalarMath formula per element as the eager
 * kernels; the composed ops decompose to the same ops eager runs).
 */
class MathOpsCompiledTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor rounding(Tensor x, Tensor y) {
        Tensor r = x.mul(7.0).floor().add(x.ceil()).add(x.mul(3.0).round()).add(x.round(2)).add(x.mul(5.0).trunc());
        return r.add(x.mul(4.0).frac()).add(x.sign()).add(x.square()).add(y.reciprocal()).add(x.sub(0.5).clone().sign_());
    }

    static Tensor transcendental(Tensor x, Tensor y) {
        Tensor s = x.mul(0.5).tan().add(x.atan()).add(x.mul(0.3).asin()).add(x.mul(0.3).acos()).add(x.sinh()).add(x.cosh());
        s = s.add(x.expm1()).add(x.exp2()).add(y.log2()).add(y.log10()).add(x.atan2(y.sub(1.0)));
        return s.add(x.mul(3.0).asinh()).add(y.add(1.0).acosh()).add(x.tanh().mul(0.9).atanh());
    }

    static Tensor classification(Tensor x, Tensor y) {
        Tensor z = x.div(x.gt(0.5).to(x.dtype()).sub(y.gt(1.0).to(x.dtype())));   // ±inf, NaN where the divisor is 0
        Tensor flags = z.isnan().logicalXor(z.isinf()).logicalOr(z.isfinite().logicalNot()).to(x.dtype());
        return z.nanToNum().add(z.nanToNum(1.5, 100.0, -100.0)).add(flags).add(z.isposinf().to(x.dtype())).sub(z.isneginf().to(x.dtype()));
    }

    /** The bitwise ops on integers (and on bools, where not is logical), mixing dtypes and Scalar operands. */
    static Tensor bitwise(Tensor a, Tensor b) {
        Tensor r = a.bitwiseAnd(b).bitwiseOr(a.bitwiseXor(b.bitwiseNot()));
        return r.bitwiseXor(5L).bitwiseAnd(-7L).bitwiseOr(a.bitwiseNot().bitwiseOr(2L)).add(a.bitwiseXor(b).bitwiseNot().to(DType.INT64));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"inductor, INT32", "inductor, INT64", "inductor, BOOL", "aot_eager, INT32", "aot_eager, BOOL"})
    void bitwiseOpsCompiledEqualEager(String backend, DType dtype) {
        Generator g = new Generator(11);
        long lo = dtype == DType.BOOL ? 0 : -50, hi = dtype == DType.BOOL ? 2 : 50;
        Tensor a = Tensor.randint(g, lo, hi, 5, 67).to(dtype), b = Tensor.randint(g, lo, hi, 67).to(dtype);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile(MathOpsCompiledTest::bitwise, Options.backend(backend).fullgraph(true));
        assertSameBits(bitwise(a, b), compiled.apply(a, b), "bitwise " + backend + " " + dtype);
    }

    /** The bitwise ops lower to Java's &, |, ^ in generated code: no eager kernel runs for them. */
    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"INT32", "INT64", "BOOL"})
    void bitwiseOpsAreGeneratedCode(DType dtype) {
        Graph graph = new Graph();
        Node a = graph.placeholder("a", null), b = graph.placeholder("b", null);
        Node and = graph.callFunction(PointwiseOps.BITWISE_AND_TENSOR, List.of(a, b), Map.of());
        Node xor = graph.callFunction(PointwiseOps.BITWISE_XOR_SCALAR, List.of(and, dtype == DType.BOOL ? (Object) true : (Object) 6L), Map.of());
        Node or = graph.callFunction(PointwiseOps.BITWISE_OR_TENSOR, List.of(graph.callFunction(PointwiseOps.BITWISE_NOT, List.of(xor), Map.of()), a), Map.of());
        graph.output(or);
        GraphModule gm = new GraphModule(graph);
        Tensor x = Tensor.of(new long[] {0, 1, -1, 5, -6, 12, Long.MAX_VALUE, Long.MIN_VALUE}, 8).to(dtype), y = Tensor.of(new long[] {3, 1, 7, 0, -1, 10, 1, -1}, 8).to(dtype);
        InductorGraph compiled = Inductor.compile(gm, List.of(x, y), CompileMode.DEFAULT, null);
        assertTrue(compiled.sourceCode().contains(" ^ ") && compiled.sourceCode().contains(" & ") && compiled.sourceCode().contains(" | "), compiled.sourceCode());
        assertFalse(compiled.perfHints().stream().anyMatch(h -> h.contains("eager kernel")), compiled.perfHints().toString());
        assertSameBits((Tensor) gm.run(new Object[] {x, y}), (Tensor) compiled.run(new Object[] {x, y}), "bitwise graph " + dtype);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"rounding, inductor, FLOAT32", "rounding, inductor, FLOAT64", "rounding, aot_eager, FLOAT32",
            "transcendental, inductor, FLOAT32", "transcendental, inductor, FLOAT64", "transcendental, aot_eager, FLOAT64",
            "classification, inductor, FLOAT32", "classification, inductor, FLOAT64", "classification, aot_eager, FLOAT32"})
    void compiledEqualsEagerBitForBit(String program, String backend, DType dtype) {
        Fn2<Tensor, Tensor, Tensor> fn = switch (program) {
            case "rounding" -> MathOpsCompiledTest::rounding;
            case "transcendental" -> MathOpsCompiledTest::transcendental;
            default -> MathOpsCompiledTest::classification;
        };
        Generator g = new Generator(program.hashCode());
        Tensor x = Tensor.randn(g, 5, 67).to(dtype), y = Tensor.rand(g, 67).add(0.25).to(dtype);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile(fn, Options.backend(backend).fullgraph(true));
        assertSameBits(fn.apply(x, y), compiled.apply(x, y), program + " " + backend + " " + dtype);
    }
}
