package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;

/**
 * sort (stable; NaN above every number), argsort and topk against libtorch: values and int64
 * positions over every dtype, dim, direction and layout, ties among integers and signed zeros,
 * special values, 0-d and empty inputs, and libtorch's refusals.
 */
class SortConformanceTest {

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    /** Values with many ties for integers and bool (small range), none for floats. */
    static Tensor values(Random rng, DType d, int... shape) {
        return d.isFloatingPoint() ? Inputs.randn(rng, d, shape) : Inputs.randint(rng, d, d.isBool() ? 0 : -4, d.isBool() ? 2 : 4, shape);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void sortIsStableAndMatchesLibtorchsStableSort(DType d) {
        Random rng = new Random(d.ordinal() + 51);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {4, 7}, new int[] {3, 5, 6}, new int[] {40})) {
                Tensor x = values(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    for (int dim : new int[] {0, -1}) {
                        for (boolean descending : new boolean[] {false, true}) {
                            String ctx = "sort " + d + " " + in + " dim " + dim + (descending ? " descending" : "");
                            assertClose(in.tensor().sort(dim, descending), Torch.callList(m, "torch.sort(a, dim=" + dim + ", descending=" + py(descending) + ", stable=True)", in.tensor()), ctx);
                            assertClose(OpRegistry.get("aten.sort.stable").callList(in.tensor(), true, (long) dim, descending),
                                    Torch.callList(m, "torch.sort(a, dim=" + dim + ", descending=" + py(descending) + ", stable=True)", in.tensor()), ctx + " sort.stable");
                        }
                    }
                }
            }
            Tensor scalar = values(rng, d), empty = values(rng, d, 0, 3);
            assertClose(scalar.sort(), Torch.callList(m, "torch.sort(a)", scalar), "0-d");
            assertClose(empty.sort(0, true), Torch.callList(m, "torch.sort(a, 0, True)", empty), "empty");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void nanSortsAboveEverythingAndSignedZerosTie(DType d) {
        Tensor s = Inputs.specials(d);
        Tensor x = Tensor.cat(List.of(s, s.neg()), 0);
        try (NDManager m = Torch.scope()) {
            for (boolean descending : new boolean[] {false, true}) {
                assertClose(x.sort(0, descending), Torch.callList(m, "torch.sort(a, stable=True, dim=0, descending=" + py(descending) + ")", x), "specials " + descending);
            }
            assertClose(x.argsort(0, true), Torch.call(m, "torch.sort(a, stable=True, dim=0, descending=True)[1]", x), "argsort specials");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void argsortMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 61);
        Tensor x = Inputs.nonContiguous(values(rng, d, 5, 9));
        try (NDManager m = Torch.scope()) {
            assertClose(x.argsort(1, false), Torch.call(m, "torch.argsort(a, stable=True, dim=1, descending=False)", x), "argsort " + d);
            assertClose(x.argsort(0, true), Torch.call(m, "torch.argsort(a, stable=True, dim=0, descending=True)", x), "argsort descending " + d);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("numericDtypes")
    void topkMatchesLibtorchOnDistinctValues(DType d) {
        Random rng = new Random(d.ordinal() + 71);
        try (NDManager m = Torch.scope()) {
            Tensor x = distinct(rng, d, 6, 11);
            for (Inputs.Layout in : Inputs.layouts(x)) {
                for (int dim : new int[] {0, 1, -1}) {
                    for (int k : new int[] {0, 1, 3, in.tensor().size(dim)}) {
                        for (boolean largest : new boolean[] {true, false}) {
                            String ctx = "topk " + d + " " + in + " k " + k + " dim " + dim + (largest ? " largest" : " smallest");
                            assertClose(in.tensor().topk(k, dim, largest), Torch.callList(m, "torch.topk(a, " + k + ", " + dim + ", " + py(largest) + ", True)", in.tensor()), ctx);
                        }
                    }
                }
            }
            Tensor scalar = distinct(rng, d);
            assertClose(scalar.topk(1), Torch.callList(m, "torch.topk(a, 1)", scalar), "0-d");
            Tensor specials = Inputs.specials(d);
            assertClose(specials.topk(4), Torch.callList(m, "torch.topk(a, 4)", specials), "specials largest");
            assertClose(specials.topk(4, 0, false), Torch.callList(m, "torch.topk(a, 4, 0, False)", specials), "specials smallest");
            // sorted=False lets the k come in any order; Ember's come sorted, so they are libtorch's sorted ones
            assertClose(x.topk(3, 1, true, false), Torch.callList(m, "torch.topk(a, 3, 1, True, True)", x), "unsorted largest");
            assertClose(x.topk(3, 0, false, false), Torch.callList(m, "torch.topk(a, 3, 0, False, True)", x), "unsorted smallest");
        }
    }

    @Test
    void badCallsFailLikeLibtorch() {
        Tensor x = Tensor.randn(3, 4);
        try (NDManager m = Torch.scope()) {
            refused(m, "k too large", () -> x.topk(5, 1, true).getFirst(), "torch.topk(a, 5, 1)", x);
            refused(m, "k negative", () -> x.topk(-1, 1, true).getFirst(), "torch.topk(a, -1, 1)", x);
            refused(m, "sort dim", () -> x.sort(2, false).getFirst(), "torch.sort(a, 2)", x);
            refused(m, "topk dim", () -> x.topk(1, -3, true).getFirst(), "torch.topk(a, 1, -3)", x);
            Tensor bools = Tensor.of(new boolean[] {true, false, true}, 3);
            refused(m, "topk bool", () -> bools.topk(1).getFirst(), "torch.topk(a, 1)", bools);
        }
    }

    /** A shuffled permutation of distinct values (ties in topk are ordered differently by libtorch's partial sort). */
    static Tensor distinct(Random rng, DType d, int... shape) {
        int n = Arrays.stream(shape).reduce(1, (p, q) -> p * q);
        List<Long> v = new ArrayList<>();
        for (long i = 0; i < n; i++) v.add(i * 3 - n);
        Collections.shuffle(v, rng);
        return Tensor.of(v.stream().mapToLong(Long::longValue).toArray(), shape).to(d);
    }

    static String py(boolean b) { return b ? "True" : "False"; }

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    static Stream<DType> numericDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64); }
}
