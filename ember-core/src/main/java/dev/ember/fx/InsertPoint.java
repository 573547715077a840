package dev.ember.fx;

/**
 * Where a graph's builders insert new nodes, while it is open; closing it restores the previous
 * point. Meant for try-with-resources:
 * <pre>{@code
 * try (var at = graph.insertingBefore(relu)) {
 *     Node t = graph.callFunction(op, x);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface InsertPoint extends AutoCloseable {
    @Override
    void close();
}
