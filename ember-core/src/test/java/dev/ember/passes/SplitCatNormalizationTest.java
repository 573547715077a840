package dev.ember.passes;

import dev.ember.Ember;
import dev.ember.fx.Node;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.passes.PreGradHarness.assertClose;
import static dev.ember.passes.PreGradHarness.capture;
import static dev.ember.passes.PreGradHarness.compiled;
import static dev.ember.passes.PreGradHarness.preGrad;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pre_grad.split_cat_normalization: splits and chunks take one form, and a cat that only glues
 * pieces of a split back together goes, where nothing can tell. The rewrite moves no arithmetic, so
 * the compiled results equal the unrewritten graph's exactly.
 */
class SplitCatNormalizationTest {
    private static final String PASS = "pre_grad.split_cat_normalization";

    @BeforeAll
    static void register() throws java.io.IOException { PreGradHarness.useInductor(); }

    @AfterEach
    void reset() {
        PassManager.disable(null);
        Ember.reset();
    }

    static Tensor splitAndChunk(Tensor x) {
        List<Tensor> a = x.split(2, -1);                // [4, 6] → three [4, 2]
        List<Tensor> b = x.chunk(4, 0);                 // → four [1, 6]
        return a.get(2).sum().add(b.get(3).sum());
    }

    static Tensor allPiecesInOrder(Tensor x) {
        List<Tensor> p = x.exp().split(new int[] {1, 3, 2}, 1);
        return Tensor.cat(List.of(p.get(0), p.get(1), p.get(2)), -1).relu();
    }

    static Tensor aRunOfPieces(Tensor x) {
        List<Tensor> p = x.exp().chunk(3, 0);           // [6, 5] → three [2, 5]; rows 2..5 are contiguous
        return Tensor.cat(List.of(p.get(1), p.get(2)), 0).view(20);
    }

    static Tensor aRunAcrossRows(Tensor x) {
        List<Tensor> p = x.exp().split(2, 1);           // [4, 6] → three [4, 2]; columns 2..5 are strided
        return Tensor.cat(List.of(p.get(1), p.get(2)), 1).mul(3.0);
    }

    static Tensor returnedFresh(Tensor x) {
        List<Tensor> p = x.exp().split(2, 1);
        return Tensor.cat(List.of(p.get(0), p.get(1), p.get(2)), 1);
    }

    static Tensor oneTensor(Tensor x) { return Tensor.cat(List.of(x.sin()), 0).add(1.0); }

    static Tensor outOfOrder(Tensor x) {
        List<Tensor> p = x.split(2, 1);
        return Tensor.cat(List.of(p.get(1), p.get(0), p.get(2)), 1).relu();
    }

    static Tensor aPieceMissing(Tensor x) {
        List<Tensor> p = x.split(2, 1);
        return Tensor.cat(List.of(p.get(0), p.get(2)), 1).relu();
    }

    static Tensor anotherDim(Tensor x) {
        List<Tensor> p = x.split(2, 1);
        return Tensor.cat(List.of(p.get(0), p.get(1), p.get(2)), 0).relu();
    }

    /** The cat is returned and its source is the caller's own tensor: returning x itself would hand back an alias. */
    static Tensor returnedInput(Tensor x) {
        List<Tensor> p = x.split(2, 1);
        return Tensor.cat(List.of(p.get(0), p.get(1), p.get(2)), 1);
    }

    /** The split input is written after the cat: the cat's copy keeps the old values. */
    static Tensor writtenAfterTheCat(Tensor x) {
        Tensor y = x.exp();
        List<Tensor> p = y.split(2, 1);
        Tensor c = Tensor.cat(List.of(p.get(0), p.get(1), p.get(2)), 1);
        y.add_(1.0);
        return c.mul(y);
    }

    private static long cats(PreGradHarness.Rewritten r) { return r.count(ShapeOps.CAT); }

    @Test
    void splitAndChunkBecomeSplitWithSizesWithANonNegativeDim() {
        var after = preGrad(capture(o -> Ember.compile(SplitCatNormalizationTest::splitAndChunk, o), Tensor.randn(4, 6)));
        List<Node> splits = after.graph().graph().nodes().stream().filter(n -> n.target() == ShapeOps.SPLIT_WITH_SIZES).toList();
        assertEquals(2, splits.size(), after.graph().code());
        assertEquals(0, after.count(ShapeOps.SPLIT) + after.count(ShapeOps.CHUNK), after.graph().code());
        assertArrayEquals(new int[] {2, 2, 2}, (int[]) splits.get(0).arg(1));
        assertEquals(1L, splits.get(0).arg(2));
        assertArrayEquals(new int[] {1, 1, 1, 1}, (int[]) splits.get(1).arg(1));
        assertEquals(0L, splits.get(1).arg(2));
    }

    @Test
    void catsThatReassembleASplitGoAndTheResultsAreUnchanged() {
        record Case(String name, PreGradHarness.Compiler fn, Tensor x) {}
        List<Case> cases = List.of(
                new Case("all pieces in order", o -> Ember.compile(SplitCatNormalizationTest::allPiecesInOrder, o), Tensor.randn(3, 6)),
                new Case("a contiguous run of pieces", o -> Ember.compile(SplitCatNormalizationTest::aRunOfPieces, o), Tensor.randn(6, 5)),
                new Case("a strided run read by values only", o -> Ember.compile(SplitCatNormalizationTest::aRunAcrossRows, o), Tensor.randn(4, 6)),
                new Case("returned, glued from a fresh tensor", o -> Ember.compile(SplitCatNormalizationTest::returnedFresh, o), Tensor.randn(4, 6)),
                new Case("one tensor", o -> Ember.compile(SplitCatNormalizationTest::oneTensor, o), Tensor.randn(3, 4)));
        for (Case c : cases) {
            var after = preGrad(capture(c.fn(), c.x()));
            assertTrue(after.changed().contains("split_cat_normalization"), c.name() + ": " + after.changed());
            assertEquals(0, cats(after), c.name() + "\n" + after.graph().code());
            assertClose(compiled(c.fn(), c.x(), PASS), compiled(c.fn(), c.x(), null), 0, c.name());
        }
    }

    @Test
    void catsThatDoNotReassembleExactlyStay() {
        List<PreGradHarness.Compiler> fns = List.of(
                o -> Ember.compile(SplitCatNormalizationTest::outOfOrder, o),
                o -> Ember.compile(SplitCatNormalizationTest::aPieceMissing, o),
                o -> Ember.compile(SplitCatNormalizationTest::anotherDim, o),
                o -> Ember.compile(SplitCatNormalizationTest::returnedInput, o),
                o -> Ember.compile(SplitCatNormalizationTest::writtenAfterTheCat, o));
        Tensor x = Tensor.randn(4, 6);
        for (var fn : fns) {
            var after = preGrad(capture(fn, x));
            assertEquals(1, cats(after), after.graph().code());
            assertClose(compiled(fn, x, PASS), compiled(fn, x, null), 0, after.graph().code());
        }
        Tensor input = Tensor.randn(4, 6);
        Tensor out = compiled(o -> Ember.compile(SplitCatNormalizationTest::returnedInput, o), input, null);
        out.add_(1.0);
        assertClose(input.add(1.0), out, 0, "the returned tensor is the caller's own, not an alias of the input");
    }
}
