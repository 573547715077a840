package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.nn.F;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * batch_norm in a training graph returns the statistics it normalized with, as ATen's
 * native_batch_norm returns save_mean and save_invstd, and its derivative reads them: the compiled
 * backward no longer reduces the input twice more to find the batch's mean and variance again.
 */
class BatchNormSavedStatisticsTest {
    @AfterEach
    void reset() {
        Ember.setLogs("");
        Logs.setOutput(System.err);
        Ember.reset();
    }

    static Tensor step(Tensor x, Tensor weight, Tensor runningMean) {
        Tensor runningVar = Tensor.ones(4);
        return F.batchNorm(x, runningMean, runningVar, weight, null, true, 0.1, 1e-5).relu().mul(x).sum();
    }

    @Test
    void theBackwardReadsTheForwardsStatisticsAndGivesEagersGradients() {
        Generator g = new Generator(3);
        Tensor x0 = Tensor.randn(g, 5, 4, 3, 3), w0 = Tensor.rand(g, 4).add(0.5), mean0 = Tensor.randn(g, 4);
        Tensor ex = x0.clone().requiresGrad(true), ew = w0.clone().requiresGrad(true);
        step(ex, ew, mean0.clone()).backward();

        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(buf, true, StandardCharsets.UTF_8));
        Ember.setLogs("aot_graphs");
        Tensor cx = x0.clone().requiresGrad(true), cw = w0.clone().requiresGrad(true);
        Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) BatchNormSavedStatisticsTest::step, Options.backend("inductor")).apply(cx, cw, mean0.clone()).backward();
        String log = buf.toString(StandardCharsets.UTF_8);
        String afterMarker = log.substring(log.lastIndexOf("BACKWARD GRAPH"));
        String backward = afterMarker.substring(0, afterMarker.indexOf("[aot_graphs] }") + 1);   // up to the class's closing brace
        // what is left: the mean of the gradient and of gradient·x̂ (the input's gradient), the weight's gradient
        long reductions = backward.lines().filter(l -> l.contains("aten.sum.") || l.contains("aten.mean.")).count();
        assertTrue(reductions <= 3, reductions + " reductions: the backward reduces only gradients, not the input again:\n" + backward);

        assertArrayEquals(ex.grad().toFloatArray(), cx.grad().toFloatArray(), 2e-5f, "the input's gradient");
        assertArrayEquals(ew.grad().toFloatArray(), cw.grad().toFloatArray(), 2e-5f, "the weight's gradient");
    }
}
