package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.nn.HookHandle;
import dev.ember.nn.Linear;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/** Forward hooks traced into the graph: an activation log that never recompiles, a hook that changes the output, removal. */
public final class Hooks {
    private Hooks() {}

    public static void main(String[] args) {
        Tensor.manualSeed(0);
        Linear first = new Linear(4, 8);
        Sequential net = new Sequential(first, new ReLU(), new Linear(8, 3));
        List<Tensor> activations = new ArrayList<>();
        first.registerForwardHook((module, input, output) -> {
            activations.add(output);          // only appended to: not guarded, replayed after the graph
            return null;                      // keep the output
        });
        HookHandle clip = net.registerForwardHook((module, input, output) -> output.clamp(-1.0, 1.0));

        CompileCounter counter = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(net, Options.backend(counter));
        for (int step = 0; step < 5; step++) {
            Tensor x = Tensor.randn(2, 4);
            Tensor compiled = f.apply(x), eager = net.call(x);
            System.out.printf("call %d: compiled equals eager: %b%n", step, compiled.sameData(eager));
        }
        System.out.println("frames compiled: " + counter.frameCount() + " (expected 1), ops: " + counter.opCount()
                + ", activations logged: " + activations.size() + " (5 compiled + 5 eager)");
        clip.remove();
        f.apply(Tensor.randn(2, 4));
        System.out.println("after removing the clip hook: frames compiled: " + counter.frameCount() + " (the hook list changed: one recompile)");
    }
}
