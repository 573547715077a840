package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.dynamo.variables.MethodTarget;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Every compiled method's frame cache, keyed by method and options, so compiling the same function twice shares one cache. */
public final class FrameRegistry {
    private record Key(MethodTarget method, Options options) {}

    private static final Map<Key, CompiledFrame> FRAMES = new ConcurrentHashMap<>();

    private FrameRegistry() {}

    public static CompiledFrame frameFor(MethodTarget method, Options options) {
        return FRAMES.computeIfAbsent(new Key(method, options), k -> new CompiledFrame(k.method(), k.options()));
    }

    public static List<CompiledFrame> frames() { return List.copyOf(FRAMES.values()); }

    /** Drops every cache entry and cached class file ({@code Ember.reset()}). */
    public static void reset() {
        for (CompiledFrame f : FRAMES.values()) f.clear();
        FRAMES.clear();
        MethodCode.clear();
        ClassFiles.clear();
        ResumeCodegen.clear();
    }
}
