package dev.ember.dynamo.source;

import dev.ember.dynamo.resume.ResumedIterator;

/**
 * What a resumed iterator at {@code iterator} iterates, or how far it has gone:
 * {@code L['it'].iterable()}, {@code L['it'].position()}, {@code L['it'].last_returned()}.
 */
public record IteratorPartSource(Source iterator, Part part) implements Source {
    public enum Part { ITERABLE, POSITION, LAST_RETURNED }

    @Override
    public String name() { return iterator.name() + "." + part.name().toLowerCase() + "()"; }

    @Override
    public String shortName() { return iterator.shortName() + "." + part.name().toLowerCase() + "()"; }

    @Override
    public Object read(Object[] frame) {
        if (!(iterator.read(frame) instanceof ResumedIterator<?> it)) return null;
        return switch (part) {
            case ITERABLE -> it.iterable();
            case POSITION -> it.position();
            case LAST_RETURNED -> it.lastReturned();
        };
    }
}
