package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The module forms of activations and paddings F already had (SELU, CELU, GLU, Softsign,
 * Tanhshrink, LogSigmoid, Hardsigmoid, Softmin, Unflatten, ZeroPad2d, ConstantPad1d/2d,
 * ReflectionPad1d/2d, ReplicationPad1d/2d) against libtorch's ops, with PyTorch's reprs, and a
 * Sequential of them compiled equal to eager.
 */
class SimpleModulesTest {
    private final Random rng = new Random(8);

    @Test
    void activationsMatchLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 4).mul(3.0);
        assertClose(new SELU().forward(x), Torch.call("torch.selu(a)", x), "SELU");
        assertClose(new CELU(0.5).forward(x), Torch.call("torch.celu(a, 0.5)", x), "CELU");
        assertClose(new GLU(1).forward(x), Torch.call("torch.glu(a, 1)", x), "GLU");
        assertClose(new Softsign().forward(x), Torch.call("a / (1 + a.abs())", x), "Softsign");
        assertClose(new Tanhshrink().forward(x), Torch.call("a - a.tanh()", x), "Tanhshrink");
        assertClose(new LogSigmoid().forward(x), Torch.call("ops.aten.log_sigmoid(a)", x), "LogSigmoid");
        assertClose(new Hardsigmoid().forward(x), Torch.call("ops.aten.hardsigmoid(a)", x), "Hardsigmoid");
        assertClose(new Softmin(1).forward(x), Torch.call("torch.softmax(-a, 1)", x), "Softmin");
        assertEquals("CELU(alpha=0.5)", new CELU(0.5).toString());
        assertEquals("GLU(dim=-1)", new GLU().toString());
        assertEquals("Softmin(dim=1)", new Softmin(1).toString());
        assertEquals("SELU()", new SELU().toString());
    }

    @Test
    void unflattenAndPaddingsMatchLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 12);
        assertClose(new Unflatten(1, 3, -1).forward(x), Torch.call("a.unflatten(1, [3, -1])", x), "Unflatten");
        assertEquals("Unflatten(dim=1, unflattened_size=(3, -1))", new Unflatten(1, 3, -1).toString());
        Tensor img = Inputs.randn(rng, DType.FLOAT32, 1, 2, 4, 5), seq = Inputs.randn(rng, DType.FLOAT32, 2, 3, 6);
        assertClose(new ZeroPad2d(1, 2, 0, 3).forward(img), Torch.call("torch.constant_pad_nd(a, [1, 2, 0, 3], 0.0)", img), "ZeroPad2d");
        assertClose(new ConstantPad1d(2, 3.5).forward(seq), Torch.call("torch.constant_pad_nd(a, [2, 2], 3.5)", seq), "ConstantPad1d");
        assertClose(new ConstantPad2d(new int[] {1, 0, 2, 1}, -1).forward(img), Torch.call("torch.constant_pad_nd(a, [1, 0, 2, 1], -1.0)", img), "ConstantPad2d");
        assertClose(new ReflectionPad1d(2, 1).forward(seq), Torch.call("ops.aten.reflection_pad1d(a, [2, 1])", seq), "ReflectionPad1d");
        assertClose(new ReflectionPad2d(1).forward(img), Torch.call("ops.aten.reflection_pad2d(a, [1, 1, 1, 1])", img), "ReflectionPad2d");
        assertClose(new ReplicationPad1d(3, 0).forward(seq), Torch.call("ops.aten.replication_pad1d(a, [3, 0])", seq), "ReplicationPad1d");
        assertClose(new ReplicationPad2d(2, 1, 0, 2).forward(img), Torch.call("ops.aten.replication_pad2d(a, [2, 1, 0, 2])", img), "ReplicationPad2d");
        assertEquals("ZeroPad2d((1, 2, 0, 3))", new ZeroPad2d(1, 2, 0, 3).toString());
        assertEquals("ConstantPad1d(padding=(2, 2), value=3.5)", new ConstantPad1d(2, 3.5).toString());
        assertEquals("ReflectionPad2d((1, 1, 1, 1))", new ReflectionPad2d(1).toString());
        assertThrows(IllegalArgumentException.class, () -> new ReflectionPad2d(1, 2));
    }

    @Test
    void aSequentialOfThemCompilesToEager() {
        Sequential net = new Sequential(new ReflectionPad2d(1), new Flatten(2, 3), new SELU(), new Unflatten(2, 6, 7), new GLU(1), new Softmin(-1));
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 4, 4, 5);
        Fn1<Tensor, Tensor> compiled = Ember.compile(net);
        assertClose(compiled.apply(x), net.forward(x), "compiled");
    }
}
