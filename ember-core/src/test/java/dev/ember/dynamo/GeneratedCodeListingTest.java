package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code bytecode} artifact: the method and the code generated after its break, listed javap-style with names, source lines and notes. */
class GeneratedCodeListingTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor fn(Tensor x) {
        Tensor y = x.relu();
        Ember.graphBreak();
        return y.add(1.5);
    }

    private static List<Bytecode> bytecodeEvents() {
        var f = Ember.compile(GeneratedCodeListingTest::fn);
        List<Bytecode> events = new ArrayList<>();
        try (var s = Ember.events().subscribe(e -> {
            if (e instanceof Bytecode b) events.add(b);
        })) {
            f.apply(Tensor.randn(3));
        }
        return events;
    }

    @Test
    void theGeneratedClassIsListedWithNamesAndNotes() {
        List<Bytecode> events = bytecodeEvents();
        assertEquals(2, events.size(), "the method's compile and its resume method's: " + events);
        String generated = events.getFirst().generated();
        assertTrue(generated.matches("(?s)final synthetic class GeneratedCodeListingTest\\$Resume\\d+  \\(GeneratedCodeListingTest.java\\)\n.*"), generated);
        assertTrue(generated.contains("\npublic static Tensor breakAt(Object[], ResumeTarget)\n     bci  instruction\n"), generated);
        assertTrue(generated.matches("(?s).*\n {4} +0  aload_0 +// restore the live values \\(locals, then the stack\\) from the graph's outputs\n.*"), generated);
        assertTrue(generated.matches("(?s).*  goto +\\d+ +// jump to the breaking instruction\n.*"), generated);
        assertTrue(generated.matches("(?s).*  invokestatic    Ember\\.graphBreak\\(\\) : void +// graph break: this instruction runs as ordinary bytecode\n.*"), generated);
        assertTrue(generated.matches("(?s).*  invokevirtual   ResumeTarget\\.call\\(Object\\[\\]\\) : Object +// resume → resume_in_fn_at_\\d+ \\(through its compiled frame\\)\n.*"), generated);
        assertTrue(generated.matches("(?s).*\npublic static Tensor resume_in_fn_at_\\d+\\(Tensor\\)\n.*"), generated);
        assertTrue(generated.matches("(?s).*  goto_w +\\d+ +// to the prologue: the live values into their slots\n.*"), generated);
        assertTrue(generated.matches("(?s).*  goto_w +\\d+ +// continue after the break, at bci \\d+\n.*"), generated);
        assertTrue(generated.contains("// GeneratedCodeListingTest.java:" + (lineOf("Ember.graphBreak();")) + ": Ember.graphBreak();"), "source lines: " + generated);
        assertFalse(generated.contains("#"), "names, not constant-pool indexes: " + generated);
    }

    @Test
    void theOriginalMethodIsListedWithItsSourceLines() {
        String original = bytecodeEvents().getFirst().original().get();
        assertTrue(original.contains("\nstatic Tensor fn(Tensor)\n     bci  instruction\n"), original);
        assertTrue(original.contains("// GeneratedCodeListingTest.java:" + lineOf("Tensor y = x.relu();") + ": Tensor y = x.relu();\n"), original);
        assertTrue(original.matches("(?s).*\n {4} +1  invokevirtual   Tensor\\.relu\\(\\) : Tensor\n.*"), original);
        assertTrue(original.matches("(?s).*  ldc2_w +1\\.5d\n.*"), "constants as Java writes them: " + original);
    }

    private static int lineOf(String code) {
        try {
            return java.nio.file.Files.readAllLines(java.nio.file.Path.of("src/test/java/dev/ember/dynamo/GeneratedCodeListingTest.java")).indexOf("        " + code) + 1;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
