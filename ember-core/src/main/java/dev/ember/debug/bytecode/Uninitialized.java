package dev.ember.debug.bytecode;

/**
 * What {@code new} pushes: an object whose constructor has not run. The interpreter calls the
 * constructor at {@code invokespecial <init>} and puts the object made there in every slot that
 * held this one ({@code new; dup} leaves two).
 */
record Uninitialized(Class<?> type, int bci) {
    @Override
    public String toString() { return "uninitialized " + type.getSimpleName() + " (new at bci " + bci + ")"; }
}
