package dev.ember.export;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code Ember.export} with dynamic dimensions (issue #15): one program for every size in a range, saved and loaded with it. */
class ExportDynamicShapesTest {

    @TempDir
    Path dir;

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor addRelu(Tensor x, Tensor y) { return x.add(y).relu().mul(2.0); }

    static Tensor branchOnBatch(Tensor x) { return x.size(0) > 4 ? x.sin() : x.cos(); }

    static Tensor branchOnBatchValue(Tensor x) { return x.size(0) == 6 ? x.sin() : x.cos(); }

    private static final Dim BATCH = Dim.of("batch", 2, 64);

    @Test
    void aDynamicBatchRunsEverySizeInItsRangeAndSurvivesSaveAndLoad() throws Exception {
        Tensor.manualSeed(0);
        ExportTest.Mlp model = new ExportTest.Mlp();
        ExportedProgram ep = Ember.export(ExportOptions.defaults().dynamic(0, 0, BATCH), model, Tensor.randn(8, 4));
        String printed = ep.toString();
        assertTrue(printed.contains("f32[s0, 4]") && printed.contains("s0=VR[2, 64]"), printed);
        for (int n : new int[] {2, 3, 17, 64}) {
            Tensor x = Tensor.randn(n, 4);
            assertArrayEquals(model.forward(x).toFloatArray(), ep.run(x).getFirst().toFloatArray(), 1e-5f, "n = " + n);
            assertArrayEquals(model.forward(x).toFloatArray(), ep.withBackend("eager").run(x).getFirst().toFloatArray(), 1e-5f, "eager, n = " + n);
        }
        var outside = assertThrows(ExportError.class, () -> ep.run(Tensor.randn(65, 4)));
        assertTrue(outside.getMessage().contains("input 'x' dimension 0 is 65, outside the range the program was exported for: s0 in VR[2, 64]"), outside.getMessage());

        Path file = dir.resolve("mlp.ember");
        ep.save(file);
        assertTrue(Files.size(file) > 0);
        ExportedProgram loaded = ExportedProgram.load(file);
        assertTrue(loaded.toString().contains("f32[s0, 4]"), loaded.toString());
        Tensor x = Tensor.randn(11, 4);
        assertArrayEquals(model.forward(x).toFloatArray(), loaded.run(x).getFirst().toFloatArray(), 1e-5f);
        assertThrows(ExportError.class, () -> loaded.run(Tensor.randn(1, 4)));
    }

    @Test
    void twoInputsOfOneDimMustAgree() {
        Dim batch = Dim.of("batch");
        ExportedProgram ep = Ember.export(ExportOptions.defaults().dynamic(0, 0, batch).dynamic(1, 0, batch),
                (Fn2<Tensor, Tensor, Tensor>) ExportDynamicShapesTest::addRelu, Tensor.randn(6, 3), Tensor.randn(6, 3));
        Tensor x = Tensor.randn(9, 3), y = Tensor.randn(9, 3);
        assertArrayEquals(addRelu(x, y).toFloatArray(), ep.run(x, y).getFirst().toFloatArray());
        var e = assertThrows(ExportError.class, () -> ep.run(Tensor.randn(9, 3), Tensor.randn(5, 3)));
        assertTrue(e.getMessage().contains("input 'y' dimension 0 is 5, but input 'x' dimension 0 is 9"), e.getMessage());
    }

    @Test
    void aDynamicDimensionTheProgramSpecializesIsAnError() {
        var e = assertThrows(ExportError.class, () -> Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("batch")),
                (Fn1<Tensor, Tensor>) ExportDynamicShapesTest::branchOnBatchValue, Tensor.randn(6, 3)));
        assertTrue(e.getMessage().contains("argument 0 dimension 0 was declared dynamic (batch in [2, int_oo]), but the program needs its value"), e.getMessage());
    }

    @Test
    void aBranchThatNarrowsADimsRangeIsAnErrorNamingTheRangeThatHolds() {
        var e = assertThrows(ExportError.class, () -> Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("batch")),
                (Fn1<Tensor, Tensor>) ExportDynamicShapesTest::branchOnBatch, Tensor.randn(6, 3)));
        assertTrue(e.getMessage().contains("was declared batch in [2, int_oo], but the program holds only for 5 <= batch"), e.getMessage());
        ExportedProgram ep = Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("batch", 5, 100)),
                (Fn1<Tensor, Tensor>) ExportDynamicShapesTest::branchOnBatch, Tensor.randn(6, 3));
        Tensor x = Tensor.randn(9, 3);
        assertArrayEquals(branchOnBatch(x).toFloatArray(), ep.run(x).getFirst().toFloatArray());
    }

    static Tensor pairs(Tensor x) { return x.view(x.size(0) / 2, 2, -1).sum(1, false); }

    @Test
    void aDimTheProgramDividesIsRefusedNamingTheDivisor() {
        var e = assertThrows(ExportError.class, () -> Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("batch")),
                (Fn1<Tensor, Tensor>) ExportDynamicShapesTest::pairs, Tensor.randn(6, 3)));
        assertTrue(e.getMessage().contains("but the program divides it by 2 and holds only for multiples of it"), e.getMessage());
    }

    @Test
    void badDynamicShapeDeclarationsAreRefused() {
        Fn1<Tensor, Tensor> sin = Tensor::sin;
        var noDim = assertThrows(ExportError.class, () -> Ember.export(ExportOptions.defaults().dynamic(0, 2, BATCH), sin, Tensor.randn(6, 3)));
        assertTrue(noDim.getMessage().contains("has no dimension 2"), noDim.getMessage());
        var outside = assertThrows(ExportError.class, () -> Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("b", 8, 16)), sin, Tensor.randn(6, 3)));
        assertTrue(outside.getMessage().contains("is 6 in the example, outside b in [8, 16]"), outside.getMessage());
        var nonStrict = assertThrows(ExportError.class, () -> Ember.export(ExportOptions.nonStrict().dynamic(0, 0, BATCH), sin, Tensor.randn(6, 3)));
        assertTrue(nonStrict.getMessage().contains("dynamic dimensions need strict export"), nonStrict.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Dim.of("b", 5, 4));
    }
}
