package dev.ember.dynamo.variables;

import java.lang.classfile.instruction.InvokeDynamicInstruction;

/** Where a lambda was made during the trace: the invokedynamic instruction and the class whose code holds it. */
public record LambdaSite(Class<?> caller, InvokeDynamicInstruction indy) {}
