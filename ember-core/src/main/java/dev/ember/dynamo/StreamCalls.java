package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.CollectorVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.PipelineVariable;
import dev.ember.dynamo.variables.PipelineVariable.Kind;
import dev.ember.dynamo.variables.PipelineVariable.Step;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collector;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * {@code java.util.stream} and {@code Optional} while tracing: a stream over a tracked list, set,
 * map view or array ({@code list.stream()}, {@code Stream.of}, {@code Arrays.stream},
 * {@code IntStream.range}, {@code Stream.concat}) is a {@link PipelineVariable}; {@code map},
 * {@code filter}, {@code mapToInt}, {@code flatMap}, {@code sorted}, {@code limit}, … add steps
 * ({@code sorted} of values known while tracing, by natural or reverse order); a terminal operation ({@code reduce},
 * {@code toList}, {@code collect(Collectors.toList())} and {@code toSet()}, {@code sum}, {@code count},
 * {@code forEach}, {@code anyMatch}, {@code findFirst}, …) pulls the items through the steps one
 * by one, as Java's sequential streams do, tracing each lambda call, so tensor ops in the lambdas
 * become graph nodes. Operations not listed break the graph with their name.
 */
final class StreamCalls {
    private StreamCalls() {}

    /** The collectors the trace knows, one shared instance each: {@code Collectors.toList()} in the trace returns it, {@code collect} recognizes it. */
    static final Collector<?, ?, ?> TO_LIST = Collectors.toList();
    static final Collector<?, ?, ?> TO_UNMODIFIABLE_LIST = Collectors.toUnmodifiableList();
    static final Collector<?, ?, ?> TO_SET = Collectors.toSet();

    private static final String REUSED = "stream has already been operated upon or closed";

    // ------------------------------------------------------------------ sources

    /** {@code c.stream()} on a tracked list, set or map view: the items are read when a terminal operation runs, as Java's streams bind late. */
    static PipelineVariable streamOf(VariableTracker container) { return PipelineVariable.over(container, Kind.STREAM); }

    /** A static JDK method that makes a stream, an optional or a collector the trace knows; null for any other. */
    static VariableTracker invokeStatic(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, List<VariableTracker> args) {
        boolean varargs = type.parameterCount() == 1 && type.parameterType(0).isArray();
        if (owner == Stream.class && name.equals("of")) return PipelineVariable.of(varargs ? Containers.itemsOf(ctx, args.getFirst()) : args, Kind.STREAM);
        if (owner == Stream.class && name.equals("empty")) return PipelineVariable.of(List.of(), Kind.STREAM);
        if ((owner == Stream.class || owner == IntStream.class || owner == LongStream.class || owner == DoubleStream.class) && name.equals("concat")) {
            // the two streams are pulled one after the other, lazily, as a flatMap over them
            for (VariableTracker a : args) {
                if (!(a instanceof PipelineVariable q) || q.kind().isOptional()) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Stream.concat of " + a.describe() + " (streams made in the trace are traced)");
                }
                if (q.isUsed()) throw raise(ctx, new IllegalStateException(REUSED), "Stream.concat()");
                q.markUsed();
            }
            Kind k = streamKind(owner);
            return PipelineVariable.of(args, Kind.STREAM).then(new Step("concat", null, 0, Kind.STREAM), k);
        }
        if ((owner == IntStream.class || owner == LongStream.class || owner == DoubleStream.class) && name.equals("of")) {
            return PipelineVariable.of(varargs ? Containers.itemsOf(ctx, args.getFirst()) : args, streamKind(owner));
        }
        if ((owner == IntStream.class || owner == LongStream.class) && (name.equals("range") || name.equals("rangeClosed"))) {
            long from = number(ctx, args.get(0), name).longValue(), to = number(ctx, args.get(1), name).longValue() + (name.equals("rangeClosed") ? 1 : 0);
            List<VariableTracker> items = new ArrayList<>();
            for (long i = from; i < to; i++) items.add(ConstantVariable.of(owner == IntStream.class ? (Object) (int) i : (Object) i));
            return PipelineVariable.of(items, streamKind(owner));
        }
        if ((owner == Stream.class || owner == IntStream.class || owner == LongStream.class || owner == DoubleStream.class) && name.equals("iterate")
                && args.size() == 3) {
            return PipelineVariable.unsized(iterated(ctx, streamKind(owner), args.get(0), args.get(1), args.get(2)), streamKind(owner));
        }
        if ((owner == Stream.class || owner == IntStream.class || owner == LongStream.class || owner == DoubleStream.class) && name.equals("iterate")
                && args.size() == 2) {
            if (isNull(args.get(1))) throw raise(ctx, new NullPointerException(), owner.getSimpleName() + ".iterate(seed, null)");
            return PipelineVariable.iterated(args.get(0), args.get(1), streamKind(owner));
        }
        if ((owner == Stream.class || owner == IntStream.class || owner == LongStream.class || owner == DoubleStream.class) && name.equals("generate")) {
            if (isNull(args.getFirst())) throw raise(ctx, new NullPointerException(), owner.getSimpleName() + ".generate(null)");
            return PipelineVariable.generated(args.getFirst(), streamKind(owner));
        }
        if (owner == Arrays.class && name.equals("stream") && args.size() == 1 && args.getFirst() instanceof ArrayVariable a) {
            Class<?> c = a.componentType();
            Kind kind = c == int.class ? Kind.INT_STREAM : c == long.class ? Kind.LONG_STREAM : c == double.class ? Kind.DOUBLE_STREAM
                    : c.isPrimitive() ? null : Kind.STREAM;
            if (kind != null) return PipelineVariable.over(a, kind);
        }
        if (owner == Optional.class) {
            switch (name) {
                case "of" -> {
                    if (isNull(args.getFirst())) throw raise(ctx, new NullPointerException(), "Optional.of(null)");
                    return PipelineVariable.optional(args.getFirst(), Kind.OPTIONAL);
                }
                case "ofNullable" -> { return PipelineVariable.optional(isNull(args.getFirst()) ? null : args.getFirst(), Kind.OPTIONAL); }
                case "empty" -> { return PipelineVariable.optional(null, Kind.OPTIONAL); }
                default -> { }
            }
        }
        if (owner == Collectors.class && args.isEmpty() && name.equals("toList")) return ConstantVariable.of(TO_LIST);
        if (owner == Collectors.class && args.isEmpty() && name.equals("toUnmodifiableList")) return ConstantVariable.of(TO_UNMODIFIABLE_LIST);
        if (owner == Collectors.class && args.isEmpty() && name.equals("toSet")) return ConstantVariable.of(TO_SET);
        if (owner == Collectors.class && name.equals("joining") && args.size() <= 3 && args.size() != 2) {
            // delimiter, prefix, suffix: the texts Java's joining collector takes (CharSequences known while tracing)
            String[] parts = {"", "", ""};
            for (int i = 0; i < args.size(); i++) {
                if (isNull(args.get(i))) throw raise(ctx, new NullPointerException(), "Collectors.joining(null)");
                parts[i] = Indy.text(ctx, args.get(i), java.lang.constant.ConstantDescs.CD_Object, "Collectors.joining() with");
            }
            return new CollectorVariable("joining", ConstantVariable.of(List.of(parts)));
        }
        if (owner == Collectors.class && name.equals("toMap") && args.size() >= 2 && args.size() <= 4) {
            // key mapper, value mapper, merge function (none: a duplicate key throws), map supplier (none: HashMap::new)
            for (VariableTracker a : args) if (isNull(a)) throw raise(ctx, new NullPointerException(), "Collectors.toMap(…, null, …)");
            List<VariableTracker> parts = new ArrayList<>(args);
            while (parts.size() < 4) parts.add(ConstantVariable.of(null));
            return new CollectorVariable("toMap", new ListVariable(parts, false, null));
        }
        if (owner == Collectors.class && args.isEmpty() && name.equals("counting")) return new CollectorVariable("counting", null);
        if (owner == Collectors.class && name.equals("groupingBy") && args.size() <= 3) {
            for (VariableTracker a : args) if (isNull(a)) throw raise(ctx, new NullPointerException(), "Collectors.groupingBy(…, null, …)");
            VariableTracker downstream = args.size() >= 2 ? args.getLast() : ConstantVariable.of(TO_LIST), factory = args.size() == 3 ? args.get(1) : ConstantVariable.NULL;
            return new CollectorVariable("groupingBy", new ListVariable(List.of(args.getFirst(), downstream, factory), false, null));
        }
        if (owner == Collectors.class && args.size() == 1 && name.equals("partitioningBy")) {
            if (isNull(args.getFirst())) throw raise(ctx, new NullPointerException(), "Collectors.partitioningBy(null)");
            return new CollectorVariable("partitioningBy", args.getFirst());
        }
        if (owner == Collectors.class && (args.size() == 2 && (name.equals("partitioningBy") || name.equals("mapping") || name.equals("filtering"))
                || args.size() == 1 && DOWNSTREAM_OF_FUNCTION.contains(name))) {
            // a collector around the program's functions (and a downstream collector): Stream.collect runs it in the trace
            for (VariableTracker a : args) if (isNull(a)) throw raise(ctx, new NullPointerException(), "Collectors." + name + "(…, null, …)");
            return new CollectorVariable(name, new ListVariable(args, false, null));
        }
        return null;
    }

    // ------------------------------------------------------------------ methods

    static VariableTracker method(TraceContext ctx, PipelineVariable p, String name, List<VariableTracker> args) {
        if (p.kind().isOptional()) return optionalMethod(ctx, p, name, args);
        if (p.isUsed()) throw raise(ctx, new IllegalStateException(REUSED), p.describe() + "." + name + "()");
        Kind k = p.kind();
        switch (name) {
            case "map", "filter", "peek", "takeWhile", "dropWhile" -> { return p.then(new Step(name, args.getFirst(), 0, k), k); }
            case "mapToInt" -> { return p.then(new Step(name, args.getFirst(), 0, k), Kind.INT_STREAM); }
            case "mapToLong" -> { return p.then(new Step(name, args.getFirst(), 0, k), Kind.LONG_STREAM); }
            case "mapToDouble" -> { return p.then(new Step(name, args.getFirst(), 0, k), Kind.DOUBLE_STREAM); }
            case "mapToObj" -> { return p.then(new Step(name, args.getFirst(), 0, k), Kind.STREAM); }
            case "boxed" -> { return p.then(new Step(name, null, 0, k), Kind.STREAM); }
            case "flatMap" -> { return p.then(new Step(name, args.getFirst(), 0, k), k); }
            case "sorted" -> { return p.then(new Step(name, args.isEmpty() ? ConstantVariable.of(null) : args.getFirst(), 0, k), k); }
            case "asLongStream" -> { return p.then(new Step(name, null, 0, k), Kind.LONG_STREAM); }
            case "asDoubleStream" -> { return p.then(new Step(name, null, 0, k), Kind.DOUBLE_STREAM); }
            case "limit", "skip" -> {
                long n = number(ctx, args.getFirst(), name).longValue();
                if (n < 0) throw raise(ctx, new IllegalArgumentException(Long.toString(n)), "Stream." + name + "(" + n + ")");
                return p.then(new Step(name, null, n, k), k);
            }
            case "sequential", "unordered", "onClose" -> {
                if (!name.equals("onClose")) return p.then(new Step("sequential", null, 0, k), k);
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Stream.onClose() on " + p.describe());
            }
            default -> { }
        }
        p.markUsed();
        return switch (name) {
            case "forEach", "forEachOrdered" -> {
                pull(ctx, p, v -> {
                    call(ctx, "consumer", k, args.getFirst(), v);
                    return true;
                });
                yield null;
            }
            case "toList" -> {
                List<VariableTracker> items = all(ctx, p);
                yield ListVariable.immutable(items, dev.ember.dynamo.variables.ImmutableListKind.STREAM_TO_LIST);
            }
            case "collect" -> {
                VariableTracker c = args.getFirst();
                if (args.size() == 1 && c instanceof ConstantVariable cc && (cc.value() == TO_LIST || cc.value() == TO_UNMODIFIABLE_LIST)) {
                    List<VariableTracker> items = all(ctx, p);
                    // toUnmodifiableList's list is List.of's
                    yield cc.value() == TO_LIST ? new ListVariable(items, true, null) : ListVariable.immutable(items, dev.ember.dynamo.variables.ImmutableListKind.LIST_OF);
                }
                if (args.size() == 1 && c instanceof ConstantVariable cc && cc.value() == TO_SET) yield toSet(ctx, all(ctx, p));
                if (args.size() == 1 && c instanceof CollectorVariable cv && cv.name().equals("partitioningBy") && cv.function() instanceof ListVariable two) {
                    yield partition(ctx, p, two.items().get(0), two.items().get(1));
                }
                if (args.size() == 1 && c instanceof CollectorVariable cv && cv.name().equals("partitioningBy")) yield partition(ctx, p, cv.function());
                if (args.size() == 1 && c instanceof CollectorVariable cv && (cv.name().equals("mapping") || cv.name().equals("filtering")
                        || DOWNSTREAM_OF_FUNCTION.contains(cv.name()))) {
                    yield collectWith(ctx, p, cv);
                }
                if (args.size() == 1 && c instanceof CollectorVariable cv && cv.name().equals("joining")) yield joining(ctx, p, cv);
                if (args.size() == 1 && c instanceof CollectorVariable cv && cv.name().equals("toMap")) yield toMap(ctx, p, cv);
                if (args.size() == 1 && c instanceof CollectorVariable cv && cv.name().equals("counting")) yield ConstantVariable.of((long) all(ctx, p).size());
                if (args.size() == 1 && c instanceof CollectorVariable cv && cv.name().equals("groupingBy")) yield groupingBy(ctx, p, cv);
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Stream.collect(" + c.describe() + ") (Collectors.toList(), "
                        + "toUnmodifiableList(), toSet(), joining(…), toMap(…), counting(), groupingBy(classifier[, factory][, downstream]), "
                        + "partitioningBy(predicate[, downstream]), mapping, filtering, summing… and averaging… are traced)");
            }
            case "toArray" -> {
                if (!args.isEmpty()) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Stream.toArray(generator) (toArray() is traced)");
                yield new ArrayVariable(elementClass(k), all(ctx, p), null);
            }
            case "count" -> {
                // Java counts a stream whose size is known without running it: its map and peek functions are never called
                long known = knownCount(ctx, p);
                yield ConstantVariable.of(known >= 0 ? known : (long) all(ctx, p).size());
            }
            case "sum", "min", "max", "average", "summaryStatistics" ->
                    k == Kind.STREAM && args.size() == 1 ? minMaxBy(ctx, p, name, args.getFirst()) : numeric(ctx, p, name);
            case "reduce" -> reduce(ctx, p, args);
            case "anyMatch", "allMatch", "noneMatch" -> {
                boolean[] found = {false};
                boolean lookFor = !name.equals("allMatch");
                pull(ctx, p, v -> {
                    if (truth(ctx, call(ctx, "predicate", k, args.getFirst(), v)) == lookFor) found[0] = true;
                    return !found[0];
                });
                boolean result = name.equals("anyMatch") ? found[0] : !found[0];
                yield ConstantVariable.of(result ? 1 : 0);
            }
            case "findFirst", "findAny" -> {
                VariableTracker[] first = {null};
                pull(ctx, p, v -> {
                    first[0] = v;
                    return false;
                });
                if (first[0] != null && isNull(first[0])) throw raise(ctx, new NullPointerException(), "Stream." + name + "() of a null element");
                yield PipelineVariable.optional(first[0], optionalOf(k));
            }
            // an endless stream's iterator makes its items as they are asked for; a finite one's are all made now
            case "iterator" -> p.generator() != null && p.steps().stream().noneMatch(s -> s.op().equals("sorted")) ? pulling(ctx, p)
                    : new dev.ember.dynamo.variables.IteratorVariable(new ListVariable(all(ctx, p), false, null));
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Stream." + name + "() on " + p.describe()
                    + " (traced: map, filter, peek, takeWhile, dropWhile, mapToInt/Long/Double/Obj, boxed, flatMap, sorted, limit, skip, forEach, toList, "
                    + "collect(Collectors.toList()/toSet()/joining(…)/toMap(…)/counting()/groupingBy(…)/partitioningBy(…)/mapping(…)/filtering(…)/summing…/averaging…), "
                    + "toArray, count, sum, min, max, average, reduce, anyMatch, allMatch, noneMatch, findFirst)");
        };
    }

    private static VariableTracker optionalMethod(TraceContext ctx, PipelineVariable o, String name, List<VariableTracker> args) {
        VariableTracker value = o.items().isEmpty() ? null : o.items().getFirst();
        return switch (name) {
            case "isPresent" -> ConstantVariable.of(value != null ? 1 : 0);
            case "isEmpty" -> ConstantVariable.of(value == null ? 1 : 0);
            case "get", "getAsInt", "getAsLong", "getAsDouble", "orElseThrow" -> {
                if (name.equals("orElseThrow") && !args.isEmpty()) {
                    if (value != null) yield value;
                    throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "Optional.orElseThrow(supplier) on an empty optional");
                }
                if (value == null) throw raise(ctx, new NoSuchElementException("No value present"), "Optional." + name + "() on an empty optional");
                yield value;
            }
            case "orElse" -> value != null ? value : args.getFirst();
            // the supplier runs only when the optional is empty, as Java's: traced then, its ops in the graph
            case "orElseGet" -> value != null ? value : call(ctx, "supplier", streamOf(o.kind()), args.getFirst());
            case "map" -> {
                if (o.kind() != Kind.OPTIONAL) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "map() on " + o.describe());
                VariableTracker mapped = value == null ? null : call(ctx, "map", Kind.STREAM, args.getFirst(), value);
                yield PipelineVariable.optional(mapped == null || isNull(mapped) ? null : mapped, Kind.OPTIONAL);
            }
            case "filter" -> {
                if (o.kind() != Kind.OPTIONAL) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "filter() on " + o.describe());
                boolean keep = value != null && truth(ctx, call(ctx, "predicate", Kind.STREAM, args.getFirst(), value));
                yield keep ? o : PipelineVariable.optional(null, Kind.OPTIONAL);
            }
            case "ifPresent" -> {
                if (value != null) call(ctx, "consumer", streamOf(o.kind()), args.getFirst(), value);
                yield null;
            }
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, o.kind().type().getSimpleName() + "." + name + "() on " + o.describe()
                    + " (traced: isPresent, isEmpty, get, orElseThrow, orElse, orElseGet, ifPresent, map, filter)");
        };
    }

    // ------------------------------------------------------------------ terminal operations

    /**
     * Pulls the items through the steps, one item through every step before the next item, and
     * hands each that passes them to {@code sink}; stops when {@code sink} answers false or a limit
     * is reached (Java's short-circuit: no further item is pulled from the source).
     */
    private static void pull(TraceContext ctx, PipelineVariable p, Predicate<VariableTracker> sink) {
        pull(ctx, p, sink, () -> false);
    }

    /** {@link #pull(TraceContext, PipelineVariable, Predicate)} that also pulls no further item once {@code cancelled} (a flatMap's downstream limit). */
    private static void pull(TraceContext ctx, PipelineVariable p, Predicate<VariableTracker> sink, BooleanSupplier cancelled) {
        Iterable<VariableTracker> source = p.generator() != null ? generated(ctx, p)
                : p.items() != null ? p.items() : List.copyOf(Containers.itemsOf(ctx, p.container()));
        run(ctx, source, p.steps(), sink, cancelled);
    }

    /**
     * The iterator of {@code Stream.generate} or a two-argument {@code Stream.iterate} (through any
     * steps but sorted): each item taken through the steps when the program asks for it, as Java's
     * stream iterator does (an endless stream cannot be made whole first). The steps' state (limit,
     * skip, takeWhile counts) lives as long as the iterator.
     */
    private static dev.ember.dynamo.variables.IteratorVariable pulling(TraceContext ctx, PipelineVariable p) {
        List<VariableTracker> made = new ArrayList<>();
        java.util.Iterator<VariableTracker> source = generated(ctx, p).iterator();
        List<Step> steps = p.steps();
        long[] seen = new long[steps.size()];
        boolean[] ended = {false};
        return dev.ember.dynamo.variables.IteratorVariable.pulling(made, () -> {
            if (ended[0] || limitReached(steps, seen, 0)) {
                ended[0] = true;
                return false;
            }
            if (!push(ctx, steps, seen, 0, source.next(), v -> made.add(v), () -> false)) ended[0] = true;
            return true;
        });
    }

    /**
     * The items of {@code Stream.generate(supplier)}: the supplier traced once per item pulled, as
     * Java calls it only when the next item is asked for (a limit of 3 calls it 3 times). Of
     * {@code Stream.iterate(seed, f)}: the seed, then {@code f} of the item before, traced as each
     * item is pulled, as Java's iterator applies it (a limit of 3 applies it twice).
     */
    private static Iterable<VariableTracker> generated(TraceContext ctx, PipelineVariable p) {
        String what = p.seed() != null ? "Stream.iterate()" : "Stream.generate()";
        return () -> new java.util.Iterator<>() {
            private int made;
            private VariableTracker previous;

            @Override
            public boolean hasNext() { return true; }

            @Override
            public VariableTracker next() {
                if (++made > ITERATE_LIMIT) {
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, what + " made more than " + ITERATE_LIMIT
                            + " elements while tracing; bound it with a smaller limit");
                }
                if (p.seed() == null) return call(ctx, "supplier", p.kind(), p.generator());
                previous = made == 1 ? p.seed() : call(ctx, "map", p.kind(), p.generator(), previous);
                return previous;
            }
        };
    }

    /**
     * The number of items, when Java's count() knows it without running the stream: a source of
     * known size (a collection, an array, Stream.of, a range; a concat of two such) through steps
     * that keep the size or cut it by a count (map, peek, sorted, limit, skip); -1 otherwise
     * (filter, flatMap, takeWhile, iterate, generate), when count() runs every step.
     */
    private static long knownCount(TraceContext ctx, PipelineVariable p) {
        if (!p.sizedSource()) return -1;
        List<Step> steps = p.steps();
        long n;
        if (!steps.isEmpty() && steps.getFirst().op().equals("concat")) {
            n = 0;
            for (VariableTracker part : p.items()) {
                long m = knownCount(ctx, (PipelineVariable) part);
                if (m < 0) return -1;
                n += m;
            }
            steps = steps.subList(1, steps.size());
        } else {
            n = p.items() != null ? p.items().size() : Containers.itemsOf(ctx, p.container()).size();
        }
        for (Step s : steps) {
            switch (s.op()) {
                case "map", "mapToInt", "mapToLong", "mapToDouble", "mapToObj", "peek", "boxed", "sorted", "asLongStream", "asDoubleStream", "sequential" -> { }
                case "limit" -> n = Math.min(n, s.count());
                case "skip" -> n = Math.max(0, n - s.count());
                default -> { return -1; }
            }
        }
        return n;
    }

    /**
     * Runs {@code source} through {@code steps}. A {@code sorted} step is a barrier, as Java's
     * sorted() buffers: every item is pulled through the steps before it, the buffer is sorted, and
     * only then do its items go on through the steps after it.
     */
    private static void run(TraceContext ctx, Iterable<VariableTracker> source, List<Step> steps, Predicate<VariableTracker> sink, BooleanSupplier cancelled) {
        for (int b = 0; b < steps.size(); b++) {
            if (!steps.get(b).op().equals("sorted")) continue;
            List<VariableTracker> buffer = new ArrayList<>();
            run(ctx, source, steps.subList(0, b), buffer::add, cancelled);
            run(ctx, Containers.sorted(ctx, buffer, steps.get(b).function(), "Stream.sorted()"), steps.subList(b + 1, steps.size()), sink, cancelled);
            return;
        }
        long[] seen = new long[steps.size()];
        // the next item is asked for only once no limit stops the stream (a generated one is made on asking)
        for (java.util.Iterator<VariableTracker> it = source.iterator(); !cancelled.getAsBoolean() && !limitReached(steps, seen, 0) && it.hasNext(); ) {
            if (!push(ctx, steps, seen, 0, it.next(), sink, cancelled)) return;
        }
    }

    /** Takes {@code v} through the steps from {@code from} on; false when no further item may be pulled (the sink or a limit said stop). */
    private static boolean push(TraceContext ctx, List<Step> steps, long[] seen, int from, VariableTracker v, Predicate<VariableTracker> sink,
            BooleanSupplier cancelled) {
        for (int i = from; i < steps.size(); i++) {
            Step s = steps.get(i);
            switch (s.op()) {
                case "map", "mapToInt", "mapToLong", "mapToDouble", "mapToObj" -> v = call(ctx, s.op(), s.from(), s.function(), v);
                case "filter" -> {
                    if (!truth(ctx, call(ctx, "predicate", s.from(), s.function(), v))) return true;
                }
                case "peek" -> call(ctx, "consumer", s.from(), s.function(), v);
                // seen[i] = 1 once decided: takeWhile's first failing item ends the stream (no further item pulled); dropWhile's first passes all after it
                case "takeWhile" -> {
                    if (!truth(ctx, call(ctx, "predicate", s.from(), s.function(), v))) {
                        seen[i] = 1;
                        return false;
                    }
                }
                case "dropWhile" -> {
                    if (seen[i] == 0 && truth(ctx, call(ctx, "predicate", s.from(), s.function(), v))) return true;
                    seen[i] = 1;
                }
                case "asLongStream" -> v = ConstantVariable.of(number(ctx, v, "asLongStream").longValue());
                case "asDoubleStream" -> v = ConstantVariable.of(number(ctx, v, "asDoubleStream").doubleValue());
                case "skip" -> {
                    if (seen[i]++ < s.count()) return true;
                }
                case "limit" -> seen[i]++;
                case "flatMap", "concat" -> {
                    // flatMap's function gives a stream (null: none) it then uses; concat's items are its two streams, used by concat
                    boolean concat = s.op().equals("concat");
                    VariableTracker inner = concat ? v : call(ctx, s.from() == Kind.STREAM ? "map" : "mapToObj", s.from(), s.function(), v);
                    return isNull(inner) || pushAll(ctx, inner, !concat, steps, seen, i + 1, sink, cancelled);
                }
                default -> { }   // boxed, sequential: the item as it is
            }
        }
        return sink.test(v);
    }

    /**
     * An inner stream's items through the steps from {@code from} on, pulled lazily as Java's
     * flatMap does (a limit after it stops the pulling); {@code use}: the stream is used here
     * (flatMap's), not already (concat's).
     */
    private static boolean pushAll(TraceContext ctx, VariableTracker inner, boolean use, List<Step> steps, long[] seen, int from, Predicate<VariableTracker> sink,
            BooleanSupplier cancelled) {
        if (!(inner instanceof PipelineVariable q) || q.kind().isOptional()) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "flatMap to " + inner.describe() + " (a stream made in the trace is traced)");
        }
        if (use && q.isUsed()) throw raise(ctx, new IllegalStateException(REUSED), q.describe() + " in flatMap");
        q.markUsed();
        boolean[] more = {true};
        BooleanSupplier stop = () -> cancelled.getAsBoolean() || limitReached(steps, seen, from);
        pull(ctx, q, w -> {
            more[0] = push(ctx, steps, seen, from, w, sink, stop);
            return more[0];
        }, stop);
        return more[0] && !stop.getAsBoolean();
    }

    /** Whether a limit at or after step {@code from} has let its count through. */
    private static boolean limitReached(List<Step> steps, long[] seen, int from) {
        for (int i = from; i < steps.size(); i++) if (steps.get(i).op().equals("limit") && seen[i] >= steps.get(i).count()) return true;
        return false;
    }

    /**
     * {@code collect(Collectors.joining(delimiter, prefix, suffix))}: each item's text (a string the
     * trace knows, a StringBuilder's text), joined as a StringJoiner joins them. An item that is no
     * CharSequence is a ClassCastException in Java; the trace leaves that to eager.
     */
    private static VariableTracker joining(TraceContext ctx, PipelineVariable p, CollectorVariable c) {
        return joining(ctx, all(ctx, p), c);
    }

    private static VariableTracker joining(TraceContext ctx, List<VariableTracker> items, CollectorVariable c) {
        List<?> parts = (List<?>) ((ConstantVariable) c.function()).value();
        java.util.StringJoiner joiner = new java.util.StringJoiner((String) parts.get(0), (String) parts.get(1), (String) parts.get(2));
        for (VariableTracker item : items) {
            boolean text = item instanceof ConstantVariable cv && cv.value() instanceof CharSequence || item instanceof dev.ember.dynamo.variables.StringBuilderVariable;
            if (!text) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Collectors.joining() of " + item.describe() + ", which is no CharSequence the trace knows");
            joiner.add(Indy.text(ctx, item, java.lang.constant.ConstantDescs.CD_Object, "Collectors.joining() with"));
        }
        return ConstantVariable.of(joiner.toString());
    }

    /**
     * {@code collect(Collectors.toMap(keyMapper, valueMapper[, merge[, mapFactory]]))}: each item's key
     * and value traced in order and put in the map the factory makes (a HashMap without one), as
     * Java's collector does: {@code putIfAbsent} without a merge function, {@code merge} with one. A
     * duplicate key without a merge function throws IllegalStateException in Java, with both values
     * in its message: a break, and eager throws it.
     */
    private static VariableTracker toMap(TraceContext ctx, PipelineVariable p, CollectorVariable c) {
        List<VariableTracker> parts = ((ListVariable) c.function()).items();
        VariableTracker keys = parts.get(0), values = parts.get(1), merge = parts.get(2), factory = parts.get(3);
        VariableTracker made = isNull(factory) ? KeyedContainers.fresh(java.util.HashMap.class) : call(ctx, "supplier", Kind.STREAM, factory);
        if (!(made instanceof dev.ember.dynamo.variables.MapVariable map)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Collectors.toMap() into " + made.describe() + " (a HashMap, LinkedHashMap or TreeMap is traced)");
        }
        for (VariableTracker item : all(ctx, p)) {
            VariableTracker k = call(ctx, "map", Kind.STREAM, keys, item), v = call(ctx, "map", Kind.STREAM, values, item);
            if (isNull(v)) throw raise(ctx, new NullPointerException(), "Collectors.toMap() of a null value");
            if (isNull(merge)) {
                VariableTracker before = KeyedContainers.mapMethod(ctx, map, "putIfAbsent", List.of(k, v));
                if (before != null && !isNull(before)) {
                    throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws IllegalStateException: Collectors.toMap() met the key "
                            + k.describe() + " twice and has no merge function");
                }
            } else {
                KeyedContainers.mapMethod(ctx, map, "merge", List.of(k, v, merge));
            }
        }
        return map;
    }

    /**
     * {@code collect(Collectors.groupingBy(classifier[, mapFactory], downstream))}: the classifier
     * traced once per item in the stream's order; each key's items go to a list (toList, the
     * default), a HashSet (toSet) or a count (counting). The map (the factory's, a HashMap without
     * one) got each key as Java's collector gives it, by computeIfAbsent at the key's first item (first in its bin), so it iterates as
     * eager's. A null key throws NullPointerException, as Java's.
     */
    private static VariableTracker groupingBy(TraceContext ctx, PipelineVariable p, CollectorVariable c) {
        List<VariableTracker> parts = ((ListVariable) c.function()).items();
        VariableTracker classifier = parts.get(0);
        java.util.function.Supplier<Accumulation> downstream = downstream(ctx, parts.get(1), "Collectors.groupingBy()");
        VariableTracker made = isNull(parts.get(2)) ? KeyedContainers.fresh(java.util.HashMap.class) : call(ctx, "supplier", Kind.STREAM, parts.get(2));
        if (!(made instanceof dev.ember.dynamo.variables.MapVariable map)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Collectors.groupingBy() into " + made.describe() + " (a HashMap, LinkedHashMap or TreeMap is traced)");
        }
        // each item's key, then its downstream accumulation, item by item as Java's accumulator runs them
        java.util.Map<Object, Accumulation> groups = new java.util.LinkedHashMap<>();
        pull(ctx, p, item -> {
            VariableTracker k = call(ctx, "map", Kind.STREAM, classifier, item);
            if (isNull(k)) throw raise(ctx, new NullPointerException("element cannot be mapped to a null key"), "Collectors.groupingBy()");
            Object key = KeyedContainers.key(ctx, map, k, "Collectors.groupingBy()");
            groups.computeIfAbsent(key, x -> downstream.get()).accept(item);
            return true;
        });
        for (var g : groups.entrySet()) KeyedContainers.computedInsert(ctx, map, g.getKey(), g.getValue().finish(), "Collectors.groupingBy()");
        return map;
    }

    private static List<VariableTracker> all(TraceContext ctx, PipelineVariable p) {
        List<VariableTracker> out = new ArrayList<>();
        pull(ctx, p, out::add);
        return out;
    }

    /** Collectors.toSet(): a new HashSet each item is added to in the stream's order, as Java's collector does (so it iterates as eager's). */
    private static VariableTracker toSet(TraceContext ctx, List<VariableTracker> items) {
        dev.ember.dynamo.variables.SetVariable set = (dev.ember.dynamo.variables.SetVariable) KeyedContainers.fresh(java.util.HashSet.class);
        for (VariableTracker item : items) KeyedContainers.setMethod(ctx, set, "add", List.of(item));
        return set;
    }

    /** Collectors of one function of the program whose result the JDK's own collector reduces: sums and averages of the numbers it gives. */
    private static final java.util.Set<String> DOWNSTREAM_OF_FUNCTION = java.util.Set.of("summingInt", "summingLong", "summingDouble",
            "averagingInt", "averagingLong", "averagingDouble");

    /** A collector run in the trace as Java's runs it: {@link #accept} at each item in the stream's order (the program's functions traced then), then {@link #finish}. */
    private interface Accumulation {
        void accept(VariableTracker item);

        VariableTracker finish();
    }

    /**
     * A new accumulation for {@code collector} as a downstream one (of groupingBy, partitioningBy,
     * mapping, filtering): toList, toUnmodifiableList, toSet, counting, joining, mapping, filtering,
     * and the sums and averages (their arithmetic is the JDK collector's own, run on the numbers
     * the traced function gave); another breaks the graph, naming it.
     */
    private static java.util.function.Supplier<Accumulation> downstream(TraceContext ctx, VariableTracker collector, String where) {
        if (collector instanceof ConstantVariable c && (c.value() == TO_LIST || c.value() == TO_UNMODIFIABLE_LIST)) {
            boolean mutable = c.value() == TO_LIST;
            return () -> new Accumulation() {
                final List<VariableTracker> items = new ArrayList<>();

                public void accept(VariableTracker item) { items.add(item); }

                public VariableTracker finish() {
                    if (!mutable && items.stream().anyMatch(StreamCalls::isNull)) throw raise(ctx, new NullPointerException(), "Collectors.toUnmodifiableList() of a null");
                    return new ListVariable(items, mutable, null);
                }
            };
        }
        if (collector instanceof ConstantVariable c && c.value() == TO_SET) {
            return () -> new Accumulation() {
                final dev.ember.dynamo.variables.SetVariable set = (dev.ember.dynamo.variables.SetVariable) KeyedContainers.fresh(java.util.HashSet.class);

                public void accept(VariableTracker item) { KeyedContainers.setMethod(ctx, set, "add", List.of(item)); }

                public VariableTracker finish() { return set; }
            };
        }
        if (collector instanceof CollectorVariable cv) {
            switch (cv.name()) {
                case "counting" -> {
                    return () -> new Accumulation() {
                        long count;

                        public void accept(VariableTracker item) { count++; }

                        public VariableTracker finish() { return ConstantVariable.of(count); }
                    };
                }
                case "joining" -> {
                    return () -> new Accumulation() {
                        final List<VariableTracker> items = new ArrayList<>();

                        public void accept(VariableTracker item) { items.add(item); }

                        public VariableTracker finish() { return joining(ctx, items, cv); }
                    };
                }
                case "mapping", "filtering" -> {
                    List<VariableTracker> parts = ((ListVariable) cv.function()).items();
                    VariableTracker fn = parts.get(0);
                    java.util.function.Supplier<Accumulation> inner = downstream(ctx, parts.get(1), where);
                    boolean mapping = cv.name().equals("mapping");
                    return () -> new Accumulation() {
                        final Accumulation to = inner.get();

                        public void accept(VariableTracker item) {
                            if (mapping) to.accept(call(ctx, "map", Kind.STREAM, fn, item));
                            else if (truth(ctx, call(ctx, "predicate", Kind.STREAM, fn, item))) to.accept(item);
                        }

                        public VariableTracker finish() { return to.finish(); }
                    };
                }
                default -> {
                    if (DOWNSTREAM_OF_FUNCTION.contains(cv.name())) return numeric(ctx, cv);
                }
            }
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, where + " with the downstream " + collector.describe() + " (toList(), toUnmodifiableList(), "
                + "toSet(), counting(), joining(…), mapping(…), filtering(…), summingInt/Long/Double(…) and averagingInt/Long/Double(…) are traced)");
    }

    /** summingInt/Long/Double and averagingInt/Long/Double: the function traced at each item, its numbers reduced by the JDK's own collector. */
    private static java.util.function.Supplier<Accumulation> numeric(TraceContext ctx, CollectorVariable cv) {
        String name = cv.name(), to = name.endsWith("Int") ? "Int" : name.endsWith("Long") ? "Long" : "Double";
        VariableTracker fn = ((ListVariable) cv.function()).items().getFirst();
        return () -> new Accumulation() {
            final List<Number> numbers = new ArrayList<>();

            public void accept(VariableTracker item) { numbers.add(number(ctx, call(ctx, "mapTo" + to, Kind.STREAM, fn, item), "Collectors." + name + "()")); }

            public VariableTracker finish() {
                Collector<Number, ?, ?> jdk = switch (name) {
                    case "summingInt" -> Collectors.summingInt(Number::intValue);
                    case "summingLong" -> Collectors.summingLong(Number::longValue);
                    case "summingDouble" -> Collectors.summingDouble(Number::doubleValue);
                    case "averagingInt" -> Collectors.averagingInt(Number::intValue);
                    case "averagingLong" -> Collectors.averagingLong(Number::longValue);
                    default -> Collectors.averagingDouble(Number::doubleValue);
                };
                return ConstantVariable.of(numbers.stream().collect(jdk));
            }
        };
    }

    /** {@code collect(mapping(…))}, {@code collect(filtering(…))}, {@code collect(summingInt(…))}…: the collector run over every item. */
    private static VariableTracker collectWith(TraceContext ctx, PipelineVariable p, CollectorVariable c) {
        Accumulation a = downstream(ctx, c, "Stream.collect()").get();
        pull(ctx, p, v -> {
            a.accept(v);
            return true;
        });
        return a.finish();
    }

    /** The class of {@code Collectors.partitioningBy}'s maps (a private class of the JDK's). */
    static final Class<?> PARTITION = Stream.empty().collect(Collectors.partitioningBy(x -> true)).getClass();

    /**
     * {@code collect(Collectors.partitioningBy(predicate))}: the predicate traced once per item in
     * the stream's order, each item added to the ArrayList of its answer; the map is Java's
     * unmodifiable partition, whose keys are {@code false} then {@code true}.
     */
    private static VariableTracker partition(TraceContext ctx, PipelineVariable p, VariableTracker predicate) {
        return partition(ctx, p, predicate, ConstantVariable.of(TO_LIST));
    }

    /** {@code partitioningBy(predicate, downstream)}: each item accumulated, as it comes, into its answer's downstream collector. */
    private static VariableTracker partition(TraceContext ctx, PipelineVariable p, VariableTracker predicate, VariableTracker downstream) {
        java.util.function.Supplier<Accumulation> made = downstream(ctx, downstream, "Collectors.partitioningBy()");
        Accumulation no = made.get(), yes = made.get();
        pull(ctx, p, v -> {
            (truth(ctx, call(ctx, "predicate", Kind.STREAM, predicate, v)) ? yes : no).accept(v);
            return true;
        });
        java.util.Map<Object, VariableTracker> entries = new java.util.LinkedHashMap<>();
        entries.put(false, no.finish());
        entries.put(true, yes.finish());
        dev.ember.dynamo.variables.MapVariable map = new dev.ember.dynamo.variables.MapVariable(PARTITION, entries, false, null);
        map.constructed(entries, dev.ember.dynamo.variables.Construction.copyOf(List.of(false, true)));
        return map;
    }

    /**
     * A real partition map holding {@code forFalse} and {@code forTrue} themselves, made by Java's
     * own collector on an empty stream with a downstream collector whose containers are these two
     * values (asked for true's first, as partitioningBy does; checked).
     */
    @SuppressWarnings("unchecked")
    static java.util.Map<Boolean, Object> partitionOf(Object forFalse, Object forTrue) {
        java.util.Iterator<Object> made = java.util.Arrays.asList(forTrue, forFalse).iterator();
        Collector<Object, Object, Object> downstream = Collector.of(made::next, (a, t) -> { }, (a, b) -> a, Collector.Characteristics.IDENTITY_FINISH);
        java.util.Map<Boolean, Object> m = Stream.empty().collect(Collectors.partitioningBy(x -> true, downstream));
        if (m.get(true) != forTrue || m.get(false) != forFalse) throw new IllegalStateException("Collectors.partitioningBy asked for its two containers in another order");
        return m;
    }

    private static VariableTracker reduce(TraceContext ctx, PipelineVariable p, List<VariableTracker> args) {
        Kind k = p.kind();
        if (args.size() == 1) {
            VariableTracker[] acc = {null};
            pull(ctx, p, v -> {
                acc[0] = acc[0] == null ? v : call(ctx, "reduce", k, args.getFirst(), acc[0], v);
                return true;
            });
            if (acc[0] != null && isNull(acc[0])) throw raise(ctx, new NullPointerException(), "Stream.reduce() to null");
            return PipelineVariable.optional(acc[0], optionalOf(k));
        }
        // reduce(identity, accumulator[, combiner]): sequential, so the combiner is never called
        VariableTracker[] acc = {args.getFirst()};
        String role = args.size() == 3 ? "bifunction" : "reduce";
        pull(ctx, p, v -> {
            acc[0] = call(ctx, role, k, args.get(1), acc[0], v);
            return true;
        });
        return acc[0];
    }

    private static final MethodTypeDesc COMPARE = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_Object, ConstantDescs.CD_Object);

    /**
     * {@code Stream.min(comparator)} and {@code max}, as Java computes them: a reduce by
     * {@code BinaryOperator.minBy} ({@code compare(a, b) <= 0 ? a : b}) or {@code maxBy}
     * ({@code >= 0}), the comparator's code traced (natural and reverse order compare constants).
     */
    private static VariableTracker minMaxBy(TraceContext ctx, PipelineVariable p, String name, VariableTracker comparator) {
        if (isNull(comparator)) throw raise(ctx, new NullPointerException(), "Stream." + name + "(null)");
        VariableTracker[] acc = {null};
        pull(ctx, p, v -> {
            if (acc[0] == null) {
                acc[0] = v;
                return true;
            }
            int c = compare(ctx, comparator, acc[0], v, "Stream." + name + "()");
            if (name.equals("min") ? c > 0 : c < 0) acc[0] = v;
            return true;
        });
        if (acc[0] != null && isNull(acc[0])) throw raise(ctx, new NullPointerException(), "Stream." + name + "() of a null element");
        return PipelineVariable.optional(acc[0], Kind.OPTIONAL);
    }

    @SuppressWarnings("unchecked")
    private static int compare(TraceContext ctx, VariableTracker comparator, VariableTracker a, VariableTracker b, String what) {
        if (comparator instanceof ConstantVariable c && Containers.isKnownComparator(c.value())) {
            if (!(a instanceof ConstantVariable x && x.value() != null && b instanceof ConstantVariable y && y.value() != null)) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " of " + a.describe() + " and " + b.describe()
                        + ": the trace compares values known while tracing (numbers, strings, enums)");
            }
            try {
                return ((java.util.Comparator<Object>) c.value()).compare(x.value(), y.value());
            } catch (ClassCastException e) {
                throw Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e + " from " + what);
            }
        }
        VariableTracker r = Invoker.invokeVirtual(ctx, java.util.Comparator.class, "compare", COMPARE, comparator, List.of(a, b));
        if (r instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + ": the comparator returned " + r.describe() + ", not an int known while tracing");
    }

    /** sum, min, max, average, summaryStatistics of a primitive stream, computed by Java's own stream on the items (constants). */
    private static VariableTracker numeric(TraceContext ctx, PipelineVariable p, String name) {
        Kind k = p.kind();
        if (k == Kind.STREAM) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Stream." + name + "() (min and max take a comparator; "
                + "map to an IntStream, LongStream or DoubleStream first)");
        if (name.equals("summaryStatistics")) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "summaryStatistics() on " + p.describe());
        List<VariableTracker> items = all(ctx, p);
        Object result = switch (k) {
            case INT_STREAM -> apply(IntStream.class, IntStream.of(items.stream().mapToInt(v -> number(ctx, v, name).intValue()).toArray()), name);
            case LONG_STREAM -> apply(LongStream.class, LongStream.of(items.stream().mapToLong(v -> number(ctx, v, name).longValue()).toArray()), name);
            default -> apply(DoubleStream.class, DoubleStream.of(items.stream().mapToDouble(v -> number(ctx, v, name).doubleValue()).toArray()), name);
        };
        return switch (result) {
            case OptionalInt o -> PipelineVariable.optional(o.isPresent() ? ConstantVariable.of(o.getAsInt()) : null, Kind.OPTIONAL_INT);
            case OptionalLong o -> PipelineVariable.optional(o.isPresent() ? ConstantVariable.of(o.getAsLong()) : null, Kind.OPTIONAL_LONG);
            case OptionalDouble o -> PipelineVariable.optional(o.isPresent() ? ConstantVariable.of(o.getAsDouble()) : null, Kind.OPTIONAL_DOUBLE);
            default -> ConstantVariable.of(result);
        };
    }

    private static Object apply(Class<?> streamInterface, Object stream, String name) {
        try {
            return streamInterface.getMethod(name).invoke(stream);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(name + " on " + stream, e);
        }
    }

    /** The most elements a bounded {@code iterate} may make while tracing: a bound the trace never meets is a runaway loop. */
    static final int ITERATE_LIMIT = 4096;

    /**
     * The elements of {@code iterate(seed, hasNext, next)}: {@code seed}, then {@code next} of the
     * last while {@code hasNext} holds, each lambda traced, in the order Java calls them (each
     * {@code hasNext} before the element it admits). The predicate must give a value known while
     * tracing (a bound on ints); the elements may be anything, tensors too.
     */
    private static List<VariableTracker> iterated(TraceContext ctx, Kind kind, VariableTracker seed, VariableTracker hasNext, VariableTracker next) {
        List<VariableTracker> items = new ArrayList<>();
        for (VariableTracker t = seed; truth(ctx, call(ctx, "predicate", kind, hasNext, t)); t = call(ctx, "map", kind, next, t)) {
            items.add(t);
            if (items.size() > ITERATE_LIMIT) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Stream.iterate() made more than " + ITERATE_LIMIT
                        + " elements while tracing; make the stream outside the compiled function, or bound it with a smaller range");
            }
        }
        return items;
    }

    // ------------------------------------------------------------------ the lambdas

    /**
     * Calls {@code fn} through the functional interface the stream method takes for this role and
     * element kind ({@code map} on an IntStream: IntUnaryOperator.applyAsInt), tracing its code.
     */
    private static VariableTracker call(TraceContext ctx, String role, Kind from, VariableTracker fn, VariableTracker... args) {
        String p = prefix(from);                 // "", "Int", "Long", "Double"
        ClassDesc e = element(from);
        String iface, method;
        MethodTypeDesc desc;
        switch (role) {
            case "map" -> {
                iface = p.isEmpty() ? "Function" : p + "UnaryOperator";
                method = p.isEmpty() ? "apply" : "applyAs" + p;
                desc = MethodTypeDesc.of(e, e);
            }
            case "mapToInt", "mapToLong", "mapToDouble" -> {
                String to = role.substring("mapTo".length());
                iface = p.isEmpty() ? "To" + to + "Function" : p + "To" + to + "Function";
                method = "applyAs" + to;
                desc = MethodTypeDesc.of(element(streamKind(to)), e);
            }
            case "mapToObj" -> {
                iface = p + "Function";
                method = "apply";
                desc = MethodTypeDesc.of(ConstantDescs.CD_Object, e);
            }
            case "predicate" -> {
                iface = p + "Predicate";
                method = "test";
                desc = MethodTypeDesc.of(ConstantDescs.CD_boolean, e);
            }
            case "supplier" -> {
                iface = p + "Supplier";
                method = p.isEmpty() ? "get" : "getAs" + p;
                desc = MethodTypeDesc.of(e);
            }
            case "consumer" -> {
                iface = p + "Consumer";
                method = "accept";
                desc = MethodTypeDesc.of(ConstantDescs.CD_void, e);
            }
            case "reduce" -> {
                iface = p + "BinaryOperator";
                method = p.isEmpty() ? "apply" : "applyAs" + p;
                desc = MethodTypeDesc.of(e, e, e);
            }
            case "bifunction" -> {
                iface = "BiFunction";
                method = "apply";
                desc = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_Object, ConstantDescs.CD_Object);
            }
            default -> throw new IllegalArgumentException(role);
        }
        Class<?> owner;
        try {
            owner = Class.forName("java.util.function." + iface);
        } catch (ClassNotFoundException ex) {
            throw new IllegalStateException(ex);
        }
        return Invoker.invokeVirtual(ctx, owner, method, desc, fn, List.of(args));
    }

    private static String prefix(Kind k) {
        return switch (k) {
            case INT_STREAM, OPTIONAL_INT -> "Int";
            case LONG_STREAM, OPTIONAL_LONG -> "Long";
            case DOUBLE_STREAM, OPTIONAL_DOUBLE -> "Double";
            default -> "";
        };
    }

    private static ClassDesc element(Kind k) {
        return switch (prefix(k)) {
            case "Int" -> ConstantDescs.CD_int;
            case "Long" -> ConstantDescs.CD_long;
            case "Double" -> ConstantDescs.CD_double;
            default -> ConstantDescs.CD_Object;
        };
    }

    private static Class<?> elementClass(Kind k) {
        return switch (prefix(k)) {
            case "Int" -> int.class;
            case "Long" -> long.class;
            case "Double" -> double.class;
            default -> Object.class;
        };
    }

    private static Kind streamKind(Class<?> owner) {
        return owner == IntStream.class ? Kind.INT_STREAM : owner == LongStream.class ? Kind.LONG_STREAM : owner == DoubleStream.class ? Kind.DOUBLE_STREAM : Kind.STREAM;
    }

    private static Kind streamKind(String primitive) { return Kind.valueOf(primitive.toUpperCase() + "_STREAM"); }

    /** The stream kind whose lambdas an optional's ifPresent takes. */
    private static Kind streamOf(Kind optional) {
        return switch (optional) {
            case OPTIONAL_INT -> Kind.INT_STREAM;
            case OPTIONAL_LONG -> Kind.LONG_STREAM;
            case OPTIONAL_DOUBLE -> Kind.DOUBLE_STREAM;
            default -> Kind.STREAM;
        };
    }

    private static Kind optionalOf(Kind stream) {
        return switch (stream) {
            case INT_STREAM -> Kind.OPTIONAL_INT;
            case LONG_STREAM -> Kind.OPTIONAL_LONG;
            case DOUBLE_STREAM -> Kind.OPTIONAL_DOUBLE;
            default -> Kind.OPTIONAL;
        };
    }

    // ------------------------------------------------------------------ values

    private static boolean isNull(VariableTracker v) { return v instanceof ConstantVariable c && c.value() == null; }

    private static boolean truth(TraceContext ctx, VariableTracker v) { return number(ctx, v, "a predicate").intValue() != 0; }

    private static Number number(TraceContext ctx, VariableTracker v, String what) {
        if (v instanceof ConstantVariable c && c.value() instanceof Number n) return n;
        if (v instanceof ConstantVariable c && c.value() instanceof Boolean b) return b ? 1 : 0;
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, what + " needs a number known while tracing, got " + v.describe());
    }

    private static Raised raise(TraceContext ctx, RuntimeException e, String where) {
        return Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e + " from " + where);
    }
}
