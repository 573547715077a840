package dev.ember.dynamo;

/**
 * How the values live at a graph break (locals, then the operand stack) are rebuilt after the
 * graph runs. A value held in several places is rebuilt once, so they keep sharing one object.
 */
record LiveValues(OutputRebuilder[] rebuilders, int[] sameAs) {
    Object[] rebuild(Object[] graphOutputs, Object[] frame) {
        Object[] out = new Object[rebuilders.length];
        for (int i = 0; i < out.length; i++) out[i] = sameAs[i] == i ? rebuilders[i].rebuild(graphOutputs, frame) : out[sameAs[i]];
        return out;
    }
}
