package dev.ember.nn;

import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** parameters_to_vector and vector_to_parameters: the flat vector as libtorch joins it, its gradient, the way back, PyTorch's errors. */
class ConvertParametersTest {

    @Test
    void parametersBecomeOneVectorAndBack() {
        Tensor.manualSeed(10);
        Sequential model = new Sequential(new Linear(3, 4), new ReLU(), new Conv1d(2, 2, 3));
        List<Parameter> params = model.parameters();
        Tensor flat = ConvertParameters.parametersToVector(params);
        assertClose(flat, Torch.call("torch.cat([t.reshape(-1) for t in a])", params.stream().map(p -> (Tensor) p.detach()).toList()), "parameters_to_vector");
        // recorded: the gradient of a function of the vector reaches each parameter
        List<Tensor> grads = Autograd.grad(List.of(flat.mul(flat).sum()), List.copyOf(params), null, false, false, false);
        for (int i = 0; i < params.size(); i++) assertClose(grads.get(i), Torch.toNd(params.get(i).detach().mul(2.0)), "gradient of parameter " + i);

        Tensor halved = flat.detach().mul(0.5);
        Tensor first = params.getFirst();
        ConvertParameters.vectorToParameters(halved, params);
        assertSame(first, model.parameters().getFirst(), "the module keeps its own parameters");
        assertClose(ConvertParameters.parametersToVector(params), Torch.toNd(halved), "vector_to_parameters");
        assertNull(params.getFirst().gradFn(), "written outside autograd");
    }

    @Test
    void refusals() {
        List<Parameter> params = new Linear(3, 4).parameters();   // 16 elements
        assertEquals("vector_to_parameters: the vector has 15 elements but the parameters have 16",
                assertThrows(IllegalArgumentException.class, () -> ConvertParameters.vectorToParameters(Tensor.zeros(15), params)).getMessage());
        assertEquals("vector_to_parameters: expected a 1-d vector, got 2-d [4, 4]",
                assertThrows(IllegalArgumentException.class, () -> ConvertParameters.vectorToParameters(Tensor.zeros(4, 4), params)).getMessage());
        assertEquals("vector_to_parameters: expected torch.Tensor, but got: NoneType",
                assertThrows(IllegalArgumentException.class, () -> ConvertParameters.vectorToParameters(null, params)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConvertParameters.parametersToVector(List.of()));
        assertEquals(DType.FLOAT32, ConvertParameters.parametersToVector(params).dtype());
    }
}
