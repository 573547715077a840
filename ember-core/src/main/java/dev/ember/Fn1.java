package dev.ember;

import java.io.Serializable;

/**
 * A function of one argument that {@link Ember#compile} can capture. It is {@link Serializable} so that
 * the compiler can find the method behind a lambda or method reference (through its
 * {@code SerializedLambda}) and read that method's bytecode.
 */
@FunctionalInterface
public interface Fn1<A, R> extends Serializable {
    R apply(A a);
}
