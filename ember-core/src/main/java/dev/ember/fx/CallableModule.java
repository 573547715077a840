package dev.ember.fx;

/**
 * What a {@link NodeKind#CALL_MODULE} node calls: a submodule's forward. Until {@code dev.ember.nn.Module}
 * exists, a module is registered in a {@link GraphModule} through this interface, e.g.
 * {@code args -> linear.forward((Tensor) args[0])}.
 */
@FunctionalInterface
public interface CallableModule {
    /** Runs the module's forward on these (real or fake) arguments. */
    Object forward(Object... args);
}
