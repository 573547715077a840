package dev.ember.dynamo.resume;

import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FunctionTarget;

import java.lang.invoke.MethodHandle;

/**
 * Where generated break code continues: a resume method and its frame cache. The generated code
 * calls {@link #call} with the live values (locals, then the operand stack), so the rest of the
 * method is traced, guarded and compiled like any method, and runs eagerly only when its own
 * trace cannot be compiled.
 */
public final class ResumeTarget {
    private final CompiledFrame frame;
    private final FunctionTarget target;
    private final MethodHandle direct;

    /** {@code direct}: the resume method itself, typed {@code (Object[])Object}. */
    public ResumeTarget(CompiledFrame frame, FunctionTarget target, MethodHandle direct) {
        this.frame = frame;
        this.target = target;
        this.direct = direct;
    }

    public CompiledFrame frame() { return frame; }

    /** Runs the resume method for these live values through its frame cache. */
    public Object call(Object[] values) { return frame.call(target, values, () -> invokeDirect(values)); }

    private Object invokeDirect(Object[] values) {
        try {
            return (Object) direct.invokeExact(values);
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(t);
        }
    }
}
