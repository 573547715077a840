package dev.ember.dynamo;

import dev.ember.events.UserFrame;

import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.NewMultiArrayInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.NewPrimitiveArrayInstruction;
import java.lang.classfile.instruction.NewReferenceArrayInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A method's bytecode for people, as {@code javap -c} lists it but with Java-like signatures and
 * the source: each source line (with its text when the .java file is found) above its
 * instructions, each instruction at its bytecode index, local slots named from the
 * LocalVariableTable, and an arrow at the instruction the trace is at.
 * <pre>
 * Prog.f(Tensor, int): Tensor  (Prog.java)
 *     line 8  Tensor y = x.relu().mul(n);
 *           0   aload_0                             // x
 *           1   invokevirtual  Tensor Tensor.relu()
 *           …
 *           9   astore_2                            // y
 *     line 9  Comptime.breakpoint();
 * --&gt;      10   invokestatic   void Comptime.breakpoint()
 * </pre>
 */
final class Disassembly {
    private Disassembly() {}

    /** Where a comment after an instruction starts, so the local names line up. */
    private static final int COMMENT_COLUMN = 48;

    /** The listing of {@code code}, the arrow at instruction {@code current} (none when it is -1). */
    static String of(MethodCode code, int current) {
        StringBuilder sb = new StringBuilder();
        sb.append(methodName(code)).append(signature(code.type)).append(code.fileName == null ? "" : "  (" + code.fileName + ")").append('\n');
        int line = Integer.MIN_VALUE;
        for (int i = 0; i < code.instructions.size(); i++) {
            if (code.line[i] != line) {
                line = code.line[i];
                UserFrame at = code.frameAt(i);
                sb.append("    ").append(line < 0 ? "no line" : "line " + line).append(at.sourceText() == null ? "" : "  " + at.sourceText()).append('\n');
            }
            String text = String.format("%s%8d   %s", i == current ? "-->" : "   ", code.bci[i], instruction(code, i));
            String local = localComment(code, i);
            if (local != null) text = String.format("%-" + COMMENT_COLUMN + "s  // %s", text, local);
            sb.append(text.stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    /** One instruction: its mnemonic and operands. */
    static String instruction(MethodCode code, int index) {
        Instruction ins = code.instructions.get(index);
        String op = ins.opcode().name().toLowerCase();
        String operands = switch (ins) {
            case LoadInstruction l -> slotOperand(ins.opcode(), l.slot());
            case StoreInstruction s -> slotOperand(ins.opcode(), s.slot());
            case IncrementInstruction inc -> inc.slot() + ", " + inc.constant();
            case ConstantInstruction c -> switch (ins.opcode()) {
                case BIPUSH, SIPUSH -> String.valueOf(c.constantValue());
                case LDC, LDC_W, LDC2_W -> constant(c.constantValue());
                default -> "";
            };
            case InvokeInstruction inv -> name(inv.typeSymbol().returnType()) + " " + name(inv.owner().asSymbol()) + "." + inv.name().stringValue()
                    + parameters(inv.typeSymbol());
            case InvokeDynamicInstruction indy -> name(indy.typeSymbol().returnType()) + " " + indy.name().stringValue() + parameters(indy.typeSymbol());
            case FieldInstruction f -> name(f.typeSymbol()) + " " + name(f.owner().asSymbol()) + "." + f.name().stringValue();
            case BranchInstruction b -> String.valueOf(bciOf(code, b.target()));
            case TableSwitchInstruction sw -> cases(code, sw.cases(), sw.defaultTarget());
            case LookupSwitchInstruction sw -> cases(code, sw.cases(), sw.defaultTarget());
            case NewObjectInstruction n -> name(n.className().asSymbol());
            case NewReferenceArrayInstruction n -> name(n.componentType().asSymbol());
            case NewPrimitiveArrayInstruction n -> n.typeKind().upperBound().displayName();
            case NewMultiArrayInstruction n -> name(n.arrayType().asSymbol()) + ", " + n.dimensions();
            case TypeCheckInstruction t -> name(t.type().asSymbol());
            default -> "";
        };
        return operands.isEmpty() ? op : String.format("%-14s %s", op, operands);
    }

    /** {@code aload_0} names its slot; {@code aload 4} does not. */
    private static String slotOperand(Opcode op, int slot) {
        return op.name().matches(".*_\\d") ? "" : String.valueOf(slot);
    }

    private static String constant(Object value) {
        return switch (value) {
            case String s -> '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
            case ClassDesc c -> name(c) + ".class";
            default -> String.valueOf(value);
        };
    }

    private static String cases(MethodCode code, List<SwitchCase> cases, Label defaultTarget) {
        return cases.stream().map(c -> c.caseValue() + ": " + bciOf(code, c.target())).collect(Collectors.joining(", ", "{ ", ", "))
                + "default: " + bciOf(code, defaultTarget) + " }";
    }

    private static int bciOf(MethodCode code, Label label) {
        int i = code.indexOf(label);
        return i < code.bci.length ? code.bci[i] : code.bci[code.bci.length - 1];
    }

    /** The local a load, store or increment touches, by its source name. */
    private static String localComment(MethodCode code, int index) {
        int slot = switch (code.instructions.get(index)) {
            case LoadInstruction l -> l.slot();
            case StoreInstruction s -> s.slot();
            case IncrementInstruction inc -> inc.slot();
            default -> -1;
        };
        if (slot < 0) return null;
        // a store names the local whose scope starts after it
        String name = code.localName(slot, index);
        return name != null ? name : index + 1 < code.instructions.size() ? code.localName(slot, index + 1) : null;
    }

    /**
     * {@code Prog.f}: the user's class (a resume method's too) by its binary name, not
     * getSimpleName(), which can throw for a nested class of another loader (see CompiledFrame.name).
     */
    static String methodName(MethodCode code) {
        String cls = ClassFiles.origin(code.owner).getName();
        return cls.substring(cls.lastIndexOf('.') + 1) + "." + code.name;
    }

    /** {@code (Tensor, int): Tensor} */
    static String signature(MethodTypeDesc type) { return parameters(type) + ": " + name(type.returnType()); }

    private static String parameters(MethodTypeDesc type) {
        return type.parameterList().stream().map(Disassembly::name).collect(Collectors.joining(", ", "(", ")"));
    }

    /** The simple name, as source code shows a type: {@code Tensor}, {@code int[]}, {@code List}. */
    static String name(ClassDesc c) {
        String n = c.displayName();
        int dollar = n.lastIndexOf('$');
        return dollar < 0 ? n : n.substring(dollar + 1);
    }
}
