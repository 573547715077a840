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
    /** The user's method the resume method continues, as a stack trace shows it (no line: see {@link #invokeDirect}). */
    private final StackTraceElement continues;

    /**
     * {@code direct}: the resume method itself, typed {@code (Object[])Object}; {@code continues}: the
     * user's method it continues, for the stack trace of an exception it throws.
     */
    public ResumeTarget(CompiledFrame frame, FunctionTarget target, MethodHandle direct, StackTraceElement continues) {
        this.frame = frame;
        this.target = target;
        this.direct = direct;
        this.continues = continues;
    }

    public CompiledFrame frame() { return frame; }

    /**
     * How many resume methods may run inside one another on a thread through their frame caches. A
     * loop whose body breaks continues each iteration in a resume method called by the one before
     * (the call is in tail position, but the JVM keeps the frames), so its depth is its trip count;
     * past this depth the resume method runs as plain bytecode, its remaining iterations eagerly,
     * instead of overflowing the stack.
     */
    static final int MAX_NESTED_RESUMES = 256;

    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);
    private static final dev.ember.logging.Log DYNAMO = dev.ember.logging.Log.of("dynamo");
    private volatile boolean depthReported;

    /** Runs the resume method for these live values through its frame cache (eagerly past {@link #MAX_NESTED_RESUMES}). */
    public Object call(Object[] values) {
        int[] depth = DEPTH.get();
        if (depth[0] >= MAX_NESTED_RESUMES) {
            if (!depthReported) {
                depthReported = true;
                DYNAMO.info(() -> frame.name() + ": " + MAX_NESTED_RESUMES + " resume methods run inside one another (a loop that breaks in its body, "
                        + "one level per iteration); the rest of this one runs eagerly");
            }
            return invokeDirect(values);
        }
        depth[0]++;
        try {
            return frame.call(target, values, () -> invokeDirect(values));
        } finally {
            depth[0]--;
        }
    }

    private Object invokeDirect(Object[] values) {
        try {
            return (Object) direct.invokeExact(values);
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(raisedInside(t));
        }
    }

    /**
     * {@code t}, with the user's method on top when the resume method threw it itself: the resume
     * method is a hidden class, whose frames the JVM leaves out of every stack trace, so the trace
     * would start in Ember and name no user code at all. Which line threw is lost with the frame.
     */
    private Throwable raisedInside(Throwable t) {
        StackTraceElement[] trace = t.getStackTrace();
        if (continues == null || trace.length == 0 || !trace[0].getClassName().equals(ResumeTarget.class.getName())
                || !trace[0].getMethodName().equals("invokeDirect")) return t;
        StackTraceElement[] out = new StackTraceElement[trace.length + 1];
        out[0] = continues;
        System.arraycopy(trace, 0, out, 1, trace.length);
        t.setStackTrace(out);
        return t;
    }
}
