package dev.ember.debug.bytecode;

import dev.ember.testing.SourcePrograms;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bytecode debugger in a program run from source ({@code java Prog.java}), with no grant of access: Ember reaches the program's module through {@code Prog$$EmberAccess}. */
class BytecodeDebuggerSingleFileTest {
    @Test
    void stepsThroughTheGeneratedCodeOfASingleFileProgram(@TempDir Path dir) throws Exception {
        String out = SourcePrograms.run(dir, "Prog.java", """
                import dev.ember.Ember;
                import dev.ember.debug.bytecode.BytecodeDebugger;
                import dev.ember.tensor.Tensor;

                public class Prog {
                    private static Tensor scale(Tensor x) { return x.mul(3); }

                    static Tensor f(Tensor x) {
                        Tensor y = x.relu();
                        Ember.graphBreak();
                        return scale(y);
                    }

                    public static void main(String[] args) {
                        var g = Ember.compile(Prog::f);
                        Tensor x = Tensor.randn(3);
                        Tensor y = BytecodeDebugger.debug(() -> g.apply(x), "s 5", "l 0, 100", "c");
                        System.out.println("same as eager: " + y.sameData(f(x)));
                    }
                }
                """);
        assertTrue(out.contains("same as eager: true"), out);
        assertTrue(out.contains("Prog$Resume0.breakAt(Object[], ResumeTarget) : Tensor  (generated code, interpreted)"), out);
        assertTrue(out.contains("// resume → resume_in_f_at_"), out);
        assertTrue(out.contains("the call returned f32[3]"), out);
    }
}
