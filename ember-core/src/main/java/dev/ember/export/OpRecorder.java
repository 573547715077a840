package dev.ember.export;

import dev.ember.dynamo.SourceLines;
import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.Node;
import dev.ember.fx.SourceLocation;
import dev.ember.ops.Args;
import dev.ember.ops.DispatchMode;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.security.CodeSource;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The dispatch mode non-strict export runs the user's code under: every op called on a traced
 * tensor — a fake user input, a module's parameter or buffer, or an op's output — becomes a graph
 * node whose value is a new fake, so the code goes on running on fakes. Ops on untraced tensors
 * alone run as usual (the constants the code builds); an untraced tensor meeting a traced one is
 * lifted as a tensor constant. The node carries the user's source line.
 */
final class OpRecorder implements DispatchMode.Handler {
    /** Ember's own classes come from this code source; the first frame from elsewhere is the user's. */
    private static final CodeSource EMBER = Tensor.class.getProtectionDomain().getCodeSource();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final Graph graph = new Graph();
    private final Map<Tensor, Node> nodes = new IdentityHashMap<>();
    private final List<ProgramBuilder.Input> inputs = new ArrayList<>();
    private final Frames.State state;

    OpRecorder(Frames.State state) { this.state = state; }

    Graph graph() { return graph; }

    /** One per placeholder, in order. */
    List<ProgramBuilder.Input> inputs() { return inputs; }

    /** A fake standing for the user's tensor {@code t} (named {@code path}), traced from here on. */
    FakeTensor input(Tensor t, String path) {
        FakeTensor fake = FakeTensor.like(t);
        nodes.put(fake, placeholder(new ProgramBuilder.Input(InputSpec.Kind.USER_INPUT, path, t), fake));
        return fake;
    }

    /** The node holding {@code t}'s current value; a parameter or buffer becomes an input on first use; null for an untraced tensor. */
    Node nodeOf(Tensor t) {
        Node n = nodes.get(t);
        if (n != null) return n;
        ProgramBuilder.Input lifted = state.lift(t);
        if (lifted == null) return null;
        n = placeholder(lifted, FakeTensor.like(t));
        nodes.put(t, n);
        return n;
    }

    @Override
    public Object intercept(OpOverload op, Args args, Object meta) {
        Object[] values = args.toArray();
        if (!traces(values)) return null;
        if (!(meta instanceof TensorMeta) && !(meta instanceof List<?>)) {
            throw new ExportError("Ember.export (non-strict): " + op.name() + " at " + userFrame(new Throwable().getStackTrace())
                    + " makes a Java value from a traced tensor's data, which export cannot capture");
        }
        List<Object> nodeArgs = new ArrayList<>();
        for (Object v : values) nodeArgs.add(asGraphValue(v));
        Object result = op.fakeOutputs(args, meta);
        Node n = graph.callFunction(op, nodeArgs, Map.of());
        n.setSourceLocation(location());
        if (result instanceof Tensor t) {
            n.setVal(t.isFake() ? t : FakeTensor.like(t));   // an in-place op on a parameter returns the parameter itself
            nodes.put(t, n);
        } else {
            List<?> list = (List<?>) result;
            n.setVal(list);
            for (int i = 0; i < list.size(); i++) {
                Node item = graph.callFunction(BuiltinFunctions.GETITEM, n, i).setVal(list.get(i));
                item.setSourceLocation(n.sourceLocation());
                nodes.put((Tensor) list.get(i), item);
            }
        }
        return result;
    }

    private boolean traces(Object[] values) {
        for (Object v : values) {
            if (v instanceof Tensor t && (nodes.containsKey(t) || state.lift(t) != null)) return true;
            if (v instanceof List<?> l && traces(l.toArray())) return true;
        }
        return false;
    }

    private Object asGraphValue(Object v) {
        return switch (v) {
            case Tensor t -> {
                Node n = nodeOf(t);
                if (n == null) {
                    n = placeholder(new ProgramBuilder.Input(InputSpec.Kind.CONSTANT_TENSOR, "lifted_tensor_" + constants(), t), FakeTensor.like(t));
                    nodes.put(t, n);
                }
                yield n;
            }
            case List<?> l -> {
                List<Object> out = new ArrayList<>();
                for (Object x : l) out.add(asGraphValue(x));
                yield out;
            }
            case null, default -> v;
        };
    }

    private int constants() { return (int) inputs.stream().filter(i -> i.kind() == InputSpec.Kind.CONSTANT_TENSOR).count(); }

    private Node placeholder(ProgramBuilder.Input in, FakeTensor val) {
        inputs.add(in);
        return graph.placeholder("arg" + inputs.size(), val);
    }

    /** The user's line that made the current op call: the innermost frame outside Ember's own classes. */
    private static SourceLocation location() {
        Optional<StackWalker.StackFrame> f = WALKER.walk(s -> s.filter(x -> !isEmber(x.getDeclaringClass())).findFirst());
        if (f.isEmpty()) return null;
        StackWalker.StackFrame frame = f.get();
        Class<?> c = frame.getDeclaringClass();
        return new SourceLocation(c.getName(), frame.getMethodName(), frame.getFileName(), frame.getLineNumber(), frame.getByteCodeIndex(),
                SourceLines.line(c, frame.getFileName(), frame.getLineNumber()));
    }

    /** {@code Programs.java:42 in Programs.fn} for the innermost user frame of a stack trace. */
    static String userFrame(StackTraceElement[] trace) {
        for (StackTraceElement e : trace) {
            try {
                Class<?> c = Class.forName(e.getClassName(), false, OpRecorder.class.getClassLoader());
                if (isEmber(c)) continue;
            } catch (ClassNotFoundException | LinkageError notOurs) {
                // a class this loader cannot see is not Ember's
            }
            return e.getFileName() + ":" + e.getLineNumber() + " in " + e.getClassName().substring(e.getClassName().lastIndexOf('.') + 1) + "." + e.getMethodName();
        }
        return "<unknown>";
    }

    private static boolean isEmber(Class<?> c) {
        CodeSource cs = c.getProtectionDomain().getCodeSource();
        return c.getName().startsWith("java.") || c.getName().startsWith("jdk.") || cs != null && EMBER != null && cs.getLocation().equals(EMBER.getLocation());
    }
}
