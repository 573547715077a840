package dev.ember.build;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Expands source templates ({@code *.java.template}) into Java classes, so that code kept once per
 * dtype (the float32, float64, int32 and int64 kernels) has one text to edit. The build runs it
 * before compiling (ember-core/pom.xml, phase generate-sources) as a source-file program:
 * {@code java SourceTemplates.java <templates folder> <output folder>}. A template at
 * {@code <templates>/dev/ember/x/T.java.template} writes into {@code <output>/dev/ember/x/}; files
 * there that no template makes any more are deleted, unchanged ones are left untouched.
 *
 * <p>A template is Java with a few line directives, each alone on its line, in the spirit of the
 * JDK's Spp (which generates its typed buffer and vector classes):
 * <pre>
 * #generate Name type...        first line: one class per listed type, Name and body expanded for each
 * #generate Name                first line: a single class; its typed parts sit in #for blocks
 * #for[type,type...]            the lines up to #end[for], once per listed type, in order
 * #if[cond]                     the lines up to #else[cond] or #end[cond] when cond holds for the
 * #else[cond]                     type in scope, the ones after #else[cond] when it does not; cond is
 * #end[cond]                      a type or floating (float, double) or integral (int, long)
 * </pre>
 * and keys, replaced by what they stand for with the type in scope (a file's, or the innermost
 * {@code #for}'s):
 * <pre>
 * $type$    float     double    int       long
 * $Type$    Float     Double    Int       Long       (FloatVector, IntVector)
 * $Boxed$   Float     Double    Integer   Long
 * $Tag$     F32       F64       I32       I64        (class names: PointwiseF32Vec)
 * $dtype$   float32   float64   int32     int64      (prose)
 * $blas$    s         d         i         l          (BLAS-style names: sgemm, dgemm)
 * $BLAS$    S         D         I         L          (SGEMM)
 * </pre>
 * A key outside any type's scope, an unknown key or directive, and an unclosed or mismatched block
 * are errors naming the template line.
 */
public final class SourceTemplates {
    private SourceTemplates() {}

    /** The types a template may be expanded for, with the value of every key. */
    enum Type {
        FLOAT("float", "Float", "Float", "F32", "float32", "s"),
        DOUBLE("double", "Double", "Double", "F64", "float64", "d"),
        INT("int", "Int", "Integer", "I32", "int32", "i"),
        LONG("long", "Long", "Long", "I64", "int64", "l");

        final Map<String, String> keys;

        Type(String type, String capitalized, String boxed, String tag, String dtype, String blas) {
            keys = Map.of("type", type, "Type", capitalized, "Boxed", boxed, "Tag", tag, "dtype", dtype,
                    "blas", blas, "BLAS", blas.toUpperCase(Locale.ROOT));
        }

        boolean holds(String cond) {
            return switch (cond) {
                case "floating" -> this == FLOAT || this == DOUBLE;
                case "integral" -> this == INT || this == LONG;
                default -> cond.equals(keys.get("type"));
            };
        }

        static Type named(String name, String where) {
            for (Type t : values()) {
                if (t.keys.get("type").equals(name)) return t;
            }
            throw new TemplateException(where + ": unknown type '" + name + "'; types are float, double, int, long");
        }
    }

    /** One generated file: its name (Name.java) and its text. */
    record Output(String fileName, String text) {}

    /** A template that cannot be expanded; the message names the template line. */
    static final class TemplateException extends RuntimeException {
        TemplateException(String message) { super(message); }
    }

    /** Any line whose first non-blank character is '#' (Java has none): a directive, known or not. */
    private static final Pattern DIRECTIVE = Pattern.compile("\\s*#([a-z]*)(.*)");
    private static final Pattern BRACKETED = Pattern.compile("\\[([a-z,]+)]\\s*");
    private static final Pattern KEY = Pattern.compile("\\$([A-Za-z]+)\\$");
    private static final Set<String> CONDITIONS = Set.of("float", "double", "int", "long", "floating", "integral");

    /**
     * Expands one template. {@code source} names it in error messages and in each output's header
     * (say, the path it was read from).
     */
    static List<Output> expand(String source, String text) {
        List<String> lines = text.lines().toList();
        if (lines.isEmpty()) throw new TemplateException(source + ":1: empty template; it must start with #generate");
        Matcher first = DIRECTIVE.matcher(lines.getFirst());
        if (!first.matches() || !first.group(1).equals("generate") || first.group(2).isBlank()) {
            throw new TemplateException(source + ":1: a template starts with '#generate Name [type...]', not '" + lines.getFirst() + "'");
        }
        String[] words = first.group(2).trim().split("\\s+");
        String name = words[0];
        Parser parser = new Parser(source, lines);
        List<Node> body = parser.block(1, null);
        String header = "// Generated from " + source + " by dev.ember.build.SourceTemplates (ember-core/src/build/java).\n"
                + "// Do not edit: edit the template; the build generates this file again.\n";
        List<Output> outputs = new ArrayList<>();
        if (words.length == 1) {
            outputs.add(new Output(substitute(name, null, source, 1) + ".java", header + render(body, null, source)));
        } else {
            for (String typeName : Arrays.copyOfRange(words, 1, words.length)) {
                Type t = Type.named(typeName, source + ":1");
                outputs.add(new Output(substitute(name, t, source, 1) + ".java", header + render(body, t, source)));
            }
        }
        return outputs;
    }

    private sealed interface Node {}

    private record Line(int number, String text) implements Node {}

    private record For(List<Type> types, List<Node> body) implements Node {}

    private record If(int number, String cond, List<Node> then, List<Node> otherwise) implements Node {}

    private static final class Parser {
        private final String source;
        private final List<String> lines;
        private int at;

        Parser(String source, List<String> lines) {
            this.source = source;
            this.lines = lines;
        }

        /**
         * Reads lines from {@code start} up to the directive that closes {@code open} (#end[for] for a
         * #for, #else or #end of its condition for an #if), or to the end of the template when open is null.
         */
        List<Node> block(int start, Directive open) {
            List<Node> nodes = new ArrayList<>();
            for (at = start; at < lines.size(); at++) {
                Matcher m = DIRECTIVE.matcher(lines.get(at));
                if (!m.matches()) {
                    nodes.add(new Line(at + 1, lines.get(at)));
                    continue;
                }
                if (m.group(1).equals("generate")) throw error(at, "#generate belongs on the first line only");
                Directive d = directive(m);
                switch (d.word) {
                    case "for" -> {
                        List<Type> types = d.arg.stream().map(t -> Type.named(t, source + ":" + (d.line + 1))).toList();
                        nodes.add(new For(types, block(at + 1, d)));
                    }
                    case "if" -> {
                        if (d.arg.size() != 1 || !CONDITIONS.contains(d.arg.getFirst())) throw error(at, "#if takes one of " + CONDITIONS);
                        List<Node> then = block(at + 1, d), otherwise = List.of();
                        if (word(at).equals("else")) {
                            otherwise = block(at + 1, d);
                            if (!word(at).equals("end")) throw error(at, "a second #else for #if" + d.arg + " of line " + (d.line + 1));
                        }
                        nodes.add(new If(d.line + 1, d.arg.getFirst(), then, otherwise));
                    }
                    case "else", "end" -> {
                        boolean closes = open != null && (open.word.equals("for")
                                ? d.word.equals("end") && d.arg.equals(List.of("for"))
                                : d.arg.equals(open.arg));
                        if (!closes) {
                            throw error(at, "#" + d.word + d.arg + " does not close "
                                    + (open == null ? "any open block" : "#" + open.word + open.arg + " of line " + (open.line + 1)));
                        }
                        return nodes;
                    }
                    default -> throw error(at, "unknown directive #" + d.word + "; directives are #generate, #for, #if, #else, #end");
                }
            }
            if (open != null) throw error(open.line, "#" + open.word + open.arg + " is never closed");
            return nodes;
        }

        /** The directive word of line {@code i}, which closed a block. */
        private String word(int i) {
            Matcher m = DIRECTIVE.matcher(lines.get(i));
            if (!m.matches()) throw new AssertionError(lines.get(i));
            return m.group(1);
        }

        private record Directive(int line, String word, List<String> arg) {}

        private Directive directive(Matcher m) {
            Matcher arg = BRACKETED.matcher(m.group(2));
            if (!arg.matches()) throw error(at, "#" + m.group(1) + " takes [condition] or [type,type...] and nothing else on its line, not '" + m.group(2) + "'");
            return new Directive(at, m.group(1), List.of(arg.group(1).split(",")));
        }

        private TemplateException error(int line, String message) {
            return new TemplateException(source + ":" + (line + 1) + ": " + message);
        }
    }

    private static String render(List<Node> nodes, Type type, String source) {
        StringBuilder out = new StringBuilder();
        render(nodes, type, source, out);
        return out.toString();
    }

    private static void render(List<Node> nodes, Type type, String source, StringBuilder out) {
        for (Node node : nodes) {
            switch (node) {
                case Line(int number, String text) -> out.append(substitute(text, type, source, number)).append('\n');
                case For(List<Type> types, List<Node> body) -> {
                    for (Type t : types) render(body, t, source, out);
                }
                case If(int number, String cond, List<Node> then, List<Node> otherwise) -> {
                    if (type == null) throw new TemplateException(source + ":" + number + ": #if[" + cond + "] outside any type's scope (#generate with types, or #for)");
                    render(type.holds(cond) ? then : otherwise, type, source, out);
                }
            }
        }
    }

    private static String substitute(String text, Type type, String source, int number) {
        Matcher m = KEY.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String key = m.group(1);
            if (!Type.FLOAT.keys.containsKey(key)) {
                throw new TemplateException(source + ":" + number + ": unknown key $" + key + "$; keys are " + Type.FLOAT.keys.keySet().stream().sorted().map(k -> "$" + k + "$").toList());
            }
            if (type == null) throw new TemplateException(source + ":" + number + ": $" + key + "$ outside any type's scope (#generate with types, or #for)");
            m.appendReplacement(out, Matcher.quoteReplacement(type.keys.get(key)));
        }
        return m.appendTail(out).toString();
    }

    /** Expands every {@code *.java.template} below {@code args[0]} into {@code args[1]}. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java SourceTemplates.java <templates folder> <output folder>");
            System.exit(2);
        }
        Path templates = Path.of(args[0]), output = Path.of(args[1]);
        try {
            int written = generate(templates, output);
            if (written > 0) System.out.println("SourceTemplates: " + written + " file(s) written from " + templates);
        } catch (TemplateException e) {
            System.err.println("SourceTemplates: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Returns how many files were written (new or changed). */
    static int generate(Path templates, Path output) throws IOException {
        Set<Path> made = new HashSet<>();
        int written = 0;
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(templates)) {
            sources = walk.filter(p -> p.getFileName().toString().endsWith(".java.template")).sorted().toList();
        }
        for (Path template : sources) {
            Path folder = output.resolve(templates.relativize(template.getParent()).toString());
            for (Output o : expand(template.toString(), Files.readString(template))) {
                Path file = folder.resolve(o.fileName());
                if (!made.add(file)) throw new TemplateException(template + ": " + file + " is made by another template too");
                if (Files.exists(file) && Files.readString(file).equals(o.text())) continue;
                Files.createDirectories(folder);
                Files.writeString(file, o.text());
                written++;
            }
        }
        if (Files.isDirectory(output)) {
            List<Path> stale;
            try (Stream<Path> walk = Files.walk(output)) {
                stale = walk.filter(p -> p.toString().endsWith(".java") && !made.contains(p)).toList();
            }
            for (Path p : stale) Files.delete(p);
        }
        return written;
    }
}
