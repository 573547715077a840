package dev.ember.dynamo.source;

/**
 * The calling thread's value of the ThreadLocal at {@code base}: {@code G['Cfg.LOCAL'].get()}. Read
 * on each call (guards and graph inputs alike) on the thread that makes the call, as eager's
 * {@code get()} is: a compiled function run on two threads sees each thread's own value.
 */
public record ThreadLocalSource(Source base) implements Source {
    @Override
    public String name() { return base.name() + ".get()"; }

    @Override
    public Object read(Object[] frame) { return ((ThreadLocal<?>) base.read(frame)).get(); }
}
