package dev.ember.tensor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A deterministic end for the tensors made inside it, as DJL's {@code NDManager} gives one: every
 * storage allocated on this thread while the scope is open (eager ops' results, compiled graphs'
 * outputs, their intermediates) is released when it closes, unless {@link #keep kept}. A released
 * storage's array goes back to a pool that the next allocation of the same dtype and size takes,
 * while it is still in cache — so a loop that runs its body in a scope stops paying for fresh memory:
 *
 * <pre>{@code
 * for (Tensor batch : batches) {
 *     try (TensorScope scope = TensorScope.open()) {
 *         Tensor y = model.forward(batch);
 *         total = total.add(scope.keep(y.sum()));   // or read what you need before the scope closes
 *     }
 * }
 * }</pre>
 *
 * <p>Safe by construction: a released storage is marked like a reduce-overhead output that was
 * overwritten, so any later access through any tensor or view of it throws, saying which scope
 * released it and how to keep it — a stale value is never read. Only arrays Ember allocated itself
 * are recycled, never one a caller passed in. Scopes nest: {@link #keep} hands a storage to the
 * enclosing scope (or to no scope, when this one is the outermost), and closing an outer scope
 * releases what inner scopes kept into it. A scope belongs to the thread that opened it.
 *
 * <p>Compilation inside a scope is not tracked: constants a compiler makes (folded weights, say)
 * belong to the compiled graph, not to the scope whose call happened to compile it.
 */
public final class TensorScope implements AutoCloseable {
    private static final ThreadLocal<TensorScope> CURRENT = new ThreadLocal<>();
    private static final ThreadLocal<int[]> PAUSED = ThreadLocal.withInitial(() -> new int[1]);

    private final TensorScope parent;
    private final Thread owner = Thread.currentThread();
    private final String openedAt;
    /** What this scope releases when it closes, in allocation order. */
    private final Set<Storage> owned = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Storage> order = new ArrayList<>();
    private boolean closed;

    private TensorScope(TensorScope parent) {
        this.parent = parent;
        StackTraceElement caller = StackWalker.getInstance().walk(s -> s.skip(2).findFirst().map(StackWalker.StackFrame::toStackTraceElement).orElse(null));
        this.openedAt = caller == null ? "?" : caller.getClassName() + "." + caller.getMethodName() + "(" + caller.getFileName() + ":" + caller.getLineNumber() + ")";
    }

    /** Opens a scope on this thread, nested in the one already open (if any). */
    public static TensorScope open() {
        TensorScope s = new TensorScope(CURRENT.get());
        CURRENT.set(s);
        return s;
    }

    /** The innermost open scope of this thread, or null. */
    public static TensorScope current() { return CURRENT.get(); }

    /**
     * Lets {@code t}'s storage (and so every view of it) outlive this scope: it moves to the
     * enclosing scope, or to none. Returns {@code t}.
     */
    public <T extends Tensor> T keep(T t) {
        requireOpen("keep");
        Storage s = t.storage();
        if (owned.remove(s)) {
            order.remove(s);
            if (parent != null) parent.adopt(s);
        }
        return t;
    }

    /**
     * Lets {@code t}'s storage (and so every view of it) outlive every scope, whichever thread
     * made it: for long-lived state that a step happens to create inside a scope. Ember calls it for
     * what outlives a step by nature (an optimizer's state, a leaf's accumulated {@code .grad}, a
     * {@code Parameter}'s values); call it for your own such state, e.g. a running total created
     * lazily inside a scoped loop. Unlike {@link #keep}, it needs no scope at hand. Returns {@code t}.
     */
    public static <T extends Tensor> T escape(T t) {
        if (t != null) t.storage().escapeScopes();
        return t;
    }

    /** Keeps every tensor of {@code ts} (see {@link #keep(Tensor)}). */
    public void keep(Tensor... ts) {
        for (Tensor t : ts) keep(t);
    }

    /**
     * Releases every storage this scope holds: each is marked (an access throws) and its array
     * pooled for the next allocation of its size. Inner scopes still open are closed first.
     */
    @Override
    public void close() {
        if (closed) return;
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a TensorScope must be closed by the thread that opened it (" + owner.getName()
                    + "), not by " + Thread.currentThread().getName());
        }
        TensorScope inner = CURRENT.get();
        while (inner != null && inner != this) {
            inner.close();
            inner = CURRENT.get();
        }
        closed = true;
        CURRENT.set(parent);
        String where = openedAt;
        java.util.function.Supplier<String> why = () -> "this tensor's storage was released when the TensorScope opened at " + where
                + " closed, and its memory may now hold another tensor. Call scope.keep(tensor) before the scope closes to use it afterwards";
        // last allocated first into the pool's stack, so the next scope takes the arrays in the order this one made them
        for (Storage s : order) {
            if (s.release(why)) Allocation.release(s.dtype(), s.rawData());
        }
        owned.clear();
        order.clear();
    }

    /** Runs {@code body} with tracking off: what it allocates belongs to no scope (compilers' constants). */
    public static <T> T untracked(java.util.function.Supplier<T> body) {
        int[] paused = PAUSED.get();
        paused[0]++;
        try {
            return body.get();
        } finally {
            paused[0]--;
        }
    }

    /** Called for every storage Ember allocates: the innermost open scope of this thread takes it. */
    static void track(Storage s) {
        TensorScope scope = CURRENT.get();
        if (scope != null && PAUSED.get()[0] == 0) scope.adopt(s);
    }

    private void adopt(Storage s) {
        if (owned.add(s)) order.add(s);
    }

    private void requireOpen(String what) {
        if (closed) throw new IllegalStateException("TensorScope." + what + ": the scope opened at " + openedAt + " is closed");
    }

    @Override
    public String toString() { return "TensorScope(opened at " + openedAt + ", " + owned.size() + " storage(s)" + (closed ? ", closed" : "") + ")"; }
}
