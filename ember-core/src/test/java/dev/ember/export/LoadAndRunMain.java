package dev.ember.export;

import dev.ember.tensor.SafeTensors;
import dev.ember.tensor.Tensor;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link FreshJvmTest} runs in a new JVM whose class path has Ember but not the exported
 * program's classes: {@code <program> <inputs.safetensors> <outputs.safetensors> <absent class>}.
 * Loads the program, runs it on the inputs, writes the outputs, prints the times.
 */
public final class LoadAndRunMain {
    private LoadAndRunMain() {}

    public static void main(String[] args) throws Exception {
        try {
            Class.forName(args[3]);
            System.out.println("the exported class " + args[3] + " is on the class path; the test proves nothing");
            System.exit(3);
        } catch (ClassNotFoundException expected) {
            // the point: the program runs without it
        }
        long t0 = System.nanoTime();
        ExportedProgram ep = ExportedProgram.load(Path.of(args[0]));
        long t1 = System.nanoTime();
        List<Tensor> out = ep.run(SafeTensors.load(Path.of(args[1])).values().toArray(Tensor[]::new));
        long t2 = System.nanoTime();
        Map<String, Tensor> named = new LinkedHashMap<>();
        for (int i = 0; i < out.size(); i++) named.put("out" + i, out.get(i));
        SafeTensors.save(named, Path.of(args[2]));
        System.out.printf("load %.1f ms, first run %.1f ms%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6);
    }
}
