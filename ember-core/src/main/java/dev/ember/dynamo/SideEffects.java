package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.KeyedVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Mutations of objects from the frame's inputs, recorded while tracing: later reads in the same
 * trace see the new values, and the compiled frame replays the final state after the graph runs.
 */
final class SideEffects {
    /** A pending assignment: the owner's source (null for statics), the field, the value now held. */
    record Store(Source owner, Field field, VariableTracker value) {}

    /**
     * A printing or logging call to replay after the graph: the receiver, the method, the arguments
     * as traced, and the graph's last node when the call was made.
     */
    record LogCall(OutputRebuilder receiver, java.lang.reflect.Method method, List<VariableTracker> args, dev.ember.fx.Node lastNode) {}

    private final Map<String, Store> stores = new LinkedHashMap<>();
    private final Set<ListVariable> lists = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<ArrayVariable> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<KeyedVariable> keyed = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<dev.ember.dynamo.variables.StringBuilderVariable> builders = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<LogCall> logs = new ArrayList<>();
    private final List<GradientHooks.Op> hookOps = new ArrayList<>();

    private static String key(Source owner, Field f) { return (owner == null ? "G" : owner.name()) + "#" + f.getDeclaringClass().getName() + "." + f.getName(); }

    void store(Source owner, Field f, VariableTracker value) { stores.put(key(owner, f), new Store(owner, f, value)); }

    /** The value assigned earlier in this trace, or null. */
    VariableTracker pending(Source owner, Field f) {
        Store s = stores.get(key(owner, f));
        return s == null ? null : s.value();
    }

    void mutated(ListVariable l) { lists.add(l); }

    /** Whether the trace has changed a list, an array or a map/set from the inputs so far. */
    boolean changedContainers() { return !lists.isEmpty() || !arrays.isEmpty() || !keyed.isEmpty(); }

    void mutated(ArrayVariable a) { arrays.add(a); }

    void mutated(KeyedVariable k) { keyed.add(k); }

    void mutated(dev.ember.dynamo.variables.StringBuilderVariable b) { builders.add(b); }

    void logged(LogCall call) { logs.add(call); }

    void hookOp(GradientHooks.Op op) { hookOps.add(op); }

    boolean isEmpty() {
        return stores.isEmpty() && lists.isEmpty() && arrays.isEmpty() && keyed.isEmpty() && builders.isEmpty() && logs.isEmpty() && hookOps.isEmpty();
    }

    /** Gradient hooks registered on inputs and handles removed, in program order. */
    List<GradientHooks.Op> hookOps() { return List.copyOf(hookOps); }

    /** Logging calls in program order. */
    List<LogCall> logs() { return List.copyOf(logs); }

    List<Store> stores() { return List.copyOf(stores.values()); }

    List<ListVariable> lists() { return new ArrayList<>(lists); }

    List<ArrayVariable> arrays() { return new ArrayList<>(arrays); }

    /** Maps and sets from the inputs the trace changed. */
    List<KeyedVariable> keyed() { return new ArrayList<>(keyed); }

    /** StringBuilders from the inputs the trace changed. */
    List<dev.ember.dynamo.variables.StringBuilderVariable> builders() { return new ArrayList<>(builders); }
}
