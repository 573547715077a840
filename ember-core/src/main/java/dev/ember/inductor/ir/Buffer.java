package dev.ember.inductor.ir;

import dev.ember.tensor.DType;
import dev.ember.tensor.SymInt;

/**
 * A piece of memory the compiled graph reads or writes: a graph input, a value computed by a
 * kernel, or the tensor an extern kernel returned. {@link #aliasOf} is set when the scheduler makes
 * a kernel write in place into another buffer (an epilogue over a GEMM output).
 */
public final class Buffer {
    public enum Kind {
        /** The storage of graph input {@code inputIndex}; its base offset is known only at run time. */
        INPUT,
        /** Written by a generated kernel. */
        COMPUTED,
        /** Returned by an extern (eager) kernel; its offset is known only at run time. */
        EXTERN
    }

    private final int id;
    private final Kind kind;
    private final DType dtype;
    private final SymInt size;
    private final int inputIndex;
    private Buffer aliasOf;

    public Buffer(int id, Kind kind, DType dtype, SymInt size, int inputIndex) {
        this.id = id;
        this.kind = kind;
        this.dtype = dtype;
        this.size = size;
        this.inputIndex = inputIndex;
    }

    public int id() { return id; }

    public Kind kind() { return kind; }

    public DType dtype() { return dtype; }

    /** Elements needed (for computed buffers: the contiguous size of the value). */
    public SymInt size() { return size; }

    public int inputIndex() { return inputIndex; }

    /** The buffer whose memory this one really is (itself unless written in place into another). */
    public Buffer storage() { return aliasOf == null ? this : aliasOf.storage(); }

    public void aliasTo(Buffer target) { this.aliasOf = target; }

    /** Whether the base offset is a run-time value rather than 0. */
    public boolean hasRuntimeOffset() { return storage().kind != Kind.COMPUTED; }

    /** {@code in0}, {@code buf3}, {@code ext5}: the variable naming it in generated code. */
    public String name() {
        Buffer s = storage();
        return switch (s.kind) {
            case INPUT -> "in" + s.inputIndex;
            case COMPUTED -> "buf" + s.id;
            case EXTERN -> "ext" + s.id;
        };
    }

    @Override
    public String toString() { return name(); }
}
