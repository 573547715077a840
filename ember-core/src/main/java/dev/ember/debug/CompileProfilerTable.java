package dev.ember.debug;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The per-function table of {@link CompileProfiler}: compiles, each top-level phase, other, total. */
final class CompileProfilerTable {
    /** Phases shown first, in pipeline order, when they occur; others follow in the order first seen. */
    private static final List<String> PIPELINE = List.of("tracing", "passes", "backend");

    private static final class Row {
        int compiles;
        long total;
        final Map<String, Long> phases = new LinkedHashMap<>();
    }

    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final Set<String> phaseNames = new LinkedHashSet<>();
    private long grandTotal;
    private int grandCompiles;

    void function(String fn, long nanos, boolean nested) {
        Row r = rows.computeIfAbsent(fn, k -> new Row());
        r.compiles++;
        r.total += nanos;
        grandCompiles++;
        // A function compiled inside another's compile is already inside that one's total.
        if (!nested) grandTotal += nanos;
    }

    void phase(String fn, String phase, long nanos, boolean noFunction) {
        Row r = rows.computeIfAbsent(fn, k -> new Row());
        r.phases.merge(phase, nanos, Long::sum);
        phaseNames.add(phase);
        if (noFunction) {
            r.total += nanos;
            grandTotal += nanos;
        }
    }

    void clear() {
        rows.clear();
        phaseNames.clear();
        grandTotal = 0;
        grandCompiles = 0;
    }

    String render() {
        List<String> columns = new ArrayList<>();
        for (String p : PIPELINE) if (phaseNames.contains(p)) columns.add(p);
        for (String p : phaseNames) if (!columns.contains(p)) columns.add(p);

        List<String[]> lines = new ArrayList<>();
        List<String> header = new ArrayList<>(List.of("function", "compiles"));
        header.addAll(columns);
        header.addAll(List.of("other", "total"));
        lines.add(header.toArray(String[]::new));
        Map<String, Long> columnTotals = new LinkedHashMap<>();
        for (Map.Entry<String, Row> e : rows.entrySet()) {
            Row r = e.getValue();
            List<String> cells = new ArrayList<>(List.of(e.getKey(), r.compiles == 0 ? "-" : Integer.toString(r.compiles)));
            long inPhases = 0;
            for (String c : columns) {
                long v = r.phases.getOrDefault(c, 0L);
                inPhases += v;
                columnTotals.merge(c, v, Long::sum);
                cells.add(ms(v));
            }
            cells.add(ms(Math.max(0, r.total - inPhases)));
            cells.add(ms(r.total));
            lines.add(cells.toArray(String[]::new));
        }
        List<String> totals = new ArrayList<>(List.of("total", Integer.toString(grandCompiles)));
        long inPhases = 0;
        for (String c : columns) {
            long v = columnTotals.getOrDefault(c, 0L);
            inPhases += v;
            totals.add(ms(v));
        }
        totals.add(ms(Math.max(0, grandTotal - inPhases)));
        totals.add(ms(grandTotal));
        lines.add(totals.toArray(String[]::new));

        int[] width = new int[header.size()];
        for (String[] l : lines) for (int i = 0; i < l.length; i++) width[i] = Math.max(width[i], l[i].length());
        StringBuilder sb = new StringBuilder("Compile time per traced function (ms):\n");
        for (int li = 0; li < lines.size(); li++) {
            String[] l = lines.get(li);
            if (li == lines.size() - 1) sb.append("-".repeat(sum(width) + 2 * (width.length - 1))).append('\n');
            for (int i = 0; i < l.length; i++) {
                if (i > 0) sb.append("  ");
                sb.append(i == 0 ? String.format("%-" + width[i] + "s", l[i]) : String.format("%" + width[i] + "s", l[i]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static int sum(int[] a) {
        int s = 0;
        for (int x : a) s += x;
        return s;
    }

    private static String ms(long nanos) {
        return String.format("%.3f", nanos / 1e6);
    }
}
