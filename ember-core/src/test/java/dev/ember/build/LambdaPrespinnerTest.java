package dev.ember.build;

import dev.ember.ops.PointwiseOps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build step that turns lambdas into plain classes ({@link LambdaPrespinner}): lambdas of every
 * shape javac makes compute what the JDK's lambdas compute, the sites it cannot reproduce are left
 * to the JDK, and Ember's own op table was built through it.
 */
class LambdaPrespinnerTest {
    private static final String SHAPES = """
            package sample;
            import java.util.*;
            import java.util.function.*;
            public class Shapes extends Base {
                private int bias = 7;
                public static String run() {
                    StringBuilder out = new StringBuilder();
                    Function<String, Integer> len = String::length;                 // JDK method, boxed return
                    out.append(len.apply("abcd")).append(',');
                    IntBinaryOperator add = (a, b) -> a + b;                          // primitive interface method
                    out.append(add.applyAsInt(2, 3)).append(',');
                    long big = 1L << 40; double half = 0.5; char c = 'q'; boolean flag = true;
                    LongSupplier two = () -> big + (long) (half * 4) + c + (flag ? 1 : 0);   // two-slot and small captures
                    out.append(two.getAsLong()).append(',');
                    ToLongFunction<Integer> widen = Integer::intValue;              // unboxed receiver, int widened to long
                    out.append(widen.applyAsLong(42)).append(',');
                    Function<Integer, Object> box = Shapes::square;                 // unboxed argument, boxed result
                    out.append(box.apply(9)).append(',');
                    ToDoubleFunction<Integer> toDouble = Shapes::square;            // Integer -> int, int -> double
                    out.append(toDouble.applyAsDouble(3)).append(',');
                    Supplier<List<String>> make = ArrayList::new;                    // constructor reference
                    List<String> list = make.get(); list.add("x"); out.append(list).append(',');
                    IntFunction<int[]> array = int[]::new;                           // array constructor
                    out.append(array.apply(3).length).append(',');
                    Shapes s = new Shapes();
                    IntSupplier bound = s::plusBias;                                 // private method, bound receiver
                    out.append(bound.getAsInt()).append(',');
                    BiFunction<Shapes, Integer, Integer> unbound = Shapes::times;    // private method, unbound receiver
                    out.append(unbound.apply(s, 3)).append(',');
                    out.append(s.fromThis().get()).append(',');                      // captures this
                    out.append(s.viaSuper().get()).append(',');                      // super:: (javac bridges it)
                    IntSupplier inherited = out::length;                             // public method of a package-private JDK superclass
                    out.append(inherited.getAsInt() > 0).append(',');
                    Runnable r = () -> out.append("ran,");                           // void
                    r.run();
                    Consumer<String> drop = String::length;                          // result dropped
                    drop.accept("zz");
                    Function<Object, String> serial = (Function<Object, String> & java.io.Serializable) Object::toString;   // altMetafactory
                    out.append(serial.apply(5)).append(',');
                    out.append(Inner.outerSecret().get()).append(',');               // nested class, private method of the outer
                    out.append(Iface.make().get()).append(',');                      // interface: private static method
                    out.append(new Impl().greeting().get()).append(',');             // interface: private instance method
                    Supplier<Runnable> noCapture = () -> () -> {};
                    out.append(noCapture.get() == noCapture.get()).append(',');      // no captures: one instance
                    BinaryOperator<Integer> sum = Integer::sum;                      // generic interface, primitive method
                    out.append(sum.apply(20, 22)).append(',');
                    Predicate<String> empty = String::isEmpty;
                    out.append(empty.test("")).append(',');
                    // records: equals, hashCode and toString as ObjectMethods makes them (NaN equal to itself, -0.0 not to 0.0)
                    int[] shared = {1, 2};
                    Point p = new Point(Float.NaN, -0.0, 1L << 40, 'c', (byte) -3, true, null, shared, (short) 7);
                    Point same = new Point(Float.NaN, -0.0, 1L << 40, 'c', (byte) -3, true, null, shared, (short) 7);
                    Point other = new Point(Float.NaN, 0.0, 1L << 40, 'c', (byte) -3, true, null, shared, (short) 7);
                    out.append(p.equals(same)).append(p.equals(other)).append(p.equals(null)).append(p.equals("x")).append(',');
                    out.append(p.hashCode() == same.hashCode()).append(new Pair("a", 2).hashCode()).append(',');
                    out.append(new Pair("a", 2)).append(new Pair(null, -1)).append(new Empty()).append(new Empty().equals(new Empty())).append(new Empty().hashCode()).append(',');
                    out.append(p.toString().replaceAll("@[0-9a-f]+", "@")).append(',');
                    Map<Pair, Integer> order = new HashMap<>();
                    for (int i = 0; i < 40; i++) order.put(new Pair("k" + i, i % 7), i);
                    out.append(order.values()).append(',');
                    // string concatenation: every argument type, null, a toString's order, constant text around and between
                    byte by = -7; short sh = 300; char ch = 'z'; float fl = 1.0e-10f; double db = -0.0; Object nothing = null; String none = null;
                    List<String> calls = new ArrayList<>();
                    Object first = new Object() { public String toString() { calls.add("first"); return "1st"; } };
                    Object second = new Object() { public String toString() { calls.add("second"); return "2nd"; } };
                    out.append("b=" + by + " s=" + sh + " c=" + ch + " f=" + fl + " d=" + db + " l=" + big + " z=" + flag + " o=" + nothing
                            + " n=" + none + " " + first + second + calls + "\u0001\u0002 end" + half).append(',');
                    // pattern switches over types, with guards (the restart index), null, default, nested patterns
                    Object[] values = {new Pair("g", 5), new Pair("g", -5), new Empty(), "text", 3, null, List.of(1), new Point(1f, 2, 3, 'd', (byte) 4, false, "s", null, (short) 5)};
                    for (Object v : values) out.append(describe(v)).append(';');
                    for (String v : new String[] {"text", "other", "ab", null}) out.append(kind(v)).append(';');
                    out.append(',');
                    try {
                        Function<Object, Integer> bad = o -> (Integer) o;
                        bad.apply("not a number");
                    } catch (ClassCastException e) {
                        out.append("cce");
                    }
                    return out.toString();
                }
                static String describe(Object o) {
                    return switch (o) {
                        case null -> "null";
                        case Pair(String k, int v) when v > 0 -> "positive " + k;
                        case Pair p -> "pair " + p.value();
                        case Empty e -> "empty";
                        case Point(float x, double y, long z, char c, byte b, boolean f, String s, int[] arr, short sh) when s != null -> "point " + s;
                        case String s when s.length() > 10 -> "long";
                        case CharSequence cs -> "chars " + cs.length();
                        case Integer i -> "int " + i;
                        default -> "other " + o.getClass().getSimpleName().length();
                    };
                }
                static String kind(String o) {
                    return switch (o) {
                        case "text" -> "the text";                                   // a string label: keeps the JDK's switch
                        case String s when s.length() > 3 -> "a long string";
                        case null, default -> "else";
                    };
                }
                private static int square(int x) { return x * x; }
                private int plusBias() { return bias + 1; }
                private int times(int k) { return bias * k; }
                Supplier<String> fromThis() { return () -> "bias " + bias; }
                Supplier<String> viaSuper() { return super::name; }
                private static String secret() { return "secret"; }
                record Point(float x, double y, long z, char c, byte b, boolean f, String s, int[] arr, short sh) {}
                record Pair(String key, int value) {}
                record Empty() {}
                static final class Inner {
                    static Supplier<String> outerSecret() { return Shapes::secret; }
                }
            }
            class Base { String name() { return "base"; } }
            interface Iface {
                static Supplier<String> make() { return Iface::hidden; }
                private static String hidden() { return "iface"; }
                default Supplier<String> greeting() { return () -> hello(); }
                private String hello() { return "hello"; }
            }
            class Impl implements Iface {}
            """;

    @Test
    void lambdasOfEveryShapeComputeWhatTheJdksLambdasCompute(@TempDir Path dir) throws Exception {
        Path original = dir.resolve("original"), prespun = dir.resolve("prespun"), src = dir.resolve("src/sample/Shapes.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, SHAPES);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", original.toString(), src.toString()));
        javac.run(null, null, null, "-d", prespun.toString(), src.toString());

        LambdaPrespinner.main(new String[] {prespun.toString(), "sample"});

        String expected = run(original), actual = run(prespun);
        assertEquals(expected, actual);
        assertTrue(expected.endsWith("cce") && expected.contains("base,") && expected.contains("Pair[key=a, value=2]"), expected);   // every line ran
        // every plain site became a class (javac bridges super:: and protected references through a method of the
        // host, which a nestmate may call); the serializable lambda keeps the JDK's altMetafactory
        assertEquals(0, metafactorySites(prespun.resolve("sample")));
        assertTrue(metafactorySites(original.resolve("sample")) > 20);
        // the records' equals/hashCode/toString are written out: same answers, same hash order (asserted above)
        assertEquals(0, bootstrapSites(prespun.resolve("sample"), "ObjectMethods", "bootstrap"));
        assertEquals(9, bootstrapSites(original.resolve("sample"), "ObjectMethods", "bootstrap"));
        // type switches whose labels are all classes are written out; the one with a string label keeps the JDK's
        assertEquals(1, bootstrapSites(prespun.resolve("sample"), "SwitchBootstraps", "typeSwitch"));
        assertEquals(2, bootstrapSites(original.resolve("sample"), "SwitchBootstraps", "typeSwitch"));
        // string concatenations are written out too
        assertEquals(0, bootstrapSites(prespun.resolve("sample"), "StringConcatFactory", "makeConcatWithConstants"));
        assertTrue(bootstrapSites(original.resolve("sample"), "StringConcatFactory", "makeConcatWithConstants") > 3);
        try (Stream<Path> files = Files.list(prespun.resolve("sample"))) {
            assertTrue(files.filter(f -> f.getFileName().toString().contains("$$PrespunLambda$")).count() > 20);
        }
    }

    @Test
    void runningItAgainChangesNothing(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src/sample/Shapes.java"), out = dir.resolve("out");
        Files.createDirectories(src.getParent());
        Files.writeString(src, SHAPES);
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", out.toString(), src.toString()));
        LambdaPrespinner.main(new String[] {out.toString(), "sample"});
        List<String> once = listing(out);
        String first = run(out);
        LambdaPrespinner.main(new String[] {out.toString(), "sample"});
        assertEquals(once, listing(out));
        assertEquals(first, run(out));
    }

    /** The build ran it over Ember's op table: no op group links a lambda at start-up. */
    @Test
    void emberOpTableHasNoLambdaLinkageLeft() throws Exception {
        Path classes = Path.of(PointwiseOps.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertEquals(0, metafactorySites(classes.resolve("dev/ember/ops")));
        assertEquals(0, bootstrapSites(classes.resolve("dev/ember/inductor"), "ObjectMethods", "bootstrap"));
        assertEquals(0, bootstrapSites(classes.resolve("dev/ember/inductor/ir"), "SwitchBootstraps", "typeSwitch"));
        assertTrue(Files.exists(classes.resolve("dev/ember/ops/PointwiseOps$$PrespunLambda$0.class")));
    }

    private static String run(Path classes) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            return (String) Class.forName("sample.Shapes", true, loader).getMethod("run").invoke(null);
        }
    }

    private static List<String> listing(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) out.add(dir.relativize(f) + " " + java.util.Arrays.hashCode(Files.readAllBytes(f)));
        }
        return out;
    }

    private static long metafactorySites(Path dir) throws IOException { return bootstrapSites(dir, "LambdaMetafactory", "metafactory"); }

    private static long bootstrapSites(Path dir, String owner, String method) throws IOException {
        long n = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                ClassModel m = ClassFile.of().parse(f);
                for (MethodModel mm : m.methods()) {
                    if (mm.code().isEmpty()) continue;
                    for (var e : mm.code().get()) {
                        if (e instanceof InvokeDynamicInstruction indy && indy.bootstrapMethod().methodName().equals(method)
                                && indy.bootstrapMethod().owner().displayName().equals(owner)) n++;
                    }
                }
            }
        }
        return n;
    }
}
