package dev.ember.dynamo;

/**
 * Whether autograd records operations (PyTorch's {@code torch.is_grad_enabled()}), per thread.
 * Compiled code guards on it. Lives here until an autograd package owns it.
 */
public final class GradMode {
    private static final ThreadLocal<Boolean> ENABLED = ThreadLocal.withInitial(() -> Boolean.TRUE);

    private GradMode() {}

    public static boolean isEnabled() { return ENABLED.get(); }

    public static void setEnabled(boolean enabled) { ENABLED.set(enabled); }
}
