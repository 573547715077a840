package dev.ember.dynamo;

import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.LambdaSite;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MethodTarget;
import dev.ember.dynamo.variables.StringBuilderVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.DynamicConstantDesc;
import java.lang.Enum.EnumDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.StringJoiner;

/** invokedynamic: lambdas and method references (LambdaMetafactory), string concatenation (StringConcatFactory), pattern switches (SwitchBootstraps) and records' equals/hashCode/toString (ObjectMethods, {@link RecordMethods}). */
final class Indy {
    private Indy() {}

    static void invoke(InstructionTranslator f, InvokeDynamicInstruction ins) {
        DirectMethodHandleDesc bsm = ins.bootstrapMethod();
        String factory = bsm.owner().displayName();
        MethodTypeDesc type = ins.typeSymbol();
        List<VariableTracker> args = f.popN(type.parameterCount());
        if (factory.equals("LambdaMetafactory")) {
            f.push(lambda(f, ins, args));
        } else if (factory.equals("SwitchBootstraps")) {
            f.push(ConstantVariable.of(switchIndex(f, ins.bootstrapArgs(), args.get(0), type.parameterType(0), f.intOf(args.get(1)))));
        } else if (factory.equals("StringConcatFactory") && bsm.methodName().equals("makeConcatWithConstants")) {
            f.push(ConstantVariable.of(concat(f.ctx, ins.bootstrapArgs(), type, args)));
        } else if (factory.equals("ObjectMethods") && bsm.methodName().equals("bootstrap")) {
            f.push(RecordMethods.invoke(f, ins, args));
        } else {
            throw f.ctx.unsupported(GraphBreakType.UNSUPPORTED_INVOKEDYNAMIC, "invokedynamic with bootstrap " + bsm.owner().displayName() + "." + bsm.methodName());
        }
    }

    private static VariableTracker lambda(InstructionTranslator f, InvokeDynamicInstruction ins, List<VariableTracker> captured) {
        MethodTarget target = Lambdas.targetOf(ins, f.code.owner);
        if (target == null) {
            DirectMethodHandleDesc impl = (DirectMethodHandleDesc) ins.bootstrapArgs().get(1);
            throw f.ctx.unsupported(GraphBreakType.UNSUPPORTED_INVOKEDYNAMIC, "a method reference of kind " + impl.kind() + " (" + impl.methodName() + ")");
        }
        return new LambdaVariable(target, ins.name().stringValue(), captured, null, new LambdaSite(f.code.owner, ins));
    }

    /**
     * Pattern-matching switch (SwitchBootstraps.typeSwitch / enumSwitch): the index of the first
     * label from {@code restart} on that matches, -1 for null, the label count when none matches.
     */
    private static int switchIndex(InstructionTranslator f, List<ConstantDesc> labels, VariableTracker target, ClassDesc selectorType, int restart) {
        if (target instanceof ConstantVariable c && c.value() == null) return -1;
        for (int i = restart; i < labels.size(); i++) {
            ConstantDesc label = labels.get(i);
            Boolean match = switch (label) {
                case ClassDesc cd -> TypeOf.isInstance(target, Values.resolve(cd, f.code.owner));
                case Integer n -> target instanceof ConstantVariable c && (c.value() instanceof Integer || c.value() instanceof Character)
                        ? Values.toStack(c.value(), c.value() instanceof Character ? char.class : int.class).equals(n) : null;
                case String str -> target instanceof ConstantVariable c ? (c.value() instanceof Enum<?> e ? e.name().equals(str) : str.equals(c.value())) : null;
                case EnumDesc<?> ed -> target instanceof ConstantVariable c && c.value() instanceof Enum<?> e
                        ? e.name().equals(ed.constantName()) && e.getDeclaringClass().descriptorString().equals(ed.constantType().descriptorString()) : null;
                // a primitive type pattern: javac's for a record component of primitive type (case Shift(double by)), on the boxed component
                case DynamicConstantDesc<?> d when d.bootstrapMethod().methodName().equals("primitiveClass") ->
                        unconditionallyExact(selectorType, d.constantName()) ? Boolean.TRUE : null;
                default -> null;
            };
            if (match == null) {
                throw f.ctx.unsupported(GraphBreakType.NON_CONSTANT_CONDITION, "pattern switch on " + target.describe() + " with label " + label);
            }
            if (match) return i;
        }
        return labels.size();
    }

    /**
     * Whether every (non-null) value of the switch's static selector type matches the primitive
     * type pattern {@code label} (a descriptor, "D"), whatever the value: the same primitive type, or
     * a widening that is always exact (JLS 5.7.1's unconditionally exact conversions), as
     * SwitchBootstraps decides from the call site's type alone. Otherwise the answer depends on the
     * value (an int is a float only when representable), and the switch is not decided here.
     */
    static boolean unconditionallyExact(ClassDesc selectorType, String label) {
        String from = switch (selectorType.descriptorString()) {
            case "Ljava/lang/Byte;" -> "B";
            case "Ljava/lang/Short;" -> "S";
            case "Ljava/lang/Character;" -> "C";
            case "Ljava/lang/Integer;" -> "I";
            case "Ljava/lang/Long;" -> "J";
            case "Ljava/lang/Float;" -> "F";
            case "Ljava/lang/Double;" -> "D";
            case "Ljava/lang/Boolean;" -> "Z";
            default -> selectorType.isPrimitive() ? selectorType.descriptorString() : null;
        };
        if (from == null) return false;
        if (from.equals(label)) return true;
        return switch (from) {
            case "B" -> "SIJFD".contains(label);
            case "S", "C" -> "IJFD".contains(label);
            case "I" -> "JD".contains(label);
            case "F" -> label.equals("D");
            default -> false;
        };
    }

    private static String concat(TraceContext ctx, List<ConstantDesc> bsmArgs, MethodTypeDesc type, List<VariableTracker> args) {
        String recipe = (String) bsmArgs.getFirst();
        StringBuilder sb = new StringBuilder();
        int arg = 0, constant = 1;
        for (int i = 0; i < recipe.length(); i++) {
            char c = recipe.charAt(i);
            if (c == '\u0001') {
                sb.append(text(ctx, args.get(arg), type.parameterType(arg), "string concatenation with"));
                arg++;
            } else if (c == '\u0002') {
                sb.append(bsmArgs.get(constant++));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * The text Java gives {@code v} where {@code String.valueOf} would make it (string
     * concatenation, StringBuilder.append, String.valueOf): constants, strings, a builder's text, a
     * size (specialized), a list of such values, a user object's own toString (traced). A tensor's
     * values, and anything else, break the graph, the message starting with {@code what}.
     */
    static String text(TraceContext ctx, VariableTracker v, ClassDesc type, String what) {
        if (v instanceof dev.ember.dynamo.variables.SymScalarVariable s) throw SymScalars.dataDependent(ctx, s, what + " it");
        if (v instanceof ConstantVariable c) {
            Object value = c.value();
            if (type.descriptorString().equals("Z")) return String.valueOf(((Integer) value) != 0);
            if (type.descriptorString().equals("C")) return String.valueOf((char) (int) (Integer) value);
            if (value == null || JdkCalls.isJdk(value.getClass()) || value instanceof Enum<?>) return String.valueOf(value);
        }
        if (v instanceof StringBuilderVariable sb) return StringBuilders.read(ctx, sb);
        if (v instanceof dev.ember.dynamo.variables.SymSizeVariable s) throw SymSizes.specialize(ctx, s, null, what + " it");
        if (v instanceof ListVariable l) {
            // every List the trace models prints as AbstractCollection does
            StringJoiner items = new StringJoiner(", ", "[", "]");
            for (VariableTracker item : l.items()) items.add(item == l ? "(this Collection)" : text(ctx, item, ConstantDescs.CD_Object, what));
            return items.toString();
        }
        if (v instanceof TensorVariable t) {
            throw ctx.unsupported(GraphBreakType.TENSOR_TO_STRING, what + " " + (t.source() == null ? "a tensor" : t.source().name())
                    + " (" + t.describe() + ") calls Tensor.toString(), which reads its data");
        }
        if (v instanceof UserObjectVariable u && Exceptions.answersToString(u)) {
            // an exception made in the trace (a caught one): Throwable's toString, its class's name and its message
            return (String) ((ConstantVariable) Exceptions.text(u)).value();
        }
        if (v instanceof UserObjectVariable u && !JdkCalls.isJdk(u.type())) {
            ClassFiles.Resolved r = ClassFiles.virtual(u.type(), "toString", MethodTypeDesc.of(ConstantDescs.CD_String));
            if (r != null && !JdkCalls.isJdk(r.declaringClass())) {
                VariableTracker s = Invoker.inline(ctx, r, List.of(u));
                if (s instanceof ConstantVariable c && (c.value() == null || c.value() instanceof String)) return String.valueOf(c.value());
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " " + v.describe() + ": its toString() gave " + s.describe());
            }
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " " + v.describe() + ", whose Object.toString() shows its identity hash "
                    + "code, which the trace does not know (give " + u.type().getSimpleName() + " a toString() of its own, or use getClass().getName())");
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " " + v.describe());
    }
}
