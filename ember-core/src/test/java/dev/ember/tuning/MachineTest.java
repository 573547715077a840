package dev.ember.tuning;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MachineTest {

    private static void cache(Path folder, int index, String level, String type, String size) throws IOException {
        Path d = Files.createDirectories(folder.resolve("index" + index));
        Files.writeString(d.resolve("level"), level + "\n");
        Files.writeString(d.resolve("type"), type + "\n");
        Files.writeString(d.resolve("size"), size + "\n");
    }

    @Test
    void readsTheDataCachesOfLinuxsCacheFolderAndSkipsTheInstructionCache(@TempDir Path dir) throws IOException {
        Path caches = dir.resolve("cache");
        cache(caches, 0, "1", "Data", "48K");
        cache(caches, 1, "1", "Instruction", "32K");
        cache(caches, 2, "2", "Unified", "2048K");
        cache(caches, 3, "3", "Unified", "307200K");
        Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"), "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t: fpu\n");
        Machine m = Machine.read(caches, cpuinfo, 2, 512);
        assertEquals(48 << 10, m.l1dBytes());
        assertEquals(2 << 20, m.l2Bytes());
        assertEquals(300L << 20, m.l3Bytes());
        assertTrue(m.cachesRead());
        assertEquals("Intel(R) Xeon(R) Processor", m.cpu());
        assertEquals("intel-r-xeon-r-processor-2t-512b-l2-2048k", m.key());
        assertEquals("48 KiB L1d, 2 MiB L2, 300 MiB L3 (read from the machine)", m.describeCaches());
    }

    @Test
    void aMissingOrUnreadableCacheFolderGivesTheDefaultsAndSaysSo(@TempDir Path dir) throws IOException {
        Machine missing = Machine.read(dir.resolve("none"), dir.resolve("no-cpuinfo"), 4, 256);
        assertFalse(missing.cachesRead());
        assertEquals(Machine.DEFAULT_L2, missing.l2Bytes());
        assertEquals(4, missing.threads());
        assertTrue(missing.describeCaches().contains("defaults"), missing.describeCaches());
        Path caches = dir.resolve("cache");
        cache(caches, 0, "1", "Data", "a lot");
        Machine garbled = Machine.read(caches, dir.resolve("no-cpuinfo"), 1, 256);
        assertFalse(garbled.cachesRead());
        assertEquals(Machine.DEFAULT_L1D, garbled.l1dBytes());
    }

    @Test
    void parsesSizesAsSysfsWritesThem() {
        assertEquals(48 << 10, Machine.parseSize("48K"));
        assertEquals(1 << 20, Machine.parseSize("1M"));
        assertEquals(1 << 20, Machine.parseSize("1024k"));
        assertEquals(512, Machine.parseSize("512"));
    }

    @Test
    void theThreadsAreTheJvms() {
        Machine m = Machine.current();
        assertEquals(Math.max(1, Runtime.getRuntime().availableProcessors()), m.threads());
        assertTrue(m.l1dBytes() > 0 && m.l2Bytes() >= m.l1dBytes(), m.describeCaches());
    }
}
