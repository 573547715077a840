package dev.ember.dynamo.stances;

import dev.ember.BackendCompilerFailed;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.InternalTraceError;
import dev.ember.fx.Backend;
import dev.ember.logging.Verbose;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EMBER_VERBOSE (here its system property, read first): errors of Ember's own are one message for the
 * user without it, and Ember's stack with the trace context with it. Each is provoked on purpose:
 * a backend that throws, and an op whose meta function returns what the translator cannot use.
 */
class VerboseErrorsTest {
    @AfterEach
    void reset() {
        System.clearProperty(Verbose.PROPERTY);
        Ember.reset();
    }

    /** A broken op, as a bug in Ember's op table would be: its meta function returns no metadata. */
    static final OpOverload BROKEN = OpOverload.define("verbosetest::broken(Tensor x) -> Tensor")
            .meta(a -> "not a meta").kernel((a, meta) -> a.tensor(0)).register();

    static Tensor usesBrokenOp(Tensor x) {
        Tensor y = x.relu();
        return BROKEN.callTensor(y);
    }

    static Tensor fn(Tensor x) { return x.relu().add(1.0); }

    static final Backend THROWS = (gm, fakes) -> {
        throw new IllegalStateException("boom: the backend cannot compile this");
    };

    private static String printed(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    private static boolean hasEmberFrames(String trace) { return trace.contains("at dev.ember.dynamo.CompiledFrame") || trace.contains("at dev.ember.Ember."); }

    @Test
    void withoutVerboseAnInternalErrorIsOneMessageWithTheUsersLineAndTheirFramesOnly() {
        Fn1<Tensor, Tensor> f = Ember.compile(VerboseErrorsTest::usesBrokenOp, Options.backend("eager"));
        InternalTraceError e = assertThrows(InternalTraceError.class, () -> f.apply(Tensor.randn(3)));
        String m = e.getMessage();
        assertTrue(m.startsWith("Ember internal error while compiling VerboseErrorsTest.usesBrokenOp: IllegalStateException: "
                + "verbosetest.broken.default: meta function returned not a meta\n"), m);
        assertTrue(m.contains("\n  while tracing your code at VerboseErrorsTest.java:"), m);
        assertTrue(m.contains("return BROKEN.callTensor(y);"), "the user's source line: " + m);
        assertTrue(m.endsWith("\n  set EMBER_VERBOSE=1 for Ember's own stack and the full trace context"), m);
        assertNull(e.getCause(), "no internal cause without verbose");
        String trace = printed(e);
        assertFalse(hasEmberFrames(trace), trace);
        assertTrue(trace.contains("VerboseErrorsTest.lambda$"), "the user's frames stay: " + trace);
    }

    @Test
    void withVerboseAnInternalErrorKeepsEmbersStackAndTheTraceContext() {
        System.setProperty(Verbose.PROPERTY, "1");
        Fn1<Tensor, Tensor> f = Ember.compile(VerboseErrorsTest::usesBrokenOp, Options.backend("eager"));
        InternalTraceError e = assertThrows(InternalTraceError.class, () -> f.apply(Tensor.randn(3)));
        String m = e.getMessage();
        assertTrue(m.contains("trace context:\n  frame: dev.ember.dynamo.stances.VerboseErrorsTest.usesBrokenOp(Ldev/ember/tensor/Tensor;)Ldev/ember/tensor/Tensor;"), m);
        assertTrue(m.contains("\n  instruction: invokevirtual at bci "), m);
        assertTrue(m.contains("\n  user stack (most recent call last):\n    VerboseErrorsTest.java:"), m);
        assertTrue(m.contains("\n  graph so far:\n    class GraphModule {") && m.contains("aten.relu.default(l_x_)"), m);
        assertFalse(m.contains("EMBER_VERBOSE=1"), m);
        assertTrue(e.getCause() instanceof IllegalStateException, "the cause, with its stack");
        assertTrue(hasEmberFrames(printed(e)), printed(e));
    }

    @Test
    void withoutVerboseABackendFailureIsOneMessageWithTheUsersFramesOnly() {
        Fn1<Tensor, Tensor> f = Ember.compile(VerboseErrorsTest::fn, Options.backend(THROWS));
        BackendCompilerFailed e = assertThrows(BackendCompilerFailed.class, () -> f.apply(Tensor.randn(3)));
        assertTrue(e.getMessage().endsWith("\n  set EMBER_VERBOSE=1 for Ember's own stack and the full trace context"), e.getMessage());
        assertTrue(e.getMessage().contains("boom: the backend cannot compile this"), e.getMessage());
        String trace = printed(e);
        assertFalse(hasEmberFrames(trace), trace);
        assertEquals(0, e.getSuppressed().length);
    }

    @Test
    void withVerboseABackendFailureKeepsEmbersStackAndTheGraph() {
        System.setProperty(Verbose.PROPERTY, "1");
        Fn1<Tensor, Tensor> f = Ember.compile(VerboseErrorsTest::fn, Options.backend(THROWS));
        BackendCompilerFailed e = assertThrows(BackendCompilerFailed.class, () -> f.apply(Tensor.randn(3)));
        assertFalse(e.getMessage().contains("EMBER_VERBOSE"), e.getMessage());
        String trace = printed(e);
        assertTrue(hasEmberFrames(trace), trace);
        assertEquals(1, e.getSuppressed().length);
        String note = e.getSuppressed()[0].getMessage();
        assertTrue(note.startsWith("While compiling VerboseErrorsTest.fn [") && note.contains("the graph:\nclass GraphModule {")
                && note.contains("aten.relu.default(l_x_)"), note);
    }

    @Test
    void aBadValueIsAClearError() {
        System.setProperty(Verbose.PROPERTY, "yes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Verbose::enabled);
        assertEquals("-Dember.verbose=yes: expected 1 (Ember's own stack and the trace context in its errors) or 0 (one message)", e.getMessage());
    }
}
