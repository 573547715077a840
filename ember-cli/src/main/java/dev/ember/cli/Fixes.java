package dev.ember.cli;

import dev.ember.report.Diagnosis.Finding;
import dev.ember.report.Diagnosis.Kind;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fix of a graph break or recompile, as code where there is one, and how much it may gain. A
 * graph break's fix is its docs page's ({@code docs/graph-breaks/GBnnnn.md}, packaged with the
 * command): the key line of the first example under "Fixes", else the first fix in words. A
 * recompile's fix follows from the guard that failed.
 */
final class Fixes {
    private Fixes() {}

    /** The fix: the code line(s) first, then, for a break, the page it comes from. */
    static List<String> of(Finding f) {
        return f.kind() == Kind.GRAPH_BREAK ? forBreak(f.gbId()) : List.of(forRecompile(f.why()));
    }

    /**
     * The gain to expect, estimated from what was measured: a recompile's whole cost (its compile
     * and its guard checks go away); at most a break's eager time (the code it ran eagerly runs in
     * the graph instead, which is faster, not free).
     */
    static String gain(Finding f) {
        if (f.kind() == Kind.GRAPH_BREAK && f.count() == 0) return "?";
        return (f.kind() == Kind.RECOMPILE ? "≈ " : "≤ ") + Doctor.time(f.cost());
    }

    /** How {@link #gain} is estimated, in words. */
    static String gainBasis(Finding f) {
        if (f.kind() == Kind.RECOMPILE) return "the recompile's compile time and its guard checks (a graph for symbolic sizes may run a little slower per call)";
        if (f.count() == 0) return "no call ran through the break after it compiled";
        return "the time its code ran eagerly between graphs; compiled into the graph it costs less, not nothing";
    }

    private static final Pattern SIZE = Pattern.compile("tensor '([^']+)' size mismatch at index (\\d+)");
    private static final Pattern DTYPE = Pattern.compile("tensor '([^']+)' dtype mismatch. expected (\\S+),");
    private static final Pattern REQUIRES_GRAD = Pattern.compile("tensor '([^']+)' requires_grad mismatch");
    private static final Pattern RANK = Pattern.compile("tensor '([^']+)' rank mismatch");

    static String forRecompile(String failedGuard) {
        Matcher m;
        if ((m = SIZE.matcher(failedGuard)).find()) {
            return "Ember.markDynamic(" + name(m.group(1)) + ", " + m.group(2) + ");   // before the first call: one graph for every size of this dim";
        }
        if ((m = DTYPE.matcher(failedGuard)).find()) {
            return name(m.group(1)) + " = " + name(m.group(1)) + ".to(DType.parse(\"" + m.group(2) + "\"));   // before the call: one dtype, one graph";
        }
        if ((m = REQUIRES_GRAD.matcher(failedGuard)).find()) {
            return "pass " + m.group(1) + " with the same requiresGrad() on every call (or compile one function for training, one for inference)";
        }
        if ((m = RANK.matcher(failedGuard)).find()) {
            return "compile one function per rank of " + m.group(1) + " (each keeps its own cache)";
        }
        if (failedGuard.contains("grad mode")) return "call it with the same grad mode every time (GradMode.noGrad() around every call, or around none)";
        if (failedGuard.contains(" == ")) {
            return "Ember.compile(fn, Options.defaults().dynamic(true))   // numbers and sizes are graph inputs from the first compile";
        }
        if (failedGuard.contains(" is ")) return "pass the same object on every call, or compile one function per object";
        return "make every call's inputs alike in what the guard checks, or raise Options.recompileLimit(n)";
    }

    private static final Pattern UNNAMED = Pattern.compile("(arg|local)(\\d+)");

    /**
     * The guarded value as the fix names it: its name, or, for a class compiled without local
     * variable names (a single-file program: {@code arg0}, {@code local1}), which one it is.
     */
    private static String name(String source) {
        Matcher m = UNNAMED.matcher(source);
        if (!m.matches()) return source;
        return m.group(1).equals("arg") ? "<argument " + m.group(2) + ">" : "<the tensor in local " + m.group(2) + ">";
    }

    private static List<String> forBreak(String gbId) {
        String page = page(gbId);
        String link = "(docs/graph-breaks/" + gbId + ".md)";
        if (page == null) return List.of("see the graph-break page " + link);
        List<String> fixes = section(page, "## Fixes");
        String code = keyLine(fixes);
        String words = fixes.stream().filter(l -> l.startsWith("- ")).map(l -> l.substring(2).strip()).findFirst().orElse(null);
        List<String> out = new ArrayList<>();
        if (code != null) out.add(code);
        else if (words != null) out.add(words);
        out.add(link);
        return out;
    }

    /** A graph-break page packaged with the command, or null when there is none for {@code gbId}. */
    static String page(String gbId) {
        if (gbId == null || !gbId.matches("GB\\d{4}")) return null;
        try (InputStream in = Fixes.class.getResourceAsStream("graph-breaks/" + gbId + ".md")) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the page of " + gbId + " packaged with ember", e);
        }
    }

    private static List<String> section(String page, String heading) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : page.split("\n")) {
            if (line.startsWith("## ")) in = line.strip().equals(heading);
            else if (in) out.add(line);
        }
        return out;
    }

    /** The first example's line that carries a comment (the line that is the fix), else its first statement. */
    private static String keyLine(List<String> section) {
        List<String> code = new ArrayList<>();
        boolean in = false;
        for (String line : section) {
            String s = line.strip();
            if (s.startsWith("```")) {
                if (in) break;
                in = true;
            } else if (in) {
                code.add(s);
            }
        }
        for (String s : code) if (s.contains("//")) return s;
        for (String s : code) if (!s.endsWith("{") && !s.equals("}") && !s.isEmpty()) return s;
        return null;
    }
}
