package dev.ember.logging;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed {@code EMBER_LOGS} value: the level of each component and the artifacts named.
 *
 * @param levels    components given a level (the others stay at WARNING)
 * @param artifacts artifacts named explicitly
 * @param help      whether {@code help} was among the names
 */
public record LogSettings(Map<String, Level> levels, Set<String> artifacts, boolean help) {

    /** The level of a component nobody named: warnings show, nothing else. */
    public static final Level DEFAULT_LEVEL = Level.WARNING;

    /** Nothing named: every component at WARNING, no artifact. */
    public static final LogSettings DEFAULT = new LogSettings(Map.of(), Set.of(), false);

    public LogSettings {
        levels = Map.copyOf(levels);
        artifacts = Set.copyOf(artifacts);
    }

    /**
     * Parses a comma-separated list as TORCH_LOGS does: {@code name} = INFO (or an artifact on), {@code +name} =
     * DEBUG, {@code -name} = ERROR, {@code all} = every component, {@code help} = print the list of names.
     *
     * @param spec   the list, e.g. {@code "+dynamo,graph_code"}; blanks around names are ignored
     * @param origin what the text came from, named in errors (e.g. {@code EMBER_LOGS})
     * @throws IllegalArgumentException on an unknown name, naming the nearest valid one and listing them all
     */
    public static LogSettings parse(String spec, String origin) {
        Map<String, Level> levels = new LinkedHashMap<>();
        Set<String> artifacts = new LinkedHashSet<>();
        boolean help = false;
        for (String raw : spec.split(",")) {
            String item = raw.strip();
            if (item.isEmpty()) continue;
            Level level = switch (item.charAt(0)) {
                case '+' -> Level.DEBUG;
                case '-' -> Level.ERROR;
                default -> Level.INFO;
            };
            String name = level == Level.INFO ? item : item.substring(1).strip();
            if (name.equals("all")) {
                for (Loggable l : LogRegistry.all()) if (!l.artifact()) levels.put(l.name(), level);
            } else if (name.equals("help")) {
                help = true;
            } else {
                Loggable l = LogRegistry.find(name).orElseThrow(() -> unknown(name, spec, origin));
                if (l.artifact()) artifacts.add(name);
                else levels.put(name, level);
            }
        }
        return new LogSettings(levels, artifacts, help);
    }

    private static IllegalArgumentException unknown(String name, String spec, String origin) {
        String hint = LogRegistry.nearest(name).map(n -> " Did you mean '" + n + "'?").orElse("");
        return new IllegalArgumentException(origin + "=\"" + spec + "\": unknown log name '" + name + "'." + hint
                + " Valid names: " + String.join(", ", LogRegistry.validNames())
                + ". Prefix + for DEBUG, - for ERROR; EMBER_LOGS=help explains each.");
    }

    /** The level of a component under these settings. */
    public Level levelOf(String component) {
        return levels.getOrDefault(component, DEFAULT_LEVEL);
    }

    /**
     * Whether a message of {@code level} on {@code l} is shown. A component shows messages at or above its level.
     * An artifact shows everything when named; otherwise its warnings and errors follow its component's level,
     * and its other output (the artifact itself) shows only when the component is at DEBUG ({@code +dynamo}) and
     * the artifact is not off by default.
     */
    public boolean isEnabled(Loggable l, Level level) {
        if (!l.artifact()) return level.atLeast(levelOf(l.name()));
        if (artifacts.contains(l.name())) return true;
        Level component = levelOf(l.component());
        if (level.atLeast(Level.WARNING)) return level.atLeast(component);
        return component == Level.DEBUG && !l.offByDefault();
    }

    /** For each registry entry (in {@link LogRegistry#all()} order) the lowest level shown; null = none. */
    Level[] thresholds() {
        List<Loggable> all = LogRegistry.all();
        Level[] out = new Level[all.size()];
        for (int i = 0; i < out.length; i++) {
            for (Level level : Level.values()) {
                if (isEnabled(all.get(i), level)) {
                    out[i] = level;
                    break;
                }
            }
        }
        return out;
    }
}
