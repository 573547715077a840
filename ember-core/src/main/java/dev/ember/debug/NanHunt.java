package dev.ember.debug;

import dev.ember.Options;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.fx.Backend;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Interpreter;
import dev.ember.fx.NanAsserts;
import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code Ember.debugNans(fn, args…)}: runs {@code fn} compiled, in a cache of its own, with a backend
 * that runs each captured graph op by op in eager (the graphs after graph breaks too) and stops at
 * the first op whose output holds a NaN, or an infinity, that none of its tensor inputs held. The
 * function really runs up to that op (its prints happen); after it, nothing more of it runs.
 */
public final class NanHunt {
    private int graphs;
    private int ops;
    private NanReport found;

    private NanHunt() {}

    /** Thrown at the op found, to stop the function there; caught by {@link #run}. */
    private static final class Stop extends RuntimeException {
        Stop() { super(null, null, false, false); }
    }

    /**
     * @param target the function (a serializable {@code Fn0}…{@code Fn5}, or a module's forward)
     * @param args   its arguments
     * @param eager  runs it uncompiled (when the compiled frame chooses to run it eagerly)
     */
    public static NanReport run(FunctionTarget target, Object[] args, Supplier<Object> eager) {
        Object[] cap = target.captured();
        Object[] frame = new Object[cap.length + args.length];
        System.arraycopy(cap, 0, frame, 0, cap.length);
        System.arraycopy(args, 0, frame, cap.length, args.length);
        NanHunt hunt = new NanHunt();
        Backend backend = (gm, inputs) -> hunt.graph(gm);
        CompiledFrame compiled = FrameRegistry.frameFor(target.method(), Options.defaults().withBackend(backend));
        try {
            compiled.call(target, frame, eager);
        } catch (Stop stop) {
            return hunt.found;
        }
        return hunt.found != null ? hunt.found : NanReport.notFound(hunt.graphs, hunt.ops);
    }

    private CompiledGraph graph(GraphModule gm) {
        int index = ++graphs;
        String label = NanAsserts.graphLabel(gm);
        return new CompiledGraph() {
            @Override
            public Object[] run(Object[] inputs) { return hunt(gm, inputs, index, label); }

            // it runs the graph's ops one by one, so they record: a function whose inputs require grad is hunted through too,
            // where the frame would otherwise run a graph that records nothing op by op itself, past this hunt
            @Override
            public boolean recordsAutograd() { return true; }
        };
    }

    private Object[] hunt(GraphModule gm, Object[] inputs, int index, String label) {
        Object out = new Interpreter(gm) {
            @Override
            protected Object callFunction(Node n, List<Object> args, Map<String, Object> kwargs) {
                return checked(n, args, kwargs, () -> super.callFunction(n, args, kwargs), index, label);
            }

            @Override
            protected Object callMethod(Node n, List<Object> args, Map<String, Object> kwargs) {
                return checked(n, args, kwargs, () -> super.callMethod(n, args, kwargs), index, label);
            }

            @Override
            protected Object callModule(Node n, List<Object> args, Map<String, Object> kwargs) {
                return checked(n, args, kwargs, () -> super.callModule(n, args, kwargs), index, label);
            }
        }.run(inputs);
        return out instanceof List<?> l ? l.toArray() : new Object[] {out};
    }

    /** Runs one op; stops the run when its output has a kind of non-finite value none of its inputs had. */
    private Object checked(Node n, List<Object> args, Map<String, Object> kwargs, Supplier<Object> op, int graphIndex, String graph) {
        // Statistics before the op runs: an in-place op changes its input.
        List<NanReport.Input> inputs = new ArrayList<>();
        collectInputs(n.args(), args, inputs);
        collectInputs(List.copyOf(n.kwargs().values()), List.copyOf(kwargs.values()), inputs);
        Object value = op.get();
        ops++;
        boolean inputNaN = inputs.stream().anyMatch(i -> i.stats().nanCount() > 0);
        boolean inputInf = inputs.stream().anyMatch(i -> i.stats().infCount() > 0);
        for (Tensor t : tensors(value)) {
            if (!t.dtype().isFloatingPoint()) continue;
            TensorStats out = TensorStats.of(t);
            if ((out.nanCount() > 0 && !inputNaN) || (out.infCount() > 0 && !inputInf)) {
                String opName = n.target() instanceof OpOverload o ? o.name() : String.valueOf(n.target());
                found = new NanReport(true, graph, graphIndex, n.name(), opName, NanAsserts.sourceLine(n), out, inputs, graphs, ops);
                throw new Stop();
            }
        }
        return value;
    }

    /** Pairs each argument as the node wrote it with its value; tensors given by a node are the inputs. */
    private static void collectInputs(Object written, Object value, List<NanReport.Input> out) {
        if (written instanceof Node n && value instanceof Tensor t) {
            out.add(new NanReport.Input(n.name(), TensorStats.of(t)));
        } else if (written instanceof List<?> w && value instanceof List<?> v && w.size() == v.size()) {
            for (int i = 0; i < w.size(); i++) collectInputs(w.get(i), v.get(i), out);
        }
    }

    private static List<Tensor> tensors(Object value) {
        return switch (value) {
            case Tensor t -> List.of(t);
            case List<?> l -> l.stream().filter(Tensor.class::isInstance).map(Tensor.class::cast).toList();
            case null, default -> List.of();
        };
    }
}
