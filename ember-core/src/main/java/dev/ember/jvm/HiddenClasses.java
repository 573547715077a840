package dev.ember.jvm;

import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one door through which Ember defines the classes it generates (compiled guards, resume
 * methods, inductor graphs), so that a test can see every one of them: {@link #recording} returns
 * the bytes of each class defined while it ran, for the class-file verifier. This package sits
 * below every stage, so capture and the inductor both use it without importing each other.
 *
 * <p>The JVM verifies each class as it is defined ({@code BytecodeVerificationRemote}, on by default
 * for every class loader but the boot loader, whose classes these are not), so a class that does
 * not verify fails here with a {@link VerifyError}, before any of its code runs — unless
 * verification was switched off ({@link #jvmVerifies}).
 */
public final class HiddenClasses {
    private HiddenClasses() {}

    /** A generated class as defined: its name, its bytes, and the loader that resolves the types it names. */
    public record Defined(String name, byte[] bytes, ClassLoader loader) {}

    private static final List<List<Defined>> RECORDINGS = new CopyOnWriteArrayList<>();

    /**
     * Defines {@code bytes} as an initialized hidden class in {@code host}'s package (and nest, with
     * {@code NESTMATE}), with {@code classData} for {@code MethodHandles.classData} unless it is null.
     */
    public static MethodHandles.Lookup define(MethodHandles.Lookup host, byte[] bytes, Object classData,
                                              MethodHandles.Lookup.ClassOption... options) throws IllegalAccessException {
        MethodHandles.Lookup defined = classData == null
                ? host.defineHiddenClass(bytes, true, options)
                : host.defineHiddenClassWithClassData(bytes, classData, true, options);
        if (!RECORDINGS.isEmpty()) {
            Defined d = new Defined(defined.lookupClass().getName(), bytes.clone(), host.lookupClass().getClassLoader());
            for (List<Defined> r : RECORDINGS) r.add(d);
        }
        return defined;
    }

    /**
     * Whether the JVM verifies the classes defined here, found once by defining a class that does
     * not verify (its one method returns null as an int) and never running it. Off only when
     * verification was switched off ({@code -Xverify:none}, or {@code -XX:-BytecodeVerificationRemote}
     * with diagnostic options unlocked); then a caller that loads bytes it did not just generate must
     * verify them itself.
     */
    public static boolean jvmVerifies() { return VerifierProbe.ON; }

    private static final class VerifierProbe {
        static final boolean ON = probe();

        private static boolean probe() {
            byte[] bad = ClassFile.of(ClassFile.StackMapsOption.DROP_STACK_MAPS).build(ClassDesc.of(HiddenClasses.class.getPackageName() + ".VerifierProbe"),
                    cb -> cb.withMethodBody("f", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_STATIC,
                            code -> code.aconst_null().ireturn()));
            try {
                MethodHandles.lookup().defineHiddenClass(bad, false);
                return false;
            } catch (VerifyError expected) {
                return true;
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("a class cannot define a hidden class next to itself", e);
            }
        }
    }

    /** Runs {@code body} and returns every class defined meanwhile, on any thread. */
    public static List<Defined> recording(Runnable body) {
        List<Defined> recorded = Collections.synchronizedList(new ArrayList<>());
        RECORDINGS.add(recorded);
        try {
            body.run();
        } finally {
            RECORDINGS.remove(recorded);
        }
        return List.copyOf(recorded);
    }
}
