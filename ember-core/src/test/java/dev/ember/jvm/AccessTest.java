package dev.ember.jvm;

import org.junit.jupiter.api.Test;

import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ember reaches a class of another class loader (another unnamed module) with full privilege, as resume code needs. */
class AccessTest {
    /** A class {@code name} with a private static {@code int secret()} returning 42, in a loader of its own. */
    private static Class<?> loadedApart(String name) throws ClassNotFoundException {
        byte[] bytes = ClassFile.of().build(ClassDesc.of(name), cb -> cb.withFlags(ClassFile.ACC_PUBLIC)
                .withMethodBody("secret", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC,
                        code -> code.bipush(42).ireturn()));
        ClassLoader apart = new ClassLoader(AccessTest.class.getClassLoader()) {
            @Override
            protected Class<?> findClass(String n) throws ClassNotFoundException {
                if (n.equals(name)) return defineClass(n, bytes, 0, bytes.length);
                throw new ClassNotFoundException(n);
            }
        };
        return apart.loadClass(name);
    }

    @Test
    void aClassOfAnotherLoaderIsReachedWithFullPrivilege() throws Throwable {
        Class<?> host = loadedApart("apart.Host");
        assertNotSame(AccessTest.class.getModule(), host.getModule());
        assertFalse(MethodHandles.privateLookupIn(host, MethodHandles.lookup()).hasFullPrivilegeAccess(),
                "Ember's own lookup lacks module access there: what this is for");

        MethodHandles.Lookup lookup = Access.fullPrivilegeIn(host, MethodHandles.lookup());
        assertTrue(lookup.hasFullPrivilegeAccess(), lookup.toString());
        assertSame(host, lookup.lookupClass());
        assertEquals(42, (int) lookup.findStatic(host, "secret", MethodType.methodType(int.class)).invokeExact());
        // what resume code is: a hidden nestmate of the host
        byte[] resume = ClassFile.of().build(ClassDesc.of("apart.Host$Resume"), cb -> cb.withFlags(ClassFile.ACC_PUBLIC));
        Class<?> hidden = lookup.defineHiddenClass(resume, true, MethodHandles.Lookup.ClassOption.NESTMATE).lookupClass();
        assertSame(host, hidden.getNestHost());

        // one access class per host, made once
        Class<?> access = Class.forName("apart.Host" + Access.ACCESS_CLASS, false, host.getClassLoader());
        assertTrue(Access.fullPrivilegeIn(host, MethodHandles.lookup()).hasFullPrivilegeAccess());
        assertSame(access, Class.forName("apart.Host" + Access.ACCESS_CLASS, false, host.getClassLoader()));
    }

    @Test
    void aClassInEmbersOwnModuleNeedsNoAccessClass() throws Exception {
        assertTrue(Access.fullPrivilegeIn(AccessTest.class, MethodHandles.lookup()).hasFullPrivilegeAccess());
        assertFalse(hasClass(AccessTest.class.getName() + Access.ACCESS_CLASS));
    }

    private static boolean hasClass(String name) {
        try {
            Class.forName(name, false, AccessTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
