package dev.ember.inductor.cache;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * HMAC-SHA256 (RFC 2104) built on {@link MessageDigest} rather than {@code javax.crypto.Mac}: the
 * same function (the test checks it against {@code Mac} and RFC 4231's vectors), but
 * {@code Mac.getInstance} looks up the JCE provider, which cost 80–180 ms on first use in a fresh
 * JVM here, against 30–45 ms for the SHA-256 digest — and a cache hit is meant to cost ~35 ms in all.
 */
final class HmacSha256 {
    static final int LENGTH = 32;
    private static final int BLOCK = 64;

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
        MessageDigest sha = sha256();
        sha.update(innerPad);
        sha.update(data, from, to - from);
        byte[] inner = sha.digest();
        sha.update(outerPad);
        return sha.digest(inner);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256 (JCA's required algorithms), this one does not", e);
        }
    }
}
