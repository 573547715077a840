package dev.ember.debug.bytecode;

import java.util.List;
import java.util.Set;

/**
 * A frame the debugger steps through: the steps the frame evaluator takes for a cache entry
 * ({@link EntryFrame}), or a generated method's bytecode, interpreted ({@link MethodFrame}). Both
 * are lists of instructions, each at a bci (an entry's steps are numbered 0, 1, 2…).
 */
sealed interface DebugFrame permits EntryFrame, MethodFrame {

    /** The frame's heading: {@code MyApp$Resume0.breakAt(Object[], ResumeTarget) : Tensor  (generated after the graph break at MyApp.java:12)}. */
    String title();

    /** The method's short name in messages: {@code breakAt}. */
    String name();

    /** What breakpoints are kept under: the same method in a later call keeps them. */
    String key();

    /** The instructions' count; instruction {@code index} starts at {@link #bciAt}. */
    int count();

    int bciAt(int index);

    /** The instruction that starts at {@code bci}, or -1. */
    int indexAtBci(int bci);

    /** One past the last bci. */
    int length();

    /** The index of the instruction about to run. */
    int current();

    boolean isDone();

    /** Instructions {@code from} to {@code to} (indices, both included) as listing rows, the current one and the breakpoints marked. */
    String rows(int from, int to, Set<Integer> breakpoints);

    /** The locals, one typed line each ({@code 0  x  f32[3, 4]}). */
    List<String> locals();

    /** The operand stack, bottom first, one typed line each. */
    List<String> stack();

    /** Runs the current instruction (stepping into what it calls that Ember generated or compiled). */
    void step();

    /** What the frame returned, once done. */
    Object result();
}
