package dev.ember.debug.fuzz;

import java.util.List;
import java.util.Map;

/**
 * A Java expression over tensor variables: {@code template} with {@code $0}, {@code $1}, … standing
 * for {@code args}. One generic form (rather than a record per op) because the shrinker only needs
 * what every op has in common: which variables it reads, and a way to read others instead.
 */
public record Call(String template, List<Var> args) {
    public Call {
        args = List.copyOf(args);
    }

    public static Call of(String template, Var... args) { return new Call(template, List.of(args)); }

    public String java() {
        String s = template;
        for (int i = 0; i < args.size(); i++) s = s.replace("$" + i, args.get(i).name());
        return s;
    }

    /** The same call reading {@code sub.get(v)} wherever it read {@code v}. */
    public Call rewire(Map<Var, Var> sub) {
        return new Call(template, args.stream().map(v -> sub.getOrDefault(v, v)).toList());
    }
}
