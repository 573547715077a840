package dev.ember.dynamo;

import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.AssertOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;

import java.lang.classfile.Instruction;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.StackInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.lang.constant.ConstantDescs;
import java.util.ArrayList;
import java.util.List;

/**
 * An assert on tensor data as a graph node rather than a graph break, as Dynamo rewrites
 * {@code assert x[0] == 3, "msg"} into {@code torch._assert}. javac compiles both
 * {@code assert t.asBoolean() : "msg";} (after its {@code $assertionsDisabled} check, a final
 * static the trace reads as the constant it is, so with assertions disabled for the class no
 * assert is traced, as Java runs none) and {@code if (!t.asBoolean()) throw new X("msg");} to
 * {@code asBoolean}, a branch, and on one side of it a block that only makes an exception and
 * throws it:
 *
 * <pre>
 *   invokevirtual Tensor.asBoolean()Z
 *   ifne PASS                      (or ifeq, with the throw on the other side)
 *   new X; dup; [ldc "msg"]; invokespecial X.&lt;init&gt;; athrow
 * </pre>
 *
 * That shape becomes one {@link AssertOps} node, which throws the same exception with the same
 * message when the graph runs and the tensor is zero, and the trace goes on along the passing side.
 * Anything else (a message computed at run time, an exception class of the user's, a handler in
 * the traced code that would catch it, writes that eager code would have made before throwing)
 * stays a data-dependent branch (GB0002).
 */
final class TensorAsserts {
    private TensorAsserts() {}

    /** The exception block on one side of the branch: what it throws, with which message (null: none). */
    private record Failure(Class<? extends Throwable> exception, String message, int throwIndex) {}

    /**
     * When the {@code asBoolean} on {@code t} being traced decides an assert, records the assert
     * node and returns the boolean (as an int constant) that sends the branch to the passing side;
     * null when it does not (the caller breaks the graph).
     */
    static VariableTracker rewrite(TraceContext ctx, TensorVariable t) {
        if (ctx.frames.isEmpty() || t.fake().numel() != 1) return null;
        InstructionTranslator f = ctx.frames.getLast();
        List<Instruction> code = f.code.instructions;
        int next = f.nextIndex();
        if (next < 1 || next >= code.size()) return null;
        if (!(code.get(next - 1) instanceof InvokeInstruction call && call.name().equalsString("asBoolean")
                && call.typeSymbol().returnType().equals(ConstantDescs.CD_boolean))) return null;
        if (!(code.get(next) instanceof BranchInstruction b) || (b.opcode() != Opcode.IFEQ && b.opcode() != Opcode.IFNE)) return null;
        int jump = f.code.indexOf(b.target()), fallThrough = next + 1;
        // ifne jumps when the tensor is true, ifeq when it is false
        int whenTrue = b.opcode() == Opcode.IFNE ? jump : fallThrough, whenFalse = b.opcode() == Opcode.IFNE ? fallThrough : jump;
        Failure onFalse = failureAt(f, whenFalse), onTrue = failureAt(f, whenTrue);
        if ((onFalse == null) == (onTrue == null)) return null;
        Failure failure = onFalse != null ? onFalse : onTrue;
        if (caughtInTrace(ctx, f, failure) || writesBeforeThrowing(ctx)) return null;
        VariableTracker holds = onFalse != null ? t : OpCalls.call(ctx, PointwiseOps.LOGICAL_NOT, List.of(t));
        OpOverload op = AssertOps.forException(failure.exception(), failure.message());
        List<VariableTracker> args = new ArrayList<>();
        args.add(holds);
        for (Object a : AssertOps.argumentsAfterCondition(failure.exception(), failure.message())) args.add(ConstantVariable.of(a));
        OpCalls.call(ctx, op, args);
        return ConstantVariable.of(onFalse != null ? 1 : 0);
    }

    /**
     * {@code new X; dup; [ldc "msg"]; invokespecial X.<init>(()V | (String)V | (Object)V); athrow}
     * at instruction {@code at}, for a JDK exception class X the assert op can raise; else null.
     */
    private static Failure failureAt(InstructionTranslator f, int at) {
        List<Instruction> code = f.code.instructions;
        if (at + 4 > code.size()) return null;
        if (!(code.get(at) instanceof NewObjectInstruction made) || !(code.get(at + 1) instanceof StackInstruction dup) || dup.opcode() != Opcode.DUP) return null;
        Class<?> type;
        try {
            type = Values.resolve(made.className().asSymbol(), f.code.owner);
        } catch (RuntimeException e) {
            return null;
        }
        if (!AssertOps.canRaise(type)) return null;
        int i = at + 2;
        String message = null;
        if (code.get(i) instanceof ConstantInstruction c && c.constantValue() instanceof String s) {
            message = s;
            i++;
        }
        if (i + 1 >= code.size() || !(code.get(i) instanceof InvokeInstruction init) || init.opcode() != Opcode.INVOKESPECIAL
                || !init.name().equalsString("<init>") || !init.owner().asSymbol().equals(made.className().asSymbol())) return null;
        var params = init.typeSymbol().parameterList();
        boolean matches = message == null ? params.isEmpty()
                : params.size() == 1 && (params.getFirst().equals(ConstantDescs.CD_String) || params.getFirst().equals(ConstantDescs.CD_Object));
        if (!matches || !(code.get(i + 1) instanceof ThrowInstruction)) return null;
        @SuppressWarnings("unchecked")
        Class<? extends Throwable> exception = (Class<? extends Throwable>) type;
        return new Failure(exception, message, i + 1);
    }

    /**
     * Whether a handler of the traced code (this frame's, around the throw, or a caller's, around
     * the call being inlined) would catch the exception: raised from the graph, it would escape it.
     */
    private static boolean caughtInTrace(TraceContext ctx, InstructionTranslator f, Failure failure) {
        try {
            if (f.code.handlerFor(failure.throwIndex(), failure.exception()) >= 0) return true;
            for (InstructionTranslator outer : ctx.frames) {
                if (outer != f && outer.code.handlerFor(outer.currentIndex(), failure.exception()) >= 0) return true;
            }
            return false;
        } catch (RuntimeException e) {
            return true;    // a handler type that does not resolve: assume it catches
        }
    }

    /**
     * Whether eager code would have written something before the assert that the compiled frame
     * writes only after its graph (side effects replayed, an input written in place and copied
     * back): a failing assert in the graph would then leave it unwritten, where eager's is written.
     */
    private static boolean writesBeforeThrowing(TraceContext ctx) {
        if (!ctx.sideEffects.isEmpty()) return true;
        for (Node n : ctx.graph.graph().nodes()) {
            if (n.kind() == NodeKind.CALL_METHOD && ((String) n.target()).endsWith("_")) return true;
            if (n.target() instanceof OpOverload op && op.writtenArg() >= 0) return true;
        }
        return false;
    }
}
