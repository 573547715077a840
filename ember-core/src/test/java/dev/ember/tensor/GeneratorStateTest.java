package dev.ember.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ember.Ember;
import dev.ember.Fn1;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A generator's state kept and put back (PyTorch's {@code Generator.get_state/set_state} and
 * {@code torch.get_rng_state/set_rng_state}): the draws after a restore are the draws that followed
 * the saved state, through eager ops, dropout and a compiled function, for the global generator
 * and a generator of one's own, also after a round trip through a checkpoint file.
 */
class GeneratorStateTest {

    @Test
    void theGlobalGeneratorDrawsTheSameNumbersAfterARestore() {
        Tensor.manualSeed(7);
        Tensor.randn(5);
        Tensor state = Tensor.getRngState();
        Tensor first = Tensor.randn(4, 3), firstMask = dev.ember.nn.F.dropout(Tensor.ones(64), 0.5, true);
        Tensor.randn(100);   // the stream moves on
        Tensor.setRngState(state);
        assertArrayEquals(first.toFloatArray(), Tensor.randn(4, 3).toFloatArray());
        assertArrayEquals(firstMask.toFloatArray(), dev.ember.nn.F.dropout(Tensor.ones(64), 0.5, true).toFloatArray());
        assertFalse(Arrays.equals(first.toFloatArray(), Tensor.randn(4, 3).toFloatArray()), "without a restore the stream goes on");
    }

    @Test
    void aGeneratorsStateMovesToAnotherGeneratorThroughACheckpointFile(@TempDir Path dir) throws Exception {
        Generator g = new Generator(11);
        Tensor.randn(g, 3);
        Path file = dir.resolve("rng.safetensors");
        SafeTensors.save(Map.of("rng", g.getState()), file);
        Tensor expected = Tensor.randn(g, 2, 5);
        Generator other = new Generator(999).setState(SafeTensors.load(file).get("rng"));
        assertArrayEquals(expected.toFloatArray(), Tensor.randn(other, 2, 5).toFloatArray());
        assertArrayEquals(g.getState().toLongArray(), other.getState().toLongArray(), "both at the same place in the stream");
    }

    @Test
    void aCompiledFunctionDrawsAgainWhatItDrewAfterTheState() {
        Fn1<Tensor, Tensor> f = Ember.compile((Tensor x) -> x.add(Tensor.randn(x.shape())).mul(2.0));
        Tensor x = Tensor.ones(3, 4);
        Tensor.manualSeed(3);
        f.apply(x);   // compiles
        Tensor state = Tensor.getRngState();
        Tensor once = f.apply(x);
        Tensor.setRngState(state);
        assertArrayEquals(once.toFloatArray(), f.apply(x).toFloatArray());
    }

    @Test
    void aStateThatIsNotOneIsRefusedInWords() {
        Generator g = new Generator(1);
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class, () -> g.setState(Tensor.zeros(2)));
        assertEquals("Generator.setState: expected the int64 tensor of 2 elements that getState() returns, got a float32 tensor of shape [2]",
                wrong.getMessage());
        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class, () -> g.setState(Tensor.ofLongs(1, 2, 3)));
        assertEquals("Generator.setState: expected the int64 tensor of 2 elements that getState() returns, got a int64 tensor of shape [3]",
                shape.getMessage());
        assertThrows(IllegalArgumentException.class, () -> g.setState(Tensor.ofLongs(1, -4)));
        assertThrows(IllegalArgumentException.class, () -> g.setState(null));
        assertArrayEquals(new long[] {1, 0}, g.getState().toLongArray(), "a refused state changes nothing");
    }
}
