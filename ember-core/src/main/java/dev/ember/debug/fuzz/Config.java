package dev.ember.debug.fuzz;

import dev.ember.Options;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One way to run a program compiled: a backend, inductor's mode, and whether the compiled graphs
 * come from the on-disk cache (a warm start: compiled cold into a fresh cache folder, then
 * {@code Ember.reset()} and compiled again, which must load every graph from disk); whether it
 * trains ({@code +grad}: one call and its gradients) or runs a training loop ({@code +steps}).
 */
public record Config(String backend, CompileMode mode, boolean fromCache, boolean training, boolean steps, boolean scoped) {
    public Config {
        if (training && steps) throw new IllegalArgumentException("a configuration trains one call (+grad) or runs a training loop (+steps), not both");
        if (scoped && (fromCache || steps)) throw new IllegalArgumentException("a scoped configuration (+scope) runs cold calls or one training call, not the cache or a training loop");
    }

    public Config(String backend, CompileMode mode, boolean fromCache) { this(backend, mode, fromCache, false, false, false); }

    public Config(String backend, CompileMode mode, boolean fromCache, boolean training) { this(backend, mode, fromCache, training, false, false); }

    public Config(String backend, CompileMode mode, boolean fromCache, boolean training, boolean steps) { this(backend, mode, fromCache, training, steps, false); }

    /**
     * The same, each call inside its own {@code TensorScope} ({@code +scope}): what the call made is
     * released when it returns (its values copied first) and recycled by the next call, every array
     * pooled and every uninitialized one NaN-poisoned. A kernel that reads an element it did not
     * write, or anything long-lived a scope wrongly released, shows as a disagreement.
     */
    public Config scopedCalls() { return new Config(backend, mode, fromCache, training, steps, true); }

    /**
     * Every backend and mode, cold and from the cache, the AOT backends training ({@link #TRAINING})
     * and running training loops ({@link #STEPS}), and inductor's calls each in a scope ({@link #scopedCalls}).
     */
    public static final List<Config> ALL = List.of(
            new Config("eager", CompileMode.DEFAULT, false),
            new Config("aot_eager", CompileMode.DEFAULT, false),
            new Config("inductor", CompileMode.DEFAULT, false),
            new Config("inductor", CompileMode.MAX_AUTOTUNE, false),
            new Config("inductor", CompileMode.REDUCE_OVERHEAD, false),
            new Config("inductor", CompileMode.DEFAULT, true),
            new Config("inductor", CompileMode.MAX_AUTOTUNE, true),
            new Config("inductor", CompileMode.REDUCE_OVERHEAD, true),
            new Config("aot_eager", CompileMode.DEFAULT, false, true),
            new Config("inductor", CompileMode.DEFAULT, false, true),
            new Config("aot_eager", CompileMode.DEFAULT, false, false, true),
            new Config("inductor", CompileMode.DEFAULT, false, false, true),
            new Config("inductor", CompileMode.DEFAULT, false).scopedCalls(),
            new Config("inductor", CompileMode.REDUCE_OVERHEAD, false).scopedCalls(),
            new Config("inductor", CompileMode.DEFAULT, false, true).scopedCalls());

    /**
     * The AOT backends training (in {@link #ALL}; alone with {@code --backends aot_eager+grad,inductor/default+grad}):
     * float inputs require grad, and the inputs' gradients of the outputs' weighted sum are compared
     * with eager's too.
     */
    public static final List<Config> TRAINING = ALL.stream().filter(Config::training).toList();

    /**
     * The AOT backends running a training loop (in {@link #ALL}; alone with {@code --backends
     * aot_eager+steps,inductor/default+steps}), for the programs that train their modules
     * ({@link ProgramModules}) only: a few steps of forward, backward and the optimizer's step, the
     * program and the step compiled, against eager's loop step by step.
     */
    public static final List<Config> STEPS = ALL.stream().filter(Config::steps).toList();

    public Options options() { return Options.backend(backend).mode(mode); }

    /** {@code eager}, {@code inductor/max-autotune}, {@code inductor/default+cache}: also what {@code --backends} takes. */
    public String name() {
        return (backend.equals("inductor") ? backend + "/" + mode + (fromCache ? "+cache" : "") : backend) + (training ? "+grad" : steps ? "+steps" : "")
                + (scoped ? "+scope" : "");
    }

    @Override
    public String toString() { return name(); }

    private static boolean isRegistered(String backend) {
        try {
            Backends.get(backend);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The configurations {@code --backends} names, comma-separated: a backend ({@code inductor}
     * means all its modes, cold and cached; training and scoped ones only by name, {@code inductor/default+grad},
     * {@code aot_eager+steps}, {@code inductor/default+scope}),
     * one configuration by its {@link #name}, or any other
     * registered backend (a user's, found through {@code Backends}), in mode default.
     */
    public static List<Config> parse(String list) {
        Set<Config> out = new LinkedHashSet<>();
        for (String part : list.split(",")) {
            String want = part.strip();
            List<Config> matched = new ArrayList<>();
            for (Config c : ALL) if (c.backend.equals(want) && !c.training() && !c.steps() && !c.scoped() || c.name().equals(want)) matched.add(c);
            if (matched.isEmpty() && isRegistered(want)) matched.add(new Config(want, CompileMode.DEFAULT, false));
            if (matched.isEmpty()) {
                throw new IllegalArgumentException("unknown backend or configuration '" + want + "'; use "
                        + String.join(", ", ALL.stream().map(Config::name).toList())
                        + " (or a backend name for all its modes)");
            }
            out.addAll(matched);
        }
        return List.copyOf(out);
    }
}
