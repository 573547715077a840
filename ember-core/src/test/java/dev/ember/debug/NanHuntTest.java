package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NanHuntTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor acrossABreak(Tensor x) {
        Tensor y = x.mul(2.0).sub(1.0);
        Ember.graphBreak();
        Tensor z = y.log();
        return z.add(y);
    }

    static Tensor propagates(Tensor x) {
        return x.mul(2.0).add(1.0);
    }

    static Tensor infMinusInf(Tensor x) {
        Tensor big = x.exp();
        return big.sub(big);
    }

    static String lineOf(String code) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("src/test/java/dev/ember/debug/NanHuntTest.java"));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).strip().equals(code)) return "NanHuntTest.java:" + (i + 1) + ": " + code;
        throw new AssertionError("no line " + code);
    }

    @Test
    void findsTheOpInTheGraphAfterABreakWithItsInputsStatistics() throws IOException {
        NanReport r = Ember.debugNans(NanHuntTest::acrossABreak, Tensor.of(1f, 0.25f, 2f));
        assertTrue(r.found(), r::toString);
        assertEquals("aten.log.default", r.op());
        assertEquals("log", r.node());
        assertEquals(lineOf("Tensor z = y.log();"), r.sourceLine());
        assertEquals(2, r.graphIndex());
        assertEquals(2, r.graphs());
        assertEquals(3, r.ops(), "mul and sub in graph 1, log in graph 2");
        assertEquals(new TensorStats("f32[3]", 0.0, 1.0986123085021973, 0.5493061542510986, 1, 0, "[1]"), r.output());
        assertEquals(1, r.inputs().size());
        assertEquals(new TensorStats("f32[3]", -0.5, 3.0, 3.5 / 3, 0, 0, null), r.inputs().get(0).stats());
        assertTrue(r.toString().startsWith("debugNans: log (aten.log.default) made the first NaN, in graph 2 (NanHuntTest.resume_in_acrossABreak_at_"),
                r::toString);
        assertEquals(String.join("\n",
                "  at " + lineOf("Tensor z = y.log();"),
                "          node  type    min      max    mean    nan  inf  first non-finite",
                "  output  log   f32[3]  0.000    1.099  0.5493  1    0    [1]",
                "  input   l_y_  f32[3]  -0.5000  3.000  1.167   0    0    -"), r.toString().substring(r.toString().indexOf('\n') + 1));
    }

    /** A layer whose forward takes the log of values that may be negative. */
    static final class LogOfShifted extends dev.ember.nn.Module {
        @Override
        public Tensor forward(Tensor x) {
            Tensor shifted = x.sub(1.0);
            return shifted.log();
        }
    }

    @Test
    void findsTheOpInAModulesForward() throws IOException {
        NanReport r = Ember.debugNans(new LogOfShifted(), Tensor.of(2f, 0.5f));
        assertTrue(r.found(), r::toString);
        assertEquals(lineOf("return shifted.log();"), r.sourceLine());
        assertEquals(new TensorStats("f32[2]", -0.5, 1.0, 0.25, 0, 0, null), r.inputs().get(0).stats());
    }

    @Test
    void aNaNTheInputsAlreadyHadIsNotMadeByAnyOp() {
        NanReport r = Ember.debugNans(NanHuntTest::propagates, Tensor.of(1f, Float.NaN));
        assertFalse(r.found());
        assertEquals(1, r.graphs());
        assertEquals(2, r.ops());
        assertTrue(r.toString().startsWith("debugNans: no op made a NaN or an infinity from inputs without one (1 graph, 2 ops"), r::toString);
    }

    @Test
    void anInfinityMinusItselfIsANewNaN() {
        NanReport r = Ember.debugNans(NanHuntTest::infMinusInf, Tensor.of(1f, 100f));
        assertTrue(r.found());
        assertEquals("aten.exp.default", r.op(), "exp makes the infinity first");
        assertEquals(1, r.output().infCount());
    }

    static Tensor trainingLoss(Tensor p, Tensor target) {
        Tensor q = p.mul(2.0).sub(1.0);
        return q.log().mul(target).neg().mean();
    }

    @Test
    void findsTheOpWhenAnInputRequiresGradAsInATrainingStep() {
        // with an input that requires grad the frame compiles for training: the hunt's graph must still be the one that runs
        Tensor p = Tensor.of(0.9f, 0.2f, 0.7f).requiresGrad(true);
        NanReport r = Ember.debugNans(NanHuntTest::trainingLoss, p, Tensor.of(1f, 0f, 1f));
        assertTrue(r.found(), r::toString);
        assertEquals("aten.log.default", r.op());
        assertEquals(3, r.ops(), "mul, sub, then log");
    }
}
