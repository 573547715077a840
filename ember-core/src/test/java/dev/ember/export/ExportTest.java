package dev.ember.export;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ember.export: the signature and state it records, the program's own checks, strict against non-strict. */
class ExportTest {
    static final class Mlp extends Module {
        final Sequential body = new Sequential(new Linear(4, 8), new ReLU(), new Linear(8, 3));

        @Override
        public Tensor forward(Tensor x) { return body.forward(x).softmax(-1); }
    }

    static Tensor addRelu(Tensor x, Tensor y) { return x.add(y).relu().mul(2.0); }

    static Tensor printsBetween(Tensor x) {
        Tensor y = x.sin();
        System.out.println("rows: " + y.size(0));
        return y.cos();
    }

    static Tensor readsData(Tensor x) { return x.sum().item() > 0 ? x : x.neg(); }

    static Tensor lockedBlock(Tensor x) {
        synchronized (ExportTest.class) {
            return x.exp();
        }
    }

    static Tensor addsInPlace(Tensor x, Tensor y) {
        x.add_(y);
        return x.mul(2.0);
    }

    static Tensor ifOnInt(Tensor x, int n) { return n > 2 ? x.t() : x; }

    static Tensor scaled(Tensor x, double s) { return x.mul(s); }

    private static Tensor exact(Tensor t) { return t.to(DType.FLOAT64); }

    /** Within float32 rounding: the inductor may sum in another order than eager. */
    static boolean close(Tensor a, Tensor b) {
        double[] x = exact(a).toDoubleArray(), y = exact(b).toDoubleArray();
        if (x.length != y.length) return false;
        for (int i = 0; i < x.length; i++) if (Math.abs(x[i] - y[i]) > 1e-5 * (1 + Math.abs(x[i]))) return false;
        return true;
    }

    @Test
    void aModulesParametersAreInputsUnderTheirQualifiedNames() {
        Mlp m = new Mlp();
        Tensor x = Tensor.randn(2, 4);
        ExportedProgram ep = Ember.export(m, x);
        GraphSignature sig = ep.graphSignature();
        assertEquals(List.of("p_body_0_weight", "p_body_0_bias", "p_body_2_weight", "p_body_2_bias", "x"), sig.inputs().stream().map(InputSpec::name).toList());
        assertEquals(new InputSpec(InputSpec.Kind.PARAMETER, "p_body_0_weight", "body.0.weight", new TensorSpec(DType.FLOAT32, List.of(8, 4))), sig.inputs().getFirst());
        assertEquals(new InputSpec(InputSpec.Kind.USER_INPUT, "x", "x", new TensorSpec(DType.FLOAT32, List.of(2, 4))), sig.inputs().getLast());
        assertEquals(List.of("body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias"), List.copyOf(ep.parameters().keySet()));
        assertEquals(Map.of(), ep.rangeConstraints());
        assertTrue(close(ep.withBackend("eager").run(x).getFirst(), m.forward(x)));
        assertTrue(close(ep.run(x).getFirst(), m.forward(x)));
        assertTrue(close(ep.module().forward(x), m.forward(x)));
    }

    @Test
    void theProgramOwnsACopyOfTheState() {
        Mlp m = new Mlp();
        Tensor x = Tensor.randn(2, 4);
        ExportedProgram ep = Ember.export(m, x).withBackend("eager");
        Tensor before = ep.run(x).getFirst();
        try (var s = Ember.noGrad()) {
            m.body.parameters().getFirst().mul_(0.0);
        }
        assertTrue(ep.run(x).getFirst().sameData(before));
    }

    @Test
    void aBufferWrittenInPlaceIsABufferMutationOutput() {
        BatchNorm2d bn = new BatchNorm2d(3);
        Tensor x = Tensor.randn(2, 3, 4, 4);
        ExportedProgram ep = Ember.export(bn, x).withBackend("eager");
        OutputSpec mutation = ep.graphSignature().outputs().getLast();
        assertEquals(OutputSpec.Kind.BUFFER_MUTATION, mutation.kind());
        // batch_norm's update of its running statistics is a mutation too (its schema does not say so): every buffer is
        // written, and the mutation outputs follow the order of the buffer inputs they write, as torch.export's do
        List<String> bufferInputs = ep.graphSignature().inputs().stream().filter(i -> i.kind() == InputSpec.Kind.BUFFER).map(InputSpec::target).toList();
        assertEquals(java.util.Set.of("running_mean", "running_var", "num_batches_tracked"), java.util.Set.copyOf(bufferInputs));
        assertEquals(bufferInputs, ep.graphSignature().outputs().stream()
                .filter(o -> o.kind() == OutputSpec.Kind.BUFFER_MUTATION).map(OutputSpec::target).toList());
        assertEquals(InputSpec.Kind.BUFFER, ep.graphSignature().inputs().stream().filter(i -> i.target().equals("running_mean")).findFirst().orElseThrow().kind());
        ep.run(x);
        ep.run(x);
        assertEquals(2L, ep.buffers().get("num_batches_tracked").longItem());
        assertEquals(0L, bn.namedBuffers().get("num_batches_tracked").longItem(), "the module's own buffer is not the program's");
    }

    @Test
    void aUserInputWrittenInPlaceIsWrittenAsEagerWritesIt() {
        Tensor x = Tensor.randn(3), y = Tensor.randn(3);
        ExportedProgram ep = Ember.export(ExportTest::addsInPlace, x.clone(), y);
        assertEquals(OutputSpec.Kind.USER_INPUT_MUTATION, ep.graphSignature().outputs().getLast().kind());
        assertEquals("x", ep.graphSignature().outputs().getLast().target());
        Tensor eagerX = x.clone(), runX = x.clone();
        Tensor want = addsInPlace(eagerX, y);
        assertTrue(exact(ep.withBackend("eager").run(runX, y).getFirst()).sameData(exact(want)));
        assertTrue(runX.sameData(eagerX));
    }

    @Test
    void capturedTensorsAreConstantsAndNonTensorArgumentsAreSpecialized() {
        Tensor w = Tensor.randn(3, 4);
        Fn1<Tensor, Tensor> f = x -> x.add(w);
        ExportedProgram ep = Ember.export(f, Tensor.randn(3, 4));
        assertEquals(List.of(InputSpec.Kind.CONSTANT_TENSOR, InputSpec.Kind.USER_INPUT), ep.graphSignature().inputs().stream().map(InputSpec::kind).toList());
        assertEquals("w", ep.graphSignature().inputs().getFirst().target());
        assertEquals(Map.of("n", "3"), Ember.export(ExportTest::ifOnInt, Tensor.randn(3, 4), 3).graphSignature().specialized());
        // a double is specialized too, as torch.export does (Ember.compile would make it a graph input: docs/dynamic.md)
        ExportedProgram scaledBy2 = Ember.export(ExportTest::scaled, Tensor.randn(3, 4), 2.0);
        assertEquals(Map.of("s", "2.0"), scaledBy2.graphSignature().specialized());
        assertEquals(1, scaledBy2.graphSignature().inputs().size());
    }

    @Test
    void itPrintsLikeTorchsExportedProgram() {
        String text = Ember.export(new Mlp(), Tensor.randn(2, 4)).toString();
        assertTrue(text.startsWith("ExportedProgram: ExportTest$Mlp.forward (strict)\n    class GraphModule {\n"), text);
        assertTrue(text.contains("        List<Tensor> forward(Tensor p_body_0_weight /* f32[8, 4] */,"), text);
        assertTrue(text.contains("            // ExportTest.java:28  public Tensor forward(Tensor x) { return body.forward(x).softmax(-1); }"), text);
        assertTrue(text.contains("""
                Graph signature:
                    # inputs
                    p_body_0_weight:  PARAMETER    target='body.0.weight'  f32[8, 4]
                """), text);
        assertTrue(text.contains("""
                    x:                USER_INPUT   target='x'              f32[2, 4]

                    # outputs
                    mul:              USER_OUTPUT  target='output'         f32[2, 3]

                Range constraints: {}
                """), text);
    }

    @Test
    void runChecksEveryInputBeforeRunning() {
        ExportedProgram ep = Ember.export(ExportTest::addRelu, Tensor.randn(4, 8), Tensor.randn(4, 8));
        Tensor ok = Tensor.randn(4, 8);
        assertEquals("ExportedProgram.run: expected 2 inputs (x: f32[4, 8], y: f32[4, 8]), got 1", message(() -> ep.run(ok)));
        assertEquals("ExportedProgram.run: input 'x' dimension 0 is 5, but the program was exported for 4 (export again with this size, or declare the dimension dynamic: ExportOptions.dynamic(0, 0, Dim.of(\"batch\")))",
                message(() -> ep.run(Tensor.randn(5, 8), ok)));
        assertEquals("ExportedProgram.run: input 'y' has dtype f64, but the program was exported for f32 (f32[4, 8]); convert it with .to(DType.FLOAT32)",
                message(() -> ep.run(ok, ok.to(DType.FLOAT64))));
        assertEquals("ExportedProgram.run: input 'y' has 1 dimension f32[32], but the program was exported for 2 (f32[4, 8])",
                message(() -> ep.run(ok, Tensor.randn(32))));
        assertEquals("ExportedProgram.run: input 'x' is null; expected a tensor f32[4, 8]", message(() -> ep.run(null, ok)));
    }

    @Test
    void aGraphBreakIsAnExportErrorNamingItsLineAndReason() {
        String first = message(() -> Ember.export(ExportTest::printsBetween, Tensor.randn(3))).lines().findFirst().orElseThrow();
        assertTrue(first.startsWith("Ember.export(ExportTest.printsBetween): graph break at ExportTest.java:35 in ExportTest.printsBetween: "), first);
        assertTrue(first.contains("(GB0005)") && first.contains("ExportOptions.nonStrict()"), first);
    }

    @Test
    void nonStrictRunsTheJavaCode() {
        Tensor x = Tensor.randn(3);
        ExportedProgram printing = Ember.export(ExportOptions.nonStrict(), ExportTest::printsBetween, x);
        assertTrue(exact(printing.withBackend("eager").run(x).getFirst()).sameData(exact(printsBetween(x))));
        assertEquals("ExportTest.java:36", printing.graphModule().graph().nodes().stream().filter(n -> n.name().equals("cos")).findFirst().orElseThrow()
                .sourceLocation().fileAndLine());
        ExportedProgram locked = Ember.export(ExportOptions.nonStrict(), ExportTest::lockedBlock, x);
        assertTrue(locked.withBackend("eager").run(x).getFirst().sameData(lockedBlock(x)));
        String err = message(() -> Ember.export(ExportOptions.nonStrict(), ExportTest::readsData, x));
        assertTrue(err.startsWith("Ember.export(ExportTest.readsData, non-strict): the function failed while running on fake tensors at ExportTest.java:39 in ExportTest.readsData: item:"), err);
    }

    @Test
    void nonStrictAndStrictAgreeOnAModule() {
        Mlp m = new Mlp();
        Tensor x = Tensor.randn(2, 4);
        ExportedProgram strict = Ember.export(m, x), nonStrict = Ember.export(ExportOptions.nonStrict(), m, x);
        assertEquals(strict.graphSignature(), nonStrict.graphSignature());
        assertTrue(strict.withBackend("eager").run(x).getFirst().sameData(nonStrict.withBackend("eager").run(x).getFirst()));
    }

    @Test
    void moduleNeedsOneInputAndOneOutput() {
        Fn2<Tensor, Tensor, Tensor> f = ExportTest::addRelu;
        String err = message(() -> Ember.export(f, Tensor.randn(2), Tensor.randn(2)).module());
        assertEquals("ExportedProgram.module(): ExportTest.addRelu takes 2 user inputs and returns 1 outputs, but a Module's forward takes one tensor and returns one; call run(…) instead", err);
    }

    static String message(Runnable r) { return assertThrows(ExportError.class, r::run).getMessage(); }
}
