package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.dynamo.source.Source;
import dev.ember.fx.GraphModule;

import java.util.ArrayList;
import java.util.List;

/**
 * Capture for {@code Ember.export}: one trace of a function into one whole graph, as
 * {@code Options.fullgraph()} does it (the first graph break throws its {@link Unsupported}), but
 * nothing is compiled, cached, guarded or run. An exported program has no guards (its input spec
 * is checked instead) and no Java around the graph, so what a compiled frame would do after the
 * graph — replay a field write, rebuild a record — is refused here with what and where.
 */
public final class FullGraphCapture {
    private FullGraphCapture() {}

    /**
     * The captured graph; each placeholder's source and value in the frame; and, per graph output,
     * where it sits in the return value ({@code ""} for the value itself, {@code "[0]"},
     * {@code "['mean']"}, {@code ".a"}).
     */
    public record Captured(GraphModule graph, List<Source> inputSources, List<Object> inputValues, List<String> outputPaths) {}

    /** What the program returns or does that only Java can, one phrase each; export refuses them. */
    public static final class NotAGraph extends RuntimeException {
        NotAGraph(String message) { super(message); }
    }

    /**
     * Traces {@code target} for {@code frame} (captured values first, then the arguments).
     *
     * @throws Unsupported at the first graph break
     * @throws NotAGraph when the return value holds something that is not a graph output, or the trace has side effects
     */
    public static Captured capture(FunctionTarget target, Object[] frame, Options options) {
        // numbers are specialized, as torch.export specializes non-tensor inputs: the program's inputs are its tensors
        Tracer.Result r = Tracer.trace(target, frame, options.fullgraph(true).specializeFloat(true).dynamic(false), java.util.Set.of(), java.util.Set.of(),
                reason -> { }, true);
        if (r.graphBreak() != null) throw r.graphBreak();
        List<String> problems = new ArrayList<>();
        for (SideEffect e : r.sideEffects()) problems.add(describe(e));
        String[] paths = new String[r.graph().graph().outputNode().arg(0) instanceof List<?> l ? l.size() : 1];
        walk(r.rebuilder(), "", paths, problems);
        if (!problems.isEmpty()) throw new NotAGraph(String.join("; ", problems));
        List<Object> values = new ArrayList<>();
        for (Source s : r.graph().inputSources()) values.add(s.read(frame));
        // outputs only a rebuilt view reads (its base, made a graph output for Ember.compile's runs) are not the program's
        dev.ember.fx.GraphModule gm = r.graph().toGraphModule();
        List<String> kept = new ArrayList<>();
        if (java.util.Arrays.asList(paths).contains(null)) {
            dev.ember.fx.Node out = gm.graph().outputNode();
            List<?> all = out.arg(0) instanceof List<?> l ? l : List.of(out.arg(0));
            List<Object> used = new ArrayList<>();
            for (int i = 0; i < paths.length; i++) {
                if (paths[i] != null) {
                    used.add(all.get(i));
                    kept.add(paths[i]);
                }
            }
            out.setArgs(List.of(used));
            gm.graph().eliminateDeadCode();
        } else {
            kept.addAll(List.of(paths));
        }
        return new Captured(gm, r.graph().inputSources(), values, List.copyOf(kept));
    }

    /** The names of the frame's values as the source code spells them ({@code self} for a receiver), captured values first. */
    public static List<String> argumentNames(FunctionTarget target, Object[] frame) { return Tracer.argumentNames(target, frame); }

    private static void walk(OutputRebuilder r, String path, String[] paths, List<String> problems) {
        switch (r) {
            case OutputRebuilder.GraphOutput g -> {
                if (paths[g.index()] == null) paths[g.index()] = path;
            }
            case OutputRebuilder.GraphInput g -> {
                if (paths[g.output()] == null) paths[g.output()] = path;
            }
            case OutputRebuilder.TensorViewOf g -> {
                if (paths[g.output()] == null) paths[g.output()] = path;
            }
            case OutputRebuilder.ListOf l -> {
                for (int i = 0; i < l.items().size(); i++) walk(l.items().get(i), path + "[" + i + "]", paths, problems);
            }
            case OutputRebuilder.ArrayAsListOf l -> walk(l.array(), path, paths, problems);    // the list's items are its array's, index for index
            case OutputRebuilder.ArrayOf a -> {
                for (int i = 0; i < a.items().size(); i++) walk(a.items().get(i), path + "[" + i + "]", paths, problems);
            }
            case OutputRebuilder.KeyedOf m when m.values() == null -> problems.add(where(path) + " is a set, not a tensor the graph computes");
            case OutputRebuilder.KeyedOf m -> {
                for (int i = 0; i < m.keys().size(); i++) walk(m.values().get(i), path + "[" + literal(m.keys().get(i)) + "]", paths, problems);
            }
            case OutputRebuilder.ViewOf v -> problems.add(where(path) + " is a map's " + v.view().method() + "() view");
            case OutputRebuilder.ReadOnlyOf v -> problems.add(where(path) + " is an unmodifiable view");
            case OutputRebuilder.ListViewOf v -> problems.add(where(path) + " is a list's " + v.kind().name().toLowerCase(java.util.Locale.ROOT) + " view");
            case OutputRebuilder.SortedViewOf v -> problems.add(where(path) + " is a sorted container's " + v.method() + "() view");
            case OutputRebuilder.EntryOf e -> {
                walk(e.key(), path + ".getKey()", paths, problems);
                walk(e.value(), path + ".getValue()", paths, problems);
            }
            case OutputRebuilder.IteratorAt i -> problems.add(where(path) + " is an iterator");
            case OutputRebuilder.ObjectOf o -> problems.add(where(path) + " is a " + o.type().getSimpleName() + " made in the function");
            case OutputRebuilder.LambdaOf l -> problems.add(where(path) + " is a lambda made in the function");
            case OutputRebuilder.ExceptionOf x -> problems.add(where(path) + " is a " + x.type().getSimpleName() + " made in the function");
            case OutputRebuilder.RecordOf rec -> {
                var components = rec.constructor().getDeclaringClass().getRecordComponents();
                for (int i = 0; i < components.length; i++) walk(rec.components().get(i), path + "." + components[i].getName(), paths, problems);
            }
            case OutputRebuilder.AsPrimitive p -> walk(p.value(), path, paths, problems);
            case OutputRebuilder.Constant c -> problems.add(where(path) + " is the constant " + literal(c.value()) + ", not a tensor the graph computes");
            case OutputRebuilder.FromSource s -> problems.add(where(path) + " is " + s.source().name() + " returned as it is, not a tensor the graph computes");
            case OutputRebuilder.ScalarItem s -> problems.add(where(path) + " is a Java number read from a tensor");
            case OutputRebuilder.Stream s -> problems.add(where(path) + " is " + s.name());
            case OutputRebuilder.StringBuilderOf s -> problems.add(where(path) + " is a StringBuilder made in the function");
            case OutputRebuilder.SymbolicSize s -> problems.add(where(path) + " is a size, " + s.expr() + ", not a tensor the graph computes");
            case OutputRebuilder.HookRegistration h -> problems.add(where(path) + " is the handle of a gradient hook registered in the function");
        }
    }

    private static String where(String path) { return "the return value" + (path.isEmpty() ? "" : " at " + path); }

    private static String literal(Object v) { return v instanceof String s ? "'" + s + "'" : String.valueOf(v); }

    private static String describe(SideEffect e) {
        return switch (e) {
            case SideEffect.SetField f -> "it writes the field " + f.owner().name() + "." + f.field().getName();
            case SideEffect.ResetList l -> "it changes the list " + l.list().name();
            case SideEffect.AppendToList l -> "it appends to the list " + l.list().name();
            case SideEffect.ResetArray a -> "it writes into the array " + a.array().name();
            case SideEffect.ReplayChanges c -> "it changes the map or set " + c.container().name();
            case SideEffect.AppendText t -> "it appends to the StringBuilder " + t.builder().name();
            case SideEffect.SetText t -> "it changes the StringBuilder " + t.builder().name();
            case SideEffect.SetGradMode g -> "it leaves grad mode " + (g.enabled() ? "on" : "off") + " when it returns";
            case SideEffect.HookOp h -> "it registers a gradient hook on " + h.registration().tensor() + ", which the graph cannot hold";
            case SideEffect.Log l -> "it calls " + l.method().getDeclaringClass().getSimpleName() + "." + l.method().getName() + ", which a graph cannot";
        };
    }
}
