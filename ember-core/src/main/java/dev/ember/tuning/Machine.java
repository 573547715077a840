package dev.ember.tuning;

import jdk.incubator.vector.FloatVector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * What the kernels size themselves by, read from the machine they run on: the threads the JVM may
 * use ({@link Runtime#availableProcessors}, which honours container limits and
 * {@code -XX:ActiveProcessorCount=N}, the JVM's counterpart of {@code torch.set_num_threads}), the
 * width of the preferred float vector, and the data-cache sizes of one core, from Linux's
 * {@code /sys/devices/system/cpu/cpu0/cache}. Where that folder is missing or unreadable (another
 * OS, a restricted container) the caches are {@link #DEFAULT_L1D} / {@link #DEFAULT_L2} /
 * {@link #DEFAULT_L3}, common x86 server sizes, and {@link #cachesRead} says so.
 *
 * <p>{@link #key} names this machine for {@link KernelTuning}'s file: a tuning measured on one CPU,
 * thread count or vector width is not used on another.
 *
 * @param cpu         the CPU's model name ({@code /proc/cpuinfo}), or {@code os.arch} when unknown
 * @param threads     threads the kernels split work over
 * @param vectorBits  bits of {@code FloatVector.SPECIES_PREFERRED} (512 with AVX-512, 256 with AVX2)
 * @param l1dBytes    one core's level-1 data cache
 * @param l2Bytes     one core's level-2 cache
 * @param l3Bytes     the level-3 cache (shared), 0 when the machine has none
 * @param cachesRead  whether the sizes came from the machine (false: the defaults)
 */
public record Machine(String cpu, int threads, int vectorBits, long l1dBytes, long l2Bytes, long l3Bytes, boolean cachesRead) {

    public static final long DEFAULT_L1D = 32 << 10, DEFAULT_L2 = 1 << 20, DEFAULT_L3 = 32 << 20;

    private static final class Holder {
        static final Machine CURRENT = read(Path.of("/sys/devices/system/cpu/cpu0/cache"), Path.of("/proc/cpuinfo"),
                Math.max(1, Runtime.getRuntime().availableProcessors()), FloatVector.SPECIES_PREFERRED.vectorBitSize());
    }

    /** This JVM's machine (read once). */
    public static Machine current() { return Holder.CURRENT; }

    /**
     * The machine described by a Linux cache folder ({@code index*} subfolders with {@code level},
     * {@code type} and {@code size} files) and a cpuinfo file; missing or unparsable files give the defaults.
     */
    static Machine read(Path cacheFolder, Path cpuinfo, int threads, int vectorBits) {
        long l1d = 0, l2 = 0, l3 = 0;
        try (Stream<Path> entries = Files.list(cacheFolder)) {
            for (Path index : entries.filter(p -> p.getFileName().toString().startsWith("index")).sorted().toList()) {
                String type = readTrimmed(index.resolve("type"));
                if (type.equals("Instruction")) continue;
                long size = parseSize(readTrimmed(index.resolve("size")));
                switch (readTrimmed(index.resolve("level"))) {
                    case "1" -> l1d = size;
                    case "2" -> l2 = size;
                    case "3" -> l3 = size;
                    default -> { }
                }
            }
        } catch (IOException | RuntimeException e) {
            l1d = 0;
            l2 = 0;
        }
        boolean read = l1d > 0 && l2 > 0;
        return new Machine(cpuName(cpuinfo), threads, vectorBits, read ? l1d : DEFAULT_L1D, read ? l2 : DEFAULT_L2,
                read ? l3 : DEFAULT_L3, read);
    }

    /** {@code "48K"}, {@code "2048K"}, {@code "1M"}, {@code "307200K"} or plain bytes, as sysfs writes them. */
    static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        if (t.isEmpty()) throw new NumberFormatException("empty cache size");
        long unit = switch (t.charAt(t.length() - 1)) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> 1;
        };
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        return Long.parseLong(digits) * unit;
    }

    private static String readTrimmed(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String cpuName(Path cpuinfo) {
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse(System.getProperty("os.arch"));
        } catch (IOException | RuntimeException e) {
            return System.getProperty("os.arch");
        }
    }

    /**
     * The name of this machine's tuning file: CPU model, threads, vector width and L2 size, e.g.
     * {@code intel-r-xeon-r-processor-2t-512b-l2-2048k}.
     */
    public String key() {
        String model = cpu.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
        return model + "-" + threads + "t-" + vectorBits + "b-l2-" + (l2Bytes >> 10) + "k";
    }

    /** {@code "48 KiB L1d, 2 MiB L2, 300 MiB L3 (read from the machine)"}. */
    public String describeCaches() {
        return size(l1dBytes) + " L1d, " + size(l2Bytes) + " L2, " + size(l3Bytes) + " L3"
                + (cachesRead ? " (read from the machine)" : " (defaults: the machine's sizes could not be read)");
    }

    private static String size(long bytes) {
        return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}
