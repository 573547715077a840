package dev.ember.debug.fuzz;

/** A tensor variable of a generated program: its Java name and its type. */
public record Var(String name, TensorType type) {
    @Override
    public String toString() { return name + ": " + type; }
}
