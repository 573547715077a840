package dev.ember.events;

import dev.ember.events.CompileEvent.CacheMiss;
import dev.ember.events.CompileEvent.Phase;
import dev.ember.events.CompileEvent.PhaseEnded;
import dev.ember.events.CompileEvent.PhaseStarted;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stream itself: order, subscriptions, typed subscriptions, timings, and what a throwing sink does. */
class CompileEventsTest {
    private final CompileEvents events = new CompileEvents();
    private final List<String> seen = new ArrayList<>();

    @Test
    void sinksRunInSubscriptionOrderUntilClosed() {
        var a = events.subscribe(e -> seen.add("a"));
        var b = events.subscribe(e -> seen.add("b"));
        events.publish(new CacheMiss("k"));
        a.close();
        a.close();
        events.publish(new CacheMiss("k"));
        b.close();
        events.publish(new CacheMiss("k"));
        assertEquals(List.of("a", "b", "b"), seen);
    }

    @Test
    void aTypedSubscriptionSeesItsTypeOnly() {
        try (var s = events.subscribe(PhaseStarted.class, p -> seen.add(p.phase().text()))) {
            events.publish(new CacheMiss("k"));
            events.publish(new PhaseStarted("MyApp.fn", Phase.RESUME_CODEGEN));
        }
        assertEquals(List.of("resume codegen"), seen);
    }

    @Test
    void aTimingBracketsItsPhase() {
        List<CompileEvent> got = new ArrayList<>();
        try (var s = events.subscribe(got::add)) {
            try (var t = events.time("MyApp.fn", Phase.BACKEND)) {
                assertEquals(List.of(new PhaseStarted("MyApp.fn", Phase.BACKEND)), got);
            }
        }
        assertEquals(2, got.size());
        PhaseEnded end = assertInstanceOf(PhaseEnded.class, got.get(1));
        assertEquals(Phase.BACKEND, end.phase());
        assertTrue(!end.elapsed().isNegative());
    }

    /** Every sink sees the event; then the first failure reaches the publisher, later ones suppressed on it. */
    @Test
    void aThrowingSinkFailsThePublishAfterTheOthersRan() {
        IllegalStateException first = new IllegalStateException("first");
        IllegalArgumentException second = new IllegalArgumentException("second");
        events.subscribe(e -> { throw first; });
        events.subscribe(e -> seen.add("ran"));
        events.subscribe(e -> { throw second; });
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> events.publish(new CacheMiss("k")));
        assertSame(first, thrown);
        assertEquals(List.of(second), List.of(thrown.getSuppressed()));
        assertEquals(List.of("ran"), seen);
    }
}
