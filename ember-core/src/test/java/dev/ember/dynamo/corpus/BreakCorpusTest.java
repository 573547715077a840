package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.dynamo.ResumeCodegen;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Programs with graph breaks: explain reports the expected graphs, breaks and GB ids; the compiled
 * function returns what eager returns and leaves the inputs (objects, lists, arrays, tensors
 * mutated in place) in the same state; every generated resume class passes the verifier.
 */
class BreakCorpusTest {

    record Case(String name, Object fn, Supplier<Object[]> inputs, int graphs, List<String> breaks) {}

    private static Supplier<Object[]> seeded(Supplier<Object[]> s) {
        return () -> {
            Tensor.manualSeed(11);
            return s.get();
        };
    }

    private static Case c(String name, Object fn, Supplier<Object[]> in, int graphs, String... breaks) {
        return new Case(name, fn, seeded(in), graphs, List.of(breaks));
    }

    static List<Case> cases() {
        Supplier<Object[]> x34 = () -> new Object[] {Tensor.randn(3, 4)};
        List<Case> cs = new ArrayList<>();
        cs.add(c("printsShape", (Fn2<Tensor, Tensor, Tensor>) BreakPrograms::printsShape, () -> new Object[] {Tensor.randn(3, 4), Tensor.randn(4, 5)}, 2, "GB0005"));
        cs.add(c("explicitBetween", (Fn1<Tensor, Tensor>) BreakPrograms::explicitBetween, x34, 2, "GB0016"));
        cs.add(c("twoBreaks", (Fn1<Tensor, Tensor>) BreakPrograms::twoBreaks, x34, 3, "GB0016", "GB0016"));
        cs.add(c("itemDecides", (Fn1<Tensor, Tensor>) BreakPrograms::itemDecides, x34, 2, "GB0001"));
        cs.add(c("itemThenMore", (Fn1<Tensor, Tensor>) BreakPrograms::itemThenMore, x34, 2, "GB0001"));
        cs.add(c("asBooleanBranch", (Fn1<Tensor, Tensor>) BreakPrograms::asBooleanBranch, x34, 2, "GB0002"));
        cs.add(c("longItemIndex", (Fn1<Tensor, Tensor>) BreakPrograms::longItemIndex, x34, 2, "GB0001"));
        cs.add(c("toArrayLength", (Fn1<Tensor, Tensor>) BreakPrograms::toArrayLength, x34, 2, "GB0001"));
        cs.add(c("getElement", (Fn1<Tensor, Tensor>) BreakPrograms::getElement, x34, 1, "GB0001"));
        cs.add(c("appendsToWriter", (Fn2<Tensor, java.io.StringWriter, Tensor>) BreakPrograms::appendsToWriter,
                () -> new Object[] {Tensor.randn(3, 4), new java.io.StringWriter()}, 2, "GB0003", "GB0003"));
        cs.add(c("readsClockBetween", (Fn1<Tensor, Tensor>) BreakPrograms::readsClockBetween, x34, 2, "GB0003"));
        cs.add(c("synchronizedBlock", (Fn1<Tensor, Tensor>) BreakPrograms::synchronizedBlock, x34, 1, "GB0009"));
        cs.add(c("stringOfTensor", (Fn1<Tensor, Tensor>) BreakPrograms::stringOfTensor, () -> new Object[] {Tensor.randn(4, 4)}, 2, "GB0006"));
        // the helper that breaks has a frame of its own, as in Dynamo: matmul | noisy's softmax | sum
        // (the print breaks twice: inlined into the caller, then in noisy's own frame)
        cs.add(c("helperPrints", (Fn1<Tensor, Tensor>) BreakPrograms::helperPrints, x34, 3, "GB0005", "GB0005"));
        cs.add(c("breakWithOperandOnStack", (Fn1<Tensor, Tensor>) BreakPrograms::breakWithOperandOnStack, () -> new Object[] {Tensor.randn(3, 3)}, 3, "GB0005", "GB0005"));
        cs.add(c("breakInLoop", (Fn1<Tensor, Tensor>) BreakPrograms::breakInLoop, x34, 4, "GB0005", "GB0005", "GB0005"));
        cs.add(c("wideLocals", (Fn3<Tensor, Double, Long, Tensor>) BreakPrograms::wideLocals, () -> new Object[] {Tensor.randn(3, 4), 2.0, 3L}, 2, "GB0016"));
        cs.add(c("nullLocal", (Fn1<Tensor, Tensor>) BreakPrograms::nullLocal, x34, 2, "GB0016"));
        cs.add(c("privateAfterBreak", (Fn1<Tensor, Tensor>) BreakPrograms::privateAfterBreak, x34, 2, "GB0016"));
        cs.add(c("lambdaAfterBreak", (Fn1<Tensor, Tensor>) BreakPrograms::lambdaAfterBreak, x34, 2, "GB0016"));
        cs.add(c("tryCatchAround", (Fn1<Tensor, Tensor>) BreakPrograms::tryCatchAround, x34, 2, "GB0016"));
        cs.add(c("switchAfterBreak0", (Fn2<Tensor, Integer, Tensor>) BreakPrograms::switchAfterBreak, () -> new Object[] {Tensor.randn(3, 4), 0}, 2, "GB0016"));
        cs.add(c("switchAfterBreak2", (Fn2<Tensor, Integer, Tensor>) BreakPrograms::switchAfterBreak, () -> new Object[] {Tensor.randn(4, 4), 2}, 2, "GB0016"));
        cs.add(c("inplaceOnInputThenBreak", (Fn2<Tensor, Tensor, Tensor>) BreakPrograms::inplaceOnInputThenBreak,
                () -> new Object[] {Tensor.randn(4, 3), Tensor.randn(3, 4)}, 2, "GB0005"));
        cs.add(c("dtypeAcrossBreak", (Fn1<Tensor, Tensor>) BreakPrograms::dtypeAcrossBreak, x34, 2, "GB0016"));
        cs.add(c("listAcrossBreak", (Fn1<Tensor, List<Tensor>>) BreakPrograms::listAcrossBreak, x34, 2, "GB0016"));
        cs.add(c("arrayAcrossBreak", (Fn1<Tensor, Tensor>) BreakPrograms::arrayAcrossBreak, x34, 2, "GB0016"));
        cs.add(c("catAfterPrint", (Fn2<Tensor, Tensor, Tensor>) BreakPrograms::catAfterPrint, () -> new Object[] {Tensor.randn(2, 4), Tensor.randn(3, 4)}, 2, "GB0005"));
        cs.add(c("meanStdBreak", (Fn1<Tensor, Tensor>) BreakPrograms::meanStdBreak, x34, 2, "GB0001"));
        cs.add(c("printOnlyAtEnd", (Fn1<Tensor, Tensor>) BreakPrograms::printOnlyAtEnd, x34, 1, "GB0005"));
        cs.add(c("printOnlyAtStart", (Fn1<Tensor, Tensor>) BreakPrograms::printOnlyAtStart, x34, 1, "GB0005"));
        // matmul before the first call; noisy's softmax in its own frame, compiled once and hit by the second call
        cs.add(c("breakInHelperTwice", (Fn1<Tensor, Tensor>) BreakPrograms::breakInHelperTwice, x34, 2, "GB0005", "GB0005", "GB0005"));
        cs.add(c("returnsItem", (Fn1<Tensor, Double>) BreakPrograms::returnsItem, x34, 1, "GB0001"));
        cs.add(c("returnsIntAfterBreak", (Fn1<Tensor, Integer>) BreakPrograms::returnsIntAfterBreak, x34, 1, "GB0016"));
        cs.add(c("viewAfterBreak", (Fn1<Tensor, Tensor>) BreakPrograms::viewAfterBreak, x34, 2, "GB0016"));
        cs.add(c("reshapeBeforeItem", (Fn1<Tensor, Tensor>) BreakPrograms::reshapeBeforeItem, x34, 3, "GB0001", "GB0001"));
        cs.add(c("argmaxBranches", (Fn1<Tensor, Tensor>) BreakPrograms::argmaxBranches, x34, 2, "GB0001"));
        cs.add(c("stackAfterBreak", (Fn1<Tensor, Tensor>) BreakPrograms::stackAfterBreak, x34, 2, "GB0016"));
        cs.add(c("logSoftmaxAcross", (Fn1<Tensor, Tensor>) BreakPrograms::logSoftmaxAcross, x34, 2, "GB0005"));
        cs.add(c("varThenBranch", (Fn1<Tensor, Tensor>) BreakPrograms::varThenBranch, x34, 2, "GB0001"));
        cs.add(c("unknownLibraryCall", (Fn1<Tensor, Tensor>) BreakPrograms::unknownLibraryCall, x34, 2, "GB0003"));
        cs.add(c("mutatesAroundBreak", (Fn2<Tensor, BreakPrograms.Recorder, Tensor>) BreakPrograms::mutatesAroundBreak,
                () -> new Object[] {Tensor.randn(3, 4), new BreakPrograms.Recorder()}, 2, "GB0003", "GB0003"));
        cs.add(c("callsDisabled", (Fn1<Tensor, Tensor>) BreakPrograms::callsDisabled, x34, 2, "GB0020"));
        // the matmul is one graph, then the exception is made again and thrown (before capture10: 0 graphs, the whole call ran eagerly)
        cs.add(c("throwsAfterGraph", (Fn1<Tensor, Tensor>) BreakPrograms::throwsAfterGraph, x34, 1, "GB0008"));
        return cs;
    }

    /** The corpus is about partial graphs: prints break here, as they do with reorderable logging off. */
    static final Options BREAKING_PRINTS = Options.defaults().reorderableLogging(false);

    @AfterAll
    static void reset() { Ember.reset(); }

    @TestFactory
    Stream<DynamicTest> explainCountsGraphsAndBreaks() {
        return cases().stream().map(k -> DynamicTest.dynamicTest(k.name(), () -> {
            ExplainOutput e;
            try {
                e = explain(k.fn()).apply(k.inputs().get());
            } catch (IllegalStateException thrown) {
                return; // throwsAfterGraph: explain runs the function, which throws as eager does (checked below)
            }
            assertEquals(k.graphs(), e.graphCount(), k.name() + "\n" + e);
            assertEquals(k.breaks().size(), e.graphBreakCount(), k.name() + "\n" + e);
            assertEquals(k.breaks(), e.breakReasons().stream().map(ExplainOutput.BreakReason::gbId).toList(), k.name() + "\n" + e);
        }));
    }

    @TestFactory
    Stream<DynamicTest> resultsAndStateEqualEager() {
        return cases().stream().map(k -> DynamicTest.dynamicTest(k.name(), () -> {
            CompileCounter cc = new CompileCounter();
            Function<Object[], Object> f = Compiled.compile(k.fn(), Options.backend(cc).reorderableLogging(false));
            for (int call = 0; call < 2; call++) {
                Object[] eagerIn = k.inputs().get(), compiledIn = k.inputs().get();
                Object expected, actual;
                try {
                    expected = Compiled.call(k.fn(), eagerIn);
                } catch (RuntimeException ex) {
                    RuntimeException got = assertThrows(RuntimeException.class, () -> f.apply(compiledIn));
                    assertEquals(ex.getClass(), got.getClass());
                    assertEquals(ex.getMessage(), got.getMessage());
                    continue;
                }
                actual = f.apply(compiledIn);
                Compiled.assertSame(expected, actual, k.name());
                for (int i = 0; i < eagerIn.length; i++) assertSameState(eagerIn[i], compiledIn[i], k.name() + " input " + i);
            }
            assertEquals(k.graphs(), cc.frameCount(), k.name() + ": the second call with equal inputs compiles nothing new");
        }));
    }

    @Test
    void everyGeneratedClassPassesTheVerifier() {
        for (Case k : cases()) {
            try {
                Compiled.compile(k.fn(), BREAKING_PRINTS).apply(k.inputs().get());
            } catch (IllegalStateException expected) {
                // throwsAfterGraph
            }
        }
        var generated = ResumeCodegen.generatedClasses();
        assertTrue(generated.size() >= 30, "resume classes generated: " + generated.size());
        ClassHierarchyResolver resolver = ClassHierarchyResolver.defaultResolver()
                .orElse(ClassHierarchyResolver.ofClassLoading(BreakCorpusTest.class.getClassLoader()));
        generated.forEach((name, bytes) -> {
            var errors = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver)).verify(bytes);
            assertTrue(errors.isEmpty(), name + ": " + errors);
        });
    }

    private static void assertSameState(Object expected, Object actual, String context) {
        if (expected instanceof BreakPrograms.Recorder e && actual instanceof BreakPrograms.Recorder a) {
            assertEquals(e.events, a.events, context + " events");
            assertEquals(e.sink.toString(), a.sink.toString(), context + " sink");
            assertEquals(e.count, a.count, context + " count");
            assertTrue(Arrays.equals(e.scales, a.scales), context + " scales");
            Compiled.assertSame(e.last, a.last, context + " last");
        } else if (expected instanceof java.io.StringWriter e) {
            assertEquals(e.toString(), actual.toString(), context);
        } else if (expected instanceof Tensor) {
            Compiled.assertSame(expected, actual, context);
        }
    }

    @SuppressWarnings("unchecked")
    private static Function<Object[], ExplainOutput> explain(Object fn) {
        return args -> Ember.explain(fn, BREAKING_PRINTS).with(args);
    }
}
