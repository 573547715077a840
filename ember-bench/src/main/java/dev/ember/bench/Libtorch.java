package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

import java.util.Random;

/** The peer: libtorch eager through DJL's PyTorch engine, in the same JVM as Ember. */
final class Libtorch {
    private Libtorch() {}

    static NDManager manager() {
        System.setProperty("ai.djl.offline", "true");
        System.setProperty("ai.djl.pytorch.num_threads", String.valueOf(Runtime.getRuntime().availableProcessors()));
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        return NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch");
    }

    /** A float32 array of the same values as {@code data}. */
    static NDArray of(NDManager m, float[] data, int... shape) {
        long[] s = new long[shape.length];
        for (int i = 0; i < shape.length; i++) s[i] = shape[i];
        return m.create(data, new Shape(s));
    }

    static float[] randn(long seed, int n) {
        Random r = new Random(seed);
        float[] d = new float[n];
        for (int i = 0; i < n; i++) d[i] = (float) r.nextGaussian();
        return d;
    }
}
