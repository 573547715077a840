package dev.ember.tuning;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The kernel choices fitted by measurement, not derived from the machine's description: where
 * Ember's own few-row GEMM kernels beat OpenBLAS ({@link FewRowRule}, one for {@code GemmDot} and
 * one for {@code GemmBroadcast}), and the fewest rows a band of a batched product may have
 * ({@code Gemm}'s band planner). {@link #DEFAULTS} are the values the sweeps in
 * {@code GemmDot.suits}, {@code GemmBroadcast.suits} and {@code Gemm}'s band planner chose on the
 * project's 2-core AVX-512 machine; {@code ember tune} ({@code Ember.tuneKernels}) measures them on the
 * machine it runs on and writes them to {@link #file}, which every later JVM on that machine reads.
 *
 * <p>Which tuning is used: {@code EMBER_TUNING} (or the system property {@code ember.tuning}) set to
 * {@code defaults} ignores any file; set to a path, reads that file; unset, reads
 * {@code ~/.cache/ember/tuning/<machine key>.properties} when it exists. A file that cannot be
 * read or parsed is reported once on stderr (which file, which key, what was wrong) and the
 * defaults are used: a kernel choice is about speed, never about results, so it must not stop a
 * program.
 *
 * <p>What the Java kernels are measured against is the native BLAS the JVM runs ({@code baseline}:
 * oneMKL or OpenBLAS, docs/tuning.md), and the answers differ: oneMKL wins almost everywhere the
 * kernels won against OpenBLAS. So there are defaults for each ({@link #DEFAULTS},
 * {@link #ONE_MKL_DEFAULTS}), a file records its baseline, and {@link #against} gives the defaults
 * of the BLAS in use instead of a file measured against the other one (saying so once).
 *
 * @param dot          where {@code GemmDot} (A times a transposed B) runs instead of the native BLAS
 * @param broadcast    where {@code GemmBroadcast} (A times a row-major B) runs instead of the native BLAS
 * @param minBandRows  the fewest rows of a band when {@code Gemm.multiplyBatched} cuts products into bands
 * @param source       where these values came from, for people ({@code "defaults"} or the file)
 * @param baseline     the native BLAS they were measured against: {@link #OPENBLAS} or {@link #ONE_MKL}
 */
public record KernelTuning(FewRowRule dot, FewRowRule broadcast, int minBandRows, String source, String baseline) {
    public static final String OPENBLAS = "OpenBLAS", ONE_MKL = "oneMKL";

    /**
     * Where a few-row Java GEMM kernel runs instead of OpenBLAS for an {@code m x n x k} product:
     * few rows ({@code m <= fewRows}) with at least {@code fewRowsMinColumns} columns, or up to
     * {@code maxRows} rows with a reduction of at least {@code minReduction} and at least
     * {@code minColumns} columns.
     */
    public record FewRowRule(int fewRows, int fewRowsMinColumns, int maxRows, int minReduction, int minColumns) {
        public FewRowRule {
            if (fewRows < 0 || fewRowsMinColumns < 0 || maxRows < 0 || minReduction < 0 || minColumns < 0) {
                throw new IllegalArgumentException("a few-row rule's bounds are not negative: " + this);
            }
        }

        public boolean accepts(int m, int n, int k) {
            return (m <= fewRows && n >= fewRowsMinColumns) || (m <= maxRows && k >= minReduction && n >= minColumns);
        }
    }

    /** The values measured against OpenBLAS on the project's machine (the sweeps are in the kernels' javadoc). */
    public static final KernelTuning DEFAULTS = new KernelTuning(
            new FewRowRule(16, 0, 256, 512, 256),
            new FewRowRule(4, 512, 64, 512, 512),
            32, "defaults", OPENBLAS);

    /**
     * The values measured against oneMKL 2025.2 on the project's machine (session 19, {@code ember tune
     * --dry-run}, docs/tuning.md): {@code GemmDot} only up to 8 rows, or 16 with long reductions
     * and many columns; {@code GemmBroadcast} and bands never.
     */
    public static final KernelTuning ONE_MKL_DEFAULTS = new KernelTuning(
            new FewRowRule(8, 0, 16, 512, 512),
            new FewRowRule(0, 0, 0, 0, 0),
            1 << 16, "defaults", ONE_MKL);   // NO_BANDS (declared below)

    /** The defaults measured against {@code baseline}. */
    public static KernelTuning defaults(String baseline) { return ONE_MKL.equals(baseline) ? ONE_MKL_DEFAULTS : DEFAULTS; }

    /**
     * This tuning when it was measured against {@code baseline} (the BLAS the JVM runs); else that
     * BLAS's defaults, with one line on stderr when this tuning is a file (run {@code ember tune} again).
     */
    public KernelTuning against(String baseline) {
        if (this.baseline.equals(baseline)) return this;
        if (!source.equals("defaults")) {
            System.err.println("ember: the kernel tuning in " + source + " was measured against " + this.baseline
                    + ", but this JVM's GEMMs run on " + baseline + "; the defaults for " + baseline
                    + " are used. Run `ember tune` again to measure against " + baseline + ".");
        }
        return defaults(baseline);
    }

    /** A {@code minBandRows} no product reaches: bands never win, batched products run one at a time. */
    public static final int NO_BANDS = 1 << 16;

    /** The environment variable (and, lower-case with a dot, system property) choosing the tuning. */
    public static final String ENV = "EMBER_TUNING";

    private static final class Holder {
        static final KernelTuning CURRENT = choose(System.getProperty("ember.tuning", System.getenv(ENV)), Machine.current());
    }

    /** The tuning this JVM's kernels use (chosen once). */
    public static KernelTuning current() { return Holder.CURRENT; }

    /** {@code ~/.cache/ember/tuning/<key>.properties}: where {@code ember tune} writes and kernels look. */
    public static Path file(Machine machine) {
        return Path.of(System.getProperty("user.home"), ".cache", "ember", "tuning", machine.key() + ".properties");
    }

    /** The tuning for a setting of {@link #ENV} (null: unset) on {@code machine}. */
    static KernelTuning choose(String setting, Machine machine) {
        if (setting != null && setting.equals("defaults")) return DEFAULTS;
        Path path = setting == null || setting.isBlank() ? file(machine) : Path.of(setting);
        if (setting == null && !Files.exists(path)) return DEFAULTS;
        try {
            return read(path);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            System.err.println("ember: the kernel tuning in " + path + " is not used: " + e.getMessage()
                    + "; the defaults are. Run `ember tune` again, or set " + ENV + "=defaults.");
            return DEFAULTS;
        }
    }

    /** Reads a file {@link #write} wrote; names the file and the key at fault when it cannot. */
    public static KernelTuning read(Path path) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(path)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read it (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
        }
        FewRowRule dot = rule(p, "gemm.dot", DEFAULTS.dot);
        FewRowRule broadcast = rule(p, "gemm.broadcast", DEFAULTS.broadcast);
        int band = intValue(p, "gemm.batched.minBandRows", DEFAULTS.minBandRows);
        if (band < 1) throw new IllegalArgumentException("gemm.batched.minBandRows must be at least 1, not " + band);
        // files written before the baseline was recorded (session 19) were all measured against OpenBLAS
        String baseline = p.getProperty("gemm.baseline", OPENBLAS).strip();
        if (!baseline.equals(OPENBLAS) && !baseline.equals(ONE_MKL)) {
            throw new IllegalArgumentException("gemm.baseline must be " + OPENBLAS + " or " + ONE_MKL + ", not '" + baseline + "'");
        }
        return new KernelTuning(dot, broadcast, band, path.toString(), baseline);
    }

    /** Writes this tuning as a properties file (with a header saying what measured it). */
    public void write(Path path, String header) {
        StringBuilder s = new StringBuilder();
        for (String line : header.split("\n")) s.append("# ").append(line).append('\n');
        appendRule(s, "gemm.dot", dot);
        appendRule(s, "gemm.broadcast", broadcast);
        s.append("gemm.batched.minBandRows=").append(minBandRows).append('\n');
        s.append("gemm.baseline=").append(baseline).append('\n');
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
            Path tmp = Files.createTempFile(path.toAbsolutePath().getParent(), "tuning", ".tmp");
            Files.writeString(tmp, s);
            Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kernel tuning to " + path + ": " + e.getMessage(), e);
        }
    }

    private static void appendRule(StringBuilder s, String prefix, FewRowRule r) {
        s.append(prefix).append(".fewRows=").append(r.fewRows()).append('\n');
        s.append(prefix).append(".fewRowsMinColumns=").append(r.fewRowsMinColumns()).append('\n');
        s.append(prefix).append(".maxRows=").append(r.maxRows()).append('\n');
        s.append(prefix).append(".minReduction=").append(r.minReduction()).append('\n');
        s.append(prefix).append(".minColumns=").append(r.minColumns()).append('\n');
    }

    private static FewRowRule rule(Properties p, String prefix, FewRowRule d) {
        return new FewRowRule(intValue(p, prefix + ".fewRows", d.fewRows()), intValue(p, prefix + ".fewRowsMinColumns", d.fewRowsMinColumns()),
                intValue(p, prefix + ".maxRows", d.maxRows()), intValue(p, prefix + ".minReduction", d.minReduction()),
                intValue(p, prefix + ".minColumns", d.minColumns()));
    }

    private static int intValue(Properties p, String key, int fallback) {
        String v = p.getProperty(key);
        if (v == null) return fallback;
        try {
            int i = Integer.parseInt(v.trim());
            if (i < 0) throw new IllegalArgumentException(key + " must not be negative, not " + i);
            return i;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a whole number: '" + v + "'");
        }
    }
}
