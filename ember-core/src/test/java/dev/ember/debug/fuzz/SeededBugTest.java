package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.CompiledGraph;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fuzzer finds what it is for: backends with a bug planted on purpose (a miscompiled op, a
 * dropped in-place write) fail its comparison, the shrinker cuts the failing program down to the
 * statements that matter, and the repro it writes compiles and fails the same way.
 */
class SeededBugTest {
    /** Eager, except that any graph with a sigmoid returns every floating output off by 0.5: one miscompiled op. */
    static final Backend PERTURBED_SIGMOID = (gm, inputs) -> {
        CompiledGraph eager = Backends.EAGER.compile(gm, inputs);
        boolean sigmoid = gm.graph().nodes().stream().anyMatch(n -> n.target() instanceof OpOverload op && op.name().startsWith("aten.sigmoid"));
        if (!sigmoid) return eager;
        return args -> {
            Object[] out = eager.run(args);
            for (int i = 0; i < out.length; i++) if (out[i] instanceof Tensor t && t.dtype().isFloatingPoint()) out[i] = t.add(0.5);
            return out;
        };
    };

    /** Eager on copies of the inputs: whatever the graph writes into an input is lost. */
    static final Backend DROPS_INPUT_WRITES = (gm, inputs) -> {
        CompiledGraph eager = Backends.EAGER.compile(gm, inputs);
        return args -> {
            Object[] copies = args.clone();
            for (int i = 0; i < copies.length; i++) if (copies[i] instanceof Tensor t) copies[i] = t.clone();
            return eager.run(copies);
        };
    };

    /**
     * Eager, except that each 0-d input keeps the value of the graph's first call: a number baked
     * into the compiled code without a guard (the class of the {@code f64[1]} scalar-input bug).
     */
    static final Backend FREEZES_SCALAR_INPUTS = (gm, inputs) -> {
        CompiledGraph eager = Backends.EAGER.compile(gm, inputs);
        Object[][] first = new Object[1][];
        return args -> {
            if (first[0] == null) first[0] = args.clone();
            Object[] frozen = args.clone();
            for (int i = 0; i < frozen.length; i++) if (frozen[i] instanceof Tensor t && t.dim() == 0 && !t.requiresGrad()) frozen[i] = first[0][i];
            return eager.run(frozen);
        };
    };

    @TempDir
    Path out;

    @BeforeAll
    static void register() {
        Backends.register("test_perturbed_sigmoid", PERTURBED_SIGMOID);
        Backends.register("test_drops_input_writes", DROPS_INPUT_WRITES);
        Backends.register("test_freezes_scalar_inputs", FREEZES_SCALAR_INPUTS);
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private record Found(Failure failure, Program minimized, Path repro) {}

    private List<Found> fuzz(String backend, long seed, int graphs) {
        List<Found> found = new ArrayList<>();
        FuzzStats stats = Fuzzer.run(new Fuzzer.Settings(seed, graphs, Duration.ofMinutes(2), Config.parse(backend), out), new Fuzzer.Listener() {
            @Override
            public void progress(FuzzStats s, Duration elapsed) {}

            @Override
            public void failure(Failure f, Program minimized, Path repro) { found.add(new Found(f, minimized, repro)); }
        });
        assertEquals(found.size(), stats.failures().size());
        return found;
    }

    @Test
    void aMiscompiledOpIsFoundShrunkAndReproduced() throws Exception {
        List<Found> found = fuzz("test_perturbed_sigmoid", 7, 24);
        assertFalse(found.isEmpty(), "24 programs and not one with a sigmoid caught");
        Found f = found.getFirst();
        assertEquals(DifferentialRunner.Disagreement.Kind.MISMATCH, f.failure.what().kind());
        assertTrue(f.failure.what().detail().contains("RMSE to float64") || f.failure.what().detail().contains("beyond tolerance"), f.failure.toString());
        String minimized = f.minimized.source("X");
        assertTrue(minimized.contains("sigmoid"), minimized);
        assertTrue(f.minimized.body().size() <= 3, "shrunk to " + f.minimized.body().size() + " statements:\n" + minimized);
        assertTrue(f.minimized.body().size() < f.failure.program().body().size() || f.failure.program().body().size() <= 3);

        // The repro compiles as written and fails the same way; against a correct backend it passes.
        String source = Files.readString(f.repro);
        String name = ReproWriter.className(f.minimized);
        assertTrue(source.contains("seed " + f.failure.program().seed()) && source.contains("javac -cp"), source);
        Class<?> repro = ProgramCompiler.compile(Map.of(name, source)).get(name);
        assertEquals(1, repro.getMethod("reproduce").invoke(null));
        Ember.reset();
        String fixed = source.replace("\"test_perturbed_sigmoid\"", "\"eager\"");
        assertEquals(0, ProgramCompiler.compile(Map.of(name, fixed)).get(name).getMethod("reproduce").invoke(null));
    }

    @Test
    void aDroppedInPlaceWriteIsFoundInTheInputsFinalContents() {
        List<Found> found = fuzz("test_drops_input_writes", 40, 40);
        Found f = found.stream().filter(x -> x.failure.what().detail().contains("after the call")).findFirst()
                .orElseThrow(() -> new AssertionError("no lost input write caught: " + found.stream().map(Found::failure).toList()));
        assertEquals(DifferentialRunner.Disagreement.Kind.MISMATCH, f.failure.what().kind());
        // the write the shrunk program keeps: an in-place op, or a batch_norm in training (it writes its running statistics)
        String shrunk = f.minimized.source("X");
        assertTrue(f.minimized.body().stream().anyMatch(s -> s instanceof Stmt.Mutate) || shrunk.contains("F.batchNorm(") && shrunk.contains(", true, "), shrunk);
        assertTrue(f.minimized.body().size() <= 3, shrunk);
    }

    /** A Java number (an argument, an array element, a list element, a field) baked in is caught by the call with new values. */
    @Test
    void aJavaNumberBakedIntoTheGraphIsFound() {
        // from seed 300 (not 0) so that the 20 programs hold one that multiplies by a double argument directly, with no item()
        List<Found> found = fuzz("test_freezes_scalar_inputs", 300, 20);
        Found f = found.stream().filter(x -> !x.minimized.scalars().isEmpty() && !x.minimized.source("X").contains("item()")).findFirst()
                .orElseThrow(() -> new AssertionError("no baked-in Java number caught: " + found.stream().map(Found::failure).toList()));
        assertEquals(DifferentialRunner.Disagreement.Kind.MISMATCH, f.failure.what().kind());
        assertTrue(f.failure.what().detail().contains("new input values"), f.failure.toString());
        // 4: the first such program of these seeds multiplies an int argument into a comparison's count (select, lt, sum, mul)
        assertTrue(f.minimized.body().size() <= 4, f.minimized.source("X"));
    }
}
