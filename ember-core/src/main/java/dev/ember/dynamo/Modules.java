package dev.ember.dynamo;

/** Recognises nn modules by class name, so capture does not depend on the nn package at compile time. */
final class Modules {
    static final String MODULE_CLASS = "dev.ember.nn.Module";

    private Modules() {}

    static boolean isModule(Object value) { return value != null && isModuleClass(value.getClass()); }

    static boolean isModuleClass(Class<?> c) {
        for (; c != null; c = c.getSuperclass()) if (c.getName().equals(MODULE_CLASS)) return true;
        return false;
    }

    /** Containers hold layers but compute nothing themselves: their code is inlined so each layer becomes its own node. */
    private static final java.util.Set<String> CONTAINERS = java.util.Set.of("Sequential", "ModuleList", "ModuleDict");

    /** Built-in layers (classes of dev.ember.nn other than containers) become call_module nodes; user subclasses are inlined. */
    static boolean isBuiltinLayer(Object value) {
        return isModule(value) && value.getClass().getPackageName().equals("dev.ember.nn") && !CONTAINERS.contains(value.getClass().getSimpleName());
    }
}
