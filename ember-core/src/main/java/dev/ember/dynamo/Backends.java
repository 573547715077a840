package dev.ember.dynamo;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Backends by name: {@code eager} is built in; later stages register {@code aot_eager} and {@code inductor}. */
public final class Backends {
    private static final Map<String, Backend> BY_NAME = new ConcurrentHashMap<>();

    /** Runs the captured graph with the eager ops, node by node (debugging capture alone, like PyTorch's "eager"). */
    public static final Backend EAGER = (gm, inputs) -> new PreparedGraph(gm);

    static {
        BY_NAME.put("eager", EAGER);
    }

    private Backends() {}

    public static void register(String name, Backend backend) { BY_NAME.put(name, backend); }

    /** inductor and aot_eager live in a later stage, which capture must not import: they register themselves when loaded. */
    private static void loadLaterStages() {
        try {
            Class.forName("dev.ember.inductor.InductorBackend").getMethod("register").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the inductor stage failed to register its backends", e);
        }
    }

    public static Backend get(String name) {
        Backend b = BY_NAME.get(name);
        if (b == null) {
            loadLaterStages();
            b = BY_NAME.get(name);
        }
        if (b == null) throw new IllegalArgumentException("unknown backend '" + name + "'; registered backends: " + new TreeMap<>(BY_NAME).keySet());
        return b;
    }
}
