package dev.ember.dynamo.corpus;

/** Static configuration read by corpus programs: a final constant (folded) and a mutable field (guarded). */
final class Config {
    static final int DIM = 1;
    static int dim = 0;

    private Config() {}
}
