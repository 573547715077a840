package dev.ember.examples;

import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.List;

/** Tensors in five minutes: creation, broadcasting, type promotion, views, reductions, errors. */
public final class QuickStart {
    private QuickStart() {}

    public static void main(String[] args) {
        Tensor.manualSeed(0);
        Tensor x = Tensor.tensor(new float[][] {{1, 2, 3}, {4, 5, 6}});
        System.out.println("x = " + x);
        System.out.println("x + [10, 20, 30]      = " + x.add(Tensor.of(10f, 20f, 30f)));        // broadcasting
        System.out.println("x.sum(1, keepdim)     = " + x.sum(1, true));
        System.out.println("softmax over rows     = " + F.softmax(x, -1));
        System.out.println("x.t() shares storage  : " + (x.t().storage() == x.storage()));
        System.out.println("int32 * 1.5 → " + Tensor.tensor(new int[] {1, 2}).mul(1.5).dtype());     // type promotion
        System.out.println("cat → " + Tensor.cat(List.of(x, x), 0).meta().describe());
        System.out.println("x.to(f64).mean()      = " + x.to(DType.FLOAT64).mean());
        try {
            x.matmul(x);
        } catch (IllegalArgumentException e) {
            System.out.println("x @ x fails: " + e.getMessage());
        }
    }
}
