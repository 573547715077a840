package dev.ember.cli;

import dev.ember.Ember;

import java.io.PrintStream;

/** Prints what Ember runs on: the facts a bug report needs. */
final class Doctor {
    private Doctor() {}

    static int run(String[] args, PrintStream out) {
        if (args.length > 0) throw new IllegalArgumentException("takes no arguments, got " + String.join(" ", args));
        Runtime rt = Runtime.getRuntime();
        out.printf("%-10s %s (%s)%n", "java", System.getProperty("java.version"), System.getProperty("java.home"));
        out.printf("%-10s %s %s%n", "os", System.getProperty("os.name"), System.getProperty("os.arch"));
        out.printf("%-10s %d%n", "cores", rt.availableProcessors());
        out.printf("%-10s %d MiB max heap%n", "memory", rt.maxMemory() >> 20);
        out.printf("%-10s %s%n", "gemm", Ember.gemmBackend());
        return 0;
    }
}
