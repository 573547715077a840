package dev.ember.report;

import dev.ember.debug.CompileProfiler;
import dev.ember.logging.CompilationMetrics;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Trace;
import dev.ember.logging.TraceFrame;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes, through the public trace API, what the compiler will write for this program:
 * <pre>
 * static Tensor fn(Tensor x, Tensor y) {          // MyApp.java:5
 *     Tensor z = x.add(y).relu();                 // :6
 *     System.out.println("debug: " + z.shape());  // :7   graph break
 *     return z.mul(2);                            // :8
 * }
 * </pre>
 * called from {@code MyApp.main} with 3x4 inputs, then 5x4 inputs (a recompile), plus {@code Model.forward}
 * called from {@code MyApp.train}, whose compilation fails.
 */
final class SyntheticRun {
    private SyntheticRun() {}

    static final String BREAK_REASON = """
            Graph break in user code at MyApp.java:7
            Graph Break Reason: Print or logging call (GB0005)
              Explanation: System.out.println writes output: an observable side effect that a graph cannot hold.
              Hint: move the print out of the compiled method, or use Ember.print(...) which is replayed after the graph.
              Developer context: invokevirtual java/io/PrintStream.println(Ljava/lang/String;)V
             For more details about this graph break, see docs/graph-breaks/GB0005.md
            User code traceback:
              MyApp.java:12 in MyApp.main
              MyApp.java:7 in MyApp.fn
                System.out.println("debug: " + z.shape());""";

    static final String RECOMPILE_REASON = "0/0: tensor 'x' size mismatch at index 0. expected 3, actual 5 (MyApp.java:5 in MyApp.fn)";

    static final String FAIL_REASON = "aten.matmul.default: mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)";

    private static final TraceFrame MAIN = new TraceFrame("dev/ember/examples/MyApp.java", 12, "MyApp.main", "var out = f.apply(x, y);");
    private static final TraceFrame FN = new TraceFrame("dev/ember/examples/MyApp.java", 5, "MyApp.fn", "static Tensor fn(Tensor x, Tensor y) {");
    private static final TraceFrame RESUME = new TraceFrame("dev/ember/examples/MyApp.java", 8, "MyApp.fn$resume_at_7", "return z.mul(2);");
    private static final TraceFrame TRAIN = new TraceFrame("dev/ember/examples/MyApp.java", 30, "MyApp.train", "loss = model.apply(batch);");
    private static final TraceFrame FORWARD = new TraceFrame("dev/ember/examples/Model.java", 14, "Model.forward", "return x.matmul(w);");

    /** Writes the run's trace into a new file in {@code dir}; returns the file. */
    static Path write(Path dir) {
        Path file = Trace.start(dir);
        try {
            Trace.jsonArtifact("ember_config", () -> Map.of("backend", "inductor", "recompileLimit", 8));
            compileFnWithBreak();
            compileResume();
            recompileFn();
            compileFailingForward();
        } finally {
            Trace.stop();
        }
        return file;
    }

    private static void compileFnWithBreak() {
        try (var c = CompileContext.enter(CompileId.of(0, 0)); var f = CompileProfiler.function("MyApp.fn")) {
            Trace.dynamoStart(List.of(MAIN, FN));
            try (var t = CompileProfiler.phase("tracing")) {
                Trace.graphBreak(BREAK_REASON);
            }
            Trace.outputGraph(sizes("x", "y", "add", "relu"), () -> """
                    graph(x: f32[3, 4], y: f32[3, 4]):
                        add: f32[3, 4] = aten.add.Tensor(x, y)      # MyApp.java:6 in fn: Tensor z = x.add(y).relu();
                        relu: f32[3, 4] = aten.relu.default(add)    # MyApp.java:6 in fn: Tensor z = x.add(y).relu();
                        return (relu,)""");
            Trace.guards(List.of(
                    "TENSOR_MATCH: L['x'] is a Tensor of dtype f32, shape [3, 4], strides [4, 1], requires_grad=false",
                    "TENSOR_MATCH: L['y'] is a Tensor of dtype f32, shape [3, 4], strides [4, 1], requires_grad=false",
                    "GLOBAL_STATE: grad mode is enabled"));
            Trace.bytecode("""
                     0: aload_0
                     1: aload_1
                     2: invokevirtual dev/ember/tensor/Tensor.add:(Ldev/ember/tensor/Tensor;)Ldev/ember/tensor/Tensor;
                     5: invokevirtual dev/ember/tensor/Tensor.relu:()Ldev/ember/tensor/Tensor;
                     8: astore_2
                     9: getstatic java/lang/System.out:Ljava/io/PrintStream;
                    12: aload_2
                    13: invokedynamic makeConcatWithConstants:(Ldev/ember/tensor/Tensor;)Ljava/lang/String;
                    18: invokevirtual java/io/PrintStream.println:(Ljava/lang/String;)V
                    21: aload_2
                    22: ldc2_w 2.0d
                    25: invokevirtual dev/ember/tensor/Tensor.mul:(D)Ldev/ember/tensor/Tensor;
                    28: areturn""", """
                     0: aload_0
                     1: aload_1
                     2: invokestatic __compiled_fn_0:(Ldev/ember/tensor/Tensor;Ldev/ember/tensor/Tensor;)[Ljava/lang/Object;
                     5: iconst_0
                     6: aaload
                     7: checkcast dev/ember/tensor/Tensor
                    10: astore_2
                    11: getstatic java/lang/System.out:Ljava/io/PrintStream;
                    14: aload_2
                    15: invokedynamic makeConcatWithConstants:(Ldev/ember/tensor/Tensor;)Ljava/lang/String;
                    20: invokevirtual java/io/PrintStream.println:(Ljava/lang/String;)V
                    23: aload_2
                    24: invokestatic MyApp.fn$resume_at_7:(Ldev/ember/tensor/Tensor;)Ldev/ember/tensor/Tensor;
                    27: areturn""");
            try (var t = CompileProfiler.phase("backend")) {
                Trace.outputCode("__compiled_fn_0.java", () -> """
                        final class __compiled_fn_0 {
                            static Object[] call(Tensor x, Tensor y) {
                                return new Object[] { x.add(y).relu() };
                            }
                        }""");
            }
            Trace.compilationMetrics(metrics("MyApp.fn", 5, 3, 2, 6, 2, 0.0042));
        }
    }

    private static void compileResume() {
        try (var c = CompileContext.enter(CompileId.of(1, 0)); var f = CompileProfiler.function("MyApp.fn$resume_at_7")) {
            Trace.dynamoStart(List.of(MAIN, FN, RESUME));
            Trace.outputGraph(sizes("z", "mul"), () -> """
                    graph(z: f32[3, 4]):
                        mul: f32[3, 4] = aten.mul.Tensor(z, 2.0)   # MyApp.java:8 in fn: return z.mul(2);
                        return (mul,)""");
            Trace.guards(List.of("TENSOR_MATCH: L['z'] is a Tensor of dtype f32, shape [3, 4], strides [4, 1], requires_grad=false"));
            Trace.graph("aot_forward_graph", () -> """
                    graph(z: f32[3, 4]):
                        mul: f32[3, 4] = aten.mul.Tensor(z, 2.0)
                        return (mul,)""");
            Trace.compilationMetrics(metrics("MyApp.fn$resume_at_7", 8, 1, 1, 3, 1, 0.0011));
        }
    }

    private static void recompileFn() {
        try (var c = CompileContext.enter(CompileId.of(0, 1)); var f = CompileProfiler.function("MyApp.fn")) {
            Trace.dynamoStart(List.of(MAIN, FN));
            Trace.recompileReasons(List.of(RECOMPILE_REASON));
            Trace.graphBreak(BREAK_REASON.replace("[3, 4]", "[5, 4]"));
            Trace.outputGraph(sizes("x", "y", "add", "relu"), () -> """
                    graph(x: f32[5, 4], y: f32[5, 4]):
                        add: f32[5, 4] = aten.add.Tensor(x, y)      # MyApp.java:6 in fn
                        relu: f32[5, 4] = aten.relu.default(add)    # MyApp.java:6 in fn
                        return (relu,)""");
            Trace.guards(List.of("TENSOR_MATCH: L['x'] is a Tensor of dtype f32, shape [5, 4], strides [4, 1], requires_grad=false"));
            Trace.compilationMetrics(metrics("MyApp.fn", 5, 3, 2, 6, 2, 0.0031).cacheSize(1, 2));
        }
    }

    private static void compileFailingForward() {
        try (var c = CompileContext.enter(CompileId.of(2, 0))) {
            Trace.dynamoStart(List.of(TRAIN, FORWARD));
            Trace.compilationMetrics(new CompilationMetrics()
                    .function("Model.forward", "dev/ember/examples/Model.java", 13)
                    .startTime(Instant.parse("2025-11-22T03:14:15.123456Z"))
                    .entireFrameCompileTime(Duration.ofNanos(700_000))
                    .failure("IllegalArgumentException", FAIL_REASON, "dev/ember/examples/Model.java", 14));
        }
    }

    private static CompilationMetrics metrics(String fn, int line, int guards, int ops, int nodes, int inputs, double seconds) {
        return new CompilationMetrics()
                .function(fn, "dev/ember/examples/MyApp.java", line)
                .startTime(Instant.parse("2025-11-22T03:14:15.123456Z"))
                .counts(guards, ops, nodes, inputs)
                .entireFrameCompileTime(Duration.ofNanos((long) (seconds * 1e9)))
                .tracingTime(Duration.ofNanos((long) (seconds * 0.6e9)))
                .backendCompileTime(Duration.ofNanos((long) (seconds * 0.3e9)));
    }

    private static Map<String, List<Integer>> sizes(String... nodes) {
        Map<String, List<Integer>> m = new LinkedHashMap<>();
        for (String n : nodes) m.put(n, List.of(3, 4));
        return m;
    }
}
