package dev.ember.dynamo;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.attribute.StackMapFrameInfo;
import java.lang.classfile.instruction.LocalVariable;
import java.lang.classfile.instruction.LocalVariableType;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.util.ArrayList;
import java.util.List;

/**
 * The verifier's view of a method at one instruction: the type of each live local and of each
 * operand-stack entry. Found by asking the JDK's stack-map generator: the method is rebuilt with a
 * {@code goto} to a label bound at the instruction (and another right after it), which forces a
 * stack-map frame there, and that frame is read back. Of the locals the frame holds, only those
 * the code after the instruction reads ({@link Liveness}) are kept: they are what a resume method
 * takes.
 */
record FrameTypes(List<Local> locals, List<JvmType> stack) {
    /** A live local: its slot and type. */
    record Local(int slot, JvmType type) {}

    /** Before and after instruction {@code index} ({@code after} null when it does not fall through). */
    record Around(FrameTypes before, FrameTypes after) {}

    static ClassHierarchyResolver resolver(Class<?> owner) {
        ClassLoader loader = owner.getClassLoader() == null ? ClassLoader.getSystemClassLoader() : owner.getClassLoader();
        return ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(loader));
    }

    static Around at(MethodCode method, int index, boolean fallsThrough) {
        Around all = at(method.owner, ClassFiles.model(method.owner), method.method, index, fallsThrough);
        return new Around(all.before().liveAt(method, index), all.after() == null ? null : all.after().liveAt(method, index + 1));
    }

    private FrameTypes liveAt(MethodCode method, int index) {
        return new FrameTypes(locals.stream().filter(l -> method.isLive(l.slot(), index)).toList(), stack);
    }

    private static Around at(Class<?> owner, ClassModel cm, MethodModel mm, int index, boolean fallsThrough) {
        byte[] probe = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver(owner))).build(cm.thisClass().asSymbol(), cb -> {
            cm.superclass().ifPresent(cb::withSuperclass);
            cb.withInterfaces(cm.interfaces());
            cb.withMethod(mm.methodName(), mm.methodType(), mm.flags().flagsMask(), mb -> mb.withCode(code -> {
                int i = 0;
                for (CodeElement e : mm.code().orElseThrow()) {
                    if (e instanceof Instruction ins) {
                        if (i == index) forceFrame(code);
                        code.with(ins);
                        if (i == index && fallsThrough) forceFrame(code);
                        i++;
                    } else if (!(e instanceof LocalVariable) && !(e instanceof LocalVariableType)) {
                        code.with(e);
                    }
                }
            }));
        });
        CodeAttribute code = (CodeAttribute) ClassFile.of().parse(probe).methods().getFirst().code().orElseThrow();
        // In the probe, the original instruction sits at index+1 (after the first goto) and its successor at index+3.
        int[] bcis = instructionBcis(code);
        List<StackMapFrameInfo> frames = code.findAttribute(Attributes.stackMapTable()).orElseThrow().entries();
        FrameTypes before = frameAt(code, frames, bcis[index + 1]);
        FrameTypes after = fallsThrough ? frameAt(code, frames, bcis[index + 3]) : null;
        return new Around(before, after);
    }

    private static void forceFrame(java.lang.classfile.CodeBuilder code) {
        Label l = code.newLabel();
        code.goto_(l);
        code.labelBinding(l);
    }

    private static int[] instructionBcis(CodeAttribute code) {
        List<Integer> out = new ArrayList<>();
        int pos = 0;
        for (CodeElement e : code) {
            if (e instanceof Instruction ins) {
                out.add(pos);
                pos += ins.sizeInBytes();
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static FrameTypes frameAt(CodeAttribute code, List<StackMapFrameInfo> frames, int bci) {
        for (StackMapFrameInfo f : frames) {
            if (code.labelToBci(f.target()) != bci) continue;
            List<Local> locals = new ArrayList<>();
            int slot = 0;
            for (StackMapFrameInfo.VerificationTypeInfo v : f.locals()) {
                JvmType t = JvmType.of(v);
                if (t != null) locals.add(new Local(slot, t));
                slot += t != null && t.isWide() ? 2 : 1;
            }
            List<JvmType> stack = new ArrayList<>();
            for (StackMapFrameInfo.VerificationTypeInfo v : f.stack()) {
                stack.add(v instanceof StackMapFrameInfo.UninitializedVerificationTypeInfo u ? pending(code, code.labelToBci(u.newTarget())) : JvmType.of(v));
            }
            return new FrameTypes(List.copyOf(locals), List.copyOf(stack));
        }
        throw new IllegalStateException("no stack-map frame at bci " + bci);
    }

    /** The object the {@code new} at {@code bci} makes, not constructed yet. */
    private static JvmType pending(CodeAttribute code, int bci) {
        int pos = 0;
        for (CodeElement e : code) {
            if (!(e instanceof Instruction ins)) continue;
            if (pos == bci && ins instanceof NewObjectInstruction n) return JvmType.pending(n.className().asSymbol(), bci);
            pos += ins.sizeInBytes();
        }
        throw new IllegalStateException("no new instruction at bci " + bci);
    }

    /**
     * Values in the order a resume state array holds them: live locals by slot, then the stack bottom
     * to top, without objects under construction (no method can take those; they are made again).
     */
    List<JvmType> valueTypes() {
        List<JvmType> out = new ArrayList<>();
        for (Local l : locals) out.add(l.type());
        out.addAll(carriedStack());
        return out;
    }

    /** The operand stack without objects under construction, bottom to top. */
    List<JvmType> carriedStack() { return stack.stream().filter(t -> !t.isPending()).toList(); }

    @Override
    public String toString() { return "locals " + locals + " stack " + stack; }
}
