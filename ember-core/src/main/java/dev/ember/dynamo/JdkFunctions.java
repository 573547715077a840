package dev.ember.dynamo;

import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.MethodTarget;

import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.List;

/**
 * The JDK's own function values that the trace makes as lambdas of its own: {@code Function.identity()}
 * and {@code UnaryOperator.identity()}, whose JDK lambda class has no bytecode the trace can read.
 * Calling the traced lambda inlines {@link #identity}, whose code is what the JDK's lambda does, so
 * {@code Function.identity()} in a collector, a map step or an {@code andThen} chain stays in the graph.
 * Such a lambda returned from the function (or live across a break) is not made again: that
 * breaks, naming it.
 */
final class JdkFunctions {
    private JdkFunctions() {}

    static Object identity(Object t) { return t; }

    private static final MethodTarget IDENTITY = new MethodTarget(JdkFunctions.class, "identity",
            MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_Object), true);

    /** The traced lambda for the static JDK call {@code owner.name()} with no arguments, or null when it is none of these. */
    static LambdaVariable lambdaFor(Class<?> owner, String name, List<?> args) {
        if (name.equals("identity") && args.isEmpty() && (owner == java.util.function.Function.class || owner == java.util.function.UnaryOperator.class)) {
            return new LambdaVariable(IDENTITY, "apply", List.of(), null, null);
        }
        return null;
    }
}
