package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A value a compiled graph returns and also saves for its backward, written in place by the caller
 * after the graph: backward must not read the new value. The compiled gradient was silently wrong
 * (differential fuzzer, seed 111382: {@code tanh_}, a graph break, then {@code maskedFill_} on the
 * value tanh_ saved); eager and PyTorch refuse such a backward. And the other side: a saved value
 * that only the derivative of an output without a gradient reads may change, as eager never runs
 * that derivative (seed 100542: compiled refused where eager trained).
 */
class SavedOutputWrittenInPlaceTest {
    @AfterEach
    void reset() {
        Logs.set("");
        Logs.setOutput(System.err);
        Ember.reset();
    }

    static Tensor f(Tensor a, Tensor b) {
        Tensor v = b.div(a.abs().add(1.0));
        v.tanh_();                                  // the graph's output v is what tanh's backward reads
        double scale = a.sum().item() * 0.5 + 1.2;  // a graph break: v lives across it
        Tensor out = v.mul(scale);
        v.maskedFill_(a.lt(0.3), 2.25);             // v written after the first graph saved it
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void backwardRefusesAsEagerDoesOrReadsTheSavedValue(String backend) {
        Tensor a0 = Tensor.randn(new Generator(3), 4), b0 = Tensor.randn(new Generator(4), 2, 4);
        Tensor ea = a0.clone().requiresGrad(true), eb = b0.clone().requiresGrad(true);
        var eagerError = assertThrows(IllegalStateException.class, () -> f(ea, eb).sum().backward());
        assertTrue(eagerError.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), eagerError.getMessage());

        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::f, Options.backend(backend));
        Tensor a = a0.clone().requiresGrad(true), b = b0.clone().requiresGrad(true);
        try {
            compiled.apply(a, b).sum().backward();
        } catch (IllegalStateException refused) {
            assertTrue(refused.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), refused.getMessage());
            return;
        }
        // a partitioner that recomputes tanh instead of saving it never reads the written value: the gradient is the unwritten program's
        Tensor ra = a0.clone().requiresGrad(true), rb = b0.clone().requiresGrad(true);
        Tensor v = rb.div(ra.abs().add(1.0)).tanh();
        v.mul(a0.sum().item() * 0.5 + 1.2).sum().backward();
        assertArrayEquals(rb.grad().toFloatArray(), b.grad().toFloatArray(), 1e-6f, backend);
        assertArrayEquals(ra.grad().toFloatArray(), a.grad().toFloatArray(), 1e-6f, backend);
    }

    static java.util.List<Tensor> twoOutputs(Tensor a, Tensor b) {
        return java.util.List.of(b.mul(3.0), a.abs());   // abs's derivative reads a
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aValueReadOnlyForAnOutputWithoutGradientMayChange(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, java.util.List<Tensor>>) SavedOutputWrittenInPlaceTest::twoOutputs, Options.backend(backend));
        Tensor a = Tensor.randn(new Generator(5), 6).requiresGrad(true), b = Tensor.randn(new Generator(6), 6).requiresGrad(true);
        java.util.List<Tensor> out = compiled.apply(a, b);
        try (var noGrad = Ember.noGrad()) {
            a.add_(1.0);                                   // an optimizer's step, say: a's version moves on
        }
        out.get(0).sum().backward();                       // reaches b only, as in eager: abs's derivative never runs
        assertArrayEquals(new float[] {3, 3, 3, 3, 3, 3}, b.grad().toFloatArray(), backend);

        Tensor c = Tensor.randn(new Generator(7), 6).requiresGrad(true);
        java.util.List<Tensor> again = compiled.apply(c, b);
        try (var noGrad = Ember.noGrad()) {
            c.add_(1.0);
        }
        var refused = assertThrows(IllegalStateException.class, () -> again.get(1).sum().backward(), "abs's derivative reads c's old value");
        assertTrue(refused.getMessage().contains("which is the compiled graph's input l_a_,"), refused.getMessage());
    }

    static Tensor writesItsIntegerInput(Tensor a, Tensor counts) {
        counts.neg_();                     // the graph's own write of its input
        return counts.minimum(a);          // minimum's derivative reads the new counts
    }

    /** Inductor computes the new value into the input and saves it; the write-back after the call is no later write (seed 154684). */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void theGraphsOwnWriteOfAnInputItSavesIsNoLaterWrite(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::writesItsIntegerInput, Options.backend(backend));
        Tensor a0 = Tensor.randn(new Generator(8), 4, 1);
        Tensor counts0 = Tensor.randint(new Generator(9), -3, 4, 5).to(dev.ember.tensor.DType.INT32);
        Tensor ea = a0.clone().requiresGrad(true), eCounts = counts0.clone();
        writesItsIntegerInput(ea, eCounts).sum().backward();
        Tensor a = a0.clone().requiresGrad(true), counts = counts0.clone();
        compiled.apply(a, counts).sum().backward();
        assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 1e-6f, backend);
        assertArrayEquals(eCounts.toIntArray(), counts.toIntArray(), backend + ": the write reached the caller's tensor");
    }

    /**
     * The caller writing that input after the call is a later write: where the saved value is the input's memory, backward
     * refuses, as eager's does (45's gap, closed); where it is a value of its own, the gradient is the one before the write.
     */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aCallersLaterWriteOfAnInputTheGraphWroteAndSavedIsRefused(String backend) {
        Tensor a0 = Tensor.randn(new Generator(8), 4, 1);
        Tensor counts0 = Tensor.randint(new Generator(9), -3, 4, 5).to(dev.ember.tensor.DType.INT32);
        Tensor ea = a0.clone().requiresGrad(true), eCounts = counts0.clone();
        Tensor eOut = writesItsIntegerInput(ea, eCounts);
        eCounts.add_(1);
        var eagerError = assertThrows(IllegalStateException.class, () -> eOut.sum().backward(), "eager refuses");
        assertTrue(eagerError.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), eagerError.getMessage());

        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::writesItsIntegerInput, Options.backend(backend));
        Tensor a = a0.clone().requiresGrad(true), counts = counts0.clone();
        Tensor out = compiled.apply(a, counts);
        counts.add_(1);
        if (backend.equals("inductor")) {
            // inductor computes the new counts into the input itself and saves that memory: the later write must be refused
            var refused = assertThrows(IllegalStateException.class, () -> out.sum().backward(), backend);
            assertTrue(refused.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation")
                    && refused.getMessage().contains("which is the compiled graph's input"), refused.getMessage());
            return;
        }
        // aot_eager saves the functional new value, a tensor of its own: the caller's write cannot reach it, the gradient is the unwritten one
        out.sum().backward();
        Tensor ra = a0.clone().requiresGrad(true);
        writesItsIntegerInput(ra, counts0.clone()).sum().backward();
        assertArrayEquals(ra.grad().toFloatArray(), a.grad().toFloatArray(), 1e-6f, backend);
    }

    /** where's derivative reads only the mask; the input the mask was computed from is not saved by eager. */
    static Tensor maskedByItsOwnValues(Tensor a, Tensor v) {
        return Tensor.where(v.gt(0.15), a, v);
    }

    /**
     * A value no derivative reads, which the cut picked to recompute others from (here v, to
     * recompute the mask v > 0.15), written by the caller before backward: eager never saved it
     * and trains; the compiled backward refused (the fuzzer's seeds 53938, 270826, 290152). It is
     * now saved as a copy, and the gradient is eager's.
     */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aCallersWriteOfAValueOnlyTheCutChoseToSaveIsNoRefusal(String backend) {
        Tensor a0 = Tensor.randn(new Generator(11), 4, 8), v0 = Tensor.randn(new Generator(12), 4, 8);
        Tensor ea = a0.clone().requiresGrad(true), ev = v0.clone().requiresGrad(true);
        Tensor eIn = ev.mul(1.0);                      // a non-leaf the caller may write
        Tensor eOut = maskedByItsOwnValues(ea, eIn);
        eIn.slice(1, 4, 8, 2).relu_();
        eOut.sum().backward();

        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::maskedByItsOwnValues, Options.backend(backend));
        Tensor a = a0.clone().requiresGrad(true), v = v0.clone().requiresGrad(true);
        Tensor in = v.mul(1.0);
        Tensor out = compiled.apply(a, in);
        in.slice(1, 4, 8, 2).relu_();
        out.sum().backward();
        assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), backend + ": a's gradient");
        assertArrayEquals(ev.grad().toFloatArray(), v.grad().toFloatArray(), backend + ": v's gradient");
    }

    /**
     * Fuzzer seed 463913: {@code v3 = sigmoid(a)} is saved for sigmoid's derivative and also serves to
     * recompute maskedFill's mask {@code v3 > 0.15}; after a graph break the caller writes {@code v3}.
     * Eager saved the mask, never runs sigmoid's derivative (no gradient reaches {@code v3}) and
     * trains; compiled must too, with eager's gradients.
     */
    static Tensor maskFromAWrittenOutput(Tensor a, Tensor w) {
        Tensor v3 = a.sigmoid();
        Tensor v5 = a.maskedFill(v3.gt(0.15), 2.25);
        double shift = v5.sum().item() / 3.0;          // a graph break: v3 lives across it
        v3.clamp_(-3.0, 3.0).exp_();                   // written after the first graph saved it
        return v5.sub(shift).matmul(w);
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aValueSavedAlsoToRecomputeAMaskMayBeWrittenAsInEager(String backend) {
        Tensor a0 = Tensor.randn(new Generator(463913), 1, 16), w0 = Tensor.randn(new Generator(11), 16, 8);
        Tensor ea = a0.clone().requiresGrad(true), ew = w0.clone().requiresGrad(true);
        maskFromAWrittenOutput(ea, ew).sum().backward();

        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::maskFromAWrittenOutput, Options.backend(backend));
        Tensor a = a0.clone().requiresGrad(true), w = w0.clone().requiresGrad(true);
        compiled.apply(a, w).sum().backward();
        assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 1e-5f, backend);
        assertArrayEquals(ew.grad().toFloatArray(), w.grad().toFloatArray(), 1e-5f, backend);
    }

    static final dev.ember.nn.Linear PROJECTION = new dev.ember.nn.Linear(8, 6);

    /** A Linear of a 3-D input: reshaped to a matrix, a view of a contiguous input and a copy of a transposed one. */
    static Tensor projected(Tensor x, Tensor scale) {
        return PROJECTION.forward(x).mul(scale);
    }

    /**
     * Fuzzer seeds 1001654 and 1001278 (an LSTM's input projection): the weight's gradient reads the
     * input reshaped to a matrix. For a transposed input that reshape is a copy, which eager saves,
     * and the caller may then write the input before backward; the partitioner took the reshape for
     * a view, saved the input itself, and the compiled backward refused where eager trains. For a
     * contiguous input the reshape is a view eager saves, so both refuse the write alike.
     */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void anInputReshapedByACopyMayBeWrittenBeforeBackwardAsInEager(String backend) {
        java.util.function.Supplier<Tensor> transposed = () -> Tensor.randn(new Generator(1001654), 5, 8, 3).transpose(1, 2);
        Tensor s0 = Tensor.randn(new Generator(2), 6);
        Tensor eScale = s0.clone().requiresGrad(true);
        PROJECTION.zeroGrad();
        Tensor ex = transposed.get();
        Tensor eOut = projected(ex, eScale);
        ex.mul_(0.5);
        eOut.sum().backward();
        float[] eagerWeightGrad = PROJECTION.weight.grad().toFloatArray();

        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::projected, Options.backend(backend));
        PROJECTION.zeroGrad();
        Tensor scale = s0.clone().requiresGrad(true);
        Tensor x = transposed.get();
        Tensor out = compiled.apply(x, scale);
        x.mul_(0.5);
        out.sum().backward();
        assertArrayEquals(eagerWeightGrad, PROJECTION.weight.grad().toFloatArray(), 1e-5f, backend + ": the weight's gradient reads the input before the write");
        assertArrayEquals(eScale.grad().toFloatArray(), scale.grad().toFloatArray(), 1e-5f, backend);

        Tensor contiguous = transposed.get().contiguous(), eContiguous = transposed.get().contiguous();
        Tensor eViewOut = projected(eContiguous, eScale);
        eContiguous.mul_(0.5);
        var eagerError = assertThrows(IllegalStateException.class, () -> eViewOut.sum().backward(), "eager saved a view of the input");
        assertTrue(eagerError.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), eagerError.getMessage());
        Tensor viewOut = compiled.apply(contiguous, scale);
        contiguous.mul_(0.5);
        var refused = assertThrows(IllegalStateException.class, () -> viewOut.sum().backward(), backend + " refuses as eager does");
        assertTrue(refused.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), refused.getMessage());
    }

    /** What the partitioner log says it saved for a training call of {@code fn}. */
    private static String partitionerLog(Runnable trainingCall) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(buf, true, StandardCharsets.UTF_8));
        Ember.setLogs("partitioner");
        trainingCall.run();
        return buf.toString(StandardCharsets.UTF_8);
    }

    /**
     * The copy is made only where the recomputation stands for a value eager saved on its own: the
     * seed's mask gets one; a Linear's weight, whose transpose backward recomputes (eager saves that
     * transpose, a view sharing the weight's version counter), gets none.
     */
    @Test
    void onlyAValueTheRecomputationReadsBeyondAViewIsSavedTwice() {
        Tensor a = Tensor.randn(new Generator(463913), 1, 16).requiresGrad(true), w = Tensor.randn(new Generator(11), 16, 8).requiresGrad(true);
        String seed = partitionerLog(() -> Ember.compile((Fn2<Tensor, Tensor, Tensor>) SavedOutputWrittenInPlaceTest::maskFromAWrittenOutput,
                Options.backend("aot_eager")).apply(a, w).sum().backward());
        assertTrue(seed.contains("_copy") && seed.contains("a copy, for the recomputation"), seed);
        Ember.reset();

        var model = new dev.ember.nn.Sequential(new dev.ember.nn.Linear(16, 32), new dev.ember.nn.ReLU(), new dev.ember.nn.Linear(32, 8));
        Tensor x = Tensor.randn(new Generator(12), 4, 16);
        String mlp = partitionerLog(() -> Ember.compile(model, Options.backend("aot_eager")).apply(x).sum().backward());
        assertTrue(mlp.contains("recompute") && mlp.contains("aten.t"), "the weight's transpose is recomputed: " + mlp);
        assertTrue(!mlp.contains("_copy"), "no copy of the weight: " + mlp);
    }
}
