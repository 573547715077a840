package dev.ember.inductor.codegen;

import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;

import java.util.HashMap;
import java.util.Map;

/** Names inside one generated kernel: temporaries, loop variables, buffer offsets, and register-held results. */
final class KernelContext {
    private int temps;
    private final Map<Buffer, String> locals = new HashMap<>();

    String temp() { return "t" + temps++; }

    static String var(int v) { return "i" + v; }

    /** The array index of {@code index} into {@code b}: its run-time base offset (if any) plus the affine index. */
    String index(Buffer b, Affine index) {
        String a = index.render(KernelContext::var);
        return b.hasRuntimeOffset() ? b.name() + "_off + " + a : a;
    }

    /** Registers that reads of {@code b} in this row are the value of variable {@code name}. */
    void setLocal(Buffer b, String name) { locals.put(b, name); }

    String local(Buffer b) { return locals.get(b); }
}
