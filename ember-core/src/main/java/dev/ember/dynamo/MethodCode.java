package dev.ember.dynamo;

import dev.ember.events.UserFrame;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.ExceptionCatch;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.classfile.instruction.LineNumber;
import java.lang.classfile.instruction.LocalVariable;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A method's bytecode flattened for interpretation: instructions in order with their bytecode
 * index and source line, branch labels mapped to instruction indices, and parameter names from the
 * LocalVariableTable.
 */
final class MethodCode {
    private static final Map<ClassFiles.Resolved, MethodCode> CACHE = new ConcurrentHashMap<>();

    final Class<?> owner;
    final String name;
    final MethodTypeDesc type;
    final boolean isStatic;
    final String fileName;
    final int maxLocals;
    final MethodModel method;
    final List<Instruction> instructions = new ArrayList<>();
    final int[] bci;
    final int[] line;
    private final Map<Label, Integer> labels = new IdentityHashMap<>();
    private final Map<Integer, String> slotNames = new HashMap<>();
    /** Debug names of locals: slot, name, declared type and the instruction range where the name holds. */
    private final List<Named> named = new ArrayList<>();

    private record Named(int slot, String name, ClassDesc type, int from, int to) {}

    /** The exception table in its order: instructions [from, to) are covered by the handler at {@code handler}; a null type catches all. */
    private final List<Handler> handlers = new ArrayList<>();

    private record Handler(int from, int to, int handler, ClassDesc catchType) {}

    private MethodCode(Class<?> owner, ClassModel cm, MethodModel mm) {
        this.owner = owner;
        this.name = mm.methodName().stringValue();
        this.type = mm.methodTypeSymbol();
        this.isStatic = mm.flags().has(AccessFlag.STATIC);
        this.method = mm;
        this.fileName = cm.findAttribute(Attributes.sourceFile()).map(a -> a.sourceFile().stringValue()).orElse(null);
        CodeModel code = mm.code().orElseThrow();
        this.maxLocals = ((CodeAttribute) code).maxLocals();
        List<Integer> bcis = new ArrayList<>(), lines = new ArrayList<>();
        List<LocalVariable> locals = new ArrayList<>();
        int pos = 0, currentLine = -1;
        for (CodeElement e : code) {
            switch (e) {
                case LabelTarget lt -> labels.put(lt.label(), instructions.size());
                case LineNumber ln -> currentLine = ln.line();
                case LocalVariable lv -> locals.add(lv);
                case Instruction ins -> {
                    instructions.add(ins);
                    bcis.add(pos);
                    lines.add(currentLine);
                    pos += ins.sizeInBytes();
                }
                default -> { }
            }
        }
        this.bci = bcis.stream().mapToInt(Integer::intValue).toArray();
        this.line = lines.stream().mapToInt(Integer::intValue).toArray();
        for (ExceptionCatch ec : code.exceptionHandlers()) {
            handlers.add(new Handler(labels.get(ec.tryStart()), labels.get(ec.tryEnd()), labels.get(ec.handler()),
                    ec.catchType().map(t -> t.asSymbol()).orElse(null)));
        }
        for (LocalVariable lv : locals) {
            Integer start = labels.get(lv.startScope());
            if (start != null && start == 0) slotNames.putIfAbsent(lv.slot(), lv.name().stringValue());
            Integer end = labels.get(lv.endScope());
            if (start != null) named.add(new Named(lv.slot(), lv.name().stringValue(), lv.typeSymbol(), start, end == null ? instructions.size() : end));
        }
    }

    static MethodCode of(ClassFiles.Resolved r) {
        return CACHE.computeIfAbsent(r, k -> new MethodCode(k.declaringClass(), ClassFiles.model(k.declaringClass()), k.method()));
    }

    /** The instruction index a branch label points at. */
    int indexOf(Label label) {
        Integer i = labels.get(label);
        if (i == null) throw new IllegalStateException("unknown label in " + this);
        return i;
    }

    /**
     * The instruction where the handler that catches a {@code thrown} raised at instruction
     * {@code index} starts, as the JVM picks it (the first entry of the table that covers the
     * instruction and whose type the exception is), or -1 when no handler of this method catches it.
     */
    int handlerFor(int index, Class<?> thrown) {
        for (Handler h : handlers) {
            if (index < h.from() || index >= h.to()) continue;
            if (h.catchType() == null || Values.resolve(h.catchType(), owner).isAssignableFrom(thrown)) return h.handler();
        }
        return -1;
    }

    /** The handlers (by their first instruction) whose try range covers instruction {@code index}. */
    List<Integer> handlersCovering(int index) {
        List<Integer> out = new ArrayList<>();
        for (Handler h : handlers) if (h.from() <= index && index < h.to()) out.add(h.handler());
        return out;
    }

    private volatile java.util.BitSet[] liveIn;

    /** Whether local {@code slot} is read, on some path from instruction {@code index}, before it is written. */
    boolean isLive(int slot, int index) {
        java.util.BitSet[] live = liveIn;
        if (live == null) liveIn = live = Liveness.of(this);
        return index < live.length && live[index].get(slot);
    }

    /** The source name of the parameter in {@code slot}, or null without debug information. */
    String slotName(int slot) { return slotNames.get(slot); }

    /** The source name of the local in {@code slot} at instruction {@code index}, or null without debug information. */
    String localName(int slot, int index) {
        Named n = named(slot, index);
        return n == null ? null : n.name();
    }

    /** The declared type of the local in {@code slot} at instruction {@code index}, or null without debug information. */
    ClassDesc localType(int slot, int index) {
        Named n = named(slot, index);
        return n == null ? null : n.type();
    }

    private Named named(int slot, int index) {
        for (Named n : named) if (n.slot() == slot && n.from() <= index && index < n.to()) return n;
        return null;
    }

    /** Whether the class file names this method's locals (a LocalVariableTable: javac -g). */
    boolean hasLocalNames() { return !named.isEmpty(); }

    /** Where instruction {@code index} is; generated resume code reports the user class it continues. */
    UserFrame frameAt(int index) {
        int i = Math.max(0, Math.min(index, instructions.size() - 1));
        int ln = line[i];
        Class<?> shown = ClassFiles.origin(owner);
        return new UserFrame(shown.getName(), name, fileName, ln, bci[i], SourceLines.line(shown, fileName, ln));
    }

    /** The frame of the first instruction with a line number (a resume method's prologue has none). */
    UserFrame firstFrameWithLine() {
        for (int i = 0; i < instructions.size(); i++) if (line[i] >= 0) return frameAt(i);
        return frameAt(0);
    }

    static void clear() { CACHE.clear(); }

    @Override
    public String toString() { return owner.getName() + "." + name + type.descriptorString(); }
}
