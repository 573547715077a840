package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.export.ExportError;
import dev.ember.export.ExportedProgram;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Ember.export: a small model exported as one ATen graph with its signature and weights, saved to
 * one file, loaded back and run; then the error for an input of another size. The file loads in
 * any JVM with Ember on its class path, without this class: {@code ExportedProgram.load(path)}.
 * Argument: where to save the program (default: a temporary file).
 */
public final class Export {
    private Export() {}

    static final class Classifier extends Module {
        final Sequential body = new Sequential(new Linear(4, 16), new ReLU(), new Linear(16, 3));

        @Override
        public Tensor forward(Tensor x) { return body.forward(x).softmax(-1); }
    }

    public static void main(String[] args) throws Exception {
        Tensor.manualSeed(0);
        Classifier model = new Classifier();
        Tensor x = Tensor.randn(8, 4);

        ExportedProgram ep = Ember.export(model, x);
        System.out.println(ep);

        Path file = args.length > 0 ? Path.of(args[0]) : Files.createTempFile("classifier", ".ember");
        ep.save(file);
        System.out.println("saved: " + file + " (" + Files.size(file) + " bytes)");

        long t0 = System.nanoTime();
        ExportedProgram loaded = ExportedProgram.load(file);
        List<Tensor> out = loaded.run(x);
        System.out.printf("loaded and ran in %.1f ms (the first run compiles the graph)%n", (System.nanoTime() - t0) / 1e6);
        double diff = out.getFirst().sub(model.forward(x)).abs().amax().item();
        System.out.println("loaded program vs the model: " + diff + " max abs difference");

        try {
            loaded.run(Tensor.randn(5, 4));
        } catch (ExportError e) {
            System.out.println(e.getMessage());
        }
    }
}
