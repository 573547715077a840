package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An element's value must not depend on whether it fell in a loop's vector part or in its scalar
 * tail. The vector part once divided by a row's sum as a multiplication by its reciprocal while the
 * tail divided: equal inputs gave outputs one bit apart, so two copies of one softmax broke an
 * argmax tie differently from eager (found by the differential fuzzer, seed 3023364).
 */
class PositionIndependentRoundingTest {

    @Test
    void equalElementsOfARowStayEqualAcrossTheVectorPartAndTheTail() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (int n : new int[] {7, 11, 13, 19, 21, 23, 37, 43, 67}) {
                Graph g = new Graph();
                Node x = g.placeholder("x", null);
                g.output(call(g, "div.Tensor", x, call(g, "sum.dim_IntList", x, new int[] {1}, true)));
                Tensor in = Tensor.full(dtype, 3.0, 2, n);
                InductorGraph compiled = Inductor.compile(new GraphModule(g), List.of(in), CompileMode.DEFAULT, null);
                double[] out = ((Tensor) compiled.run(new Object[] {in})).to(DType.FLOAT64).toDoubleArray();
                for (int i = 1; i < out.length; i++) assertEquals(out[0], out[i], 0.0, dtype + " row of " + n + ": element " + i);
            }
        }
    }
}
