package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.debug.Accuracy;
import dev.ember.debug.NanReport;
import dev.ember.tensor.Tensor;

/**
 * How to check that compiled code computes what eager does: compare against a float64 run of the
 * same program (the rule the differential fuzzer, {@code EMBER_REPRO_LEVEL=4} and the minifier
 * use), then find the op that first produced a NaN.
 */
public final class TrustButVerify {
    private TrustButVerify() {}

    /** A two-step recurrent cell: each step's output feeds the next step's matrix product. */
    static Tensor rnn(Tensor seq, Tensor wx, Tensor wh) {
        Tensor h = Tensor.zeros(seq.size(0), wh.size(0));
        for (int t = 0; t < seq.size(1); t++) h = seq.select(1, t).matmul(wx).add(h.matmul(wh)).tanh();
        return h;
    }

    /** log of a value that can be negative: NaN where it is. */
    static Tensor logOfDifference(Tensor a, Tensor b, Tensor scale) {
        Tensor d = a.sub(b).mul(scale);
        return d.log().add(1.0).sum();
    }

    public static void main(String[] args) {
        Tensor.manualSeed(0);
        Tensor seq = Tensor.randn(2, 3, 8), wx = Tensor.randn(8, 16), wh = Tensor.randn(16, 16);

        Tensor eager = rnn(seq, wx, wh);
        Object float64 = Accuracy.float64Reference(new Object[] {seq, wx, wh}, in -> rnn((Tensor) in[0], (Tensor) in[1], (Tensor) in[2]));
        for (String mode : new String[] {"default", "max-autotune", "reduce-overhead"}) {
            Fn3<Tensor, Tensor, Tensor, Tensor> compiled = Ember.compile(TrustButVerify::rnn, Options.backend("inductor").mode(mode));
            Accuracy.Verdict verdict = Accuracy.compare(eager, compiled.apply(seq, wx, wh), float64, Accuracy.DEFAULT_TOLERANCE);
            System.out.printf("inductor %-16s %s%n", mode, verdict);
        }

        NanReport nan = Ember.debugNans(TrustButVerify::logOfDifference, Tensor.of(1f, 2f, 3f), Tensor.of(0f, 2.5f, 1f), Tensor.of(1f, 1f, 1f));
        System.out.println(nan);
    }
}
