package dev.ember.nn;

import ai.djl.ndarray.NDManager;
import dev.ember.testing.Torch;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** For the nn tests: a call libtorch refuses must be refused by Ember with ATen's message. */
final class AtenRefusal {
    private AtenRefusal() {}

    /** libtorch refuses {@code torch}; Ember refuses {@code ember} with a message containing ATen's. */
    static void refused(NDManager m, String context, Supplier<?> ember, String torch, Object... args) {
        String aten = atenMessage(assertThrows(IllegalStateException.class, () -> Torch.call(m, torch, args), context + ": libtorch accepts it"));
        RuntimeException e = assertThrows(RuntimeException.class, ember::get, context + ": libtorch says '" + aten + "'");
        assertTrue(e.getMessage().contains(aten), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'");
    }

    /** The text libtorch put after "Error: " in a failure, i.e. ATen's own message. */
    private static String atenMessage(RuntimeException e) {
        String m = e.getMessage();
        int i = m.lastIndexOf("Error: ");
        String msg = i < 0 ? m : m.substring(i + 7);
        int nl = msg.indexOf('\n');
        return nl < 0 ? msg : msg.substring(0, nl);
    }
}
