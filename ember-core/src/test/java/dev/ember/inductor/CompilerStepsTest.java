package dev.ember.inductor;

import dev.ember.aot.DecomposePass;
import dev.ember.fx.CompilerSteps;
import dev.ember.fx.CompilerSteps.Kind;
import dev.ember.fx.CompilerSteps.Step;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.ember.inductor.Graphs.kernels;
import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code EMBER_BISECT_LIMIT} / {@code EMBER_BISECT_REPORT}, set through their system properties. */
class CompilerStepsTest {
    @TempDir
    Path tmp;

    @BeforeEach
    void counting() {
        System.setProperty(CompilerSteps.REPORT_PROPERTY, tmp.resolve("steps.tsv").toString());
        CompilerSteps.reset();
    }

    @AfterEach
    void off() {
        System.clearProperty(CompilerSteps.REPORT_PROPERTY);
        System.clearProperty(CompilerSteps.LIMIT_PROPERTY);
        CompilerSteps.reset();
    }


    /** tanh (inlined into its users), a row sum of it and mul (stored last, as an output): three lowerings, and mul fused into the sum's row loop. */
    private static GraphModule rowSum() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node t = call(g, "tanh.default", x);
        g.output(List.of(call(g, "mul.Scalar", t, 2.0), call(g, "sum.dim_IntList", t, new int[] {1}, false)));
        return new GraphModule(g);
    }

    private static List<Step> steps(Kind kind) { return CompilerSteps.steps().stream().filter(s -> s.kind() == kind).toList(); }

    @Test
    void everyStepIsCountedAndReportedWhileALimitSkipsNone() throws Exception {
        InductorGraph all = checkAgainstEager(rowSum(), 1e-5, Tensor.randn(8, 64));
        assertEquals(1, kernels(all.sourceCode()), all.sourceCode());
        assertEquals(List.of("aten.tanh.default (node tanh)", "aten.mul.Scalar (node mul)", "aten.sum.dim_IntList (node sum)"),
                steps(Kind.LOWERING).stream().map(Step::what).toList());
        assertEquals(List.of(new Step(Kind.FUSION, 1, true, "fuse aten.mul.Scalar (node mul) into the kernel of sum")), steps(Kind.FUSION));
        List<String> lines = Files.readAllLines(tmp.resolve("steps.tsv"));
        assertEquals("lowering\t1\tapplied\taten.tanh.default (node tanh)", lines.get(0));
        assertEquals(CompilerSteps.steps(), lines.stream().map(Step::parse).toList());
    }

    @Test
    void aFusionSkippedLeavesTheStageInAKernelOfItsOwn() {
        System.setProperty(CompilerSteps.LIMIT_PROPERTY, "fusion:0");
        InductorGraph c = checkAgainstEager(rowSum(), 1e-5, Tensor.randn(8, 64));
        assertEquals(2, kernels(c.sourceCode()), c.sourceCode());
        assertEquals(List.of(new Step(Kind.FUSION, 1, false, "fuse aten.mul.Scalar (node mul) into the kernel of sum")), steps(Kind.FUSION));
    }

    @Test
    void aLoweringSkippedRunsTheOpsEagerKernel() {
        System.setProperty(CompilerSteps.LIMIT_PROPERTY, "lowering:1");
        InductorGraph c = checkAgainstEager(rowSum(), 1e-5, Tensor.randn(8, 64));
        assertTrue(c.sourceCode().contains("OP_MUL_SCALAR") && c.sourceCode().contains("OP_SUM_DIM_INTLIST"), c.sourceCode());
        assertFalse(c.sourceCode().contains("OP_TANH"), c.sourceCode());
        assertTrue(c.perfHints().contains("mul (aten.mul.Scalar): lowering skipped (EMBER_BISECT_LIMIT, ember bisect); it runs its eager kernel"), c.perfHints()::toString);
        assertEquals(List.of(true, false, false), steps(Kind.LOWERING).stream().map(Step::applied).toList());
    }

    @Test
    void aDecompositionSkippedLeavesItsOp() {
        System.setProperty(CompilerSteps.LIMIT_PROPERTY, "decomposition:1");
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node a = call(g, "_softmax.default", x, 1, false);
        g.output(call(g, "_log_softmax.default", a, 1, false));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm, Tensor.randn(2, 3));
        DecomposePass.run(gm);
        String code = gm.code();
        assertFalse(code.contains("aten._softmax.default"), code);
        assertTrue(code.contains("aten._log_softmax.default"), code);
        assertEquals(List.of(true, false), steps(Kind.DECOMPOSITION).stream().map(Step::applied).toList());
    }

    @Test
    void aBadLimitSaysWhatItExpects() {
        System.setProperty(CompilerSteps.LIMIT_PROPERTY, "lowerings:3");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, CompilerSteps::limit);
        assertEquals("-Dember.bisect.limit=lowerings:3: expected <subsystem>:<count>, e.g. lowering:12, with subsystem decomposition, lowering or fusion"
                + " (unknown subsystem 'lowerings'; use decomposition, lowering or fusion)", e.getMessage());
    }
}
