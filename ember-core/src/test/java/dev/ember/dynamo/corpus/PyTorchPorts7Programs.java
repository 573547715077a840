package dev.ember.dynamo.corpus;

import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A seventh set of programs ported from PyTorch's Dynamo tests (test_functions.py): a number's own
 * methods deciding a branch (test_number_method: bit_length, conjugate, hex on Python's int and
 * float; Java's Integer and Double have no methods of those names, so each is its Java spelling),
 * a global counter bumped at each call (test_update_global) and a defaultdict read through
 * its factory (test_default_dict_dict, _list, _lambda: {@code computeIfAbsent}). PyTorchPorts7Test
 * runs them eagerly and compiled.
 *
 * <p>Skipped, with no Java meaning: test_cls_hasattr and test_class_dict (a class's attribute
 * dictionary), as_integer_ratio (no Java counterpart).
 */
final class PyTorchPorts7Programs {
    private PyTorchPorts7Programs() {}

    // test_number_method(bit_length, int): 2 * t if m.bit_length() else t
    static Tensor intBitLength(Tensor t, Integer m) {
        int bitLength = Integer.SIZE - Integer.numberOfLeadingZeros(Math.abs(m));
        return bitLength != 0 ? t.mul(2) : t;
    }

    // test_number_method(conjugate, int): a real number's conjugate is itself; truthy when non-zero
    static Tensor intConjugate(Tensor t, Integer m) { return m != 0 ? t.mul(2) : t; }

    // test_number_method(conjugate, float)
    static Tensor doubleConjugate(Tensor t, Double m) { return m != 0.0 ? t.mul(2) : t; }

    // test_number_method(hex, float): a non-empty string is truthy
    static Tensor doubleHex(Tensor t, Double m) { return !Double.toHexString(m).isEmpty() ? t.mul(2) : t; }

    // test_number_method(is_integer, float)
    static Tensor doubleIsInteger(Tensor t, Double m) { return m == Math.rint(m) && !Double.isInfinite(m) ? t.mul(2) : t; }

    // test_update_global: the global picked up as updated, at each call
    static int variable = 0;

    static Tensor updateGlobal(Tensor x) {
        variable += 1;
        return x.mul(variable);
    }

    // test_default_dict_dict / _list / _lambda: dd["a"] = x + 1; dd[param] = 123; dd["c"] = x * 2; return dd["b"], dd
    static final Tensor PARAM = Tensor.ones(2, 2);
    static final Map<Object, Object> DD = new HashMap<>();

    static List<Object> defaultDictDict(Tensor x) {
        DD.put("a", x.add(1));
        DD.put(PARAM, 123);
        DD.put("c", x.mul(2));
        return List.of(DD.computeIfAbsent("b", k -> new HashMap<>()), DD);
    }

    static List<Object> defaultDictList(Tensor x) {
        DD.put("a", x.add(1));
        DD.put(PARAM, 123);
        DD.put("c", x.mul(2));
        return List.of(DD.computeIfAbsent("b", k -> new ArrayList<>()), DD);
    }
}
