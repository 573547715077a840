package dev.ember.jvm;

import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Full-privilege lookups in the user's classes. Resume code is a hidden class defined next to the
 * user's class, which needs a lookup with full privilege in the user's module. On the class path,
 * Ember's classes and the user's share the unnamed module, and Ember's own lookup serves; a class
 * of another loader (a program launched from source, {@code java Prog.java}, JShell, a plugin
 * loader) is in a module of its own, reached through a small class defined in its package
 * ({@link #fullPrivilegeIn}); a named module that does not open its package to Ember grants its
 * lookup ({@code Ember.grantAccess(MethodHandles.lookup())}), kept here by module.
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
     * A lookup in {@code host} with full privilege: from a grant for its module; from {@code own}
     * (a lookup of the caller, in Ember's module) when that module is the host's; else through
     * {@link #ACCESS_CLASS}. Ember's lookup reaches a class of another module (another class
     * loader's unnamed module: a program launched from source, JShell, a test framework's or a
     * plugin's loader, the fuzzer's programs) with private access but without module access, and
     * defining code next to it needs both; a small class defined in the host's own package, which
     * that private access allows, makes the host's full-privilege lookup from inside its module.
     * The host's module must be open to Ember for this, as every unnamed module is; a named module
     * that does not open the package gets {@link IllegalAccessException} (grant it instead).
     */
    public static MethodHandles.Lookup fullPrivilegeIn(Class<?> host, MethodHandles.Lookup own) throws IllegalAccessException {
        MethodHandles.Lookup granted = GRANTED.get(host.getModule());
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(host, granted != null ? granted : own);
        if (lookup.hasFullPrivilegeAccess()) return lookup;
        Object made = FROM_INSIDE.get(host);
        if (made instanceof IllegalAccessException e) throw e;
        return (MethodHandles.Lookup) made;
    }

    /** The name of the class {@link #fullPrivilegeIn} defines next to a host: {@code Host$$EmberAccess}. */
    public static final String ACCESS_CLASS = "$$EmberAccess";

    private static final ClassDesc LOOKUP = ClassDesc.of("java.lang.invoke.MethodHandles$Lookup");

    /** Per host: its full-privilege lookup made from inside its module, or why none could be made. */
    private static final ClassValue<Object> FROM_INSIDE = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> host) {
            try {
                Class<?> inside = accessClass(host);
                return inside.getMethod("lookupIn", Class.class).invoke(null, host);
            } catch (IllegalAccessException e) {
                return e;
            } catch (ReflectiveOperationException | LinkageError e) {
                IllegalAccessException failed = new IllegalAccessException("no full-privilege lookup in " + host.getName() + ": " + e);
                failed.initCause(e);
                return failed;
            }
        }
    };

    /**
     * The class {@code Host$$EmberAccess}, in the host's package and loader, whose one method
     * returns {@code MethodHandles.privateLookupIn(host, MethodHandles.lookup())}: made inside the
     * host's module, that lookup keeps full privilege. Found rather than defined when it exists
     * (another thread, or another host of the same name's earlier definition in that loader).
     */
    private static Class<?> accessClass(Class<?> host) throws IllegalAccessException {
        MethodHandles.Lookup packageAccess = MethodHandles.privateLookupIn(host, MethodHandles.lookup());
        String name = host.getName() + ACCESS_CLASS;
        MethodTypeDesc lookupIn = MethodTypeDesc.of(LOOKUP, ConstantDescs.CD_Class);
        byte[] bytes = ClassFile.of().build(ClassDesc.of(name), cb -> cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                .withMethodBody("lookupIn", lookupIn, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, code -> code
                        .aload(0)
                        .invokestatic(ConstantDescs.CD_MethodHandles, "lookup", MethodTypeDesc.of(LOOKUP))
                        .invokestatic(ConstantDescs.CD_MethodHandles, "privateLookupIn", MethodTypeDesc.of(LOOKUP, ConstantDescs.CD_Class, LOOKUP))
                        .areturn()));
        try {
            return packageAccess.defineClass(bytes);
        } catch (LinkageError alreadyDefined) {
            try {
                return Class.forName(name, true, host.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw alreadyDefined;
            }
        }
    }

    /** Whether {@code host}'s module has a grant. */
    public static boolean granted(Class<?> host) { return GRANTED.containsKey(host.getModule()); }
}
