package dev.ember.dynamo.source;

import dev.ember.nn.Module;

/**
 * What a no-argument query of the module at {@code base} returns, asked again at each call:
 * {@code L['model'].parameters()}. Its elements (parameters, buffers, submodules) are read from the
 * live module, as Dynamo reads {@code model.parameters()} from the module object.
 */
public record ModuleQuerySource(Source base, String method) implements Source {
    @Override
    public String name() { return base.name() + "." + method + "()"; }

    @Override
    public Object read(Object[] frame) { return query((Module) base.read(frame), method); }

    /** {@code m.method()}. */
    public static Object query(Module m, String method) {
        return switch (method) {
            case "parameters" -> m.parameters();
            case "buffers" -> m.buffers();
            case "children" -> m.children();
            case "namedParameters" -> m.namedParameters();
            case "namedBuffers" -> m.namedBuffers();
            case "namedChildren" -> m.namedChildren();
            case "namedModules" -> m.namedModules();
            default -> throw new IllegalArgumentException(method);
        };
    }

    /** The queries read this way. */
    public static boolean isQuery(String method) {
        return switch (method) {
            case "parameters", "buffers", "children", "namedParameters", "namedBuffers", "namedChildren", "namedModules" -> true;
            default -> false;
        };
    }
}
