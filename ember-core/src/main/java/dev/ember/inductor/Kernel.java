package dev.ember.inductor;

import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Stage;
import dev.ember.tensor.SymInt;

import java.util.List;
import java.util.Set;

/** What the scheduler makes of the stages: one generated loop nest, or an extern call with its epilogue. */
public sealed interface Kernel {

    /**
     * Stages sharing one parallel loop over {@code outer} (rows); each stage then loops over its
     * own inner dims. {@code locals} are reduction results that live only in registers.
     */
    record Loop(SymInt[] outer, List<Stage> stages, Set<Buffer> locals) implements Kernel {
        public boolean hasReduction() { return stages.stream().anyMatch(s -> s instanceof Stage.Reduction); }
    }

    /** A GEMM or an extern op, then pointwise stages over its output while it is in cache. */
    record Host(Stage host, List<Stage.Pointwise> epilogue) implements Kernel {}
}
