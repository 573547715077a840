package dev.ember.cli;

import dev.ember.Options;
import dev.ember.debug.Bisector;
import dev.ember.debug.Bisector.Outcome;
import dev.ember.debug.Bisector.Trial;
import dev.ember.fx.CompilerSteps;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ember bisect [--grep TEXT] -- <command…>}: runs the command again and again, as a child
 * process with {@code EMBER_BACKEND} and {@code EMBER_BISECT_LIMIT} set, and prints which backend
 * first fails and which decomposition, lowering or fusion decision first makes it fail
 * ({@link Bisector}). A run fails when the command exits with a non-zero code, or, with
 * {@code --grep}, when its output (stdout and stderr) contains the text, or, with {@code --timeout},
 * when it has not ended after that many seconds (a compiler bug may make a program hang).
 */
final class BisectCommand {
    private BisectCommand() {}

    static final String USAGE = "ember bisect [--grep TEXT] [--timeout SECONDS] -- <command...>";

    private static final String EXAMPLE = "e.g. ember bisect -- java -cp app.jar MyApp";

    static int run(String[] args, PrintStream out) throws Exception {
        String grep = null;
        Duration timeout = null;
        int i = 0;
        for (; i < args.length; i++) {
            if (args[i].equals("--")) {
                i++;
                break;
            } else if (args[i].equals("--grep")) {
                if (i + 1 == args.length) throw new IllegalArgumentException("--grep needs the text whose presence in the output means failure");
                grep = args[++i];
            } else if (args[i].equals("--timeout")) {
                timeout = seconds(i + 1 < args.length ? args[++i] : null);
            } else if (args[i].startsWith("-")) {
                throw new IllegalArgumentException("unknown option '" + args[i] + "'; usage: " + USAGE);
            } else {
                break;
            }
        }
        List<String> command = Arrays.asList(args).subList(i, args.length);
        if (command.isEmpty()) throw new IllegalArgumentException("no command to bisect: give it after --, " + EXAMPLE);
        Path work = Files.createTempDirectory("ember-bisect-");
        out.println("ember bisect: running `" + String.join(" ", command) + "`; a run fails when it exits with a non-zero code"
                + (grep == null ? "" : " or its output contains \"" + grep + "\"") + (timeout == null ? "" : " or runs longer than " + timeout.toSeconds() + " s")
                + " (each run's output: " + work + ")");
        Bisector.Result r = Bisector.bisect(new ChildRuns(command, grep, timeout, work), line -> out.println("  " + line));
        out.println("ember bisect: " + r.message());
        return switch (r) {
            case Bisector.FirstBadStep f -> 0;
            case Bisector.NoSingleStep n -> 0;
            case Bisector.PassesWithInductor p -> 1;
            case Bisector.FailsWithEager e -> 1;
        };
    }

    private static Duration seconds(String text) {
        try {
            long s = Long.parseLong(text == null ? "" : text);
            if (s > 0) return Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            // reported below, with what was given
        }
        throw new IllegalArgumentException("--timeout needs a whole number of seconds greater than 0, got " + (text == null ? "nothing" : "'" + text + "'"));
    }

    /** Each trial is one run of the command, its output kept in {@code work/run<N>.log}. */
    private static final class ChildRuns implements Bisector.Runner {
        private final List<String> command;
        private final String grep;
        private final Duration timeout;
        private final Path work;
        private int runs;

        ChildRuns(List<String> command, String grep, Duration timeout, Path work) {
            this.command = command;
            this.grep = grep;
            this.timeout = timeout;
            this.work = work;
        }

        @Override
        public Outcome run(Trial trial) throws IOException, InterruptedException {
            runs++;
            Path log = work.resolve("run" + runs + ".log");
            Path report = work.resolve("run" + runs + ".steps");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put(Options.BACKEND_ENV, trial.backend());
            env.put(CompilerSteps.REPORT_ENV, report.toString());
            if (trial.limit() == null) env.remove(CompilerSteps.LIMIT_ENV);
            else env.put(CompilerSteps.LIMIT_ENV, trial.limit().toString());
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot start `" + String.join(" ", command) + "` (" + e.getMessage() + "); give the command as you "
                        + "would type it, after --, " + EXAMPLE);
            }
            p.getOutputStream().close();
            if (timeout != null && !p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                Files.writeString(log, "\n[ember bisect: stopped after " + timeout.toSeconds() + " s (--timeout): counted as a failure]\n",
                        StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                return new Outcome(true, steps(report));
            }
            int code = p.waitFor();
            boolean failed = code != 0 || (grep != null && Files.readString(log, StandardCharsets.UTF_8).contains(grep));
            return new Outcome(failed, steps(report));
        }

        private static List<CompilerSteps.Step> steps(Path report) throws IOException {
            return Files.exists(report) ? Files.readAllLines(report).stream().map(CompilerSteps.Step::parse).toList() : List.of();
        }
    }
}
