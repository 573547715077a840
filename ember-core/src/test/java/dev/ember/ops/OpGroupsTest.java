package dev.ember.ops;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every class of dev.ember.ops that defines ops is in OpRegistry's list of op groups, which the
 * registry loads before answering {@code get} or {@code all}: a class left out would have its ops
 * missing from lookups by name until something else happened to load it.
 */
class OpGroupsTest {
    @Test
    void everyClassDefiningOpsIsAnOpGroup() throws Exception {
        Path dir = Path.of(OpRegistry.class.getProtectionDomain().getCodeSource().getLocation().toURI()).resolve("dev/ember/ops");
        Set<String> defining = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class") && !p.getFileName().toString().contains("$")).toList()) {
                String name = "dev.ember.ops." + f.getFileName().toString().replace(".class", "");
                Class<?> c = Class.forName(name, false, OpRegistry.class.getClassLoader());
                for (Field field : c.getDeclaredFields()) {
                    if (Modifier.isStatic(field.getModifiers()) && field.getType() == OpOverload.class) defining.add(name);
                }
            }
        }
        Field groups = OpRegistry.class.getDeclaredField("OP_GROUPS");
        groups.setAccessible(true);
        assertEquals(defining, new TreeSet<>(Arrays.asList((String[]) groups.get(null))));
    }
}
