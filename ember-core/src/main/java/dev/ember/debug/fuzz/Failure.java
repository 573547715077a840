package dev.ember.debug.fuzz;

/** A generated program that a configuration ran differently from eager. */
public record Failure(Program program, Config config, DifferentialRunner.Disagreement what) {
    @Override
    public String toString() {
        return "seed " + program.seed() + "  " + config.name() + "  " + what;
    }
}
