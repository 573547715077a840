package dev.ember.nn;

import java.math.BigDecimal;

/** Python's spelling of values in module printouts: {@code True}, {@code 1e-05}, {@code (3, 3)}, {@code 'none'}. */
final class Repr {
    private Repr() {}

    static String bool(boolean b) { return b ? "True" : "False"; }

    static String str(String s) { return "'" + s + "'"; }

    /** Python's {@code repr(float)}: the shortest round-trip digits, scientific below 1e-4 and from 1e16. */
    static String number(double x) {
        if (Double.isNaN(x)) return "nan";
        if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
        if (x == 0) return (1 / x < 0) ? "-0.0" : "0.0";
        BigDecimal d = new BigDecimal(Double.toString(x)).stripTrailingZeros();
        String digits = d.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - d.scale();
        String sign = x < 0 ? "-" : "";
        if (exponent >= -4 && exponent < 16) {
            String plain = d.abs().toPlainString();
            return sign + (plain.contains(".") ? plain : plain + ".0");
        }
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
    }

    /** A Python tuple of ints: {@code (16,)}, {@code (3, 3)}. */
    static String tuple(int[] values) {
        if (values.length == 1) return "(" + values[0] + ",)";
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < values.length; i++) sb.append(i > 0 ? ", " : "").append(values[i]);
        return sb.append(')').toString();
    }

    /** An int when all entries are equal and the user gave one int, else a tuple (how PyTorch echoes its arguments). */
    static String intOrTuple(int[] values, boolean givenAsInt) {
        return givenAsInt ? Integer.toString(values[0]) : tuple(values);
    }

    /** Indents every line but the first by two spaces (PyTorch's {@code _addindent}). */
    static String indent(String s) { return s.replace("\n", "\n  "); }
}
