package dev.ember.dynamo;

import dev.ember.events.UserFrame;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stack trace a user sees for an exception their code threw inside a compiled function: the
 * frames eager would show. The frame cache and resume plumbing (Ember's dev.ember.dynamo classes)
 * are left out; the code generated at a break is a hidden class, whose frames the JVM leaves out
 * of every trace, so the user's method is put back at the break's line. An exception Ember threw
 * itself keeps every frame: that trace is for Ember's developers.
 */
final class UserStackTraces {
    private UserStackTraces() {}

    private static final String INTERNAL = "dev.ember.dynamo.";
    private static final String HAND_OFF = "dev.ember.dynamo.resume.ResumeTarget";
    private static final Map<String, Boolean> EMBERS = new ConcurrentHashMap<>();

    /**
     * {@code t}, its causes and suppressed exceptions without Ember's frames; {@code t} itself, so
     * nothing of the chain is lost. An error of Ember's own (its translator, a backend) keeps Ember's
     * frames with {@code EMBER_VERBOSE=1} and loses every one of them without, for one clear message.
     */
    static Throwable filter(Throwable t) {
        if (t instanceof InternalTraceError e ? !e.verbose() : t instanceof dev.ember.BackendCompilerFailed && !dev.ember.logging.Verbose.enabled()) {
            userFramesOnly(t, Collections.newSetFromMap(new IdentityHashMap<>()));
            return t;
        }
        filter(t, Collections.newSetFromMap(new IdentityHashMap<>()));
        return t;
    }

    private static void userFramesOnly(Throwable t, Set<Throwable> seen) {
        if (t == null || !seen.add(t)) return;
        t.setStackTrace(Arrays.stream(t.getStackTrace()).filter(e -> !isEmbers(e.getClassName(), "dev.ember.")).toArray(StackTraceElement[]::new));
        userFramesOnly(t.getCause(), seen);
        for (Throwable s : t.getSuppressed()) userFramesOnly(s, seen);
    }

    /**
     * {@code t}, thrown below the generated code of a break in {@code user}'s method: unless it came
     * through the resume method (whose own frame says where), the user's method at the break's line,
     * where the hidden generated frame would be, right above the caller of that code (this thread's
     * current frame).
     */
    static Throwable atBreak(Throwable t, UserFrame user) {
        StackTraceElement[] trace = t.getStackTrace();
        int caller = trace.length - (new Throwable().getStackTrace().length - 1);   // the - 1: this method's own frame
        if (user == null || trace.length == 0 || isEmbers(trace[0].getClassName()) || caller <= 0 || caller > trace.length
                || trace[caller - 1].getClassName().equals(HAND_OFF)) return t;
        List<StackTraceElement> out = new ArrayList<>(Arrays.asList(trace));
        out.add(caller, new StackTraceElement(user.className(), ResumeCodegen.userMethod(user.methodName()), user.fileName(), user.line()));
        t.setStackTrace(out.toArray(StackTraceElement[]::new));
        return t;
    }

    /**
     * The user's method that the resume method {@code resume} (a hidden class) continues, as a stack
     * trace element without a line; null when its class file cannot be read.
     */
    static StackTraceElement continuedBy(dev.ember.dynamo.variables.MethodTarget resume) {
        try {
            Class<?> user = ClassFiles.origin(resume.owner());
            String file = ClassFiles.model(user).findAttribute(java.lang.classfile.Attributes.sourceFile()).map(a -> a.sourceFile().stringValue()).orElse(null);
            return new StackTraceElement(user.getName(), ResumeCodegen.userMethod(resume.name()), file, -1);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void filter(Throwable t, Set<Throwable> seen) {
        if (t == null || !seen.add(t)) return;
        StackTraceElement[] trace = t.getStackTrace();
        if (trace.length > 0 && !isEmbers(trace[0].getClassName())) {
            t.setStackTrace(Arrays.stream(trace).filter(e -> !isEmbers(e.getClassName())).toArray(StackTraceElement[]::new));
        }
        filter(t.getCause(), seen);
        for (Throwable s : t.getSuppressed()) filter(s, seen);
    }

    /**
     * Whether {@code cls} is one of Ember's dynamo classes: by package, and by where it was loaded from,
     * since classes of the user's (a test's) may share the package.
     */
    private static boolean isEmbers(String cls) { return isEmbers(cls, INTERNAL); }

    /** Whether {@code cls} is one of ember-core's classes in the package starting {@code prefix}. */
    static boolean isEmbers(String cls, String prefix) {
        if (!cls.startsWith(prefix)) return false;
        return EMBERS.computeIfAbsent(cls, name -> {
            try {
                Class<?> c = Class.forName(name, false, UserStackTraces.class.getClassLoader());
                return c.getProtectionDomain().getCodeSource() == UserStackTraces.class.getProtectionDomain().getCodeSource();
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        });
    }
}
