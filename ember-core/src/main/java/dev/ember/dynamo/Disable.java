package dev.ember.dynamo;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that compiled code must never trace: a call to it from a compiled function is a
 * graph break (GB0020) and the method runs eagerly; compiling it directly runs it eagerly.
 * The annotation form of {@code Ember.disable(fn)}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface Disable {}
