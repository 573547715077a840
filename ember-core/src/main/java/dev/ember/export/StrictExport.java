package dev.ember.export;

import dev.ember.Options;
import dev.ember.dynamo.FullGraphCapture;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.dynamo.Unsupported;
import dev.ember.dynamo.source.FieldSource;
import dev.ember.dynamo.source.IndexSource;
import dev.ember.dynamo.source.KeySource;
import dev.ember.dynamo.source.LocalSource;
import dev.ember.dynamo.source.ScalarTensorSource;
import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.source.StaticFieldSource;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * Strict export: Dynamo's translator reads the function's bytecode with fullgraph semantics, so
 * the first graph break is an {@link ExportError} that names it. Printing is a break here too (an
 * exported program has no Java around its graph to replay a print after it).
 */
final class StrictExport {
    private StrictExport() {}

    static ExportedProgram export(String function, FunctionTarget target, Object[] args, ExportOptions options) {
        Object[] frame = Frames.frame(target, args);
        List<Runnable> unmark = markDynamic(function, args, options);
        FullGraphCapture.Captured c;
        try {
            c = FullGraphCapture.capture(target, frame, Options.defaults().reorderableLogging(false));
        } catch (Unsupported u) {
            throw new ExportError("Ember.export(" + function + "): graph break at " + u.userFrame() + ": " + u.type().shortType() + " (" + u.gbId() + "): "
                    + u.reason() + ". An exported program is one whole graph: remove the break, or export with ExportOptions.nonStrict(), "
                    + "which runs the Java code instead of reading it\n" + u.getMessage(), u);
        } catch (FullGraphCapture.NotAGraph e) {
            throw new ExportError("Ember.export(" + function + "): " + e.getMessage() + "; an exported program returns only tensors", e);
        } finally {
            unmark.forEach(Runnable::run);
        }
        checkStillDynamic(function, args, options, c);
        List<String> names = FullGraphCapture.argumentNames(target, frame);
        Frames.State state = Frames.state(frame, names);
        List<ProgramBuilder.Input> inputs = new ArrayList<>();
        for (int i = 0; i < c.inputSources().size(); i++) {
            Source s = c.inputSources().get(i);
            if (!(c.inputValues().get(i) instanceof Tensor t)) {
                throw new ExportError("Ember.export(" + function + "): the graph input " + s.name() + " is not a tensor");
            }
            ProgramBuilder.Input lifted = state.lift(t);
            if (lifted == null) {
                boolean user = root(s) instanceof LocalSource l && l.index() >= target.captured().length;
                lifted = new ProgramBuilder.Input(user ? InputSpec.Kind.USER_INPUT : InputSpec.Kind.CONSTANT_TENSOR, path(s), t);
            }
            inputs.add(lifted);
        }
        return ProgramBuilder.build(function, true, c.graph(), inputs, c.outputPaths(), Frames.specialized(frame, names), options.backend());
    }

    /**
     * Marks the dimensions {@code options} declares dynamic on the example tensors, so the capture
     * makes them symbols (everything else stays specialized); returns what removes the marks.
     */
    private static List<Runnable> markDynamic(String function, Object[] args, ExportOptions options) {
        List<Runnable> unmark = new ArrayList<>();
        options.dynamicShapes().forEach((arg, dims) -> {
            if (arg >= args.length || !(args[arg] instanceof Tensor t)) {
                throw new ExportError("Ember.export(" + function + "): dynamic dimensions were given for argument " + arg + ", which is "
                        + (arg >= args.length ? "not there (" + args.length + " argument(s))" : "no tensor"));
            }
            dims.forEach((dim, d) -> {
                if (dim >= t.dim()) {
                    throw new ExportError("Ember.export(" + function + "): argument " + arg + " " + t.describe() + " has no dimension " + dim + " to make " + d);
                }
                if (t.size(dim) < d.min() || t.size(dim) > d.max()) {
                    throw new ExportError("Ember.export(" + function + "): argument " + arg + " dimension " + dim + " is " + t.size(dim)
                            + " in the example, outside " + d + "; trace with an example inside the range");
                }
                dev.ember.dynamo.DimMarks.markDynamic(t, dim, d.min(), d.max());
                unmark.add(() -> dev.ember.dynamo.DimMarks.unmark(t, dim));
            });
        });
        return unmark;
    }

    /** Every declared dynamic dimension must be a symbol in the graph: a trace that specialized one is an error, as torch.export's. */
    private static void checkStillDynamic(String function, Object[] args, ExportOptions options, FullGraphCapture.Captured c) {
        List<dev.ember.fx.Node> placeholders = c.graph().graph().placeholders();
        options.dynamicShapes().forEach((arg, dims) -> dims.forEach((dim, d) -> {
            int input = -1;
            for (int i = 0; i < c.inputValues().size(); i++) if (c.inputValues().get(i) == args[arg]) input = i;
            boolean symbolic = input >= 0 && placeholders.get(input).symVal() instanceof dev.ember.tensor.SymShape s && !s.sizes()[dim].isConstant();
            if (!symbolic) {
                throw new ExportError("Ember.export(" + function + "): argument " + arg + " dimension " + dim + " was declared dynamic (" + d
                        + "), but the program needs its value: it was specialized to " + ((Tensor) args[arg]).size(dim)
                        + " (EMBER_LOGS=dynamic names the use and its line); remove the use, or do not declare it dynamic");
            }
            int id = ((dev.ember.tensor.SymShape) placeholders.get(input).symVal()).sizes()[dim].symbols()[0];
            var symbol = c.graph().sizeSymbols().get(id);
            if (symbol.divisor() != 1) {
                throw new ExportError("Ember.export(" + function + "): argument " + arg + " dimension " + dim + " was declared " + d
                        + ", but the program divides it by " + symbol.divisor() + " and holds only for multiples of it (as torch.export, a Dim"
                        + " cannot say so yet: export the program with the dimension divided, e.g. a size argument)");
            }
            if (symbol.min() > d.min() || symbol.max() < d.max()) {
                throw new ExportError("Ember.export(" + function + "): argument " + arg + " dimension " + dim + " was declared " + d
                        + ", but the program holds only for " + symbol.range().replace("s" + id, d.name())
                        + " (a branch on the size; EMBER_LOGS=dynamic names it and its line): declare the Dim with that range");
            }
        }));
    }

    private static Source root(Source s) {
        return switch (s) {
            case FieldSource f -> root(f.base());
            case IndexSource i -> root(i.base());
            case KeySource k -> root(k.base());
            case LocalSource l -> l;
            case StaticFieldSource f -> f;
            case ScalarTensorSource t -> root(t.base());
            case dev.ember.dynamo.source.SizeSource z -> root(z.tensor());
            case dev.ember.dynamo.source.IteratorPartSource p -> root(p.iterator());
            case dev.ember.dynamo.source.TextSource t -> root(t.base());
            case dev.ember.dynamo.source.KeyAtSource k -> root(k.base());
            case dev.ember.dynamo.source.ThreadLocalSource t -> root(t.base());
            case dev.ember.dynamo.source.ModuleQuerySource q -> root(q.base());
            case dev.ember.dynamo.source.ReversedViewBaseSource r -> root(r.view());
            case dev.ember.dynamo.source.GradSource g -> root(g.tensor());
        };
    }

    /** The user's spelling of a source: {@code x}, {@code xs[0]}, {@code p.a}, {@code Config.SCALE}. */
    private static String path(Source s) {
        return switch (s) {
            case FieldSource f -> path(f.base()) + "." + f.field().getName();
            case IndexSource i -> path(i.base()) + "[" + i.index() + "]";
            case KeySource k -> path(k.base()) + ".get(" + KeySource.literal(k.key()).replace('\'', '"') + ")";
            case LocalSource l -> l.localName();
            case StaticFieldSource f -> f.field().getDeclaringClass().getSimpleName() + "." + f.field().getName();
            case ScalarTensorSource t -> path(t.base());
            case dev.ember.dynamo.source.SizeSource z -> path(z.tensor()) + ".size(" + z.dim() + ")";
            case dev.ember.dynamo.source.IteratorPartSource p -> path(p.iterator()) + "." + p.part().name().toLowerCase() + "()";
            case dev.ember.dynamo.source.TextSource t -> path(t.base()) + ".toString()";
            case dev.ember.dynamo.source.ThreadLocalSource t -> path(t.base()) + ".get()";
            case dev.ember.dynamo.source.ModuleQuerySource q -> path(q.base()) + "." + q.method() + "()";
            case dev.ember.dynamo.source.ReversedViewBaseSource r -> path(r.view()) + ".reversed()";
            case dev.ember.dynamo.source.GradSource g -> path(g.tensor()) + ".grad()";
            case dev.ember.dynamo.source.KeyAtSource k -> "List.copyOf(" + path(k.base()) + (k.base() instanceof KeySource ? "" : ".keySet()") + ").get(" + k.index() + ")";
        };
    }
}
