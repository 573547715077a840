package dev.ember.fx;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Backends by name. {@code eager} is built in; the stages after capture bring theirs as a
 * {@link Provider} found through {@link ServiceLoader} (the inductor stage brings {@code inductor}
 * and {@code aot_eager}), so capture names them without importing them. Users add their own with
 * {@link #register}, which wins over a provider's backend of the same name.
 */
public final class Backends {
    private static final Map<String, Backend> BY_NAME = new ConcurrentHashMap<>();

    /** Runs the captured graph with the eager ops, node by node (debugging capture alone, like PyTorch's "eager"). */
    public static final Backend EAGER = (gm, inputs) -> new PreparedGraph(gm);

    /**
     * A stage's backends, listed in {@code META-INF/services/dev.ember.fx.Backends$Provider}; loaded
     * the first time a name is not registered.
     */
    public interface Provider {
        Map<String, Backend> backends();
    }

    static {
        BY_NAME.put("eager", EAGER);
    }

    private Backends() {}

    public static void register(String name, Backend backend) { BY_NAME.put(name, backend); }

    private static void loadProviders() {
        for (Provider p : ServiceLoader.load(Provider.class, Backends.class.getClassLoader())) {
            p.backends().forEach(BY_NAME::putIfAbsent);
        }
    }

    public static Backend get(String name) {
        Backend b = BY_NAME.get(name);
        if (b == null) {
            loadProviders();
            b = BY_NAME.get(name);
        }
        if (b == null) throw new IllegalArgumentException("unknown backend '" + name + "'; registered backends: " + new TreeMap<>(BY_NAME).keySet());
        return b;
    }
}
