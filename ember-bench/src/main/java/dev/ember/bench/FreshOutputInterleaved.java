package dev.ember.bench;

import dev.ember.tensor.*;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import java.util.*;
import java.util.function.Supplier;

/**
 * A new output against one released by a {@link TensorScope}, the variants alternated call by call in
 * one JVM so that a loaded host's drift hits each alike (JMH runs them minutes apart); prints each
 * variant's median and quartiles. {@code java <JMH's flags> -cp ember-bench/target/benchmarks.jar
 * dev.ember.bench.FreshOutputInterleaved <rounds>}; docs/benchmarks.md has the figures.
 */
public final class FreshOutputInterleaved {
    static Object sink;
    public static void main(String[] args) {
        Tensor a = Tensor.randn(4 * 1024 * 1024), b = Tensor.randn(4 * 1024 * 1024);
        Tensor x = Tensor.randn(1024, 4096), w = Tensor.randn(4096), bias = Tensor.randn(4096);
        Fn1<Tensor, Tensor> softmax = Ember.compile((Tensor t) -> t.softmax(-1));
        Fn3<Tensor, Tensor, Tensor, Tensor> layerNorm = Ember.compile((Tensor t, Tensor ww, Tensor bb) -> dev.ember.nn.F.layerNorm(t, new int[] {4096}, ww, bb, 1e-5));
        Map<String, Supplier<Object>> v = new LinkedHashMap<>();
        v.put("add4M fresh", () -> a.add(b));
        v.put("add4M scoped", () -> { try (TensorScope s = TensorScope.open()) { return a.add(b); } });
        v.put("softmax compiled fresh", () -> softmax.apply(x));
        v.put("softmax compiled scoped", () -> { try (TensorScope s = TensorScope.open()) { return softmax.apply(x); } });
        v.put("layerNorm compiled fresh", () -> layerNorm.apply(x, w, bias));
        v.put("layerNorm compiled scoped", () -> { try (TensorScope s = TensorScope.open()) { return layerNorm.apply(x, w, bias); } });
        Map<String, List<Double>> times = new LinkedHashMap<>();
        int rounds = Integer.parseInt(args[0]);
        for (int r = 0; r < rounds; r++) {
            for (var e : v.entrySet()) {
                for (int i = 0; i < 5; i++) {
                    long t0 = System.nanoTime();
                    sink = e.getValue().get();
                    double ms = (System.nanoTime() - t0) / 1e6;
                    if (r >= rounds / 4) times.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(ms);
                }
            }
        }
        for (var e : times.entrySet()) {
            List<Double> l = e.getValue(); Collections.sort(l);
            System.out.printf("%-28s median %.3f ms  p25 %.3f  p75 %.3f  (n=%d)%n", e.getKey(), l.get(l.size() / 2), l.get(l.size() / 4), l.get(3 * l.size() / 4), l.size());
        }
        System.out.println("uninitialized arrays available: " + Allocation.uninitializedArraysAvailable());
    }
}
