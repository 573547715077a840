package dev.ember.dynamo;

import dev.ember.dynamo.resume.CompiledCall;
import dev.ember.dynamo.variables.MethodTarget;
import dev.ember.jvm.BytecodeListing;
import dev.ember.jvm.FlatCode;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.NopInstruction;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.List;

/**
 * The classes Ember generates after a graph break, as people read them: their class-file models,
 * and listings ({@link BytecodeListing}) whose notes say what each key instruction is for (the
 * jump to the breaking instruction, the hand-off to the resume method, the prologue of a resume
 * method). The {@code bytecode} debug artifact and the bytecode debugger print the same listing.
 */
public final class GeneratedCode {
    private GeneratedCode() {}

    /** Whether {@code cls} is a class Ember generated after a graph break. */
    public static boolean isGenerated(Class<?> cls) { return ClassFiles.origin(cls) != cls; }

    /** The parsed class file of {@code cls}, generated or not. */
    public static ClassModel model(Class<?> cls) { return ClassFiles.model(cls); }

    /** The user class a generated class continues, or {@code cls} itself. */
    public static Class<?> origin(Class<?> cls) { return ClassFiles.origin(cls); }

    /** Source lines of {@code cls}'s source file (the user's, for a generated class), when the file is found. */
    public static BytecodeListing.SourceText source(Class<?> cls) {
        String file = model(cls).findAttribute(Attributes.sourceFile()).map(a -> a.sourceFile().stringValue()).orElse(null);
        Class<?> shown = origin(cls);
        return line -> SourceLines.line(shown, file, line);
    }

    /**
     * The source name of local {@code slot} in the code of generated class {@code cls}: the copy keeps the
     * user's slots, so it is the user's name for the slot (every name it has, for a reused slot); null when unknown.
     */
    public static String slotName(Class<?> cls, int slot) {
        MethodCode original = ResumeCodegen.continued(cls);
        return original == null ? null : original.namesOfSlot(slot);
    }

    /**
     * The name of parameter slot {@code slot} of generated method {@code mm} while it still holds the
     * argument: {@code live} and {@code next} for {@code breakAt}, the live value's name for a resume
     * method; null for a slot that is no parameter's.
     */
    public static String parameterName(MethodModel mm, int slot) {
        if (mm.methodName().equalsString(ResumeCodegen.BREAK_AT)) return slot == 0 ? "live" : slot == 1 ? "next" : null;
        for (var e : mm.code().orElseThrow()) {
            if (e instanceof java.lang.classfile.instruction.LocalVariable lv && lv.slot() == slot) return lv.name().stringValue();
        }
        return null;
    }

    /**
     * Names for a call's frame values of {@code frame} ({@code count} of them: captured values, then arguments, as the
     * method's parameters): the parameters' source names ({@code this} for a receiver), {@code arg<i>} where none is known.
     */
    public static List<String> frameNames(CompiledFrame frame, int count) {
        MethodTarget m = frame.method();
        ClassFiles.Resolved r;
        try {
            r = ClassFiles.exact(m.owner(), m.name(), m.type());
        } catch (RuntimeException e) {
            r = null;
        }
        MethodCode code = r == null || !r.hasCode() ? null : MethodCode.of(r);
        List<String> names = new ArrayList<>();
        int slot = 0;
        if (!m.isStatic()) {
            names.add("this");
            slot = 1;
        }
        for (ClassDesc p : m.type().parameterList()) {
            String n = code == null ? null : code.slotName(slot);
            names.add(n == null ? "arg" + names.size() : n);
            slot += TypeKind.from(p).slotSize();
        }
        while (names.size() < count) names.add("arg" + names.size());
        return names.subList(0, count);
    }

    /** Every method of generated class {@code cls}, listed with its notes and source lines: the {@code bytecode} artifact of a graph break. */
    static String listing(Class<?> cls) {
        ClassModel cm = model(cls);
        return BytecodeListing.of(cm, mm -> notes(cm, mm), source(cls));
    }

    /** One method of {@code owner} (a user's method, or a resume method), with its source lines. */
    static String listing(Class<?> owner, MethodModel mm) {
        ClassModel cm = model(owner);
        FlatCode code = new FlatCode(mm);
        return BytecodeListing.classHeader(cm) + "\n\n" + BytecodeListing.methodHeader(cm, mm) + "\n"
                + BytecodeListing.rows(cm, code, 0, code.size() - 1, BytecodeListing.Marks.NONE, notes(cm, mm), source(owner));
    }

    /**
     * What the key instructions of a generated method do: in {@code breakAt}, the prologue that
     * restores the live values, the jump to the breaking instruction, the instruction itself, and the
     * hand-off to the resume method; in a resume method, the jump to its prologue and from there to
     * the instruction after the break. Nothing for other code.
     */
    public static BytecodeListing.Notes notes(ClassModel cm, MethodModel mm) {
        String name = mm.methodName().stringValue();
        boolean breakAt = name.equals(ResumeCodegen.BREAK_AT);
        boolean resume = name.startsWith(ResumeCodegen.RESUME_PREFIX);
        if (!breakAt && !resume) return (code, index) -> callNote(cm, code.at(index));
        return new BytecodeListing.Notes() {
            private FlatCode marked;
            private int jump = -1, breaking = -1, entry = -1;
            /** Whether {@code breakAt} leaves the body right after the breaking instruction, for the resume method (not when the rest runs in it). */
            private final boolean handsOff = cm.methods().stream().anyMatch(m -> m.methodName().stringValue().startsWith(ResumeCodegen.RESUME_PREFIX));

            @Override
            public String at(FlatCode code, int index) {
                if (marked != code) mark(code);
                if (breakAt && index == 0) return "restore the live values (locals, then the stack) from the graph's outputs";
                if (breakAt && index == jump) return "jump to the breaking instruction";
                if (breakAt && index == breaking) return "graph break: this instruction runs as ordinary bytecode";
                if (breakAt && handsOff && index == breaking + 1) return "past the break: to the hand-off of the live values";
                if (resume && index == 0) return "to the prologue: the live values into their slots";
                if (code.at(index) instanceof NopInstruction && (index == 0 || !(code.at(index - 1) instanceof NopInstruction))) {
                    return "not reached from here: the method's other instructions, written as nop … athrow";
                }
                if (resume && index == entry) return "continue after the break, at bci " + code.bci(code.indexOf(((BranchInstruction) code.at(index)).target()));
                return callNote(cm, code.at(index));
            }

            private void mark(FlatCode code) {
                marked = code;
                jump = -1;
                for (int i = 0; i < code.size() && jump < 0; i++) {
                    if (code.at(i) instanceof BranchInstruction b && b.opcode() == Opcode.GOTO) {
                        jump = i;
                        breaking = code.indexOf(b.target());
                    }
                }
                entry = code.size() - 1;
            }
        };
    }

    /** The hand-off to the resume method ({@code resume → resume_in_fn_at_13}), or a helper called through its compiled frame. */
    private static String callNote(ClassModel cm, Instruction ins) {
        if (ins instanceof InvokeInstruction inv && inv.owner().asSymbol().equals(ResumeCodegen.CD_TARGET) && inv.name().equalsString("call")) {
            return "resume → " + cm.methods().stream().map(m -> m.methodName().stringValue()).filter(n -> n.startsWith(ResumeCodegen.RESUME_PREFIX))
                    .findFirst().orElse("the resume method") + " (through its compiled frame)";
        }
        if (ins instanceof InvokeDynamicInstruction indy && indy.bootstrapMethod().owner().equals(ClassDesc.of(CompiledCall.class.getName()))
                && !indy.bootstrapArgs().isEmpty() && indy.bootstrapArgs().getFirst() instanceof ClassDesc owner) {
            return "call " + owner.displayName() + "." + indy.name().stringValue() + " through its compiled frame (it broke when inlined)";
        }
        return null;
    }
}
