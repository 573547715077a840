package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;

import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * Where a captured graph meets its backend: the debug stage's repro levels ({@code EMBER_REPRO_LEVEL}:
 * a repro when the backend fails, an accuracy check) around {@code options.getBackend()}. Found
 * through {@code META-INF/services}, like the inductor's backends, so that capture does not import
 * the stage above it.
 */
public interface BackendHarness {
    /**
     * Compiles {@code gm} with {@code options}' backend and mode.
     *
     * @param inputs   the graph's inputs as the call passed them (null when one cannot be read)
     * @param function the compiled function, {@code MyApp.fn}; the compile id is the current one
     * @throws dev.ember.BackendCompilerFailed when the backend throws
     */
    CompiledGraph compile(GraphModule gm, List<FakeTensor> fakes, Supplier<List<Object>> inputs, Options options, String function);

    /** The harness listed in {@code META-INF/services}. */
    static BackendHarness load() {
        return ServiceLoader.load(BackendHarness.class, BackendHarness.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + BackendHarness.class.getName() + " is listed in META-INF/services: "
                        + "ember-core's resources are missing from the class path"));
    }
}
