package dev.ember.dynamo.corpus;

import dev.ember.tensor.Tensor;

import java.util.List;

/** User classes whose instance methods the corpus compiles (bound and unbound method references). */
final class Blocks {
    private Blocks() {}

    /** Fields: an int (guarded by value) and a tensor (a graph input read from {@code L['self'].bias}). */
    static final class Block {
        final int dims;
        final Tensor bias;

        Block(int dims, Tensor bias) {
            this.dims = dims;
            this.bias = bias;
        }

        Tensor forward(Tensor x) {
            Tensor y = Tensor.cat(List.of(x, bias), 0);
            for (int i = 0; i < dims; i++) y = y.unsqueeze(0);
            return y;
        }

        Tensor twice(Tensor x) { return finalStep(helper(x)); }

        private Tensor helper(Tensor x) { return x.t(); }

        final Tensor finalStep(Tensor x) { return x.t().flatten(); }
    }

    /** Virtual dispatch: the receiver's class decides, and TYPE_MATCH guards it. */
    abstract static class Op {
        abstract Tensor apply(Tensor x);

        Tensor applyTwice(Tensor x) { return apply(apply(x)); }
    }

    static final class Transpose extends Op {
        @Override
        Tensor apply(Tensor x) { return x.t(); }
    }

    static final class AddDim extends Op {
        @Override
        Tensor apply(Tensor x) { return x.unsqueeze(0); }
    }

    interface Shaper {
        Tensor shape(Tensor x);

        default Tensor shapeTwice(Tensor x) { return shape(shape(x)); }
    }

    record Flattener(int start) implements Shaper {
        @Override
        public Tensor shape(Tensor x) { return x.flatten(start, -1); }
    }

    static Tensor dispatch(Op op, Tensor x) { return op.applyTwice(x); }

    static Tensor defaultMethod(Shaper s, Tensor x) { return s.shapeTwice(x); }
}
