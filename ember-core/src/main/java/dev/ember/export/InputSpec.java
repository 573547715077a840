package dev.ember.export;

/**
 * One input of an exported program's graph, as torch.export's {@code InputSpec}: {@code name} is the
 * graph's placeholder, {@code target} what it stands for — the user's argument as the source names
 * it ({@code x}, {@code xs[0]}, {@code p.a}), a parameter's or buffer's qualified name
 * ({@code body.0.weight}), or a lifted tensor constant's name.
 */
public record InputSpec(Kind kind, String name, String target, TensorSpec spec) {

    /** In the graph's placeholder order: state first (torch's order), the caller's tensors last. */
    public enum Kind {
        /** A parameter of the exported module, read from the program's state. */
        PARAMETER,
        /** A buffer (running statistics, …), read from the program's state and updated by BUFFER_MUTATION outputs. */
        BUFFER,
        /** A tensor the function captured or made from constants; saved with the program, never passed in. */
        CONSTANT_TENSOR,
        /** A tensor the caller passes to {@link ExportedProgram#run}. */
        USER_INPUT
    }
}
