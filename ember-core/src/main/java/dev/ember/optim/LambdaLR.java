package dev.ember.optim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;

/**
 * Sets each group's learning rate to its initial rate times a function of the epoch, as PyTorch's
 * {@code LambdaLR}: {@code lr = initial_lr * lambda(epoch)}; one function for every group, or one
 * per group. A warmup: {@code new LambdaLR(opt, e -> Math.min(1.0, (e + 1) / 100.0))}.
 */
public final class LambdaLR extends LRScheduler {
    private final List<IntToDoubleFunction> lambdas;

    public LambdaLR(Optimizer optimizer, IntToDoubleFunction lrLambda) {
        this(optimizer, java.util.Collections.nCopies(optimizer.paramGroups().size(), lrLambda));
    }

    /** One function per parameter group. */
    public LambdaLR(Optimizer optimizer, List<IntToDoubleFunction> lrLambdas) {
        super(withOnePerGroup(optimizer, lrLambdas));
        this.lambdas = List.copyOf(lrLambdas);
        initialStep();
    }

    @Override
    protected List<Double> computeLr() {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < lambdas.size(); i++) out.add(baseLrs().get(i) * lambdas.get(i).applyAsDouble(lastEpoch()));
        return out;
    }
}
