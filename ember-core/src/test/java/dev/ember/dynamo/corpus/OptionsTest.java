package dev.ember.dynamo.corpus;

import dev.ember.Options;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import dev.ember.dynamo.CompileCounter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OptionsTest {

    @Test
    void defaultsAndImmutability() {
        Options d = Options.defaults();
        assertEquals("inductor", d.getBackendName());
        assertSame(Backends.get("inductor"), d.getBackend());
        assertFalse(d.isFullgraph());
        assertEquals(8, d.getRecompileLimit());
        Options f = d.fullgraph(true).recompileLimit(3).failOnRecompileLimitHit(true).mode("max-autotune").dynamic(true);
        assertFalse(d.isFullgraph(), "setters return new instances");
        assertTrue(f.isFullgraph() && f.isFailOnRecompileLimitHit() && f.isDynamic());
        assertEquals(3, f.getRecompileLimit());
        assertEquals(CompileMode.MAX_AUTOTUNE, f.getMode());
        assertEquals(Options.fullgraph(), Options.defaults().fullgraph(true));
        assertNotEquals(Options.fullgraph(), Options.defaults());
    }

    @Test
    void backendObjectsCompareByIdentity() {
        CompileCounter a = new CompileCounter(), b = new CompileCounter();
        assertEquals(Options.backend(a), Options.backend(a));
        assertNotEquals(Options.backend(a), Options.backend(b));
        assertSame(a, Options.backend(a).getBackend());
    }

    @Test
    void badValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.backend("inductorr"));
        assertTrue(e.getMessage().contains("unknown backend 'inductorr'") && e.getMessage().contains("eager"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Options.defaults().recompileLimit(0));
    }

    /** The mode's name is parsed once, by Options; the typed value compares equal and reaches the backend as is. */
    @Test
    void modeByNameOrValue() {
        assertEquals(Options.defaults().mode(CompileMode.REDUCE_OVERHEAD), Options.defaults().mode("reduce-overhead"));
        assertEquals(CompileMode.DEFAULT, Options.defaults().getMode());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.defaults().mode("max_autotune"));
        assertEquals("unknown mode 'max_autotune'; Ember supports \"default\", \"max-autotune\" and \"reduce-overhead\"", e.getMessage());
    }
}
