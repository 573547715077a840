package dev.ember.events;

import dev.ember.events.CompileEvent.Phase;
import dev.ember.events.CompileEvent.PhaseEnded;
import dev.ember.events.CompileEvent.PhaseStarted;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The stream of {@link CompileEvent}s. The compiler publishes each event once, where it happens;
 * whoever wants to know subscribes:
 * <pre>{@code
 * try (var s = Ember.events().subscribe(GraphBreak.class, b -> System.err.println(b.gbId() + " at " + b.userFrame()))) {
 *     f.apply(x);
 * }
 * }</pre>
 * Sinks run on the publishing thread, one after the other, in a fixed order: the standard sinks
 * first (logs, structured trace, metrics, debug folder, profiler: their {@link Provider} is listed in
 * {@code META-INF/services}, so the stages that publish never import them), then subscribers in the
 * order they subscribed. A sink that throws does not keep the others from the event: when all have
 * run, the first exception is rethrown to the publisher (later ones suppressed on it), so the
 * compile fails with it, loudly, as a misconfigured {@code EMBER_TRACE} always made it fail.
 */
public final class CompileEvents {
    /** The sinks a stage brings, in the order they must run; listed in {@code META-INF/services/dev.ember.events.CompileEvents$Provider}. */
    public interface Provider {
        List<Consumer<CompileEvent>> sinks();
    }

    /** Ends a subscription; closing it twice does nothing. */
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** Open from {@link CompileEvents#time} until closed: brackets a {@link Phase} with its two events. */
    public final class Timing implements AutoCloseable {
        private final String function;
        private final Phase phase;
        private final long start = System.nanoTime();
        private boolean closed;

        private Timing(String function, Phase phase) {
            this.function = function;
            this.phase = phase;
        }

        /** Publishes {@link PhaseEnded} with the time since the phase began (once). */
        @Override
        public void close() {
            if (closed) return;
            closed = true;
            publish(new PhaseEnded(function, phase, Duration.ofNanos(System.nanoTime() - start)));
        }
    }

    private static final class Global {
        static final CompileEvents STREAM = new CompileEvents(standardSinks());
    }

    private final List<Consumer<CompileEvent>> standard;
    private final List<Consumer<? super CompileEvent>> subscribers = new CopyOnWriteArrayList<>();

    /** A stream of its own, with no standard sinks (for tests of the stream). */
    public CompileEvents() {
        this(List.of());
    }

    private CompileEvents(List<Consumer<CompileEvent>> standard) {
        this.standard = List.copyOf(standard);
    }

    /** The stream the compiler publishes to ({@code Ember.events()}). */
    public static CompileEvents global() {
        return Global.STREAM;
    }

    private static List<Consumer<CompileEvent>> standardSinks() {
        List<Provider> providers = new ArrayList<>();
        ServiceLoader.load(Provider.class, CompileEvents.class.getClassLoader()).forEach(providers::add);
        providers.sort(Comparator.comparing(p -> p.getClass().getName()));
        List<Consumer<CompileEvent>> sinks = new ArrayList<>();
        for (Provider p : providers) sinks.addAll(p.sinks());
        return sinks;
    }

    /** Calls {@code sink} with every event from now until the subscription is closed. */
    public Subscription subscribe(Consumer<? super CompileEvent> sink) {
        Consumer<? super CompileEvent> entry = sink::accept;
        subscribers.add(entry);
        return () -> subscribers.remove(entry);
    }

    /** Calls {@code sink} with every event of {@code type} (e.g. {@code GraphBreak.class}) until the subscription is closed. */
    public <E extends CompileEvent> Subscription subscribe(Class<E> type, Consumer<? super E> sink) {
        return subscribe(e -> {
            if (type.isInstance(e)) sink.accept(type.cast(e));
        });
    }

    /**
     * Hands {@code event} to every sink in order.
     *
     * @throws RuntimeException the first a sink threw, once all have run
     */
    public void publish(CompileEvent event) {
        RuntimeException failure = null;
        for (Consumer<CompileEvent> sink : standard) failure = deliver(sink, event, failure);
        for (Consumer<? super CompileEvent> sink : subscribers) failure = deliver(sink, event, failure);
        if (failure != null) throw failure;
    }

    private static RuntimeException deliver(Consumer<? super CompileEvent> sink, CompileEvent event, RuntimeException failure) {
        try {
            sink.accept(event);
        } catch (RuntimeException e) {
            if (failure == null) return e;
            failure.addSuppressed(e);
        }
        return failure;
    }

    /**
     * Publishes {@link PhaseStarted} now and {@link PhaseEnded} when the returned timing is closed:
     * {@code try (var t = events.time("MyApp.fn", Phase.TRACING)) { ... }}.
     */
    public Timing time(String function, Phase phase) {
        publish(new PhaseStarted(function, phase));
        return new Timing(function, phase);
    }
}
