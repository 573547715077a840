package dev.ember.export;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * The check {@link ExportedProgram#run} makes before running: the number of user inputs, then per
 * input its dtype, rank and each size against the signature, in that order, the first mismatch
 * refused in one line that names the input as the user's code names it. This is where a symbolic
 * dimension will be checked against its range instead of its one size.
 */
final class InputCheck {
    private InputCheck() {}

    static void check(GraphSignature signature, Tensor[] inputs) {
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
                if (t.size(d) != want[d]) {
                    throw new ExportError("ExportedProgram.run: " + name + " dimension " + d + " is " + t.size(d) + ", but the program was exported for "
                            + want[d] + " (export again with this size: dynamic dimensions are not supported yet)");
                }
            }
        }
    }
}
