package dev.ember.dynamo.guards;

import dev.ember.jvm.HiddenClasses;

import java.lang.classfile.ClassFile;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Compiles a cache entry's guards into one hidden class: straight-line code that calls each
 * guard's {@code check} on its exact record class, the guard itself loaded as a class-data constant.
 * Every call site is monomorphic and every guard a constant, so the JIT inlines and folds the whole check.
 */
final class GuardCompiler {
    private static final ClassDesc CD_CHECK = ClassDesc.of(GuardCheck.class.getName());
    private static final MethodTypeDesc CHECK_TYPE = MethodTypeDesc.of(CD_boolean, CD_Object.arrayType());

    private GuardCompiler() {}

    /** A compiled conjunction of guards. */
    public interface GuardCheck {
        boolean check(Object[] frame);
    }

    static GuardCheck compile(List<Guard> guards) {
        ClassDesc self = ClassDesc.of(GuardCompiler.class.getPackageName() + ".CompiledGuards");
        byte[] bytes = ClassFile.of().build(self, cb -> {
            cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER);
            cb.withInterfaceSymbols(CD_CHECK);
            cb.withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void), ClassFile.ACC_PUBLIC,
                    c -> c.aload(0).invokespecial(CD_Object, ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void)).return_());
            cb.withMethodBody("check", CHECK_TYPE, ClassFile.ACC_PUBLIC, c -> {
                Label fail = c.newLabel();
                for (int i = 0; i < guards.size(); i++) {
                    ClassDesc type = ClassDesc.of(guards.get(i).getClass().getName());
                    c.ldc(DynamicConstantDesc.ofNamed(ConstantDescs.BSM_CLASS_DATA_AT, ConstantDescs.DEFAULT_NAME, type, i));
                    c.aload(1);
                    c.invokevirtual(type, "check", CHECK_TYPE);
                    c.ifeq(fail);
                }
                c.iconst_1().ireturn();
                c.labelBinding(fail);
                c.iconst_0().ireturn();
            });
        });
        try {
            MethodHandles.Lookup lookup = HiddenClasses.define(MethodHandles.lookup(), bytes, List.copyOf(guards));
            return (GuardCheck) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("compiling " + guards.size() + " guards failed", e);
        }
    }
}
