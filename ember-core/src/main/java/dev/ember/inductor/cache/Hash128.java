package dev.ember.inductor.cache;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A 128-bit non-cryptographic hash (two independently seeded 64-bit lanes, murmur3's finaliser).
 * It names cache entries and tells a damaged entry from a forged one: damage fails this hash, an
 * edit made on purpose passes it (anyone can recompute an unkeyed hash) and fails the entry's MAC
 * ({@link HmacSha256}). Cheaper than SHA-256, whose first use costs ~25 ms in a fresh process.
 */
final class Hash128 {
    private Hash128() {}

    private static final long P1 = 0x9E3779B97F4A7C15L, P2 = 0xC2B2AE3D27D4EB4FL;

    static byte[] of(byte[] data, int from, int to) {
        ByteBuffer b = ByteBuffer.wrap(data, from, to - from).order(ByteOrder.LITTLE_ENDIAN);
        long h1 = 0x243F6A8885A308D3L ^ (to - from), h2 = 0x13198A2E03707344L ^ ((long) (to - from) << 32);
        while (b.remaining() >= 8) {
            long w = b.getLong();
            h1 = Long.rotateLeft(h1 ^ fmix(w), 29) * P1;
            h2 = Long.rotateLeft(h2 ^ fmix(w ^ P2), 31) * P2;
        }
        long tail = 0;
        for (int shift = 0; b.hasRemaining(); shift += 8) tail |= (b.get() & 0xffL) << shift;
        h1 = fmix(h1 ^ fmix(tail) ^ h2);
        h2 = fmix(h2 ^ fmix(tail ^ P1) ^ h1);
        return ByteBuffer.allocate(16).putLong(h1).putLong(h2).array();
    }

    private static long fmix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
