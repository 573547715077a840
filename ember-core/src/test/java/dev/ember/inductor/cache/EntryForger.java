package dev.ember.inductor.cache;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.UnaryOperator;

/**
 * The attack the MAC stops: someone who can write a cache entry but does not have the key rewrites
 * its payload and recomputes everything an unkeyed check looks at (length and content hash). The
 * MAC stays the old one, as a forger cannot compute the new one.
 */
public final class EntryForger {
    private EntryForger() {}

    private static final int HEADER = 9 + 16 + 4;

    /** Replaces the payload of the entry at {@code entry} (its key, then the stored data) with {@code edit}'s result. */
    public static void rewrite(Path entry, UnaryOperator<byte[]> edit) throws Exception {
        byte[] file = Files.readAllBytes(entry);
        int payloadEnd = file.length - HmacSha256.LENGTH;
        byte[] payload = edit.apply(Arrays.copyOfRange(file, HEADER, payloadEnd));
        ByteBuffer forged = ByteBuffer.allocate(HEADER + payload.length + HmacSha256.LENGTH);
        forged.put(file, 0, 9).put(Hash128.of(payload, 0, payload.length)).putInt(payload.length).put(payload);
        forged.put(file, payloadEnd, HmacSha256.LENGTH);
        Files.write(entry, forged.array());
    }
}
