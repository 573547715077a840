package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.debug.Accuracy;
import dev.ember.tensor.Tensor;

import java.io.PrintStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a written repro's {@code main} calls: runs the program eagerly and compiled under one
 * configuration, prints both results and the verdict, and says whether the failure reproduces.
 */
public final class Repro {
    private Repro() {}

    /**
     * {@link #check(Object, Supplier, String)} of a program class ({@code fn()}, {@code inputs()}),
     * its modules trained as the class says ({@link ProgramModules}).
     */
    public static int check(Class<?> program, String config) {
        ProgramModules modules = ProgramModules.of(program);   // the parameters' first values, before anything runs
        Object fn;
        try {
            fn = program.getMethod("fn").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(program.getName() + " has no public static fn()", e);
        }
        Supplier<Object[]> inputs = () -> {
            try {
                return (Object[]) program.getMethod("inputs").invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException(program.getName() + ".inputs() failed: " + e, e);
            }
        };
        return check(fn, inputs, modules, config);
    }

    /** Exit status 1 when compiled still disagrees with eager under {@code config} (a {@link Config#name}), 0 when it agrees. */
    public static int check(Object fn, Supplier<Object[]> inputs, String config) { return check(fn, inputs, null, config); }

    private static int check(Object fn, Supplier<Object[]> inputs, ProgramModules modules, String config) {
        PrintStream out = System.out;
        Config c = Config.parse(config).getFirst();
        out.println("eager:");
        print(out, () -> Calls.apply(fn, inputs.get()));
        Ember.reset();
        out.println(c.name() + ":");
        Object compiled = Calls.compile(fn, c.options());
        print(out, () -> Calls.apply(compiled, inputs.get()));
        DifferentialRunner.Disagreement d = DifferentialRunner.run(fn, inputs, modules, List.of(c)).outcomes().get(c);
        out.println(d == null ? "verdict: compiled agrees with eager (the failure does not reproduce)" : "verdict: " + d);
        return d == null ? 0 : 1;
    }

    private static void print(PrintStream out, Supplier<Object> run) {
        try {
            List<Object> values = Accuracy.leaves(run.get());
            for (int i = 0; i < values.size(); i++) {
                Object v = values.get(i);
                out.println("  [" + i + "] " + (v instanceof Tensor t ? t.clone().toString().replace("\n", "\n      ") : v));
            }
        } catch (RuntimeException e) {
            out.println("  threw " + e);
        }
    }
}
