package dev.ember.kernels;

import dev.ember.tuning.KernelTuning;
import dev.ember.tuning.KernelTuning.FewRowRule;
import dev.ember.tuning.Machine;
import dev.ember.tuning.TuningRun;
import dev.ember.tuning.TuningRun.Choice;
import dev.ember.tuning.TuningRun.Measurement;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The derivation from measurements to a tuning, on timings given by a model of a machine. */
class AutotunerTest {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    /** A machine where the Java kernel wins up to 8 rows at any reduction, up to 128 rows from k = 1024 with n ≥ 512, and bands from 32 rows. */
    private static Measurement model(Choice kernel, String sweep, int m, int n, int k) {
        boolean wins = kernel == Choice.BANDS ? k <= Gemm.SINGLE_THREADED_WORK / (128L * 32) : m <= 8 || (m <= 128 && k >= 1024 && n >= 512);
        return new Measurement(kernel, sweep, m, n, k, wins ? 1.0 : 2.0, wins ? 2.0 : 1.0);
    }

    @Test
    void theRulesAreTheMeasuredBoundaries() {
        TuningRun r = Autotuner.derive(AutotunerTest::model, true, true, QUIET, List.of());
        assertEquals(new FewRowRule(8, 0, 128, 1024, 512), r.tuning().dot());
        assertEquals(new FewRowRule(8, 512, 128, 1024, 512), r.tuning().broadcast(), "the few-row branch's column bound is not measured: it keeps the default");
        assertEquals(32, r.tuning().minBandRows());
        assertTrue(r.measurements().stream().anyMatch(m -> m.choice() == Choice.BANDS && m.sweep().equals("minBandRows")));
        String table = r.table();
        assertTrue(table.lines().findFirst().orElseThrow().startsWith("kernel"), table);
        assertTrue(table.contains("GemmDot        maxRows         128  2048  2048"), table);
    }

    @Test
    void aFirstLossEndsTheRowsAndALostLongestReductionDisablesTheSecondBranch() {
        // Java wins at 1, 2 and 8 rows but not at 4: the rows it wins must be a run from 1
        Autotuner.Timing timing = (kernel, sweep, m, n, k) -> {
            boolean wins = kernel != Choice.BANDS && (m <= 2 || m == 8);
            return new Measurement(kernel, sweep, m, n, k, wins ? 1 : 2, wins ? 2 : 1);
        };
        TuningRun r = Autotuner.derive(timing, true, false, QUIET, List.of());
        assertEquals(2, r.tuning().dot().fewRows());
        assertEquals(2, r.tuning().dot().maxRows(), "long reductions win no more rows: the rule is only the few-row branch");
        assertEquals(KernelTuning.DEFAULTS.minBandRows(), r.tuning().minBandRows(), "bands not measured: the default stays");
    }

    @Test
    void theKernelsSizeThemselvesByThisMachine() {
        Machine m = Machine.current();
        int expected = Integer.highestOneBit((int) Math.clamp(m.l2Bytes() / 32 / (4L * 16 * Float.BYTES), 64, 1024));
        if (m.vectorBits() == 512) assertEquals(expected, GemmBroadcast.K_BLOCK, "GemmBroadcast's reduction block from the L2: " + m.describeCaches());
    }

    @Test
    void oneNoisyMeasurementDoesNotMoveABoundaryPastClearOnes() {
        // the Java kernel loses by 14% at one row but wins by 2-4x up to 32 rows (session 18's GemmBroadcast), and ties
        // (0.1% slower) at the longest reduction and the widest product, while winning by 10-40% below them
        Autotuner.Timing timing = (kernel, sweep, m, n, k) -> {
            double ratio = switch (sweep) {
                case "fewRows", "maxRows" -> m == 1 ? 1.14 : m <= 32 ? 0.4 : 1.5;
                case "minReduction" -> k == 2048 ? 1.001 : k >= 512 ? 0.9 : 1.2;
                case "minColumns" -> n == 2048 ? 1.001 : 0.8;
                default -> 1.5;
            };
            return new Measurement(kernel, sweep, m, n, k, ratio, 1.0);
        };
        TuningRun r = Autotuner.derive(timing, true, false, QUIET, List.of());
        assertEquals(32, r.tuning().dot().fewRows(), "a 14% loss at one row against 2.5x wins up to 32");
        assertEquals(32, r.tuning().dot().maxRows());
    }

    @Test
    void theBoundariesCostTheLeastOverTheSweep() {
        List<Measurement> rows = List.of(m(1, 0.5), m(2, 0.5), m(4, 1.02), m(8, 0.6), m(16, 1.5), m(32, 2.0));
        assertEquals(3, Autotuner.prefix(rows), "8 rows: the 2% loss at 4 weighs less than the win at 8");
        assertEquals(-1, Autotuner.prefix(List.of(m(1, 1.5), m(2, 2.0))), "never");
        List<Measurement> reductions = List.of(m(128, 1.3), m(256, 1.1), m(512, 0.9), m(1024, 0.8), m(2048, 1.001));
        assertEquals(2, Autotuner.fromOnward(reductions), "from 512: the tie at 2048 costs almost nothing");
        assertEquals(-1, Autotuner.fromOnward(List.of(m(128, 1.3), m(256, 1.1))), "never");
    }

    private static Measurement m(int size, double ratio) { return new Measurement(Choice.DOT, "test", size, 2048, 2048, ratio, 1.0); }

    @Test
    void withoutTheKernelsNothingIsMeasuredAndTheDefaultsStand() {
        List<String> calls = new ArrayList<>();
        TuningRun r = Autotuner.derive((kernel, sweep, m, n, k) -> {
            calls.add(sweep);
            return model(kernel, sweep, m, n, k);
        }, false, false, QUIET, List.of("why"));
        assertEquals(List.of(), calls);
        assertEquals(KernelTuning.DEFAULTS.dot(), r.tuning().dot());
        assertEquals(List.of("why"), r.notes());
    }
}
