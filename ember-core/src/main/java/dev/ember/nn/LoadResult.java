package dev.ember.nn;

import java.util.List;

/**
 * What {@link Module#loadStateDict(java.util.Map, boolean)} did not match (PyTorch's
 * {@code _IncompatibleKeys}): both lists are empty after a strict load.
 *
 * @param missingKeys    the module's keys absent from the state dict
 * @param unexpectedKeys the state dict's keys the module does not have
 */
public record LoadResult(List<String> missingKeys, List<String> unexpectedKeys) {
    public LoadResult {
        missingKeys = List.copyOf(missingKeys);
        unexpectedKeys = List.copyOf(unexpectedKeys);
    }
}
