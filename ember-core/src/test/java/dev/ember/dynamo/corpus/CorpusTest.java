package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CacheEntry;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.guards.Guard;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The capture corpus: each program is compiled with a CompileCounter backend and checked for
 * the same result as eager, the expected number of frames and ops, the expected guards, and a
 * cache hit (no new frame) on a second call with new inputs of the same shapes.
 */
class CorpusTest {

    record Case(String name, Object fn, Supplier<Object[]> inputs, int ops, List<String> guards) {}

    private static Tensor randn(int... shape) { return Tensor.randn(shape); }

    private static Supplier<Object[]> in(Supplier<Object[]> s) {
        return () -> {
            Tensor.manualSeed(1234);
            return s.get();
        };
    }

    private static Case c(String name, Object fn, Supplier<Object[]> inputs, int ops, String... guards) {
        return new Case(name, fn, in(inputs), ops, List.of(guards));
    }

    static List<Case> cases() {
        List<Case> cs = new ArrayList<>();
        Supplier<Object[]> x34 = () -> new Object[] {randn(3, 4)};
        Supplier<Object[]> x234 = () -> new Object[] {randn(2, 3, 4)};
        // straight-line
        cs.add(c("transposeView", (Fn1<Tensor, Tensor>) Programs::transposeView, x34, 3, "TENSOR_MATCH: L['x'] f32[3, 4] stride=[4, 1] cpu"));
        cs.add(c("permuteBack", (Fn1<Tensor, Tensor>) Programs::permuteBack, x234, 2, "TENSOR_MATCH: L['x'] f32[2, 3, 4]"));
        cs.add(c("tOfT", (Fn1<Tensor, Tensor>) Programs::tOfT, x34, 2));
        cs.add(c("flattenView", (Fn1<Tensor, Tensor>) Programs::flattenView, x234, 2));
        cs.add(c("expandContiguous", (Fn1<Tensor, Tensor>) Programs::expandContiguous, x34, 3));
        cs.add(c("sliceStep", (Fn1<Tensor, Tensor>) Programs::sliceStep, x34, 1));
        cs.add(c("stackSame", (Fn1<Tensor, Tensor>) Programs::stackSame, x34, 1));
        cs.add(c("catTwo", (Fn2<Tensor, Tensor, Tensor>) Programs::catTwo, () -> new Object[] {randn(3, 4), randn(3, 2)}, 1,
                "TENSOR_MATCH: L['y'] f32[3, 2]"));
        // constant control flow
        cs.add(c("ifOnInt", (Fn2<Tensor, Integer, Tensor>) Programs::ifOnInt, () -> new Object[] {randn(3, 4), 3}, 1, "INT_RANGE: L['n'] >= 3"));
        cs.add(c("ifOnDim", (Fn1<Tensor, Tensor>) Programs::ifOnDim, x34, 1));
        cs.add(c("ifOnSize", (Fn1<Tensor, Tensor>) Programs::ifOnSize, () -> new Object[] {randn(4, 3)}, 1));
        cs.add(c("ifOnDtype", (Fn1<Tensor, Tensor>) Programs::ifOnDtype, x34, 1));
        cs.add(c("ternaryLogic", (Fn2<Tensor, Integer, Tensor>) Programs::ternaryLogic, () -> new Object[] {randn(3, 4), 1}, 1, "TENSOR_MATCH: L['x'] f32[3, 4]"));
        cs.add(c("switchOnDim", (Fn1<Tensor, Tensor>) Programs::switchOnDim, x34, 1));
        cs.add(c("switchOnEnum", (Fn2<Tensor, Programs.Mode, Tensor>) Programs::switchOnEnum, () -> new Object[] {randn(3, 4), Programs.Mode.TRANSPOSE}, 1,
                "ID_MATCH: L['mode'] is Mode.TRANSPOSE"));
        cs.add(c("switchOnString", (Fn1<Tensor, Tensor>) Programs::switchOnString, x34, 1));
        cs.add(c("validateThenRun", (Fn1<Tensor, Tensor>) Programs::validateThenRun, x34, 1));
        cs.add(c("patternSwitchInt", (Fn2<Object, Tensor, Tensor>) Programs::patternSwitch, () -> new Object[] {1, randn(3, 4)}, 1, "EQUALS_MATCH: L['o'] == 1"));
        cs.add(c("patternSwitchString", (Fn2<Object, Tensor, Tensor>) Programs::patternSwitch, () -> new Object[] {"t", randn(3, 4)}, 1));
        cs.add(c("recordPattern", (Fn1<Object, Tensor>) Programs::recordPattern, () -> new Object[] {new Programs.Pair(randn(2, 3), randn(1, 3))}, 1));
        cs.add(c("arrowEnumSwitch", (Fn2<Tensor, Programs.Mode, Tensor>) Programs::arrowEnumSwitch, () -> new Object[] {randn(3, 4), Programs.Mode.FLATTEN}, 1));
        // loops
        cs.add(c("loopUnsqueeze", (Fn1<Tensor, Tensor>) Programs::loopUnsqueeze, x34, 4));
        cs.add(c("loopN", (Fn2<Tensor, Integer, Tensor>) Programs::loopN, () -> new Object[] {randn(3, 4), 3}, 3, "INT_RANGE: L['n'] == 3"));
        cs.add(c("whileLoop", (Fn1<Tensor, Tensor>) Programs::whileLoop, () -> new Object[] {randn(3)}, 3));
        cs.add(c("nestedLoops", (Fn1<Tensor, Tensor>) Programs::nestedLoops, x34, 6));
        cs.add(c("loopSelectRows", (Fn1<Tensor, Tensor>) Programs::loopSelectRows, x34, 4));
        cs.add(c("loopWithBreak", (Fn1<Tensor, Tensor>) Programs::loopWithBreak, x34, 2));
        // helper calls
        cs.add(c("helperStatic", (Fn1<Tensor, Tensor>) Programs::helperStatic, x34, 2));
        cs.add(c("privateHelper", (Fn1<Tensor, Tensor>) Programs::privateHelper, x34, 4));
        cs.add(c("recursiveHelper", (Fn1<Tensor, Tensor>) Programs::recursiveHelper, x34, 3));
        cs.add(c("genericHelper", (Fn1<Tensor, Tensor>) Programs::genericHelper, x34, 1));
        cs.add(c("helperInOtherClass", (Fn2<Tensor, Tensor, Tensor>) Programs::helperInOtherClass, () -> new Object[] {randn(2, 3), randn(4, 3)}, 1));
        // lists
        cs.add(c("listOfSplit", (Fn1<Tensor, Tensor>) Programs::listOfSplit, () -> new Object[] {randn(6, 3)}, 5));
        cs.add(c("chunkStack", (Fn1<Tensor, Tensor>) Programs::chunkStack, x34, 4));
        cs.add(c("catList", (Fn1<List<Tensor>, Tensor>) Programs::catList, () -> new Object[] {List.of(randn(2, 3), randn(2, 3), randn(1, 3))}, 1,
                "LENGTH_CHECK: len(L['xs']) == 3", "TENSOR_MATCH: L['xs'][2] f32[1, 3]"));
        cs.add(c("forEachList", (Fn1<List<Tensor>, List<Tensor>>) Programs::forEachList, () -> new Object[] {List.of(randn(2, 3), randn(4, 1))}, 2));
        cs.add(c("listSetAndSize", (Fn1<Tensor, Tensor>) Programs::listSetAndSize, x34, 4));
        cs.add(c("shapeAsList", (Fn1<Tensor, List<Integer>>) Programs::shapeAsList, x34, 0));
        cs.add(c("permuteFromIntegerList", (Fn1<Tensor, Tensor>) Programs::permuteFromIntegerList, x34, 1));
        cs.add(c("nCopiesCat", (Fn1<Tensor, Tensor>) Programs::nCopiesCat, x34, 2));
        cs.add(c("forEachLambda", (Fn1<List<Tensor>, Tensor>) Programs::forEachLambda, () -> new Object[] {List.of(randn(2, 3), randn(2, 3))}, 3));
        cs.add(c("toArrayAndIndexOf", (Fn1<Tensor, Tensor>) Programs::toArrayAndIndexOf, x34, 4));
        cs.add(c("namedOutputs", (Fn1<Tensor, java.util.Map<String, Tensor>>) Programs::namedOutputs, x34, 2));
        cs.add(c("mapLookup", (Fn1<Tensor, Tensor>) Programs::mapLookup, x34, 5));
        // arrays
        cs.add(c("arraycopyShape", (Fn1<Tensor, Tensor>) Programs::arraycopyShape, x34, 1));
        cs.add(c("arrayInput", (Fn1<Tensor[], Tensor>) Programs::arrayInput, () -> new Object[] {new Tensor[] {randn(2, 2), randn(2, 2), randn(2, 2)}}, 1,
                "LENGTH_CHECK: len(L['xs']) == 3"));
        cs.add(c("intArrayShape", (Fn2<Tensor, int[], Tensor>) Programs::intArrayShape, () -> new Object[] {randn(3, 4), new int[] {4, 3}}, 1,
                "EQUALS_MATCH: L['shape'][0] == 4", "EQUALS_MATCH: L['shape'][1] == 3"));
        cs.add(c("localIntArray", (Fn1<Tensor, Tensor>) Programs::localIntArray, x34, 1));
        cs.add(c("returnArray", (Fn1<Tensor, Tensor[]>) Programs::returnArray, x34, 1));
        cs.add(c("reverseDimsArray", (Fn1<Tensor, Tensor>) Programs::reverseDimsArray, x234, 1));
        // records
        cs.add(c("recordInput", (Fn1<Programs.Pair, Tensor>) Programs::recordInput, () -> new Object[] {new Programs.Pair(randn(2, 3), randn(1, 3))}, 1,
                "TYPE_MATCH: type(L['p']) is dev.ember.dynamo.corpus.Programs$Pair", "TENSOR_MATCH: L['p'].a f32[2, 3]"));
        cs.add(c("lateInput", (Fn1<Programs.Pair, Tensor>) Programs::lateInput, () -> new Object[] {new Programs.Pair(randn(3, 2), randn(1, 3))}, 2));
        cs.add(c("recordReturn", (Fn1<Tensor, Programs.Pair>) Programs::recordReturn, x34, 2));
        cs.add(c("recordLocal", (Fn1<Tensor, Tensor>) Programs::recordLocal, x34, 2));
        cs.add(c("recordConfig", (Fn2<Programs.Cfg, Tensor, Tensor>) Programs::recordConfig, () -> new Object[] {new Programs.Cfg(0, true), randn(3, 4)}, 2,
                "EQUALS_MATCH: L['c'].dim == 0", "EQUALS_MATCH: L['c'].transpose == true"));
        // lambdas and method references
        cs.add(c("lambdaLocal", (Fn1<Tensor, Tensor>) Programs::lambdaLocal, x34, 2));
        cs.add(c("methodRefLocal", (Fn1<Tensor, Tensor>) Programs::methodRefLocal, x34, 1));
        cs.add(c("lambdaCapturingInt", (Fn2<Tensor, Integer, Tensor>) Programs::lambdaCapturingInt, () -> new Object[] {randn(3, 4), 1}, 1));
        cs.add(c("higherOrder", (Fn1<Tensor, Tensor>) Programs::higherOrder, x34, 2));
        cs.add(c("fnArgument", (Fn2<Fn1<Tensor, Tensor>, Tensor, Tensor>) Programs::fnArgument,
                () -> new Object[] {(Fn1<Tensor, Tensor>) Tensor::t, randn(3, 4)}, 2));
        cs.add(c("staticMethodRefLocal", (Fn1<Tensor, Tensor>) Programs::staticMethodRefLocal, x34, 3));
        Tensor w = randn(1, 4);
        cs.add(c("capturedTensor", (Fn1<Tensor, Tensor>) x -> Tensor.cat(List.of(x, w), 0), x34, 1, "TENSOR_MATCH: L['w'] f32[1, 4]"));
        int d = 1;
        cs.add(c("capturedInt", (Fn1<Tensor, Tensor>) x -> x.unsqueeze(d), x34, 1, "EQUALS_MATCH: L['d'] == 1"));
        String mode = "t";
        cs.add(c("capturedString", (Fn1<Tensor, Tensor>) x -> mode.equals("t") ? x.t() : x, x34, 1, "EQUALS_MATCH: L['mode'] == \"t\""));
        // instance methods
        Blocks.Block block = new Blocks.Block(2, randn(1, 4));
        cs.add(c("boundMethodRef", (Fn1<Tensor, Tensor>) block::forward, x34, 3, "EQUALS_MATCH: L['self'].dims == 2", "TENSOR_MATCH: L['self'].bias f32[1, 4]"));
        cs.add(c("unboundMethodRef", (Fn2<Blocks.Block, Tensor, Tensor>) Blocks.Block::forward, () -> new Object[] {block, randn(3, 4)}, 3,
                "TYPE_MATCH: type(L['self']) is dev.ember.dynamo.corpus.Blocks$Block"));
        cs.add(c("privateAndFinalMethods", (Fn1<Tensor, Tensor>) block::twice, x34, 3));
        cs.add(c("virtualDispatch", (Fn2<Blocks.Op, Tensor, Tensor>) Blocks::dispatch, () -> new Object[] {new Blocks.Transpose(), randn(3, 4)}, 2,
                "TYPE_MATCH: type(L['op']) is dev.ember.dynamo.corpus.Blocks$Transpose"));
        cs.add(c("interfaceDefaultMethod", (Fn2<Blocks.Shaper, Tensor, Tensor>) Blocks::defaultMethod, () -> new Object[] {new Blocks.Flattener(1), randn(2, 3, 4)}, 2));
        // strings, Math, boxing, constants
        cs.add(c("describeShape", (Fn1<Tensor, String>) Programs::describeShape, x34, 0));
        cs.add(c("mathMinNarrow", (Fn1<Tensor, Tensor>) Programs::mathMinNarrow, x34, 1));
        cs.add(c("mathSqrtFull", (Fn1<Tensor, Tensor>) Programs::mathSqrtFull, () -> new Object[] {randn(2, 8)}, 1));
        cs.add(c("longArithmetic", (Fn1<Tensor, Tensor>) Programs::longArithmetic, x34, 1));
        cs.add(c("doubleToIntDims", (Fn1<Tensor, Tensor>) Programs::doubleToIntDims, x34, 1));
        cs.add(c("rank", (Fn1<Tensor, Integer>) Programs::rank, x34, 0));
        cs.add(c("contiguousFlag", (Fn1<Tensor, Boolean>) Programs::contiguousFlag, x34, 0));
        cs.add(c("staticFinalConstant", (Fn1<Tensor, Tensor>) Programs::staticFinalConstant, x34, 1));
        cs.add(c("staticMutableConfig", (Fn1<Tensor, Tensor>) Programs::staticMutableConfig, x34, 1, "EQUALS_MATCH: G['Config.dim'] == 0"));
        cs.add(c("integerParse", (Fn1<Tensor, Tensor>) Programs::integerParse, x34, 1));
        cs.add(c("charArithmetic", (Fn1<Tensor, Tensor>) Programs::charArithmetic, x34, 1));
        // creation ops, dtypes, in place
        cs.add(c("zerosOfShape", (Fn1<Tensor, Tensor>) Programs::zerosOfShape, x34, 2));
        cs.add(c("likes", (Fn1<Tensor, Tensor>) Programs::likes, x34, 3));
        cs.add(c("arangeOfSize", (Fn1<Tensor, Tensor>) Programs::arangeOfSize, x34, 1));
        cs.add(c("toDoubleClone", (Fn1<Tensor, Tensor>) Programs::toDoubleClone, x34, 2));
        cs.add(c("toSameDtype", (Fn1<Tensor, Tensor>) Programs::toSameDtype, x34, 0));
        cs.add(c("copyIntoFresh", (Fn1<Tensor, Tensor>) Programs::copyIntoFresh, x34, 2));
        cs.add(c("copyIntoInput", (Fn2<Tensor, Tensor, Tensor>) Programs::copyIntoInput, () -> new Object[] {randn(3, 4), randn(1, 4)}, 1));
        cs.add(c("seededRandn", (Fn1<Tensor, Tensor>) Programs::seededRandn, x34, 1));
        cs.add(c("eyeOfSize", (Fn1<Tensor, Tensor>) Programs::eyeOfSize, x34, 1));
        // a tensor literal is a fresh copy of a graph constant each call (one op, as Dynamo's torch.tensor call node)
        cs.add(c("constantRow", (Fn1<Tensor, Tensor>) Programs::constantRow, x34, 2));
        cs.add(c("nestedLiteral", (Fn1<Tensor, Tensor>) Programs::nestedLiteral, () -> new Object[] {randn(2, 2)}, 3));
        cs.add(c("rowStats", (Fn1<Tensor, Tensor>) Programs::rowStats, x34, 4));
        cs.add(c("softmaxOverLastDim", (Fn1<Tensor, Tensor>) Programs::softmaxOverLastDim, x34, 2));
        cs.add(c("argmaxPerRow", (Fn1<Tensor, Tensor>) Programs::argmaxPerRow, x34, 1));
        cs.add(c("float64Input", (Fn1<Tensor, Tensor>) Programs::ifOnDtype, () -> new Object[] {Tensor.randn(3, 4).to(DType.FLOAT64)}, 0));
        return cs;
    }

    @AfterEach
    void reset() { Ember.reset(); }

    @TestFactory
    Stream<DynamicTest> corpus() {
        return cases().stream().map(k -> DynamicTest.dynamicTest(k.name(), () -> check(k)));
    }

    private static void check(Case k) {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc).fullgraph(true);
        Function<Object[], Object> compiled = Compiled.compile(k.fn(), opts);
        Object[] eagerIn = k.inputs().get(), compiledIn = k.inputs().get();
        Tensor.manualSeed(99);
        Object expected = Compiled.call(k.fn(), eagerIn);
        Tensor.manualSeed(99);
        Object actual = compiled.apply(compiledIn);
        Compiled.assertSame(expected, actual, k.name());
        Compiled.assertSame(List.of(eagerIn), List.of(compiledIn), k.name() + " inputs after the call");
        assertEquals(k.ops() == 0 ? 0 : 1, cc.frameCount(), k.name() + ": frames");
        assertEquals(k.ops(), cc.opCount(), k.name() + ": ops");
        CompiledFrame frame = frameOf(opts);
        List<String> guards = frame.entries().getFirst().guards().guards().stream().map(Guard::describe).toList();
        for (String g : k.guards()) {
            assertTrue(guards.stream().anyMatch(s -> s.startsWith(g)), k.name() + ": expected a guard starting with " + g + " in\n" + String.join("\n", guards));
        }
        compiled.apply(k.inputs().get());
        assertEquals(1, frame.entries().size(), k.name() + ": a second call with the same shapes must hit the cache");
    }

    static CompiledFrame frameOf(Options opts) {
        // Resume methods (hidden classes) have frames of their own with the same options; this is the user's method.
        return FrameRegistry.frames().stream().filter(f -> !f.method().owner().isHidden())
                .filter(f -> f.options() == opts || f.options().equals(opts)).findFirst().orElseThrow();
    }

    static CacheEntry newest(Options opts) { return frameOf(opts).entries().getFirst(); }
}
