package dev.ember.jvm;

import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.ExceptionCatch;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.classfile.instruction.LineNumber;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A method's code as a list: its instructions in order, each with its bytecode index (bci) and
 * source line (-1 where the LineNumberTable says none), branch labels mapped to instruction
 * indices, and the exception table by instruction index. The form both an interpreter and a
 * listing want, where the class-file API gives a stream of elements.
 */
public final class FlatCode {
    private final MethodModel method;
    private final List<Instruction> instructions = new ArrayList<>();
    private final int[] bci;
    private final int[] line;
    private final Map<Label, Integer> labels = new IdentityHashMap<>();
    private final List<Handler> handlers = new ArrayList<>();
    private final int maxLocals;

    /** Instructions [from, to) are covered by the handler that starts at instruction {@code handler}; a null type catches all. */
    public record Handler(int from, int to, int handler, ClassDesc catchType) {}

    public FlatCode(MethodModel method) {
        this.method = method;
        CodeModel code = method.code().orElseThrow(() -> new IllegalArgumentException(method.methodName() + " has no code (abstract or native)"));
        this.maxLocals = ((CodeAttribute) code).maxLocals();
        List<Integer> bcis = new ArrayList<>(), lines = new ArrayList<>();
        int pos = 0, currentLine = -1;
        for (CodeElement e : code) {
            switch (e) {
                case LabelTarget lt -> labels.put(lt.label(), instructions.size());
                case LineNumber ln -> currentLine = ln.line();
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
            handlers.add(new Handler(indexOf(ec.tryStart()), indexOf(ec.tryEnd()), indexOf(ec.handler()), ec.catchType().map(t -> t.asSymbol()).orElse(null)));
        }
    }

    public MethodModel method() { return method; }

    public List<Instruction> instructions() { return instructions; }

    public int size() { return instructions.size(); }

    public Instruction at(int index) { return instructions.get(index); }

    public int bci(int index) { return bci[index]; }

    /** The source line of instruction {@code index}, or -1. */
    public int line(int index) { return line[index]; }

    public int maxLocals() { return maxLocals; }

    /** The code's length in bytes: one past the last instruction's last byte. */
    public int length() { return instructions.isEmpty() ? 0 : bci[bci.length - 1] + instructions.getLast().sizeInBytes(); }

    /** The instruction index a label is bound before. */
    public int indexOf(Label label) {
        Integer i = labels.get(label);
        if (i == null) throw new IllegalStateException("a label of " + method.methodName() + " is bound to no instruction");
        return i;
    }

    /** The instruction index a label is bound before, or null when it is bound nowhere in this code. */
    public Integer boundIndex(Label label) { return labels.get(label); }

    /** The instruction that starts at {@code bci}, or -1 when none does (the bci is inside an instruction, or past the end). */
    public int indexAtBci(int bci) {
        int i = Arrays.binarySearch(this.bci, bci);
        return i < 0 ? -1 : i;
    }

    /** The exception table in its order (the JVM tries its entries in this order). */
    public List<Handler> handlers() { return handlers; }
}
