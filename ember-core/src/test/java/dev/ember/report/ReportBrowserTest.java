package dev.ember.report;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opens the report in real headless Chromium (Debian's {@code chromium}, which .ci/run installs) from the file
 * system, with networking off, and checks what the browser rendered: the index and its trie, a graph-break page,
 * and in a screenshot, the status colours.
 */
class ReportBrowserTest {
    @TempDir
    static Path tmp;

    private static Path chromium;
    private static Path report;

    @BeforeAll
    static void setUp() throws IOException {
        chromium = findChromium();
        Assumptions.assumeTrue(chromium != null, "Chromium is not installed (looked for chromium, chromium-browser on PATH and in /usr/bin); "
                + ".ci/run installs it with 'apt-get install -y chromium', or install it by hand to run this test");
        Path trace = tmp.resolve("trace");
        SyntheticRun.write(trace);
        report = Report.generate(trace, tmp.resolve("report")).index().getParent();
    }

    private static Path findChromium() {
        List<Path> candidates = new ArrayList<>();
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty()) {
                candidates.add(Path.of(dir, "chromium"));
                candidates.add(Path.of(dir, "chromium-browser"));
            }
        }
        candidates.add(Path.of("/usr/bin/chromium"));
        for (Path p : candidates) if (Files.isExecutable(p)) return p;
        return null;
    }

    /** Runs Chromium headless on a file URL with {@code extra} flags; returns its stdout. */
    private static String chromium(Path page, String... extra) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + Files.createTempDirectory(tmp, "profile")));
        cmd.addAll(List.of(extra));
        cmd.add(page.toUri().toString());
        Path stdout = Files.createTempFile(tmp, "stdout", ".html");
        Path stderr = Files.createTempFile(tmp, "stderr", ".txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 120 s on " + page + "\n" + Files.readString(stderr));
        }
        assertEquals(0, p.exitValue(), () -> "chromium failed on " + page + ":\n" + read(stderr));
        return Files.readString(stdout, StandardCharsets.UTF_8);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** The DOM after load, with tags removed: what a reader sees. */
    private static String renderedText(Path page) throws IOException, InterruptedException {
        String dom = chromium(page, "--dump-dom");
        assertTrue(dom.contains("</html>"), "no DOM dumped for " + page + ": " + dom);
        return dom.replaceAll("<style>[\\s\\S]*?</style>", "").replaceAll("<[^>]+>", "").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", "\"");
    }

    @Test
    void indexRendersTheSummaryAndTheStackTrie() throws Exception {
        String text = renderedText(report.resolve("index.html"));
        assertTrue(text.contains("Stack trie"), text);
        assertTrue(text.contains("dev/ember/examples/MyApp.java:12 in MyApp.main"), "outer frame of the trie");
        assertTrue(text.contains("MyApp.java:8 in MyApp.fn$resume_at_7"), "resume function in the trie");
        assertTrue(text.contains("Model.java:14 in Model.forward"), "second stack in the trie");
        for (String id : List.of("[0/0]", "[0/1]", "[1/0]", "[2/0]")) assertTrue(text.contains(id), id);
        assertTrue(text.contains("2 graph break(s)"), text);
        assertFalse(text.contains("problem(s) reading the trace"), "a clean trace has no warning");
    }

    @Test
    void graphBreakPageRendersTheReasonMetricsAndBytecode() throws Exception {
        String text = renderedText(report.resolve("0_0_0/index.html"));
        assertTrue(text.contains("Compilation [0/0]: MyApp.fn"), text);
        assertTrue(text.contains("Graph break in user code at MyApp.java:7"), text);
        assertTrue(text.contains("Graph Break Reason: Print or logging call (GB0005)"));
        assertTrue(text.contains("System.out.println(\"debug: \" + z.shape());"));
        assertTrue(text.contains("Graph ops2"), "metrics table row: " + text);
        assertTrue(text.contains("TENSOR_MATCH: L['x']"), "guards");
        assertTrue(text.contains("invokestatic MyApp.fn$resume_at_7"), "modified bytecode");
    }

    @Test
    void failuresPageRendersEveryBreakAndTheFailure() throws Exception {
        String text = renderedText(report.resolve("failures_and_restarts.html"));
        assertTrue(text.contains("Failures and restarts"));
        assertEquals(2, text.split("User code traceback:", -1).length - 1, "both breaks with their full reason");
        assertTrue(text.contains("Failure: IllegalArgumentException"));
        assertTrue(text.contains("expected 3, actual 5"), "the recompile reason");
    }

    @Test
    void screenshotShowsTheStatusColours() throws Exception {
        Path png = report.getParent().resolve("report.png");
        chromium(report.resolve("index.html"), "--screenshot=" + png, "--window-size=1280,1100", "--hide-scrollbars");
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(1280, img.getWidth());
        // Badges are drawn in the status colours: compiled green, graph break amber, failed red.
        assertTrue(hasColour(img, 0x1a7f37), "no green (compiled) pixels");
        assertTrue(hasColour(img, 0xf0b429), "no amber (graph break) pixels");
        assertTrue(hasColour(img, 0xcf222e), "no red (failed) pixels");
        Path keep = Path.of("target", "report-screenshot.png");
        Files.createDirectories(keep.getParent());
        Files.copy(png, keep, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static boolean hasColour(BufferedImage img, int rgb) {
        int count = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                if ((img.getRGB(x, y) & 0xffffff) == rgb && ++count > 20) return true;
            }
        }
        return false;
    }
}
