package dev.ember.dynamo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.ember.testing.SourcePrograms;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Single-file programs (#16 item 8): {@code java Prog.java} loads the program in a class loader and
 * module of its own, where Ember cannot define resume code without a lookup the program grants. Without
 * the grant, the default log level says why the function runs eagerly and the one line that fixes it;
 * with it, the code after the break compiles.
 */
class SingleFileProgramTest {

    private static String program(boolean grant) {
        return """
                import dev.ember.Ember;
                import dev.ember.Fn1;
                import dev.ember.Options;
                import dev.ember.dynamo.CompileCounter;
                import dev.ember.tensor.Tensor;
                import java.lang.invoke.MethodHandles;

                public class Prog {
                    static Tensor f(Tensor x) {
                        Tensor y = x.relu();
                        if (y.sum().item() > 100) y = y.neg();   // a graph break
                        return y.mul(2);
                    }

                    public static void main(String[] args) {
                        %s
                        CompileCounter counter = new CompileCounter();
                        Fn1<Tensor, Tensor> g = Ember.compile(Prog::f, Options.backend(counter));
                        Tensor x = Tensor.randn(3);
                        System.out.println("same as eager: " + g.apply(x).sameData(f(x)));
                        System.out.println("frames: " + counter.frameCount());
                    }
                }
                """.formatted(grant ? "Ember.grantAccess(MethodHandles.lookup());" : "");
    }

    private static String run(Path dir, boolean grant) throws IOException, InterruptedException {
        return SourcePrograms.run(dir, "Prog.java", program(grant));
    }

    @Test
    void withoutAGrantTheDefaultLevelSaysWhyAndHowToFixIt(@TempDir Path dir) throws Exception {
        String out = run(dir, false);
        assertTrue(out.contains("same as eager: true"), out);
        assertTrue(out.contains("frames: 0"), "nothing compiled: " + out);
        assertTrue(out.contains("cannot define the resume method next to Prog") && out.contains("Ember.grantAccess(MethodHandles.lookup());"), out);
    }

    @Test
    void withAGrantTheCodeAfterTheBreakCompiles(@TempDir Path dir) throws Exception {
        String out = run(dir, true);
        assertTrue(out.contains("same as eager: true"), out);
        assertTrue(out.contains("frames: 2"), "the graph before the break and the resume method's: " + out);
        assertFalse(out.contains("runs eagerly"), out);
    }
}
