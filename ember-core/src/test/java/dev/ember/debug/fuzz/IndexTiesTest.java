package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.CompiledGraph;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The judge tells an index picked among tied values ({@link IndexTies}) from a wrong index. */
class IndexTiesTest {
    /** Eager, except that every int64 output's elements are moved to the next index (modulo 4): a miscompiled argmax. */
    static final Backend SHIFTS_INDICES = (gm, inputs) -> {
        CompiledGraph eager = Backends.EAGER.compile(gm, inputs);
        return args -> {
            Object[] out = eager.run(args);
            for (int i = 0; i < out.length; i++) if (out[i] instanceof Tensor t && t.dtype() == DType.INT64) out[i] = t.add(1L).remainder(4L);
            return out;
        };
    };

    @BeforeAll
    static void register() { Backends.register("test_shifts_indices", SHIFTS_INDICES); }

    @AfterEach
    void reset() { Ember.reset(); }

    /**
     * Fuzzer seed 311725: rows of a rank-one product, layer-normalized, are equal in exact
     * arithmetic wherever {@code a1} has one sign, and the argmax over them is decided by rounding.
     * Compiled code picked row 11 where eager picked row 13 in every run: not a failure.
     */
    static Tensor seed311725(Tensor a1, Tensor a2, Tensor a3) {
        Tensor v0 = a1.mm(a2);
        Tensor v3 = F.layerNorm(v0, new int[] {32}, a3, a3, 1e-5);
        return v3.argmax(0, true);
    }

    static Object[] inputs311725() {
        Generator g = new Generator(311725L);
        return new Object[] {Tensor.randn(g, 16, 1), Tensor.randn(g, 1, 32), Tensor.randn(g, 34).narrow(0, 1, 32)};
    }

    @Test
    void anArgmaxAmongRowsEqualUpToRoundingIsNotAFailure() {
        Fn3<Tensor, Tensor, Tensor, Tensor> fn = IndexTiesTest::seed311725;
        var result = DifferentialRunner.run(fn, IndexTiesTest::inputs311725, Config.parse("aot_eager,inductor/default"));
        assertNull(result.eagerError());
        result.outcomes().forEach((config, disagreement) -> assertNull(disagreement, config + ": " + disagreement));
    }

    static Tensor argmaxOfDistinctValues(Tensor x) { return x.mul(2.0).argmax(1, false); }

    @Test
    void aWrongIndexIsStillAFailure() {
        Fn1<Tensor, Tensor> fn = IndexTiesTest::argmaxOfDistinctValues;
        var result = DifferentialRunner.run(fn, () -> new Object[] {Tensor.randn(new Generator(5L), 3, 4)}, Config.parse("test_shifts_indices"));
        var d = result.outcomes().values().iterator().next();
        assertNotNull(d, "a shifted argmax over distinct values passed");
        assertTrue(d.detail().contains("must match exactly"), d.detail());
    }

    @Test
    void onlyElementsWhoseIndexedValuesAreWithinToleranceAreTies() {
        // operand [2, 4] along dim 1: row 0 has a tie between columns 1 and 3, row 1 has none
        Tensor operand = Tensor.of(new float[] {0f, 5f, 1f, 5.000001f, 3f, 2f, 1f, 0f}, 2, 4);
        IndexTies.Choice c = new IndexTies.Choice(operand, 1);
        Tensor eager = Tensor.ofLongs(3, 0);
        Tensor resolved = IndexTies.resolved(c, eager, Tensor.ofLongs(1, 0), 1e-3);
        assertArrayEquals(new long[] {3, 0}, resolved.toLongArray(), "row 0's index 1 holds a value tied with index 3's");
        Tensor wrong = Tensor.ofLongs(3, 1);
        assertSame(wrong, IndexTies.resolved(c, eager, wrong, 1e-3), "row 1's index 1 holds 2, eager's 3: a wrong index stays");
        // the flattened operand (dim null) and a keepdim shape
        IndexTies.Choice flat = new IndexTies.Choice(operand, null);
        assertArrayEquals(new long[] {3}, IndexTies.resolved(flat, Tensor.ofLongs(3), Tensor.ofLongs(1), 1e-3).toLongArray());
        IndexTies.Choice dim0 = new IndexTies.Choice(operand.transpose(0, 1).contiguous(), 0);
        Tensor kept = IndexTies.resolved(dim0, Tensor.of(new long[] {3, 0}, 1, 2), Tensor.of(new long[] {1, 0}, 1, 2), 1e-3);
        assertArrayEquals(new long[] {3, 0}, kept.toLongArray());
        assertArrayEquals(new int[] {1, 2}, kept.shape());
    }

    @Test
    void aNaNIsTiedOnlyWithANaN() {
        Tensor operand = Tensor.of(new float[] {Float.NaN, 1f, Float.NaN}, 3);
        IndexTies.Choice c = new IndexTies.Choice(operand, 0);
        assertArrayEquals(new long[] {0}, IndexTies.resolved(c, Tensor.ofLongs(0), Tensor.ofLongs(2), 1e-3).toLongArray());
        Tensor notNaN = Tensor.ofLongs(1);
        assertSame(notNaN, IndexTies.resolved(c, Tensor.ofLongs(0), notNaN, 1e-3));
    }
}
