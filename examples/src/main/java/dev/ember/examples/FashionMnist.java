package dev.ember.examples;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Fashion-MNIST (Zalando's 28×28 grey clothing images, 10 classes: 60,000 to train, 10,000 to
 * test) from Debian's {@code dataset-fashion-mnist} package, which {@code ./ember example} installs
 * on first use. Images come as float32 in [0, 1], normalized by the training set's mean and standard
 * deviation; labels as int64.
 */
public final class FashionMnist {
    /** Where Debian's package puts the files. */
    public static final Path DIR = Path.of(System.getenv().getOrDefault("EMBER_FASHION_MNIST", "/usr/share/datasets/fashion-mnist"));

    public static final String[] CLASSES = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};

    /** The training set's pixel mean and standard deviation (of values in [0, 1]). */
    static final float MEAN = 0.2860f, STD = 0.3530f;

    /** Images {@code [n, 1, 28, 28]} and labels {@code [n]}. */
    public record Split(Tensor images, Tensor labels) {
        public int size() { return labels.size(0); }
    }

    private FashionMnist() {}

    public static Split train() throws IOException { return load("train"); }

    public static Split test() throws IOException { return load("t10k"); }

    /** Whether the files are there. */
    public static boolean available() { return Files.exists(DIR.resolve("train-images-idx3-ubyte.gz")); }

    static Split load(String prefix) throws IOException {
        Path images = DIR.resolve(prefix + "-images-idx3-ubyte.gz"), labels = DIR.resolve(prefix + "-labels-idx1-ubyte.gz");
        if (!Files.exists(images) || !Files.exists(labels)) {
            throw new IOException("Fashion-MNIST is not in " + DIR + ": install Debian's dataset-fashion-mnist (./ember example installs it), "
                    + "or set EMBER_FASHION_MNIST to a folder with " + images.getFileName() + " and " + labels.getFileName());
        }
        byte[] px = readIdx(images, 0x803);
        byte[] lb = readIdx(labels, 0x801);
        int n = lb.length;
        if (px.length != n * 28 * 28) throw new IOException(images + ": " + px.length + " pixels for " + n + " labels (expected 784 per image)");
        float[] x = new float[px.length];
        for (int i = 0; i < x.length; i++) x[i] = ((px[i] & 0xff) / 255f - MEAN) / STD;
        long[] y = new long[n];
        for (int i = 0; i < n; i++) y[i] = lb[i];
        return new Split(Tensor.of(x, n, 1, 28, 28), Tensor.of(y, n));
    }

    /** An IDX file's data after its header (magic, then one int per dimension), checked. */
    private static byte[] readIdx(Path file, int magic) throws IOException {
        try (InputStream raw = Files.newInputStream(file); DataInputStream in = new DataInputStream(new GZIPInputStream(raw))) {
            int m = in.readInt();
            if (m != magic) throw new IOException(file + ": not an IDX file of this kind (magic 0x" + Integer.toHexString(m) + ", expected 0x" + Integer.toHexString(magic) + ")");
            int dims = m & 0xff;
            long count = 1;
            for (int d = 0; d < dims; d++) count *= in.readInt();
            byte[] data = new byte[Math.toIntExact(count)];
            in.readFully(data);
            return data;
        }
    }

    /** Rows {@code from..to} of a split, images flattened to {@code [rows, 784]} when {@code flat}. */
    static Tensor batchImages(Split s, int from, int to, boolean flat) {
        Tensor b = s.images().narrow(0, from, to - from);
        return flat ? b.reshape(to - from, 784) : b;
    }

    static Tensor batchLabels(Split s, int from, int to) { return s.labels().narrow(0, from, to - from); }

    static boolean isInt64(Tensor t) { return t.dtype() == DType.INT64; }
}
