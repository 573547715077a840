package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.events.UserFrame;

import java.lang.classfile.Instruction;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.ArrayLoadInstruction;
import java.lang.classfile.instruction.ArrayStoreInstruction;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.ConvertInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.NewPrimitiveArrayInstruction;
import java.lang.classfile.instruction.NewReferenceArrayInstruction;
import java.lang.classfile.instruction.NopInstruction;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.classfile.instruction.StackInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Symbolic interpretation of one method's bytecode: the operand stack and locals hold
 * {@link VariableTracker}s; tensor ops add graph nodes; arithmetic and branches on constants are
 * evaluated, so only the path taken is followed and constant-trip-count loops unroll. Calls are
 * handled by {@link Invoker} (inlined by running a nested translator).
 */
final class InstructionTranslator {
    final TraceContext ctx;
    final MethodCode code;
    final VariableTracker[] locals;
    private final List<VariableTracker> stack = new ArrayList<>();
    private int pc;
    private int current;
    /** The last source line {@code trace_source} reported for this frame. */
    private int tracedLine = -1;
    private static final dev.ember.logging.Log TRACE_SOURCE = dev.ember.logging.Log.of("trace_source");
    private static final dev.ember.logging.Log TRACE_BYTECODE = dev.ember.logging.Log.of("trace_bytecode");

    InstructionTranslator(TraceContext ctx, MethodCode code, List<VariableTracker> args) {
        this(ctx, code, args.size(), args::get, null);
    }

    /** The root frame: its arguments are wrapped as the code first loads them ({@link FrameArguments}). */
    InstructionTranslator(TraceContext ctx, MethodCode code, FrameArguments args) {
        this(ctx, code, args.size(), args::peek, args);
    }

    private InstructionTranslator(TraceContext ctx, MethodCode code, int count, java.util.function.IntFunction<VariableTracker> arg, FrameArguments lazy) {
        this.ctx = ctx;
        this.code = code;
        this.locals = new VariableTracker[Math.max(code.maxLocals, 1)];
        this.arguments = lazy;
        this.argumentInSlot = new int[locals.length];
        java.util.Arrays.fill(argumentInSlot, -1);
        // A parameter's width comes from the declared type: a boxed Double argument takes one slot.
        int receivers = count - code.type.parameterCount();
        int slot = 0;
        for (int i = 0; i < count; i++) {
            locals[slot] = arg.apply(i);
            if (locals[slot] == null) argumentInSlot[slot] = i;
            String d = i < receivers ? "L" : code.type.parameterType(i - receivers).descriptorString();
            slot += d.equals("J") || d.equals("D") ? 2 : 1;
        }
    }

    /** The root frame's arguments, for those not read yet; null in an inlined frame. */
    private final FrameArguments arguments;
    /** For each local slot, the argument it still holds unread (wrapped on the first load), or -1. */
    private final int[] argumentInSlot;

    /** The variable in {@code slot}, wrapping the argument it holds if this is its first read; null when the slot is unset. */
    VariableTracker local(int slot) {
        if (locals[slot] == null && argumentInSlot[slot] >= 0) {
            locals[slot] = arguments.read(argumentInSlot[slot]);
            argumentInSlot[slot] = -1;
        }
        return locals[slot];
    }

    /** Where the argument in {@code slot} is read from, when the trace has not read it (it has no variable yet); else null. */
    dev.ember.dynamo.source.Source unreadArgument(int slot) {
        return locals[slot] == null && argumentInSlot[slot] >= 0 ? arguments.source(argumentInSlot[slot]) : null;
    }

    /**
     * What a break hands the resume method for {@code slot}: the source of an unread argument of a
     * reference type (passed on as the caller passed it, unguarded); null for anything else, whose
     * variable {@link #local} gives (an unread primitive is read then: its stack form is the trace's).
     */
    dev.ember.dynamo.source.Source unreadReference(int slot) {
        return unreadArgument(slot) != null && !arguments.isPrimitive(argumentInSlot[slot]) ? unreadArgument(slot) : null;
    }

    /** Runs the method to its return; the returned value, or null for void. */
    VariableTracker run() {
        if (ctx.frames.size() >= TraceContext.MAX_INLINE_DEPTH) {
            throw ctx.unsupported(GraphBreakType.INLINE_DEPTH, "inlining " + code + " would nest calls " + (ctx.frames.size() + 1)
                    + " deep (limit " + TraceContext.MAX_INLINE_DEPTH + ")");
        }
        boolean root = ctx.frames.isEmpty();
        ctx.frames.add(this);
        try {
            while (true) {
                ctx.tick();
                current = pc;
                if (TRACE_SOURCE.isEnabled(dev.ember.logging.Level.INFO)) traceSource();
                if (TRACE_BYTECODE.isEnabled(dev.ember.logging.Level.INFO)) traceBytecode();
                if (root) {
                    if (ctx.rootSteps == ctx.haltAtStep) throw new Halt();
                    ctx.rootSteps++;
                }
                Instruction ins = code.instructions.get(pc++);
                if (ins instanceof ReturnInstruction r) return r.typeKind() == TypeKind.VOID ? null : pop();
                try {
                    step(ins);
                } catch (Raised r) {
                    if (enterHandler(r)) continue;
                    if (root) {
                        breakHere();
                        throw r.uncaught;
                    }
                    throw r;
                } catch (Unsupported e) {
                    if (root) breakHere();
                    throw e;
                } catch (InternalTraceError | CondBranchMismatch | SpecializeAndRestart e) {
                    throw e;
                } catch (ClassFiles.ClassFileNotFound e) {
                    if (root) breakHere();
                    throw ctx.unsupported(GraphBreakType.NO_BYTECODE, e.getMessage(), e);
                } catch (RuntimeException e) {
                    throw InternalTraceError.at(ctx, this, ins, e);
                }
            }
        } finally {
            if (ctx.frames.size() == 1) ctx.returnLocation = location();
            ctx.frames.removeLast();
        }
    }

    UserFrame location() { return code.frameAt(current); }

    /** {@code trace_source}: the user line about to be traced, once each time tracing reaches a new line. */
    private void traceSource() {
        UserFrame at = location();
        if (at.line() == tracedLine) return;
        tracedLine = at.line();
        TRACE_SOURCE.info(() -> "TRACE starts_line " + at + (at.sourceText() == null ? "" : "\n    " + at.sourceText()));
    }

    /** {@code trace_bytecode}: the instruction about to be traced, with the operand stack it finds (top last), as Dynamo's {@code TRACE LOAD_FAST x [...]}. */
    private void traceBytecode() {
        StringBuilder values = new StringBuilder("[");
        for (int i = 0; i < stack.size(); i++) values.append(i == 0 ? "" : ", ").append(stack.get(i).describe());
        TRACE_BYTECODE.info(() -> String.format("TRACE %5d  %-48s %s]  (%s)", code.bci[current], Disassembly.instruction(code, current), values, location()));
    }

    /**
     * Continues at this method's handler for what the instruction raised, as the JVM would: the
     * operand stack holds only the exception, the locals stay as they were. False when no handler
     * of this method catches it.
     */
    private boolean enterHandler(Raised r) {
        int handler;
        try {
            handler = code.handlerFor(current, r.type);
        } catch (IllegalStateException e) {
            throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, r.uncaught.reason() + ", and whether a handler catches it is unknown: " + e.getMessage(), e);
        }
        if (handler < 0) return false;
        stack.clear();
        push(r.exception);
        pc = handler;
        return true;
    }

    private void breakHere() {
        ctx.breakStep = ctx.rootSteps - 1;
        ctx.breakIndex = current;
    }

    /** Thrown when a re-trace reaches the root instruction that broke the first trace: the state here is what resumes. */
    static final class Halt extends RuntimeException {
        Halt() { super(null, null, false, false); }
    }

    /** The instruction after the one running: where the method goes on unless it branches. */
    int nextIndex() { return pc; }

    /** The instruction about to run (after a {@link Halt}). */
    int currentIndex() { return current; }

    /** The operand stack, bottom first. */
    List<VariableTracker> stack() { return List.copyOf(stack); }

    // ------------------------------------------------------------------ stack

    void push(VariableTracker v) { stack.add(v); }

    VariableTracker pop() {
        if (stack.isEmpty()) throw new IllegalStateException("operand stack underflow in " + code + " at bci " + code.bci[current]);
        return stack.removeLast();
    }

    private VariableTracker peek() { return stack.getLast(); }

    /** The value {@code depth} entries below the top of the operand stack (0 is the top), or null. */
    private VariableTracker peek(int depth) { return stack.size() > depth ? stack.get(stack.size() - 1 - depth) : null; }

    /** Pops {@code n} values, returned in push order. */
    List<VariableTracker> popN(int n) {
        List<VariableTracker> out = new ArrayList<>(Collections.nCopies(n, null));
        for (int i = n - 1; i >= 0; i--) out.set(i, pop());
        return out;
    }

    // ------------------------------------------------------------------ instructions

    private void step(Instruction ins) {
        switch (ins) {
            case LoadInstruction l -> {
                // an unread argument copied to another local (a resume method's prologue, {@code Tensor y = x;}) stays unread there,
                // as Dynamo's LOAD_FAST/STORE_FAST move a lazy variable without realizing it
                if (unreadArgument(l.slot()) != null && pc < code.instructions.size() && code.instructions.get(pc) instanceof StoreInstruction st
                        && st.typeKind() == l.typeKind()) {
                    pc++;
                    int argument = argumentInSlot[l.slot()];
                    locals[st.slot()] = null;
                    argumentInSlot[st.slot()] = argument;
                    return;
                }
                VariableTracker v = local(l.slot());
                if (v == null) throw new IllegalStateException("load of unset local " + l.slot() + " in " + code);
                push(v);
            }
            case StoreInstruction s -> {
                locals[s.slot()] = pop();
                argumentInSlot[s.slot()] = -1;
                if (s.typeKind().slotSize() == 2 && s.slot() + 1 < argumentInSlot.length) argumentInSlot[s.slot() + 1] = -1;
            }
            case IncrementInstruction inc -> {
                VariableTracker deferred = DeferredInts.increment(local(inc.slot()), inc.constant());
                locals[inc.slot()] = deferred != null ? deferred : ConstantVariable.of(intOf(locals[inc.slot()]) + inc.constant());
            }
            case ConstantInstruction c -> push(constant(c));
            case OperatorInstruction op -> operator(op);
            case ConvertInstruction cv -> convert(pop(), cv.toType());
            case BranchInstruction b -> branch(b);
            case LookupSwitchInstruction sw -> switchTo(intOf(pop()), sw.cases(), sw.defaultTarget());
            case TableSwitchInstruction sw -> switchTo(intOf(pop()), sw.cases(), sw.defaultTarget());
            case StackInstruction s -> stackOp(s.opcode());
            case FieldInstruction f -> Fields.access(this, f);
            case InvokeInstruction inv -> Invoker.invoke(this, inv);
            case InvokeDynamicInstruction indy -> Indy.invoke(this, indy);
            case NewObjectInstruction n -> push(Invoker.newObject(this, Values.resolve(n.className().asSymbol(), code.owner)));
            case NewPrimitiveArrayInstruction na -> push(newArray(na.typeKind().upperBound(), intOf(pop())));
            case NewReferenceArrayInstruction na -> push(newArray(na.componentType().asSymbol(), intOf(pop())));
            case ArrayLoadInstruction al -> arrayLoad();
            case ArrayStoreInstruction as -> arrayStore();
            case TypeCheckInstruction tc -> typeCheck(tc);
            case ThrowInstruction t -> throw Exceptions.thrown(ctx, pop());
            case NopInstruction n -> { }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_INSTRUCTION, "instruction " + ins.opcode().name().toLowerCase() + " is not supported");
        }
    }

    private VariableTracker constant(ConstantInstruction c) {
        if (c.opcode() == Opcode.ACONST_NULL) return ConstantVariable.NULL;
        Object v = c.constantValue();
        if (v instanceof Integer || v instanceof Long || v instanceof Float || v instanceof Double || v instanceof String) return ConstantVariable.of(v);
        if (v instanceof ClassDesc cd) return ConstantVariable.of(Values.resolve(cd, code.owner));
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_INSTRUCTION, "loading the constant " + v + " (" + v.getClass().getSimpleName() + ") is not supported");
    }

    private void operator(OperatorInstruction op) {
        if (op.opcode() == Opcode.ARRAYLENGTH) {
            push(ConstantVariable.of(arrayItems(pop()).size()));
            return;
        }
        boolean unary = switch (op.opcode()) {
            case INEG, LNEG, FNEG, DNEG -> true;
            default -> false;
        };
        if (unary) {
            VariableTracker v = pop();
            push(v instanceof SymScalarVariable s ? SymScalars.negate(ctx, s)
                    : v instanceof SymSizeVariable s ? SymSizes.negate(s) : ConstantVariable.of(dev.ember.jvm.JvmArithmetic.negate(number(v))));
            return;
        }
        VariableTracker b = pop(), a = pop();
        if (a instanceof SymScalarVariable || b instanceof SymScalarVariable) {
            if (a instanceof SymSizeVariable || b instanceof SymSizeVariable) throw SymSizes.specialize(ctx, a, b, "arithmetic with a number the graph computes");
            push(SymScalars.binary(ctx, op.opcode(), a, b));
            return;
        }
        if (a instanceof SymSizeVariable || b instanceof SymSizeVariable) {
            push(SymSizes.binary(ctx, op.opcode(), a, b));
            return;
        }
        VariableTracker deferred = DeferredInts.add(op.opcode(), a, b);
        if (deferred != null) {
            push(deferred);
            return;
        }
        try {
            push(ConstantVariable.of(dev.ember.jvm.JvmArithmetic.binary(op.opcode(), number(a), number(b))));
        } catch (ArithmeticException e) {
            throw jvmException(e);
        }
    }

    private void convert(VariableTracker v, TypeKind to) {
        push(v instanceof SymScalarVariable s ? SymScalars.convert(ctx, s, to)
                : v instanceof SymSizeVariable s ? SymSizes.convert(ctx, s, to) : ConstantVariable.of(dev.ember.jvm.JvmArithmetic.convert(number(v), to)));
    }

    private void branch(BranchInstruction b) {
        Opcode o = b.opcode();
        SymSizes.Relation rel = switch (o) {
            case IFEQ, IF_ICMPEQ -> SymSizes.Relation.EQ;
            case IFNE, IF_ICMPNE -> SymSizes.Relation.NE;
            case IFLT, IF_ICMPLT -> SymSizes.Relation.LT;
            case IFGE, IF_ICMPGE -> SymSizes.Relation.GE;
            case IFGT, IF_ICMPGT -> SymSizes.Relation.GT;
            case IFLE, IF_ICMPLE -> SymSizes.Relation.LE;
            default -> null;
        };
        boolean twoOperands = o.name().startsWith("IF_ICMP");
        // a branch on a symbolic int computed from int inputs is guarded by the comparison, not the inputs' values
        if (rel != null && (peek(0) instanceof SymScalarVariable || twoOperands && peek(1) instanceof SymScalarVariable)) {
            Boolean outcome = SymScalars.compare(ctx, twoOperands ? peek(1) : peek(0), twoOperands ? peek(0) : ConstantVariable.of(0),
                    dev.ember.dynamo.guards.IntRelation.Relation.valueOf(rel.name()));
            if (outcome != null) {
                pop();
                if (twoOperands) pop();
                if (outcome) pc = code.indexOf(b.target());
                return;
            }
        }
        if (rel != null && (peek(0) instanceof SymSizeVariable || twoOperands && peek(1) instanceof SymSizeVariable)) {
            VariableTracker y = twoOperands ? pop() : ConstantVariable.of(0), x = pop();
            if (SymSizes.compare(ctx, x, y, rel)) pc = code.indexOf(b.target());
            return;
        }
        // a comparison of an int input whose value guard is deferred guards the comparison, not the value (== 0 and != 0 read the value: booleans)
        if (rel != null && o != Opcode.IFEQ && o != Opcode.IFNE) {
            Boolean outcome = ctx.ints.compare(twoOperands ? peek(1) : peek(0), twoOperands ? peek(0) : ConstantVariable.of(0), deferredRelation(rel));
            if (outcome != null) {
                pop();
                if (twoOperands) pop();
                if (outcome) pc = code.indexOf(b.target());
                return;
            }
        }
        boolean taken = switch (o) {
            case GOTO, GOTO_W -> true;
            case IFEQ -> intOf(pop()) == 0;
            case IFNE -> intOf(pop()) != 0;
            case IFLT -> intOf(pop()) < 0;
            case IFGE -> intOf(pop()) >= 0;
            case IFGT -> intOf(pop()) > 0;
            case IFLE -> intOf(pop()) <= 0;
            case IF_ICMPEQ, IF_ICMPNE, IF_ICMPLT, IF_ICMPGE, IF_ICMPGT, IF_ICMPLE -> {
                int y = intOf(pop()), x = intOf(pop());
                yield switch (o) {
                    case IF_ICMPEQ -> x == y;
                    case IF_ICMPNE -> x != y;
                    case IF_ICMPLT -> x < y;
                    case IF_ICMPGE -> x >= y;
                    case IF_ICMPGT -> x > y;
                    default -> x <= y;
                };
            }
            case IF_ACMPEQ -> sameReference(pop(), pop());
            case IF_ACMPNE -> !sameReference(pop(), pop());
            case IFNULL -> isNull(pop());
            case IFNONNULL -> !isNull(pop());
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_INSTRUCTION, "branch " + o);
        };
        if (taken) pc = code.indexOf(b.target());
    }

    private static dev.ember.dynamo.guards.IntRelation.Relation deferredRelation(SymSizes.Relation rel) {
        return dev.ember.dynamo.guards.IntRelation.Relation.valueOf(rel.name());
    }

    private void switchTo(int key, List<SwitchCase> cases, java.lang.classfile.Label defaultTarget) {
        for (SwitchCase c : cases) {
            if (c.caseValue() == key) {
                pc = code.indexOf(c.target());
                return;
            }
        }
        pc = code.indexOf(defaultTarget);
    }

    private static boolean isNull(VariableTracker v) { return v instanceof ConstantVariable c && c.value() == null; }

    /** Whether two traced values are the same object ({@code ==} on references, and Object's own {@code equals}). */
    static boolean sameReference(VariableTracker a, VariableTracker b) {
        if (a == b) return true;
        if (a instanceof ConstantVariable x && b instanceof ConstantVariable y) return x.value() == y.value();
        if (a instanceof TensorVariable x && b instanceof TensorVariable y) return x.node() == y.node();
        if (a instanceof ModuleVariable x && b instanceof ModuleVariable y) return x.module() == y.module();
        if (a instanceof UserObjectVariable x && b instanceof UserObjectVariable y) return !x.isFresh() && x.value() == y.value();
        if (a instanceof OpOverloadVariable x && b instanceof OpOverloadVariable y) return x.op() == y.op();
        return false;
    }

    private void stackOp(Opcode o) {
        switch (o) {
            case POP -> pop();
            case POP2 -> {
                if (!pop().isWide()) pop();
            }
            case DUP -> push(peek());
            case DUP_X1 -> {
                VariableTracker v1 = pop(), v2 = pop();
                push(v1); push(v2); push(v1);
            }
            case DUP_X2 -> {
                VariableTracker v1 = pop(), v2 = pop();
                if (v2.isWide()) {
                    push(v1); push(v2); push(v1);
                } else {
                    VariableTracker v3 = pop();
                    push(v1); push(v3); push(v2); push(v1);
                }
            }
            case DUP2 -> {
                VariableTracker v1 = pop();
                if (v1.isWide()) {
                    push(v1); push(v1);
                } else {
                    VariableTracker v2 = pop();
                    push(v2); push(v1); push(v2); push(v1);
                }
            }
            case DUP2_X1 -> {
                VariableTracker v1 = pop();
                if (v1.isWide()) {
                    VariableTracker v2 = pop();
                    push(v1); push(v2); push(v1);
                } else {
                    VariableTracker v2 = pop(), v3 = pop();
                    push(v2); push(v1); push(v3); push(v2); push(v1);
                }
            }
            case SWAP -> {
                VariableTracker v1 = pop(), v2 = pop();
                push(v1); push(v2);
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_INSTRUCTION, "stack instruction " + o.name().toLowerCase());
        }
    }

    private VariableTracker newArray(ClassDesc component, int length) {
        if (length < 0) throw jvmException(new NegativeArraySizeException(String.valueOf(length)));
        Class<?> comp = Values.resolve(component, code.owner);
        Object zero = Values.zero(comp);
        List<VariableTracker> items = new ArrayList<>(length);
        for (int i = 0; i < length; i++) items.add(zero == null ? ConstantVariable.NULL : ConstantVariable.of(zero));
        return new ArrayVariable(comp, items, null);
    }

    List<VariableTracker> arrayItems(VariableTracker v) {
        if (v instanceof ArrayVariable a) return a.items();
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected an array, got " + v.describe());
    }

    private void arrayLoad() {
        int index = intOf(pop());
        List<VariableTracker> items = arrayItems(pop());
        if (index < 0 || index >= items.size()) throw outOfBounds(index, items.size());
        push(items.get(index));
    }

    private void arrayStore() {
        VariableTracker value = pop();
        int index = intOf(pop());
        VariableTracker arr = pop();
        if (!(arr instanceof ArrayVariable a)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "array store into " + arr.describe());
        if (a.source() != null) ctx.sideEffects.mutated(a);
        if (index < 0 || index >= a.items().size()) throw outOfBounds(index, a.items().size());
        if (a.componentType().isPrimitive() && value instanceof ConstantVariable c && c.value() instanceof Number n) {
            value = ConstantVariable.of(Values.toStack(Values.fromStack(n, a.componentType()), a.componentType()));
        }
        a.items().set(index, value);
    }

    private Raised outOfBounds(int index, int length) {
        return jvmException(new ArrayIndexOutOfBoundsException("Index " + index + " out of bounds for length " + length));
    }

    /** What the JVM throws for this instruction, with HotSpot's message, for a handler in the traced code to catch. */
    private Raised jvmException(RuntimeException e) {
        return Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e);
    }

    private void typeCheck(TypeCheckInstruction tc) {
        Class<?> type = Values.resolve(tc.type().asSymbol(), code.owner);
        VariableTracker v = pop();
        Boolean is = TypeOf.isInstance(v, type);
        if (v instanceof TensorVariable t && t.source() != null && type != dev.ember.tensor.Tensor.class && dev.ember.tensor.Tensor.class.isAssignableFrom(type)
                && ctx.inputClass.get(t.node()) instanceof Class<?> actual) {
            // an input may be a Tensor subclass (a Parameter from Module.parameters()): decide on its class, and guard it
            ctx.graph.addGuard(new dev.ember.dynamo.guards.TypeMatch(t.source(), actual));
            is = type.isAssignableFrom(actual);
        }
        if (tc.opcode() == Opcode.INSTANCEOF) {
            if (is == null) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "instanceof " + type.getSimpleName() + " on " + v.describe());
            push(ConstantVariable.of(is ? 1 : 0));
            return;
        }
        if (Boolean.FALSE.equals(is) && !isNull(v)) {
            throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws ClassCastException: " + v.describe() + " is not a " + type.getName());
        }
        push(v);
    }

    // ------------------------------------------------------------------ operand helpers

    int intOf(VariableTracker v) {
        if (v instanceof SymScalarVariable s) throw SymScalars.dataDependent(ctx, s, "using it as an int");
        if (v instanceof SymSizeVariable) throw SymSizes.specialize(ctx, v, null, "using it as an int known while tracing (a branch, an index, a loop bound)");
        if (v instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
        throw ctx.unsupported(v instanceof TensorVariable ? GraphBreakType.NON_CONSTANT_CONDITION : GraphBreakType.UNSUPPORTED_OPERAND,
                "expected an int known while tracing, got " + v.describe());
    }

    Object number(VariableTracker v) {
        if (v instanceof SymScalarVariable s) throw SymScalars.dataDependent(ctx, s, "using it as a number known while tracing");
        if (v instanceof SymSizeVariable) throw SymSizes.specialize(ctx, v, null, "using it as a number known while tracing (a comparison, a JDK call)");
        if (v instanceof ConstantVariable c && c.value() instanceof Number n) return n;
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "expected a number known while tracing, got " + v.describe());
    }
}
