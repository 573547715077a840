package dev.ember.logging;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonTest {
    @Test
    void writesLikePythonsJsonDumps() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "dynamo_start");
        m.put("n", 3);
        m.put("t", 0.25);
        m.put("whole", 2.0);
        m.put("ok", true);
        m.put("none", null);
        m.put("list", List.of(1, 2));
        assertEquals("{\"name\": \"dynamo_start\", \"n\": 3, \"t\": 0.25, \"whole\": 2.0, \"ok\": true, \"none\": null, \"list\": [1, 2]}",
                JsonWriter.write(m));
        assertEquals("1795317584440828.5", JsonWriter.write(1795317584440828.5), "no exponent in the plain range");
        assertEquals("1.0E-7", JsonWriter.write(1e-7));
    }

    @Test
    void escapesEverythingJsonRequires() {
        String nasty = "quote \" backslash \\ newline \n tab \t cr \r bell \u0007 nul \u0000 sep \u2028 é ✓";
        String json = JsonWriter.write(nasty);
        assertEquals("\"quote \\\" backslash \\\\ newline \\n tab \\t cr \\r bell \\u0007 nul \\u0000 sep \\u2028 é ✓\"", json);
        assertEquals(nasty, JsonReader.parse(json));
    }

    @Test
    void roundTripsNestedValues() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stack", List.of(Map.of("line", 7L, "name", "MyApp.fn"), Map.of("line", -1L, "name", "<init>")));
        m.put("sizes", Map.of("x", List.of(3L, 4L)));
        m.put("pi", 3.14159);
        m.put("big", Long.MAX_VALUE);
        m.put("empty", Map.of());
        m.put("nothing", new ArrayList<>());
        assertEquals(m, JsonReader.parse(JsonWriter.write(m)));
        assertEquals(List.of(1L, "a", false), JsonReader.parse(" [ 1 , \"a\" ,\nfalse ] "));
        assertEquals(-1.5e-3, JsonReader.parse("-1.5E-3"));
        assertEquals("A/", JsonReader.parse("\"\\u0041\\/\""));
    }

    @Test
    void readerRejectsBadJsonWithTheColumn() {
        for (String bad : Arrays.asList("{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "\"unterminated", "\"bad \\q escape\"", "01x", "{} extra",
                "tru", "\"raw\nnewline\"", "-", "1.", "{1: 2}", "")) {
            var e = assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("bad JSON at column "), e.getMessage());
        }
        var notObject = assertThrows(IllegalArgumentException.class, () -> JsonReader.parseObject("[1]"));
        assertEquals("expected a JSON object, got an array", notObject.getMessage());
    }

    @Test
    void writerRejectsWhatJsonCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(new Object()));
        assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(Map.of(1, 2)));
    }
}
