package dev.ember.dynamo;

import dev.ember.dynamo.variables.LambdaSite;
import dev.ember.dynamo.variables.MethodTarget;

import java.lang.constant.ConstantDesc;
import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lambdas made during a trace, made again after the graph: the invokedynamic that made one is
 * linked once more (its bootstrap called with a lookup in the class that holds it), and the call
 * site's target makes a lambda from captured values. The classes of the lambdas so made are
 * remembered with their implementation, so code after a graph break can trace a call of one even
 * when it is not serializable.
 */
final class Lambdas {
    private Lambdas() {}

    /** What a remade lambda's class implements. */
    record Made(MethodTarget target, String interfaceMethod) {}

    private static final Map<LambdaSite, MethodHandle> FACTORIES = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Made> MADE = Collections.synchronizedMap(new WeakHashMap<>());

    /** The factory of the lambdas {@code site} makes: captured values in, lambda out. */
    static MethodHandle factory(LambdaSite site) {
        return FACTORIES.computeIfAbsent(site, s -> {
            var indy = s.indy();
            try {
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(s.caller(), MethodHandles.lookup());
                List<Object> bootstrapArgs = new ArrayList<>(List.of(lookup, indy.name().stringValue(), indy.typeSymbol().resolveConstantDesc(lookup)));
                for (ConstantDesc arg : indy.bootstrapArgs()) bootstrapArgs.add(arg.resolveConstantDesc(lookup));
                MethodHandle bootstrap = indy.bootstrapMethod().resolveConstantDesc(lookup);
                return ((CallSite) bootstrap.invokeWithArguments(bootstrapArgs)).getTarget();
            } catch (Throwable e) {
                throw new IllegalStateException("linking the lambda made in " + s.caller().getName() + " again failed: " + e, e);
            }
        });
    }

    static void remember(Class<?> lambdaClass, Made made) { MADE.putIfAbsent(lambdaClass, made); }

    /** What the remade lambda class {@code c} implements, or null for any other class. */
    static Made made(Class<?> c) { return MADE.get(c); }
}
