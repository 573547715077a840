package dev.ember.debug.minifier;

import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * One known bug, of the kinds real backends have, planted in {@link SeededBugBackend} on one op:
 * what the broken kernel returns instead of the right {@code result} (or that it throws).
 */
enum SeededBug {
    /** A wrong lowering: add computes a - b. */
    WRONG_ADD("aten.add.Tensor"),
    /** A view with the wrong strides: transpose reads the input as if it were already transposed and contiguous. */
    WRONG_STRIDE("aten.transpose.int"),
    /** A fused epilogue dropped: a relu that reads a GEMM's result passes it through unchanged. */
    DROPPED_EPILOGUE("aten.relu.default"),
    /** A reduction loop one short: sum along a dim skips the last element. */
    SUM_OFF_BY_ONE("aten.sum.dim_IntList"),
    /** The backend cannot compile exp (it throws while compiling). */
    CRASH_COMPILING("aten.exp.default"),
    /** The tanh kernel throws when run. */
    CRASH_RUNNING("aten.tanh.default"),
    /** NaN written into the first element of sigmoid's result. */
    NAN_INJECTED("aten.sigmoid.default"),
    /** mul's result computed in the wrong dtype (float64 for float32 inputs). */
    WRONG_DTYPE("aten.mul.Tensor"),
    /** mean forgets keepdim: [6, 1] comes out as [6], and the broadcast that follows fails. */
    WRONG_SHAPE("aten.mean.dim"),
    /** mul by a scalar uses the scalar plus one. */
    WRONG_SCALAR("aten.mul.Scalar"),
    /** softmax normalizes along dim 0 instead of the dim asked for. */
    SOFTMAX_WRONG_DIM("aten._softmax.default"),
    /** neg drops its sign. */
    NEG_IDENTITY("aten.neg.default");

    final String opName;

    SeededBug(String opName) { this.opName = opName; }

    OpOverload op() { return OpRegistry.get(opName); }

    /** Whether this node hits the bug (the epilogue bug needs the relu to read a GEMM). */
    boolean hits(Node n) {
        if (n.target() != op()) return false;
        return this != DROPPED_EPILOGUE || n.arg(0) instanceof Node in && in.target() == OpRegistry.get("aten.mm.default");
    }

    /** What the broken kernel gives for a node that {@link #hits}; {@code result} is the right answer. */
    Object broken(List<Object> args, Object result) {
        Tensor r = (Tensor) result;
        return switch (this) {
            case WRONG_ADD -> ((Tensor) args.get(0)).sub((Tensor) args.get(1));
            case WRONG_STRIDE -> ((Tensor) args.get(0)).contiguous().view(r.shape());
            case DROPPED_EPILOGUE -> args.get(0);
            case SUM_OFF_BY_ONE -> {
                Tensor x = (Tensor) args.get(0);
                int dim = (int) (long) (Long) ((List<?>) args.get(1)).get(0);
                yield x.narrow(dim, 0, x.size(dim) - 1).sum(dim, (Boolean) args.get(2));
            }
            case CRASH_COMPILING -> throw new AssertionError("compile-time bug reached at run time");
            case CRASH_RUNNING -> throw new ArrayIndexOutOfBoundsException("seeded bug: the tanh kernel read past the end of its input");
            case NAN_INJECTED -> {
                Tensor c = r.clone();
                c.view(-1).select(0, 0).fill_(Double.NaN);
                yield c;
            }
            case WRONG_DTYPE -> r.to(DType.FLOAT64);
            case WRONG_SHAPE -> r.squeeze(-1);
            case WRONG_SCALAR -> ((Tensor) args.get(0)).mul(((Number) args.get(1)).doubleValue() + 1);
            case SOFTMAX_WRONG_DIM -> ((Tensor) args.get(0)).softmax(0);
            case NEG_IDENTITY -> ((Tensor) args.get(0)).clone();
        };
    }
}
