package dev.ember.optim;

import java.util.List;
import java.util.Map;

/** The option checks torch.optim's constructors share, with their messages. */
final class Checks {
    private Checks() {}

    static void lr(double lr) {
        if (!(lr >= 0)) throw new IllegalArgumentException("Invalid learning rate: " + Py.repr(lr));
    }

    static void eps(double eps) {
        if (!(eps >= 0)) throw new IllegalArgumentException("Invalid epsilon value: " + Py.repr(eps));
    }

    static void weightDecay(double weightDecay) {
        if (!(weightDecay >= 0)) throw new IllegalArgumentException("Invalid weight_decay value: " + Py.repr(weightDecay));
    }

    static void momentum(double momentum) {
        if (!(momentum >= 0)) throw new IllegalArgumentException("Invalid momentum value: " + Py.repr(momentum));
    }

    static void betas(double beta1, double beta2) {
        if (!(beta1 >= 0 && beta1 < 1)) throw new IllegalArgumentException("Invalid beta parameter at index 0: " + Py.repr(beta1));
        if (!(beta2 >= 0 && beta2 < 1)) throw new IllegalArgumentException("Invalid beta parameter at index 1: " + Py.repr(beta2));
    }

    /** The options Adam and its variants (Adamax, NAdam, RAdam) share, checked in torch.optim's order: lr, eps, betas, weight_decay. */
    static void adamOptions(Map<String, Object> group) {
        lr((Double) group.get("lr"));
        eps((Double) group.get("eps"));
        betas(group.get("betas"));
        weightDecay((Double) group.get("weight_decay"));
    }

    /** A group's {@code betas} option, a list of two doubles. */
    static void betas(Object betas) {
        List<?> b = (List<?>) betas;
        betas((Double) b.get(0), (Double) b.get(1));
    }
}
