package dev.ember.logging;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CompileContextTest {
    @Test
    void compileIdPrintsAsPyTorchDoes() {
        assertEquals("0/1", CompileId.of(0, 1).toString());
        assertEquals("0/1_2", new CompileId(0, 1, 2).toString());
        assertEquals("0_1_2", new CompileId(0, 1, 2).directoryName());
        assertEquals(new CompileId(4, 0, 1), CompileId.of(4, 0).withAttempt(1));
        assertThrows(IllegalArgumentException.class, () -> new CompileId(-1, 0, 0));
    }

    @Test
    void scopesNestAndRestoreAndStayOnTheirThread() throws Exception {
        assertNull(CompileContext.current());
        try (var outer = CompileContext.enter(CompileId.of(0, 0))) {
            try (var inner = CompileContext.enter(CompileId.of(1, 0))) {
                assertEquals(CompileId.of(1, 0), CompileContext.current());
                AtomicReference<CompileId> other = new AtomicReference<>(CompileId.of(9, 9));
                Thread t = new Thread(() -> other.set(CompileContext.current()));
                t.start();
                t.join();
                assertNull(other.get(), "another thread is not inside this compilation");
            }
            assertEquals(CompileId.of(0, 0), CompileContext.current());
        }
        assertNull(CompileContext.current());
    }
}
