package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What capture models since its second round, each compared with eager call by call
 * ({@link Compiled#assertCallsAlike}): tensors as keys of maps and elements of sets (by identity,
 * as PyTorch hashes a tensor by id), ArrayDeque and the Deque methods (test_functions.py::test_deque),
 * StringBuffer, subclasses of HashMap/LinkedHashMap/HashSet made in the function, copy constructors
 * from traced and user collections, and a Module made in the function. Where the trace cannot know
 * what eager does (a HashMap of tensors iterated), the graph breaks with a reason that says why.
 */
class CaptureGapsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    /** Eager and compiled called alike, on equal inputs (each list made under the same seed). */
    private static CompileCounter check(Object fn, Options options, Supplier<List<Object[]>> calls) {
        CompileCounter cc = new CompileCounter();
        Supplier<List<Object[]>> seeded = () -> {
            Tensor.manualSeed(0);
            return calls.get();
        };
        Compiled.assertCallsAlike(fn, Compiled.compile(fn, options.withBackend(cc)), seeded.get(), seeded.get(), "");
        return cc;
    }

    /** Captured whole, in one graph, on two calls with equal-shaped inputs. */
    private static CompileCounter whole(Object fn, Supplier<Object[]> args) {
        CompileCounter cc = check(fn, Options.fullgraph(), () -> List.of(args.get(), args.get()));
        assertEquals(1, cc.frameCount(), "frames");
        return cc;
    }

    /** Compiled (breaks allowed) equals eager; returns the reasons of the breaks {@code explain} reports. */
    private static List<String> breaks(Object fn, Supplier<Object[]> args, Object... explainArgs) {
        check(fn, Options.defaults(), () -> List.of(args.get(), args.get()));
        ExplainOutput e = switch (fn) {
            case Fn1<?, ?> f -> Ember.explain(f).with(explainArgs);
            case Fn2<?, ?, ?> f -> Ember.explain(f).with(explainArgs);
            default -> throw new IllegalArgumentException();
        };
        return e.breakReasons().stream().map(ExplainOutput.BreakReason::reason).toList();
    }

    private static Object[] args(Object... a) { return a; }

    private static Tensor t() { return Tensor.randn(3, 4); }

    // ------------------------------------------------------------------ identity keys

    @Test
    void aLinkedHashMapKeyedByTensorsIsTracedWholeAndReturnedInInsertionOrder() {
        whole((Fn2<Tensor, Tensor, Map<Tensor, Tensor>>) CaptureGapsPrograms::linkedMapOfTensorKeys, () -> args(t(), t()));
    }

    @Test
    void aHashSetOfTensorsUsedForMembershipIsTracedWhole() {
        whole((Fn2<Tensor, Tensor, Tensor>) CaptureGapsPrograms::hashSetOfTensors, () -> args(t(), t()));
    }

    @Test
    void aLinkedHashSetDedupsTensorsByIdentity() {
        whole((Fn1<List<Tensor>, Tensor>) CaptureGapsPrograms::linkedSetDedups, () -> {
            Tensor a = t(), b = t();
            return args(List.of(a, b, a, b, a));
        });
    }

    @Test
    void aHashSetOfTensorsIsReturned() {
        whole((Fn1<Tensor, Set<Tensor>>) CaptureGapsPrograms::returnsHashSetOfTensors, () -> args(t()));
    }

    @Test
    void aMapOfTensorKeysPassedInIsTracedAndGetsTheChanges() {
        // the keys are guarded to be the caller's objects (DICT_KEYS_MATCH, as Dynamo guards a dict's keys): another map recompiles
        CompileCounter cc = check((Fn2<Map<Tensor, Double>, Tensor, Tensor>) CaptureGapsPrograms::inputMapOfTensorKeys, Options.fullgraph(), () -> {
            Map<Tensor, Double> m = new java.util.LinkedHashMap<>();
            m.put(t(), 0.5);
            m.put(t(), 2.0);
            return List.of(args(m, t()), args(new java.util.HashMap<>(Map.of(t(), 3.0)), t()));
        });
        assertEquals(2, cc.frameCount());
    }

    @Test
    void aSetOfTensorsPassedInAnswersMembershipByIdentity() {
        Fn3<Set<Tensor>, Tensor, Tensor, Tensor> fn = CaptureGapsPrograms::inputSetOfTensors;
        CompileCounter cc = check(fn, Options.fullgraph(), () -> {
            Tensor p = t(), q = t(), g = t();
            Set<Tensor> frozen = new java.util.HashSet<>(List.of(p));
            return List.of(args(frozen, p, g), args(frozen, q, g));
        });
        // p is the set's key (the same object: one graph input, SameObject-guarded); q is not, which recompiles. The first call's
        // path returns p itself, with no op and so no graph: one frame in all
        assertEquals(1, cc.frameCount());
    }

    @Test
    void iteratingAHashMapOfTensorsBreaksTheGraphBecauseItsOrderIsIdentityHashCodes() {
        Tensor x = t(), y = t();
        List<String> reasons = breaks((Fn2<Tensor, Tensor, Tensor>) CaptureGapsPrograms::hashMapOfTensorKeysIterated, () -> args(t(), t()), x, y);
        assertTrue(reasons.stream().anyMatch(r -> r.contains("identity hash codes")), reasons.toString());
    }

    @Test
    void aTensorKeyInATreeMapThrowsAsEager() {
        check((Fn1<Tensor, Tensor>) CaptureGapsPrograms::treeMapOfTensorKeys, Options.defaults(), () -> List.<Object[]>of(args(t()), args(t())));
    }

    @Test
    void aRecordKeyIsEqualByItsComponentsWithoutABreak() {
        // javac's equals and hashCode compare the components, whose keys the trace knows (RecordMapKeyTest)
        List<String> reasons = breaks((Fn1<Tensor, Tensor>) CaptureGapsPrograms::recordKeys, () -> args(t()), t());
        assertTrue(reasons.isEmpty(), reasons.toString());
    }

    @Test
    void containsWithAnEqualsOfItsOwnIsNotIdentity() {
        check((Fn1<Tensor, Tensor>) CaptureGapsPrograms::containsRecord, Options.defaults(), () -> List.<Object[]>of(args(t())));
    }

    // ------------------------------------------------------------------ deques

    @Test
    void dequeAsPyTorchTestsIt() { // test_functions.py::test_deque
        whole((Fn2<Tensor, Tensor, List<Object>>) CaptureGapsPrograms::deque, () -> args(t(), t()));
    }

    @Test
    void dequeAsStackAndQueue() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::dequeStackAndQueue, () -> args(t()));
    }

    @Test
    void aDequePassedInGetsTheChanges() {
        whole((Fn2<ArrayDeque<Tensor>, Tensor, Tensor>) CaptureGapsPrograms::dequeArgument, () -> args(new ArrayDeque<>(List.of(t(), t())), t()));
    }

    @Test
    void aLinkedListIsADequeToo() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::slidingWindow, () -> args(t()));
    }

    @Test
    void anEmptyDequeThrowsNoSuchElementWhichTheFunctionCatches() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::emptyDequeThrows, () -> args(t()));
    }

    @Test
    void aNullIntoAnArrayDequeThrowsAsEager() {
        check((Fn1<Tensor, Tensor>) CaptureGapsPrograms::nullIntoDeque, Options.defaults(), () -> List.<Object[]>of(args(t())));
    }

    @Test
    void aDequeIsReturnedAsAnArrayDeque() {
        whole((Fn1<Tensor, ArrayDeque<Tensor>>) CaptureGapsPrograms::returnsDeque, () -> args(t()));
    }

    @Test
    void instanceofAnswersForADequeAndALinkedList() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::dequeInstanceOf, () -> args(t()));
    }

    // ------------------------------------------------------------------ StringBuffer

    @Test
    void aStringBufferIsTracedAsAStringBuilder() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::stringBuffer, () -> args(t()));
        CompileCounter none = check((Fn1<Tensor, StringBuffer>) CaptureGapsPrograms::returnsStringBuffer, Options.fullgraph(), () -> List.<Object[]>of(args(t())));
        assertEquals(0, none.frameCount(), "no tensor op: no graph, and no break");
        CompileCounter cc = check((Fn2<StringBuffer, Tensor, Tensor>) CaptureGapsPrograms::appendsToStringBuffer, Options.defaults(),
                () -> List.of(args(new StringBuffer("log: "), t()), args(new StringBuffer("other: "), t())));
        assertEquals(1, cc.frameCount(), "appending reads nothing of the caller's text: no recompile");
    }

    // ------------------------------------------------------------------ container subclasses and copy constructors

    @Test
    void aLinkedHashMapSubclassMadeInTheFunctionIsTheContainerWithItsMethods() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::registry, () -> args(t()));
        whole((Fn1<Tensor, Map<String, Tensor>>) CaptureGapsPrograms::returnsRegistry, () -> args(t()));
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::namesSet, () -> args(t()));
    }

    @Test
    void aSubclassOverridingAJdkMethodBreaksTheGraph() {
        List<String> reasons = breaks((Fn1<Tensor, Tensor>) CaptureGapsPrograms::lru, () -> args(t()), t());
        assertTrue(reasons.stream().anyMatch(r -> r.contains("removeEldestEntry")), reasons.toString());
    }

    @Test
    void copyConstructorsOfTracedContainers() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::copyConstructors, () -> args(t()));
    }

    @Test
    void copyConstructorsOfAUserCollectionTraceItsIterator() {
        whole((Fn2<CaptureGapsPrograms.Range, Tensor, Tensor>) CaptureGapsPrograms::copiesUserCollection, () -> args(new CaptureGapsPrograms.Range(4), t()));
    }

    @Test
    void aListClassOfTheUsersPassedInIsNotModelledAsArrayList() {
        // it was traced as an ArrayList whose elements were graph inputs read through get (doubled), while eager's for-each
        // reads them through ArrayList's iterator (not doubled): a wrong answer. Now its methods are its own, and the JDK's break
        check((Fn1<List<Tensor>, Tensor>) CaptureGapsPrograms::userListSubclass, Options.defaults(),
                () -> List.<Object[]>of(args(new CaptureGapsPrograms.Doubling(List.of(t(), t())))));
    }

    // ------------------------------------------------------------------ modules made in the function

    @Test
    void aModuleMadeInTheFunctionIsCalled() {
        whole((Fn1<Tensor, Tensor>) CaptureGapsPrograms::moduleMadeInFunction, () -> args(t()));
    }

    @Test
    void aModuleMadeInTheFunctionLivesAcrossABreak() {
        CompileCounter cc = check((Fn1<Tensor, Tensor>) CaptureGapsPrograms::moduleAcrossBreak, Options.defaults(), () -> List.<Object[]>of(args(t()), args(t())));
        assertEquals(2, cc.frameCount(), "both sides of the break compiled, nothing eager");
    }

    @Test
    void aLayerWithNewParametersMadeInTheFunctionRunsEagerlyWithEagersResult() {
        List<String> reasons = breaks((Fn1<Tensor, Tensor>) CaptureGapsPrograms::linearMadeInFunction, () -> args(t()), t());
        assertTrue(reasons.stream().anyMatch(r -> r.contains("Parameter") || r.contains("Tensor")), reasons.toString());
    }
}
