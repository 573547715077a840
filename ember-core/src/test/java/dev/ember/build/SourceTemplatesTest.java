package dev.ember.build;

import dev.ember.build.SourceTemplates.Output;
import dev.ember.build.SourceTemplates.TemplateException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The template language the dtype kernels are generated with (src/main/templates, run by the build). */
class SourceTemplatesTest {
    private static final String HEADER = """
            // Generated from T.java.template by dev.ember.build.SourceTemplates (ember-core/src/build/java).
            // Do not edit: edit the template; the build generates this file again.
            """;

    @Test
    void generateWithTypesMakesOneClassPerTypeWithKeysAndConditionsResolved() {
        List<Output> out = SourceTemplates.expand("T.java.template", """
                #generate Sum$Tag$ float long
                /** $dtype$ */
                final class Sum$Tag$ {
                    static $type$ sum($type$[] a) {
                #if[floating]
                        $Type$Vector lanes; // $Boxed$, $blas$, $BLAS$
                #else[floating]
                        $type$ m = $Boxed$.MIN_VALUE;
                #end[floating]
                #if[long]
                        return m;
                #end[long]
                    }
                }
                """);
        assertEquals(List.of(
                new Output("SumF32.java", HEADER + """
                        /** float32 */
                        final class SumF32 {
                            static float sum(float[] a) {
                                FloatVector lanes; // Float, s, S
                            }
                        }
                        """),
                new Output("SumI64.java", HEADER + """
                        /** int64 */
                        final class SumI64 {
                            static long sum(long[] a) {
                                long m = Long.MIN_VALUE;
                                return m;
                            }
                        }
                        """)), out);
    }

    @Test
    void forRepeatsItsLinesPerTypeAndNestedIfsSeeThatType() {
        List<Output> out = SourceTemplates.expand("T.java.template", """
                #generate Plane
                class Plane {
                #for[double,int]
                    void plane($type$[] x) {
                #if[integral]
                        $Boxed$ boxed;
                #end[integral]
                    }
                #end[for]
                }
                """);
        assertEquals(List.of(new Output("Plane.java", HEADER + """
                class Plane {
                    void plane(double[] x) {
                    }
                    void plane(int[] x) {
                        Integer boxed;
                    }
                }
                """)), out);
    }

    @Test
    void mistakesNameTheTemplateLine() {
        assertError("T:1: a template starts with '#generate Name [type...]'", "class A {}\n");
        assertError("T:2: unknown key $Kind$", "#generate A float\nclass $Kind$ {}\n");
        assertError("T:2: $type$ outside any type's scope", "#generate A\n$type$ x;\n");
        assertError("T:2: #if[float] outside any type's scope", "#generate A\n#if[float]\nx\n#end[float]\n");
        assertError("T:2: #if[float] is never closed", "#generate A float\n#if[float]\nx\n");
        assertError("T:4: #end[double] does not close #if[float] of line 2", "#generate A float\n#if[float]\nx\n#end[double]\n");
        assertError("T:2: #end[for] does not close any open block", "#generate A\n#end[for]\n");
        assertError("T:4: a second #else", "#generate A float\n#if[float]\n#else[float]\n#else[float]\n#end[float]\n");
        assertError("T:2: unknown directive #fi", "#generate A float\n#fi[float]\n");
        assertError("T:2: #if takes one of", "#generate A float\n#if[floaty]\n#end[floaty]\n");
        assertError("T:2: unknown type 'char'", "#generate A\n#for[char]\n#end[for]\n");
        assertError("T:3: #generate belongs on the first line only", "#generate A\nx\n#generate B\n");
    }

    private static void assertError(String expected, String template) {
        TemplateException e = assertThrows(TemplateException.class, () -> SourceTemplates.expand("T", template));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    @Test
    void generateWritesIntoThePackageFolderRewritesOnlyChangesAndDeletesWhatNoTemplateMakes(@TempDir Path dir) throws IOException {
        Path templates = dir.resolve("templates"), output = dir.resolve("out");
        Path template = templates.resolve("dev/x/Box.java.template");
        Files.createDirectories(template.getParent());
        Files.writeString(template, "#generate Box$Tag$ int long\nclass Box$Tag$ { $type$ v; }\n");
        Path stale = output.resolve("dev/x/BoxI16.java");
        Files.createDirectories(stale.getParent());
        Files.writeString(stale, "class BoxI16 {}\n");

        assertEquals(2, SourceTemplates.generate(templates, output));
        Path boxI32 = output.resolve("dev/x/BoxI32.java");
        assertTrue(Files.readString(boxI32).endsWith("class BoxI32 { int v; }\n"));
        assertTrue(Files.exists(output.resolve("dev/x/BoxI64.java")));
        assertFalse(Files.exists(stale), "a file no template makes is deleted");

        FileTime written = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(boxI32, written);
        assertEquals(0, SourceTemplates.generate(templates, output));
        assertEquals(written, Files.getLastModifiedTime(boxI32), "an unchanged file is not rewritten");

        Files.writeString(template, "#generate Box$Tag$ int\nclass Box$Tag$ { $type$[] v; }\n");
        assertEquals(1, SourceTemplates.generate(templates, output));
        assertTrue(Files.readString(boxI32).endsWith("class BoxI32 { int[] v; }\n"));
        assertFalse(Files.exists(output.resolve("dev/x/BoxI64.java")));
    }
}
