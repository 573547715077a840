package dev.ember.dynamo.corpus;

import dev.ember.dynamo.FullGraphCapture;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.export.ExportError;
import dev.ember.export.ExportOptions;
import dev.ember.export.ExportedProgram;
import dev.ember.export.Exporter;
import dev.ember.export.InputSpec;
import dev.ember.export.OutputSpec;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Export over the capture corpus: every program that compiles to one graph exports (strict), saves,
 * loads and runs to eager's outputs — each user output found in eager's return value by its
 * signature target, every tensor of that value covered, inputs written in place written alike;
 * the few that return something only Java can (a String, an int) are refused by name. Every
 * program of the break corpus is refused with its first break's GB id and source line.
 */
class ExportCorpusTest {
    @TempDir
    static Path dir;

    /** Corpus programs whose return value is not made of tensors the graph computes, with what export says. */
    private static final Map<String, String> REFUSED = Map.of(
            "shapeAsList", "the return value at [0] is the constant 3",
            "describeShape", "the return value is the constant 'shape=3x4'",
            "rank", "the return value is the constant 2",
            "contiguousFlag", "the return value is the constant true");

    @TestFactory
    Stream<DynamicTest> everyOneGraphProgramRoundTrips() {
        return CorpusTest.cases().stream().map(k -> DynamicTest.dynamicTest(k.name(), () -> {
            Object[] args = k.inputs().get();
            if (REFUSED.containsKey(k.name())) {
                ExportError e = assertThrows(ExportError.class, () -> export(k.fn(), args));
                assertTrue(e.getMessage().contains(REFUSED.get(k.name())), e.getMessage());
                return;
            }
            ExportedProgram ep = export(k.fn(), args);
            Path file = dir.resolve(k.name() + ".ember");
            ep.save(file);
            ExportedProgram loaded = ExportedProgram.load(file);
            assertEquals(ep.graphSignature(), loaded.graphSignature(), k.name());

            // decomposed (softmax into exp, sum, div) and, in the inductor, fused, a float result may differ from eager's in its last bits
            check(k, loaded.withBackend("eager"));
            check(k, loaded);
        }));
    }

    private static void check(CorpusTest.Case k, ExportedProgram loaded) {
        Object[] eagerIn = k.inputs().get(), exportIn = k.inputs().get();
        Tensor.manualSeed(99);
        Object expected = Compiled.call(k.fn(), eagerIn);
        Tensor.manualSeed(99);
        List<Tensor> actual = loaded.run(userInputs(k.fn(), exportIn, loaded));
        List<OutputSpec> outs = loaded.graphSignature().userOutputs();
        assertEquals(outs.size(), actual.size());
        Set<Tensor> covered = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < outs.size(); i++) {
            Tensor want = (Tensor) resolve(expected, outs.get(i).target());
            covered.add(want);
            String where = k.name() + " (" + loaded.backend() + ") output" + outs.get(i).target();
            if (!want.dtype().isFloatingPoint()) Compiled.assertSame(want, actual.get(i), where);
            else assertClose(want, actual.get(i), where);
        }
        assertEquals(tensorsIn(expected).size(), covered.size(), k.name() + ": every tensor of the return value is an output");
        Compiled.assertSame(List.of(eagerIn), List.of(exportIn), k.name() + " inputs after the call");
    }

    /** Equal in dtype and shape, each value within float32 rounding of eager's (compared in float64). */
    private static void assertClose(Tensor want, Tensor got, String where) {
        double tol = 1e-5;
        assertEquals(want.dtype(), got.dtype(), where);
        assertTrue(java.util.Arrays.equals(want.shape(), got.shape()), where + ": shape");
        double[] w = want.to(dev.ember.tensor.DType.FLOAT64).toDoubleArray(), g = got.to(dev.ember.tensor.DType.FLOAT64).toDoubleArray();
        for (int i = 0; i < w.length; i++) {
            assertTrue(Math.abs(w[i] - g[i]) <= tol * (1 + Math.abs(w[i])), where + ": element " + i + " is " + g[i] + ", eager " + w[i]);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyBreakIsAnExportErrorNamingIt() {
        return BreakCorpusTest.cases().stream().map(k -> DynamicTest.dynamicTest(k.name(), () -> {
            ExportError e = assertThrows(ExportError.class, () -> export(k.fn(), k.inputs().get()));
            String first = e.getMessage().lines().findFirst().orElseThrow();
            assertTrue(first.contains("graph break at BreakPrograms.java:") && first.contains(k.breaks().getFirst()), first);
        }));
    }

    private static ExportedProgram export(Object fn, Object[] args) {
        return Exporter.export(fn, ExportOptions.defaults(), args, a -> Compiled.call(fn, a));
    }

    /** The user inputs in signature order, each read from the call's arguments by its target ({@code x}, {@code xs[0]}, {@code p.a}). */
    private static Tensor[] userInputs(Object fn, Object[] args, ExportedProgram ep) {
        FunctionTarget target = FunctionTarget.of(fn);
        Object[] frame = new Object[target.captured().length + args.length];
        System.arraycopy(target.captured(), 0, frame, 0, target.captured().length);
        System.arraycopy(args, 0, frame, target.captured().length, args.length);
        List<String> names = FullGraphCapture.argumentNames(target, frame);
        List<Tensor> out = new ArrayList<>();
        for (InputSpec s : ep.graphSignature().userInputs()) {
            Matcher m = Pattern.compile("^(\\w+)(.*)$").matcher(s.target());
            assertTrue(m.matches(), s.target());
            out.add((Tensor) resolve(frame[names.indexOf(m.group(1))], m.group(2)));
        }
        return out.toArray(Tensor[]::new);
    }

    private static final Pattern STEP = Pattern.compile("\\[(\\d+)]|\\['([^']*)']|\\.(\\w+)");

    /** The part of {@code root} at {@code path}: {@code [0]}, {@code ['k']}, {@code .field}, in any sequence. */
    private static Object resolve(Object root, String path) {
        Object v = root;
        Matcher m = STEP.matcher(path);
        int at = 0;
        while (at < path.length()) {
            assertTrue(m.find(at) && m.start() == at, "bad path " + path);
            if (m.group(1) != null) {
                int i = Integer.parseInt(m.group(1));
                v = v instanceof List<?> l ? l.get(i) : ((Object[]) v)[i];
            } else if (m.group(2) != null) {
                v = ((Map<?, ?>) v).get(m.group(2));
            } else {
                v = field(v, m.group(3));
            }
            at = m.end();
        }
        return v;
    }

    private static Object field(Object o, String name) {
        try {
            Field f = o.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return f.get(o);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static List<Tensor> tensorsIn(Object v) {
        List<Tensor> out = new ArrayList<>();
        switch (v) {
            case Tensor t -> { if (out.stream().noneMatch(x -> x == t)) out.add(t); }
            case List<?> l -> l.forEach(x -> out.addAll(tensorsIn(x)));
            case Object[] a -> { for (Object x : a) out.addAll(tensorsIn(x)); }
            case Map<?, ?> m -> m.values().forEach(x -> out.addAll(tensorsIn(x)));
            case Record r -> {
                for (var c : r.getClass().getRecordComponents()) out.addAll(tensorsIn(field(r, c.getName())));
            }
            case null, default -> { }
        }
        Set<Tensor> distinct = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        return out.stream().filter(distinct::add).toList();
    }
}
