package dev.ember.jvm;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
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
import java.lang.constant.ConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/**
 * A method's bytecode as people read it, in javap's order (bci, mnemonic, operands) but with names
 * instead of constant-pool indexes: {@code invokevirtual  PrintStream.println(Object) : void},
 * branch targets as bcis, the source line above the instructions it compiles to, and a note beside
 * an instruction where the caller has one. One printer serves the {@code bytecode} debug artifact
 * and the bytecode debugger, whose listing also marks the current instruction ({@code =>}) and
 * breakpoints ({@code *}).
 */
public final class BytecodeListing {
    private BytecodeListing() {}

    /** A note beside instruction {@code index} of {@code code} (why it is there, what it calls), or null. */
    public interface Notes {
        String at(FlatCode code, int index);

        Notes NONE = (code, index) -> null;
    }

    /** The text of source line {@code line} of the class's source file, or null when unknown. */
    public interface SourceText {
        String line(int line);

        SourceText NONE = line -> null;
    }

    /** The debugger's marks: the instruction about to run ({@code currentBci}, -1 for none) and the breakpoints' bcis. */
    public record Marks(int currentBci, Set<Integer> breakpoints) {
        public static final Marks NONE = new Marks(-1, Set.of());
    }

    private static final int MNEMONIC_WIDTH = 16;
    private static final int OPERANDS_WIDTH = 44;

    /** Every method of the class, each with its header, for the debug artifact. */
    public static String of(ClassModel cm, java.util.function.Function<MethodModel, Notes> notes, SourceText source) {
        StringBuilder sb = new StringBuilder();
        sb.append(classHeader(cm)).append('\n');
        for (MethodModel mm : cm.methods()) {
            if (mm.code().isEmpty()) continue;
            FlatCode code = new FlatCode(mm);
            sb.append('\n').append(methodHeader(cm, mm)).append('\n');
            sb.append(rows(cm, code, 0, code.size() - 1, Marks.NONE, notes.apply(mm), source));
        }
        return sb.toString();
    }

    /** {@code final synthetic class MyApp$Resume0  (MyApp.java)} */
    public static String classHeader(ClassModel cm) {
        String flags = cm.flags().flags().stream().filter(f -> f != AccessFlag.SUPER).map(f -> f.name().toLowerCase()).collect(Collectors.joining(" "));
        return (flags.isEmpty() ? "" : flags + " ") + "class " + cm.thisClass().asSymbol().displayName() + sourceFile(cm).map(f -> "  (" + f + ")").orElse("");
    }

    /** {@code public static Tensor breakAt(Object[], ResumeTarget)}, then a column heading. */
    public static String methodHeader(ClassModel cm, MethodModel mm) {
        String flags = mm.flags().flags().stream().filter(f -> f == AccessFlag.PUBLIC || f == AccessFlag.PRIVATE || f == AccessFlag.STATIC)
                .map(f -> f.name().toLowerCase() + " ").collect(Collectors.joining());
        MethodTypeDesc t = mm.methodTypeSymbol();
        return flags + t.returnType().displayName() + " " + mm.methodName().stringValue() + params(t) + "\n     bci  instruction";
    }

    /**
     * Instructions {@code from} to {@code to} (indices, both included), each on a row: marks, bci,
     * mnemonic, operands, note; a source line's text above its first instruction.
     */
    public static String rows(ClassModel cm, FlatCode code, int from, int to, Marks marks, Notes notes, SourceText source) {
        StringBuilder sb = new StringBuilder();
        String file = sourceFile(cm).orElse("?");
        int width = bciWidth(code.length());
        int lastLine = from > 0 ? code.line(from - 1) : -1;
        for (int i = from; i <= to && i < code.size(); i++) {
            int line = code.line(i);
            if (line >= 0 && line != lastLine) {
                String text = source.line(line);
                sb.append(" ".repeat(width + 6)).append("// ").append(file).append(':').append(line).append(text == null ? "" : ": " + text).append('\n');
            }
            lastLine = line;
            sb.append(row(width, code.bci(i), marks, mnemonic(code.at(i)), operands(code, i), notes.at(code, i))).append('\n');
        }
        return sb.toString();
    }

    /** How wide the bci column is for code {@code length} bytes long. */
    public static int bciWidth(int length) { return Math.max(4, String.valueOf(length).length()); }

    /** One row: {@code =>*   14  goto            27                 // note}, without a line end. */
    public static String row(int width, int bci, Marks marks, String mnemonic, String operands, String note) {
        String head = (bci == marks.currentBci() ? "=>" : "  ") + (marks.breakpoints().contains(bci) ? '*' : ' ') + ' '
                + String.format("%" + width + "d", bci) + "  ";
        String body = pad(mnemonic, MNEMONIC_WIDTH) + operands;
        return head + (note == null ? body.stripTrailing() : pad(body, MNEMONIC_WIDTH + OPERANDS_WIDTH) + "// " + note);
    }

    /** {@code aload}, {@code invokevirtual}, {@code goto_w}: the mnemonic as javap prints it (a wide-prefixed load as {@code aload}). */
    public static String mnemonic(Instruction ins) {
        String name = ins.opcode().name().toLowerCase();
        return ins.opcode().isWide() ? name.substring(0, name.length() - 2) : name;
    }

    /** The operands in words: slots, constants, branch targets as bcis, members by name and type. */
    public static String operands(FlatCode code, int index) {
        Instruction ins = code.at(index);
        return switch (ins) {
            case LoadInstruction l -> ins.sizeInBytes() == 1 ? "" : String.valueOf(l.slot());
            case StoreInstruction s -> ins.sizeInBytes() == 1 ? "" : String.valueOf(s.slot());
            case IncrementInstruction inc -> inc.slot() + ", " + inc.constant();
            case ConstantInstruction c -> ins.sizeInBytes() == 1 ? "" : constant(c.constantValue());
            case BranchInstruction b -> String.valueOf(code.bci(code.indexOf(b.target())));
            case TableSwitchInstruction t -> cases(code, t.cases(), t.defaultTarget());
            case LookupSwitchInstruction l -> cases(code, l.cases(), l.defaultTarget());
            case FieldInstruction f -> f.owner().asSymbol().displayName() + "." + f.name().stringValue() + " : " + f.typeSymbol().displayName();
            case InvokeInstruction inv -> inv.owner().asSymbol().displayName() + "." + inv.name().stringValue() + signature(inv.typeSymbol());
            case InvokeDynamicInstruction indy -> indy.name().stringValue() + signature(indy.typeSymbol()) + "  [" + bootstrap(indy) + "]";
            case NewObjectInstruction n -> n.className().asSymbol().displayName();
            case NewPrimitiveArrayInstruction n -> n.typeKind().name().toLowerCase();
            case NewReferenceArrayInstruction n -> n.componentType().asSymbol().displayName();
            case NewMultiArrayInstruction n -> n.arrayType().asSymbol().displayName() + ", " + n.dimensions();
            case TypeCheckInstruction t -> t.type().asSymbol().displayName();
            default -> "";
        };
    }

    /** {@code (Object[], ResumeTarget) : Tensor} */
    public static String signature(MethodTypeDesc t) { return params(t) + " : " + t.returnType().displayName(); }

    private static String params(MethodTypeDesc t) {
        return t.parameterList().stream().map(ClassDesc::displayName).collect(Collectors.joining(", ", "(", ")"));
    }

    /** The bootstrap method by its simple name and its first static argument when that is a recipe or a method: {@code makeConcatWithConstants "z: \1"}. */
    private static String bootstrap(InvokeDynamicInstruction indy) {
        String bsm = indy.bootstrapMethod().owner().displayName() + "." + indy.bootstrapMethod().methodName();
        return indy.bootstrapArgs().isEmpty() ? bsm : bsm + " " + constant(indy.bootstrapArgs().getFirst());
    }

    private static String cases(FlatCode code, java.util.List<SwitchCase> cases, java.lang.classfile.Label dflt) {
        StringJoiner j = new StringJoiner(", ", "{ ", " }");
        for (SwitchCase c : cases) j.add(c.caseValue() + ": " + code.bci(code.indexOf(c.target())));
        return j.add("default: " + code.bci(code.indexOf(dflt))).toString();
    }

    /** A constant as Java writes it: {@code "text"}, {@code 2L}, {@code 1.5f}, {@code Tensor.class}. */
    static String constant(ConstantDesc c) {
        return switch (c) {
            case String s -> StringLiterals.quote(s);
            case Long l -> l + "L";
            case Float f -> f + "f";
            case Double d -> d + "d";
            case ClassDesc cd -> cd.displayName() + ".class";
            case MethodTypeDesc mt -> mt.displayDescriptor();
            case java.lang.constant.DirectMethodHandleDesc mh -> mh.owner().displayName() + "::" + mh.methodName();
            default -> String.valueOf(c);
        };
    }

    private static java.util.Optional<String> sourceFile(ClassModel cm) {
        return cm.findAttribute(Attributes.sourceFile()).map(a -> a.sourceFile().stringValue());
    }

    private static String pad(String s, int width) { return s.length() >= width ? s + " " : s + " ".repeat(width - s.length()); }
}
