package dev.ember.nn;

import dev.ember.jvm.ClassBytes;
import dev.ember.jvm.FlatCode;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.FieldInstruction;
import java.util.Optional;

/**
 * The error for a null given where a tensor to fill is wanted ({@link Init}'s {@code *_}
 * methods). The usual cause is a field of a parametrized layer: PyTorch's
 * {@code nn.init.normal_(layer.weight)} reads a property, but Java's {@code layer.weight} reads the
 * field, which {@link Parametrize#registerParametrization} (and old-style {@link WeightNorm} and
 * {@link SpectralNorm}) leave null because the value is computed at every read. So that the error
 * names the layer and the field, it reads the caller's bytecode: the last field read of a tensor
 * type before the call is the argument's source on the call's line (the tensor comes
 * first; the other arguments are numbers and strings).
 */
final class NullTensorArgument {
    private NullTensorArgument() {}

    /** A field read by the caller: its declaring class, its Java name, and where it was read. */
    record FieldRead(Class<?> owner, String field, String where) {}

    /** The exception for {@code Init}'s {@code function} (as {@code "xavierUniform_"}) given null; called from Init. */
    static IllegalArgumentException of(String function) {
        StackWalker.StackFrame caller = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .walk(frames -> frames.filter(f -> f.getDeclaringClass() != Init.class && f.getDeclaringClass() != NullTensorArgument.class).findFirst())
                .orElse(null);
        Optional<FieldRead> read = caller == null ? Optional.empty() : fieldReadBefore(caller);
        String where = caller == null ? "" : " (at " + caller.getFileName() + ":" + caller.getLineNumber() + ")";
        String torchFunction = "nn.init." + ModuleFields.snakeCase(function);
        if (read.isPresent() && read.get().owner().getSimpleName().startsWith("Lazy") && Module.class.isAssignableFrom(read.get().owner())) {
            return new IllegalArgumentException("Init." + function + ": the tensor is null: the field " + read.get().owner().getSimpleName() + "." + read.get().field()
                    + where + " holds no tensor yet: a lazy module makes its parameters at its first forward. Call forward with a dummy batch first"
                    + " (torch: \"Attempted to use an uninitialized parameter\").");
        }
        if (read.isPresent() && Module.class.isAssignableFrom(read.get().owner())) {
            String layer = read.get().owner().getSimpleName(), name = ModuleFields.snakeCase(read.get().field());
            return new IllegalArgumentException("Init." + function + ": the tensor is null: the field " + layer + "." + read.get().field() + where
                    + " holds no tensor. If '" + name + "' is parametrized (Parametrize.registerParametrization, Parametrizations.weightNorm, …), "
                    + "its value is computed from the original at every read and the field stays null: initialise the original, Init." + function
                    + "(Parametrize.parametrizations(layer, \"" + name + "\").original(), …) (torch: " + torchFunction + "(layer.parametrizations." + name
                    + ".original); weight norm's originals are originals().get(0) and get(1), old-style WeightNorm's " + name + "_g and " + name
                    + "_v). Filling the computed value, layer.tensor(\"" + name + "\"), changes nothing in the layer, as in torch. "
                    + "Otherwise the layer has no " + name + " (as bias=False).");
        }
        return new IllegalArgumentException("Init." + function + ": the tensor is null" + where
                + ". A parametrized layer's field (layer.weight after Parametrize.registerParametrization) holds no tensor: "
                + "initialise the original, Parametrize.parametrizations(layer, \"weight\").original() (torch: " + torchFunction + "(layer.parametrizations.weight.original))");
    }

    /** The last read of a tensor-typed field before the call at the caller's bci, if the caller's class file can be read. */
    private static Optional<FieldRead> fieldReadBefore(StackWalker.StackFrame caller) {
        try {
            Class<?> cls = caller.getDeclaringClass();
            byte[] bytes = ClassBytes.read(cls);
            if (bytes == null) return Optional.empty();
            ClassModel model = ClassFile.of().parse(bytes);
            for (MethodModel m : model.methods()) {
                if (!m.methodName().equalsString(caller.getMethodName()) || !m.methodType().equalsString(caller.getDescriptor()) || m.code().isEmpty()) continue;
                FlatCode code = new FlatCode(m);
                FieldInstruction last = null;
                int call = -1;
                for (int i = 0; i < code.size() && code.bci(i) <= caller.getByteCodeIndex(); i++) call = i;
                for (int i = 0; i < call; i++) {
                    if (code.line(i) == code.line(call) && code.at(i) instanceof FieldInstruction f
                            && (f.opcode() == Opcode.GETFIELD || f.opcode() == Opcode.GETSTATIC) && isTensorType(f.typeSymbol().descriptorString())) last = f;
                }
                if (last == null) return Optional.empty();
                Class<?> owner = Class.forName(last.owner().asInternalName().replace('/', '.'), false, cls.getClassLoader());
                return Optional.of(new FieldRead(owner, last.name().stringValue(), caller.getFileName() + ":" + caller.getLineNumber()));
            }
        } catch (Exception | LinkageError e) {
            // Only an error message is at stake: without the bytecode it names no field.
        }
        return Optional.empty();
    }

    private static boolean isTensorType(String descriptor) {
        return descriptor.equals("Ldev/ember/tensor/Tensor;") || descriptor.equals("Ldev/ember/nn/Parameter;");
    }
}
