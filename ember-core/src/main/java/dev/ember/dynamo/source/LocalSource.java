package dev.ember.dynamo.source;

/** Argument {@code index} of the compiled frame (captured values come first), named as in the source code. */
public record LocalSource(int index, String localName) implements Source {
    @Override
    public String name() { return "L['" + localName + "']"; }

    @Override
    public Object read(Object[] frame) { return frame[index]; }
}
