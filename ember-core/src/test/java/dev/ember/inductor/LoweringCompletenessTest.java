package dev.ember.inductor;

import dev.ember.aot.DecomposePass;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lowering registry against the op table: an op tagged pointwise or reduction that reaches
 * inductor either lowers or is a declared fallback, so no op quietly becomes an eager extern call.
 * In-place and out= ops never reach inductor (functionalization turns them into their functional
 * op), so each must have a functional op, and that op is held to the same rule; an op AOT
 * decomposes never reaches it either.
 */
class LoweringCompletenessTest {

    @Test
    void everyPointwiseAndReductionOpLowersOrIsADeclaredFallback() {
        List<String> missing = new ArrayList<>();
        for (OpOverload op : OpRegistry.all()) {
            if (!op.hasTag(Tag.POINTWISE) && !op.hasTag(Tag.REDUCTION)) continue;
            OpOverload functional = OpRegistry.functionalOf(op);
            if (functional == null) {
                missing.add(op.name() + " (no functional op to functionalize into)");
            } else if (DecomposePass.decompositionOf(functional) == null && !Rules.lowers(functional) && !Rules.isDeclaredFallback(functional)) {
                missing.add(functional.name() + (functional == op ? "" : " (for " + op.name() + ")"));
            }
        }
        assertEquals(List.of(), missing.stream().distinct().sorted().toList(),
                "pointwise/reduction ops with neither a lowering in Rules nor a place in Rules.FALLBACKS");
    }

    @Test
    void declaredFallbacksHaveNoLowering() {
        for (OpOverload op : Rules.FALLBACKS) {
            assertTrue(!Rules.lowers(op), op + " is declared a fallback but also lowers: drop one");
        }
    }
}
