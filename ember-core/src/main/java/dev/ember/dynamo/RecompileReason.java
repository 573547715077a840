package dev.ember.dynamo;

import java.util.List;

/**
 * Why a method was compiled again: for each existing cache entry (newest first), the first guard
 * that failed for the new call, e.g. {@code tensor 'x' size mismatch at index 0. expected 2, actual 4}.
 */
public record RecompileReason(int compileIndex, List<String> failedGuards) {
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("triggered by the following guard failure(s):");
        for (String f : failedGuards) sb.append("\n  - ").append(f);
        return sb.toString();
    }
}
