package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/** {@code keySet()}, {@code values()} or {@code entrySet()} of a tracked map: a live view, read through to the map as it is now. */
public record MapViewVariable(MapVariable map, View view) implements VariableTracker {
    public enum View {
        KEYS("keySet"), VALUES("values"), ENTRIES("entrySet");

        private final String method;

        View(String method) { this.method = method; }

        /** The Map method that returns this view. */
        public String method() { return method; }
    }

    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return map.describe() + "." + view.method() + "()"; }
}
