package dev.ember.dynamo;

/** Recognises nn modules by class name, so capture does not depend on the nn package at compile time. */
final class Modules {
    static final String MODULE_CLASS = "dev.ember.nn.Module";

    /**
     * PyTorch's {@code torch._dynamo.config.inline_inbuilt_nn_modules}: true (the default) traces a built-in
     * layer's forward like user code, so the graph holds its ATen ops; {@code -Dember.dynamo.inline_inbuilt_nn_modules=false}
     * keeps each layer as one opaque call_module node (the graph then runs in the interpreter under the inductor).
     */
    static final String INLINE_PROPERTY = "ember.dynamo.inline_inbuilt_nn_modules";

    private Modules() {}

    static boolean isModule(Object value) { return value != null && isModuleClass(value.getClass()); }

    static boolean isModuleClass(Class<?> c) {
        for (; c != null; c = c.getSuperclass()) if (c.getName().equals(MODULE_CLASS)) return true;
        return false;
    }

    /** Containers hold layers but compute nothing themselves: their code is inlined so each layer becomes its own node. */
    private static final java.util.Set<String> CONTAINERS = java.util.Set.of("Sequential", "ModuleList", "ModuleDict");

    /**
     * Whether a call of {@code value}'s forward becomes one call_module node: only for built-in layers (classes of
     * dev.ember.nn other than containers) when inlining them is switched off. Otherwise a layer's forward is inlined
     * like a user module's: its parameters and buffers become guarded graph inputs read from the live module at each call.
     */
    static boolean isBuiltinLayer(Object value) {
        return !Boolean.parseBoolean(System.getProperty(INLINE_PROPERTY, "true")) && isModule(value)
                && value.getClass().getPackageName().equals("dev.ember.nn") && !CONTAINERS.contains(value.getClass().getSimpleName());
    }
}
