package dev.ember.dynamo.comptime;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.dynamo.Comptime;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The examples of docs/comptime.md, as written there: the page shows this code and what it prints. */
class ComptimeDocsExampleTest {
    private static final Path PAGE = Path.of("..", "docs", "comptime.md");

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor fn(Tensor x, int n) {
        Tensor y = x.relu().mul(n);
        Comptime.printLocals();
        Comptime.printGraph();
        Comptime.assertStatic(n);
        return y.sum();
    }

    @Test
    void printsWhatThePageShows() throws IOException {
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ComptimeDocsExampleTest::fn);
        String printed = dev.ember.testing.Stdout.of(() -> {
            f.apply(Tensor.randn(3, 4), 2);   // traced: prints
            f.apply(Tensor.randn(3, 4), 2);   // the cached graph runs: prints nothing
        });
        String page = Files.readString(PAGE);
        assertTrue(page.contains("```\n" + printed + "```\n"), "docs/comptime.md should show:\n" + printed);
        assertTrue(page.contains(body("static Tensor fn(Tensor x, int n) {")), "the page shows fn as this test has it");
    }

    static Tensor rows(Tensor x) {
        Comptime.assertStatic(x.size(0));
        return x.softmax(1);
    }

    @Test
    void assertStaticFailsAsThePageShows() throws IOException {
        Tensor x = Tensor.randn(5, 3);
        Ember.markDynamic(x, 0);
        AssertionError e = assertThrows(AssertionError.class, () -> Ember.compile((Fn1<Tensor, Tensor>) ComptimeDocsExampleTest::rows).apply(x));
        String page = Files.readString(PAGE);
        assertTrue(page.contains("```\n" + e.getMessage() + "\n```\n"), "docs/comptime.md should show:\n" + e.getMessage());
        assertTrue(page.contains(body("static Tensor rows(Tensor x) {")), "the page shows rows as this test has it");
    }

    /** The method starting with {@code header} in this file, unindented to the page's indentation. */
    private static String body(String header) throws IOException {
        String source = Files.readString(Path.of("src/test/java/dev/ember/dynamo/comptime/ComptimeDocsExampleTest.java"));
        int start = source.indexOf("    " + header);
        int end = source.indexOf("\n    }\n", start) + "\n    }\n".length();
        return source.substring(start, end).lines().map(l -> l.startsWith("    ") ? l.substring(4) : l).reduce("", (a, b) -> a + b + "\n");
    }
}
