package dev.ember.inductor.codegen;

import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.Arrays;
import java.util.List;

/** Builds calls of library methods: static, virtual and interface, with their exact descriptors. */
final class Calls {
    private Calls() {}

    static final JType MATH = JType.imported("java.lang.Math");
    static final JType SCALAR_MATH = JType.imported("dev.ember.kernels.ScalarMath");
    static final JType KERNEL_RUNTIME = JType.imported("dev.ember.inductor.runtime.KernelRuntime");
    static final JType TRANSPOSED_WEIGHT = JType.imported("dev.ember.inductor.runtime.TransposedWeight");
    static final JType KERNEL_TIER = JType.imported("dev.ember.inductor.runtime.KernelTier");
    static final JType OP_OVERLOAD = JType.imported("dev.ember.ops.OpOverload");
    static final JType OP_REGISTRY = JType.imported("dev.ember.ops.OpRegistry");
    static final JType GEMM_BATCHED = JType.imported("dev.ember.ops.eager.GemmBatched");
    static final JType PARALLEL = JType.imported("dev.ember.kernels.Parallel");
    static final JType DTYPE = JType.imported("dev.ember.tensor.DType");
    static final JType STORAGE = JType.imported("dev.ember.tensor.Storage");
    static final JType TENSOR = JType.imported("dev.ember.tensor.Tensor");
    static final JType VECTOR_MATH = JType.imported("dev.ember.kernels.VectorMath");
    static final JType METHOD_HANDLE = JType.imported("java.lang.invoke.MethodHandle");
    static final JType LIST = new JType(ClassDesc.of("java.util.List"), "java.util.List");
    static final JType TENSOR_LIST = new JType(LIST.desc(), "java.util.List<Tensor>");
    static final JType ARRAYS = new JType(ClassDesc.of("java.util.Arrays"), "java.util.Arrays");
    static final JType COLLECTIONS = new JType(ClassDesc.of("java.util.Collections"), "java.util.Collections");

    static JExpr.Invoke staticCall(JType owner, String name, JType returns, List<JExpr> args) {
        return new JExpr.Invoke(JExpr.CallKind.STATIC, owner, name, descriptor(returns, args), null, args, false);
    }

    static JExpr.Invoke staticCall(JType owner, String name, JType returns, JExpr... args) {
        return staticCall(owner, name, returns, List.of(args));
    }

    /** A call of {@code receiver.name(args)} on a class ({@code invokevirtual}). */
    static JExpr.Invoke virtualCall(JExpr receiver, String name, JType returns, JExpr... args) {
        return new JExpr.Invoke(JExpr.CallKind.VIRTUAL, receiver.type(), name, descriptor(returns, List.of(args)), receiver, List.of(args), false);
    }

    /** A call whose descriptor differs from the argument types (a parameter of a supertype, a generic one). */
    static JExpr.Invoke call(JExpr.CallKind kind, JType owner, JExpr receiver, String name, MethodTypeDesc descriptor, JExpr... args) {
        return new JExpr.Invoke(kind, owner, name, descriptor, receiver, List.of(args), false);
    }

    /**
     * {@code (returns) handle.invokeExact(args)}: signature-polymorphic, so the call's descriptor is
     * the argument and result types themselves, and Java source needs the cast to state the result.
     */
    static JExpr invokeExact(JExpr handle, JType returns, JExpr... args) {
        JExpr.Invoke call = new JExpr.Invoke(JExpr.CallKind.VIRTUAL, METHOD_HANDLE, "invokeExact", descriptor(returns, List.of(args)), handle,
                List.of(args), false);
        return new JExpr.Convert(call, returns, false);
    }

    /** Whether {@code e} is a call that declares {@code Throwable} (a method handle's invokeExact): Java source must catch it. */
    static boolean throwsChecked(JExpr e) {
        return e instanceof JExpr.Convert c && c.x() instanceof JExpr.Invoke i && i.owner().equals(METHOD_HANDLE);
    }

    static MethodTypeDesc descriptor(JType returns, List<JExpr> args) {
        return MethodTypeDesc.of(returns.desc(), args.stream().map(a -> a.type().desc()).toArray(ClassDesc[]::new));
    }

    /** {@code Math.name(x…)} in {@code type} (the overload for that type). */
    static JExpr math(String name, JType type, JExpr... args) {
        return staticCall(MATH, name, type, Arrays.stream(args).map(a -> JavaTypes.convert(a, type)).toList());
    }
}
