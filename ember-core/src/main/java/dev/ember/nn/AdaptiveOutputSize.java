package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * torch's adaptive pooling {@code output_size} with {@code None} entries ({@code (3, None)}): a
 * None keeps that dimension of the input. The Java modules take it as {@code Integer...} with
 * null for None and keep the sizes with a mask of the None entries, resolved against each input.
 */
final class AdaptiveOutputSize {
    private AdaptiveOutputSize() {}

    /** The sizes with 0 where None was given. */
    static int[] sizes(Integer[] outputSize) {
        int[] out = new int[outputSize.length];
        for (int i = 0; i < out.length; i++) out[i] = outputSize[i] == null ? 0 : outputSize[i];
        return out;
    }

    /** Which entries are None; null when none is. */
    static boolean[] noneMask(Integer[] outputSize) {
        boolean[] none = new boolean[outputSize.length];
        boolean any = false;
        for (int i = 0; i < none.length; i++) any |= none[i] = outputSize[i] == null;
        return any ? none : null;
    }

    /** The sizes for {@code input}: a None entry takes the size of the matching trailing dimension of the input, as torch's {@code _list_with_default}. */
    static int[] resolve(int[] sizes, boolean[] none, Tensor input) {
        if (none == null) return sizes;
        int[] out = sizes.clone();
        for (int i = 0; i < out.length; i++) {
            if (none[i]) out[i] = input.size(input.dim() - sizes.length + i);
        }
        return out;
    }

    /** torch's printed output_size: an int when given as one, else a tuple with None entries. */
    static String repr(int[] sizes, boolean[] none, boolean givenAsInt) {
        if (none == null) return Repr.intOrTuple(sizes, givenAsInt);
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < sizes.length; i++) sb.append(i > 0 ? ", " : "").append(none[i] ? "None" : Integer.toString(sizes[i]));
        return sb.append(')').toString();
    }
}
