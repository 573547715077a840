package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.fx.SizeSymbols;
import dev.ember.fx.SymbolicShapes;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graphs generic in some input sizes compile once to one class that serves every size in range:
 * each graph here is compiled at its hints, then run at sizes from 2 up, odd ones, sizes around the
 * hint and sizes that are no multiple of any vector width, each compared with eager (the graph
 * interpreted at that size), and each run checked to go through the generated code.
 */
class SizeGenericKernelTest {
    private static final SymInt S0 = SymInt.symbol(0), S1 = SymInt.symbol(1);
    /** The sizes each graph is run at: 2, odd sizes, below and above the hint (8), no multiple of 8 or 16. */
    private static final long[] SIZES = {2, 3, 5, 8, 9, 17, 31, 100};

    /** A graph under construction whose placeholders have symbolic sizes; their fake values are at the hints. */
    private static final class SymGraph {
        final Graph g = new Graph();
        final List<SizeSymbols.Symbol> symbols = new ArrayList<>();
        final List<SymShape> inputs = new ArrayList<>();
        final long[] hints;

        SymGraph(long... hints) { this.hints = hints; }

        /** A contiguous float32 input of {@code sizes}; the first input dim that is exactly a symbol is where it is read. */
        Node input(String name, SymInt... sizes) {
            SymShape shape = new SymShape(sizes, contiguous(sizes), SymInt.of(0));
            for (int d = 0; d < sizes.length; d++) {
                int id = sizes[d].symbolId();
                if (id >= 0 && symbols.stream().noneMatch(s -> s.id() == id)) {
                    symbols.add(new SizeSymbols.Symbol(id, name + ".size(" + d + ")", inputs.size(), d, hints[id], 2, Long.MAX_VALUE));
                }
            }
            inputs.add(shape);
            return g.placeholder(name, new FakeTensor(shape.eval(DType.FLOAT32, hints))).setSymVal(shape);
        }

        GraphModule module(Object output) {
            g.output(output);
            GraphModule gm = new GraphModule(g);
            symbols.sort(java.util.Comparator.comparingInt(SizeSymbols.Symbol::id));
            SizeSymbols s = new SizeSymbols(symbols);
            gm.setSizeSymbols(s);
            ShapeProp.propagate(gm);
            new SymbolicShapes(s).annotate(gm);
            return gm;
        }

        /** Random inputs at sizes {@code values}. */
        Object[] inputsAt(long... values) {
            Tensor.manualSeed(Arrays.hashCode(values));
            return inputs.stream().map(s -> (Object) Tensor.randn(s.eval(DType.FLOAT32, values).shape())).toArray();
        }

        Node call(dev.ember.ops.OpOverload op, Object... args) { return g.callFunction(op, args); }
    }

    private static SymInt[] contiguous(SymInt[] sizes) {
        SymInt[] st = new SymInt[sizes.length];
        SymInt s = SymInt.of(1);
        for (int d = sizes.length - 1; d >= 0; d--) {
            st[d] = s;
            s = s.times(sizes[d]);
        }
        return st;
    }

    /**
     * Compiles {@code gm} once (no disk cache) and checks it against eager at every size of
     * {@link #SIZES} for each symbol (symbol 1, when there is one, takes the sizes in reverse):
     * through the generated code every time, within {@code tol}.
     */
    private static InductorGraph compileOnceAndCheck(SymGraph sg, GraphModule gm, double tol) {
        InductorGraph compiled = compileAtHints(sg, gm, CompileMode.DEFAULT);
        String source = compiled.sourceCode();
        assertTrue(source != null && source.contains("int s0 = inputs[") && source.contains("s0 = "), "size-generic code reads s0:\n" + source);
        for (int i = 0; i < SIZES.length; i++) {
            long[] values = sg.hints.length == 1 ? new long[] {SIZES[i]} : new long[] {SIZES[i], SIZES[SIZES.length - 1 - i]};
            Object[] in = sg.inputsAt(values);
            assertTrue(compiled.compiledFor(in), "sizes " + Arrays.toString(values) + " run the generated code");
            Graphs.assertSame(gm.run(in), compiled.run(in), tol, "at " + Arrays.toString(values) + "\n" + source);
        }
        // what output_code prints is what runs: javac's class computes the same, bit for bit, at another size
        String name = source.substring(source.indexOf("final class ") + 12, source.indexOf(" {", source.indexOf("final class ")));
        InductorGraph fromJavac = compiled.withClassBytes(Javac.compile("dev.ember.inductor." + name, source));
        Object[] in = sg.inputsAt(Arrays.stream(sg.hints).map(h -> h + 3).toArray());
        Graphs.assertSame(compiled.run(in), fromJavac.run(in), 0, "javac's class\n" + source);
        return compiled;
    }

    /** {@code gm} compiled (no disk cache) with example inputs at the hints. */
    private static InductorGraph compileAtHints(SymGraph sg, GraphModule gm, CompileMode mode) {
        return Inductor.compile(gm, Arrays.stream(sg.inputsAt(sg.hints)).map(t -> (Tensor) t).toList(), mode, null);
    }

    @Test
    void pointwiseChainIsExactAtEverySize() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(24)), y = sg.input("y", S0, SymInt.of(24));
        Node r = sg.call(PointwiseOps.MUL_TENSOR, sg.call(PointwiseOps.RELU, x), y);
        Node out = sg.call(PointwiseOps.SUB_SCALAR, sg.call(PointwiseOps.ADD_TENSOR, r, sg.call(PointwiseOps.SIN, x)), 2.0);
        InductorGraph c = compileOnceAndCheck(sg, sg.module(out), 0);
        assertTrue(c.sourceCode().contains("// s0 = x.size(0), 2 <= s0 (traced at 8)"), c.sourceCode());
    }

    @Test
    void aSymbolicInnerDimGetsVectorLoopsWithMaskedTails() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", SymInt.of(3), S0);
        Node out = sg.call(PointwiseOps.ADD_TENSOR, sg.call(PointwiseOps.MUL_SCALAR, sg.call(PointwiseOps.EXP, x), 0.5), x);
        InductorGraph c = compileOnceAndCheck(sg, sg.module(out), 0);
        assertTrue(c.sourceCode().contains("loopBound(") && c.sourceCode().contains("indexInRange("), c.sourceCode());
    }

    @Test
    void broadcastingAgainstAStaticOperand() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(20)), b = sg.input("b", SymInt.of(20)), c = sg.input("c", S0, SymInt.of(1));
        Node out = sg.call(PointwiseOps.MUL_TENSOR, sg.call(PointwiseOps.ADD_TENSOR, x, b), c);
        compileOnceAndCheck(sg, sg.module(out), 0);
    }

    @Test
    void reductionsOverAStaticAndOverASymbolicDim() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(33)), y = sg.input("y", SymInt.of(5), S0);
        Node rows = sg.call(ReductionOps.SUM_DIM, x, new int[] {1}, false);
        Node across = sg.call(ReductionOps.SUM_DIM, y, new int[] {-1}, true);
        Node max = sg.call(ReductionOps.AMAX, y, new int[] {1}, false);
        Node all = sg.call(ReductionOps.SUM_DIM, x, new int[] {0, 1}, false);
        compileOnceAndCheck(sg, sg.module(List.of(rows, across, max, all)), 1e-5);
    }

    @Test
    void softmaxOverASymbolicDimAndLayerNormWithASymbolicBatch() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", SymInt.of(4), S0), y = sg.input("y", S0, SymInt.of(48));
        Node w = sg.input("w", SymInt.of(48)), b = sg.input("b", SymInt.of(48));
        Node softmax = sg.call(ReductionOps.SOFTMAX_INT, x, -1);
        Node norm = sg.call(NormOps.LAYER_NORM, y, new int[] {48}, w, b, 1e-5);
        InductorGraph c = compileOnceAndCheck(sg, sg.module(List.of(softmax, norm)), 1e-5);
        if (System.getenv("SHOW_CODE") != null) System.out.println(c.sourceCode());
    }

    @Test
    void softmaxAsCoreOpsOverASymbolicDimIsOneRowKernel() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", SymInt.of(4), S0);
        Node max = sg.call(ReductionOps.AMAX, x, new int[] {-1}, true);
        Node e = sg.call(PointwiseOps.EXP, sg.call(PointwiseOps.SUB_TENSOR, x, max));
        Node out = sg.call(PointwiseOps.DIV_TENSOR, e, sg.call(ReductionOps.SUM_DIM, e, new int[] {-1}, true));
        InductorGraph c = compileOnceAndCheck(sg, sg.module(out), 1e-6);
        assertTrue(c.sourceCode().contains("row kernel: amax, sum, div"), c.sourceCode());
    }

    @Test
    void reduceOverheadOutputsGrowWithTheSize() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(5));
        GraphModule gm = sg.module(sg.call(PointwiseOps.RELU, sg.call(PointwiseOps.ADD_SCALAR, x, 1.0)));
        InductorGraph c = compileAtHints(sg, gm, CompileMode.REDUCE_OVERHEAD);
        for (long n : new long[] {3, 17, 5, 100, 2}) {
            Object[] in = sg.inputsAt(n);
            assertTrue(c.compiledFor(in));
            Graphs.assertSame(gm.run(in), ((Tensor) c.run(in)).clone(), 0, "at " + n);
        }
    }

    @Test
    void anEagerKernelTakesSymbolicIntArgumentsAtTheCallsSizes() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(3));
        Node filled = sg.call(dev.ember.ops.CreationOps.FULL, List.of(S0, 3), 2.5);
        Node row = sg.input("row", SymInt.of(1), SymInt.of(3));
        Node wide = sg.call(ShapeOps.EXPAND, row, List.of(S0, 3));
        compileOnceAndCheck(sg, sg.module(sg.call(PointwiseOps.MUL_TENSOR, sg.call(PointwiseOps.ADD_TENSOR, x, filled), wide)), 0);
    }

    @Test
    void aSizeUsedAsAScalarIsTheCallsSize() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(3));
        compileOnceAndCheck(sg, sg.module(sg.call(PointwiseOps.ADD_TENSOR, sg.call(PointwiseOps.MUL_SCALAR, x, S0), x)), 0);
    }

    @Test
    void linearAndBatchedMatmulWithSymbolicRowsAndBatch() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(32)), w = sg.input("w", SymInt.of(48), SymInt.of(32)), b = sg.input("b", SymInt.of(48));
        Node p = sg.input("p", S0, SymInt.of(6), SymInt.of(8)), q = sg.input("q", S0, SymInt.of(8), SymInt.of(5));
        Node hidden = sg.call(PointwiseOps.RELU, sg.call(LinalgOps.LINEAR, x, w, b));
        Node bmm = sg.call(LinalgOps.BMM, p, q);
        InductorGraph c = compileOnceAndCheck(sg, sg.module(List.of(hidden, bmm)), 1e-4);
        if (System.getenv("SHOW_CODE") != null) System.out.println(c.sourceCode());
    }

    @Test
    void matmulWithASymbolicInnerDim() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", SymInt.of(6), S0), y = sg.input("y", S0, SymInt.of(5));
        Node out = sg.call(LinalgOps.MM, x, y);
        compileOnceAndCheck(sg, sg.module(out), 1e-4);
    }

    @Test
    void viewsReshapesAndPermutesOfSymbolicSizes() {
        SymGraph sg = new SymGraph(8);
        Node x = sg.input("x", S0, SymInt.of(16), SymInt.of(4));
        Node flat = sg.call(ShapeOps.VIEW, sg.call(PointwiseOps.EXP, x), List.of(S0.times(16), 4));
        Node back = sg.call(ShapeOps.RESHAPE, sg.call(PointwiseOps.NEG, flat), List.of(S0, 64));
        Node permuted = sg.call(PointwiseOps.SIN, sg.call(ShapeOps.PERMUTE, x, new int[] {2, 0, 1}));
        Node transposed = sg.call(ShapeOps.RESHAPE, sg.call(ShapeOps.TRANSPOSE, x, 0, 1), List.of(16, S0.times(4)));
        Node sliced = sg.call(PointwiseOps.ADD_SCALAR, sg.call(ShapeOps.SELECT, x, 1, 3), 1.0);
        compileOnceAndCheck(sg, sg.module(List.of(flat, back, permuted, transposed, sliced)), 1e-6);
    }

    @Test
    void catOnASymbolicDimOfTwoSymbols() {
        SymGraph sg = new SymGraph(8, 5);
        Node x = sg.input("x", S0, SymInt.of(8)), y = sg.input("y", S1, SymInt.of(8));
        Node both = sg.call(ShapeOps.CAT, List.of(sg.call(PointwiseOps.RELU, x), y), 0);
        Node out = sg.call(PointwiseOps.MUL_SCALAR, both, 3.0);
        InductorGraph c = compileOnceAndCheck(sg, sg.module(out), 0);
        assertTrue(c.sourceCode().contains("int s1 = inputs[1].size(0);"), c.sourceCode());
    }

    static Tensor mlp(Tensor x, Tensor w, Tensor b) { return x.matmul(w).add(b).relu().softmax(1); }

    @Test
    void throughEmberCompileANewBatchSizeCompilesOnceMoreAndThenEverySizeRunsTheGenericCode() {
        List<String> code = new ArrayList<>();
        dev.ember.Ember.reset();
        try (var s = dev.ember.events.CompileEvents.global().subscribe(dev.ember.events.CompileEvent.GraphCompiled.class,
                g -> code.add(g.compiled().outputCode()))) {
            var f = dev.ember.Ember.compile((dev.ember.Fn3<Tensor, Tensor, Tensor, Tensor>) SizeGenericKernelTest::mlp, dev.ember.Options.backend("inductor"));
            Tensor w = Tensor.randn(24, 10), b = Tensor.randn(10);
            for (int n : new int[] {4, 6, 9, 2, 17, 33, 100, 6}) {
                Tensor x = Tensor.randn(n, 24);
                Graphs.assertSame(mlp(x, w, b), f.apply(x, w, b), 1e-5, "n = " + n);
            }
        } finally {
            dev.ember.Ember.reset();
        }
        assertEquals(2, code.size(), "the first size, then one size-generic graph: " + code);
        assertFalse(code.get(0).contains("int s0"), code.get(0));
        assertTrue(code.get(1).contains("int s0 = inputs[0].size(0);"), code.get(1));
    }

    /** {@code exp} of {@code x: f32[s0, 3]} seen through {@code view}: the smallest generic graph. */
    private static GraphModule expOf(SymGraph sg, java.util.function.UnaryOperator<Node> view) {
        Node x = sg.input("x", S0, SymInt.of(3));
        return sg.module(sg.call(PointwiseOps.EXP, view.apply(x)));
    }

    @Test
    void aSizeOutsideTheRangeRunsTheInterpreter() {
        SymGraph sg = new SymGraph(8);
        GraphModule gm = expOf(sg, x -> x);
        InductorGraph c = compileAtHints(sg, gm, CompileMode.DEFAULT);
        Object[] one = sg.inputsAt(1);
        assertFalse(c.compiledFor(one), "a size of 1 is specialized, not in s0's range");
        Graphs.assertSame(gm.run(one), c.run(one), 0, "at 1");
    }

    @Test
    void aSliceClampedForSmallSizesIsNotSizeGeneric() {
        SymGraph sg = new SymGraph(8);
        GraphModule gm = expOf(sg, x -> sg.call(ShapeOps.SLICE, x, 0, 5, Long.MAX_VALUE, 1));
        var e = assertThrows(Lowering.NotSizeGeneric.class, () -> compileAtHints(sg, gm, CompileMode.DEFAULT));
        assertTrue(e.getMessage().contains("slice"), e.getMessage());
    }

    @Test
    void aStaticGraphReadsNoSymbolsAndDoesNotShareTheCacheKeyOfAGenericOne() {
        SymGraph sg = new SymGraph(8);
        GraphModule generic = expOf(sg, x -> x);
        Tensor example = (Tensor) sg.inputsAt(8)[0];
        Graph g = new Graph();
        g.output(g.callFunction(PointwiseOps.EXP, g.placeholder("x", new FakeTensor(example.meta()))));
        GraphModule fixed = new GraphModule(g);
        ShapeProp.propagate(fixed);
        InductorGraph c = Inductor.compile(fixed, List.of(example), CompileMode.DEFAULT, null);
        assertFalse(c.sourceCode().contains("s0"), c.sourceCode());
        String genericName = className(compileAtHints(sg, generic, CompileMode.DEFAULT));
        assertFalse(genericName.equals(className(c)), "the class name is the cache key's prefix: " + genericName);
    }

    private static String className(InductorGraph g) {
        String s = g.sourceCode();
        int at = s.indexOf("final class ") + 12;
        return s.substring(at, s.indexOf(' ', at));
    }
}
