package dev.ember.debug.fuzz;

import dev.ember.autograd.GradMode;
import dev.ember.nn.Module;
import dev.ember.optim.Optimizer;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The modules a program of the model family holds (its class's static {@code modules()}), and how
 * the training configurations train them: its {@code optimizer(List<Tensor>)} and {@code STEPS}
 * (absent: the parameters stay frozen). The modules are static fields of the program's class, so
 * eager and every compiled run share them: each run starts from the parameters' first values, copied
 * when the program is loaded, before anything ran, and copied back with the gradients cleared
 * before every run ({@link #reset}), so neither eager's gradients nor a training loop's steps reach
 * a later run.
 */
public final class ProgramModules {
    private final List<Module> modules;
    private final List<String> names;
    private final List<Tensor> initial;
    private final Method optimizer;
    private final int steps;

    private ProgramModules(List<Module> modules, List<String> names, List<Tensor> initial, Method optimizer, int steps) {
        this.modules = modules;
        this.names = names;
        this.initial = initial;
        this.optimizer = optimizer;
        this.steps = steps;
    }

    /** The modules of {@code program}'s class, their parameters' values now taken as the first ones; null when it holds none. */
    public static ProgramModules of(Class<?> program) {
        Method modulesMethod;
        try {
            modulesMethod = program.getMethod("modules");
        } catch (NoSuchMethodException e) {
            return null;
        }
        @SuppressWarnings("unchecked")
        List<Module> modules = List.copyOf((List<Module>) invoke(modulesMethod));
        List<String> names = new ArrayList<>();
        List<Tensor> initial = new ArrayList<>();
        try (var unused = GradMode.noGrad()) {
            for (int k = 0; k < modules.size(); k++) {
                Module m = modules.get(k);
                String field = fieldHolding(program, m, k);
                for (Map.Entry<String, ? extends Tensor> p : m.namedParameters().entrySet()) {
                    names.add(field + "." + p.getKey());
                    initial.add(p.getValue().clone());
                }
            }
        }
        Method optimizer = null;
        int steps = 0;
        try {
            optimizer = program.getMethod("optimizer", List.class);
            steps = program.getField("STEPS").getInt(null);
        } catch (NoSuchMethodException | NoSuchFieldException e) {
            optimizer = null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(program.getName() + ".STEPS is not public", e);
        }
        return new ProgramModules(modules, List.copyOf(names), List.copyOf(initial), optimizer, steps);
    }

    /** The name of the static field holding {@code m}, or {@code modules()[k]}. */
    private static String fieldHolding(Class<?> program, Module m, int k) {
        for (var f : program.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || !Module.class.isAssignableFrom(f.getType())) continue;
            try {
                f.setAccessible(true);
                if (f.get(null) == m) return f.getName();
            } catch (ReflectiveOperationException | RuntimeException e) {
                // not readable: named by its position
            }
        }
        return "modules()[" + k + "]";
    }

    private static Object invoke(Method method, Object... args) {
        try {
            return method.invoke(null, args);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(method.getDeclaringClass().getName() + "." + method.getName() + "() failed: " + e.getCause(), e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(method.getDeclaringClass().getName() + "." + method.getName() + "() is not public", e);
        }
    }

    /** Whether the training configurations train the parameters (the program has an optimizer). */
    public boolean trained() { return optimizer != null; }

    /** Steps of the training loop ({@code +steps} configurations). */
    public int steps() { return steps; }

    /** The parameters now, in the modules' order ({@link Module#to} replaces them, so asked anew each time). */
    public List<Tensor> parameters() {
        List<Tensor> out = new ArrayList<>();
        for (Module m : modules) out.addAll(m.parameters());
        return out;
    }

    /** {@code m3.weight_ih_l0}: each parameter's field and name, in {@link #parameters}' order. */
    public List<String> names() { return names; }

    /** The program's optimizer of the parameters now (null when they stay frozen). */
    public Optimizer optimizer() {
        return optimizer == null ? null : (Optimizer) invoke(optimizer, parameters());
    }

    /** Every parameter back to its first value (in its dtype now), no gradient, requiring grad or not. */
    public void reset(boolean requiresGrad) {
        List<Tensor> ps = parameters();
        try (var unused = GradMode.noGrad()) {
            for (int i = 0; i < ps.size(); i++) {
                Tensor p = ps.get(i);
                p.requiresGrad(false);
                p.copy_(initial.get(i));
                p.setGrad(null);
                p.requiresGrad(requiresGrad);
            }
        }
    }

    /** Every module's parameters converted to {@code dtype} (the float64 reference runs them in float64). */
    void to(DType dtype) {
        for (Module m : modules) m.to(dtype);
    }
}
