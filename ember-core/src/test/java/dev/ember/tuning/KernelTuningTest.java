package dev.ember.tuning;

import dev.ember.testing.Stdout;
import dev.ember.tuning.KernelTuning.FewRowRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelTuningTest {

    private static final Machine MACHINE = new Machine("Test CPU", 2, 512, 48 << 10, 2 << 20, 0, true);

    @Test
    void theTestsRunOnTheDefaultsWhateverTheMachineHasTuned() {
        // the suite's surefire configuration sets EMBER_TUNING=defaults: kernel-choice tests assert the documented rules
        assertSame(KernelTuning.DEFAULTS, KernelTuning.current());
    }

    @Test
    void aRuleAcceptsFewRowsOrLongReductionsUpToItsBounds() {
        FewRowRule dot = KernelTuning.DEFAULTS.dot();
        assertTrue(dot.accepts(16, 100, 64));
        assertTrue(dot.accepts(256, 1024, 512));
        assertFalse(dot.accepts(256, 1024, 256), "too short a reduction for 256 rows");
        assertFalse(dot.accepts(257, 4096, 4096));
        FewRowRule broadcast = KernelTuning.DEFAULTS.broadcast();
        assertFalse(broadcast.accepts(1, 256, 4096), "the few-row branch wants 512 columns");
        assertTrue(broadcast.accepts(4, 512, 64));
        assertThrows(IllegalArgumentException.class, () -> new FewRowRule(-1, 0, 0, 0, 0));
    }

    @Test
    void aWrittenTuningReadsBackAndIsWhatItsFileSays(@TempDir Path dir) {
        KernelTuning t = new KernelTuning(new FewRowRule(8, 0, 128, 1024, 512), new FewRowRule(2, 512, 2, 512, 512), 16, "measured", KernelTuning.ONE_MKL);
        Path file = dir.resolve("sub/tuning.properties");
        t.write(file, "a test\nsecond line");
        KernelTuning back = KernelTuning.read(file);
        assertEquals(t.dot(), back.dot());
        assertEquals(t.broadcast(), back.broadcast());
        assertEquals(16, back.minBandRows());
        assertEquals(file.toString(), back.source());
        assertEquals(KernelTuning.ONE_MKL, back.baseline());
        assertSame(KernelTuning.DEFAULTS, KernelTuning.choose("defaults", MACHINE));
        assertEquals(t.dot(), KernelTuning.choose(file.toString(), MACHINE).dot(), "EMBER_TUNING=<file> reads that file");
    }

    /**
     * A tuning is for the BLAS it was measured against: the defaults follow the BLAS in use, and a
     * file measured against the other one gives way to the defaults, saying which file and why;
     * files written before the baseline was recorded are OpenBLAS's.
     */
    @Test
    void aTuningMeasuredAgainstAnotherBlasGivesWayToThatBlasesDefaults(@TempDir Path dir) throws IOException {
        assertSame(KernelTuning.ONE_MKL_DEFAULTS, KernelTuning.DEFAULTS.against(KernelTuning.ONE_MKL));
        assertSame(KernelTuning.DEFAULTS, KernelTuning.ONE_MKL_DEFAULTS.against(KernelTuning.OPENBLAS));
        assertFalse(KernelTuning.ONE_MKL_DEFAULTS.broadcast().accepts(1, 4096, 4096), "against oneMKL, GemmBroadcast never runs");
        assertTrue(KernelTuning.ONE_MKL_DEFAULTS.dot().accepts(8, 2048, 64) && !KernelTuning.ONE_MKL_DEFAULTS.dot().accepts(64, 2048, 2048));
        Path old = Files.writeString(dir.resolve("old.properties"), "gemm.dot.fewRows=4\n");
        KernelTuning measured = KernelTuning.read(old);
        assertEquals(KernelTuning.OPENBLAS, measured.baseline(), "a file without gemm.baseline predates it: OpenBLAS");
        assertSame(measured, measured.against(KernelTuning.OPENBLAS));
        String err = Stdout.errOf(() -> assertSame(KernelTuning.ONE_MKL_DEFAULTS, measured.against(KernelTuning.ONE_MKL)));
        assertTrue(err.contains(old.toString()) && err.contains("measured against OpenBLAS") && err.contains("run on oneMKL"), err);
        Path bad = Files.writeString(dir.resolve("bad.properties"), "gemm.baseline=ATLAS\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KernelTuning.read(bad));
        assertEquals("gemm.baseline must be OpenBLAS or oneMKL, not 'ATLAS'", e.getMessage());
    }

    @Test
    void noFileForThisMachineMeansTheDefaults() {
        Machine unknown = new Machine("no such cpu " + System.nanoTime(), 3, 512, 1, 1, 0, false);
        assertFalse(Files.exists(KernelTuning.file(unknown)));
        assertSame(KernelTuning.DEFAULTS, KernelTuning.choose(null, unknown));
    }

    @Test
    void aBadFileIsReportedWithItsPathAndKeyAndTheDefaultsAreUsed(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("t.properties"), "gemm.dot.fewRows=sixteen\n");
        String err = Stdout.errOf(() -> assertSame(KernelTuning.DEFAULTS, KernelTuning.choose(file.toString(), MACHINE)));
        assertTrue(err.contains(file.toString()) && err.contains("gemm.dot.fewRows is not a whole number: 'sixteen'"), err);
        Path negative = Files.writeString(dir.resolve("n.properties"), "gemm.batched.minBandRows=0\n");
        String err2 = Stdout.errOf(() -> assertSame(KernelTuning.DEFAULTS, KernelTuning.choose(negative.toString(), MACHINE)));
        assertTrue(err2.contains("minBandRows must be at least 1"), err2);
        String err3 = Stdout.errOf(() -> assertSame(KernelTuning.DEFAULTS, KernelTuning.choose(dir.resolve("missing").toString(), MACHINE)));
        assertTrue(err3.contains("cannot read it") && err3.contains("EMBER_TUNING=defaults"), err3);
    }
}
