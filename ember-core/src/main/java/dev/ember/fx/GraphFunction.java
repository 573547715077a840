package dev.ember.fx;

import java.util.List;
import java.util.Map;

/**
 * A non-ATen callable that a {@link NodeKind#CALL_FUNCTION} node may target, such as
 * {@code getitem} on an op's list of outputs. ATen ops are targeted through their
 * {@link dev.ember.ops.OpOverload} instead.
 */
public interface GraphFunction {

    /** The base of the names of nodes calling it: {@code getitem} gives {@code getitem}, {@code getitem_1}, … */
    String name();

    /** The name printed as the node's target: {@code operator.getitem}. */
    String qualifiedName();

    /** Calls the function on concrete (or fake) values. */
    Object apply(List<Object> args, Map<String, Object> kwargs);

    /**
     * Calls the function on fake values for their output metadata ({@link ShapeProp}). By default
     * the function itself runs on the fakes; a function that reads data (a leaf function, a
     * condition) answers from its own fake implementation instead.
     */
    default Object applyFake(List<Object> args, Map<String, Object> kwargs) { return apply(args, kwargs); }

    /** The call as people read it, given its rendered arguments: {@code split.get(0)}. */
    default String render(List<String> args) { return qualifiedName() + "(" + String.join(", ", args) + ")"; }

    /**
     * A Java expression evaluating to this function, for generated source; null when there is none
     * (the function is then a live object that generated source cannot refer to).
     */
    default String javaSource() { return null; }
}
