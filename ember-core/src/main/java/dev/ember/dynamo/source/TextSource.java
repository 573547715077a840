package dev.ember.dynamo.source;

/** The text of the CharSequence at {@code base} (a StringBuilder passed in): {@code L['sb'].toString()}. */
public record TextSource(Source base) implements Source {
    @Override
    public String name() { return base.name() + ".toString()"; }

    @Override
    public String shortName() { return base.shortName() + ".toString()"; }

    @Override
    public Object read(Object[] frame) { return base.read(frame) instanceof CharSequence cs ? cs.toString() : null; }
}
