package dev.ember.inductor.cache;

/**
 * HMAC-SHA256 (RFC 2104) on {@link Sha256} rather than {@code javax.crypto.Mac}: the same function
 * (the test checks it against {@code Mac} and RFC 4231's vectors), without the JCA's provider
 * lookup, which costs more on first use in a fresh JVM than a whole cache hit (see {@link Sha256};
 * {@code Mac.getInstance} alone took 80–180 ms here).
 */
final class HmacSha256 {
    static final int LENGTH = Sha256.LENGTH;
    private static final int BLOCK = Sha256.BLOCK;

    private final byte[] innerPad = new byte[BLOCK], outerPad = new byte[BLOCK];

    /** @param key at most one SHA-256 block (64 bytes); the cache's keys are 32 */
    HmacSha256(byte[] key) {
        if (key.length > BLOCK) throw new IllegalArgumentException("HMAC key of " + key.length + " bytes; at most " + BLOCK);
        for (int i = 0; i < BLOCK; i++) {
            byte k = i < key.length ? key[i] : 0;
            innerPad[i] = (byte) (k ^ 0x36);
            outerPad[i] = (byte) (k ^ 0x5c);
        }
    }

    /** The MAC of {@code data[from, to)}. */
    byte[] of(byte[] data, int from, int to) {
        byte[] inner = new Sha256().update(innerPad, 0, BLOCK).update(data, from, to).digest();
        return new Sha256().update(outerPad, 0, BLOCK).update(inner, 0, inner.length).digest();
    }
}
