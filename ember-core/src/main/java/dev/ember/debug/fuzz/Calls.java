package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Fn5;
import dev.ember.Options;

/** Calls and compiles a program's {@code Fn1}…{@code Fn5} whatever its arity, as typed user code would. */
final class Calls {
    private Calls() {}

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object apply(Object fn, Object[] a) {
        return switch (fn) {
            case Fn1 f -> f.apply(a[0]);
            case Fn2 f -> f.apply(a[0], a[1]);
            case Fn3 f -> f.apply(a[0], a[1], a[2]);
            case Fn4 f -> f.apply(a[0], a[1], a[2], a[3]);
            case Fn5 f -> f.apply(a[0], a[1], a[2], a[3], a[4]);
            default -> throw new IllegalArgumentException("not an Fn1…Fn5: " + fn);
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object compile(Object fn, Options options) {
        return switch (fn) {
            case Fn1 f -> Ember.compile(f, options);
            case Fn2 f -> Ember.compile(f, options);
            case Fn3 f -> Ember.compile(f, options);
            case Fn4 f -> Ember.compile(f, options);
            case Fn5 f -> Ember.compile(f, options);
            default -> throw new IllegalArgumentException("not an Fn1…Fn5: " + fn);
        };
    }
}
