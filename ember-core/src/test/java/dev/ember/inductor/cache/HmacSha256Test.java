package dev.ember.inductor.cache;

import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The cache's HMAC-SHA256 is the standard one: RFC 4231's vectors, and javax.crypto's Mac on random data. */
class HmacSha256Test {
    @Test
    void rfc4231TestCases1And2() {
        byte[] key1 = new byte[20];
        java.util.Arrays.fill(key1, (byte) 0x0b);
        byte[] data1 = "Hi There".getBytes(StandardCharsets.US_ASCII);
        assertEquals("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                HexFormat.of().formatHex(new HmacSha256(key1).of(data1, 0, data1.length)));
        byte[] data2 = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
        assertEquals("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                HexFormat.of().formatHex(new HmacSha256("Jefe".getBytes(StandardCharsets.US_ASCII)).of(data2, 0, data2.length)));
    }

    @Test
    void matchesJavaxCryptoOnSlicesOfRandomData() throws Exception {
        Random r = new Random(7);
        for (int n : new int[] {0, 1, 63, 64, 65, 1000, 100_000}) {
            byte[] key = new byte[32], data = new byte[n + 10];
            r.nextBytes(key);
            r.nextBytes(data);
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(data, 5, n);
            assertArrayEquals(mac.doFinal(), new HmacSha256(key).of(data, 5, 5 + n), n + " bytes");
        }
    }
}
