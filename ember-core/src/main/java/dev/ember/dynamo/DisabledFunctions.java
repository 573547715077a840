package dev.ember.dynamo;

import dev.ember.dynamo.variables.MethodTarget;

import java.lang.classfile.Attributes;
import java.lang.constant.ClassDesc;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Methods compiled code must not trace: those passed to {@code Ember.disable} and those annotated {@link Disable}. */
public final class DisabledFunctions {
    private static final Set<String> DISABLED = ConcurrentHashMap.newKeySet();
    private static final ClassDesc DISABLE = ClassDesc.of(Disable.class.getName());

    private DisabledFunctions() {}

    /** Disables the method behind a serializable lambda or method reference. */
    public static void disable(Object fn) { DISABLED.add(FunctionTarget.of(fn).method().toString()); }

    static boolean isDisabled(ClassFiles.Resolved r) {
        String key = r.declaringClass().getName() + "." + r.method().methodName().stringValue() + r.method().methodType().stringValue();
        if (DISABLED.contains(key)) return true;
        return r.method().findAttribute(Attributes.runtimeVisibleAnnotations())
                .map(a -> a.annotations().stream().anyMatch(an -> an.classSymbol().equals(DISABLE))).orElse(false);
    }

    static boolean isDisabled(MethodTarget m) { return DISABLED.contains(m.toString()); }
}
