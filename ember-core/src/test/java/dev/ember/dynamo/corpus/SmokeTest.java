package dev.ember.dynamo.corpus;

import dev.ember.dynamo.CompileCounter;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SmokeTest {
    static Tensor fn(Tensor x, Tensor y) {
        Tensor a = x.transpose(0, 1);
        Tensor b = Tensor.cat(List.of(a, y), 0);
        for (int i = 0; i < 3; i++) b = b.unsqueeze(0).squeeze(0);
        return b.view(-1);
    }

    @Test
    void endToEnd() {
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(SmokeTest::fn, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(2, 3);
        Tensor out = f.apply(x, y);
        assertTrue(out.sameData(fn(x, y)));
        assertEquals(1, cc.frameCount());
        System.out.println(cc.opCount());
        System.out.println(Ember.explain((Fn2<Tensor, Tensor, Tensor>) SmokeTest::fn).with(x, y));
        f.apply(x, y);
        assertEquals(1, cc.frameCount());
        f.apply(Tensor.randn(3, 6), y);
        assertEquals(2, cc.frameCount());
    }
}
