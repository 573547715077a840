package dev.ember.debug.fuzz;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;

/**
 * A parameter of a generated program that is a Java number, not a tensor, in one of the ways user
 * code hands numbers to a compiled function: a {@code double} or an {@code int} argument, a
 * {@code double[]} (hyperparameters in an array), a {@code List<Double>}, or the fields of a small
 * settings object. Capture turns what the program reads of it into graph inputs or guards; the
 * runner calls again with other values ({@link #renewed}), so a value baked in without a guard, a
 * guard that lets a changed branch through, or a number that becomes a graph input of another
 * shape than it was traced with shows as a difference from eager.
 */
public record ScalarInput(String name, Kind kind, List<Double> values) {
    /** How the numbers reach the program. */
    public enum Kind {
        /** {@code double s0}: one value. */
        DOUBLE,
        /** {@code int k0}: one integral value. */
        INT,
        /** {@code double[] h0}: two values, read as {@code h0[0]}, {@code h0[1]}. */
        DOUBLE_ARRAY,
        /** {@code List<Double> l0}: two values, read as {@code l0.get(0)}, {@code l0.get(1)}. */
        DOUBLE_LIST,
        /** {@code Knobs p0}: a settings object, read as {@code p0.gain} (a double) and {@code p0.steps} (an int). */
        KNOBS
    }

    /** The settings class a {@link Kind#KNOBS} parameter is an instance of, nested in the program's class. */
    static final String KNOBS_CLASS = """
                /** Settings passed as an object: the compiled function reads its fields. */
                public static final class Knobs {
                    public double gain;
                    public int steps;

                    public Knobs(double gain, int steps) {
                        this.gain = gain;
                        this.steps = steps;
                    }
                }
            """;

    public ScalarInput {
        values = List.copyOf(values);
        int want = switch (kind) {
            case DOUBLE, INT -> 1;
            case DOUBLE_ARRAY, DOUBLE_LIST, KNOBS -> 2;
        };
        if (values.size() != want) throw new IllegalArgumentException(kind + " parameter " + name + " takes " + want + " values, got " + values);
    }

    /** The parameter's Java type in {@code run}'s signature. */
    String javaType() {
        return switch (kind) {
            case DOUBLE -> "double";
            case INT -> "int";
            case DOUBLE_ARRAY -> "double[]";
            case DOUBLE_LIST -> "List<Double>";
            case KNOBS -> "Knobs";
        };
    }

    /** Its type as an {@code Fn} type argument (boxed). */
    String boxedType() {
        return switch (kind) {
            case DOUBLE -> "Double";
            case INT -> "Integer";
            default -> javaType();
        };
    }

    /** The Java expression {@code inputs()} makes the argument with. */
    String maker() {
        return switch (kind) {
            case DOUBLE -> literal(values.get(0));
            case INT -> Integer.toString((int) (double) values.get(0));
            case DOUBLE_ARRAY -> "new double[] {" + literals() + "}";
            case DOUBLE_LIST -> "List.of(" + literals() + ")";
            case KNOBS -> "new Knobs(" + literal(values.get(0)) + ", " + (int) (double) values.get(1) + ")";
        };
    }

    /** The expressions that read a {@code double} from it (ints widen). */
    List<String> doubleReads() {
        return switch (kind) {
            case DOUBLE, INT -> List.of(name);
            case DOUBLE_ARRAY -> List.of(name + "[0]", name + "[1]");
            case DOUBLE_LIST -> List.of(name + ".get(0)", name + ".get(1)");
            case KNOBS -> List.of(name + ".gain", name + ".steps");
        };
    }

    /** The expressions that read an {@code int} from it. */
    List<String> intReads() {
        return switch (kind) {
            case INT -> List.of(name);
            case KNOBS -> List.of(name + ".steps");
            default -> List.of();
        };
    }

    /**
     * The argument made anew with other values in the same form: doubles become {@code 0.5 − 1.25·x}
     * (the runner's rule for tensor elements, which moves most values across a threshold of the
     * generator's), ints {@code x + 1} (which flips every parity test).
     */
    static Object renewed(Object arg) {
        return switch (arg) {
            case Double d -> renew(d);
            case Integer i -> i + 1;
            case double[] a -> DoubleStream.of(a).map(ScalarInput::renew).toArray();
            case List<?> l when !l.isEmpty() && l.stream().allMatch(x -> x instanceof Double) -> l.stream().map(x -> renew((Double) x)).toList();
            default -> renewedFields(arg);
        };
    }

    private static double renew(double d) { return 0.5 - 1.25 * d; }

    /**
     * A settings object (a program's {@code Knobs}) with its public double and int fields renewed in
     * place: {@code inputs()} makes a new one for every call.
     */
    private static Object renewedFields(Object arg) {
        if (arg == null) return null;
        for (var f : arg.getClass().getFields()) {
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers()) || java.lang.reflect.Modifier.isFinal(f.getModifiers())) continue;
            try {
                if (f.getType() == double.class) f.setDouble(arg, renew(f.getDouble(arg)));
                else if (f.getType() == int.class) f.setInt(arg, f.getInt(arg) + 1);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot renew field " + f.getName() + " of " + arg.getClass().getName() + ": " + e.getMessage(), e);
            }
        }
        return arg;
    }

    private String literals() { return values.stream().map(ScalarInput::literal).collect(Collectors.joining(", ")); }

    private static String literal(double v) { return Double.toString(v); }

    @Override
    public String toString() { return javaType() + " " + name + " = " + maker(); }
}
