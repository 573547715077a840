package dev.ember.inductor.cache;

/**
 * SHA-256 (FIPS 180-4), for {@link HmacSha256}. The JDK's {@code MessageDigest} computes the same
 * (the test checks it on random inputs and on FIPS's examples), but its first use in a fresh JVM
 * initializes the JCA's security providers: 35–50 ms on an idle machine here, and 65–350 ms with
 * other jobs running, against 5–25 ms for this class on a 10 KB entry, and a whole cache hit is
 * meant to cost ~35 ms. A cache hit is the one place Ember needs a digest, so it needs no providers.
 */
final class Sha256 {
    static final int LENGTH = 32;
    static final int BLOCK = 64;

    private static final int[] K = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

    private final int[] state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    private final int[] w = new int[64];
    /** Bytes of an unfinished block, waiting for the next update or the padding. */
    private final byte[] pending = new byte[BLOCK];
    private int pendingLength;
    private long length;

    Sha256 update(byte[] data, int from, int to) {
        length += to - from;
        int i = from;
        if (pendingLength > 0) {
            int n = Math.min(BLOCK - pendingLength, to - i);
            System.arraycopy(data, i, pending, pendingLength, n);
            pendingLength += n;
            i += n;
            if (pendingLength < BLOCK) return this;
            compress(pending, 0);
            pendingLength = 0;
        }
        for (; to - i >= BLOCK; i += BLOCK) compress(data, i);
        System.arraycopy(data, i, pending, 0, to - i);
        pendingLength = to - i;
        return this;
    }

    /** The digest of everything updated; this object is spent. */
    byte[] digest() {
        long bits = length * 8;
        byte[] padding = new byte[(pendingLength < BLOCK - 8 ? BLOCK : 2 * BLOCK) - pendingLength];
        padding[0] = (byte) 0x80;
        for (int i = 0; i < 8; i++) padding[padding.length - 1 - i] = (byte) (bits >>> (8 * i));
        update(padding, 0, padding.length);
        byte[] out = new byte[LENGTH];
        for (int i = 0; i < LENGTH; i++) out[i] = (byte) (state[i / 4] >>> (24 - 8 * (i % 4)));
        return out;
    }

    private void compress(byte[] b, int off) {
        for (int t = 0; t < 16; t++) {
            int p = off + 4 * t;
            w[t] = b[p] << 24 | (b[p + 1] & 0xff) << 16 | (b[p + 2] & 0xff) << 8 | (b[p + 3] & 0xff);
        }
        for (int t = 16; t < 64; t++) {
            int s0 = Integer.rotateRight(w[t - 15], 7) ^ Integer.rotateRight(w[t - 15], 18) ^ (w[t - 15] >>> 3);
            int s1 = Integer.rotateRight(w[t - 2], 17) ^ Integer.rotateRight(w[t - 2], 19) ^ (w[t - 2] >>> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        int a = state[0], b1 = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            int t1 = h + (Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            int t2 = (Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22)) + ((a & b1) ^ (a & c) ^ (b1 & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b1;
            b1 = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b1;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}
