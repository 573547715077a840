package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** Small programs the capture corpus compiles; each is ordinary Java tensor code. */
final class Programs {
    private Programs() {}

    // ---------------------------------------------------------------- straight-line shape code

    static Tensor transposeView(Tensor x) { return x.transpose(0, 1).contiguous().view(-1); }

    static Tensor permuteBack(Tensor x) { return x.permute(2, 0, 1).permute(1, 2, 0); }

    static Tensor tOfT(Tensor x) { return x.t().t(); }

    static Tensor flattenView(Tensor x) { return x.flatten().view(2, 12); }

    static Tensor expandContiguous(Tensor x) { return x.unsqueeze(0).expand(3, -1, -1).contiguous(); }

    static Tensor sliceStep(Tensor x) { return x.slice(1, 0, 4, 2); }

    static Tensor stackSame(Tensor x) { return Tensor.stack(List.of(x, x), 0); }

    static Tensor catTwo(Tensor x, Tensor y) { return Tensor.cat(List.of(x, y), 1); }

    // ---------------------------------------------------------------- constant control flow

    static Tensor ifOnInt(Tensor x, int n) {
        if (n > 2) return x.t();
        return x.unsqueeze(0);
    }

    static Tensor ifOnDim(Tensor x) {
        if (x.dim() == 2) return x.t();
        return x.flatten();
    }

    static Tensor ifOnSize(Tensor x) { return x.size(0) > 2 ? x.narrow(0, 0, 2) : x; }

    static Tensor ifOnDtype(Tensor x) {
        if (x.dtype() == DType.FLOAT32) return x.to(DType.FLOAT64);
        return x;
    }

    static Tensor ternaryLogic(Tensor x, int n) {
        return (x.dim() == 2 && x.size(0) > 1) || n < 0 ? x.t() : x;
    }

    static Tensor switchOnDim(Tensor x) {
        switch (x.dim()) {
            case 1:
                return x.unsqueeze(0);
            case 2:
                return x.t();
            default:
                return x.flatten();
        }
    }

    enum Mode { TRANSPOSE, FLATTEN }

    static Tensor switchOnEnum(Tensor x, Mode mode) {
        switch (mode) {
            case TRANSPOSE:
                return x.t();
            case FLATTEN:
                return x.flatten();
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    static Tensor switchOnString(Tensor x) {
        String key = "d" + x.dim();
        return switch (key) {
            case "d2" -> x.t();
            case "d3" -> x.flatten();
            default -> x;
        };
    }

    static Tensor validateThenRun(Tensor x) {
        if (x.dim() > 5) throw new IllegalArgumentException("too many dims: " + x.dim());
        return x.t();
    }

    static Tensor patternSwitch(Object o, Tensor x) {
        return switch (o) {
            case Integer n when n > 0 -> x.unsqueeze(n);
            case Integer n -> x.unsqueeze(0);
            case String s -> x.t();
            default -> x;
        };
    }

    static Tensor recordPattern(Object o) {
        if (o instanceof Pair(Tensor a, Tensor b)) return Tensor.cat(List.of(a, b), 0);
        return Tensor.zeros(1);
    }

    static Tensor arrowEnumSwitch(Tensor x, Mode m) {
        return switch (m) {
            case TRANSPOSE -> x.t();
            case FLATTEN -> x.flatten();
        };
    }

    // ---------------------------------------------------------------- loops

    static Tensor loopUnsqueeze(Tensor x) {
        for (int i = 0; i < 4; i++) x = x.unsqueeze(0);
        return x;
    }

    static Tensor loopN(Tensor x, int n) {
        for (int i = 0; i < n; i++) x = x.transpose(0, 1);
        return x;
    }

    static Tensor whileLoop(Tensor x) {
        while (x.dim() < 4) x = x.unsqueeze(-1);
        return x;
    }

    static Tensor nestedLoops(Tensor x) {
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) x = x.t();
        }
        return x;
    }

    static Tensor loopSelectRows(Tensor x) {
        List<Tensor> rows = new ArrayList<>();
        for (int i = 0; i < x.size(0); i++) rows.add(x.select(0, i));
        return Tensor.stack(rows, 1);
    }

    static Tensor loopWithBreak(Tensor x) {
        for (int i = 0; ; i++) {
            if (i == 2) break;
            x = x.unsqueeze(0);
        }
        return x;
    }

    // ---------------------------------------------------------------- helper calls

    static Tensor helperStatic(Tensor x) { return Helpers.transposeCopy(x); }

    static Tensor privateHelper(Tensor x) { return roundTrip(roundTrip(x)); }

    private static Tensor roundTrip(Tensor t) { return t.unsqueeze(0).squeeze(0); }

    static Tensor recursiveHelper(Tensor x) { return addDims(x, 3); }

    private static Tensor addDims(Tensor t, int n) { return n == 0 ? t : addDims(t.unsqueeze(0), n - 1); }

    static Tensor genericHelper(Tensor x) { return identity(x).t(); }

    private static <T> T identity(T v) { return v; }

    static Tensor helperInOtherClass(Tensor x, Tensor y) { return Helpers.joinRows(List.of(x, y)); }

    // ---------------------------------------------------------------- lists

    static Tensor listOfSplit(Tensor x) {
        List<Tensor> parts = x.split(2, 0);
        return Tensor.cat(List.of(parts.get(2), parts.get(0)), 0);
    }

    static Tensor chunkStack(Tensor x) { return Tensor.stack(x.chunk(2, 1), 0); }

    static Tensor catList(List<Tensor> xs) { return Tensor.cat(xs, 0); }

    static List<Tensor> forEachList(List<Tensor> xs) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : xs) out.add(t.t());
        return out;
    }

    static Tensor listSetAndSize(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x));
        l.set(1, x.t().contiguous().view(3, 4));
        return Tensor.cat(l, l.size() - 2);
    }

    static List<Integer> shapeAsList(Tensor x) {
        List<Integer> dims = new ArrayList<>();
        for (int d : x.shape()) dims.add(d);
        return dims;
    }

    static Tensor permuteFromIntegerList(Tensor x) {
        List<Integer> dims = new ArrayList<>();
        dims.add(1);
        dims.add(0);
        int[] p = new int[dims.size()];
        for (int i = 0; i < p.length; i++) p[i] = dims.get(i);
        return x.permute(p);
    }

    /** Python's 4 * [x]. */
    static Tensor nCopiesCat(Tensor x) {
        List<Tensor> copies = new ArrayList<>(java.util.Collections.nCopies(3, x.t()));
        return Tensor.cat(copies, 0);
    }

    static Tensor forEachLambda(List<Tensor> xs) {
        List<Tensor> out = new ArrayList<>();
        xs.forEach(t -> out.add(t.unsqueeze(0)));
        return Tensor.cat(out, 0);
    }

    static Tensor toArrayAndIndexOf(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x, x.t().contiguous().view(3, 4)));
        Tensor[] arr = l.toArray(new Tensor[0]);
        return l.contains(x) ? Tensor.stack(List.of(arr), l.indexOf(x)) : x;
    }

    static java.util.Map<String, Tensor> namedOutputs(Tensor x) {
        java.util.Map<String, Tensor> out = new java.util.LinkedHashMap<>();
        out.put("t", x.t());
        out.put("flat", x.flatten());
        return out;
    }

    static Tensor mapLookup(Tensor x) {
        java.util.Map<String, Integer> dims = java.util.Map.of("rows", 0, "cols", 1);
        java.util.Map<Integer, Tensor> byDim = new java.util.HashMap<>();
        for (String k : dims.keySet()) byDim.put(dims.get(k), x.unsqueeze(dims.get(k)));
        return Tensor.cat(List.of(byDim.get(0).flatten(), byDim.getOrDefault(1, x).flatten()), 0);
    }

    // ---------------------------------------------------------------- arrays

    static Tensor arraycopyShape(Tensor x) {
        int[] shape = new int[x.dim() + 1];
        java.util.Arrays.fill(shape, 1);
        System.arraycopy(x.shape(), 0, shape, 1, x.dim());
        return x.reshape(shape);
    }

    static Tensor arrayInput(Tensor[] xs) { return Tensor.stack(List.of(xs), 0); }

    static Tensor intArrayShape(Tensor x, int[] shape) { return x.view(shape); }

    static Tensor localIntArray(Tensor x) {
        int[] perm = new int[] {1, 0};
        return x.permute(perm);
    }

    static Tensor[] returnArray(Tensor x) { return new Tensor[] {x.t(), x}; }

    static Tensor reverseDimsArray(Tensor x) {
        int[] shape = x.shape();
        int[] rev = new int[shape.length];
        for (int i = 0; i < shape.length; i++) rev[i] = shape.length - 1 - i;
        return x.permute(rev);
    }

    // ---------------------------------------------------------------- records

    record Pair(Tensor a, Tensor b) {}

    record Cfg(int dim, boolean transpose) {}

    static Tensor recordInput(Pair p) { return Tensor.cat(List.of(p.a(), p.b()), 0); }

    /** The second input is first read after an op: its placeholder sits after a call in the graph. */
    static Tensor lateInput(Pair p) {
        Tensor a = p.a().t();
        return Tensor.cat(List.of(a, p.b()), 0);
    }

    static Pair recordReturn(Tensor x) { return new Pair(x.t(), x.flatten()); }

    static Tensor recordLocal(Tensor x) {
        Pair p = new Pair(x, x.t());
        return p.b().t();
    }

    static Tensor recordConfig(Cfg c, Tensor x) {
        Tensor y = x.unsqueeze(c.dim());
        return c.transpose() ? y.transpose(0, 1) : y;
    }

    // ---------------------------------------------------------------- lambdas and method references

    static Tensor lambdaLocal(Tensor x) {
        Function<Tensor, Tensor> f = t -> t.t();
        return f.apply(f.apply(x));
    }

    static Tensor methodRefLocal(Tensor x) {
        Function<Tensor, Tensor> f = Tensor::t;
        return f.apply(x);
    }

    static Tensor lambdaCapturingInt(Tensor x, int n) {
        Function<Tensor, Tensor> f = t -> t.unsqueeze(n);
        return f.apply(x);
    }

    static Tensor higherOrder(Tensor x) { return applyTwice(Tensor::t, x); }

    private static Tensor applyTwice(UnaryOperator<Tensor> f, Tensor v) { return f.apply(f.apply(v)); }

    static Tensor fnArgument(Fn1<Tensor, Tensor> f, Tensor x) { return f.apply(f.apply(x)); }

    static Tensor staticMethodRefLocal(Tensor x) {
        Function<Tensor, Tensor> f = Programs::roundTrip;
        return f.apply(x).t();
    }

    // ---------------------------------------------------------------- strings, Math, boxing, constants

    static String describeShape(Tensor x) { return "shape=" + x.size(0) + "x" + x.size(1); }

    static Tensor mathMinNarrow(Tensor x) { return x.narrow(0, 0, Math.min(2, Math.max(x.size(0), 1))); }

    static Tensor mathSqrtFull(Tensor x) { return Tensor.full(Math.sqrt(x.numel()), 2, 2); }

    static Tensor longArithmetic(Tensor x) {
        long total = (long) x.size(0) * x.size(1);
        return x.view((int) total);
    }

    static Tensor doubleToIntDims(Tensor x) {
        double half = x.size(1) / 2.0;
        return x.view(x.size(0) * 2, (int) Math.floor(half));
    }

    static int rank(Tensor x) { return x.dim(); }

    static boolean contiguousFlag(Tensor x) { return x.isContiguous(); }

    static Tensor staticFinalConstant(Tensor x) { return x.unsqueeze(Config.DIM); }

    static Tensor staticMutableConfig(Tensor x) { return x.unsqueeze(Config.dim); }

    static Tensor integerParse(Tensor x) { return x.unsqueeze(Integer.parseInt("1")); }

    static Tensor charArithmetic(Tensor x) {
        char c = 'b';
        return x.unsqueeze(c - 'a');
    }

    // ---------------------------------------------------------------- creation ops, dtypes, in place

    static Tensor zerosOfShape(Tensor x) { return Tensor.cat(List.of(Tensor.zeros(x.shape()), x), 0); }

    static Tensor likes(Tensor x) { return Tensor.stack(List.of(Tensor.zerosLike(x), x, Tensor.onesLike(x)), 0); }

    static Tensor arangeOfSize(Tensor x) { return Tensor.arange(x.size(0)); }

    static Tensor toDoubleClone(Tensor x) { return x.to(DType.FLOAT64).clone(); }

    static Tensor toSameDtype(Tensor x) { return x.to(DType.FLOAT32); }

    static Tensor copyIntoFresh(Tensor x) {
        Tensor y = Tensor.zeros(x.shape());
        y.copy_(x);
        return y;
    }

    static Tensor copyIntoInput(Tensor x, Tensor y) { return x.copy_(y); }

    static Tensor seededRandn(Tensor x) { return Tensor.randn(x.size(0), 2); }

    static Tensor eyeOfSize(Tensor x) { return Tensor.eye(x.size(1)); }

    static Tensor constantRow(Tensor x) { return Tensor.cat(List.of(x, Tensor.of(new float[] {1, 2, 3, x.size(1)}, 1, 4)), 0); }

    static Tensor nestedLiteral(Tensor x) { return Tensor.stack(List.of(x, Tensor.tensor(new float[][] {{1, 2}, {3, 4}}).t()), 0); }

    // ---------------------------------------------------------------- reductions and normalisation

    static Tensor rowStats(Tensor x) {
        Tensor mean = x.mean(1, true);
        Tensor std = x.std(1, true);
        return Tensor.cat(List.of(mean, std, x.amax(1, true)), 1);
    }

    static Tensor softmaxOverLastDim(Tensor x) { return x.softmax(x.dim() - 1).sum(new int[] {0}, false); }

    static Tensor argmaxPerRow(Tensor x) { return x.argmax(1, false); }

    // ---------------------------------------------------------------- graph breaks

    static Tensor readsItem(Tensor x) {
        double v = x.select(0, 0).select(0, 0).item();
        return x.unsqueeze(v > 0 ? 0 : 1);
    }

    static Tensor branchesOnData(Tensor x) {
        if (x.select(0, 0).select(0, 0).asBoolean()) return x.t();
        return x;
    }

    static Tensor prints(Tensor x) {
        Tensor y = x.t();
        System.out.println("debug: " + y.size(0));
        return y;
    }

    static Tensor concatsTensor(Tensor x) {
        String s = "x=" + x;
        return s.isEmpty() ? x : x.t();
    }

    static Tensor explicitBreak(Tensor x) {
        Tensor y = x.t();
        Ember.graphBreak();
        return y.t();
    }

    static Tensor mutatesVector(java.util.Vector<Tensor> xs, Tensor x) {
        xs.add(0, x);
        return x.t();
    }

    static Tensor mutatesCallerList(List<Tensor> xs, Tensor x) {
        xs.add(x);
        return x.t();
    }

    /** Java 21's removeFirst / removeLast, on a list made here and on the caller's (as Python's list.pop()). */
    static Tensor popsBothEnds(List<Tensor> xs, Tensor x) {
        List<Tensor> tmp = new ArrayList<>(List.of(x.add(1), x.mul(2), x.sub(3)));
        Tensor last = tmp.removeLast();
        Tensor first = tmp.removeFirst();
        return last.add(first).add(tmp.getFirst()).add(xs.removeLast());
    }

    static int calls;

    static Tensor writesStatic(Tensor x) {
        calls++;
        return x.t();
    }

    static Tensor readsClock(Tensor x) {
        long t = System.nanoTime();
        return t > 0 ? x.t() : x;
    }

    static Tensor throwsOnPath(Tensor x) {
        if (x.dim() == 2) throw new IllegalStateException("two dims not allowed");
        return x;
    }

    static Tensor runawayLoop(Tensor x) {
        long n = 0;
        for (int i = 0; i < 10_000_000; i++) n += i;
        return n > 0 ? x.t() : x;
    }

    static Tensor deepRecursion(Tensor x) { return recurse(x, 0); }

    private static Tensor recurse(Tensor x, int depth) { return depth == 1000 ? x : recurse(x, depth + 1); }

    static Tensor badView(Tensor x) { return x.view(5, 5); }

    static final class Holder {
        Tensor last;
        int calls;
    }

    static Tensor remember(Holder h, Tensor x) {
        h.last = x.t();
        return h.last.flatten();
    }

    static Tensor countCalls(Holder h, Tensor x) {
        h.calls = h.calls + 1;
        return h.calls > 1 ? x.t() : x.flatten();
    }

    static Tensor fillSlots(Tensor[] out, Tensor x) {
        out[0] = x.t();
        out[1] = x;
        return x.flatten();
    }

    static final class Box {
        Tensor value;
    }

    static Box returnsPlainObject(Tensor x) {
        Box b = new Box();
        b.value = x.t();
        return b;
    }

    /** An iterator is not rebuilt after the graph (its position would have to be): returning one breaks. */
    static java.util.Iterator<Tensor> returnsIterator(Tensor x) {
        java.util.Iterator<Tensor> it = List.of(x.t()).iterator();
        return it;
    }

    static Tensor readsStorage(Tensor x) { return x.storage() == null ? x : x.t(); }
}
