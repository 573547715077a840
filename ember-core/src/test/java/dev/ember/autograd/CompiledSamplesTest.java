package dev.ember.autograd;

import dev.ember.aot.AotAutograd;
import dev.ember.fx.Backends;
import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every gradcheck sample ({@link OpGradcheckTest#SAMPLES}: one call of one op, float64 leaves that
 * require grad) as a one-op graph compiled by the default backend, inductor through AOT autograd:
 * its outputs and its gradients must be eager's. The op-group tests check their ops under
 * {@code Ember.compile} one group at a time; this is the check no op escapes, so an op whose lowering,
 * decomposition or compiled backward differs from its eager kernel and formula fails here by name,
 * including every op added later (a sample is required of each differentiable op).
 */
class CompiledSamplesTest {

    @TestFactory
    List<DynamicTest> everySampleCompiledByInductorGivesEagersValuesAndGradients() { return tests(DType.FLOAT64); }

    /**
     * The same samples in float32, where inductor's kernels take other paths than in float64 (the
     * vectorized approximations of the transcendental functions, float accumulation), held to
     * float32's tolerance.
     */
    @TestFactory
    List<DynamicTest> everySampleInFloat32CompiledByInductorGivesEagersValuesAndGradients() { return tests(DType.FLOAT32, false); }

    /**
     * The float32 samples with every input of more than one element strided (every other element of
     * a buffer twice as long in its last dim, as OpInfo's noncontiguous samples): kernels compiled
     * for the inputs' strides, and gradients flowing back into strided leaves.
     */
    @TestFactory
    List<DynamicTest> everySampleWithStridedInputsCompiledByInductorGivesEagersValuesAndGradients() { return tests(DType.FLOAT32, true); }

    /**
     * The float32 samples under max-autotune, which times the kernels' variants (GEMM paths, loop
     * splits, convolution algorithms) and keeps the fastest: each variant it may keep must agree too.
     */
    @TestFactory
    List<DynamicTest> everySampleInFloat32CompiledWithMaxAutotuneGivesEagersValuesAndGradients() {
        return tests(DType.FLOAT32, false, CompileMode.MAX_AUTOTUNE);
    }

    private static List<DynamicTest> tests(DType dtype) { return tests(dtype, false); }

    private static List<DynamicTest> tests(DType dtype, boolean strided) { return tests(dtype, strided, CompileMode.DEFAULT); }

    private static List<DynamicTest> tests(DType dtype, boolean strided, CompileMode mode) {
        List<DynamicTest> tests = new ArrayList<>();
        for (OpGradcheckTest.Sample sample : OpGradcheckTest.SAMPLES) {
            String name = sample.op() + (sample.label().isEmpty() ? "" : " (" + sample.label() + ")");
            tests.add(DynamicTest.dynamicTest(name, () -> {
                try {
                    check(sample, dtype, strided, mode);
                } catch (AotAutograd.NotTrainable e) {
                    // Ember.compile runs such a graph op by op with autograd (eager itself); the captured path also
                    // rewrites writes to graph inputs before AOT (dynamo's InputMutations), which this one-op graph skips
                    Assumptions.abort("AOT does not train this graph, Ember.compile runs it op by op: " + e.getMessage());
                } catch (IllegalArgumentException e) {
                    // capture breaks the graph before such an op (Tag.DYNAMIC_OUTPUT_SHAPE, or index by a boolean mask)
                    if (String.valueOf(e.getMessage()).contains("dynamic output shape")) Assumptions.abort(e.getMessage());
                    throw new AssertionError(name + ": " + e.getMessage(), e);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError(name + ": " + e.getMessage(), e);
                }
            }));
        }
        return tests;
    }

    private static void check(OpGradcheckTest.Sample sample, DType dtype, boolean strided, CompileMode mode) {
        Graph g = new Graph();
        List<Tensor> originals = new ArrayList<>();
        Object[] nodeArgs = new Object[sample.args().length];
        for (int i = 0; i < nodeArgs.length; i++) nodeArgs[i] = asNodes(sample.args()[i], g, originals);
        Node call = g.callFunction(sample.op(), nodeArgs);
        List<Tensor> inputs = fresh(originals, dtype, strided);

        Object eagerOut = sample.op().call(withLeaves(sample.args(), originals, fresh(inputs, dtype, strided)));
        boolean many = eagerOut instanceof List<?>;
        if (many) {
            List<Node> items = new ArrayList<>();
            for (int i = 0; i < ((List<?>) eagerOut).size(); i++) items.add(g.callFunction(BuiltinFunctions.GETITEM, call, i));
            g.output(items);
        } else {
            g.output(List.of(call));
        }
        GraphModule gm = new GraphModule(g);
        // as Ember.compile does for a graph whose inputs require grad: AOT's forward and backward, each compiled by inductor
        CompiledGraph compiled = AotAutograd.compile(gm, new ArrayList<Object>(inputs), true,
                (graph, fakes, which) -> Backends.get("inductor").compile(graph, fakes, mode));

        List<Tensor> eagerLeaves = fresh(inputs, dtype, strided), compiledLeaves = fresh(inputs, dtype, strided);
        // a random op draws from the global generator compiled as in eager: the same seed, the same numbers
        Generator.global().manualSeed(11);
        List<Tensor> want = outputs(sample.op().call(withLeaves(sample.args(), originals, eagerLeaves)));
        Generator.global().manualSeed(11);
        List<Tensor> got = new ArrayList<>();
        for (Object o : compiled.run(compiledLeaves.toArray())) got.add((Tensor) o);
        assertEquals(want.size(), got.size(), "outputs");
        for (int i = 0; i < want.size(); i++) assertClose(got.get(i), want.get(i), "output " + i);

        Tensor wantLoss = weightedSum(sample.op(), want), gotLoss = weightedSum(sample.op(), got);
        if (wantLoss == null || !wantLoss.requiresGrad()) return;
        wantLoss.backward();
        gotLoss.backward();
        for (int i = 0; i < inputs.size(); i++) {
            Tensor w = eagerLeaves.get(i).grad(), c = compiledLeaves.get(i).grad();
            if (w == null && c == null) continue;
            if (w == null || c == null) throw new AssertionError("input " + i + ": eager gradient " + w + ", compiled " + c);
            assertClose(c, w, "gradient of input " + i);
        }
    }

    /** {@code arg} with each tensor (also inside a list) replaced by a new placeholder, the tensor appended to {@code inputs}. */
    private static Object asNodes(Object arg, Graph g, List<Tensor> inputs) {
        if (arg instanceof Tensor t) {
            inputs.add(t);
            return g.placeholder("x" + (inputs.size() - 1), null);
        }
        if (arg instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            for (Object e : list) out.add(asNodes(e, g, inputs));
            return out;
        }
        return arg;
    }

    /** The sample's arguments with its tensors (in {@code originals} order) replaced by {@code leaves}. */
    private static Object[] withLeaves(Object[] args, List<Tensor> originals, List<Tensor> leaves) {
        Object[] out = new Object[args.length];
        for (int i = 0; i < args.length; i++) out[i] = replaced(args[i], originals, leaves);
        return out;
    }

    private static Object replaced(Object arg, List<Tensor> inputs, List<Tensor> leaves) {
        if (arg instanceof Tensor t) {
            for (int i = 0; i < inputs.size(); i++) if (inputs.get(i) == t) return leaves.get(i);
        }
        if (arg instanceof List<?> list) return list.stream().map(e -> replaced(e, inputs, leaves)).toList();
        return arg;
    }

    /**
     * New leaves with the same values, floating ones in {@code dtype}, each requiring grad as its
     * original does; when {@code strided}, each of more than one element is every other element of
     * a buffer twice as long in its last dim.
     */
    private static List<Tensor> fresh(List<Tensor> inputs, DType dtype, boolean strided) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : inputs) {
            Tensor copy = t.detach().clone();
            if (copy.dtype().isFloatingPoint() && copy.dtype() != dtype) copy = copy.to(dtype);
            if (strided && copy.numel() > 1) {
                int last = copy.dim() - 1;
                int[] wide = copy.shape().clone();
                wide[last] *= 2;
                Tensor buffer = Tensor.zeros(wide).to(copy.dtype());
                Tensor view = buffer.slice(last, 0, wide[last], 2);
                view.copy_(copy);
                copy = view.detach();
            }
            out.add(copy.requiresGrad(t.requiresGrad()));
        }
        return out;
    }

    private static List<Tensor> outputs(Object out) {
        List<Tensor> list = new ArrayList<>();
        if (out instanceof Tensor t) list.add(t);
        else for (Object o : (List<?>) out) list.add((Tensor) o);
        return list;
    }

    /** The differentiable floating outputs, each times fixed random weights, summed: one scalar whose gradient checks them all. */
    private static Tensor weightedSum(OpOverload op, List<Tensor> outs) {
        Generator weights = new Generator(3);
        Tensor total = null;
        for (int i = 0; i < outs.size(); i++) {
            Tensor t = outs.get(i);
            if (!t.dtype().isFloatingPoint() || !op.differentiableOutput(i) || !t.requiresGrad()) continue;
            Tensor part = t.mul(Tensor.randn(weights, t.shape()).to(t.dtype())).sum();
            total = total == null ? part : total.add(part);
        }
        return total;
    }
}
