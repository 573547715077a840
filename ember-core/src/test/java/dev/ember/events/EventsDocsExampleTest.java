package dev.ember.events;

import dev.ember.Ember;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The example of docs/logging.md's "Compile events", as written there. */
class EventsDocsExampleTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor fn(Tensor x) {
        Tensor y = x.relu();
        Ember.graphBreak();
        return y.add(1.0);
    }

    private static void example() {
        var f = Ember.compile(EventsDocsExampleTest::fn);
        try (var s = Ember.events().subscribe(e -> {
            switch (e) {
                case GraphBreak b -> System.out.println(b.gbId() + " at " + b.userFrame());
                case Recompile r -> System.out.println("recompiling " + r.function() + ": " + r.failedGuards());
                case FrameCompiled c -> System.out.println(c.function() + ": " + c.graphs() + " graph(s), " + c.breaks() + " break(s)");
                default -> { }
            }
        })) {
            f.apply(Tensor.randn(3, 4));
            f.apply(Tensor.randn(5, 4));
        }
    }

    @Test
    void printsWhatTheDocsShow() {
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            example();
        } finally {
            System.setOut(out);
        }
        assertEquals("""
                GB0016 at EventsDocsExampleTest.java:24 in EventsDocsExampleTest.fn
                EventsDocsExampleTest.fn: 1 graph(s), 1 break(s)
                EventsDocsExampleTest.resume_in_fn_at_25: 1 graph(s), 0 break(s)
                recompiling EventsDocsExampleTest.fn: [tensor 'x' size mismatch at index 0. expected 3, actual 5]
                GB0016 at EventsDocsExampleTest.java:24 in EventsDocsExampleTest.fn
                EventsDocsExampleTest.fn: 2 graph(s), 2 break(s)
                recompiling EventsDocsExampleTest.resume_in_fn_at_25: [tensor 'y' size mismatch at index 0. expected 3, actual 5]
                EventsDocsExampleTest.resume_in_fn_at_25: 2 graph(s), 0 break(s)
                """, printed.toString(StandardCharsets.UTF_8));
    }
}
