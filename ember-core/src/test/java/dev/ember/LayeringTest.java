package dev.ember;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DESIGN.md's rule, by test: a layer never uses a layer above it, and no two layers use each other.
 * Every file of ember-core belongs to a layer: its top-level package, except that the root
 * package's API types (Options, the Fn interfaces, Cond) are the layer {@code api} above the graph
 * stages they configure, {@code Ember.java} is {@code facade}, over everything that compiles, and
 * the differential fuzzer ({@code debug/fuzz}) and the start-up cache's training run
 * ({@code startup}), which drive the facade as a user does, are {@code tools}, above it. A use is an import or a fully qualified
 * name in code (comments and strings are not read). The one pair of layers allowed to use each
 * other is tensor and ops: a Tensor's methods are the op table's front door, as torch.Tensor's
 * are torch.ops'; see docs/architecture.md. The bottom layers, {@code tuning} (the machine's
 * description and the kernel choices measured on it) and {@code kernels} (the loops over primitive
 * arrays, which size themselves by the machine), use no other package of Ember at all.
 */
class LayeringTest {
    /** Bottom to top: a layer may use the layers before it, never one after it. */
    private static final List<String> ORDER = List.of(
            "tuning", "kernels", "jvm", "logging", "tensor", "ops", "nn", "optim", "fx", "events", "passes", "aot", "api", "report",
            "inductor", "dynamo", "export", "debug", "facade", "tools");

    /** Pairs that use each other by design (the lower one is allowed to use the higher). */
    private static final Set<String> ALLOWED_UPWARD = Set.of("tensor->ops");

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?dev\\.ember\\.([a-z]+)\\.", Pattern.MULTILINE);
    private static final Pattern QUALIFIED = Pattern.compile("\\bdev\\.ember\\.([a-z]+)\\.[A-Za-z]");
    private static final Pattern ROOT_TYPE = Pattern.compile("\\bdev\\.ember\\.([A-Z]\\w*)");

    private static final Path ROOT = Path.of("src/main/java/dev/ember");
    /** The templates the dtype kernels are generated from: their code is ember-core's too. */
    private static final Path TEMPLATES = Path.of("src/main/templates/dev/ember");

    @Test
    void noLayerUsesALayerAboveIt() throws IOException {
        Map<String, Set<String>> uses = uses();
        List<String> violations = new ArrayList<>();
        uses.forEach((from, tos) -> {
            for (String to : tos) {
                if (ORDER.indexOf(to) > ORDER.indexOf(from) && !ALLOWED_UPWARD.contains(from + "->" + to)) violations.add(from + " uses " + to);
            }
        });
        assertEquals(List.of(), violations, "uses by file: " + usesByFile(violations));
    }

    /**
     * dev.ember.kernels is the bottom but for the machine's description: loops over primitive
     * arrays, which know no Tensor, DType or op (ops.eager binds tensors to them). Its files may
     * name only each other and dev.ember.tuning: no import or fully qualified name of another
     * dev.ember package, and no root-package type.
     */
    @Test
    void kernelsUseNoOtherPackageOfEmber() throws IOException {
        Pattern anyEmber = Pattern.compile("\\bdev\\.ember\\.(?!kernels\\b|tuning\\b)[A-Za-z]\\w*");
        List<String> found = new ArrayList<>();
        int files = 0;
        for (Map.Entry<Path, String> f : sources().entrySet()) {
            if (!layerOf(f.getKey()).equals("kernels")) continue;
            files++;
            Matcher m = anyEmber.matcher(f.getValue());
            while (m.find()) found.add(f.getKey() + ": " + m.group());
        }
        assertTrue(files > 0, "no source of dev.ember.kernels found");
        assertEquals(List.of(), found, "dev.ember.kernels may use nothing of Ember but itself and dev.ember.tuning");
    }

    @Test
    void everyPackageHasALayer() throws IOException {
        assertTrue(Files.isDirectory(ROOT.resolve("inductor")), "run from ember-core: " + ROOT.toAbsolutePath());
        List<String> unknown = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(ROOT)) {
            for (Path d : dirs.filter(Files::isDirectory).toList()) {
                String pkg = d.getFileName().toString();
                if (!ORDER.contains(SAME_LAYER.getOrDefault(pkg, pkg))) unknown.add(d.getFileName().toString());
            }
        }
        assertEquals(List.of(), unknown, "place these packages in LayeringTest.ORDER");
    }

    @Test
    void noCycleBetweenLayers() throws IOException {
        Map<String, Set<String>> uses = uses();
        for (String pair : ALLOWED_UPWARD) uses.getOrDefault(pair.split("->")[0], new TreeSet<>()).remove(pair.split("->")[1]);
        List<String> cycle = findCycle(uses);
        assertEquals(List.of(), cycle, "layers that reach each other");
    }

    private static Map<String, Set<String>> uses() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Map.Entry<Path, String> f : sources().entrySet()) {
            String from = layerOf(f.getKey());
            for (String to : usedLayers(f.getValue())) {
                if (!to.equals(from)) uses.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
            }
        }
        return uses;
    }

    private static Map<String, List<String>> usesByFile(List<String> violations) throws IOException {
        Map<String, List<String>> out = new TreeMap<>();
        for (Map.Entry<Path, String> f : sources().entrySet()) {
            String from = layerOf(f.getKey());
            for (String to : usedLayers(f.getValue())) {
                if (violations.contains(from + " uses " + to)) out.computeIfAbsent(from + " uses " + to, k -> new ArrayList<>()).add(f.getKey().toString());
            }
        }
        return out;
    }

    private static Map<Path, String> sources() throws IOException {
        Map<Path, String> out = new LinkedHashMap<>();
        for (Path root : List.of(ROOT, TEMPLATES)) {
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".java.template")).sorted().toList()) {
                    out.put(f, code(Files.readString(f)));
                }
            }
        }
        return out;
    }

    /** Packages that are part of another package's layer. */
    private static final Map<String, String> SAME_LAYER = Map.of(
            // autograd wraps the op table as PyTorch's Autograd dispatch key wraps ATen's kernels:
            // OpOverload.call hands recorded calls to it, and it runs each op's Derivative
            "autograd", "ops",
            // the AOT cache's training run uses Ember as a program does, through the facade
            "startup", "tools");

    static String layerOf(Path file) {
        Path rel = (file.startsWith(TEMPLATES) ? TEMPLATES : ROOT).relativize(file);
        if (rel.getNameCount() == 1) return rel.toString().equals("Ember.java") ? "facade" : "api";
        if (rel.startsWith("debug/fuzz")) return "tools";
        String pkg = rel.getName(0).toString();
        return SAME_LAYER.getOrDefault(pkg, pkg);
    }

    private static Set<String> usedLayers(String code) {
        Set<String> out = new TreeSet<>();
        Matcher m = IMPORT.matcher(code);
        while (m.find()) out.add(SAME_LAYER.getOrDefault(m.group(1), m.group(1)));
        m = QUALIFIED.matcher(code);
        while (m.find()) out.add(SAME_LAYER.getOrDefault(m.group(1), m.group(1)));
        m = ROOT_TYPE.matcher(code);
        while (m.find()) out.add(m.group(1).equals("Ember") ? "facade" : "api");
        return out;
    }

    /** The source without comments and string literals, so only code is read. */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0, n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') i++;
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < n && source.charAt(i) != c) i += source.charAt(i) == '\\' ? 2 : 1;
                i++;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static List<String> findCycle(Map<String, Set<String>> graph) {
        Map<String, Integer> state = new TreeMap<>();
        List<String> stack = new ArrayList<>();
        for (String start : graph.keySet()) {
            List<String> c = visit(start, graph, state, stack);
            if (!c.isEmpty()) return c;
        }
        return List.of();
    }

    private static List<String> visit(String node, Map<String, Set<String>> graph, Map<String, Integer> state, List<String> stack) {
        Integer s = state.get(node);
        if (s != null && s == 2) return List.of();
        if (s != null && s == 1) {
            List<String> cycle = new ArrayList<>(stack.subList(stack.indexOf(node), stack.size()));
            cycle.add(node);
            return cycle;
        }
        state.put(node, 1);
        stack.add(node);
        for (String next : graph.getOrDefault(node, Set.of())) {
            List<String> c = visit(next, graph, state, stack);
            if (!c.isEmpty()) return c;
        }
        stack.removeLast();
        state.put(node, 2);
        return List.of();
    }
}
