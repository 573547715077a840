package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code getClass()} of a module or a user object is its exact class, a constant of the trace
 * (Dynamo's {@code type(self).__name__}): an input's is guarded by its TYPE_MATCH, so another
 * class recompiles; an object the trace made has the class it made. No graph break.
 */
class GetClassCaptureTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static class Shape { double scale() { return 2; } }

    static final class Square extends Shape { @Override double scale() { return 3; } }

    static Tensor byClassName(Object o, Tensor x) {
        String name = o.getClass().getSimpleName();
        Tensor y = x.add(1);
        if (name.equals("Square")) y = y.mul(10);
        if (o.getClass() == Shape.class) y = y.sub(5);
        if (new Square().getClass() == Square.class) y = y.neg();
        return y;
    }

    @Test
    void classOfAUserObjectIsAGuardedConstant() {
        Fn2<Object, Tensor, Tensor> f = Ember.compile(GetClassCaptureTest::byClassName);
        Tensor x = Tensor.randn(3);
        for (Object o : new Object[] {new Shape(), new Square(), new Shape(), new Square()}) {
            assertArrayEquals(byClassName(o, x).toDoubleArray(), f.apply(o, x).toDoubleArray(), 0, o.getClass().getSimpleName());
        }
        var e = Ember.explain((Fn2<Object, Tensor, Tensor>) GetClassCaptureTest::byClassName).with(new Square(), x);
        assertEquals(0, e.graphBreakCount(), e.toString());
    }

    /** A module that names itself, as a layer's error messages do. */
    static final class Named extends Module {
        final Module inner;

        Named(Module inner) { this.inner = inner; }

        @Override
        public Tensor forward(Tensor x) {
            return inner.getClass().getSimpleName().equals("ReLU") ? inner.forward(x).add(1) : inner.forward(x);
        }
    }

    @Test
    void classOfAModuleIsAGuardedConstant() {
        Tensor x = Tensor.randn(2, 4);
        for (Module inner : new Module[] {new ReLU(), new Linear(4, 4)}) {
            Named m = new Named(inner);
            Fn1<Tensor, Tensor> f = Ember.compile(m);
            assertArrayEquals(m.forward(x).toDoubleArray(), f.apply(x).toDoubleArray(), 1e-6);
            var e = Ember.explain((Fn1<Tensor, Tensor>) m::forward).with(x);
            assertEquals(0, e.graphBreakCount(), e.toString());
        }
    }
}
