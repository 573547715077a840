package dev.ember.debug.fuzz;

import dev.ember.tensor.DType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Makes a random, well-typed program from a seed: the same seed gives the same program text. The
 * generator tracks every variable's dtype and shape, which variables share memory (views, the same
 * input passed twice) and which must not be written (expanded ones, where several elements share
 * one location), so that every program is one eager runs without error and whose meaning is
 * defined: an in-place or out= op never reads memory it writes through another name, and never
 * writes an expanded tensor. Ops that would turn rounding into a different answer are avoided
 * (float to int casts, logarithms and roots of values that may round across zero), so that a
 * mismatch is a compiler bug, not a rounding accident.
 */
public final class ProgramGenerator {
    private static final int[] DIMS = {1, 2, 3, 4, 5, 7, 8, 16};

    private final long seed;
    private final Random rnd;
    /** Zero-size dims are drawn only in some programs, so the rest stay useful for everything else. */
    private final boolean zeroSizes;
    /**
     * Whether this program opens with a product or a convolution big enough for the kernels small
     * shapes never reach ({@link #bigKernel}). Drawn from a stream of its own, so that every other
     * seed's program is the one it was before the family existed (the docs' seeds stay valid).
     */
    private final boolean bigKernels;
    /**
     * Whether this program also draws the ops added since session 28 ({@link #recentOp}). Drawn from
     * a stream of its own, as {@link #bigKernels} is, so that a program outside the family makes
     * exactly the draws it made before the family existed (its seed's program is unchanged).
     */
    private final boolean recentOps;
    /**
     * Whether this program also draws the model-building pieces ({@link #modelOp}): CustomFunctions,
     * detach inside a differentiable chain, the recurrent layers, attention. Its own stream again, so
     * a program outside this family (the recent-ops family's included) is exactly the one it was.
     */
    private final boolean modelOps;
    private final List<Input> inputs = new ArrayList<>();
    private final List<ScalarInput> scalars = new ArrayList<>();
    private final List<Stmt> body = new ArrayList<>();
    private final List<Var> pool = new ArrayList<>();
    private final Map<Var, Integer> storage = new HashMap<>();
    private final Set<Var> readOnly = new HashSet<>();
    /**
     * Float variables whose elements are known to be pairwise distinct (inputs drawn from randn and
     * views of them, never written): the only ones whose top-k positions, or the gradient of a top-k
     * value, mean one thing.
     */
    private final Set<Var> distinct = new HashSet<>();
    private int nextVar, nextStorage;

    private ProgramGenerator(long seed) {
        this.seed = seed;
        this.rnd = new Random(seed);
        this.zeroSizes = rnd.nextInt(20) == 0;
        this.bigKernels = opensWithBigKernel(seed);
        this.recentOps = drawsRecentOps(seed);
        this.modelOps = drawsModelOps(seed);
    }

    /** One program in this many opens with a big product or convolution. */
    static final int BIG_KERNEL_ONE_IN = 8;
    private static final long BIG_KERNEL_STREAM = 0x6A09E667F3BCC908L;

    /** Whether {@code seed}'s program is one of the big-kernel family (without generating it). */
    static boolean opensWithBigKernel(long seed) {
        // SplittableRandom mixes its seed's bits (java.util.Random's first draw barely differs between neighbouring seeds)
        return new java.util.SplittableRandom(seed ^ BIG_KERNEL_STREAM).nextInt(BIG_KERNEL_ONE_IN) == 0;
    }

    /** One program in this many also draws the recent ops; in such a program one statement in four is one. */
    static final int RECENT_OPS_ONE_IN = 2;
    private static final long RECENT_OPS_STREAM = 0xBB67AE8584CAA73BL;

    /** Whether {@code seed}'s program is one of the recent-ops family (without generating it). */
    static boolean drawsRecentOps(long seed) {
        return new java.util.SplittableRandom(seed ^ RECENT_OPS_STREAM).nextInt(RECENT_OPS_ONE_IN) == 0;
    }

    /** One program in this many also draws the model pieces; in such a program one statement in four is one. */
    static final int MODEL_OPS_ONE_IN = 3;
    private static final long MODEL_OPS_STREAM = 0x3C6EF372FE94F82BL;

    /** Whether {@code seed}'s program is one of the model-pieces family (without generating it). */
    static boolean drawsModelOps(long seed) {
        return new java.util.SplittableRandom(seed ^ MODEL_OPS_STREAM).nextInt(MODEL_OPS_ONE_IN) == 0;
    }

    /** In the model family, one program in this many keeps its modules' parameters frozen in the training configurations too. */
    static final int FROZEN_ONE_IN = 3;
    private static final long TRAINING_STREAM = 0xA54FF53A5F1D36F1L;

    /**
     * How a model-family program's modules train (session 32), or null when their parameters stay
     * frozen: SGD with momentum (Nesterov's too, weight decay sometimes), Adam (amsgrad, weight decay
     * sometimes) or AdamW (amsgrad sometimes), for 2 or 3 steps. Drawn from a stream of its own, so
     * the family's statements are the ones they were before its modules trained; such a program
     * returns its modules' outputs too (see {@link #build}).
     */
    static Program.Training training(long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed ^ TRAINING_STREAM);
        if (r.nextInt(FROZEN_ONE_IN) == 0) return null;
        int steps = 2 + r.nextInt(2);
        String optimizer = switch (r.nextInt(3)) {
            case 0 -> "new dev.ember.optim.SGD(parameters, dev.ember.optim.SGD.options().lr(0.05).momentum(0.9)"
                    + (r.nextInt(3) == 0 ? ".nesterov(true)" : "") + (r.nextInt(3) == 0 ? ".weightDecay(0.01)" : "") + ")";
            case 1 -> "new dev.ember.optim.Adam(parameters, dev.ember.optim.Adam.options().lr(0.01)"
                    + (r.nextInt(3) == 0 ? ".amsgrad(true)" : "") + (r.nextInt(3) == 0 ? ".weightDecay(0.01)" : "") + ")";
            default -> "new dev.ember.optim.AdamW(parameters, dev.ember.optim.AdamW.options().lr(0.01)" + (r.nextInt(3) == 0 ? ".amsgrad(true)" : "") + ")";
        };
        return new Program.Training(optimizer, steps);
    }

    public static Program generate(long seed) { return new ProgramGenerator(seed).build(); }

    private Program build() {
        if (bigKernels) {
            // the big op's operands are the first parameters (up to five: a convolution with its BatchNorm)
            for (int attempt = 0; attempt < 16 && !bigKernel(); attempt++) { /* another shape */ }
            if (inputs.isEmpty()) input(randomType());
        } else {
            int first = 1 + rnd.nextInt(3);
            for (int i = 0; i < first; i++) input(randomType());
        }
        if (rnd.nextInt(6) == 0 && hasRoom()) aliasInput();
        int statements = 3 + rnd.nextInt(10);
        for (int s = 0; s < statements; s++) {
            for (int attempt = 0; attempt < 8 && !step(); attempt++) { /* try another op */ }
        }
        List<Var> defined = new ArrayList<>();
        for (Stmt s : body) if (s.defines() != null) defined.add(s.defines());
        if (defined.isEmpty()) defined.add(let(pool.getFirst().type(), "$0.clone()", pool.getFirst()));
        List<Var> returns = new ArrayList<>(List.of(defined.getLast()));
        if (rnd.nextInt(10) < 3) returns.add(pool.get(rnd.nextInt(pool.size())));
        Program.Training training = modelOps ? training(seed) : null;
        // a program that trains its modules returns their outputs too (no draw: the family's statements stay the ones they were),
        // so the loss reaches every module whatever the last statement computes
        if (training != null) for (Stmt s : body) if (s instanceof Stmt.Held h && !returns.contains(h.out())) returns.add(h.out());
        return new Program(seed, inputs, scalars, body, returns, training);
    }

    private boolean step() {
        // the one extra draw only in the family's programs: every other program's draws are the ones they were
        if (modelOps && rnd.nextInt(4) == 0) return modelOp();
        if (recentOps && rnd.nextInt(4) == 0) return recentOp();
        int r = rnd.nextInt(190);
        if (r < 20) return unary();
        if (r < 42) return binary();
        if (r < 52) return reduction();
        if (r < 59) return normalization();
        if (r < 69) return matmul();
        if (r < 72) return conv();
        if (r < 86) return view();
        if (r < 96) return inPlace();
        if (r < 100) return outForm();
        if (r < 103) return concat();
        if (r < 106) return cast();
        if (r < 109) return dataDependentBranch();
        if (r < 112) return graphBreak();
        if (r < 116) return recurrentLoop();
        if (r < 120) return scalarAcrossBreak();
        if (r < 124) return factory();
        if (r < 132) return javaNumber();
        // the op families added later: 58 of 190, the ones above keep their shares of the rest
        if (r < 139) return compare();
        if (r < 147) return mask();
        if (r < 151) return clamp();
        if (r < 155) return cumsum();
        if (r < 165) return indexing();
        if (r < 170) return pool();
        if (r < 174) return integerDivision();
        if (r < 178) return sortAndTopk();
        if (r < 183) return batchNorm();
        return misc();
    }

    // ------------------------------------------------------------------ types and variables

    private TensorType randomType() {
        int d = rnd.nextInt(20);
        DType dtype = d < 14 ? DType.FLOAT32 : d < 16 ? DType.FLOAT64 : d < 19 ? DType.INT64 : DType.INT32;
        int rank = new int[] {0, 1, 1, 2, 2, 2, 3, 3, 4}[rnd.nextInt(9)];
        int[] shape = new int[rank];
        for (int i = 0; i < rank; i++) shape[i] = dim();
        return TensorType.of(dtype, shape);
    }

    private int dim() {
        if (zeroSizes && rnd.nextInt(6) == 0) return 0;
        return DIMS[rnd.nextInt(DIMS.length)];
    }

    /** A new parameter of type {@code t}: its own tensor, in a random layout. */
    private Var input(TensorType t) { return input(t, true); }

    /** A new parameter of type {@code t}; never an expanded (read-only) one unless {@code mayExpand}. */
    private Var input(TensorType t, boolean mayExpand) {
        Var v = new Var("a" + inputs.size(), t);
        Input.Layout layout = Input.Layout.values()[rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(mayExpand ? 3 : 2) : 0];
        if (!Input.canUse(layout, t)) layout = Input.Layout.CONTIGUOUS;
        if (t.isFloat() && layout != Input.Layout.EXPANDED) distinct.add(v);
        inputs.add(new Input(v, layout, -1));
        storage.put(v, nextStorage++);
        if (layout == Input.Layout.EXPANDED) readOnly.add(v);
        pool.add(v);
        return v;
    }

    /** A parameter that receives the same tensor as an earlier one: writes through either name are seen through both. */
    private void aliasInput() {
        int i = rnd.nextInt(inputs.size());
        Var earlier = inputs.get(i).param(), v = new Var("a" + inputs.size(), earlier.type());
        inputs.add(new Input(v, inputs.get(i).layout(), i));
        storage.put(v, storage.get(earlier));
        if (readOnly.contains(earlier)) readOnly.add(v);
        pool.add(v);
    }

    /** A variable of type {@code t} from the pool, else a new input when there is room, else null. */
    private Var findOrInput(TensorType t) {
        Var v = pick(x -> x.type().equals(t));
        if (v != null) return v;
        return hasRoom() ? input(t) : null;
    }

    /** Whether another parameter fits ({@code Fn5} at most). */
    private boolean hasRoom() { return inputs.size() + scalars.size() < 5; }

    private Var let(TensorType t, String template, Var... args) {
        Var v = new Var("v" + nextVar++, t);
        body.add(new Stmt.Let(v, Call.of(template, args)));
        storage.put(v, nextStorage++);
        pool.add(v);
        return v;
    }

    /** A view of {@code src}: it shares src's memory (and its read-only-ness). */
    private Var view(TensorType t, String template, Var src) {
        Var v = let(t, template, src);
        storage.put(v, storage.get(src));
        if (readOnly.contains(src)) readOnly.add(v);
        if (distinct.contains(src) && !template.contains("expand(")) distinct.add(v);
        return v;
    }

    /** {@code call;} writing {@code target}: its memory's elements are no longer known to be distinct. */
    private void mutate(Var target, Call call) {
        body.add(new Stmt.Mutate(target, call));
        written(target);
    }

    /** Records that {@code target}'s memory is written: no name for it is known distinct any more. */
    private void written(Var target) {
        distinct.removeIf(v -> shares(v, target));
    }

    /** A random pool variable matching {@code p}, preferring recent ones (so ops chain into fusable runs); null when none. */
    private Var pick(Predicate<Var> p) {
        List<Var> ok = pool.stream().filter(p).toList();
        if (ok.isEmpty()) return null;
        if (rnd.nextBoolean()) return ok.get(Math.max(0, ok.size() - 1 - rnd.nextInt(Math.min(3, ok.size()))));
        return ok.get(rnd.nextInt(ok.size()));
    }

    private <T> T oneOf(List<T> xs) { return xs.get(rnd.nextInt(xs.size())); }

    private boolean shares(Var a, Var b) { return storage.get(a).equals(storage.get(b)); }

    private static Predicate<Var> isFloat() { return v -> v.type().isFloat(); }

    // ------------------------------------------------------------------ ops

    /**
     * A unary op. {@code sin} and {@code cos} take a clamped argument, as {@code exp} does: a periodic
     * function of a large value turns one unit of rounding in it into a different answer (seed
     * 270044: the cosine of a 58,320-element sum near 3.7e5, where eager's float32 sum rounded to the
     * nearest float and the compiled one to the next, 1 ulp = 0.03, changed the result by 0.02).
     * For the same reason the rounding ops (floor, round, frac, …) are left out: one ulp of a sum
     * that rounds apart in eager and compiled code moves them by a whole unit. Of the inverse
     * hyperbolic functions, asinh is defined on every real; acosh and atanh take an argument kept
     * inside their domain and away from its ends, where their derivatives are infinite.
     */
    private boolean unary() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        String op = a.type().isFloat()
                ? oneOf(List.of("$0.relu()", "$0.tanh()", "$0.sigmoid()", "$0.neg()", "$0.abs()", "$0.clamp(-4.0, 4.0).exp()",
                        "$0.abs().log1p()", "$0.abs().sqrt()", "$0.clamp(-8.0, 8.0).sin()", "$0.clamp(-8.0, 8.0).cos()", "$0.gelu()", "$0.silu()", "$0.mul(0.5)",
                        "$0.add(1.5)", "$0.sub(0.25)", "$0.clampMin(-0.5)", "F.relu($0)", "$0.pow(2.0)", "$0.rsub(1.0)", "F.sigmoid($0)", "$0.erf()",
                        "$0.atan()", "$0.clamp(-4.0, 4.0).sinh()", "$0.clamp(-4.0, 4.0).expm1()", "$0.abs().add(1.0).log2()", "$0.div(3.0)", "$0.nanToNum()",
                        "$0.asinh()", "$0.abs().add(1.5).acosh()", "$0.clamp(-0.5, 0.5).atanh()"))
                : oneOf(List.of("$0.neg()", "$0.abs()", "$0.add(2L)", "$0.mul(3L)", "$0.relu()", "$0.sub(1L)", "$0.sign()", "$0.bitwiseNot()", "$0.bitwiseXor(5L)"));
        let(a.type(), op, a);
        return true;
    }

    private boolean binary() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        Var b = pick(v -> !v.type().dtype().isBool() && Shapes.broadcast(a.type().shape(), v.type().shape()) != null
                && (v.type().dtype() == a.type().dtype() || v.type().rank() > 0 && a.type().rank() > 0));
        if (b == null) return false;
        DType dtype = DType.promote(a.type().dtype(), b.type().dtype());
        TensorType out = new TensorType(dtype, Shapes.broadcast(a.type().shape(), b.type().shape()));
        List<String> ops = new ArrayList<>(List.of("$0.add($1)", "$0.sub($1)", "$0.mul($1)", "$0.maximum($1)", "$0.minimum($1)"));
        if (dtype.isFloatingPoint()) ops.addAll(List.of("$0.div($1.abs().add(1.0))", "$0.add($1, 0.5)"));
        if (a.type().dtype() == b.type().dtype()) ops.add("Tensor.where($0.gt($1), $0, $1)");
        if (dtype.isFloatingPoint() && b.type().isFloat()) ops.addAll(List.of("$0.mul($1.sigmoid())", "$0.atan2($1)"));
        if (!dtype.isFloatingPoint()) ops.addAll(List.of("$0.bitwiseAnd($1)", "$0.bitwiseOr($1)", "$0.bitwiseXor($1)"));
        let(out, oneOf(ops), a, b);
        return true;
    }

    private boolean reduction() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        TensorType t = a.type();
        boolean f = t.isFloat();
        DType sumType = f ? t.dtype() : DType.INT64;
        if (t.rank() == 0 || rnd.nextInt(4) == 0) {
            List<String> ops = new ArrayList<>(List.of("$0.sum()"));
            if (f) ops.add("$0.mean()");
            if (t.numel() > 0) ops.add("$0.amax()");
            String op = oneOf(ops);
            let(TensorType.of(op.contains("sum") ? sumType : t.dtype()), op, a);
            return true;
        }
        int d = rnd.nextInt(t.rank());
        boolean keep = rnd.nextBoolean();
        List<Integer> shape = keep ? Shapes.with(t.shape(), d, 1) : Shapes.without(t.shape(), d);
        int dimArg = rnd.nextInt(4) == 0 ? d - t.rank() : d;
        String args = "(" + dimArg + ", " + keep + ")";
        List<String> ops = new ArrayList<>(List.of("sum"));
        if (f) ops.add("mean");
        if (t.size(d) > 0) ops.addAll(List.of("amax", "amin", "argmax"));
        if (f && t.size(d) > 1) ops.add("var");
        String op = oneOf(ops);
        DType dtype = switch (op) {
            case "sum" -> sumType;
            case "argmax" -> DType.INT64;
            default -> t.dtype();
        };
        let(new TensorType(dtype, shape), "$0." + op + args, a);
        return true;
    }

    private boolean normalization() {
        Var a = pick(v -> v.type().isFloat() && v.type().rank() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        if (rnd.nextBoolean()) {
            int d = rnd.nextInt(t.rank());
            let(t, oneOf(List.of("$0.softmax(" + d + ")", "$0.logSoftmax(" + d + ")", "F.softmax($0, " + d + ")")), a);
            return true;
        }
        int n = t.size(t.rank() - 1);
        TensorType affine = TensorType.of(t.dtype(), n);
        if (rnd.nextBoolean()) {
            Var w = findOrInput(affine), b = findOrInput(affine);
            if (w != null && b != null) {
                let(t, "F.layerNorm($0, new int[] {" + n + "}, $1, $2, 1e-5)", a, w, b);
                return true;
            }
        }
        let(t, "F.layerNorm($0, new int[] {" + n + "})", a);
        return true;
    }

    private boolean matmul() {
        Var a = pick(v -> v.type().isFloat() && (v.type().rank() == 2 || v.type().rank() == 3));
        if (a == null) return false;
        TensorType t = a.type();
        DType dt = t.dtype();
        int k = t.size(t.rank() - 1), m = t.size(t.rank() - 2), n = rnd.nextInt(3) == 0 ? 32 : dim();
        List<Integer> outShape = Shapes.with(t.shape(), t.rank() - 1, n);
        int kind = rnd.nextInt(5);
        if (kind == 0 && t.rank() == 3) {
            Var b = findOrInput(TensorType.of(dt, t.size(0), k, n));
            if (b == null) return false;
            let(new TensorType(dt, outShape), "$0.bmm($1)", a, b);
        } else if (kind == 1) {
            Var w = findOrInput(TensorType.of(dt, n, k));
            if (w == null) return false;
            Var bias = rnd.nextBoolean() ? findOrInput(TensorType.of(dt, n)) : null;
            if (bias == null) let(new TensorType(dt, outShape), "F.linear($0, $1)", a, w);
            else let(new TensorType(dt, outShape), "F.linear($0, $1, $2)", a, w, bias);
        } else if (kind == 2 && t.rank() == 2) {
            Var w = findOrInput(TensorType.of(dt, k, n)), bias = findOrInput(TensorType.of(dt, n));
            if (w == null || bias == null) return false;
            let(TensorType.of(dt, m, n), "Tensor.addmm($2, $0, $1)", a, w, bias);
        } else {
            Var w = findOrInput(TensorType.of(dt, k, n));
            if (w == null) return false;
            let(new TensorType(dt, outShape), t.rank() == 2 && rnd.nextBoolean() ? "$0.mm($1)" : "$0.matmul($1)", a, w);
        }
        return true;
    }

    // ------------------------------------------------------------------ the big kernels

    /**
     * A product or convolution of the sizes the hand-written kernels take: the few-row and
     * long-dot-product GEMMs ({@code GemmDot}, {@code GemmBroadcast}), batched products split in
     * row bands, Winograd's and the direct convolution's channel counts and images (and batches of
     * enough tiles for the Winograd weight gradient), and, around
     * them, OpenBLAS and im2col. Eager and compiled code both call these kernels, so what the
     * differential run checks is everything around them: operand layouts (transposed, sliced,
     * batched), epilogues fused into the product, the convolution's BatchNorm and ReLU, the
     * gradients' products in training, and the tiers (a kernel still cold runs on OpenBLAS, and the
     * first eager run and a later compiled one may take different tiers).
     */
    private boolean bigKernel() {
        return rnd.nextInt(3) == 0 ? bigConv() : bigProduct();
    }

    private static final int[] BIG_ROWS = {1, 2, 3, 4, 5, 8, 13, 16, 17, 33, 64, 100, 256};
    private static final int[] BIG_REDUCTIONS = {64, 65, 128, 300, 512, 640};
    private static final int[] BIG_COLUMNS = {64, 200, 256, 512, 513, 1024, 1100};

    private int oneOf(int[] xs) { return xs[rnd.nextInt(xs.length)]; }

    private boolean bigProduct() {
        int m = oneOf(BIG_ROWS), k = oneOf(BIG_REDUCTIONS), n = oneOf(BIG_COLUMNS);
        if ((long) m * n * k < 1 << 19 && rnd.nextInt(4) != 0) return false;   // mostly the kernels' sizes, some below them
        if ((long) m * n * k > 1L << 24) return false;   // at most 34 MFLOP: the run keeps its pace (the float64 reference runs it too)
        DType dt = rnd.nextInt(8) == 0 ? DType.FLOAT64 : DType.FLOAT32;
        switch (rnd.nextInt(5)) {
            case 0 -> {
                Var a = input(TensorType.of(dt, m, k)), w = input(TensorType.of(dt, n, k));
                Var bias = rnd.nextBoolean() ? input(TensorType.of(dt, n)) : null;
                if (bias == null) let(TensorType.of(dt, m, n), "F.linear($0, $1)", a, w);
                else let(TensorType.of(dt, m, n), "F.linear($0, $1, $2)", a, w, bias);
            }
            case 1 -> {
                // A read through its transpose: the product's left operand is column-major
                Var at = input(TensorType.of(dt, k, m)), b = input(TensorType.of(dt, k, n));
                let(TensorType.of(dt, m, n), "$0.t().matmul($1)", at, b);
            }
            case 2 -> {
                Var a = input(TensorType.of(dt, m, k)), b = input(TensorType.of(dt, k, n)), bias = input(TensorType.of(dt, n));
                let(TensorType.of(dt, m, n), "Tensor.addmm($2, $0, $1)", a, b, bias);
            }
            case 3 -> {
                // batched: a stack of products (the band planner splits their rows) or one operand shared
                int batch = 2 + rnd.nextInt(2), rows = Math.min(m, 100);
                Var a = input(TensorType.of(dt, batch, rows, k));
                if (rnd.nextBoolean()) {
                    Var b = input(TensorType.of(dt, batch, k, Math.min(n, 513)));
                    let(TensorType.of(dt, batch, rows, Math.min(n, 513)), "$0.bmm($1)", a, b);
                } else {
                    Var b = input(TensorType.of(dt, k, n));
                    let(TensorType.of(dt, batch, rows, n), "$0.matmul($1)", a, b);
                }
            }
            default -> {
                Var a = input(TensorType.of(dt, m, k)), b = input(TensorType.of(dt, k, n));
                let(TensorType.of(dt, m, n), "$0.mm($1).relu()", a, b);
            }
        }
        return true;
    }

    private boolean bigConv() {
        int c = oneOf(new int[] {32, 48, 64}), o = oneOf(new int[] {32, 40, 64}), batch = 1 + rnd.nextInt(2);
        int size = 26 + rnd.nextInt(8);
        if (rnd.nextInt(4) == 0) {
            // a 56x56 image: Winograd with 32 channels (fewer tiles suit it only from 64)
            c = o = 32;
            batch = 1;
            size = 56 + rnd.nextInt(3);
        } else if (rnd.nextInt(3) == 0) {
            // four 28x28 images: 784 tiles, where the weight's gradient runs Winograd too (ConvWinogradWeight), as the 56x56 image's does
            batch = 4;
            size = 28 + rnd.nextInt(2);
        }
        int kernel = rnd.nextInt(4) == 0 ? oneOf(new int[] {1, 2, 5}) : 3, stride = rnd.nextInt(5) == 0 ? 2 : 1, pad = kernel / 2;
        int out = (size + 2 * pad - kernel) / stride + 1;
        DType dt = rnd.nextInt(8) == 0 ? DType.FLOAT64 : DType.FLOAT32;
        Var x = input(TensorType.of(dt, batch, c, size, size)), weight = input(TensorType.of(dt, o, c, kernel, kernel));
        Var bias = rnd.nextBoolean() ? input(TensorType.of(dt, o)) : null;
        TensorType outType = TensorType.of(dt, batch, o, out, out);
        String args = ", " + stride + ", " + pad + ")";
        Var y = bias == null ? let(outType, "F.conv2d($0, $1, null" + args, x, weight) : let(outType, "F.conv2d($0, $1, $2" + args, x, weight, bias);
        if (rnd.nextBoolean() && hasRoom()) {
            // eval BatchNorm and ReLU after it: the Conv-BN-ReLU stack the pre-grad passes and epilogues rewrite
            Var mean = input(TensorType.of(dt, o)), var = hasRoom() ? input(TensorType.of(dt, o)) : mean;
            let(outType, "F.batchNorm($0, $1, $2.abs().add(0.5), null, null, false, 0.1, 1e-5).relu()", y, mean, var);
        }
        return true;
    }

    private boolean conv() {
        Var x = pick(v -> v.type().isFloat() && v.type().rank() == 4 && v.type().size(1) > 0);
        if (x == null) {
            if (inputs.size() + scalars.size() >= 4) return false;
            x = input(TensorType.of(rnd.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32, 1 + rnd.nextInt(2), 1 + rnd.nextInt(4), 4 + rnd.nextInt(5), 4 + rnd.nextInt(5)));
        }
        TensorType t = x.type();
        int kh = 1 + rnd.nextInt(3), kw = 1 + rnd.nextInt(3), stride = 1 + rnd.nextInt(2), pad = rnd.nextInt(2), outC = 1 + rnd.nextInt(8);
        int h = (t.size(2) + 2 * pad - kh) / stride + 1, w = (t.size(3) + 2 * pad - kw) / stride + 1;
        if (h <= 0 || w <= 0 || t.size(2) + 2 * pad < kh || t.size(3) + 2 * pad < kw) return false;
        Var weight = findOrInput(TensorType.of(t.dtype(), outC, t.size(1), kh, kw));
        if (weight == null) return false;
        Var bias = rnd.nextBoolean() ? findOrInput(TensorType.of(t.dtype(), outC)) : null;
        TensorType out = TensorType.of(t.dtype(), t.size(0), outC, h, w);
        if (bias == null) let(out, "F.conv2d($0, $1, null, " + stride + ", " + pad + ")", x, weight);
        else let(out, "F.conv2d($0, $1, $2, " + stride + ", " + pad + ")", x, weight, bias);
        return true;
    }

    private boolean view() {
        Var a = pick(v -> true);
        TensorType t = a.type();
        int r = t.rank();
        List<Supplier<Boolean>> options = new ArrayList<>();
        if (r >= 2) {
            options.add(() -> {
                int d0 = rnd.nextInt(r), d1 = rnd.nextInt(r);
                List<Integer> s = new ArrayList<>(t.shape());
                Collections.swap(s, d0, d1);
                view(t.withShape(s), "$0.transpose(" + d0 + ", " + d1 + ")", a);
                return true;
            });
            options.add(() -> {
                List<Integer> perm = new ArrayList<>();
                for (int i = 0; i < r; i++) perm.add(i);
                Collections.shuffle(perm, rnd);
                view(t.withShape(perm.stream().map(t::size).toList()), "$0.permute(" + join(perm) + ")", a);
                return true;
            });
        }
        if (r == 2) options.add(() -> { view(t.withShape(List.of(t.size(1), t.size(0))), "$0.t()", a); return true; });
        if (r >= 1) {
            int d = rnd.nextInt(r), size = t.size(d);
            if (size > 0) {
                options.add(() -> {
                    int start = rnd.nextInt(size), len = 1 + rnd.nextInt(size - start);
                    view(t.withShape(Shapes.with(t.shape(), d, len)), "$0.narrow(" + d + ", " + start + ", " + len + ")", a);
                    return true;
                });
                options.add(() -> {
                    int i = rnd.nextInt(size);
                    view(t.withShape(Shapes.without(t.shape(), d)), "$0.select(" + d + ", " + (rnd.nextBoolean() ? i : i - size) + ")", a);
                    return true;
                });
                options.add(() -> {
                    int start = rnd.nextInt(size);
                    view(t.withShape(Shapes.with(t.shape(), d, (size - start + 1) / 2)), "$0.slice(" + d + ", " + start + ", " + size + ", 2)", a);
                    return true;
                });
            }
            if (size == 1) options.add(() -> { view(t.withShape(Shapes.without(t.shape(), d)), "$0.squeeze(" + d + ")", a); return true; });
            if (size == 1) options.add(() -> {
                Var e = view(t.withShape(Shapes.with(t.shape(), d, 3)), "$0.expand(" + join(Shapes.with(t.shape(), d, 3)) + ")", a);
                readOnly.add(e);
                return true;
            });
            // reshape copies when the strides do not allow a view: conservatively, it may share memory.
            options.add(() -> { view(t.withShape(List.of(t.numel())), rnd.nextBoolean() ? "$0.reshape(-1)" : "$0.flatten()", a); return true; });
        }
        int u = rnd.nextInt(r + 1);
        options.add(() -> { view(t.withShape(Shapes.inserted(t.shape(), u, 1)), "$0.unsqueeze(" + u + ")", a); return true; });
        options.add(() -> { let(t, "$0.clone()", a); return true; });
        options.add(() -> { view(t, "$0.contiguous()", a); return true; });
        return oneOf(options).get();
    }

    private static String join(List<Integer> xs) { return String.join(", ", xs.stream().map(String::valueOf).toList()); }

    /** A variable that may be written: not expanded (nor a view of an expanded one). */
    private Predicate<Var> writable() { return v -> !readOnly.contains(v) && !v.type().dtype().isBool(); }

    private boolean inPlace() {
        Var t = pick(writable());
        if (t == null) return false;
        TensorType tt = t.type();
        Var b = pick(v -> v.type().dtype() == tt.dtype() && !shares(v, t) && Shapes.broadcastsTo(v.type().shape(), tt.shape()));
        List<Call> ops = new ArrayList<>();
        if (tt.isFloat()) {
            for (String s : List.of("$0.mul_(0.5)", "$0.relu_()", "$0.tanh_()", "$0.sigmoid_()", "$0.clamp_(-1.0, 1.0)", "$0.add_(1.0)",
                    "$0.neg_()", "$0.fill_(0.5)", "$0.zero_()", "$0.exp_()")) {
                ops.add(Call.of(s.equals("$0.exp_()") ? "$0.clamp_(-3.0, 3.0).exp_()" : s, t));
            }
            if (b != null) for (String s : List.of("$0.add_($1)", "$0.mul_($1)", "$0.sub_($1)", "$0.copy_($1)", "$0.add_($1, 0.5)", "$0.div_($1.abs().add(1.0))")) ops.add(Call.of(s, t, b));
        } else {
            for (String s : List.of("$0.add_(1L)", "$0.neg_()", "$0.abs_()", "$0.zero_()")) ops.add(Call.of(s, t));
            if (b != null) for (String s : List.of("$0.add_($1)", "$0.sub_($1)", "$0.mul_($1)", "$0.copy_($1)")) ops.add(Call.of(s, t, b));
        }
        mutate(t, oneOf(ops));
        return true;
    }

    private boolean outForm() {
        Var out = pick(writable());
        if (out == null) return false;
        TensorType ot = out.type();
        Var a = pick(v -> v.type().dtype() == ot.dtype() && !shares(v, out) && Shapes.broadcastsTo(v.type().shape(), ot.shape()));
        if (a == null) return false;
        if (ot.isFloat() && rnd.nextBoolean()) {
            if (!a.type().equals(ot)) return false;
            String op = oneOf(List.of("tanhOut", "sigmoidOut", "negOut", "absOut", "expOut", "sinOut"));
            mutate(out, Call.of(op.equals("expOut") ? "$1.tanh().expOut($0)" : "$1." + op + "($0)", out, a));
            return true;
        }
        Var b = pick(v -> v.type().dtype() == ot.dtype() && !shares(v, out)
                && Shapes.broadcast(a.type().shape(), v.type().shape()) != null && Shapes.broadcast(a.type().shape(), v.type().shape()).equals(ot.shape()));
        if (b == null) return false;
        String op = oneOf(ot.isFloat() ? List.of("addOut", "subOut", "mulOut", "maximumOut", "minimumOut") : List.of("addOut", "subOut", "mulOut"));
        mutate(out, Call.of("$1." + op + "($2, $0)", out, a, b));
        return true;
    }

    private boolean concat() {
        Var a = pick(v -> v.type().rank() > 0);
        if (a == null) return false;
        Var b = pick(v -> v.type().equals(a.type()));
        TensorType t = a.type();
        if (rnd.nextBoolean()) {
            int d = rnd.nextInt(t.rank());
            let(t.withShape(Shapes.with(t.shape(), d, 2 * t.size(d))), "Tensor.cat(List.of($0, $1), " + d + ")", a, b);
        } else {
            int d = rnd.nextInt(t.rank() + 1);
            let(t.withShape(Shapes.inserted(t.shape(), d, 2)), "Tensor.stack(List.of($0, $1), " + d + ")", a, b);
        }
        return true;
    }

    private boolean cast() {
        Var a = pick(v -> true);
        DType from = a.type().dtype();
        // Never from floating point to an integer type: a value rounding across an integer would change the answer.
        List<DType> targets = from.isFloatingPoint() ? List.of(DType.FLOAT32, DType.FLOAT64) : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64);
        DType to = oneOf(targets);
        if (to == from) return false;
        let(a.type().withDtype(to), "$0.to(DType." + to.name() + ")", a);
        return true;
    }

    /**
     * A branch on a tensor's value: {@code item()} breaks the graph, and each side compiles into its
     * own entry. The threshold is no value a sum takes by construction: the sum of a normalized
     * tensor (layer_norm, batch_norm) is 0 in exact arithmetic, so a branch at 0 went whichever way
     * rounding noise said, in eager and compiled alike (seeds 104936, 120222: false alarms).
     */
    private boolean dataDependentBranch() {
        Var c = pick(v -> !v.type().dtype().isBool()), x = pick(v -> !v.type().dtype().isBool());
        if (c == null) return false;
        let(x.type(), "$0.sum().item() > 0.37 ? $1.relu() : $1.neg()", c, x);
        return true;
    }

    /**
     * A number read from tensor data (a graph break: capture_scalar_outputs is off) and used after it,
     * so the resume method's graph takes it as a 0-d input and computes with it; the runner's call with
     * new input values then checks that no value of it was baked in.
     */
    private boolean scalarAcrossBreak() {
        Var c = pick(v -> v.type().dtype().isFloatingPoint()), x = pick(v -> v.type().dtype().isFloatingPoint());
        if (c == null) return false;
        let(x.type(), oneOf(List.of("$1.mul($0.sum().item() * 0.5 + 1.0)", "$1.add($0.sum().item()).div(2.0)",
                "$1.sub($0.sum().item() / 3.0).mul(-1.5)")), c, x);
        return true;
    }

    private boolean graphBreak() {
        if (!body.isEmpty() && body.getLast() instanceof Stmt.Break) return false;
        body.add(new Stmt.Break());
        return true;
    }

    /** An RNN cell run for a few steps, each step's output fed into the next step's GEMM. */
    private boolean recurrentLoop() {
        Var seq = pick(v -> v.type().dtype() == DType.FLOAT32 && v.type().rank() == 3 && v.type().size(1) >= 2);
        if (seq == null) {
            if (inputs.size() + scalars.size() >= 3) return false;
            seq = input(TensorType.of(DType.FLOAT32, 1 + rnd.nextInt(4), 2 + rnd.nextInt(4), DIMS[rnd.nextInt(DIMS.length)]));
        }
        int batch = seq.type().size(0), in = seq.type().size(2), hidden = oneOf(List.of(4, 8, 16));
        boolean linear = rnd.nextBoolean();
        Var wx = findOrInput(linear ? TensorType.of(DType.FLOAT32, hidden, in) : TensorType.of(DType.FLOAT32, in, hidden));
        Var wh = findOrInput(TensorType.of(DType.FLOAT32, hidden, hidden));
        if (wx == null || wh == null) return false;
        TensorType state = TensorType.of(DType.FLOAT32, batch, hidden);
        Var init = pick(v -> v.type().equals(state));
        if (init == null) init = let(state, "Tensor.zeros(" + batch + ", " + hidden + ")");
        int steps = 2 + rnd.nextInt(Math.min(3, seq.type().size(1) - 1));
        String step = linear ? "F.linear($0.select(1, t), $1).add(F.linear($h, $2)).relu().mul(0.5)"
                : "$0.select(1, t).matmul($1).add($h.matmul($2)).tanh()";
        Var out = new Var("v" + nextVar++, state);
        body.add(new Stmt.Loop(out, init, steps, new Call(step, List.of(seq, wx, wh))));
        storage.put(out, nextStorage++);
        pool.add(out);
        return true;
    }

    // ------------------------------------------------------------------ Java numbers

    private static final List<Double> DOUBLES = List.of(-1.5, -0.75, -0.25, -0.0, 0.0, 0.3, 0.6, 1.0, 1.75);
    private static final List<Double> INTS = List.of(-1.0, 0.0, 1.0, 2.0, 3.0, 4.0);

    /**
     * A Java number the program was passed (a {@code double} or {@code int}, an element of a
     * {@code double[]} or a {@code List<Double>}, a field of a settings object) used as an op's
     * operand, in Java arithmetic, or in a branch. The runner's call with new values changes every
     * one of them ({@link ScalarInput#renewed}), and most move across the branches' thresholds, so
     * a number baked into a graph without a guard, or turned into a graph input of another shape
     * than it was traced with, shows as a difference from eager.
     */
    private boolean javaNumber() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        if (!a.type().isFloat()) {
            String k = intRead();
            if (k == null) return false;
            let(a.type(), oneOf(List.of("$0.add(" + k + ")", "$0.mul(" + k + ")", "(" + k + " % 2 == 0) ? $0.add(1L) : $0.neg()")), a);
            return true;
        }
        String op = switch (rnd.nextInt(5)) {
            case 0, 1 -> {
                String e = doubleExpression();
                yield e == null ? null : oneOf(List.of("$0.mul(" + e + ")", "$0.add(" + e + ")", "$0.sub(" + e + ").mul(0.5)", "Tensor.fullLike($0, " + e + ").add($0)"));
            }
            case 2 -> {
                String e = doubleExpression();
                yield e == null ? null : "(" + e + " > 0.25) ? $0.relu() : $0.neg()";
            }
            case 3 -> {
                String k = intRead();
                yield k == null ? null : oneOf(List.of("(" + k + " % 2 == 0) ? $0.mul(2.0) : $0.sub(1.0)", "(" + k + " > 1) ? $0.tanh() : $0.mul(" + k + ")"));
            }
            default -> {
                // with a number read from tensor data, across the break item() makes
                Var c = pick(v -> v.type().isFloat());
                String e = doubleExpression();
                if (c == null || e == null) yield null;
                let(a.type(), "$0.mul($1.sum().item() * 0.5 + " + e + ")", a, c);
                yield "";
            }
        };
        if (op == null) return false;
        if (!op.isEmpty()) let(a.type(), op, a);
        return true;
    }

    /** Java arithmetic over one or two reads of the program's numbers; null when there is none and no room for one. */
    private String doubleExpression() {
        String r = doubleRead();
        if (r == null) return null;
        String r2 = rnd.nextBoolean() ? doubleRead() : null;
        if (r2 == null) return oneOf(List.of(r, r + " * 0.5 + 1.0", "Math.abs(" + r + ")", "-" + r));
        return oneOf(List.of(r + " - " + r2, "Math.max(" + r + ", " + r2 + ")", "(" + r + " + " + r2 + ") * 2.0"));
    }

    /** A read of a double from a number parameter, a new one when there is room and a coin says so. */
    private String doubleRead() {
        ScalarInput s = scalars.isEmpty() || hasRoom() && rnd.nextInt(3) == 0
                ? scalar(oneOf(List.of(ScalarInput.Kind.values())))
                : oneOf(scalars);
        return s == null ? null : oneOf(s.doubleReads());
    }

    /** A read of an int ({@code int} parameter or settings field), a new parameter when none exists. */
    private String intRead() {
        List<ScalarInput> ints = scalars.stream().filter(s -> !s.intReads().isEmpty()).toList();
        ScalarInput s = ints.isEmpty() || hasRoom() && rnd.nextInt(3) == 0
                ? scalar(rnd.nextBoolean() ? ScalarInput.Kind.INT : ScalarInput.Kind.KNOBS)
                : oneOf(ints);
        return s == null ? null : oneOf(s.intReads());
    }

    /** A new number parameter of {@code kind}, or null when the program has five parameters. */
    private ScalarInput scalar(ScalarInput.Kind kind) {
        if (!hasRoom()) return null;
        List<Double> values = switch (kind) {
            case DOUBLE -> List.of(oneOf(DOUBLES));
            case INT -> List.of(oneOf(INTS));
            case DOUBLE_ARRAY, DOUBLE_LIST -> List.of(oneOf(DOUBLES), oneOf(DOUBLES));
            case KNOBS -> List.of(oneOf(DOUBLES), oneOf(INTS));
        };
        String prefix = switch (kind) {
            case DOUBLE -> "s";
            case INT -> "k";
            case DOUBLE_ARRAY -> "h";
            case DOUBLE_LIST -> "l";
            case KNOBS -> "p";
        };
        ScalarInput s = new ScalarInput(prefix + scalars.size(), kind, values);
        scalars.add(s);
        return s;
    }

    /** A tensor made inside the program (a constant of the graph), combined with a variable. */
    private boolean factory() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        TensorType t = a.type();
        String op = t.isFloat() ? oneOf(List.of("Tensor.onesLike($0).add($0)", "Tensor.fullLike($0, 0.5).mul($0)", "Tensor.zerosLike($0).sub($0)"))
                : oneOf(List.of("Tensor.onesLike($0).add($0)", "Tensor.zerosLike($0).sub($0)"));
        let(t, op, a);
        return true;
    }

    // ------------------------------------------------------------------ comparisons and masks

    private static final List<String> COMPARISONS = List.of("gt", "lt", "ge", "le", "eq", "ne");

    /**
     * A bool mask: a comparison of two tensors, or of one with a number. A comparison turns the
     * smallest difference into another answer, so floats are compared only where no rounding
     * decides it: two tensors only when both hold values no op computed (inputs and views of them,
     * never written), a computed float only with an ordered comparison against a number that no
     * saturating function reaches (not 0 or ±1, where eager's gelu, tanh or sigmoid give an exact
     * constant and compiled code may give a value next to it) nor any constant the generator fills
     * or clamps to.
     */
    private boolean compare() { return compareMask() != null; }

    private Var compareMask() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return null;
        TensorType t = a.type();
        String op = oneOf(COMPARISONS);
        Var b = rnd.nextBoolean() ? null : pick(v -> !v.type().dtype().isBool() && Shapes.broadcast(t.shape(), v.type().shape()) != null
                && (t.isFloat() ? distinct.contains(a) && distinct.contains(v) && v.type().dtype() == t.dtype() : v.type().dtype().isIntegral()
                        && (v.type().dtype() == t.dtype() || v.type().rank() > 0 && t.rank() > 0)));
        if (b != null) return let(new TensorType(DType.BOOL, Shapes.broadcast(t.shape(), b.type().shape())), "$0." + op + "($1)", a, b);
        String number;
        if (!t.isFloat()) {
            number = oneOf(List.of("0.0", "1.0", "-2.0", "3.0"));
        } else {
            op = oneOf(List.of("gt", "lt", "ge", "le"));
            number = oneOf(List.of("0.3", "-0.7", "0.15", "1.3", "-0.35"));
        }
        return let(t.withDtype(DType.BOOL), "$0." + op + "(" + number + ")", a);
    }

    /** A bool mask used: masked fill, where, logical and/or/not, cast to a number. */
    private boolean mask() {
        Var m = pick(v -> v.type().dtype().isBool());
        if (m == null || rnd.nextInt(3) == 0) m = compareMask();
        if (m == null) return false;
        Var mk = m;
        TensorType mt = m.type();
        switch (rnd.nextInt(7)) {
            case 0 -> {   // logical ops
                Var n = pick(v -> v.type().dtype().isBool() && Shapes.broadcast(mt.shape(), v.type().shape()) != null);
                if (n == null || rnd.nextInt(3) == 0) {
                    let(mt, "$0.logicalNot()", m);
                } else {
                    let(mt.withShape(Shapes.broadcast(mt.shape(), n.type().shape())), rnd.nextBoolean() ? "$0.logicalAnd($1)" : "$0.logicalOr($1)", m, n);
                }
            }
            case 1, 2 -> {   // masked fill, out of place or in place
                Var x = pick(v -> !v.type().dtype().isBool() && Shapes.broadcastsTo(mt.shape(), v.type().shape()));
                if (x == null) return false;
                String value = x.type().isFloat() ? oneOf(List.of("0.0", "-1.5", "2.25")) : oneOf(List.of("0.0", "-1.0", "7.0"));
                if (rnd.nextInt(3) == 0 && writable().test(x) && !shares(x, mk)) {
                    mutate(x, Call.of("$0.maskedFill_($1, " + value + ")", x, m));
                } else {
                    let(x.type(), "$0.maskedFill($1, " + value + ")", x, m);
                }
            }
            case 3, 4 -> {   // where on the mask
                Var x = pick(v -> !v.type().dtype().isBool() && Shapes.broadcast(mt.shape(), v.type().shape()) != null);
                if (x == null) return false;
                TensorType xt = x.type();
                Var y = pick(v -> v.type().dtype() == xt.dtype() && Shapes.broadcast(Shapes.broadcast(mt.shape(), xt.shape()), v.type().shape()) != null);
                List<Integer> shape = Shapes.broadcast(mt.shape(), xt.shape());
                String zero = xt.isFloat() ? "0.0" : "0L";
                if (y == null || rnd.nextInt(3) == 0) {
                    let(xt.withShape(shape), rnd.nextBoolean() ? "Tensor.where($0, $1, " + zero + ")" : "Tensor.where($0, " + zero + ", $1)", m, x);
                } else {
                    let(xt.withShape(Shapes.broadcast(shape, y.type().shape())), "Tensor.where($0, $1, $2)", m, x, y);
                }
            }
            case 5 -> {   // the mask as numbers
                Var x = pick(v -> v.type().isFloat() && Shapes.broadcastsTo(mt.shape(), v.type().shape()));
                if (x != null && rnd.nextBoolean()) {
                    let(x.type(), "$0.mul($1.to(DType." + x.type().dtype().name() + "))", x, m);
                } else {
                    let(mt.withDtype(DType.FLOAT32), "$0.to(DType.FLOAT32)", m);
                }
            }
            default -> {   // counted
                if (rnd.nextBoolean() || mt.rank() == 0) let(TensorType.of(DType.INT64), "$0.to(DType.INT64).sum()", m);
                else {
                    int d = rnd.nextInt(mt.rank());
                    let(mt.withShape(Shapes.without(mt.shape(), d)).withDtype(DType.FLOAT32), "$0.to(DType.FLOAT32).sum(" + d + ", false)", m);
                }
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ clamp, cumsum, integer division

    private static final List<String[]> BOUNDS = List.of(new String[] {"-0.5", "0.75"}, new String[] {"-2.0", "-1.0"}, new String[] {"0.0", "1.0"},
            new String[] {"null", "0.25"}, new String[] {"-0.1", "null"});

    /** clamp with both bounds (numbers or tensors), out of place or in place. */
    private boolean clamp() {
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        TensorType t = a.type();
        Var b = pick(v -> v.type().dtype() == t.dtype() && !shares(v, a) && Shapes.broadcastsTo(v.type().shape(), t.shape()));
        if (b != null && (rnd.nextBoolean() || !t.isFloat())) {
            // lower bound -|b| never above upper bound |b|
            if (rnd.nextInt(3) == 0 && writable().test(a)) mutate(a, Call.of("$0.clamp_($1.abs().neg(), $1.abs())", a, b));
            else let(t, "$0.clamp($1.abs().neg(), $1.abs())", a, b);
            return true;
        }
        if (!t.isFloat()) return false;
        String[] lohi = oneOf(BOUNDS);
        String args = lohi[0].equals("null") ? "(Double) null, " + lohi[1] : lohi[1].equals("null") ? lohi[0] + ", (Double) null" : lohi[0] + ", " + lohi[1];
        let(t, "$0.clamp(" + args + ")", a);
        return true;
    }

    /** Running sums along a dim: integers sum to int64. */
    private boolean cumsum() {
        Var a = pick(v -> v.type().rank() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        int d = rnd.nextInt(t.rank()), dimArg = rnd.nextInt(4) == 0 ? d - t.rank() : d;
        if (!t.dtype().isBool() && rnd.nextInt(4) == 0) {
            DType to = t.dtype() == DType.FLOAT64 ? DType.FLOAT64 : rnd.nextBoolean() ? DType.FLOAT64 : DType.FLOAT32;
            let(t.withDtype(to), "$0.cumsum(" + dimArg + ", DType." + to.name() + ")", a);
            return true;
        }
        let(t.withDtype(t.isFloat() ? t.dtype() : DType.INT64), "$0.cumsum(" + dimArg + ")", a);
        return true;
    }

    /** Integer floor / truncating / true division and remainders, by a divisor that is never zero. */
    private boolean integerDivision() {
        Var a = pick(v -> v.type().dtype().isIntegral());
        if (a == null) return false;
        TensorType t = a.type();
        Var b = pick(v -> v.type().dtype().isIntegral() && Shapes.broadcast(t.shape(), v.type().shape()) != null
                && (v.type().dtype() == t.dtype() || v.type().rank() > 0 && t.rank() > 0));
        if (b == null || rnd.nextInt(3) == 0) {
            String k = oneOf(List.of("2L", "3L", "-3L", "5L"));
            let(t, oneOf(List.of("$0.floorDivide(" + k + ")", "$0.remainder(" + k + ")", "$0.fmod(" + k + ")")), a);
            return true;
        }
        DType dtype = DType.promote(t.dtype(), b.type().dtype());
        TensorType out = new TensorType(dtype, Shapes.broadcast(t.shape(), b.type().shape()));
        String divisor = rnd.nextBoolean() ? "$1.abs().add(1L)" : "$1.abs().add(1L).neg()";
        switch (rnd.nextInt(6)) {
            case 0 -> let(out, "$0.div(" + divisor + ", \"floor\")", a, b);
            case 1 -> let(out, "$0.div(" + divisor + ", \"trunc\")", a, b);
            case 2 -> let(out, "$0.remainder(" + divisor + ")", a, b);
            case 3 -> let(out, "$0.fmod(" + divisor + ")", a, b);
            case 4 -> let(out, "$0.floorDivide(" + divisor + ")", a, b);
            default -> let(out.withDtype(DType.FLOAT32), "$0.div(" + divisor + ")", a, b);   // true division: the default float dtype
        }
        return true;
    }

    // ------------------------------------------------------------------ indexing with indices made in the program

    /**
     * {@code Tensor.of(new long[] {…}, shape)}: values below {@code n}, and when {@code distinctDim >= 0}
     * distinct along that dim (a scatter's targets, where a repeated position would not mean one thing).
     */
    private String indexTensor(List<Integer> shape, int n, int distinctDim, boolean int32) {
        int numel = shape.stream().reduce(1, (x, y) -> x * y);
        long[] values = new long[numel];
        int stride = 1;
        if (distinctDim >= 0) for (int i = distinctDim + 1; i < shape.size(); i++) stride *= shape.get(i);
        Map<Integer, Integer> base = new HashMap<>();
        for (int f = 0; f < numel; f++) {
            if (distinctDim < 0) {
                values[f] = rnd.nextInt(n);
            } else {
                int c = (f / stride) % shape.get(distinctDim), line = f - c * stride;
                values[f] = (base.computeIfAbsent(line, x -> rnd.nextInt(n)) + c) % n;
            }
        }
        StringBuilder sb = new StringBuilder("Tensor.of(new " + (int32 ? "int" : "long") + "[] {");
        for (int f = 0; f < numel; f++) sb.append(f == 0 ? "" : ", ").append(values[f]);
        sb.append("}");
        for (int s : shape) sb.append(", ").append(s);
        return sb.append(")").toString();
    }

    /** An index shape like {@code t}'s (at most {@code t}'s sizes off {@code d}, {@code along} on it), of 48 elements at most. */
    private List<Integer> indexShape(TensorType t, int d, int along) {
        List<Integer> s = new ArrayList<>();
        for (int i = 0; i < t.rank(); i++) s.add(i == d ? along : 1 + rnd.nextInt(t.size(i)));
        while (s.stream().reduce(1, (x, y) -> x * y) > 48) {
            int big = s.indexOf(Collections.max(s));
            s.set(big, Math.max(1, s.get(big) / 2));
        }
        return s;
    }

    /** indexSelect, gather, embedding, oneHot, indexAdd, scatter and scatterAdd with in-range int64 indices. */
    private boolean indexing() {
        int kind = rnd.nextInt(8);
        if (kind == 0) {   // embedding lookup into a 2-d table
            Var w = pick(v -> v.type().isFloat() && v.type().rank() == 2 && v.type().size(0) > 0);
            if (w == null) {
                if (!hasRoom()) return false;
                w = input(TensorType.of(rnd.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32, 2 + rnd.nextInt(9), oneOf(List.of(3, 4, 8))));
            }
            List<Integer> shape = rnd.nextBoolean() ? List.of(1 + rnd.nextInt(6)) : List.of(1 + rnd.nextInt(3), 1 + rnd.nextInt(4));
            List<Integer> out = new ArrayList<>(shape);
            out.add(w.type().size(1));
            let(w.type().withShape(out), "F.embedding(" + indexTensor(shape, w.type().size(0), -1, rnd.nextInt(3) == 0) + ", $0)", w);
            return true;
        }
        if (kind == 1) {   // one-hot rows of indices a program computed (a remainder: in range by construction)
            Var a = pick(v -> v.type().dtype() == DType.INT64 && v.type().rank() <= 2);
            if (a == null) return false;
            int c = 2 + rnd.nextInt(4);
            List<Integer> out = new ArrayList<>(a.type().shape());
            out.add(c);
            String onehot = "F.oneHot($0.remainder(" + c + "L), " + c + ")";
            if (rnd.nextBoolean()) let(a.type().withShape(out), onehot, a);
            else let(a.type().withShape(out).withDtype(DType.FLOAT32), onehot + ".to(DType.FLOAT32)", a);
            return true;
        }
        Var a = pick(v -> !v.type().dtype().isBool() && v.type().rank() > 0 && v.type().numel() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        int d = rnd.nextInt(t.rank()), n = t.size(d);
        switch (kind) {
            case 2, 3 -> {   // indexSelect: a 1-d index, repeats allowed
                int len = 1 + rnd.nextInt(5);
                Var idx = rnd.nextInt(4) == 0 ? pick(v -> v.type().dtype() == DType.INT64 && v.type().rank() == 1) : null;
                if (idx != null) {
                    let(t.withShape(Shapes.with(t.shape(), d, idx.type().size(0))), "$0.indexSelect(" + d + ", $1.remainder(" + n + "L))", a, idx);
                } else {
                    let(t.withShape(Shapes.with(t.shape(), d, len)), "$0.indexSelect(" + d + ", " + indexTensor(List.of(len), n, -1, false) + ")", a);
                }
            }
            case 4, 5 -> {   // gather: an index of the input's rank
                List<Integer> s = indexShape(t, d, 1 + rnd.nextInt(4));
                let(t.withShape(s), "$0.gather(" + d + ", " + indexTensor(s, n, -1, false) + ")", a);
            }
            case 6 -> {   // indexAdd: slices of a source added at (possibly repeated) positions
                int len = 1 + rnd.nextInt(4);
                Var src = findOrInput(t.withShape(Shapes.with(t.shape(), d, len)));
                if (src == null) return false;
                String idx = indexTensor(List.of(len), n, -1, false);
                if (rnd.nextInt(3) == 0 && writable().test(a) && !shares(a, src)) mutate(a, Call.of("$0.indexAdd_(" + d + ", " + idx + ", $1)", a, src));
                else let(t, "$0.indexAdd(" + d + ", " + idx + ", $1)", a, src);
            }
            default -> {   // scatter (distinct positions along d) or scatterAdd (repeats sum)
                List<Integer> s = indexShape(t, d, 1 + rnd.nextInt(Math.min(4, n)));
                boolean add = rnd.nextBoolean();
                String idx = indexTensor(s, n, add ? -1 : d, false);
                if (!add && t.isFloat() && rnd.nextBoolean()) {
                    let(t, "$0.scatter(" + d + ", " + idx + ", 0.5)", a);
                    return true;
                }
                Var src = findOrInput(t.withShape(s));
                if (src == null) return false;
                let(t, "$0." + (add ? "scatterAdd" : "scatter") + "(" + d + ", " + idx + ", $1)", a, src);
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ pooling and batch norm

    /** A float [N, C, H, W] variable, or a new input of one when none and there is room; null otherwise. */
    private Var image() {
        Var x = pick(v -> v.type().isFloat() && v.type().rank() == 4 && v.type().numel() > 0);
        if (x != null || inputs.size() + scalars.size() >= 4) return x;
        return input(TensorType.of(rnd.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32, 1 + rnd.nextInt(2), 1 + rnd.nextInt(4), 3 + rnd.nextInt(6), 3 + rnd.nextInt(6)));
    }

    /** maxPool2d, avgPool2d (padding counted or not), adaptiveAvgPool2d, with windows that fit the shape. */
    private boolean pool() {
        Var x = image();
        if (x == null) return false;
        TensorType t = x.type();
        int h = t.size(2), w = t.size(3);
        if (rnd.nextInt(5) == 0) {
            int o = 1 + rnd.nextInt(Math.min(3, Math.min(h, w)));
            let(t.withShape(List.of(t.size(0), t.size(1), o, o)), "F.adaptiveAvgPool2d($0, " + o + ")", x);
            return true;
        }
        int k = 1 + rnd.nextInt(3), s = 1 + rnd.nextInt(2), p = rnd.nextInt(k / 2 + 1);
        if (h + 2 * p < k || w + 2 * p < k) return false;
        List<Integer> out = List.of(t.size(0), t.size(1), (h + 2 * p - k) / s + 1, (w + 2 * p - k) / s + 1);
        String args = ", " + k + ", " + s + ", " + p + ")";
        switch (rnd.nextInt(5)) {
            case 0, 1 -> let(t.withShape(out), "F.maxPool2d($0" + args, x);
            case 2 -> let(t.withShape(out), "F.avgPool2d($0" + args, x);
            case 3 -> let(t.withShape(out), "F.avgPool2d($0, new int[] {" + k + ", " + k + "}, new int[] {" + s + ", " + s + "}, new int[] {" + p + ", " + p
                    + "}, false, false, null)", x);
            default -> {
                if (h < k || w < k) return false;
                let(t.withShape(List.of(t.size(0), t.size(1), h / k, w / k)), "F.maxPool2d($0, " + k + ")", x);
            }
        }
        return true;
    }

    /**
     * F.batchNorm over dim 1: in training with the batch's statistics (writing running statistics,
     * when given, in place), or in evaluation with running statistics (the variance kept positive).
     */
    private boolean batchNorm() {
        Var found = pick(v -> v.type().isFloat() && v.type().rank() >= 2 && v.type().rank() <= 4 && v.type().numel() > 0);
        Var x = found != null ? found : image();
        if (x == null) return false;
        TensorType t = x.type();
        int c = t.size(1);
        TensorType stat = TensorType.of(t.dtype(), c);
        boolean training = t.numel() / c > 1 && rnd.nextInt(3) != 0;   // training needs more than one value per channel
        List<Var> args = new ArrayList<>(List.of(x));
        String mean, var;
        if (training && rnd.nextInt(4) == 0) {
            mean = "null";
            var = "null";
        } else if (training) {
            // written in place: writable, and sharing memory with nothing else the call reads
            Var rm = pick(v -> v.type().equals(stat) && writable().test(v) && !shares(v, x));
            if (rm == null && hasRoom()) rm = input(stat, false);
            if (rm == null) return false;
            Var rm0 = rm;
            Var rv = pick(v -> v.type().equals(stat) && writable().test(v) && !shares(v, x) && !shares(v, rm0));
            if (rv == null && hasRoom()) rv = input(stat, false);
            if (rv == null) return false;
            args.add(rm);
            args.add(rv);
            mean = "$1";
            var = "$2";
        } else {
            Var rm = findOrInput(stat), rv = findOrInput(stat);
            if (rm == null || rv == null) return false;
            args.add(rm);
            args.add(rv);
            mean = "$1";
            var = "$2.abs().add(0.5)";
        }
        String affine = "null, null";
        if (rnd.nextBoolean()) {
            Var w = pick(v -> v.type().equals(stat) && args.stream().skip(1).noneMatch(r -> training && shares(r, v)));
            Var b = pick(v -> v.type().equals(stat) && args.stream().skip(1).noneMatch(r -> training && shares(r, v)));
            if (w != null && b != null) {
                affine = "$" + args.size() + ", $" + (args.size() + 1);
                args.add(w);
                args.add(b);
            }
        }
        let(t, "F.batchNorm($0, " + mean + ", " + var + ", " + affine + ", " + training + ", " + oneOf(List.of("0.1", "0.3")) + ", 1e-5)", args.toArray(Var[]::new));
        if (training && !mean.equals("null")) {
            written(args.get(1));
            written(args.get(2));
        }
        return true;
    }

    // ------------------------------------------------------------------ sort, top-k, arg-min

    /** Sorted values and (stable) positions, top-k values, and top-k positions where no two elements tie. */
    private boolean sortAndTopk() {
        Var a = pick(v -> !v.type().dtype().isBool() && v.type().rank() > 0 && v.type().numel() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        int d = rnd.nextInt(t.rank()), n = t.size(d);
        boolean desc = rnd.nextBoolean();
        switch (rnd.nextInt(4)) {
            case 0 -> let(t, "$0.sort(" + d + ", " + desc + ").get(0)", a);
            case 1 -> {
                // positions: of ints (ties exact, broken stably), or of floats no op computed (where
                // compiled code may turn eager's exact tie, two saturated -0.0s, into two different values)
                if (t.isFloat() && !distinct.contains(a)) return false;
                let(t.withDtype(DType.INT64), rnd.nextBoolean() ? "$0.sort(" + d + ", " + desc + ").get(1)" : "$0.argsort(" + d + ", " + desc + ")", a);
            }
            case 2 -> {
                // a top-k value's gradient picks one of tied elements, argmin's position one of them:
                // ints (no gradient, exact ties, the first one taken) or floats no op computed
                if (t.isFloat() && !distinct.contains(a)) return false;
                if (rnd.nextBoolean()) {
                    boolean keep = rnd.nextBoolean();
                    let(new TensorType(DType.INT64, keep ? Shapes.with(t.shape(), d, 1) : Shapes.without(t.shape(), d)), "$0.argmin(" + d + ", " + keep + ")", a);
                    return true;
                }
                int k = 1 + rnd.nextInt(Math.min(3, n));
                let(t.withShape(Shapes.with(t.shape(), d, k)), "$0.topk(" + k + ", " + d + ", " + desc + ").get(0)", a);
            }
            default -> {
                Var b = pick(v -> distinct.contains(v) && v.type().rank() > 0 && v.type().numel() > 0);
                if (b == null) return false;
                TensorType bt = b.type();
                int e = rnd.nextInt(bt.rank()), k = 1 + rnd.nextInt(Math.min(3, bt.size(e)));
                let(bt.withShape(Shapes.with(bt.shape(), e, k)).withDtype(DType.INT64), "$0.topk(" + k + ", " + e + ", " + desc + ").get(1)", b);
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ more of what user code does

    /** Losses, attention, chunk/split, std, multi-dim sums, softmax to float64, tanh-GELU, rsqrt, dropout in eval. */
    private boolean misc() {
        Var a = pick(v -> v.type().isFloat() && v.type().rank() > 0 && v.type().numel() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        int r = t.rank(), d = rnd.nextInt(r), n = t.size(d);
        switch (rnd.nextInt(10)) {
            case 0 -> {   // cross entropy against class indices in range
                if (r > 2) return false;
                int classes = t.size(r - 1);
                if (r == 1) let(TensorType.of(t.dtype()), "F.crossEntropy($0, Tensor.scalar(" + rnd.nextInt(classes) + "L))", a);
                else let(TensorType.of(t.dtype()), "F.crossEntropy($0, " + indexTensor(List.of(t.size(0)), classes, -1, false) + ")", a);
            }
            case 1 -> {
                Var b = findOrInput(t);
                if (b == null) return false;
                let(TensorType.of(t.dtype()), "F.mseLoss($0, $1)", a, b);
            }
            case 2 -> {   // attention over [B, L, E]: keys and values of the query's shape
                if (r != 3) return false;
                Var k = findOrInput(t), v = findOrInput(t);
                if (k == null || v == null) return false;
                let(t, rnd.nextBoolean() ? "F.scaledDotProductAttention($0, $1, $2)" : "F.scaledDotProductAttention($0, $1, $2, null, 0.0, true)", a, k, v);
            }
            case 3 -> {
                if (n < 2) return false;
                int first = (n + 1) / 2;
                boolean second = rnd.nextBoolean();
                view(t.withShape(Shapes.with(t.shape(), d, second ? n - first : first)), "$0.chunk(2, " + d + ").get(" + (second ? 1 : 0) + ")", a);
            }
            case 4 -> {
                int size = 1 + rnd.nextInt(n), pieces = (n + size - 1) / size, i = rnd.nextInt(pieces);
                view(t.withShape(Shapes.with(t.shape(), d, Math.min(size, n - i * size))), "$0.split(" + size + ", " + d + ").get(" + i + ")", a);
            }
            case 5 -> {
                if (n < 2) return false;
                boolean keep = rnd.nextBoolean();
                let(t.withShape(keep ? Shapes.with(t.shape(), d, 1) : Shapes.without(t.shape(), d)), "$0.std(" + d + ", " + keep + ")", a);
            }
            case 6 -> {
                if (r < 2) return false;
                int e = (d + 1 + rnd.nextInt(r - 1)) % r;
                boolean keep = rnd.nextBoolean();
                List<Integer> shape = new ArrayList<>(t.shape());
                if (keep) {
                    shape.set(d, 1);
                    shape.set(e, 1);
                } else {
                    shape.remove(Math.max(d, e));
                    shape.remove(Math.min(d, e));
                }
                let(t.withShape(shape), "$0.sum(new int[] {" + d + ", " + e + "}, " + keep + ")", a);
            }
            case 7 -> let(t.withDtype(DType.FLOAT64), "$0.softmax(" + d + ", DType.FLOAT64)", a);
            case 8 -> let(t, oneOf(List.of("$0.gelu(\"tanh\")", "$0.abs().add(0.5).rsqrt()", "F.dropout($0, 0.3, false)")), a);
            default -> {
                Var b = pick(v -> v.type().equals(t));
                Var c = pick(v -> v.type().equals(t));
                int e = rnd.nextInt(r + 1);
                let(t.withShape(Shapes.inserted(t.shape(), e, 3)), "Tensor.stack(List.of($0, $1, $2), " + e + ")", a, b, c);
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ the recent ops (session 30)

    /**
     * An op added in sessions 28 and 29, drawn only by the recent-ops family ({@link #recentOps}):
     * products and running products, max/min along a dim, order statistics, reorderings
     * (flatten from a dim, roll, flip, tril/triu, repeat/tile, repeatInterleave, integer indexing),
     * lerp/addcmul/addcdiv, one-sided tensor clamps, nanToNum of infinities, bitwise ops on masks,
     * logsumexp and norms, interpolate and the pad modes, conv1d and conv_transpose2d, 1-d pooling,
     * prelu and the losses, einsum. The same discipline as the rest: values that rounding could
     * turn into another answer are not drawn.
     */
    private boolean recentOp() {
        return switch (rnd.nextInt(12)) {
            case 0 -> product();
            case 1 -> extremumAlongDim();
            case 2 -> orderStatistic();
            case 3, 4 -> reorder();
            case 5 -> recentPointwise();
            case 6 -> logsumexpOrNorm();
            case 7 -> resample();
            case 8 -> conv1dOrTransposed();
            case 9 -> pool1d();
            case 10 -> preluOrLoss();
            default -> einsum();
        };
    }

    /** A product has at most this many factors: in [-1.5, 1.5] they multiply to at most 26, far from overflow and from underflow's last bits. */
    private static final int MAX_FACTORS = 8;

    /** dim as written: sometimes counted from the end. */
    private String dimArg(int d, int rank) { return String.valueOf(rnd.nextInt(4) == 0 ? d - rank : d); }

    private static List<Integer> reduced(List<Integer> shape, int d, boolean keep) { return keep ? Shapes.with(shape, d, 1) : Shapes.without(shape, d); }

    /**
     * prod over all elements or a dim, cumprod along a dim, of a few factors each. Floats are clamped
     * to [-1.5, 1.5] first so a product stays finite; exact zeros (relu's, zero_'s) stay, where
     * prod's and cumprod's gradients take their own formulas. Integers multiply to int64, whose
     * wrap-around is the same in any order.
     */
    private boolean product() {
        Var a = pick(v -> !v.type().dtype().isBool() && (v.type().numel() <= MAX_FACTORS || v.type().shape().stream().anyMatch(s -> s <= MAX_FACTORS)));
        if (a == null) return false;
        TensorType t = a.type();
        String x = t.isFloat() ? "$0.clamp(-1.5, 1.5)" : "$0";
        DType dtype = t.isFloat() ? t.dtype() : DType.INT64;
        List<Integer> dims = new ArrayList<>();
        for (int d = 0; d < t.rank(); d++) if (t.size(d) <= MAX_FACTORS) dims.add(d);
        int kind = rnd.nextInt(3);
        if (dims.isEmpty() || kind == 0 && t.numel() <= MAX_FACTORS) {
            if (t.numel() > MAX_FACTORS) return false;
            let(TensorType.of(dtype), x + ".prod()", a);
            return true;
        }
        int d = oneOf(dims);
        String dim = dimArg(d, t.rank());
        if (kind == 1) {
            boolean keep = rnd.nextBoolean();
            let(new TensorType(dtype, reduced(t.shape(), d, keep)), x + ".prod(" + dim + ", " + keep + ")", a);
        } else if (rnd.nextInt(4) == 0) {
            let(t.withDtype(DType.FLOAT64), x + ".cumprod(" + dim + ", DType.FLOAT64)", a);
        } else {
            let(t.withDtype(dtype), x + ".cumprod(" + dim + ")", a);
        }
        return true;
    }

    /** A variable whose equal elements are exact, or which has none: integers, or floats known distinct (randn inputs and views, never written). */
    private Predicate<Var> tiesExactOrAbsent() {
        return v -> (v.type().dtype().isIntegral() || distinct.contains(v)) && v.type().rank() > 0 && v.type().numel() > 0;
    }

    /**
     * max(dim) / min(dim): values or indices. As for topk and argmin, of integers (exact ties, the
     * first index) or of floats known distinct: where two computed floats tie, rounding decides which
     * one the index names and which one the value's gradient reaches.
     */
    private boolean extremumAlongDim() {
        Var a = pick(tiesExactOrAbsent());
        if (a == null) return false;
        TensorType t = a.type();
        int d = rnd.nextInt(t.rank());
        boolean keep = rnd.nextBoolean();
        String call = "$0." + (rnd.nextBoolean() ? "max" : "min") + "(" + dimArg(d, t.rank()) + (!keep && rnd.nextBoolean() ? "" : ", " + keep) + ")";
        List<Integer> shape = reduced(t.shape(), d, keep);
        if (rnd.nextBoolean()) let(new TensorType(t.dtype(), shape), call + ".get(0)", a);
        else let(new TensorType(DType.INT64, shape), call + ".get(1)", a);
        return true;
    }

    /**
     * median (all elements or along a dim), kthvalue and mode: values of integers or distinct floats
     * (the value's gradient goes to one element's position), positions of distinct floats only
     * (which of several equal integers a median's index names is the kernel's choice, not the op's).
     */
    private boolean orderStatistic() {
        Var a = pick(tiesExactOrAbsent());
        if (a == null) return false;
        TensorType t = a.type();
        int d = rnd.nextInt(t.rank()), n = t.size(d);
        boolean keep = rnd.nextBoolean();
        String dim = dimArg(d, t.rank());
        int which = t.isFloat() && rnd.nextInt(3) == 0 ? 1 : 0;
        TensorType out = new TensorType(which == 1 ? DType.INT64 : t.dtype(), reduced(t.shape(), d, keep));
        switch (rnd.nextInt(4)) {
            case 0 -> let(TensorType.of(t.dtype()), "$0.median()", a);
            case 1 -> let(out, "$0.median(" + dim + ", " + keep + ").get(" + which + ")", a);
            case 2 -> let(out, "$0.kthvalue(" + (1 + rnd.nextInt(n)) + ", " + dim + ", " + keep + ").get(" + which + ")", a);
            default -> let(out.withDtype(t.dtype()), "$0.mode(" + dim + ", " + keep + ").get(0)", a);
        }
        return true;
    }

    /** Values in [-n, n): positions along a dim of size n, negative ones counted from the end. */
    private String signedIndexTensor(List<Integer> shape, int n, boolean int32) {
        int numel = shape.stream().reduce(1, (x, y) -> x * y);
        StringBuilder sb = new StringBuilder("Tensor.of(new " + (int32 ? "int" : "long") + "[] {");
        for (int f = 0; f < numel; f++) sb.append(f == 0 ? "" : ", ").append(rnd.nextInt(2 * n) - n);
        sb.append("}");
        for (int s : shape) sb.append(", ").append(s);
        return sb.append(")").toString();
    }

    /** No reordering that repeats elements makes more than this many. */
    private static final int MAX_REPEATED = 4096;

    /** flatten from a start dim, roll, flip, tril/triu, repeat/tile, repeatInterleave, and x.index(integer tensor). */
    private boolean reorder() {
        Var a = pick(v -> !v.type().dtype().isBool() && v.type().rank() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        int r = t.rank(), d = rnd.nextInt(r), n = t.size(d);
        switch (rnd.nextInt(8)) {
            case 0 -> {   // a view where the strides allow one, a copy otherwise: conservatively, it may share memory
                int start = rnd.nextInt(r), end = start + rnd.nextInt(r - start);
                List<Integer> shape = new ArrayList<>(t.shape().subList(0, start));
                shape.add(t.shape().subList(start, end + 1).stream().reduce(1, (x, y) -> x * y));
                shape.addAll(t.shape().subList(end + 1, r));
                String args = end == r - 1 && rnd.nextBoolean() ? dimArg(start, r) : start + ", " + dimArg(end, r);
                view(t.withShape(shape), "$0.flatten(" + args + ")", a);
            }
            case 1 -> {
                int shift = rnd.nextInt(7) - 3;
                if (r >= 2 && rnd.nextBoolean()) {
                    int e = (d + 1 + rnd.nextInt(r - 1)) % r;
                    let(t, "$0.roll(new int[] {" + shift + ", " + (rnd.nextInt(5) - 2) + "}, new int[] {" + d + ", " + dimArg(e, r) + "})", a);
                } else {
                    let(t, rnd.nextBoolean() ? "$0.roll(" + shift + ", " + dimArg(d, r) + ")" : "$0.roll(" + shift + ")", a);
                }
            }
            case 2 -> {
                if (r >= 2 && rnd.nextBoolean()) let(t, "$0.flip(" + d + ", " + dimArg((d + 1 + rnd.nextInt(r - 1)) % r, r) + ")", a);
                else let(t, "$0.flip(" + dimArg(d, r) + ")", a);
            }
            case 3 -> {
                if (r < 2) return false;
                let(t, "$0." + (rnd.nextBoolean() ? "tril" : "triu") + "(" + (rnd.nextInt(5) - 2) + ")", a);
            }
            case 4 -> {   // repeat: one count per dim and maybe a new leading one; tile: fewer counts mean leading ones
                boolean tile = rnd.nextBoolean();
                int count = tile ? 1 + rnd.nextInt(r + 1) : r + rnd.nextInt(2);
                List<Integer> reps = new ArrayList<>();
                for (int i = 0; i < count; i++) reps.add(1 + rnd.nextInt(3));
                List<Integer> padded = new ArrayList<>(Collections.nCopies(Math.max(0, r - count), 1));
                padded.addAll(reps);
                List<Integer> shape = new ArrayList<>();
                for (int i = 0; i < padded.size(); i++) {
                    int j = i - (padded.size() - r);
                    shape.add(padded.get(i) * (j >= 0 ? t.size(j) : 1));
                }
                if (shape.stream().reduce(1, (x, y) -> x * y) > MAX_REPEATED) return false;
                let(t.withShape(shape), "$0." + (tile ? "tile(" : "repeat(") + join(reps) + ")", a);
            }
            case 5 -> {
                int k = 1 + rnd.nextInt(3);
                if ((long) t.numel() * k > MAX_REPEATED) return false;
                if (rnd.nextBoolean()) let(t.withShape(Shapes.with(t.shape(), d, n * k)), "$0.repeatInterleave(" + k + ", " + dimArg(d, r) + ")", a);
                else let(t.withShape(List.of(t.numel() * k)), "$0.repeatInterleave(" + k + ")", a);
            }
            default -> {   // x[idx]: rows of dim 0 by position, negative ones from the end, repeats allowed
                int rows = t.size(0);
                if (rows == 0) return false;
                List<Integer> idx = rnd.nextInt(3) == 0 ? List.of(2, 1 + rnd.nextInt(3)) : List.of(1 + rnd.nextInt(5));
                List<Integer> shape = new ArrayList<>(idx);
                shape.addAll(t.shape().subList(1, r));
                let(t.withShape(shape), "$0.index(" + signedIndexTensor(idx, rows, rnd.nextInt(4) == 0) + ")", a);
            }
        }
        return true;
    }

    /** A variable of {@code dtype} whose shape broadcasts with {@code shape} (the first variable always qualifies for itself). */
    private Var broadcastPartner(DType dtype, List<Integer> shape) {
        return pick(v -> v.type().dtype() == dtype && Shapes.broadcast(shape, v.type().shape()) != null);
    }

    /**
     * lerp (number and tensor weights), addcmul, addcdiv (by a divisor kept from zero), sign of
     * distinct floats (sign turns a computed value's rounding across zero into another answer),
     * clamps bounded on one side by a tensor, nanToNum of infinities a mask put there; on integers
     * bitwise ops with a number and addcmul; on bool masks the bitwise ops.
     */
    private boolean recentPointwise() {
        if (rnd.nextInt(6) == 0) {
            Var m = pick(v -> v.type().dtype().isBool());
            if (m == null) m = compareMask();
            if (m == null) return false;
            Var m0 = m;
            Var n = pick(v -> v.type().dtype().isBool() && Shapes.broadcast(m0.type().shape(), v.type().shape()) != null);
            if (n == null || rnd.nextInt(4) == 0) {
                let(m.type(), "$0.bitwiseNot()", m);
            } else {
                let(m.type().withShape(Shapes.broadcast(m.type().shape(), n.type().shape())), "$0." + oneOf(List.of("bitwiseAnd", "bitwiseOr", "bitwiseXor")) + "($1)", m, n);
            }
            return true;
        }
        Var a = pick(v -> !v.type().dtype().isBool());
        if (a == null) return false;
        TensorType t = a.type();
        Var b = broadcastPartner(t.dtype(), t.shape());
        List<Integer> ab = Shapes.broadcast(t.shape(), b.type().shape());
        Var c = broadcastPartner(t.dtype(), ab);
        List<Integer> abc = Shapes.broadcast(ab, c.type().shape());
        if (!t.isFloat()) {
            switch (rnd.nextInt(3)) {
                case 0 -> let(t, "$0." + oneOf(List.of("bitwiseAnd(6L)", "bitwiseOr(3L)", "bitwiseXor(-2L)")), a);
                case 1 -> let(t.withShape(ab), "$0." + oneOf(List.of("bitwiseAnd", "bitwiseOr")) + "($1)", a, b);
                default -> let(t.withShape(abc), "$0.addcmul($1, $2, " + oneOf(List.of("2.0", "-1.0")) + ")", a, b, c);
            }
            return true;
        }
        switch (rnd.nextInt(8)) {
            case 0 -> let(t.withShape(ab), "$0.lerp($1, " + oneOf(List.of("0.25", "0.7", "1.0")) + ")", a, b);
            case 1 -> let(t.withShape(abc), "$0.lerp($1, $2.sigmoid())", a, b, c);
            case 2 -> let(t.withShape(abc), rnd.nextBoolean() ? "$0.addcmul($1, $2)" : "$0.addcmul($1, $2, " + oneOf(List.of("0.5", "-1.5")) + ")", a, b, c);
            case 3 -> let(t.withShape(abc), "$0.addcdiv($1, $2.abs().add(0.5)" + oneOf(List.of(")", ", -0.75)")), a, b, c);
            case 4 -> {
                if (!distinct.contains(a)) return false;
                let(t, "$0.sign()", a);
            }
            case 5 -> {
                Var bound = pick(v -> v.type().dtype() == t.dtype() && Shapes.broadcastsTo(v.type().shape(), t.shape()));
                if (bound == null) return false;
                let(t, rnd.nextBoolean() ? "$0.clamp($1, (Tensor) null)" : "$0.clamp((Tensor) null, $1)", a, bound);
            }
            case 6 -> let(t, "$0.clampMax(" + oneOf(List.of("0.6", "-0.2")) + ")", a);
            default -> {   // infinities where a mask says (ordered comparisons with numbers no op saturates at), then replaced
                String inf = rnd.nextBoolean() ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY";
                let(t, "Tensor.where($0." + oneOf(List.of("gt(0.3)", "lt(-0.35)")) + ", " + inf + ", $0).nanToNum(0.0, 2.5, -2.5)", a);
            }
        }
        return true;
    }

    /** logsumexp over one or two dims, and p-norms (1, 2, 3, Frobenius) of all elements or over dims. */
    private boolean logsumexpOrNorm() {
        Var a = pick(v -> v.type().isFloat() && v.type().rank() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        int r = t.rank(), d = rnd.nextInt(r), e = r >= 2 ? (d + 1 + rnd.nextInt(r - 1)) % r : d;
        boolean keep = rnd.nextBoolean(), two = r >= 2 && rnd.nextBoolean();
        List<Integer> shape = reduced(t.shape(), d, keep);
        if (two) {
            shape = new ArrayList<>(t.shape());
            if (keep) {
                shape.set(d, 1);
                shape.set(e, 1);
            } else {
                shape.remove(Math.max(d, e));
                shape.remove(Math.min(d, e));
            }
        }
        String dims = "new int[] {" + d + (two ? ", " + e : "") + "}";
        String p = oneOf(List.of("1.0", "2.0", "3.0"));
        switch (rnd.nextInt(5)) {
            case 0 -> {
                if (!two && !keep && rnd.nextBoolean()) let(t.withShape(shape), "$0.logsumexp(" + d + ")", a);
                else let(t.withShape(shape), "$0.logsumexp(" + dims + ", " + keep + ")", a);
            }
            case 1 -> let(TensorType.of(t.dtype()), rnd.nextBoolean() ? "$0.norm()" : "$0.norm(" + p + ")", a);
            case 2, 3 -> let(t.withShape(shape), "$0.norm(" + p + ", " + dims + ", " + keep + ")", a);
            default -> let(t.withShape(shape), "$0.norm(\"fro\", " + dims + ", " + keep + ")", a);
        }
        return true;
    }

    /** F.interpolate (nearest, linear, bilinear; by size or scale factor; align_corners) and F.pad in its four modes. */
    private boolean resample() {
        if (rnd.nextBoolean()) {
            Var x = pick(v -> v.type().isFloat() && (v.type().rank() == 3 || v.type().rank() == 4) && v.type().numel() > 0);
            if (x == null) {
                if (inputs.size() + scalars.size() >= 4) return false;
                DType dt = rnd.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32;
                x = input(rnd.nextBoolean() ? TensorType.of(dt, 1 + rnd.nextInt(2), 1 + rnd.nextInt(3), 3 + rnd.nextInt(6))
                        : TensorType.of(dt, 1 + rnd.nextInt(2), 1 + rnd.nextInt(3), 3 + rnd.nextInt(4), 3 + rnd.nextInt(4)));
            }
            TensorType t = x.type();
            int spatial = t.rank() - 2;
            String mode = rnd.nextBoolean() ? "nearest" : spatial == 1 ? "linear" : "bilinear";
            List<Integer> shape = new ArrayList<>(t.shape().subList(0, 2));
            String size = "null", scale = "null", recompute = "null";
            if (rnd.nextBoolean()) {
                List<Integer> out = new ArrayList<>();
                for (int k = 0; k < spatial; k++) out.add(1 + rnd.nextInt(2 * t.size(2 + k) + 1));
                shape.addAll(out);
                size = "new int[] {" + join(out) + "}";
            } else {
                double factor = oneOf(List.of(0.5, 1.5, 1.75, 2.0, 3.0));
                for (int k = 0; k < spatial; k++) shape.add((int) Math.floor(t.size(2 + k) * factor));   // as interpolate computes it
                if (shape.contains(0)) return false;
                scale = "new double[] {" + factor + "}";
                if (rnd.nextInt(3) == 0) recompute = "true";
            }
            if ((long) new TensorType(t.dtype(), shape).numel() > MAX_REPEATED * 4) return false;
            String corners = mode.equals("nearest") ? "null" : oneOf(List.of("null", "true", "false"));
            let(t.withShape(shape), "F.interpolate($0, " + size + ", " + scale + ", \"" + mode + "\", " + corners + ", " + recompute + ")", x);
            return true;
        }
        Var x = pick(v -> v.type().isFloat() && v.type().rank() >= 2 && v.type().rank() <= 4 && v.type().numel() > 0);
        if (x == null) return false;
        TensorType t = x.type();
        int r = t.rank();
        boolean twoDims = r == 4 || r == 3 && rnd.nextBoolean();
        String mode = oneOf(List.of("reflect", "replicate", "circular", "constant"));
        List<Integer> amounts = new ArrayList<>(), shape = new ArrayList<>(t.shape());
        for (int i = 0; i < (twoDims ? 2 : 1); i++) {
            int dim = r - 1 - i, size = t.size(dim);
            // reflect mirrors without repeating the edge (less than the size), circular wraps once at most
            int most = mode.equals("reflect") ? Math.min(2, size - 1) : mode.equals("circular") ? Math.min(2, size) : 2;
            int before = rnd.nextInt(most + 1), after = rnd.nextInt(most + 1);
            amounts.add(before);
            amounts.add(after);
            shape.set(dim, size + before + after);
        }
        String pads = "new int[] {" + join(amounts) + "}";
        if (mode.equals("constant")) let(t.withShape(shape), rnd.nextBoolean() ? "F.pad($0, " + pads + ")" : "F.pad($0, " + pads + ", \"constant\", 0.5)", x);
        else let(t.withShape(shape), "F.pad($0, " + pads + ", \"" + mode + "\")", x);
        return true;
    }

    /** A divisor of {@code c} to use as the group count: 1 mostly, else one of c's divisors. */
    private int groups(int c) {
        if (c < 2 || rnd.nextInt(3) != 0) return 1;
        List<Integer> divisors = new ArrayList<>();
        for (int g = 2; g <= c; g++) if (c % g == 0) divisors.add(g);
        return oneOf(divisors);
    }

    /** F.conv1d and F.convTranspose2d with strides, padding, dilation, groups (and output padding), bias or not. */
    private boolean conv1dOrTransposed() {
        boolean transposed = rnd.nextBoolean();
        int rank = transposed ? 4 : 3;
        Var x = pick(v -> v.type().isFloat() && v.type().rank() == rank && v.type().numel() > 0);
        if (x == null) {
            if (inputs.size() + scalars.size() >= 4) return false;
            DType dt = rnd.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32;
            x = input(transposed ? TensorType.of(dt, 1 + rnd.nextInt(2), 1 + rnd.nextInt(4), 3 + rnd.nextInt(5), 3 + rnd.nextInt(5))
                    : TensorType.of(dt, 1 + rnd.nextInt(2), 1 + rnd.nextInt(4), 4 + rnd.nextInt(9)));
        }
        TensorType t = x.type();
        DType dt = t.dtype();
        int c = t.size(1), g = groups(c), outC = g * (1 + rnd.nextInt(3)), stride = 1 + rnd.nextInt(2), dilation = 1 + rnd.nextInt(2);
        if (!transposed) {
            int k = 1 + rnd.nextInt(3), pad = rnd.nextInt(3), len = t.size(2) + 2 * pad - dilation * (k - 1) - 1;
            if (len < 0) return false;
            Var w = findOrInput(TensorType.of(dt, outC, c / g, k));
            if (w == null) return false;
            Var bias = rnd.nextBoolean() ? findOrInput(TensorType.of(dt, outC)) : null;
            TensorType out = TensorType.of(dt, t.size(0), outC, len / stride + 1);
            if (bias == null && g == 1 && t.size(2) >= k && rnd.nextInt(4) == 0) {
                let(TensorType.of(dt, t.size(0), outC, t.size(2) - k + 1), "F.conv1d($0, $1, null)", x, w);
            } else {
                String args = ", " + stride + ", " + pad + ", " + dilation + ", " + g + ")";
                if (bias == null) let(out, "F.conv1d($0, $1, null" + args, x, w);
                else let(out, "F.conv1d($0, $1, $2" + args, x, w, bias);
            }
            return true;
        }
        int kh = 1 + rnd.nextInt(3), kw = 1 + rnd.nextInt(3), pad = rnd.nextInt(2);
        int outPad = rnd.nextInt(Math.max(stride, dilation));   // ATen: smaller than either the stride or the dilation
        int h = (t.size(2) - 1) * stride - 2 * pad + dilation * (kh - 1) + outPad + 1, wd = (t.size(3) - 1) * stride - 2 * pad + dilation * (kw - 1) + outPad + 1;
        if (h <= 0 || wd <= 0) return false;
        Var w = findOrInput(TensorType.of(dt, c, outC / g, kh, kw));
        if (w == null) return false;
        Var bias = rnd.nextBoolean() ? findOrInput(TensorType.of(dt, outC)) : null;
        String args = ", " + stride + ", " + pad + ", " + outPad + ", " + g + ", " + dilation + ")";
        TensorType out = TensorType.of(dt, t.size(0), outC, h, wd);
        if (bias == null) let(out, "F.convTranspose2d($0, $1, null" + args, x, w);
        else let(out, "F.convTranspose2d($0, $1, $2" + args, x, w, bias);
        return true;
    }

    /** ATen's pooling output size ({@code pooling_output_shape}), 0 or less when the window does not fit. */
    private static int pooledSize(int in, int k, int s, int p, int dilation, boolean ceil) {
        int span = in + 2 * p - dilation * (k - 1) - 1;
        if (span < 0) return 0;
        int out = (span + (ceil ? s - 1 : 0)) / s + 1;
        if (ceil && (long) (out - 1) * s >= in + p) out--;   // the last window must start inside the input or its left padding
        return out;
    }

    /** F.maxPool1d (dilation, ceil mode), F.avgPool1d (padding counted or not, ceil mode), F.adaptiveAvgPool1d, of [N, C, L] or [C, L]. */
    private boolean pool1d() {
        Var x = pick(v -> v.type().isFloat() && (v.type().rank() == 2 || v.type().rank() == 3) && v.type().numel() > 0);
        if (x == null) {
            if (inputs.size() + scalars.size() >= 4) return false;
            x = input(TensorType.of(rnd.nextInt(5) == 0 ? DType.FLOAT64 : DType.FLOAT32, 1 + rnd.nextInt(2), 1 + rnd.nextInt(3), 3 + rnd.nextInt(8)));
        }
        TensorType t = x.type();
        int last = t.rank() - 1, len = t.size(last);
        int k = 1 + rnd.nextInt(3), s = 1 + rnd.nextInt(2), p = rnd.nextInt(k / 2 + 1);
        boolean ceil = rnd.nextInt(4) == 0;
        switch (rnd.nextInt(3)) {
            case 0 -> {
                if (rnd.nextInt(3) == 0) {
                    if (len < k) return false;
                    let(t.withShape(Shapes.with(t.shape(), last, len / k)), "F.maxPool1d($0, " + k + ")", x);
                    return true;
                }
                int dilation = 1 + rnd.nextInt(2), out = pooledSize(len, k, s, p, dilation, ceil);
                if (out <= 0) return false;
                let(t.withShape(Shapes.with(t.shape(), last, out)), "F.maxPool1d($0, " + k + ", " + s + ", " + p + ", " + dilation + ", " + ceil + ")", x);
            }
            case 1 -> {
                int out = pooledSize(len, k, s, p, 1, ceil);
                if (out <= 0) return false;
                let(t.withShape(Shapes.with(t.shape(), last, out)), "F.avgPool1d($0, " + k + ", " + s + ", " + p + ", " + ceil + ", " + rnd.nextBoolean() + ")", x);
            }
            default -> {
                int out = 1 + rnd.nextInt(len + 1);
                let(t.withShape(Shapes.with(t.shape(), last, out)), "F.adaptiveAvgPool1d($0, " + out + ")", x);
            }
        }
        return true;
    }

    private static final List<String> REDUCTIONS = List.of("mean", "sum", "none");

    /**
     * F.prelu (one weight or one per channel), and the losses: nllLoss of log-probabilities against
     * in-range targets (weights kept positive, an ignored class sometimes), binary cross entropy with
     * logits against probabilities (a positive pos_weight sometimes), smooth L1, Huber, L1, and KL
     * divergence of log-probabilities from probabilities or log-probabilities; each reduction.
     */
    private boolean preluOrLoss() {
        Var a = pick(v -> v.type().isFloat() && v.type().rank() > 0 && v.type().numel() > 0);
        if (a == null) return false;
        TensorType t = a.type();
        DType dt = t.dtype();
        int r = t.rank();
        String red = oneOf(REDUCTIONS);
        TensorType reducedType = red.equals("none") ? t : TensorType.of(dt);
        switch (rnd.nextInt(7)) {
            case 0 -> {
                int channels = r >= 2 ? t.size(1) : 1;
                Var w = findOrInput(TensorType.of(dt, rnd.nextBoolean() ? 1 : channels));
                if (w == null) return false;
                let(t, "F.prelu($0, $1)", a, w);
            }
            case 1 -> {   // [C], [N, C] or [N, C, d] log-probabilities over dim 1 (0 for [C]); targets of the rest of the shape
                if (r > 3) return false;
                int cd = r == 1 ? 0 : 1, classes = t.size(cd);
                List<Integer> targetShape = Shapes.without(t.shape(), cd);
                String target = r == 1 ? "Tensor.scalar(" + rnd.nextInt(classes) + "L)" : indexTensor(targetShape, classes, -1, false);
                String logp = "$0.logSoftmax(" + cd + ")";
                if (rnd.nextBoolean()) {
                    let(TensorType.of(dt), "F.nllLoss(" + logp + ", " + target + ")", a);
                    return true;
                }
                Var w = rnd.nextBoolean() ? findOrInput(TensorType.of(dt, classes)) : null;
                String ignore = rnd.nextInt(3) == 0 ? String.valueOf(rnd.nextInt(classes)) : "-100";
                TensorType out = red.equals("none") ? new TensorType(dt, targetShape) : TensorType.of(dt);
                if (w == null) let(out, "F.nllLoss(" + logp + ", " + target + ", null, \"" + red + "\", " + ignore + ")", a);
                else let(out, "F.nllLoss(" + logp + ", " + target + ", $1.abs().add(0.1), \"" + red + "\", " + ignore + ")", a, w);
            }
            case 2 -> {
                Var target = findOrInput(t);
                if (target == null) return false;
                if (rnd.nextBoolean()) {
                    let(TensorType.of(dt), "F.binaryCrossEntropyWithLogits($0, $1.sigmoid())", a, target);
                    return true;
                }
                Var pos = rnd.nextBoolean() ? findOrInput(TensorType.of(dt, t.size(r - 1))) : null;
                if (pos == null) let(reducedType, "F.binaryCrossEntropyWithLogits($0, $1.sigmoid(), null, null, \"" + red + "\")", a, target);
                else let(reducedType, "F.binaryCrossEntropyWithLogits($0, $1.sigmoid(), null, $2.abs().add(0.2), \"" + red + "\")", a, target, pos);
            }
            case 3, 4 -> {
                Var y = findOrInput(t);
                if (y == null) return false;
                String loss = rnd.nextBoolean() ? "smoothL1Loss" : "huberLoss";
                if (rnd.nextBoolean()) let(TensorType.of(dt), "F." + loss + "($0, $1)", a, y);
                else let(reducedType, "F." + loss + "($0, $1, \"" + red + "\", " + oneOf(List.of("0.5", "1.0", "2.0")) + ")", a, y);
            }
            case 5 -> {
                Var y = findOrInput(t);
                if (y == null) return false;
                let(reducedType, "F.l1Loss($0, $1, \"" + red + "\")", a, y);
            }
            default -> {
                Var y = findOrInput(t);
                if (y == null) return false;
                int d = rnd.nextInt(r);
                boolean logTarget = rnd.nextBoolean();
                String target = logTarget ? "$1.logSoftmax(" + d + ")" : "$1.softmax(" + d + ")";
                String reduction = rnd.nextInt(4) == 0 ? "batchmean" : red;
                let(reduction.equals("none") ? t : TensorType.of(dt), "F.klDiv($0.logSoftmax(" + d + "), " + target + ", \"" + reduction + "\", " + logTarget + ")", a, y);
            }
        }
        return true;
    }

    /** einsum: products (matrix, batched, a matrix shared by a batch, vector), outer and dot products, sums and a transpose. */
    private boolean einsum() {
        Var a = pick(v -> v.type().isFloat() && v.type().rank() >= 1 && v.type().rank() <= 3);
        if (a == null) return false;
        TensorType t = a.type();
        DType dt = t.dtype();
        switch (t.rank()) {
            case 1 -> {
                int n = t.size(0);
                switch (rnd.nextInt(3)) {
                    case 0 -> {
                        Var b = findOrInput(t);
                        if (b == null) return false;
                        let(TensorType.of(dt), "Tensor.einsum(\"i,i->\", $0, $1)", a, b);
                    }
                    case 1 -> {
                        Var b = findOrInput(TensorType.of(dt, dim()));
                        if (b == null) return false;
                        let(TensorType.of(dt, n, b.type().size(0)), "Tensor.einsum(\"i,j->ij\", $0, $1)", a, b);
                    }
                    default -> let(TensorType.of(dt), "Tensor.einsum(\"i->\", $0)", a);
                }
            }
            case 2 -> {
                int m = t.size(0), k = t.size(1);
                switch (rnd.nextInt(5)) {
                    case 0 -> {
                        Var b = findOrInput(TensorType.of(dt, k, dim()));
                        if (b == null) return false;
                        let(TensorType.of(dt, m, b.type().size(1)), "Tensor.einsum(\"ij,jk->ik\", $0, $1)", a, b);
                    }
                    case 1 -> view(TensorType.of(dt, k, m), "Tensor.einsum(\"ij->ji\", $0)", a);   // may be a view, as PyTorch's is
                    case 2 -> let(TensorType.of(dt, m), "Tensor.einsum(\"ij->i\", $0)", a);
                    case 3 -> {
                        Var b = findOrInput(t);
                        if (b == null) return false;
                        let(TensorType.of(dt, m), "Tensor.einsum(\"ij,ij->i\", $0, $1)", a, b);
                    }
                    default -> {
                        Var b = findOrInput(TensorType.of(dt, k));
                        if (b == null) return false;
                        let(TensorType.of(dt, m), "Tensor.einsum(\"ij,j->i\", $0, $1)", a, b);
                    }
                }
            }
            default -> {
                int bt = t.size(0), m = t.size(1), k = t.size(2);
                switch (rnd.nextInt(3)) {
                    case 0 -> {
                        Var b = findOrInput(TensorType.of(dt, bt, k, dim()));
                        if (b == null) return false;
                        let(TensorType.of(dt, bt, m, b.type().size(2)), "Tensor.einsum(\"bij,bjk->bik\", $0, $1)", a, b);
                    }
                    case 1 -> {
                        Var b = findOrInput(TensorType.of(dt, k, dim()));
                        if (b == null) return false;
                        let(TensorType.of(dt, bt, m, b.type().size(1)), "Tensor.einsum(\"bij,jk->bik\", $0, $1)", a, b);
                    }
                    default -> let(TensorType.of(dt, bt, k), "Tensor.einsum(\"bij->bj\", $0)", a);
                }
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ model pieces (session 31)

    /**
     * A piece users build models from, drawn only by the model-pieces family ({@link #modelOps}): a
     * {@code CustomFunction} (traced into the graph under compile, its backward the node's
     * derivative), {@code detach()} inside a differentiable chain, an LSTM, GRU or RNN layer (one or
     * two layers, either direction, batch first or not, with or without a given initial state),
     * MultiheadAttention and TransformerEncoderLayer. A module is a static field of the program's
     * class ({@link Stmt.Held}), its parameters drawn from a generator of their own.
     */
    private boolean modelOp() {
        return switch (rnd.nextInt(10)) {
            case 0, 1, 2 -> customFunction();
            case 3, 4 -> detachInChain();
            case 5, 6, 7 -> recurrentLayer();
            case 8 -> attention();
            default -> encoderLayer();
        };
    }

    private static final String CUSTOM_FUNCTION = "new dev.ember.autograd.CustomFunction() {\n"
            + "    @Override protected Tensor[] forward(Context ctx, Tensor... in) {\n        %s\n    }\n"
            + "    @Override protected Tensor[] backward(Context ctx, Tensor... grad) {\n        %s\n    }\n}";

    /**
     * A user autograd function, written as an anonymous class in the program: its backward is its
     * own (a scaled or negated derivative, a saved intermediate, gradients of two inputs, an output
     * nothing uses), so the gradient a compiled training run gives says whether it ran that backward.
     */
    private boolean customFunction() {
        Var a = pick(v -> v.type().isFloat());
        if (a == null) return false;
        TensorType t = a.type();
        switch (rnd.nextInt(5)) {
            case 0 -> {
                String k = oneOf(List.of("0.5", "2.0", "-1.0"));
                let(t, String.format(CUSTOM_FUNCTION, "Tensor y = in[0].tanh();\n        ctx.saveForBackward(y);\n        return new Tensor[] {y};",
                        "Tensor y = ctx.savedTensors().get(0);\n        return new Tensor[] {grad[0].mul(y.square().neg().add(1.0)).mul(" + k + ")};")
                        + ".apply($0)", a);
            }
            case 1 -> {
                Var b = pick(v -> v.type().equals(t));
                let(t, String.format(CUSTOM_FUNCTION, "ctx.saveForBackward(in[0], in[1]);\n        return new Tensor[] {in[0].mul(in[1])};",
                        "Tensor x = ctx.savedTensors().get(0), w = ctx.savedTensors().get(1);\n"
                                + "        return new Tensor[] {ctx.needsInputGrad(0) ? grad[0].mul(w) : null, ctx.needsInputGrad(1) ? grad[0].mul(x) : null};")
                        + ".apply($0, $1)", a, b);
            }
            case 2 -> {
                // the gradient reversal layer: its output is its input (a view of it when asked), the gradient negated and scaled
                boolean same = rnd.nextBoolean();
                view(t, String.format(CUSTOM_FUNCTION, same ? "return new Tensor[] {in[0]};" : "return new Tensor[] {in[0].view(in[0].shape())};",
                        "return new Tensor[] {grad[0].mul(-0.3)};") + ".apply($0)", a);
            }
            case 3 -> {
                // sin(x)·x of x clamped (as unary's sin is), saving sin(x), an intermediate, for the backward
                let(t, String.format(CUSTOM_FUNCTION, "Tensor x = in[0].clamp(-8.0, 8.0), s = in[0].clamp(-8.0, 8.0).sin();\n        ctx.saveForBackward(x, s);\n"
                                + "        return new Tensor[] {s.mul(x)};",
                        "Tensor x = ctx.savedTensors().get(0), s = ctx.savedTensors().get(1);\n"
                                + "        return new Tensor[] {grad[0].mul(s.add(x.mul(x.cos())))};") + ".apply($0)", a);
            }
            default -> {
                // two outputs, one of them unused: its gradient reaches backward as zeros
                int k = rnd.nextInt(2);
                let(t, String.format(CUSTOM_FUNCTION, "ctx.saveForBackward(in[0]);\n        return new Tensor[] {in[0].square(), in[0].neg()};",
                        "Tensor x = ctx.savedTensors().get(0);\n        return new Tensor[] {grad[0].mul(x).mul(2.0).sub(grad[1])};")
                        + ".applyAll($0).get(" + k + ")", a);
            }
        }
        return true;
    }

    /** detach() inside a chain: the value flows on, the gradient stops there (or the detached tensor itself, a view of its source). */
    private boolean detachInChain() {
        Var a = pick(v -> v.type().isFloat());
        if (a == null) return false;
        switch (rnd.nextInt(4)) {
            case 0 -> let(a.type(), "$0.mul(1.5).detach().add($0)", a);
            case 1 -> let(a.type(), "$0.sigmoid().detach().mul($0)", a);
            case 2 -> {
                Var b = pick(v -> v.type().equals(a.type()));
                let(a.type(), "$0.tanh().add($1.detach().mul(0.5))", a, b);
            }
            default -> view(a.type(), "$0.detach()", a);
        }
        return true;
    }

    /** Statements' module fields: {@code m} and the variable's name. */
    private String moduleField() { return "m" + nextVar; }

    /**
     * The declaration of {@code field} of {@code type}, built by {@code construction}, its parameters
     * uniform in [-0.5, 0.5) from a generator of their own and frozen as declared: an output that
     * required grad without an input that does would make the other families' out= forms refuse it
     * in the inference configurations. The training configurations make them require grad in the
     * programs that say how to train them ({@link #training}; the runner's {@link ProgramModules}).
     */
    private String module(String type, String field, String construction) {
        return "static final " + type + " " + field + " = " + construction + ";\n"
                + "static {\n    Generator g = new Generator(" + rnd.nextInt(1000) + "L);\n"
                + "    try (var noGrad = dev.ember.autograd.GradMode.noGrad()) {\n"
                + "        for (Tensor p : " + field + ".parameters()) {\n            p.copy_(Tensor.rand(g, p.shape()).sub(0.5));\n            p.requiresGrad(false);\n        }\n    }\n}";
    }

    private Var held(TensorType t, String template, String field, String member, Var... args) {
        Var v = new Var("v" + nextVar++, t);
        body.add(new Stmt.Held(v, Call.of(template, args), field, member));
        storage.put(v, nextStorage++);
        pool.add(v);
        return v;
    }

    /** A float32 variable of rank {@code rank} whose sizes are all positive and at most {@code max}, or a new input shaped by {@code shape}. */
    private Var sequence(int rank, int max, Supplier<int[]> shape) {
        Var x = pick(v -> v.type().dtype() == DType.FLOAT32 && v.type().rank() == rank && v.type().shape().stream().allMatch(d -> d > 0 && d <= max));
        if (x != null) return x;
        return hasRoom() ? input(TensorType.of(DType.FLOAT32, shape.get())) : null;
    }

    /**
     * An LSTM, GRU or Elman RNN (tanh or relu) over a sequence, batched ({@code [L, N, in]}, or
     * {@code [N, L, in]} batch first) or not ({@code [L, in]}): its output, or its last hidden (or
     * cell) state; the initial state given as a variable sometimes.
     */
    private boolean recurrentLayer() {
        boolean batched = rnd.nextInt(4) != 0;
        Var x = batched ? sequence(3, 8, () -> new int[] {1 + rnd.nextInt(5), 1 + rnd.nextInt(4), oneOf(List.of(1, 2, 3, 4, 5, 8))})
                : sequence(2, 8, () -> new int[] {1 + rnd.nextInt(5), oneOf(List.of(1, 2, 3, 4, 5, 8))});
        if (x == null) return false;
        String kind = oneOf(List.of("LSTM", "GRU", "RNN"));
        int layers = 1 + rnd.nextInt(2), hidden = oneOf(List.of(2, 3, 4, 8));
        boolean bidirectional = rnd.nextBoolean(), batchFirst = batched && rnd.nextBoolean(), bias = rnd.nextInt(4) != 0;
        int dirs = bidirectional ? 2 : 1;
        TensorType xt = x.type();
        int steps = batched && batchFirst ? xt.size(1) : xt.size(0), batch = !batched ? -1 : batchFirst ? xt.size(0) : xt.size(1), in = xt.size(xt.rank() - 1);
        String field = moduleField(), type = "dev.ember.nn." + kind;
        String construction = kind.equals("RNN")
                ? "new " + type + "(" + in + ", " + hidden + ", " + layers + ", \"" + oneOf(List.of("tanh", "relu")) + "\", " + bias + ", " + batchFirst + ", 0.0, " + bidirectional + ")"
                : "new " + type + "(" + in + ", " + hidden + ", " + layers + ", " + bias + ", " + batchFirst + ", 0.0, " + bidirectional + ")";
        TensorType state = batched ? TensorType.of(DType.FLOAT32, layers * dirs, batch, hidden) : TensorType.of(DType.FLOAT32, layers * dirs, hidden);
        TensorType output = !batched ? TensorType.of(DType.FLOAT32, steps, dirs * hidden)
                : batchFirst ? TensorType.of(DType.FLOAT32, batch, steps, dirs * hidden) : TensorType.of(DType.FLOAT32, steps, batch, dirs * hidden);
        List<Var> args = new ArrayList<>(List.of(x));
        String h0 = "null", c0 = "null";
        if (rnd.nextBoolean()) {
            Var h = findOrInput(state);
            if (h != null) {
                args.add(h);
                h0 = "$1";
            }
            if (h != null && kind.equals("LSTM")) {   // both states or neither
                Var c = findOrInput(state);
                if (c != null) {
                    args.add(c);
                    c0 = "$2";
                } else {
                    args.remove(h);
                    h0 = "null";
                }
            }
        }
        String call = field + ".forward($0, " + h0 + (kind.equals("LSTM") ? ", " + c0 : "") + ")";
        int what = rnd.nextInt(kind.equals("LSTM") ? 4 : 3);
        if (what <= 1) held(output, call + ".output()", field, module(type, field, construction), args.toArray(Var[]::new));
        else held(state, call + (what == 2 ? ".hN()" : ".cN()"), field, module(type, field, construction), args.toArray(Var[]::new));
        return true;
    }

    /** Self- or cross-attention of a {@code [B, L, E]} query over {@code [B, S, E]} keys and values, 1 or 2 heads. */
    private boolean attention() {
        Var q = sequence(3, 8, () -> new int[] {1 + rnd.nextInt(3), 1 + rnd.nextInt(5), oneOf(List.of(2, 4, 8))});
        if (q == null) return false;
        int b = q.type().size(0), e = q.type().size(2), heads = e % 2 == 0 && rnd.nextBoolean() ? 2 : 1;
        String field = moduleField(), type = "dev.ember.nn.MultiheadAttention";
        String member = module(type, field, "new " + type + "(" + e + ", " + heads + ", 0.0, " + (rnd.nextInt(4) != 0) + ")");
        Var kv = rnd.nextBoolean() ? null : pick(v -> v != q && v.type().dtype() == DType.FLOAT32 && v.type().rank() == 3 && v.type().size(0) == b
                && v.type().size(2) == e && v.type().size(1) > 0);
        if (kv == null) held(q.type(), field + ".forward($0, $0, $0)", field, member, q);
        else held(q.type(), field + ".forward($0, $1, $1)", field, member, q, kv);
        return true;
    }

    /** A transformer encoder layer (post- or pre-norm, relu or gelu) over {@code [B, L, E]}. */
    private boolean encoderLayer() {
        Var x = sequence(3, 8, () -> new int[] {1 + rnd.nextInt(3), 1 + rnd.nextInt(5), oneOf(List.of(2, 4, 8))});
        if (x == null) return false;
        int e = x.type().size(2), heads = e % 2 == 0 && rnd.nextBoolean() ? 2 : 1;
        String field = moduleField(), type = "dev.ember.nn.TransformerEncoderLayer";
        String member = module(type, field, "new " + type + "(" + e + ", " + heads + ", " + oneOf(List.of(4, 16)) + ", 0.0, \""
                + oneOf(List.of("relu", "gelu")) + "\", 1e-5, " + rnd.nextBoolean() + ", " + (rnd.nextInt(4) != 0) + ")");
        held(x.type(), field + ".forward($0)", field, member, x);
        return true;
    }
}
