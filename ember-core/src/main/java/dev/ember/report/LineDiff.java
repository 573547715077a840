package dev.ember.report;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which lines two texts share: a longest common subsequence of lines, so a line that moved or
 * changed is marked on both sides. Above {@link #MAX_CELLS} line pairs it falls back to "is the line
 * anywhere in the other text", which a huge graph's diff still reads well with.
 *
 * @param keptBefore for each line before, whether it is in the common subsequence
 * @param keptAfter  for each line after, whether it is
 */
record LineDiff(boolean[] keptBefore, boolean[] keptAfter) {
    static final long MAX_CELLS = 4_000_000;

    static LineDiff of(List<String> before, List<String> after) {
        int n = before.size(), m = after.size();
        if ((long) n * m > MAX_CELLS) return new LineDiff(in(before, after), in(after, before));
        int[][] common = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                common[i][j] = before.get(i).equals(after.get(j)) ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        boolean[] kb = new boolean[n], ka = new boolean[m];
        for (int i = 0, j = 0; i < n && j < m; ) {
            if (before.get(i).equals(after.get(j))) {
                kb[i++] = true;
                ka[j++] = true;
            } else if (common[i + 1][j] >= common[i][j + 1]) {
                i++;
            } else {
                j++;
            }
        }
        return new LineDiff(kb, ka);
    }

    /** For each line, whether {@code others} holds it anywhere. */
    static boolean[] in(List<String> lines, List<String> others) {
        Set<String> set = new HashSet<>(others);
        boolean[] out = new boolean[lines.size()];
        for (int i = 0; i < out.length; i++) out[i] = set.contains(lines.get(i));
        return out;
    }
}
