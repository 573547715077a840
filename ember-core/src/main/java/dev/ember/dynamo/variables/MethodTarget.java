package dev.ember.dynamo.variables;

import java.lang.constant.MethodTypeDesc;

/**
 * A method to trace: declaring class, name, descriptor, and whether it takes a receiver
 * (virtual/interface/special) or not (static).
 */
public record MethodTarget(Class<?> owner, String name, MethodTypeDesc type, boolean isStatic) {
    @Override
    public String toString() { return owner.getName() + "." + name + type.descriptorString(); }
}
