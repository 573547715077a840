package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/** Two sources held the same object when traced (the graph has one input for both), so they must again. */
public record SameObject(Source source, Source first) implements Guard {
    @Override
    public String kind() { return "DUPLICATE_INPUT"; }

    @Override
    public Object read(Object[] frame) { return new Object[] {source.read(frame), first.read(frame)}; }

    @Override
    public boolean check(Object[] frame) { return source.read(frame) == first.read(frame); }

    @Override
    public boolean test(Object value) {
        Object[] pair = (Object[]) value;
        return pair[0] == pair[1];
    }

    @Override
    public String explainFailure(Object value) { return source.name() + " is " + first.name() + " failed: they are different objects now"; }

    @Override
    public String describe() { return "DUPLICATE_INPUT: " + source.name() + " is " + first.name(); }
}
