package dev.ember.bench.dashboard;

import dev.ember.bench.dashboard.Workload.JmhBenchmark;
import dev.ember.bench.dashboard.Workload.PeerFigure;
import dev.ember.bench.dashboard.Workload.Source;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The page generator behind {@code ./ember bench --report} (the launcher runs JMH and the torch peer, then this):
 *
 * <pre>
 * BenchDashboard --jmh FILE [--jmh FILE ...] [--peer FILE | --no-peer REASON] [--selected REGEX] --out DIR
 *     writes DIR/index.html from JMH's JSON results (-rf json) and torch_peer.py --json's figures; REGEX, the
 *     selection JMH ran, lets the page name the table's benchmarks that gave no result
 * BenchDashboard --selection
 *     prints the JMH selection (a regular expression) running exactly the table's benchmarks
 * BenchDashboard --peer-workloads FILE [FILE ...]
 *     prints the torch peer workloads (comma-separated, for torch_peer.py --only) that the rows measured
 *     in these JMH results need; an empty line when none
 * </pre>
 */
public final class BenchDashboard {
    private BenchDashboard() {}

    static final String USAGE = """
            usage: BenchDashboard --jmh FILE [--jmh FILE ...] [--peer FILE | --no-peer REASON] [--selected REGEX] --out DIR
                   BenchDashboard --selection
                   BenchDashboard --peer-workloads JMH_FILE [JMH_FILE ...]""";

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit status (0 done, 1 bad input file, 2 bad command line). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            if (args.length == 1 && args[0].equals("--selection")) {
                out.println(Workloads.jmhSelection(Workloads.TABLE));
                return 0;
            }
            if (args.length >= 2 && args[0].equals("--peer-workloads")) {
                List<JmhResult> jmh = new ArrayList<>();
                for (int i = 1; i < args.length; i++) jmh.addAll(JmhResult.read(Path.of(args[i])));
                out.println(String.join(",", peerWorkloads(Workloads.TABLE, jmh)));
                return 0;
            }
            List<Path> jmhFiles = new ArrayList<>();
            Path peerFile = null;
            String noPeerReason = null;
            Path outDir = null;
            Pattern selected = null;
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                if (i + 1 >= args.length) return usage(err, option + " needs a value");
                String value = args[++i];
                switch (option) {
                    case "--jmh" -> jmhFiles.add(Path.of(value));
                    case "--peer" -> peerFile = Path.of(value);
                    case "--no-peer" -> noPeerReason = value;
                    case "--out" -> outDir = Path.of(value);
                    case "--selected" -> {
                        try {
                            selected = Pattern.compile(value);
                        } catch (PatternSyntaxException e) {
                            return usage(err, "--selected " + value + " is not a regular expression: " + e.getDescription());
                        }
                    }
                    default -> {
                        return usage(err, "unknown option " + option);
                    }
                }
            }
            if (jmhFiles.isEmpty()) return usage(err, "no --jmh file");
            if (outDir == null) return usage(err, "no --out folder");
            if (peerFile != null && noPeerReason != null) return usage(err, "--peer and --no-peer together");
            Path page = write(jmhFiles, peerFile, noPeerReason, selected, outDir);
            out.println("benchmark dashboard: " + page.toAbsolutePath());
            return 0;
        } catch (DashboardInputException e) {
            err.println("bench report: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("bench report: cannot write the page: " + e);
            return 1;
        }
    }

    private static int usage(PrintStream err, String problem) {
        err.println("bench report: " + problem + "\n" + USAGE);
        return 2;
    }

    /** Reads the inputs, writes {@code outDir/index.html} and returns its path. */
    static Path write(List<Path> jmhFiles, Path peerFile, String noPeerReason, Pattern selected, Path outDir) throws IOException {
        List<JmhResult> jmh = new ArrayList<>();
        for (Path f : jmhFiles) jmh.addAll(JmhResult.read(f));
        PeerResults peer = peerFile == null ? null : PeerResults.read(peerFile);
        if (peer == null && noPeerReason == null) noPeerReason = "the torch peer did not run (no --peer file given)";
        Dashboard d = Dashboard.build(Workloads.TABLE, jmh, peer, selected);
        Files.createDirectories(outDir);
        Path page = outDir.resolve("index.html");
        Files.writeString(page, DashboardPage.html(d, jmhFiles, noPeerReason, Instant.now()), StandardCharsets.UTF_8);
        return page;
    }

    /** The peer workloads that the table's rows with at least one of these JMH results take figures from, in table order. */
    static Set<String> peerWorkloads(List<Workload> table, List<JmhResult> jmh) {
        Set<String> measured = new LinkedHashSet<>();
        for (JmhResult r : jmh) if (r.params().isEmpty()) measured.add(r.benchmark());
        Set<String> workloads = new LinkedHashSet<>();
        for (Workload w : table) {
            boolean rowMeasured = w.sources().values().stream().anyMatch(s -> s instanceof JmhBenchmark b && measured.contains(b.name()));
            if (!rowMeasured) continue;
            for (Source s : w.sources().values()) if (s instanceof PeerFigure f) workloads.add(f.workload());
        }
        return workloads;
    }
}
