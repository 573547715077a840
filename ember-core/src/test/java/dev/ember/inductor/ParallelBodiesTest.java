package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.jvm.HiddenClasses;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.InvokeDynamicEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A graph's parallel loops are dispatched by number through the graph class's one
 * {@link Parallel.Bodies}, not bound through the {@code LambdaMetafactory}: no class is spun per
 * loop body when a graph first runs (fresh or loaded from the cache), and the bodies still get the
 * values they captured.
 */
class ParallelBodiesTest {
    static Tensor loops(Tensor x, Tensor y) {
        Tensor a = x.mul(y).add(1.5).relu();          // pointwise, split across the cores
        Tensor b = a.softmax(-1).mul(x.sum(1, true)); // reductions over rows, then pointwise again
        return b.sub(a.mean(0, true));
    }

    @Test
    void aGraphsLoopsAreItsOwnBodiesAndComputeWhatEagerDoes() {
        Ember.reset();
        Tensor x = Tensor.randn(512, 1024), y = Tensor.randn(512, 1024);
        Tensor eager = loops(x, y);
        List<Object> results = new ArrayList<>();
        List<HiddenClasses.Defined> defined = HiddenClasses.recording(
                () -> results.add(Ember.compile(ParallelBodiesTest::loops, Options.backend("inductor")).apply(x, y)));
        Ember.reset();
        double diff = ((Tensor) results.getFirst()).sub(eager).abs().amax().item();
        assertTrue(diff <= 1e-4, "compiled equals eager (float rounding of 1024-element sums): max abs diff " + diff);

        List<ClassModel> graphs = defined.stream().filter(c -> c.name().contains("Graph_")).map(c -> ClassFile.of().parse(c.bytes())).toList();
        assertTrue(!graphs.isEmpty(), "a graph class was defined among " + defined.stream().map(HiddenClasses.Defined::name).toList());
        for (ClassModel g : graphs) {
            String name = g.thisClass().asInternalName();
            assertTrue(g.interfaces().stream().anyMatch(i -> i.asSymbol().descriptorString().equals(Parallel.Bodies.class.descriptorString())),
                    name + " implements Parallel.Bodies");
            long indy = StreamSupport.stream(g.constantPool().spliterator(), false).filter(e -> e instanceof InvokeDynamicEntry).count();
            assertEquals(0, indy, name + " links no call site (each one a class spun on first use)");
            long bodies = g.methods().stream().filter(m -> m.methodName().stringValue().startsWith("lambda$")).count();
            assertTrue(bodies >= 2, name + " has its loop bodies as methods: " + bodies);
        }
    }

    /** Four identical layers, as a model's repeated blocks: each a product (run by the BLAS) and a fused row kernel over buffers of its own. */
    static Tensor repeated(Tensor x, Tensor w1, Tensor w2, Tensor w3) {
        Tensor h = x;
        for (Tensor w : new Tensor[] {w1, w2, w3, w1}) h = h.matmul(w).mul(0.5).softmax(-1);
        return h;
    }

    /**
     * Loops that differ only in the buffers they read and write are one method of the graph class
     * (C2 compiles it once, not once per layer: the Conv-BN-ReLU stack's backward spent 4 of its
     * first 8 seconds' C2 time on three copies of each batch-norm loop, session 26), and each
     * call still gets its own buffers.
     */
    @Test
    void loopsThatDifferOnlyInTheirBuffersShareOneMethod() {
        Ember.reset();
        Tensor x = Tensor.randn(256, 512), w1 = Tensor.randn(512, 512), w2 = Tensor.randn(512, 512), w3 = Tensor.randn(512, 512);
        Tensor eager = repeated(x, w1, w2, w3);
        List<Object> results = new ArrayList<>();
        List<HiddenClasses.Defined> defined = HiddenClasses.recording(
                () -> results.add(Ember.compile(ParallelBodiesTest::repeated, Options.backend("inductor")).apply(x, w1, w2, w3)));
        Ember.reset();
        double diff = ((Tensor) results.getFirst()).sub(eager).abs().amax().item();
        assertTrue(diff <= 1e-5, "compiled equals eager: max abs diff " + diff);
        ClassModel graph = defined.stream().filter(c -> c.name().contains("Graph_")).map(c -> ClassFile.of().parse(c.bytes())).findFirst().orElseThrow();
        long bodies = graph.methods().stream().filter(m -> m.methodName().stringValue().startsWith("lambda$")).count();
        long loops = graph.methods().stream().flatMap(m -> m.code().stream()).flatMap(c -> c.elementStream())
                .filter(e -> e instanceof java.lang.classfile.instruction.InvokeInstruction i && i.name().stringValue().equals("forBody")).count();
        assertTrue(loops >= 4 && loops == 4 * bodies, "four identical layers: each loop body written once, called four times (" + bodies + " bodies, " + loops + " loops)");
    }
}
