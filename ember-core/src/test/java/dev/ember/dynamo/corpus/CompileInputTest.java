package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input to compile gets an error that says what to do. */
class CompileInputTest {

    @Test
    void nonSerializableLambda() {
        Function<Tensor, Tensor> plain = Tensor::t;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ember.explain(plain));
        assertTrue(e.getMessage().contains("is not Serializable"), e.getMessage());
        assertTrue(e.getMessage().contains("Fn0…Fn5"), e.getMessage());
    }

    @Test
    void ordinaryClassInsteadOfALambda() {
        Fn1<Tensor, Tensor> anonymous = new Fn1<>() {
            @Override
            public Tensor apply(Tensor x) { return x.t(); }
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ember.compile(anonymous));
        assertTrue(e.getMessage().contains("is an ordinary class"), e.getMessage());
    }

    @Test
    void constructorReference() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ember.compile((Fn1<String, StringBuilder>) StringBuilder::new));
        assertTrue(e.getMessage().contains("constructor reference"), e.getMessage());
    }

    /** A class whose class file its loader will not hand out: its bytecode cannot be read. */
    public static final class Hidden {
        public static Tensor twice(Tensor x) { return x.t().t(); }

        public static Fn1<Tensor, Tensor> fn() { return Hidden::twice; }
    }

    @Test
    void classFileNotFound() throws Exception {
        String name = Hidden.class.getName();
        byte[] bytes;
        try (InputStream in = Hidden.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
            bytes = in.readAllBytes();
        }
        ClassLoader secretive = new ClassLoader(getClass().getClassLoader()) {
            @Override
            protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                if (!n.equals(name)) return super.loadClass(n, resolve);
                synchronized (getClassLoadingLock(n)) {
                    Class<?> c = findLoadedClass(n);
                    return c != null ? c : defineClass(n, bytes, 0, bytes.length);
                }
            }

            @Override
            public URL getResource(String n) { return n.endsWith("CompileInputTest$Hidden.class") ? null : super.getResource(n); }

            @Override
            public InputStream getResourceAsStream(String n) {
                try {
                    URL u = getResource(n);
                    return u == null ? null : u.openStream();
                } catch (IOException e) {
                    return null;
                }
            }
        };
        @SuppressWarnings("unchecked")
        Fn1<Tensor, Tensor> fn = (Fn1<Tensor, Tensor>) secretive.loadClass(name).getMethod("fn").invoke(null);
        Tensor x = Tensor.randn(2, 3);
        assertEquals(3, fn.apply(x).size(1), "the function itself runs");
        var compiled = Ember.compile(fn, Options.defaults());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> compiled.apply(x));
        assertTrue(e.getMessage().contains("cannot read the bytecode of"), e.getMessage());
        assertTrue(e.getMessage().contains("cannot be found through its class loader"), e.getMessage());
    }
}
