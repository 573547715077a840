package dev.ember.dynamo;

import java.util.IdentityHashMap;

/**
 * One call's rebuilding of Java values after its graph ran: the graph's outputs and inputs, the call's frame,
 * and the objects made so far. A value the trace reached along several paths (returned, stored in
 * a field, live across a break) is one {@link OutputRebuilder} node, so it is made once per call
 * and every path sees the same object, as in eager.
 */
final class Rebuild {
    final Object[] outs;
    /** The objects the graph was called with, in its input order. */
    final Object[] ins;
    final Object[] frame;
    private IdentityHashMap<OutputRebuilder, Object> made;

    Rebuild(Object[] outs, Object[] ins, Object[] frame) {
        this.outs = outs;
        this.ins = ins;
        this.frame = frame;
    }

    /** The value {@code r} stands for in this call; an object with identity is made only once. */
    Object value(OutputRebuilder r) {
        if (!r.hasIdentity()) return r.rebuild(this);
        if (made == null) made = new IdentityHashMap<>();
        if (made.containsKey(r)) return made.get(r);
        Object v = r.rebuild(this);
        made.put(r, v);
        return v;
    }

    /** Records what {@code r} made before its parts are rebuilt, so a part that refers back to it (a cycle) gets the same object. */
    void made(OutputRebuilder r, Object value) {
        if (made == null) made = new IdentityHashMap<>();
        made.put(r, value);
    }
}
