package dev.ember.dynamo;

/**
 * How the values live at a graph break (locals, then the operand stack) are rebuilt after the
 * graph runs. A value held in several places is one rebuilder, so they keep sharing one object.
 */
record LiveValues(OutputRebuilder[] rebuilders) {
    Object[] rebuild(Rebuild r) {
        Object[] out = new Object[rebuilders.length];
        for (int i = 0; i < out.length; i++) out[i] = r.value(rebuilders[i]);
        return out;
    }
}
