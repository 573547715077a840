package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.guards.Guard;
import dev.ember.nn.Flatten;
import dev.ember.nn.Module;
import dev.ember.nn.Parameter;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Modules: user subclasses and built-in layers are inlined, parameters are guarded graph inputs. */
class ModuleTest {

    /** A user module with a built-in layer, a container and a parameter. */
    static final class Block extends Module {
        final Flatten flatten = new Flatten();
        final Sequential tail = new Sequential(new Flatten(0, -1));
        Parameter row = new Parameter(Tensor.randn(1, 12));
        int repeats = 2;

        @Override
        public Tensor forward(Tensor x) {
            Tensor y = flatten.forward(x);
            for (int i = 0; i < repeats; i++) y = Tensor.cat(List.of(y, row), 0);
            return isTraining() ? tail.forward(y) : y;
        }
    }

    /** A user module holding another user module (inlined too). */
    static final class Outer extends Module {
        final Block inner = new Block();

        @Override
        public Tensor forward(Tensor x) { return inner.forward(x.unsqueeze(0)).t(); }
    }

    /** A module that remembers its last output: the field store is replayed after the graph. */
    static final class Recorder extends Module {
        Tensor last;

        @Override
        public Tensor forward(Tensor x) {
            last = x.t();
            return last.flatten();
        }
    }

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void moduleFieldStoreIsReplayed() {
        Recorder m = new Recorder();
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend(cc).fullgraph(true));
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        assertTrue(x.t().flatten().sameData(f.apply(x)));
        assertTrue(x.t().sameData(m.last));
        f.apply(y);
        assertTrue(y.t().sameData(m.last));
        assertEquals(1, cc.frameCount());
    }

    private static List<String> guards(Options opts) {
        return CorpusTest.frameOf(opts).entries().getFirst().guards().guards().stream().map(Guard::describe).toList();
    }

    @Test
    void userModuleWithLayers() {
        Block m = new Block();
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc).fullgraph(true);
        Fn1<Tensor, Tensor> f = Ember.compile(m, opts);
        Tensor x = Tensor.randn(2, 3, 4);
        assertTrue(m.forward(x).sameData(f.apply(x)));
        assertEquals(1, cc.frameCount());
        assertEquals(1 + 2 + 1, cc.opCount(), "flatten layer, two cats, the Sequential's Flatten");
        List<String> g = guards(opts);
        assertTrue(g.contains("EQUALS_MATCH: L['self'].repeats == 2"), g.toString());
        assertTrue(g.contains("EQUALS_MATCH: L['self'].training == true"), g.toString());
        assertTrue(g.stream().anyMatch(s -> s.startsWith("TENSOR_MATCH: L['self'].row f32[1, 12]")), g.toString());
        // the built-in layers are inlined: their type and the settings their forward reads are guarded
        assertTrue(g.contains("TYPE_MATCH: type(L['self'].flatten) is dev.ember.nn.Flatten"), g.toString());
        assertTrue(g.contains("EQUALS_MATCH: L['self'].flatten.startDim == 1"), g.toString());
        assertTrue(g.contains("EQUALS_MATCH: L['self'].tail.modules[0].startDim == 0"), g.toString());
        String code = CorpusTest.frameOf(opts).entries().getFirst().graph().toGraphModule().code();
        assertTrue(code.contains("aten.flatten.using_ints(l_x_, 1, -1)") && !code.contains("call_module"), code);
    }

    @Test
    void moduleStateChangesRecompile() {
        Block m = new Block();
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        Fn1<Tensor, Tensor> f = Ember.compile(m, opts);
        Tensor x = Tensor.randn(2, 3, 4);
        f.apply(x);
        m.eval();
        assertTrue(m.forward(x).sameData(f.apply(x)));
        m.repeats = 1;
        assertTrue(m.forward(x).sameData(f.apply(x)));
        assertEquals(3, cc.frameCount());
        assertEquals("L['self'].training == true failed: actual false", CorpusTest.frameOf(opts).recompileReasons().getFirst().failedGuards().getFirst());
    }

    @Test
    void nestedUserModules() {
        Outer m = new Outer();
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend(cc).fullgraph(true));
        Tensor x = Tensor.randn(3, 4);
        assertTrue(m.forward(x).sameData(f.apply(x)));
        assertEquals(1 + 1 + 2 + 1 + 1, cc.opCount(), "unsqueeze, flatten, two cats, the tail's flatten, t");
    }

    @Test
    void builtinLayerAsTheRoot() {
        Flatten layer = new Flatten(1, -1);
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(layer, Options.backend(cc));
        Tensor x = Tensor.randn(2, 3, 4);
        assertTrue(layer.forward(x).sameData(f.apply(x)));
        assertEquals(1, cc.opCount(), "the root's own forward is traced (one flatten op), not called as a module");
    }

    static Tensor scaledFirst(List<? extends Tensor> ps) {
        Parameter p = (Parameter) ps.get(0);
        return p.mul(2);
    }

    @Test
    void castToParameterDecidesOnTheInputsClass() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc).fullgraph(true);
        Fn1<List<? extends Tensor>, Tensor> f = Ember.compile((Fn1<List<? extends Tensor>, Tensor>) ModuleTest::scaledFirst, opts);
        List<Parameter> ps = List.of(new Parameter(Tensor.randn(2, 3)));
        assertTrue(scaledFirst(ps).sameData(f.apply(ps)), "a Parameter in a list passes the cast while tracing");
        assertEquals(1, cc.opCount());
        assertTrue(guards(opts).contains("TYPE_MATCH: type(L['ps'][0]) is dev.ember.nn.Parameter"), guards(opts).toString());
        // a plain tensor fails the guard, and the cast throws as it does eagerly
        var notAParameter = List.of(Tensor.randn(2, 3));
        var thrown = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> Ember.compile(
                (Fn1<List<? extends Tensor>, Tensor>) ModuleTest::scaledFirst, Options.backend(new CompileCounter())).apply(notAParameter));
        assertTrue(thrown instanceof ClassCastException || thrown.getCause() instanceof ClassCastException, thrown.toString());
    }
}
