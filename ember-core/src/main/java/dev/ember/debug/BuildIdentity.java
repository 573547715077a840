package dev.ember.debug;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * Which source this copy of Ember was built from: {@code git describe --always --dirty} taken at
 * build time (src/build/java/dev/ember/build/WriteBuildIdentity.java), such as {@code 64434d35c1a2}
 * or {@code 64434d35c1a2-dirty} when the tree had changes that were not committed. Printed by
 * {@code ember fuzz}, written into fuzz repros and minifier launchers, shown by {@code ember doctor},
 * so that a result can be traced to the code that produced it, however the jars were copied.
 */
public final class BuildIdentity {
    private BuildIdentity() {}

    static final String RESOURCE = "/dev/ember/build-identity.properties";

    private static final String DESCRIBE = read();

    /** The build's {@code git describe --always --dirty}, or "unknown (why)". */
    public static String describe() { return DESCRIBE; }

    /** Whether the build had uncommitted changes (or cannot say where it came from). */
    public static boolean uncertain() { return DESCRIBE.endsWith("-dirty") || DESCRIBE.startsWith("unknown"); }

    /** "Ember built from 64434d35c1a2", with a warning when the tree was dirty. */
    public static String line() {
        if (DESCRIBE.startsWith("unknown")) return "Ember build " + DESCRIBE;
        return "Ember built from " + DESCRIBE + (DESCRIBE.endsWith("-dirty") ? " (uncommitted changes: the source of this build is not in git)" : "");
    }

    private static String read() {
        try (InputStream in = BuildIdentity.class.getResourceAsStream(RESOURCE)) {
            if (in == null) return "unknown (no " + RESOURCE.substring(1) + " in the classes: built without Maven?)";
            Properties p = new Properties();
            try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                p.load(r);
            }
            String d = p.getProperty("describe", "").strip();
            return d.isEmpty() ? "unknown (an empty " + RESOURCE.substring(1) + ")" : d;
        } catch (IOException | IllegalArgumentException e) {
            return "unknown (" + RESOURCE.substring(1) + " unreadable: " + e.getMessage() + ")";
        }
    }
}
