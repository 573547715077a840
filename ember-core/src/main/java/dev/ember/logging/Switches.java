package dev.ember.logging;

/** On/off switches set in the environment ({@code EMBER_VERBOSE=1}) or as a system property, read first. */
public final class Switches {
    private Switches() {}

    /**
     * Whether the switch is on: {@code 1} on, {@code 0} or unset off.
     *
     * @param on  what 1 does, for the error about any other value
     * @param off what 0 does
     * @throws IllegalArgumentException for any other value, naming the property or variable it came from
     */
    public static boolean flag(String property, String env, String on, String off) {
        String fromProperty = System.getProperty(property);
        String value = fromProperty != null ? fromProperty : System.getenv(env);
        if (value == null || value.isBlank() || value.strip().equals("0")) return false;
        if (value.strip().equals("1")) return true;
        String origin = fromProperty != null ? "-D" + property : env;
        throw new IllegalArgumentException(origin + "=" + value + ": expected 1 (" + on + ") or 0 (" + off + ")");
    }
}
