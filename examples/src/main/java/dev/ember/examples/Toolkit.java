package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.Stance;
import dev.ember.debug.bytecode.BytecodeDebugger;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.RecompileError;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.Tensor;

/**
 * The power user's tools in one run: stances, errorOnGraphBreak for a region, a printed graph read
 * back with GraphModule.parse, and the bytecode debugger stepping a call with a break. Comptime's
 * console and `ember doctor` need a terminal or a child process: docs/comptime.md, docs/doctor.md.
 */
public final class Toolkit {
    private Toolkit() {}

    static Tensor scaled(Tensor x) { return x.relu().mul(2.0); }

    static Tensor withAllowedBreak(Tensor x) {
        x = x.add(1.0);
        try (var allowed = Ember.errorOnGraphBreak(false)) {
            Ember.graphBreak();                       // allowed here, though the function says no breaks
        }
        return x.mul(3.0);
    }

    public static void main(String[] args) {
        CompileCounter counter = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(Toolkit::scaled, Options.backend(counter));
        try (var eager = Ember.stance(Stance.FORCE_EAGER)) {
            f.apply(Tensor.randn(3));
        }
        System.out.println("force_eager: frames compiled " + counter.frameCount() + " (expected 0)");
        f.apply(Tensor.randn(3));
        try (var strict = Ember.stance(Stance.FAIL_ON_RECOMPILE)) {
            f.apply(Tensor.randn(3));
            f.apply(Tensor.randn(5));
            System.out.println("fail_on_recompile: no recompile was needed");
        } catch (RecompileError e) {
            System.out.println("fail_on_recompile: " + e.getMessage().lines().findFirst().orElse(""));
        }

        CompileCounter regions = new CompileCounter();
        Fn1<Tensor, Tensor> g = Ember.compile(Toolkit::withAllowedBreak, Options.backend(regions).errorOnGraphBreak(true));
        Tensor x = Tensor.randn(4);
        System.out.println("errorOnGraphBreak(false) region: equals eager " + g.apply(x).sameData(withAllowedBreak(x))
                + ", frames " + regions.frameCount() + " (expected 2)");

        String printed = """
                class GraphModule {
                    Tensor forward(Tensor x /* f32[2, 3] */) {
                        Tensor relu = aten.relu.default(x);       // f32[2, 3]
                        Tensor mul = aten.mul.Scalar(relu, 2.0);  // f32[2, 3]
                        return mul;
                    }
                }
                """;
        GraphModule gm = GraphModule.parse(printed);
        Tensor in = Tensor.of(new float[] {-1, 2, -3, 4, -5, 6}, 2, 3);
        System.out.println("GraphModule.parse: prints the same text " + gm.code().equals(printed) + ", runs: " + gm.run(in));

        Fn1<Tensor, Tensor> h = Ember.compile(Toolkit::withAllowedBreak);
        System.out.println("bytecode debugger, listing then continue:");
        Tensor stepped = BytecodeDebugger.debug(() -> h.apply(x), "l", "c");
        System.out.println("the stepped call returned eager's result: " + stepped.sameData(withAllowedBreak(x)));
    }
}
