package dev.ember.fx;

import dev.ember.tensor.Tensor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs a {@link NodeKind#CALL_METHOD} node: picks the public Tensor method of that name whose
 * parameters fit the arguments best (Java's overloads stand for Python's dynamic types: a
 * {@code long} argument prefers {@code add(long)} to {@code add(double)}), and calls it.
 */
final class TensorMethods {
    private TensorMethods() {}

    private static final Map<String, List<Method>> BY_NAME = new ConcurrentHashMap<>();

    static Object invoke(String name, List<Object> args) {
        if (args.isEmpty() || !(args.get(0) instanceof Tensor self)) {
            throw new IllegalArgumentException("call_method '" + name + "' needs a Tensor receiver as args[0], got "
                    + (args.isEmpty() ? "no arguments" : describe(args.get(0))));
        }
        List<Object> rest = args.subList(1, args.size());
        List<Method> candidates = BY_NAME.computeIfAbsent(name, TensorMethods::methodsNamed);
        if (candidates.isEmpty()) throw new IllegalArgumentException("Tensor has no public method '" + name + "'");
        Method best = null;
        Object[] bestArgs = null;
        int bestCost = Integer.MAX_VALUE;
        boolean tie = false;
        for (Method m : candidates) {
            Object[] converted = new Object[m.getParameterCount()];
            int cost = fit(m, rest, converted);
            if (cost < bestCost) { best = m; bestArgs = converted; bestCost = cost; tie = false; }
            else if (cost == bestCost && cost != Integer.MAX_VALUE) tie = true;
        }
        if (best == null) {
            throw new IllegalArgumentException("no overload of Tensor." + name + " takes (" + String.join(", ", rest.stream().map(TensorMethods::describe).toList())
                    + "); candidates: " + candidates.stream().map(TensorMethods::signature).toList());
        }
        if (tie) throw new IllegalArgumentException("the arguments " + rest.stream().map(TensorMethods::describe).toList() + " fit several overloads of Tensor." + name);
        try {
            return best.invoke(self, bestArgs);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Method> methodsNamed(String name) {
        return Arrays.stream(Tensor.class.getMethods())
                .filter(m -> m.getName().equals(name) && !Modifier.isStatic(m.getModifiers()) && !m.isBridge())
                .toList();
    }

    /** The cost of passing {@code args} to {@code m} (filling {@code out}), or MAX_VALUE when they do not fit. */
    private static int fit(Method m, List<Object> args, Object[] out) {
        Class<?>[] types = m.getParameterTypes();
        List<Object> a = args;
        if (m.isVarArgs() && types[types.length - 1] == int[].class && args.size() >= types.length - 1
                && !(args.size() == types.length && (args.getLast() instanceof int[] || args.getLast() instanceof List<?>))) {
            // x.view(3, 4) written with the sizes spread out: gather them into the int[] parameter.
            List<Object> packed = new ArrayList<>(args.subList(0, types.length - 1));
            List<Object> spread = args.subList(types.length - 1, args.size());
            if (!spread.stream().allMatch(v -> v instanceof Long || v instanceof Integer)) return Integer.MAX_VALUE;
            packed.add(spread.stream().mapToInt(v -> Math.toIntExact(((Number) v).longValue())).toArray());
            a = packed;
        }
        if (a.size() != types.length) return Integer.MAX_VALUE;
        int cost = 0;
        for (int i = 0; i < types.length; i++) {
            int c = convert(a.get(i), types[i], out, i);
            if (c == Integer.MAX_VALUE) return c;
            cost += c;
        }
        return cost;
    }

    private static int convert(Object v, Class<?> type, Object[] out, int i) {
        boolean integral = v instanceof Long || v instanceof Integer;
        if (type == double.class || type == Double.class) {
            if (v == null && type == Double.class) { out[i] = null; return 0; }
            if (v instanceof Double || v instanceof Float) { out[i] = ((Number) v).doubleValue(); return 0; }
            if (integral) { out[i] = ((Number) v).doubleValue(); return 2; }
            return Integer.MAX_VALUE;
        }
        if (type == long.class) {
            if (integral) { out[i] = ((Number) v).longValue(); return v instanceof Long ? 0 : 1; }
            return Integer.MAX_VALUE;
        }
        if (type == int.class) {
            if (integral && ((Number) v).longValue() == ((Number) v).intValue()) { out[i] = ((Number) v).intValue(); return v instanceof Integer ? 0 : 1; }
            return Integer.MAX_VALUE;
        }
        if (type == boolean.class) {
            if (v instanceof Boolean) { out[i] = v; return 0; }
            return Integer.MAX_VALUE;
        }
        if (type == int[].class) {
            if (v instanceof int[] arr) { out[i] = arr; return 0; }
            if (v instanceof List<?> l && l.stream().allMatch(x -> x instanceof Long || x instanceof Integer)) {
                out[i] = l.stream().mapToInt(x -> Math.toIntExact(((Number) x).longValue())).toArray();
                return 1;
            }
            return Integer.MAX_VALUE;
        }
        if (type == List.class) {
            if (v instanceof List<?>) { out[i] = v; return 0; }
            return Integer.MAX_VALUE;
        }
        if (!type.isPrimitive() && (v == null || type.isInstance(v))) { out[i] = v; return 0; }
        return Integer.MAX_VALUE;
    }

    private static String describe(Object v) {
        return switch (v) {
            case null -> "null";
            case Tensor t -> t.describe();
            case int[] a -> "int[] " + Arrays.toString(a);
            default -> v.getClass().getSimpleName() + " " + v;
        };
    }

    private static String signature(Method m) {
        return m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).toList().toString().replace('[', '(').replace(']', ')');
    }
}
