package dev.ember.jvm;

import java.io.IOException;
import java.io.InputStream;

/** The class file of a loaded class, read through its class loader (capture's class models, nn's error messages). */
public final class ClassBytes {
    private ClassBytes() {}

    /** The resource name of {@code cls}'s class file, as its class loader finds it ({@code /a/b/C.class}). */
    public static String resource(Class<?> cls) { return "/" + cls.getName().replace('.', '/') + ".class"; }

    /** The bytes of {@code cls}'s class file, or null when its class loader has none (a hidden or generated class). */
    public static byte[] read(Class<?> cls) throws IOException {
        try (InputStream in = cls.getResourceAsStream(resource(cls))) {
            return in == null ? null : in.readAllBytes();
        }
    }
}
