package dev.ember.export;

import dev.ember.dynamo.FullGraphCapture;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.fx.GraphModule;
import dev.ember.ops.DispatchMode;
import dev.ember.tensor.Tensor;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Non-strict export (torch.export's {@code strict=False}, make_fx's way): the Java code runs, once,
 * with fake tensors for the user's tensors, and an {@link OpRecorder} installed as the dispatch mode
 * records every op called on a traced tensor. Any Java runs — prints print, helpers the translator
 * cannot read are fine — but the program is what that one run did: a branch on a size or a flag is
 * baked in as taken, and reading a traced tensor's data ({@code item()}) is an error.
 */
final class NonStrictExport {
    private NonStrictExport() {}

    static ExportedProgram export(String function, FunctionTarget target, Object[] args, Function<Object[], Object> call, ExportOptions options) {
        Object[] frame = Frames.frame(target, args);
        List<String> names = FullGraphCapture.argumentNames(target, frame);
        OpRecorder rec = new OpRecorder(Frames.state(frame, names));
        int captured = target.captured().length;
        Object[] traced = new Object[args.length];
        for (int i = 0; i < args.length; i++) traced[i] = fakeInputs(rec, args[i], names.get(captured + i));
        Object result;
        try (var mode = DispatchMode.enter(rec)) {
            result = call.apply(traced);
        } catch (ExportError e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ExportError("Ember.export(" + function + ", non-strict): the function failed while running on fake tensors at "
                    + OpRecorder.userFrame(e.getStackTrace()) + ": " + e.getMessage()
                    + (String.valueOf(e.getMessage()).contains("is a fake tensor and has no data")
                    ? " (the program's control flow or output depends on a traced tensor's values, which export cannot capture)" : ""), e);
        }
        List<String> paths = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<dev.ember.fx.Node> outs = new ArrayList<>();
        walk(rec, result, "", outs, paths, problems);
        if (!problems.isEmpty()) {
            throw new ExportError("Ember.export(" + function + ", non-strict): " + String.join("; ", problems) + "; an exported program returns only tensors it computes");
        }
        rec.graph().output(List.copyOf(outs));
        return ProgramBuilder.build(function, false, new GraphModule(rec.graph()), rec.inputs(), paths, Frames.specialized(frame, names), options.backend());
    }

    /** The argument with each of its tensors replaced by a traced fake (in lists and arrays too); other values as they are. */
    private static Object fakeInputs(OpRecorder rec, Object v, String path) {
        return switch (v) {
            case Tensor t -> rec.input(t, path);
            case List<?> l when l.stream().anyMatch(x -> x instanceof Tensor) -> {
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < l.size(); i++) out.add(fakeInputs(rec, l.get(i), path + "[" + i + "]"));
                yield out;
            }
            case Tensor[] a -> {
                Tensor[] out = new Tensor[a.length];
                for (int i = 0; i < a.length; i++) out[i] = (Tensor) fakeInputs(rec, a[i], path + "[" + i + "]");
                yield out;
            }
            case null, default -> v;
        };
    }

    /** The return value's tensors as graph outputs, each once, with where it sits; anything else is a problem. */
    private static void walk(OpRecorder rec, Object v, String path, List<dev.ember.fx.Node> outs, List<String> paths, List<String> problems) {
        String where = "the return value" + (path.isEmpty() ? "" : " at " + path);
        switch (v) {
            case Tensor t -> {
                dev.ember.fx.Node n = rec.nodeOf(t);
                if (n == null) problems.add(where + " is a tensor made from no input (a constant)");
                else if (!outs.contains(n)) {
                    outs.add(n);
                    paths.add(path);
                }
            }
            case List<?> l -> {
                for (int i = 0; i < l.size(); i++) walk(rec, l.get(i), path + "[" + i + "]", outs, paths, problems);
            }
            case Object[] a -> {
                for (int i = 0; i < a.length; i++) walk(rec, a[i], path + "[" + i + "]", outs, paths, problems);
            }
            case Map<?, ?> m -> m.forEach((k, x) -> walk(rec, x, path + "[" + (k instanceof String s ? "'" + s + "'" : k) + "]", outs, paths, problems));
            case Record r -> {
                for (RecordComponent c : r.getClass().getRecordComponents()) {
                    try {
                        c.getAccessor().setAccessible(true);
                        walk(rec, c.getAccessor().invoke(r), path + "." + c.getName(), outs, paths, problems);
                    } catch (ReflectiveOperationException e) {
                        problems.add(where + "." + c.getName() + " cannot be read: " + e);
                    }
                }
            }
            case null -> problems.add(where + " is null");
            default -> problems.add(where + " is the constant " + (v instanceof String s ? "'" + s + "'" : v) + ", not a tensor the graph computes");
        }
    }
}
