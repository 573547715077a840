package dev.ember.fx;

/** FX's six node kinds; {@link #opcode()} is the name FX prints ({@code call_function}, …). */
public enum NodeKind {
    /** A graph input; its target is the parameter name. */
    PLACEHOLDER("placeholder"),
    /** A call of an ATen op ({@link dev.ember.ops.OpOverload}) or of a {@link GraphFunction}. */
    CALL_FUNCTION("call_function"),
    /** A call of a Tensor method on {@code args[0]}; the target is the method name. */
    CALL_METHOD("call_method"),
    /** A call of a submodule's forward; the target is the submodule's dotted path. */
    CALL_MODULE("call_module"),
    /** A read of a module attribute (a parameter or buffer); the target is its dotted path. */
    GET_ATTR("get_attr"),
    /** The graph's result, held in {@code args[0]}. */
    OUTPUT("output");

    private final String opcode;

    NodeKind(String opcode) { this.opcode = opcode; }

    public String opcode() { return opcode; }

    @Override
    public String toString() { return opcode; }
}
