package dev.ember.debug.bytecode;

import dev.ember.dynamo.GeneratedCode;
import dev.ember.dynamo.Values;
import dev.ember.dynamo.resume.Sneaky;
import dev.ember.jvm.BytecodeListing;
import dev.ember.jvm.FlatCode;

import java.lang.classfile.ClassModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.ArrayLoadInstruction;
import java.lang.classfile.instruction.ArrayStoreInstruction;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.ConvertInstruction;
import java.lang.classfile.instruction.DiscontinuedInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.MonitorInstruction;
import java.lang.classfile.instruction.NewMultiArrayInstruction;
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
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A static method of a generated class ({@code breakAt}, a resume method), run by a concrete
 * interpreter of its own, one instruction per {@link #step}: locals and operand stack as
 * {@link Slot}s, every instruction kind javac and the resume generator emit. Calls are made for
 * real through method handles, so a call of a compiled frame (the hand-off to a resume method, a
 * helper called through its compiled frame) reaches the debugger again, which steps into it.
 * {@code monitorenter} and {@code monitorexit} take no lock: the call runs on the debugger's thread.
 */
final class MethodFrame implements DebugFrame {
    private final Class<?> owner;
    private final ClassModel classModel;
    private final FlatCode code;
    private final Linker linker;
    private final Class<?> returnType;
    private final Slot[] locals;
    /** Which slots the method wrote: before that, a parameter's slot holds its argument, named as the parameter. */
    private final boolean[] written;
    private final List<Slot> stack = new ArrayList<>();
    private final BytecodeListing.Notes notes;
    private int pc;
    private boolean done;
    private Object result;

    /** Static method {@code name} of {@code owner} (a generated class), called with {@code args}. */
    MethodFrame(Class<?> owner, FlatCode code, Linker linker, Object[] args) {
        this.owner = owner;
        this.classModel = GeneratedCode.model(owner);
        this.code = code;
        this.linker = linker;
        MethodModel mm = code.method();
        MethodTypeDesc type = mm.methodTypeSymbol();
        this.returnType = linker.classOf(type.returnType());
        this.notes = GeneratedCode.notes(classModel, mm);
        this.locals = new Slot[Math.max(code.maxLocals(), 1)];
        this.written = new boolean[locals.length];
        int slot = 0;
        for (int i = 0; i < type.parameterCount(); i++) {
            ClassDesc p = type.parameterType(i);
            Slot s = Slot.of(TypeKind.from(p), Values.toStack(args[i], linker.classOf(p)));
            locals[slot] = s;
            if (s.isWide()) locals[slot + 1] = Slot.TOP;
            slot += s.kind().slotSize();
        }
    }

    @Override
    public String title() {
        return classModel.thisClass().asSymbol().displayName() + "." + name() + BytecodeListing.signature(code.method().methodTypeSymbol())
                + "  (generated code, interpreted)";
    }

    @Override
    public String name() { return code.method().methodName().stringValue(); }

    @Override
    public String key() { return owner.getName() + "." + name() + code.method().methodTypeSymbol().descriptorString(); }

    @Override
    public int count() { return code.size(); }

    @Override
    public int bciAt(int index) { return code.bci(index); }

    @Override
    public int indexAtBci(int bci) { return code.indexAtBci(bci); }

    @Override
    public int length() { return code.length(); }

    @Override
    public int current() { return pc; }

    @Override
    public boolean isDone() { return done; }

    @Override
    public Object result() { return result; }

    @Override
    public String rows(int from, int to, Set<Integer> breakpoints) {
        return BytecodeListing.rows(classModel, code, from, to, new BytecodeListing.Marks(done ? -1 : code.bci(pc), breakpoints), notes,
                GeneratedCode.source(owner));
    }

    @Override
    public List<String> locals() {
        List<String> out = new ArrayList<>();
        for (int slot = 0; slot < locals.length; slot++) {
            Slot s = locals[slot];
            if (s == null || s == Slot.TOP) continue;
            String name = written[slot] ? GeneratedCode.slotName(owner, slot) : GeneratedCode.parameterName(code.method(), slot);
            out.add(String.format("%3d  %-10s %s", slot, name == null ? "" : name, s));
        }
        return out;
    }

    @Override
    public List<String> stack() {
        List<String> out = new ArrayList<>();
        for (Slot s : stack) if (s != Slot.TOP) out.add(s.toString());
        return out;
    }

    @Override
    public void step() {
        try {
            pc = execute(code.at(pc));
        } catch (Throwable t) {
            int handler = handlerFor(t);
            if (handler < 0) {
                done = true;
                throw Sneaky.<RuntimeException>rethrow(t);
            }
            stack.clear();
            stack.add(Slot.ref(t));
            pc = handler;
        }
    }

    /** The handler of this method that catches {@code t} thrown at the current instruction, as the JVM picks it; -1 when none does. */
    private int handlerFor(Throwable t) {
        for (FlatCode.Handler h : code.handlers()) {
            if (pc >= h.from() && pc < h.to() && (h.catchType() == null || linker.classOf(h.catchType()).isInstance(t))) return h.handler();
        }
        return -1;
    }

    /** Runs {@code ins}; the index of the instruction to run next. */
    private int execute(Instruction ins) throws Throwable {
        int next = pc + 1;
        switch (ins) {
            case LoadInstruction l -> push(local(l.slot()));
            case StoreInstruction s -> {
                Slot v = pop();
                locals[s.slot()] = v;
                written[s.slot()] = true;
                if (v.isWide()) locals[s.slot() + 1] = Slot.TOP;
            }
            case IncrementInstruction inc -> {
                locals[inc.slot()] = Slot.of(TypeKind.INT, (Integer) local(inc.slot()).value() + inc.constant());
                written[inc.slot()] = true;
            }
            case ConstantInstruction c -> push(c.opcode() == Opcode.ACONST_NULL ? Slot.ref(null)
                    : Slot.of(c.typeKind(), c.constantValue() instanceof Number n ? n : linker.constant(c.constantValue())));
            case OperatorInstruction o -> push(Arithmetic.apply(o.opcode(), this::pop));
            case ConvertInstruction c -> push(Slot.of(c.toType(), convert((Number) pop().value(), c.toType())));
            case StackInstruction s -> shuffle(s.opcode());
            case BranchInstruction b -> {
                if (branches(b.opcode())) next = code.indexOf(b.target());
            }
            case TableSwitchInstruction t -> next = code.indexOf(target(t.cases(), t.defaultTarget()));
            case LookupSwitchInstruction l -> next = code.indexOf(target(l.cases(), l.defaultTarget()));
            case ReturnInstruction r -> {
                result = r.typeKind() == TypeKind.VOID ? null : Values.fromStack(pop().value(), returnType);
                done = true;
            }
            case ThrowInstruction t -> {
                Object thrown = pop().value();
                if (thrown == null) throw new NullPointerException("Cannot throw exception because the value at bci " + code.bci(pc) + " is null");
                throw (Throwable) thrown;
            }
            case FieldInstruction f -> field(f);
            case InvokeInstruction inv -> invoke(inv);
            case InvokeDynamicInstruction indy -> {
                Object[] args = popArguments(indy.typeSymbol());
                pushResult(indy.typeSymbol(), linker.callSite(indy).dynamicInvoker().invokeWithArguments(args));
            }
            case NewObjectInstruction n -> push(Slot.ref(new Uninitialized(linker.classOf(n.className().asSymbol()), code.bci(pc))));
            case NewPrimitiveArrayInstruction n -> push(Slot.ref(Array.newInstance(linker.classOf(n.typeKind().upperBound()), popInt())));
            case NewReferenceArrayInstruction n -> push(Slot.ref(Array.newInstance(linker.classOf(n.componentType().asSymbol()), popInt())));
            case NewMultiArrayInstruction n -> {
                int[] counts = new int[n.dimensions()];
                for (int d = counts.length - 1; d >= 0; d--) counts[d] = popInt();
                Class<?> element = linker.classOf(n.arrayType().asSymbol());
                for (int d = 0; d < counts.length; d++) element = element.getComponentType();
                push(Slot.ref(Array.newInstance(element, counts)));
            }
            case ArrayLoadInstruction a -> {
                int index = popInt();
                Object array = pop().value();
                if (array == null) throw new NullPointerException("Cannot load from a null array at bci " + code.bci(pc));
                push(Slot.of(a.typeKind(), Values.toStack(Array.get(array, index), array.getClass().getComponentType())));
            }
            case ArrayStoreInstruction a -> {
                Object value = pop().value();
                int index = popInt();
                Object array = pop().value();
                if (array == null) throw new NullPointerException("Cannot store to a null array at bci " + code.bci(pc));
                Class<?> component = array.getClass().getComponentType();
                if (!component.isPrimitive() && value != null && !component.isInstance(value)) throw new ArrayStoreException(value.getClass().getName());
                Array.set(array, index, Values.fromStack(value, component));
            }
            case TypeCheckInstruction t -> {
                Class<?> type = linker.classOf(t.type().asSymbol());
                if (t.opcode() == Opcode.INSTANCEOF) {
                    Object v = pop().value();
                    push(Slot.of(TypeKind.INT, v != null && type.isInstance(v) ? 1 : 0));
                } else {
                    Object v = stack.getLast().value();
                    if (v != null && !type.isInstance(v)) {
                        throw new ClassCastException("class " + v.getClass().getName() + " cannot be cast to class " + type.getName());
                    }
                }
            }
            case MonitorInstruction m -> {
                if (pop().value() == null) throw new NullPointerException("Cannot enter synchronized block because the value is null");
            }
            case NopInstruction n -> { }
            case DiscontinuedInstruction d -> throw new IllegalStateException(BytecodeListing.mnemonic(d) + " at bci " + code.bci(pc)
                    + ": class files since Java 7 do not use jsr/ret, and the debugger does not run them");
            default -> throw new IllegalStateException("the debugger cannot run " + BytecodeListing.mnemonic(ins) + " at bci " + code.bci(pc));
        }
        return next;
    }

    private void field(FieldInstruction f) throws Throwable {
        ClassDesc owner = f.owner().asSymbol(), type = f.typeSymbol();
        String name = f.name().stringValue();
        Class<?> cls = linker.classOf(type);
        TypeKind kind = TypeKind.from(type);
        switch (f.opcode()) {
            case GETSTATIC -> push(Slot.of(kind, Values.toStack(linker.getter(owner, name, type, true).invoke(), cls)));
            case GETFIELD -> {
                Object receiver = receiver(pop(), owner.displayName() + "." + name);
                push(Slot.of(kind, Values.toStack(linker.getter(owner, name, type, false).invoke(receiver), cls)));
            }
            case PUTSTATIC -> linker.setter(owner, name, type, true).invoke(Values.fromStack(pop().value(), cls));
            default -> {
                Object value = Values.fromStack(pop().value(), cls);
                Object receiver = receiver(pop(), owner.displayName() + "." + name);
                linker.setter(owner, name, type, false).invoke(receiver, value);
            }
        }
    }

    private void invoke(InvokeInstruction inv) throws Throwable {
        MethodTypeDesc type = inv.typeSymbol();
        String name = inv.name().stringValue();
        Object[] args = popArguments(type);
        if (inv.opcode() == Opcode.INVOKESTATIC) {
            pushResult(type, linker.findStatic(inv.owner().asSymbol(), name, type).invokeWithArguments(args));
        } else if (name.equals("<init>")) {
            if (!(pop().value() instanceof Uninitialized u)) {
                throw new IllegalStateException("invokespecial <init> at bci " + code.bci(pc) + " on an object already made: the debugger runs no super constructor calls");
            }
            Object made = linker.findConstructor(inv.owner().asSymbol(), type.changeReturnType(java.lang.constant.ConstantDescs.CD_void)).invokeWithArguments(args);
            initialized(u, made);
        } else {
            Object receiver = receiver(pop(), inv.owner().asSymbol().displayName() + "." + name);
            Object[] all = new Object[args.length + 1];
            all[0] = receiver;
            System.arraycopy(args, 0, all, 1, args.length);
            pushResult(type, linker.findVirtual(inv.owner().asSymbol(), name, type).invokeWithArguments(all));
        }
    }

    private static Object receiver(Slot s, String member) {
        if (s.value() == null) throw new NullPointerException("Cannot invoke or read \"" + member + "\" because the receiver is null");
        return s.value();
    }

    /** The object {@code u}'s constructor made, in every slot that held {@code u}. */
    private void initialized(Uninitialized u, Object made) {
        for (int i = 0; i < stack.size(); i++) if (stack.get(i).value() == u) stack.set(i, Slot.ref(made));
        for (int i = 0; i < locals.length; i++) if (locals[i] != null && locals[i].value() == u) locals[i] = Slot.ref(made);
    }

    /** The call's arguments, popped, each converted to its parameter's Java type (an int to boolean, char…). */
    private Object[] popArguments(MethodTypeDesc type) {
        Object[] args = new Object[type.parameterCount()];
        for (int i = args.length - 1; i >= 0; i--) args[i] = Values.fromStack(pop().value(), linker.classOf(type.parameterType(i)));
        return args;
    }

    private void pushResult(MethodTypeDesc type, Object value) {
        ClassDesc ret = type.returnType();
        if (TypeKind.from(ret) != TypeKind.VOID) push(Slot.of(TypeKind.from(ret), Values.toStack(value, linker.classOf(ret))));
    }

    private Slot local(int slot) {
        Slot s = locals[slot];
        if (s == null) throw new IllegalStateException("local " + slot + " is read at bci " + code.bci(pc) + " before it is written");
        return s;
    }

    private void push(Slot s) {
        stack.add(s);
        if (s.isWide()) stack.add(Slot.TOP);
    }

    /** The value on top: a long or double takes its two slots. */
    private Slot pop() {
        Slot top = stack.removeLast();
        return top == Slot.TOP ? stack.removeLast() : top;
    }

    private int popInt() { return (Integer) pop().value(); }

    /** The stack instructions, on slots as the JVM defines them (a long or double is two). */
    private void shuffle(Opcode op) {
        switch (op) {
            case POP -> stack.removeLast();
            case POP2 -> {
                stack.removeLast();
                stack.removeLast();
            }
            case DUP -> stack.add(stack.getLast());
            case SWAP -> {
                Slot v1 = stack.removeLast(), v2 = stack.removeLast();
                stack.addAll(List.of(v1, v2));
            }
            case DUP_X1 -> {
                Slot v1 = stack.removeLast(), v2 = stack.removeLast();
                stack.addAll(List.of(v1, v2, v1));
            }
            case DUP_X2 -> {
                Slot v1 = stack.removeLast(), v2 = stack.removeLast(), v3 = stack.removeLast();
                stack.addAll(List.of(v1, v3, v2, v1));
            }
            case DUP2 -> {
                Slot v1 = stack.removeLast(), v2 = stack.removeLast();
                stack.addAll(List.of(v2, v1, v2, v1));
            }
            case DUP2_X1 -> {
                Slot v1 = stack.removeLast(), v2 = stack.removeLast(), v3 = stack.removeLast();
                stack.addAll(List.of(v2, v1, v3, v2, v1));
            }
            case DUP2_X2 -> {
                Slot v1 = stack.removeLast(), v2 = stack.removeLast(), v3 = stack.removeLast(), v4 = stack.removeLast();
                stack.addAll(List.of(v2, v1, v4, v3, v2, v1));
            }
            default -> throw new IllegalStateException("not a stack instruction: " + op);
        }
    }

    /** Whether a conditional branch is taken (its operands popped); always for goto. */
    private boolean branches(Opcode op) {
        return switch (op) {
            case GOTO, GOTO_W -> true;
            case IFEQ -> popInt() == 0;
            case IFNE -> popInt() != 0;
            case IFLT -> popInt() < 0;
            case IFGE -> popInt() >= 0;
            case IFGT -> popInt() > 0;
            case IFLE -> popInt() <= 0;
            case IFNULL -> pop().value() == null;
            case IFNONNULL -> pop().value() != null;
            case IF_ACMPEQ, IF_ACMPNE -> {
                Object b = pop().value(), a = pop().value();
                yield (a == b) == (op == Opcode.IF_ACMPEQ);
            }
            default -> {
                int b = popInt(), a = popInt();
                yield switch (op) {
                    case IF_ICMPEQ -> a == b;
                    case IF_ICMPNE -> a != b;
                    case IF_ICMPLT -> a < b;
                    case IF_ICMPGE -> a >= b;
                    case IF_ICMPGT -> a > b;
                    case IF_ICMPLE -> a <= b;
                    default -> throw new IllegalStateException("not a branch: " + op);
                };
            }
        };
    }

    private java.lang.classfile.Label target(List<SwitchCase> cases, java.lang.classfile.Label otherwise) {
        int key = popInt();
        for (SwitchCase c : cases) if (c.caseValue() == key) return c.target();
        return otherwise;
    }

    /** A primitive conversion ({@code i2l}, {@code d2i}, {@code i2b}…), with Java's casts, which are the JVM's. */
    private static Object convert(Number n, TypeKind to) {
        return switch (to) {
            case INT -> n.intValue();
            case LONG -> n.longValue();
            case FLOAT -> n.floatValue();
            case DOUBLE -> n.doubleValue();
            case BYTE -> (int) (byte) n.intValue();
            case CHAR -> (int) (char) n.intValue();
            case SHORT -> (int) (short) n.intValue();
            default -> throw new IllegalStateException("no conversion to " + to);
        };
    }
}
