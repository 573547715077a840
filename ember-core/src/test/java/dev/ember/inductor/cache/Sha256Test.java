package dev.ember.inductor.cache;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The cache's SHA-256 is the standard one: FIPS 180-4's examples, and the JDK's digest on random inputs fed in random pieces. */
class Sha256Test {
    private static String hex(String message) {
        byte[] m = message.getBytes(StandardCharsets.US_ASCII);
        return HexFormat.of().formatHex(new Sha256().update(m, 0, m.length).digest());
    }

    @Test
    void fipsExamples() {
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", hex(""));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", hex("abc"));
        assertEquals("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"));
        assertEquals("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", hex("a".repeat(1_000_000)));
    }

    @Test
    void matchesTheJdkOnEveryLengthAroundTheBlockAndPaddingEdges() throws Exception {
        Random r = new Random(11);
        for (int n = 0; n < 300; n++) {
            byte[] data = new byte[n];
            r.nextBytes(data);
            Sha256 mine = new Sha256();
            for (int at = 0; at < n; ) {
                int next = Math.min(n, at + 1 + r.nextInt(80));
                mine.update(data, at, next);
                at = next;
            }
            assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(data), mine.digest(), n + " bytes");
        }
    }
}
