package dev.ember.debug.minifier;

import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Reduces a launcher's failing graph to the smallest graph that still fails the same way
 * ({@link Outcome#sameFailureAs}: a crash keeps its exception class and message, an accuracy
 * failure stays one); a candidate that fails differently, or not at all, is rejected. Two moves,
 * repeated until neither shrinks the graph:
 * <ul>
 * <li>delta debugging (Zeller's ddmin) over the op nodes: a candidate keeps some ops, and the cut
 * ones that kept ops read become inputs holding their eager values ({@link Reduction}, as
 * PyTorch's minifier turns intermediate values into inputs). First each output's cone alone is
 * tried (the failing output usually needs only its own ancestors), then chunks of nodes are cut,
 * halving the chunk size down to single nodes.</li>
 * <li>bypassing: an op is replaced by one of its operands (its users read the operand instead).
 * Cutting alone cannot shrink a bug that needs its wrong value to travel (a wrong dtype that
 * crashes a GEMM three ops later: every op between is needed to carry the float64, yet none of
 * them is needed for the bug).</li>
 * </ul>
 *
 * <p>After every successful reduction the current graph is written as a launcher to
 * {@code <dir>/checkpoints/NNN/}, and a later run of the minifier on {@code <dir>} starts from the
 * newest checkpoint; the result is written to {@code <dir>/minified/}, itself a launcher.
 */
public final class Minifier {
    private final Backend backend;
    private final Path dir;
    private final PrintStream log;
    private final Map<Set<Node>, Boolean> tried = new HashMap<>();
    private Launcher current;
    private Outcome target;
    private Map<Node, Object> values;
    private Reduction best;
    private int checkpoint;
    private int tests;

    /** What the minifier found: the smallest failing graph as a launcher, where it was written, and its cost. */
    public record Result(Launcher minified, Path folder, int originalOps, int tests) {
        public int ops() { return Reduction.ops(minified.graph().graph()).size(); }
    }

    private Minifier(Launcher start, Backend backend, Path dir, PrintStream log) {
        this.current = start;
        this.backend = backend;
        this.dir = dir;
        this.log = log;
    }

    /**
     * Minifies the launcher in {@code dir} (or its newest checkpoint) with the backend it names.
     *
     * @throws IllegalArgumentException when the folder is not a launcher, its backend is unknown here,
     *                                  or its graph does not fail
     */
    public static Result minify(Path dir, PrintStream log) {
        Launcher original = Launcher.read(dir);
        Path latest = latestCheckpoint(dir);
        Launcher start = original;
        if (latest != null) {
            log.println("resuming from " + latest);
            start = Launcher.read(latest);
        }
        return new Minifier(start, backend(original.backend()), dir, log).run(original, checkpointNumber(latest));
    }

    /** The backend registered under {@code name}, or an error saying how to make it known. */
    public static Backend backend(String name) {
        try {
            return Backends.get(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ". The launcher's backend must be known by its name where the minifier runs:"
                    + " for your own backend, from Java, Backends.register(\"" + name + "\", backend) then Minifier.minify(dir, System.out)");
        }
    }

    private Outcome check(GraphModule gm, List<Object> inputs) {
        tests++;
        return FailureCheck.check(gm, inputs, backend, current.mode(), current.tolerance());
    }

    private Result run(Launcher original, int firstCheckpoint) {
        checkpoint = firstCheckpoint;
        target = check(current.graph(), current.inputs());
        if (!target.failed()) {
            throw new IllegalArgumentException("the graph in " + dir + " does not fail (" + target.describe() + "); nothing to minify."
                    + (original.failure().failed() ? " It failed when written: " + original.failure().describe() : ""));
        }
        if (original.failure().failed() && !original.failure().sameFailureAs(target)) {
            log.println("note: the launcher recorded " + original.failure().describe() + "; it now shows " + target.describe() + ", which is minified");
        }
        int originalOps = Reduction.ops(current.graph().graph()).size();
        log.println("minifying " + current.graphName() + ": " + originalOps + " ops, " + target.describe());
        while (true) {
            List<Node> ops = Reduction.ops(current.graph().graph());
            values = NodeValues.of(current.graph(), current.inputs());
            tried.clear();
            best = Reduction.of(current.graph(), ops, values, current.inputs());
            if (best == null || !fails(ops)) {
                throw new IllegalArgumentException("cannot minify " + dir + ": its graph fails (" + target.describe() + ") but no longer"
                        + " when its unused values are made outputs too, which every cut needs; ./ember minify " + dir + " run still replays it");
            }
            ddmin(outputCones(ops));
            current = current.with(best.graph(), best.inputs(), target);
            Launcher bypassed = bypassed();
            if (bypassed == null) break;
            current = bypassed;
            checkpoint(current);
        }
        Path out = dir.resolve("minified");
        current.write(out);
        log.println("minified to " + Reduction.ops(current.graph().graph()).size() + " op(s) after " + tests + " test(s); written to " + out);
        return new Result(current, out, originalOps, tests);
    }

    /**
     * The current graph with one op replaced by one of its tensor operands, still failing; null when
     * none is. The operand need not have the op's shape: where broadcasting lets its users take it
     * the candidate runs, and where it does not, eager fails and the candidate is rejected.
     */
    private Launcher bypassed() {
        Map<Node, Object> eager = NodeValues.of(current.graph(), current.inputs());
        for (Node n : Reduction.ops(current.graph().graph()).reversed()) {
            for (Node operand : n.allInputNodes()) {
                if (!(eager.get(n) instanceof Tensor && eager.get(operand) instanceof Tensor)) continue;
                GraphModule gm = new GraphModule(current.graph().className(), current.graph().graph().copy(), current.graph().attributes(),
                        current.graph().submodules());
                Node copy = byName(gm, n.name()), replacement = byName(gm, operand.name());
                copy.replaceAllUsesWith(replacement);
                gm.graph().eraseNode(copy);
                Reduction r = Reduction.of(gm, Reduction.ops(gm.graph()), Map.of(), current.inputs());
                if (r != null && target.sameFailureAs(check(r.graph(), r.inputs()))) {
                    log.println("  bypassed " + n.name() + " (" + n.target() + "): its users read " + operand.name());
                    return current.with(r.graph(), r.inputs(), target);
                }
            }
        }
        return null;
    }

    private static Node byName(GraphModule gm, String name) {
        return gm.graph().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /** The smallest of the outputs' cones (an output and its ancestors) that still fails alone. */
    private List<Node> outputCones(List<Node> ops) {
        List<Node> smallest = ops;
        Set<Node> all = new HashSet<>(ops);
        Node output = current.graph().graph().outputNode();
        for (Node o : ops) {
            boolean isOutput = output.allInputNodes().contains(o) || o.users().stream().noneMatch(all::contains);
            if (!isOutput) continue;
            Set<Node> cone = new HashSet<>();
            collectCone(o, all, cone);
            List<Node> candidate = ops.stream().filter(cone::contains).toList();
            if (candidate.size() < smallest.size() && fails(candidate)) smallest = candidate;
        }
        return smallest;
    }

    private static void collectCone(Node n, Set<Node> within, Set<Node> cone) {
        if (!within.contains(n) || !cone.add(n)) return;
        for (Node in : n.allInputNodes()) collectCone(in, within, cone);
    }

    /** Shrinks {@code nodes} (through {@link #fails}, which keeps the best candidate) until no chunk, down to one node, can go. */
    private void ddmin(List<Node> nodes) {
        int n = 2;
        while (nodes.size() >= 2) {
            List<List<Node>> chunks = chunks(nodes, n);
            List<Node> next = null;
            for (List<Node> chunk : chunks) {
                List<Node> rest = nodes.stream().filter(x -> !chunk.contains(x)).toList();
                if (fails(rest)) { next = rest; n = Math.max(n - 1, 2); break; }
            }
            if (next == null) {
                for (List<Node> chunk : chunks) {
                    if (chunk.size() < nodes.size() && fails(chunk)) { next = chunk; n = 2; break; }
                }
            }
            if (next != null) {
                nodes = next;
            } else {
                if (n >= nodes.size()) break;
                n = Math.min(2 * n, nodes.size());
            }
        }
    }

    private static List<List<Node>> chunks(List<Node> nodes, int n) {
        List<List<Node>> out = new ArrayList<>();
        int size = nodes.size();
        for (int i = 0; i < n; i++) {
            List<Node> c = nodes.subList(i * size / n, (i + 1) * size / n);
            if (!c.isEmpty()) out.add(c);
        }
        return out;
    }

    /** Whether the graph keeping {@code keep} fails as the target does; remembers every answer. */
    private boolean fails(List<Node> keep) {
        Set<Node> key = Set.copyOf(keep);
        Boolean known = tried.get(key);
        if (known != null) return known;
        Reduction r = Reduction.of(current.graph(), keep, values, current.inputs());
        boolean same = r != null && target.sameFailureAs(check(r.graph(), r.inputs()));
        tried.put(key, same);
        if (same && r.kept().size() < best.kept().size()) {
            best = r;
            checkpoint(current.with(r.graph(), r.inputs(), target));
        }
        return same;
    }

    private void checkpoint(Launcher l) {
        checkpoint++;
        Path cp = dir.resolve("checkpoints").resolve("%03d".formatted(checkpoint));
        l.write(cp);
        log.println("  checkpoint " + cp.getFileName() + ": " + Reduction.ops(l.graph().graph()).size() + " op(s) still fail");
    }

    private static Path latestCheckpoint(Path dir) {
        Path cps = dir.resolve("checkpoints");
        if (!Files.isDirectory(cps)) return null;
        try (Stream<Path> s = Files.list(cps)) {
            return s.filter(p -> p.getFileName().toString().matches("\\d{3,}") && Files.isRegularFile(p.resolve(Launcher.PROPERTIES)))
                    .max((a, b) -> Integer.compare(checkpointNumber(a), checkpointNumber(b))).orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + cps + ": " + e.getMessage(), e);
        }
    }

    private static int checkpointNumber(Path p) { return p == null ? 0 : Integer.parseInt(p.getFileName().toString()); }
}
