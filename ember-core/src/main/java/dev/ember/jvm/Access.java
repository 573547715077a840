package dev.ember.jvm;

import java.lang.invoke.MethodHandles;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Full-privilege lookups the user granted ({@code Ember.grantAccess(MethodHandles.lookup())}), by
 * module. Resume code is a hidden class defined next to the user's class, which needs a lookup
 * with full privilege in the user's module. On the class path, Ember's classes and the user's share
 * the unnamed module, and Ember's own lookup serves; a program launched from source
 * ({@code java Prog.java}) is loaded by its own class loader, in a module of its own, and only a
 * lookup made by its code has that privilege.
 */
public final class Access {
    private Access() {}

    private static final Map<Module, MethodHandles.Lookup> GRANTED = new ConcurrentHashMap<>();

    /** Records {@code lookup}, which must have full privilege (made by {@code MethodHandles.lookup()} in the user's code). */
    public static void grant(MethodHandles.Lookup lookup) {
        if (!lookup.hasFullPrivilegeAccess()) {
            throw new IllegalArgumentException("Ember.grantAccess needs a full-privilege lookup, made by MethodHandles.lookup() in your own class; "
                    + lookup + " has lost some of its access (it was made by privateLookupIn, in(), or dropLookupMode)");
        }
        GRANTED.put(lookup.lookupClass().getModule(), lookup);
    }

    /**
     * A lookup in {@code host} with full privilege, from a grant for its module, or from
     * {@code own} (a lookup of the caller, in Ember's module) when that module is the host's.
     */
    public static MethodHandles.Lookup fullPrivilegeIn(Class<?> host, MethodHandles.Lookup own) throws IllegalAccessException {
        MethodHandles.Lookup granted = GRANTED.get(host.getModule());
        return MethodHandles.privateLookupIn(host, granted != null ? granted : own);
    }

    /** Whether {@code host}'s module has a grant. */
    public static boolean granted(Class<?> host) { return GRANTED.containsKey(host.getModule()); }
}
