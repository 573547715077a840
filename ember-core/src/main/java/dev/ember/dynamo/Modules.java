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

    /** Built-in layers (classes of dev.ember.nn) become call_module nodes; user subclasses are inlined. */
    static boolean isBuiltinLayer(Object value) {
        return isModule(value) && value.getClass().getPackageName().equals("dev.ember.nn");
    }
}
