package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.variables.Changes;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.List;

/**
 * A mutation the traced code made to an object that outlives the call (a field of an input
 * object, a static field, an input list or array). The graph cannot hold it, so the compiled
 * frame replays it after the graph runs, with values rebuilt from the graph's outputs.
 */
sealed interface SideEffect {

    void apply(Rebuild r);

    /** {@code owner.field = value}; {@code owner} null for a static field. */
    record SetField(Source owner, Field field, OutputRebuilder value) implements SideEffect {
        public void apply(Rebuild r) {
            try {
                field.set(owner == null ? null : owner.read(r.frame), Values.fromStack(r.value(value), field.getType()));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("replaying the assignment to " + field + " failed", e);
            }
        }
    }

    /**
     * The input list's final contents. A trace that only set elements ({@code structural} false)
     * sets them again, one by one: a clear and an add would be a structural change Java's {@code set}
     * is not, and would make the caller's subList views and iterators of the list throw
     * ConcurrentModificationException where eager's go on.
     */
    record ResetList(Source list, OutputRebuilder items, boolean structural) implements SideEffect {
        @SuppressWarnings("unchecked")
        public void apply(Rebuild r) {
            java.util.Collection<Object> sequence = (java.util.Collection<Object>) list.read(r.frame);
            List<?> values = (List<?>) r.value(items);
            if (!(sequence instanceof List<Object> target)) {
                // an ArrayDeque: its contents again
                sequence.clear();
                sequence.addAll(values);
                return;
            }
            if (!structural && target.size() == values.size()) {
                java.util.ListIterator<Object> at = target.listIterator();
                for (Object v : values) if (at.next() != v) at.set(v);
                return;
            }
            target.clear();
            target.addAll(values);
        }
    }

    /** The text the trace appended to the caller's StringBuilder, whose text it never read: appended to it, whatever it holds. */
    record AppendText(Source builder, String text) implements SideEffect {
        public void apply(Rebuild r) {
            switch (builder.read(r.frame)) {
                case StringBuilder b -> b.append(text);
                case StringBuffer b -> b.append(text);
                case Object o -> throw new IllegalStateException("not a StringBuilder or StringBuffer: " + o.getClass().getName());
            }
        }
    }

    /** The final text of the caller's StringBuilder, whose text the trace read (and guarded). */
    record SetText(Source builder, String text) implements SideEffect {
        public void apply(Rebuild r) {
            switch (builder.read(r.frame)) {
                case StringBuilder b -> b.replace(0, b.length(), text);
                case StringBuffer b -> b.replace(0, b.length(), text);
                case Object o -> throw new IllegalStateException("not a StringBuilder or StringBuffer: " + o.getClass().getName());
            }
        }
    }

    /** Values the trace appended to an input list whose contents it never read: added at its end, whatever it holds. */
    record AppendToList(Source list, OutputRebuilder items) implements SideEffect {
        @SuppressWarnings("unchecked")
        public void apply(Rebuild r) {
            java.util.Collection<Object> target = (java.util.Collection<Object>) list.read(r.frame);
            target.addAll((List<?>) r.value(items));
        }
    }

    /**
     * An input map's or set's changes: its structural changes replayed in order, then the new
     * values of a map's keys ({@code values} null for a set), all rebuilt before the map is touched.
     */
    record ReplayChanges(Source container, List<Changes.Change> changes, List<Object> keys, List<OutputRebuilder> values,
                         OutputRebuilder.KeyValues identities) implements SideEffect {
        public void apply(Rebuild r) {
            Object[] newValues = values == null ? null : OutputRebuilder.rebuildAll(r, values);
            OutputRebuilder.KeyedOf.replay(container.read(r.frame), changes, keys, newValues, identities.resolver(r));
        }

        @Override
        public String toString() { return "replay " + changes.size() + " changes to " + container.name(); }
    }

    /** Grad mode as the traced code left it, when a graph break falls inside a traced {@code noGrad()}/{@code enableGrad()} scope. */
    record SetGradMode(boolean enabled) implements SideEffect {
        public void apply(Rebuild r) { dev.ember.autograd.GradMode.setEnabled(enabled); }

        @Override
        public String toString() { return "grad mode " + (enabled ? "on" : "off"); }
    }

    /**
     * A gradient hook registered on an input in the trace (its handle made by {@code registration},
     * once per call), or the handle's {@code remove()}: after the graph, as the hook sees the
     * gradient only at backward, which the graph's backward sends to the input.
     */
    record HookOp(OutputRebuilder.HookRegistration registration, boolean remove) implements SideEffect {
        public void apply(Rebuild r) {
            dev.ember.autograd.Autograd.HookHandle handle = (dev.ember.autograd.Autograd.HookHandle) r.value(registration);
            if (remove) handle.remove();
        }

        @Override
        public String toString() { return (remove ? "remove " : "") + registration; }
    }

    /** The input array's final elements. */
    record ResetArray(Source array, OutputRebuilder items) implements SideEffect {
        public void apply(Rebuild r) {
            Object target = array.read(r.frame);
            Object values = r.value(items);
            System.arraycopy(values, 0, target, 0, Array.getLength(values));
        }
    }

    /** A printing or logging call recorded while tracing, made with the argument values rebuilt from the graph's outputs. */
    record Log(OutputRebuilder receiver, java.lang.reflect.Method method, List<OutputRebuilder> args) implements SideEffect {
        public void apply(Rebuild r) {
            Class<?>[] types = method.getParameterTypes();
            Object[] values = new Object[types.length];
            for (int i = 0; i < values.length; i++) values[i] = Values.fromStack(r.value(args.get(i)), types[i]);
            try {
                method.invoke(r.value(receiver), values);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw dev.ember.dynamo.resume.Sneaky.<RuntimeException>rethrow(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("replaying " + method + " failed", e);
            }
        }

        @Override
        public String toString() {
            return receiver + "." + method.getName() + args.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ", "(", ")"));
        }
    }
}
