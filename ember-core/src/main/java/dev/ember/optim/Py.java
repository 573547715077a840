package dev.ember.optim;

import java.math.BigDecimal;
import java.util.List;

/** Values written as Python writes them, so Ember's messages read like PyTorch's ({@code Invalid learning rate: -0.1}, {@code 1e-05}). */
final class Py {
    private Py() {}

    /** Python's {@code repr(float)}: shortest round-trip digits, an exponent below 1e-4 and from 1e16. */
    static String repr(double v) {
        if (Double.isNaN(v)) return "nan";
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        String sign = (v < 0 || (v == 0 && 1 / v < 0)) ? "-" : "";
        if (v == 0) return sign + "0.0";
        BigDecimal bd = new BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros();   // Double.toString: shortest digits (JDK 19+)
        int exp = bd.precision() - bd.scale() - 1;   // the power of ten of the leading digit
        if (exp < -4 || exp >= 16) {
            String digits = bd.unscaledValue().toString();
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
        }
        String plain = bd.toPlainString();
        return sign + (plain.contains(".") ? plain : plain + ".0");
    }

    /** Python's repr of an option value: floats as {@link #repr(double)}, {@code True}/{@code False}, lists as tuples. */
    static String repr(Object v) {
        return switch (v) {
            case null -> "None";
            case Double d -> repr(d.doubleValue());
            case Boolean b -> b ? "True" : "False";
            case List<?> l -> {
                StringBuilder sb = new StringBuilder("(");
                for (int i = 0; i < l.size(); i++) sb.append(i == 0 ? "" : ", ").append(repr(l.get(i)));
                yield sb.append(l.size() == 1 ? ",)" : ")").toString();
            }
            default -> String.valueOf(v);
        };
    }
}
