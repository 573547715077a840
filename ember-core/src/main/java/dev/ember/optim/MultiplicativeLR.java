package dev.ember.optim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;

/**
 * Multiplies each group's current learning rate by a function of the epoch at every step after the
 * first, as PyTorch's {@code MultiplicativeLR}: {@code lr_e = lr_(e-1) * lambda(e)}.
 */
public final class MultiplicativeLR extends LRScheduler {
    private final List<IntToDoubleFunction> lambdas;

    public MultiplicativeLR(Optimizer optimizer, IntToDoubleFunction lrLambda) {
        this(optimizer, java.util.Collections.nCopies(optimizer.paramGroups().size(), lrLambda));
    }

    /** One function per parameter group. */
    public MultiplicativeLR(Optimizer optimizer, List<IntToDoubleFunction> lrLambdas) {
        super(withOnePerGroup(optimizer, lrLambdas));
        this.lambdas = List.copyOf(lrLambdas);
        initialStep();
    }

    @Override
    protected List<Double> computeLr() {
        List<Double> lrs = groupLrs();
        if (lastEpoch() == 0) return lrs;
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < lambdas.size(); i++) out.add(lrs.get(i) * lambdas.get(i).applyAsDouble(lastEpoch()));
        return out;
    }
}
