package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.FakeTensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Graph.parse on every graph the corpora capture (the PyTorch corpus and the capture corpus): the
 * readable form parses back into a graph that prints the same text, and a graph of ops that neither
 * writes its inputs nor draws random numbers, run on the same inputs, gives the same values as the
 * captured one.
 */
class GraphParseCorpusTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** A backend that parses each graph's printed form back and, at each call, runs the parsed graph beside the captured one. */
    static final class RoundTrip implements Backend {
        String current;
        int graphs;
        int compared;
        final List<String> failures = new ArrayList<>();

        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> fakes) {
            CompiledGraph captured = Backends.EAGER.compile(gm, fakes);
            String text = gm.code();
            GraphModule parsed;
            try {
                parsed = GraphModule.parse(text);
            } catch (RuntimeException e) {
                failures.add(current + ": " + e.getMessage() + "\n" + text);
                return captured;
            }
            graphs++;
            if (!parsed.code().equals(text)) {
                failures.add(current + ": prints differently after parsing\n--- captured\n" + text + "--- parsed\n" + parsed.code());
                return captured;
            }
            if (!runsTheSame(gm) || text.contains("<constant ")) return captured;   // a tensor constant in the arguments prints its type only
            gm.attributes().forEach(parsed::setAttribute);
            gm.submodules().forEach(parsed::setSubmodule);
            if (parsed.sizeSymbols() == null) parsed.setSizeSymbols(gm.sizeSymbols());   // a symbol no input dimension is exactly (2*s0)
            CompiledGraph reparsed = Backends.EAGER.compile(parsed, fakes);
            String where = current;
            return inputs -> {
                Object[] expected = captured.run(inputs);
                Object[] actual = reparsed.run(inputs);
                compared++;
                try {
                    Compiled.assertSame(Arrays.asList(expected), Arrays.asList(actual), where + ": the parsed graph's outputs");
                } catch (AssertionError e) {
                    failures.add(e.getMessage() + "\n" + text);
                }
                return expected;
            };
        }

        /** Whether running the graph twice on the same inputs gives the same values: no writes, no random numbers, no live functions. */
        private static boolean runsTheSame(GraphModule gm) {
            for (Node n : gm.graph().nodes()) {
                if (n.kind() == NodeKind.PLACEHOLDER || n.kind() == NodeKind.OUTPUT || n.kind() == NodeKind.GET_ATTR) continue;
                if (n.isImpure() && n.target() != BuiltinFunctions.SET_GRAD_ENABLED) return false;
                if (n.kind() == NodeKind.CALL_FUNCTION && !(n.target() instanceof OpOverload) && n.target() != BuiltinFunctions.GETITEM
                        && n.target() != BuiltinFunctions.SET_GRAD_ENABLED) return false;
            }
            return true;
        }
    }

    @Test
    void everyPyTorchCorpusGraphParsesBackPrintsTheSameAndRunsTheSame() {
        RoundTrip rt = new RoundTrip();
        for (PyTorchCorpusTest.Case k : PyTorchCorpusTest.cases()) {
            if (PyTorchCorpusTest.KNOWN_FAILURES.containsKey(k.name())) continue;   // a known wrong result: PyTorchCorpusTest reports it
            Ember.reset();
            rt.current = k.name();
            PyTorchCorpusTest.run(k, rt);
        }
        assertEquals(List.of(), rt.failures, String.join("\n\n", rt.failures));
        assertTrue(rt.graphs > 200, "graphs parsed: " + rt.graphs);
        assertTrue(rt.compared > 100, "graphs run after parsing: " + rt.compared);
    }

    @Test
    void everyCaptureCorpusGraphParsesBackPrintsTheSameAndRunsTheSame() {
        RoundTrip rt = new RoundTrip();
        for (CorpusTest.Case k : CorpusTest.cases()) {
            Ember.reset();
            rt.current = k.name();
            Compiled.compile(k.fn(), Options.backend(rt)).apply(k.inputs().get());
        }
        assertEquals(List.of(), rt.failures, String.join("\n\n", rt.failures));
        assertTrue(rt.graphs > 20, "graphs parsed: " + rt.graphs);
    }
}
