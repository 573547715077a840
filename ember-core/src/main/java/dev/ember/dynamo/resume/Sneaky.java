package dev.ember.dynamo.resume;

/** Rethrows what generated or resumed user code threw, unchanged (checked exceptions included), as eager code would. */
public final class Sneaky {
    private Sneaky() {}

    @SuppressWarnings("unchecked")
    public static <T extends Throwable> RuntimeException rethrow(Throwable t) throws T {
        throw (T) t;
    }
}
