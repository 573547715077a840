package dev.ember.export;

/**
 * One output of an exported program's graph, as torch.export's {@code OutputSpec}: {@code name} is
 * the graph node returned; for a USER_OUTPUT {@code target} is where the tensor sat in the
 * function's return value ({@code ""} for the value itself, {@code [0]}, {@code ['mean']},
 * {@code .a}), for a mutation the buffer, parameter or user input it is copied into.
 */
public record OutputSpec(Kind kind, String name, String target, TensorSpec spec) {

    public enum Kind {
        /** A tensor of the return value, handed to the caller. */
        USER_OUTPUT,
        /** The new value of a buffer the function changed in place; copied into the program's state after each run. */
        BUFFER_MUTATION,
        /** The new value of a parameter the function changed in place; copied into the program's state after each run. */
        PARAMETER_MUTATION,
        /** The new value of a user input the function changed in place; copied into the caller's tensor after each run. */
        USER_INPUT_MUTATION
    }

    /** {@code output}, {@code output[0]}, {@code output.a}: the return value's part, as printed. */
    String describeTarget() { return kind == Kind.USER_OUTPUT ? "output" + target : target; }
}
