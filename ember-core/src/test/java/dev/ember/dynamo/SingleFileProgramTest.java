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

    private static String run(Path dir, boolean grant) throws IOException, InterruptedException { return run(dir, program(grant)); }

    private static String run(Path dir, String program) throws IOException, InterruptedException {
        return SourcePrograms.run(dir, "Prog.java", program);
    }

    @Test
    void withoutAGrantTheCodeAfterTheBreakCompilesToo(@TempDir Path dir) throws Exception {
        // the source launcher's loader puts Prog in a module of its own: Ember reaches it through Prog$$EmberAccess
        String out = run(dir, false);
        assertTrue(out.contains("same as eager: true"), out);
        assertTrue(out.contains("frames: 2"), "the graph before the break and the resume method's: " + out);
        assertFalse(out.contains("runs eagerly") || out.contains("cannot define"), out);
    }

    @Test
    void withAGrantTheCodeAfterTheBreakCompiles(@TempDir Path dir) throws Exception {
        String out = run(dir, true);
        assertTrue(out.contains("same as eager: true"), out);
        assertTrue(out.contains("frames: 2"), "the graph before the break and the resume method's: " + out);
        assertFalse(out.contains("runs eagerly"), out);
    }

    /** The stances, errorOnGraphBreak, Ember.disabled() and Graph.parse from a program run as {@code java Prog.java} (docs/stances.md). */
    @Test
    void stancesErrorModesDisabledBlocksAndGraphParseWorkInASingleFileProgram(@TempDir Path dir) throws Exception {
        String out = run(dir, """
                import dev.ember.Ember;
                import dev.ember.Fn1;
                import dev.ember.Options;
                import dev.ember.Stance;
                import dev.ember.dynamo.CompileCounter;
                import dev.ember.dynamo.RecompileError;
                import dev.ember.fx.GraphModule;
                import dev.ember.tensor.Tensor;
                import java.lang.invoke.MethodHandles;

                public class Prog {
                    static Tensor fn(Tensor x) { return x.relu().mul(2.0); }

                    static Tensor step(Tensor x) {
                        x = x.add(1.0);
                        try (var s = Ember.errorOnGraphBreak(false)) {
                            Ember.graphBreak();
                        }
                        return x.add(2.0);
                    }

                    public static void main(String[] args) {
                        Ember.grantAccess(MethodHandles.lookup());
                        CompileCounter counter = new CompileCounter();
                        Fn1<Tensor, Tensor> f = Ember.compile(Prog::fn, Options.backend(counter));
                        try (var s = Ember.stance(Stance.FORCE_EAGER)) {
                            f.apply(Tensor.randn(3));
                        }
                        try (var s = Ember.disabled()) {
                            f.apply(Tensor.randn(3));
                        }
                        System.out.println("eager frames: " + counter.frameCount());
                        f.apply(Tensor.randn(3));
                        try (var s = Ember.stance("fail_on_recompile")) {
                            f.apply(Tensor.randn(5));
                        } catch (RecompileError e) {
                            System.out.println("refused: " + e.getMessage().lines().findFirst().orElseThrow());
                        }
                        CompileCounter steps = new CompileCounter();
                        Tensor y = Ember.compile(Prog::step, Options.backend(steps).errorOnGraphBreak(true)).apply(Tensor.ones(2));
                        System.out.println("step frames: " + steps.frameCount() + ", " + y.sameData(Tensor.ones(2).add(3.0)));
                        try {
                            Ember.setStance("fastest");
                        } catch (IllegalArgumentException e) {
                            System.out.println(e.getMessage());
                        }
                        String text = "class GraphModule {\\n    Tensor forward(Tensor x /* f32[2] */) {\\n        Tensor neg = aten.neg.default(x);  // f32[2]\\n        return neg;\\n    }\\n}\\n";
                        GraphModule gm = GraphModule.parse(text);
                        System.out.println("parsed: " + gm.code().equals(text) + ", " + ((Tensor) gm.run(Tensor.ones(2))).sameData(Tensor.ones(2).neg()));
                    }
                }
                """);
        assertTrue(out.contains("eager frames: 0"), out);
        assertTrue(out.contains("refused: Prog.fn in Prog.java:12 would recompile, and the stance is fail_on_recompile"), out);
        assertTrue(out.contains("step frames: 2, true"), out);
        assertTrue(out.contains("unknown stance 'fastest'; valid stances: default, force_eager"), out);
        assertTrue(out.contains("parsed: true, true"), out);
    }
}
