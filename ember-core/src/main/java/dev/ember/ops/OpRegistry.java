package dev.ember.ops;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Every op by its qualified name ({@code aten.add.Tensor}). */
public final class OpRegistry {
    private static final Map<String, OpOverload> OPS = new ConcurrentHashMap<>();

    /** The classes whose static initialisers define ops; loading them fills the registry. */
    private static final String[] OP_GROUPS = {
        "dev.ember.ops.ShapeOps",
        "dev.ember.ops.CreationOps",
        "dev.ember.ops.PointwiseOps",
        "dev.ember.ops.ReductionOps",
        "dev.ember.ops.LinalgOps",
        "dev.ember.ops.ConvOps",
        "dev.ember.ops.NormOps",
        "dev.ember.ops.IndexingOps",
        "dev.ember.ops.NnOps",
        "dev.ember.ops.ScatterOps",
        "dev.ember.ops.SortOps",
        "dev.ember.ops.ScanOps",
        "dev.ember.ops.LossOps",
    };
    private static volatile boolean loaded;

    private OpRegistry() {}

    static OpOverload add(OpOverload op) {
        OpOverload prev = OPS.putIfAbsent(op.name(), op);
        if (prev != null) throw new IllegalStateException("op " + op.name() + " is defined twice");
        return op;
    }

    /** The op with this name, or an error listing near names. */
    public static OpOverload get(String name) {
        loadAll();
        OpOverload op = OPS.get(name);
        if (op == null) {
            String base = name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : name;
            var near = OPS.keySet().stream().filter(k -> k.startsWith(base)).sorted().toList();
            throw new IllegalArgumentException("no op named '" + name + "'" + (near.isEmpty() ? "" : "; did you mean one of " + near + "?"));
        }
        return op;
    }

    public static Collection<OpOverload> all() {
        loadAll();
        return Collections.unmodifiableCollection(new TreeMap<>(OPS).values());
    }

    private static void loadAll() {
        if (loaded) return;
        synchronized (OpRegistry.class) {
            if (loaded) return;
            if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
                throw new IllegalStateException("Ember's kernels use the Vector API: start the JVM with "
                        + "--add-modules jdk.incubator.vector (and --enable-native-access=ALL-UNNAMED for OpenBLAS); ./ember passes both");
            }
            for (String group : OP_GROUPS) {
                try {
                    Class.forName(group, true, OpRegistry.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("op group " + group + " is missing from the class path", e);
                }
            }
            loaded = true;
        }
    }
}
