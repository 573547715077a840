package dev.ember.fx;

import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Values written the way FX prints them, so graphs read like PyTorch's: Python literals
 * ({@code True}, {@code None}, {@code 1e-05}), {@code torch.float32}, lists in brackets, argument
 * tuples in parentheses with the one-element trailing comma.
 */
final class PyFormat {
    private PyFormat() {}

    /** FX's {@code _format_arg}: nodes as {@code %name}, strings bare. */
    static String arg(Object a) {
        return switch (a) {
            case null -> "None";
            case Node n -> "%" + n.name();
            case List<?> l -> seq(l, "[", "]", false, PyFormat::arg);
            default -> str(a);
        };
    }

    /** Positional arguments as FX prints them: a tuple. */
    static String argsTuple(List<Object> args) { return seq(args, "(", ")", true, PyFormat::arg); }

    /** Keyword arguments as FX prints them: {@code {dim: -1}}. */
    static String kwargsDict(Map<String, Object> kwargs) {
        List<String> items = new ArrayList<>();
        kwargs.forEach((k, v) -> items.add(k + ": " + arg(v)));
        return "{" + String.join(", ", items) + "}";
    }

    /** Python's {@code repr}: nodes by name, strings quoted; {@code tuple} renders lists as tuples. */
    static String repr(Object a, boolean tuple) {
        return switch (a) {
            case null -> "None";
            case Node n -> n.name();
            case String s -> "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
            case List<?> l -> tuple ? seq(l, "(", ")", true, x -> repr(x, false)) : seq(l, "[", "]", false, x -> repr(x, false));
            default -> str(a);
        };
    }

    /** Python's {@code str} of a constant. */
    static String str(Object a) {
        return switch (a) {
            case null -> "None";
            case Boolean b -> b ? "True" : "False";
            case Double d -> pyFloat(d);
            case Float f -> pyFloat(f.doubleValue());
            case DType d -> d.torchName();
            case int[] arr -> seq(java.util.Arrays.stream(arr).boxed().toList(), "[", "]", false, PyFormat::str);
            case long[] arr -> seq(java.util.Arrays.stream(arr).boxed().toList(), "[", "]", false, PyFormat::str);
            case double[] arr -> seq(java.util.Arrays.stream(arr).boxed().toList(), "[", "]", false, PyFormat::str);
            case Tensor t -> t.describe();
            case Generator g -> "Generator(seed=" + g.initialSeed() + ")";
            default -> a.toString();
        };
    }

    private static String seq(List<?> l, String open, String close, boolean tuple, java.util.function.Function<Object, String> f) {
        List<String> items = new ArrayList<>(l.size());
        for (Object x : l) items.add(f.apply(x));
        return open + String.join(", ", items) + (tuple && l.size() == 1 ? "," : "") + close;
    }

    /** Python's {@code repr(float)}: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
    static String pyFloat(double v) {
        if (Double.isNaN(v)) return "nan";
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        if (v == 0) return (1 / v < 0) ? "-0.0" : "0.0";
        BigDecimal bd = new BigDecimal(Double.toString(v)).stripTrailingZeros();
        String digits = bd.unscaledValue().abs().toString();
        int exp = digits.length() - 1 - bd.scale();
        String sign = v < 0 ? "-" : "";
        if (exp < -4 || exp >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
        }
        String plain = bd.abs().toPlainString();
        return sign + (plain.contains(".") ? plain : plain + ".0");
    }
}
