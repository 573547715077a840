package dev.ember.debug.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Counts of a fuzzing run, per configuration, and its failures; {@link #table} prints them for people. */
public final class FuzzStats {
    /** One configuration's counts: compared = eager and compiled both returned; exceptions = both threw the same class. */
    public static final class Row {
        long programs, compared, exceptions, failures;

        public long programs() { return programs; }

        public long compared() { return compared; }

        public long exceptions() { return exceptions; }

        public long failures() { return failures; }
    }

    private final Map<Config, Row> rows = new LinkedHashMap<>();
    private final List<Failure> failures = new ArrayList<>();
    private final List<String> eagerErrors = new ArrayList<>();
    private long programs, eagerThrew;

    FuzzStats(List<Config> configs) {
        for (Config c : configs) rows.put(c, new Row());
    }

    void add(Program program, DifferentialRunner.Result r) {
        programs++;
        if (r.eagerError() != null) {
            eagerThrew++;
            if (eagerErrors.size() < 5) eagerErrors.add("seed " + program.seed() + ": " + r.eagerError());
        }
        r.outcomes().forEach((c, d) -> {
            Row row = rows.get(c);
            row.programs++;
            if (d != null) {
                row.failures++;
                failures.add(new Failure(program, c, d));
            } else if (r.eagerError() != null) row.exceptions++;
            else row.compared++;
        });
    }

    public long programs() { return programs; }

    /** Programs whose eager run threw (then every configuration must throw the same class). */
    public long eagerThrew() { return eagerThrew; }

    /** The first few programs whose eager run threw, as "seed S: exception". */
    public List<String> eagerErrors() { return List.copyOf(eagerErrors); }

    public Map<Config, Row> rows() { return rows; }

    public List<Failure> failures() { return List.copyOf(failures); }

    /**
     * <pre>
     * configuration                 programs  compared  exceptions  failures
     * eager                              200       198           2         0
     * </pre>
     */
    public String table() {
        int w = Math.max(13, rows.keySet().stream().mapToInt(c -> c.name().length()).max().orElse(0));
        StringBuilder sb = new StringBuilder(String.format("%-" + w + "s  %9s  %9s  %10s  %9s%n", "configuration", "programs", "compared", "exceptions", "failures"));
        rows.forEach((c, r) -> sb.append(String.format("%-" + w + "s  %9d  %9d  %10d  %9d%n", c.name(), r.programs, r.compared, r.exceptions, r.failures)));
        return sb.toString();
    }
}
