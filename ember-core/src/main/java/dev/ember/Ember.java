package dev.ember;

import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.DisabledFunctions;
import dev.ember.dynamo.Explainer;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.logging.Logs;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

/**
 * Ember's front door: {@code Ember.compile(fn)} captures the bytecode of a Java function into a
 * graph (guarded, cached, recompiled when the guards fail) and returns a function of the same type
 * that runs the compiled graph.
 *
 * <pre>{@code
 * var f = Ember.compile(MyApp::fn);                  // Fn2<Tensor, Tensor, Tensor>
 * f.apply(x, y);                                     // traces, compiles, runs
 * Ember.compile(MyApp::fn, Options.fullgraph());     // a graph break throws Unsupported
 * Ember.explain(MyApp::fn).with(x, y);               // graphs, breaks, guards
 * }</pre>
 */
public final class Ember {
    private Ember() {}

    public static <R> Fn0<R> compile(Fn0<R> fn) { return compile(fn, Options.defaults()); }

    public static <A, R> Fn1<A, R> compile(Fn1<A, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, R> Fn2<A, B, R> compile(Fn2<A, B, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, C, R> Fn3<A, B, C, R> compile(Fn3<A, B, C, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, C, D, R> Fn4<A, B, C, D, R> compile(Fn4<A, B, C, D, R> fn) { return compile(fn, Options.defaults()); }

    public static <A, B, C, D, E, R> Fn5<A, B, C, D, E, R> compile(Fn5<A, B, C, D, E, R> fn) { return compile(fn, Options.defaults()); }

    @SuppressWarnings("unchecked")
    public static <R> Fn0<R> compile(Fn0<R> fn, Options options) {
        Bound b = bind(fn, options);
        return () -> (R) b.frame.call(b.target, b.args(), fn::apply);
    }

    @SuppressWarnings("unchecked")
    public static <A, R> Fn1<A, R> compile(Fn1<A, R> fn, Options options) {
        Bound b = bind(fn, options);
        return a -> (R) b.frame.call(b.target, b.args(a), () -> fn.apply(a));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, R> Fn2<A, B, R> compile(Fn2<A, B, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y) -> (R) b.frame.call(b.target, b.args(x, y), () -> fn.apply(x, y));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, R> Fn3<A, B, C, R> compile(Fn3<A, B, C, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y, z) -> (R) b.frame.call(b.target, b.args(x, y, z), () -> fn.apply(x, y, z));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, D, R> Fn4<A, B, C, D, R> compile(Fn4<A, B, C, D, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y, z, w) -> (R) b.frame.call(b.target, b.args(x, y, z, w), () -> fn.apply(x, y, z, w));
    }

    @SuppressWarnings("unchecked")
    public static <A, B, C, D, E, R> Fn5<A, B, C, D, E, R> compile(Fn5<A, B, C, D, E, R> fn, Options options) {
        Bound b = bind(fn, options);
        return (x, y, z, w, v) -> (R) b.frame.call(b.target, b.args(x, y, z, w, v), () -> fn.apply(x, y, z, w, v));
    }

    /**
     * A module whose {@code forward(Tensor)} is compiled: the returned function calls the compiled
     * forward (the module's fields and parameters are read on every call, so later changes to them
     * are seen, and guarded).
     */
    public static Fn1<Tensor, Tensor> compile(Module module) { return compile(module, Options.defaults()); }

    public static Fn1<Tensor, Tensor> compile(Module module, Options options) {
        FunctionTarget target = FunctionTarget.forModule(module);
        CompiledFrame frame = FrameRegistry.frameFor(target.method(), options);
        return x -> (Tensor) frame.call(target, new Object[] {module, x}, () -> module.forward(x));
    }

    /** Traces {@code fn} once for given arguments and reports graphs, graph breaks, guards and compile times. */
    public static Explainer explain(Object fn) { return new Explainer(FunctionTarget.of(fn), Options.defaults()); }

    /**
     * Switches logs on, like {@code TORCH_LOGS}: {@code "graph_breaks,recompiles"}, {@code "+dynamo,graph_code"};
     * {@code "help"} lists the names. {@code EMBER_LOGS}, when set, wins.
     */
    public static void setLogs(String spec) { Logs.set(spec); }

    /** Forgets every compiled function's cache entries: the next call of each traces again. */
    public static void reset() { FrameRegistry.reset(); }

    /**
     * Marks a place where capture must stop (a graph break). Does nothing when run eagerly; inside a
     * compiled function the translator breaks the graph here (GB0016).
     */
    public static void graphBreak() {
        // Intentionally empty: the translator recognises the call; eager code just continues.
    }

    /**
     * Marks {@code fn}'s method as never traced (like {@code torch.compiler.disable}): compiled code
     * that calls it breaks the graph there (GB0020) and runs it eagerly; compiling it directly runs it
     * eagerly. Returns {@code fn}. The annotation {@link dev.ember.dynamo.Disable} does the same.
     */
    public static <F extends java.io.Serializable> F disable(F fn) {
        DisabledFunctions.disable(fn);
        return fn;
    }

    /** A compiled function's target and frame cache; the frame array is captured values then arguments. */
    private record Bound(FunctionTarget target, CompiledFrame frame) {
        Object[] args(Object... call) {
            Object[] cap = target.captured();
            if (cap.length == 0) return call;
            Object[] all = new Object[cap.length + call.length];
            System.arraycopy(cap, 0, all, 0, cap.length);
            System.arraycopy(call, 0, all, cap.length, call.length);
            return all;
        }
    }

    private static Bound bind(Object fn, Options options) {
        FunctionTarget target = FunctionTarget.of(fn);
        return new Bound(target, FrameRegistry.frameFor(target.method(), options));
    }
}
