package dev.ember.export;

import dev.ember.dynamo.FunctionTarget;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What both export modes read from the frame: the modules' state by identity, and the non-tensor values baked in. */
final class Frames {
    private Frames() {}

    /** Captured values (a bound receiver first), then the arguments: the frame Dynamo traces. */
    static Object[] frame(FunctionTarget target, Object[] args) {
        Object[] cap = target.captured();
        Object[] frame = new Object[cap.length + args.length];
        System.arraycopy(cap, 0, frame, 0, cap.length);
        System.arraycopy(args, 0, frame, cap.length, args.length);
        return frame;
    }

    /** The parameters and buffers of the frame's modules, by identity, under their qualified names. */
    static final class State {
        private final Map<Tensor, ProgramBuilder.Input> byTensor = new IdentityHashMap<>();

        /** The tensor as a PARAMETER or BUFFER input, or null when no module of the frame owns it. */
        ProgramBuilder.Input lift(Tensor t) { return byTensor.get(t); }

        private void add(Module m, String prefix) {
            m.namedParameters().forEach((n, p) -> byTensor.putIfAbsent(p, new ProgramBuilder.Input(InputSpec.Kind.PARAMETER, prefix + n, p)));
            m.namedBuffers().forEach((n, b) -> byTensor.putIfAbsent(b, new ProgramBuilder.Input(InputSpec.Kind.BUFFER, prefix + n, b)));
        }
    }

    /** The receiver's state keeps its own names ({@code linear.weight}, as torch's); another module's is prefixed with its argument's name. */
    static State state(Object[] frame, List<String> names) {
        State s = new State();
        for (int i = 0; i < frame.length; i++) {
            if (frame[i] instanceof Module m) s.add(m, names.get(i).equals("self") ? "" : names.get(i) + ".");
        }
        return s;
    }

    /** The frame's values that hold no tensor (an int, an enum, a config record), by name: their values are baked into the graph. */
    static Map<String, String> specialized(Object[] frame, List<String> names) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < frame.length; i++) {
            if (frame[i] instanceof Module || holdsTensors(frame[i])) continue;
            String text = String.valueOf(frame[i]);
            out.put(names.get(i), text.length() > 80 ? text.substring(0, 77) + "..." : text);
        }
        return out;
    }

    private static boolean holdsTensors(Object v) {
        return switch (v) {
            case null -> false;
            case Tensor t -> true;
            case Collection<?> c -> c.stream().anyMatch(Frames::holdsTensors);
            case Map<?, ?> m -> m.values().stream().anyMatch(Frames::holdsTensors);
            case Object[] a -> java.util.Arrays.stream(a).anyMatch(Frames::holdsTensors);
            case Record r -> {
                for (RecordComponent c : r.getClass().getRecordComponents()) {
                    try {
                        c.getAccessor().setAccessible(true);
                        if (holdsTensors(c.getAccessor().invoke(r))) yield true;
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        yield true;   // unreadable: do not claim it was baked in
                    }
                }
                yield false;
            }
            default -> false;
        };
    }
}
