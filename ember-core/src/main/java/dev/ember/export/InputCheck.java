package dev.ember.export;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * The check {@link ExportedProgram#run} makes before running: the number of user inputs, then per
 * input its dtype, rank and each size against the signature, in that order, the first mismatch
 * refused in one line that names the input as the user's code names it. A dynamic dimension is
 * checked against its symbol's range, and against the other dimensions of the same symbol.
 */
final class InputCheck {
    private InputCheck() {}

    static void check(GraphSignature signature, Tensor[] inputs, java.util.Map<String, ValueRange> ranges) {
        java.util.Map<Integer, String> seenAt = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> seen = new java.util.HashMap<>();
        List<InputSpec> expected = signature.userInputs();
        if (inputs == null || inputs.length != expected.size()) {
            int got = inputs == null ? 0 : inputs.length;
            throw new ExportError("ExportedProgram.run: expected " + expected.size() + " input" + (expected.size() == 1 ? "" : "s") + " ("
                    + String.join(", ", expected.stream().map(s -> s.target() + ": " + s.spec()).toList()) + "), got " + got);
        }
        for (int i = 0; i < inputs.length; i++) {
            InputSpec s = expected.get(i);
            Tensor t = inputs[i];
            String name = "input '" + s.target() + "'";
            if (t == null) throw new ExportError("ExportedProgram.run: " + name + " is null; expected a tensor " + s.spec());
            if (t.isFake()) throw new ExportError("ExportedProgram.run: " + name + " is a fake tensor; an exported program runs on real tensors");
            if (t.dtype() != s.spec().dtype()) {
                throw new ExportError("ExportedProgram.run: " + name + " has dtype " + t.dtype().shortName() + ", but the program was exported for "
                        + s.spec().dtype().shortName() + " (" + s.spec() + "); convert it with .to(DType." + s.spec().dtype().name() + ")");
            }
            int[] want = s.spec().sizes();
            if (t.dim() != want.length) {
                throw new ExportError("ExportedProgram.run: " + name + " has " + t.dim() + " dimension" + (t.dim() == 1 ? "" : "s") + " "
                        + t.meta().describe() + ", but the program was exported for " + want.length + " (" + s.spec() + ")");
            }
            for (int d = 0; d < want.length; d++) {
                dev.ember.tensor.SymInt dim = s.spec().isSymbolic() ? s.spec().dims().get(d) : null;
                int symbol = dim != null && dim.symbols().length == 1 ? dim.symbols()[0] : -1;
                if (symbol >= 0) {
                    // the dim is divisor * s (the program divides it): its size must divide, and s is in range
                    long divisor = dim.coefficient(symbol);
                    if (t.size(d) % divisor != 0) {
                        throw new ExportError("ExportedProgram.run: " + name + " dimension " + d + " is " + t.size(d) + ", but the program was exported for a multiple of "
                                + divisor + " (" + s.spec() + ": the program divides it)");
                    }
                    int value = (int) (t.size(d) / divisor);
                    ValueRange range = ranges.get("s" + symbol);
                    if (range != null && !range.contains(value)) {
                        throw new ExportError("ExportedProgram.run: " + name + " dimension " + d + " is " + t.size(d) + ", outside the range the program was exported for: s"
                                + symbol + " in " + range + " (export again with a Dim whose range holds it)");
                    }
                    Integer before = seen.putIfAbsent(symbol, value);
                    if (before != null && before != value) {
                        throw new ExportError("ExportedProgram.run: " + name + " dimension " + d + " is " + t.size(d) + ", but " + seenAt.get(symbol) + " is " + before
                                + ": the program was exported with both the same size s" + symbol);
                    }
                    seenAt.putIfAbsent(symbol, name + " dimension " + d);
                    continue;
                }
                if (t.size(d) != want[d]) {
                    throw new ExportError("ExportedProgram.run: " + name + " dimension " + d + " is " + t.size(d) + ", but the program was exported for "
                            + want[d] + " (export again with this size, or declare the dimension dynamic: ExportOptions.dynamic(" + i + ", " + d + ", Dim.of(\"batch\")))");
                }
            }
        }
    }
}
