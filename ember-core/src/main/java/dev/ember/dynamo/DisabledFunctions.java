package dev.ember.dynamo;

import dev.ember.dynamo.variables.MethodTarget;

import java.lang.classfile.Attributes;
import java.lang.classfile.Instruction;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.constant.ClassDesc;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Code compiled code must not trace: the methods passed to {@code Ember.disable} and those annotated
 * {@link Disable}, and the blocks run inside {@code try (var s = Ember.disabled()) { … }}.
 */
public final class DisabledFunctions {
    private static final Set<String> DISABLED = ConcurrentHashMap.newKeySet();
    /** How many {@code Ember.disabled()} blocks this thread is inside: a block is code on one thread. */
    private static final ThreadLocal<int[]> REGIONS = ThreadLocal.withInitial(() -> new int[1]);
    private static final ClassDesc DISABLE = ClassDesc.of(Disable.class.getName());

    private DisabledFunctions() {}

    /** Disables the method behind a serializable lambda or method reference. */
    public static void disable(Object fn) { DISABLED.add(FunctionTarget.of(fn).method().toString()); }

    static boolean isDisabled(ClassFiles.Resolved r) {
        String key = r.declaringClass().getName() + "." + r.method().methodName().stringValue() + r.method().methodType().stringValue();
        if (DISABLED.contains(key)) return true;
        return r.method().findAttribute(Attributes.runtimeVisibleAnnotations())
                .map(a -> a.annotations().stream().anyMatch(an -> an.classSymbol().equals(DISABLE))).orElse(false);
    }

    static boolean isDisabled(MethodTarget m) { return DISABLED.contains(m.toString()); }

    /**
     * Ember's own methods that a trace calls as one eager call rather than tracing into (Dynamo's
     * skip rules), by class and method name (capture does not depend on these packages at compile
     * time), with the reason the break reports. An optimizer's {@code step()} and {@code zeroGrad()}
     * walk per-parameter state maps, storage and gradients: traced, one train step broke into over a
     * hundred graphs. As one call each is one break, and a step compiled by
     * {@code Ember.compile(optimizer)} still runs compiled. {@code backward()} broke on the engine's
     * internals with a reason naming an {@code AtomicLong}; now the reason says what it is.
     */
    private static final java.util.Map<String, String> RUN_AS_ONE_CALL = java.util.Map.of(
            "dev.ember.optim.Optimizer.step", "an optimizer's step() runs as one call (Ember.compile(optimizer) compiles it: docs/training.md)",
            "dev.ember.optim.Optimizer.zeroGrad", "an optimizer's zeroGrad() runs as one call",
            // as Dynamo breaks on loss.backward() without compiled autograd: the graph's own backward is AOT's, for its outputs
            "dev.ember.autograd.Autograd.backward", "backward() runs as one call: it walks the autograd graph the compiled forward recorded",
            "dev.ember.autograd.Autograd.grad", "Autograd.grad() runs as one call: it walks the autograd graph the compiled forward recorded",
            // its backward is the user's code, which a graph's AOT backward cannot call
            "dev.ember.autograd.Autograd.registerHook", "registerHook() runs as one call: the hook is put on the real tensor's gradient",
            "dev.ember.autograd.CustomFunction.apply", "a CustomFunction runs as one call, so its backward is the one it defines",
            "dev.ember.autograd.CustomFunction.applyAll", "a CustomFunction runs as one call, so its backward is the one it defines");

    /** Why {@code r} runs as one eager call, or null when it is traced. */
    static String runAsOneCall(ClassFiles.Resolved r) {
        return RUN_AS_ONE_CALL.get(r.declaringClass().getName() + "." + r.method().methodName().stringValue());
    }

    /**
     * Why the code after a {@code registerHook} break must not resume in a graph of its own, or null:
     * the hooked tensor is computed in the graph before the break and already used there by other
     * ops. Compiled as one autograd node (aot_eager, inductor), that graph sends the gradient of
     * those uses straight to its inputs, past the hook, which would see only the later uses'
     * gradient (a wrong gradient, silently). The frame runs eagerly for these inputs instead.
     */
    static String hookOnUsedIntermediate(ClassFiles.Resolved r, List<dev.ember.dynamo.variables.VariableTracker> args) {
        if (!(r.declaringClass().getName() + "." + r.method().methodName().stringValue()).equals("dev.ember.autograd.Autograd.registerHook")) return null;
        if (args.isEmpty() || !(args.get(0) instanceof dev.ember.dynamo.variables.TensorVariable t) || t.source() != null || t.node() == null) return null;
        if (t.node().users().isEmpty()) return null;
        return "a gradient hook is registered on a tensor the graph computes and already used: the graph's backward would send "
                + "the gradient of those uses past the hook, so the frame runs eagerly";
    }

    private static final String FACADE = "dev/ember/Ember", REGION = "dev/ember/dynamo/DisabledFunctions$Region";

    /**
     * Where the break at instruction {@code index} ends: at an {@code Ember.disabled()} call whose
     * scope is stored in a local, the {@code close()} of that local on the block's normal way out, so
     * the break code runs the whole block and the code after it is captured again; otherwise
     * {@code index} itself.
     */
    static int blockEnd(MethodCode code, int index) {
        List<Instruction> ins = code.instructions;
        if (!(ins.get(index) instanceof InvokeInstruction open && open.opcode() == Opcode.INVOKESTATIC && open.owner().asInternalName().equals(FACADE)
                && open.name().equalsString("disabled")) || index + 1 >= ins.size() || !(ins.get(index + 1) instanceof StoreInstruction store)) return index;
        for (int i = index + 2; i + 1 < ins.size(); i++) {
            if (ins.get(i) instanceof LoadInstruction load && load.slot() == store.slot() && ins.get(i + 1) instanceof InvokeInstruction close
                    && close.owner().asInternalName().equals(REGION) && close.name().equalsString("close")) return i + 1;
        }
        return index;
    }

    /** Opens a block of this thread that is never traced: compiled functions called in it run eagerly until it closes. */
    public static Region enterRegion() {
        REGIONS.get()[0]++;
        return new Region(Thread.currentThread());
    }

    /** Whether this thread is inside an {@code Ember.disabled()} block. */
    public static boolean inDisabledRegion() { return REGIONS.get()[0] > 0; }

    /** An {@code Ember.disabled()} block; close it on the thread that opened it (try-with-resources does). */
    public static final class Region implements AutoCloseable {
        private final Thread owner;
        private boolean closed;

        private Region(Thread owner) { this.owner = owner; }

        @Override
        public void close() {
            if (closed) return;
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("an Ember.disabled() block opened on thread " + owner.getName() + " was closed on "
                        + Thread.currentThread().getName() + ": the block is per thread; open and close it on the same thread");
            }
            closed = true;
            REGIONS.get()[0]--;
        }
    }
}
