package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.ops.Schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Turns a node's args and kwargs into the positional values {@link OpOverload#call} takes. */
final class OpCallArgs {
    private OpCallArgs() {}

    /** Keyword arguments go to their schema position; positions skipped on the way get their defaults. */
    static Object[] positional(OpOverload op, List<Object> args, Map<String, Object> kwargs) {
        if (kwargs.isEmpty()) return args.toArray();
        List<Schema.Param> params = op.schema().params();
        List<Object> out = new ArrayList<>(args);
        boolean[] given = new boolean[Math.max(params.size(), args.size())];
        Arrays.fill(given, 0, args.size(), true);
        for (Map.Entry<String, Object> kw : kwargs.entrySet()) {
            int i = indexOf(params, kw.getKey());
            if (i < 0) throw new IllegalArgumentException(op.name() + " got an unexpected keyword argument '" + kw.getKey() + "' (" + op.schema() + ")");
            if (given[i]) throw new IllegalArgumentException(op.name() + " got multiple values for argument '" + kw.getKey() + "' (" + op.schema() + ")");
            while (out.size() <= i) out.add(null);
            out.set(i, kw.getValue());
            given[i] = true;
        }
        for (int i = args.size(); i < out.size(); i++) {
            if (given[i]) continue;
            Schema.Param p = params.get(i);
            if (!p.hasDefault()) throw new IllegalArgumentException(op.name() + ": missing argument '" + p.name() + "' (" + op.schema() + ")");
            out.set(i, p.defaultValue() instanceof int[] a ? a.clone() : p.defaultValue());
        }
        return out.toArray();
    }

    private static int indexOf(List<Schema.Param> params, String name) {
        for (int i = 0; i < params.size(); i++) if (params.get(i).name().equals(name)) return i;
        return -1;
    }
}
