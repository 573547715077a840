package dev.ember.dynamo;

import dev.ember.events.UserFrame;
import dev.ember.jvm.FlatCode;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.LocalVariable;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

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
    /** The code as a list, with labels and the exception table by instruction index. */
    private final FlatCode flat;
    private final Map<Integer, String> slotNames = new HashMap<>();
    /** Debug names of locals: slot, name, declared type and the instruction range where the name holds. */
    private final List<Named> named = new ArrayList<>();

    private record Named(int slot, String name, ClassDesc type, int from, int to) {}

    private MethodCode(Class<?> owner, ClassModel cm, MethodModel mm) {
        this.owner = owner;
        this.name = mm.methodName().stringValue();
        this.type = mm.methodTypeSymbol();
        this.isStatic = mm.flags().has(AccessFlag.STATIC);
        this.method = mm;
        this.fileName = cm.findAttribute(Attributes.sourceFile()).map(a -> a.sourceFile().stringValue()).orElse(null);
        FlatCode flat = new FlatCode(mm);
        this.flat = flat;
        this.maxLocals = flat.maxLocals();
        instructions.addAll(flat.instructions());
        this.bci = IntStream.range(0, flat.size()).map(flat::bci).toArray();
        this.line = IntStream.range(0, flat.size()).map(flat::line).toArray();
        for (CodeElement e : mm.code().orElseThrow()) {
            if (!(e instanceof LocalVariable lv)) continue;
            Integer start = flat.boundIndex(lv.startScope());
            if (start != null && start == 0) slotNames.putIfAbsent(lv.slot(), lv.name().stringValue());
            Integer end = flat.boundIndex(lv.endScope());
            if (start != null) named.add(new Named(lv.slot(), lv.name().stringValue(), lv.typeSymbol(), start, end == null ? instructions.size() : end));
        }
        parameterNamesFromAttribute(mm);
    }

    /**
     * Parameter names from the MethodParameters attribute ({@code javac -parameters}), for a method
     * compiled without {@code -g}, whose LocalVariableTable is absent: the same names guards and
     * graphs would show with it. Lambdas' methods get no such attribute from javac; without
     * either, the caller's fallback ({@code arg0}, as reflection names them) stays.
     */
    private void parameterNamesFromAttribute(MethodModel mm) {
        var attribute = mm.findAttribute(Attributes.methodParameters());
        if (attribute.isEmpty()) return;
        var params = attribute.get().parameters();
        if (params.size() != type.parameterCount()) return;
        int slot = isStatic ? 0 : 1;
        if (!isStatic) slotNames.putIfAbsent(0, "this");
        for (int i = 0; i < params.size(); i++) {
            int at = slot;
            params.get(i).name().ifPresent(n -> slotNames.putIfAbsent(at, n.stringValue()));
            slot += java.lang.classfile.TypeKind.from(type.parameterType(i)).slotSize();
        }
    }

    static MethodCode of(ClassFiles.Resolved r) {
        return CACHE.computeIfAbsent(r, k -> new MethodCode(k.declaringClass(), ClassFiles.model(k.declaringClass()), k.method()));
    }

    /** The instruction index a branch label points at. */
    int indexOf(Label label) { return flat.indexOf(label); }

    /**
     * The instruction where the handler that catches a {@code thrown} raised at instruction
     * {@code index} starts, as the JVM picks it (the first entry of the table that covers the
     * instruction and whose type the exception is), or -1 when no handler of this method catches it.
     */
    int handlerFor(int index, Class<?> thrown) {
        for (FlatCode.Handler h : flat.handlers()) {
            if (index < h.from() || index >= h.to()) continue;
            if (h.catchType() == null || Values.resolve(h.catchType(), owner).isAssignableFrom(thrown)) return h.handler();
        }
        return -1;
    }

    /** The handlers (by their first instruction) whose try range covers instruction {@code index}. */
    List<Integer> handlersCovering(int index) {
        List<Integer> out = new ArrayList<>();
        for (FlatCode.Handler h : flat.handlers()) if (h.from() <= index && index < h.to()) out.add(h.handler());
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

    /** Every source name the local in {@code slot} has in the method, joined by "/" ({@code i/j} for a reused slot); null without debug information. */
    String namesOfSlot(int slot) {
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        for (Named n : named) if (n.slot() == slot) names.add(n.name());
        return names.isEmpty() ? null : String.join("/", names);
    }

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
