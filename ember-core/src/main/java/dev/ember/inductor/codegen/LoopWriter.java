package dev.ember.inductor.codegen;

import dev.ember.inductor.Kernel;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Sizes;
import dev.ember.inductor.ir.Stage;
import dev.ember.tensor.DType;
import dev.ember.tensor.SymInt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the loops of a {@link Kernel.Loop}. Dims that memory lets merge are merged first (a
 * contiguous pointwise kernel becomes one flat loop, split across cores); otherwise the kernel runs
 * rows in parallel, and each stage loops over its inner dims — the innermost one with the Vector
 * API when the expression allows (and {@code vectorize} is on), else as plain scalar code.
 *
 * <p>Sizes may be symbolic (a graph generic in some input sizes): loop bounds, row counts and
 * index coefficients are then expressions of the kernel's {@code s0, …} parameters, and every
 * decision taken here holds for every value of the symbols — a dim is dropped only when it is
 * the constant 1, merged only when the strides match as polynomials, and the vector loops'
 * bounds and masked tails are computed at run time whatever the sizes.
 */
final class LoopWriter {

    /*
     * TAIL_ALWAYS_RUNS. A kernel's masked tail runs on every call, with an empty mask when the size
     * is a multiple of the vector length. Behind an `if` it was never taken while a size-generic kernel
     * saw only such sizes, so C2 compiled the branch as an uncommon trap; the first call with a tail
     * then deoptimized and finished in the interpreter, where the Vector API computes transcendental
     * lanes (exp, log, tanh on doubles) with its Java fallback, which rounds differently from C2's
     * intrinsics: equal inputs in the body and the tail came out one ulp apart
     * (PositionIndependenceTest, in the full suite only). An empty masked vector costs a few
     * nanoseconds per row.
     *
     * Except where the row's length is a constant: then the tail runs behind
     * `if (F.loopBound(n) != n)`, which C2 folds (the species is a constant), or, in a blocked sum,
     * the same test on the block, which every call takes the same way, so no profile misleads C2.
     * Run empty on every row of a multiple of the vector length, the last row's masked load and
     * store lie at the array's end, which the Vector API checks lane by lane on a slow path C2
     * does not intrinsify: 4-8% of the samples of the compiled transformer encoder layer's
     * inference (JFR, session 25), in the QKV split's stores of 64-float rows.
     */
    record Dim(int var, SymInt size) {}

    private final boolean vectorize;
    /** Writing a kernel's scalar form: a reduction the SIMD form folds on lanes is folded the same way in scalar code (see {@link #reduction}). */
    private final boolean emulateLanes;
    private int vectorLoops;
    private int polynomialLoops;

    LoopWriter(boolean vectorize) { this(vectorize, false); }

    /**
     * @param emulateLanes with {@code vectorize} off: write each reduction the SIMD form would fold on
     *     vector lanes as scalar code that folds in the same order, so that both forms give the same bits
     */
    LoopWriter(boolean vectorize, boolean emulateLanes) {
        this.vectorize = vectorize;
        this.emulateLanes = emulateLanes;
    }

    /** Whether some loop was written with the Vector API (the class then needs its species fields). */
    boolean usedVectors() { return vectorLoops > 0; }

    /** How many loops were written with the Vector API so far (a kernel used some when its write raised it). */
    int vectorLoops() { return vectorLoops; }

    /**
     * How many pointwise vector loops written so far call a polynomial formula of VectorMath (exp,
     * sin, sigmoid, …) through its handle: such kernels get no scalar form (see KernelTier).
     */
    int polynomialLoops() { return polynomialLoops; }

    /** One stage as written: its body and store index after merged dims were substituted away. */
    private record Work(Stage stage, Expr body, Affine store, List<Dim> inner, Work scratch) {
        Work(Stage stage, Expr body, Affine store, List<Dim> inner) { this(stage, body, store, inner, null); }

        Buffer out() { return stage instanceof Stage.Reduction r ? r.out() : ((Stage.Pointwise) stage).out(); }
    }

    /**
     * When a later pointwise stage of the row recomputes a reduction's whole term (softmax divides
     * the very {@code exp(x - max)} it summed), the reduction also stores each term into that
     * stage's output, and the stage reads it back instead of computing it again.
     */
    private static List<Work> reuseTerms(List<Work> work) {
        List<Work> out = new ArrayList<>(work);
        // A stage's output holds one reduction's terms at most: layer_norm over softmax-weighted
        // values once had both its own and the softmax's terms stored there, the second over the first.
        Set<Integer> holdingTerms = new HashSet<>();
        for (int i = 0; i < out.size(); i++) {
            Work r = out.get(i);
            if (!(r.stage() instanceof Stage.Reduction) || r.inner().isEmpty() || Expr.size(r.body()) < 3) continue;
            for (int j = i + 1; j < out.size(); j++) {
                Work p = out.get(j);
                if (!(p.stage() instanceof Stage.Pointwise) || holdingTerms.contains(j) || !p.inner().equals(r.inner()) || p.out().dtype() != r.body().dtype()
                        || p.out().storage() != p.out() || !Expr.contains(p.body(), r.body())) continue;
                Expr stored = new Expr.Load(p.out(), p.store(), p.out().dtype());
                out.set(j, new Work(p.stage(), Expr.replace(p.body(), r.body(), stored), p.store(), p.inner()));
                out.set(i, new Work(r.stage(), r.body(), r.store(), r.inner(), p));
                holdingTerms.add(j);
                break;
            }
        }
        return out;
    }

    void write(Code c, Kernel.Loop k, KernelContext ctx) {
        List<Stage> stages = k.stages();
        // A kernel whose outputs have no elements computes nothing. Its loops must not even be
        // written: merging dims that include a size-0 one yields loop bounds that are not the
        // tensor's (an amin of a [16, 0, 2] input over dim 0 looped over 16 rows and wrote them
        // into an empty array; fuzzer seed 5051993).
        SymInt[] space = k.hasReduction() ? k.outer() : ((Stage.Pointwise) stages.get(0)).shape();
        if (Sizes.is(Sizes.numel(space), 0)) {
            c.comment("no elements: nothing to compute");
            return;
        }
        List<Affine> accesses = new ArrayList<>();
        for (Stage s : stages) accesses.addAll(accesses(s, k));
        Set<Integer> dropped = new HashSet<>();
        if (!k.hasReduction()) {
            Stage.Pointwise first = (Stage.Pointwise) stages.get(0);
            List<Dim> dims = collapse(dims(first.shape(), 0), accesses, dropped);
            List<Dim> inner = dims.isEmpty() ? List.of() : List.of(dims.get(dims.size() - 1));
            List<Work> work = stages.stream().map(s -> work(s, k, dropped, inner)).toList();
            if (dims.size() == 1) flat(c, work, dims.get(0), ctx);
            else rows(c, dims.isEmpty() ? List.of() : dims.subList(0, dims.size() - 1), work, ctx);
            return;
        }
        int p = k.outer().length;
        List<Dim> outer = collapse(dims(k.outer(), 0), accesses, dropped);
        List<Work> work = new ArrayList<>();
        for (Stage s : stages) {
            SymInt[] sizes = s instanceof Stage.Reduction r ? r.reduce()
                    : java.util.Arrays.copyOfRange(((Stage.Pointwise) s).shape(), p, ((Stage.Pointwise) s).shape().length);
            Work w = work(s, k, dropped, List.of());
            List<Affine> own = new ArrayList<>();
            Expr.forEachLoad(w.body(), l -> own.add(l.index()));
            if (w.store() != null) own.add(w.store());
            Set<Integer> innerDropped = new HashSet<>();
            List<Dim> inner = collapse(dims(sizes, p), own, innerDropped);
            Work base = work(s, k, union(dropped, innerDropped), inner);
            work.add(base);
        }
        rows(c, outer, reuseTerms(work), ctx);
    }

    private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
        Set<Integer> u = new HashSet<>(a);
        u.addAll(b);
        return u;
    }

    private static Work work(Stage s, Kernel.Loop k, Set<Integer> dropped, List<Dim> inner) {
        java.util.function.UnaryOperator<Affine> f = a -> {
            for (int v : dropped) a = a.substitute(v, Affine.constant(0));
            return a;
        };
        return switch (s) {
            case Stage.Pointwise p -> new Work(s, Expr.mapIndices(p.body(), f), f.apply(store(p)), inner);
            case Stage.Reduction r -> new Work(s, Expr.mapIndices(r.body(), f),
                    k.locals().contains(r.out()) ? null : f.apply(Affine.contiguous(r.outer(), 0)), inner);
            default -> throw new IllegalStateException("not a loop stage: " + s);
        };
    }

    // ------------------------------------------------------------------ loop structure

    private static final JExpr.Local LO = new JExpr.Local("lo", JType.INT), HI = new JExpr.Local("hi", JType.INT);

    private void flat(Code c, List<Work> work, Dim d, KernelContext ctx) {
        c.openParallel(ctx.size(d.size()), new JExpr.Lit(weight(work), JType.LONG), LO, HI);
        if (work.size() == 1) {
            innermostPointwise(c, work.get(0).body(), d.var(), LO, HI, work.get(0).out(), work.get(0).store(), ctx);
        } else if (!oneVectorLoop(c, work, d.var(), LO, HI, ctx)) {
            JExpr.Local block = new JExpr.Local(ctx.temp(), JType.INT), blockEnd = new JExpr.Local(ctx.temp(), JType.INT);
            c.comment("the stages block by block (" + FLAT_BLOCK + " elements): what one stores, the next loads while it is still in cache");
            c.openFor(new JStmt.Declare(block, LO), new JExpr.Compare(JExpr.CmpOp.LT, block, HI),
                    new JStmt.Assign(block, new JExpr.Arith(JExpr.ArithOp.ADD, block, JavaTypes.intLit(FLAT_BLOCK))));
            c.declare(JType.INT, blockEnd.name(), Calls.math("min", JType.INT, new JExpr.Arith(JExpr.ArithOp.ADD, block, JavaTypes.intLit(FLAT_BLOCK)), HI));
            for (Work w : work) {
                c.openBlock();
                innermostPointwise(c, w.body(), d.var(), block, blockEnd, w.out(), w.store(), ctx);
                c.close();
            }
            c.close();
        }
        c.close();
    }

    /**
     * The stages of a flat kernel as one vector loop: each element's stages run one after another,
     * each storing its value before the next loads it (a fused optimizer step reads a parameter's
     * gradient and moments once and writes each once, as its eager one-pass loop does). Returns
     * false, writing nothing, where the stages must run block by block instead: the scalar form, a
     * stage that is not a plain vector loop of the first stage's dtype, two or more VectorMath calls
     * (their constants would spill vector registers; see {@link #splitVectorLoop}), or memory that
     * one stage writes and another reads or writes at another element. The last is what makes the
     * orders equal: every stage's access to memory the kernel writes is at the element being
     * computed, so running element by element reads and writes what stage by stage would.
     *
     * <p>Measured (an AdamW update's three stages over the MLP's 6.3 M parameters, one JVM, the two
     * forms interleaved): 4.4-4.7 ms per step in one loop against 6.1-6.5 block by block.
     */
    private boolean oneVectorLoop(Code c, List<Work> work, int var, JExpr from, JExpr to, KernelContext ctx) {
        DType dt = work.get(0).out().dtype();
        if (!vectorize || !dt.isFloatingPoint() || !sameElementAccesses(work)) return false;
        for (Work w : work) {
            if (w.out().dtype() != dt || w.store() == null || !w.store().unitStride(var) || !ScalarExprs.dependsOn(w.body(), var)
                    || !VectorExprs.supports(w.body(), var, dt)) return false;
        }
        Code pre = new Code();
        ScalarExprs hoist = new ScalarExprs(ctx, pre);
        List<VectorExprs> vxs = new ArrayList<>();
        int calls = 0;
        for (Work w : work) {
            VectorExprs vx = new VectorExprs(ctx, var, dt, hoist, pre);
            calls += vx.vectorMathCalls(w.body(), Set.of());
            vxs.add(vx);
        }
        if (calls >= 2) return false;
        JExpr.Local v = KernelContext.var(var);
        Code masked = new Code(), vbody = new Code();
        JExpr.Local mask = masked.declare(VectorApi.maskType(dt), ctx.temp(), VectorApi.indexInRange(dt, v, to));
        // what each stage stored, by memory: a later stage's load of it takes the vector itself (reloaded,
        // the loop ran at about block-by-block speed: the loads wait on the stores to arrays C2 cannot tell apart)
        Map<Buffer, JExpr> storedBody = new HashMap<>(), storedTail = new HashMap<>();
        // and memory no stage writes, which several stages read at one element, is loaded once
        Set<Buffer> written = new HashSet<>();
        for (Work w : work) written.add(w.out().storage());
        Map<Expr, Integer> readers = new LinkedHashMap<>();   // in order of first use: the same source on every compile
        for (Work w : work) {
            Set<Expr> loads = new HashSet<>();
            // loads of the loop's own dtype only: one of another dtype is read under its cast, which loads it itself (fuzzer seed 982782)
            Expr.forEachLoad(w.body(), l -> {
                if (!written.contains(l.buffer().storage()) && l.buffer().dtype() == dt && ScalarExprs.dependsOn(l, var)) loads.add(l);
            });
            for (Expr l : loads) readers.merge(l, 1, Integer::sum);
        }
        Map<Expr, JExpr> sharedBody = new HashMap<>(), sharedTail = new HashMap<>();
        readers.forEach((load, n) -> {
            if (n < 2) return;
            sharedTail.put(load, masked.declare(JavaTypes.vector(dt), ctx.temp(), vxs.get(0).emitMasked(load, mask, masked)));
            sharedBody.put(load, vbody.declare(JavaTypes.vector(dt), ctx.temp(), vxs.get(0).emit(load, vbody)));
        });
        for (int i = 0; i < work.size(); i++) {
            Work w = work.get(i);
            VectorExprs vx = vxs.get(i);
            vectorLoops++;
            if (vx.vectorMathCalls(w.body(), Set.of()) > 0) polynomialLoops++;
            JExpr tailValue = masked.declare(JavaTypes.vector(dt), ctx.temp(), vx.emitMaskedKnowing(w.body(), mask, masked, forwarded(w.body(), storedTail, sharedTail)));
            masked.eval(VectorApi.intoArray(tailValue, KernelContext.array(w.out()), ctx.index(w.out(), w.store()), mask));
            JExpr value = vbody.declare(JavaTypes.vector(dt), ctx.temp(), vx.emitKnowing(w.body(), vbody, forwarded(w.body(), storedBody, sharedBody)));
            vbody.eval(VectorApi.intoArray(value, KernelContext.array(w.out()), ctx.index(w.out(), w.store())));
            storedTail.put(w.out().storage(), tailValue);
            storedBody.put(w.out().storage(), value);
        }
        c.comment("the " + work.size() + " stages element by element in one loop: each reads and writes only the element it computes");
        vectorLoop(c, pre, vbody, v, from, to, dt);
        maskedTail(c, masked, from, to, dt);
        return true;
    }

    /** {@code pre}, then the vector loop over {@code [from, to)} running {@code vbody}; {@code v} ends where the whole vectors end. */
    private static void vectorLoop(Code c, Code pre, Code vbody, JExpr.Local v, JExpr from, JExpr to, DType dt) {
        c.append(pre);
        c.add(new JStmt.Declare(v, from));
        openContinue(c, v, bound(from, to, dt), VectorApi.length(dt));
        c.append(vbody);
        c.close();
    }

    /** The elements after the whole vectors, as one masked vector ({@code masked}). */
    private static void maskedTail(Code c, Code masked, JExpr from, JExpr to, DType dt) {
        c.comment("the tail as one masked vector: the body's formulas, so no element's value depends on where it falls");
        JExpr guard = tailGuard(from, to, to, dt);
        if (guard == null) {
            c.comment("run on every call, empty or not: see TAIL_ALWAYS_RUNS");
            c.append(masked);
        } else {
            c.openIf(guard).append(masked).close();   // a constant length: see TAIL_ALWAYS_RUNS
        }
    }

    /**
     * The loads in {@code body} already made: of memory an earlier stage stored, each with the
     * vector it stored (at the same element: {@link #sameElementAccesses}), and the {@code shared} ones.
     */
    private static Map<Expr, JExpr> forwarded(Expr body, Map<Buffer, JExpr> stored, Map<Expr, JExpr> shared) {
        Map<Expr, JExpr> known = new HashMap<>(shared);
        Expr.forEachLoad(body, l -> {
            JExpr value = stored.get(l.buffer().storage());
            if (value != null) known.put(l, value);
        });
        return known;
    }

    /** Whether every access to memory a stage writes, by any stage, is at that stage's store index. */
    private static boolean sameElementAccesses(List<Work> work) {
        Map<Buffer, Affine> written = new HashMap<>();
        for (Work w : work) {
            if (w.store() == null) return false;
            Affine before = written.putIfAbsent(w.out().storage(), w.store());
            if (before != null && !before.equals(w.store())) return false;
        }
        for (Work w : work) {
            boolean[] ok = {true};
            Expr.forEachLoad(w.body(), l -> {
                Affine at = written.get(l.buffer().storage());
                if (at != null && !at.equals(l.index())) ok[0] = false;
            });
            if (!ok[0]) return false;
        }
        return true;
    }

    /**
     * Elements per block when a flat kernel has several stages: each stage runs over one block
     * before the next stage starts on it, so a later stage's loads of an earlier stage's stores
     * (and of the inputs they share) hit the cache instead of memory. A fused optimizer step
     * (moments, then the parameter from them) streams each array once instead of once per stage.
     * 2048 floats are 8 KB per array: an Adam step's seven arrays stay in the 1 MB L2 of this
     * machine's cores and of most; the per-block cost (the hoisted scalars, an empty masked tail)
     * is a few instructions per 2048 elements.
     */
    static final int FLAT_BLOCK = 2048;

    /** {@code for (int v = from; v < to; v += step)}, opened. */
    private static void openFor(Code c, JExpr.Local v, JExpr from, JExpr to, JExpr step) {
        c.openFor(new JStmt.Declare(v, from), new JExpr.Compare(JExpr.CmpOp.LT, v, to), new JStmt.Assign(v, new JExpr.Arith(JExpr.ArithOp.ADD, v, step)));
    }

    /** {@code for (; v < to; v += step)}, opened: continues from where {@code v} is. */
    private static void openContinue(Code c, JExpr.Local v, JExpr to, JExpr step) {
        c.openFor(null, new JExpr.Compare(JExpr.CmpOp.LT, v, to), new JStmt.Assign(v, new JExpr.Arith(JExpr.ArithOp.ADD, v, step)));
    }

    private static JExpr.Lit one() { return JavaTypes.intLit(1); }

    /** Rows over {@code outer} in parallel, each stage looping over its inner dims inside. */
    private void rows(Code c, List<Dim> outer, List<Work> work, KernelContext ctx) {
        SymInt rows = Sizes.ONE;
        for (Dim d : outer) rows = Sizes.times(rows, d.size());
        boolean parallel = !outer.isEmpty();
        if (parallel) {
            SymInt perRow = Sizes.ZERO;
            for (Work w : work) {
                SymInt n = Sizes.ONE;
                for (Dim d : w.inner()) n = Sizes.times(n, d.size());
                perRow = Sizes.plus(perRow, Sizes.times(n, SymInt.of(1 + Expr.size(w.body()) / 2)));
            }
            // the work per row, from which the split across cores is decided when the kernel runs
            JExpr cost = perRow.isConstant() ? new JExpr.Lit(Math.max(1, perRow.constant()), JType.LONG) : JavaTypes.convert(ctx.size(perRow), JType.LONG);
            c.openParallel(ctx.size(rows), cost, LO, HI);
            JExpr.Local row = new JExpr.Local("row", JType.INT);
            openFor(c, row, LO, HI, one());
            if (outer.size() == 1) {
                c.add(new JStmt.Declare(KernelContext.var(outer.get(0).var()), row));
            } else {
                JExpr.Local rem = c.declare(JType.INT, "rem", row);
                for (int i = outer.size() - 1; i > 0; i--) {
                    Dim d = outer.get(i);
                    c.add(new JStmt.Declare(KernelContext.var(d.var()), new JExpr.Arith(JExpr.ArithOp.REM, rem, ctx.size(d.size()))));
                    c.assign(rem, new JExpr.Arith(JExpr.ArithOp.DIV, rem, ctx.size(d.size())));
                }
                c.add(new JStmt.Declare(KernelContext.var(outer.get(0).var()), rem));
            }
        }
        for (Work w : work) {
            if (w.stage() instanceof Stage.Reduction r) {
                reduction(c, r, w, ctx);
            } else {
                c.openBlock();
                pointwise(c, w, ctx);
                c.close();
            }
        }
        if (parallel) {
            c.close();
            c.close();
        }
    }

    /** Work per element, for the parallel split: roughly the expression size. */
    private static long weight(List<Work> work) {
        long w = 0;
        for (Work x : work) w += 1 + Expr.size(x.body()) / 2;
        return w;
    }

    // ------------------------------------------------------------------ stages

    private static JStmt.ArrayStore store(Buffer out, JExpr index, JExpr value) {
        return new JStmt.ArrayStore(KernelContext.array(out), index, ScalarExprs.storeValue(value, out.dtype()));
    }

    private void pointwise(Code c, Work w, KernelContext ctx) {
        List<Dim> inner = w.inner();
        // No elements, no work. Emitting the loops anyway would run their hoisted loop-invariant
        // code, and a load from a size-0 dim is indexed like a broadcast one (stride ignored): it
        // reads element 0 of an empty array (layer_norm over a [0] dim threw where eager returned).
        if (inner.stream().anyMatch(d -> Sizes.is(d.size(), 0))) {
            c.comment("no elements: nothing to compute");
            return;
        }
        if (inner.isEmpty()) {
            JExpr v = new ScalarExprs(ctx, c).emit(w.body());
            c.add(store(w.out(), ctx.index(w.out(), w.store()), v));
            return;
        }
        for (int i = 0; i < inner.size() - 1; i++) {
            openFor(c, KernelContext.var(inner.get(i).var()), JavaTypes.intLit(0), ctx.size(inner.get(i).size()), one());
        }
        Dim last = inner.get(inner.size() - 1);
        innermostPointwise(c, w.body(), last.var(), JavaTypes.intLit(0), ctx.size(last.size()), w.out(), w.store(), ctx);
        for (int i = 0; i < inner.size() - 1; i++) c.close();
    }

    private void innermostPointwise(Code c, Expr body, int var, JExpr from, JExpr to, Buffer out, Affine store, KernelContext ctx) {
        JExpr.Local v = KernelContext.var(var);
        DType dt = out.dtype();
        Code pre = new Code();
        ScalarExprs hoist = new ScalarExprs(ctx, pre);
        if (vectorize && dt.isFloatingPoint() && store.unitStride(var) && ScalarExprs.dependsOn(body, var) && VectorExprs.supports(body, var, dt)) {
            vectorLoops++;
            VectorExprs vx = new VectorExprs(ctx, var, dt, hoist, pre);
            if (vx.vectorMathCalls(body, Set.of()) > 0) polynomialLoops++;
            Code masked = new Code();
            JExpr.Local mask = masked.declare(VectorApi.maskType(dt), ctx.temp(), VectorApi.indexInRange(dt, v, to));
            JExpr tailValue = vx.emitMasked(body, mask, masked);
            masked.eval(VectorApi.intoArray(tailValue, KernelContext.array(out), ctx.index(out, store), mask));
            if (vx.vectorMathCalls(body, Set.of()) >= 2) {
                splitVectorLoop(c, vx, pre, body, v, from, to, out, store, ctx);
            } else {
                Code vbody = new Code();
                JExpr r = vx.emit(body, vbody);
                vbody.eval(VectorApi.intoArray(r, KernelContext.array(out), ctx.index(out, store)));
                vectorLoop(c, pre, vbody, v, from, to, dt);
            }
            maskedTail(c, masked, from, to, dt);
            return;
        }
        hoistInvariants(body, var, hoist);
        c.append(pre);
        openFor(c, v, from, to, one());
        Code tail = new Code();
        JExpr s = new ScalarExprs(ctx, tail, new HashMap<>(hoist.memo())).emit(body);
        c.append(tail);
        c.add(store(out, ctx.index(out, store), s));
        c.close();
    }

    /**
     * Elements per block of a split vector loop: 2 KB of float32 intermediates, which stay in L1
     * between the loop that writes them and the loop that reads them.
     */
    static final int SPLIT_BLOCK = 512;

    /**
     * A vector loop whose body makes two or more VectorMath calls, split over blocks of
     * {@link #SPLIT_BLOCK} elements into one loop per call: each loop computes the innermost call
     * not yet computed and stores it in a small block array, which later loops load; the last loop
     * computes the rest and stores the result. Fused in one loop, the calls' constants and
     * temporaries most likely outgrow the 32 vector registers and C2 spills them: the transcendental chain
     * (sin, exp, sigmoid) ran at 1.35 ns per element fused, 1.11 split in two, 0.99 in three (one
     * core). Every loop computes exactly what the fused one did, in the same order: equal results.
     */
    private void splitVectorLoop(Code c, VectorExprs vx, Code pre, Expr body, JExpr.Local v, JExpr from, JExpr to, Buffer out,
                                 Affine store, KernelContext ctx) {
        DType dt = out.dtype();
        JExpr.Local block = new JExpr.Local(ctx.temp(), JType.INT), blockEnd = new JExpr.Local(ctx.temp(), JType.INT);
        JExpr within = new JExpr.Arith(JExpr.ArithOp.SUB, v, block);
        Set<Expr> cuts = new LinkedHashSet<>();
        Map<Expr, JExpr.Local> scratch = new HashMap<>();
        List<Code> loops = new ArrayList<>();
        while (vx.vectorMathCalls(body, cuts) >= 2) {
            Expr cut = vx.innermostVectorMathCall(body, cuts);
            Code loop = new Code();
            JExpr value = vx.emitKnowing(cut, loop, loadsOf(cut, cuts, scratch, loop, within, dt, ctx));
            JExpr.Local array = pre.declare(JavaTypes.array(dt), ctx.temp(), new JExpr.NewArray(JavaTypes.array(dt), JavaTypes.intLit(SPLIT_BLOCK)));
            loop.eval(VectorApi.intoArray(value, array, within));
            scratch.put(cut, array);
            cuts.add(cut);
            loops.add(loop);
        }
        Code last = new Code();
        JExpr r = vx.emitKnowing(body, last, loadsOf(body, cuts, scratch, last, within, dt, ctx));
        last.eval(VectorApi.intoArray(r, KernelContext.array(out), ctx.index(out, store)));
        loops.add(last);

        c.append(pre);
        JExpr.Local end = c.declare(JType.INT, ctx.temp(), bound(from, to, dt));
        c.add(new JStmt.Declare(v, from));
        c.comment("one loop per VectorMath call over blocks of " + SPLIT_BLOCK + ": fused, the body would spill vector registers");
        c.openFor(new JStmt.Declare(block, from), new JExpr.Compare(JExpr.CmpOp.LT, block, end),
                new JStmt.Assign(block, new JExpr.Arith(JExpr.ArithOp.ADD, block, JavaTypes.intLit(SPLIT_BLOCK))));
        c.declare(JType.INT, blockEnd.name(), Calls.math("min", JType.INT, new JExpr.Arith(JExpr.ArithOp.ADD, block, JavaTypes.intLit(SPLIT_BLOCK)), end));
        for (Code loop : loops) {
            c.openFor(new JStmt.Assign(v, block), new JExpr.Compare(JExpr.CmpOp.LT, v, blockEnd),
                    new JStmt.Assign(v, new JExpr.Arith(JExpr.ArithOp.ADD, v, VectorApi.length(dt))));
            c.append(loop);
            c.close();
        }
        c.close();
        c.assign(v, end);
    }

    /** In {@code loop}: a load from its block array of each earlier cut that {@code e} uses, as the vectors to use for them. */
    private static Map<Expr, JExpr> loadsOf(Expr e, Set<Expr> cuts, Map<Expr, JExpr.Local> scratch, Code loop,
                                                       JExpr within, DType dt, KernelContext ctx) {
        Map<Expr, JExpr> loads = new HashMap<>();
        for (Expr used : VectorExprs.knownUses(e, cuts)) {
            loads.put(used, loop.declare(JavaTypes.vector(dt), ctx.temp(), VectorApi.fromArray(dt, scratch.get(used), within)));
        }
        return loads;
    }

    /**
     * Whether the terms {@code [from, to)} of a row of length {@code rowSize} leave a tail:
     * {@code from + F.loopBound(to - from) != to} (for a whole row {@code F.loopBound(n) != n}, which
     * C2 folds). Only for a constant {@code rowSize}, where every call takes the branch the same way
     * (a blocked sum's blocks are the same on every call too); null for a size-generic row, whose
     * tail always runs (TAIL_ALWAYS_RUNS).
     */
    private static JExpr tailGuard(JExpr from, JExpr to, JExpr rowSize, DType dt) {
        return rowSize instanceof JExpr.Lit ? new JExpr.Compare(JExpr.CmpOp.NE, bound(from, to, dt), to) : null;
    }

    /** Where the vector loop over {@code [from, to)} stops: {@code from + F.loopBound(to - from)}. */
    private static JExpr bound(JExpr from, JExpr to, DType dt) {
        boolean zero = from instanceof JExpr.Lit l && l.value().equals(0);
        JExpr b = VectorApi.loopBound(dt, zero ? to : new JExpr.Arith(JExpr.ArithOp.SUB, to, from));
        return zero ? b : new JExpr.Arith(JExpr.ArithOp.ADD, from, b);
    }

    /** Computes every loop-invariant subtree of {@code e} before the loop (C2 would too; this keeps it visible). */
    private static void hoistInvariants(Expr e, int var, ScalarExprs hoist) {
        if (e instanceof Expr.Const) return;
        if (!ScalarExprs.dependsOn(e, var)) {
            hoist.emit(e);
            return;
        }
        switch (e) {
            case Expr.Unary u -> hoistInvariants(u.x(), var, hoist);
            case Expr.Binary b -> { hoistInvariants(b.a(), var, hoist); hoistInvariants(b.b(), var, hoist); }
            case Expr.Where w -> { hoistInvariants(w.cond(), var, hoist); hoistInvariants(w.a(), var, hoist); hoistInvariants(w.b(), var, hoist); }
            case Expr.Fma m -> { hoistInvariants(m.a(), var, hoist); hoistInvariants(m.b(), var, hoist); hoistInvariants(m.c(), var, hoist); }
            case Expr.Cast x -> hoistInvariants(x.x(), var, hoist);
            default -> { }
        }
    }

    /**
     * Vectors a reduction loop folds per step, into as many independent accumulators: with one, each
     * step waits for the previous add (about 4 cycles), so the loop ran at the add's latency instead
     * of at the speed of its loads.
     */
    private static final int UNROLL = 4;   // a power of two: the scalar form's lane emulation finds slots by masks

    /**
     * Terms per block of a float32 sum on lanes. Each block is folded on float lanes from zero and
     * its total added to a double, as eager's {@code ReduceRows} does (same block size): summed on
     * float lanes to the end, 16M floats in [0.5, 1.5) came out 3.3e-7 off (relative) against eager's
     * 2.6e-8, and a fuzzed program that multiplied such a sum by thousands failed the judge
     * (seeds 311725, 371588, 410566's class).
     */
    static final int SUM_BLOCK = 2048;

    private void reduction(Code c, Stage.Reduction r, Work w, KernelContext ctx) {
        DType dt = r.out().dtype();
        List<Dim> inner = w.inner();
        Expr body = w.body();
        Dim last = inner.isEmpty() ? null : inner.get(inner.size() - 1);
        // a product multiplies term by term in the terms' order, as eager's ReduceProduct: on lanes it would round otherwise
        boolean onLanes = last != null && dt.isFloatingPoint() && r.op() != Stage.ReduceOp.PROD && ScalarExprs.dependsOn(body, last.var())
                && (w.scratch() == null || w.scratch().store().unitStride(last.var()))
                && VectorExprs.supports(body, last.var(), dt);
        boolean vec = vectorize && onLanes;
        boolean emulated = !vectorize && emulateLanes && onLanes;
        boolean floatSum = dt == DType.FLOAT32 && r.op() == Stage.ReduceOp.SUM;
        // a float32 sum on lanes is cut into blocks whose totals are carried in double (see SUM_BLOCK)
        boolean blocked = (vec || emulated) && floatSum;
        JType type = JavaTypes.scalar(dt);
        // a float32 product is carried in double and rounds once, as eager's
        JType accType = floatSum || dt == DType.FLOAT32 && r.op() == Stage.ReduceOp.PROD ? JType.DOUBLE : type;
        c.comment(r.op().name().toLowerCase() + " over " + dimsText(inner) + (w.store() == null ? " (kept in a register)" : ""));
        JExpr.Local acc = c.declare(accType, ctx.temp(), JavaTypes.convert(init(r.op(), dt), accType));
        // No terms: the result is the reduction's identity. Emitting the loops anyway would run their hoisted loop-invariant
        // loads, and a term constant along a size-0 dim (an expanded input, stride 0) reads element 0 of an empty array
        // (fuzzer seed 201468: the sum of an expanded [5, 0] input threw where eager gave 0); as pointwise() does.
        if (inner.stream().anyMatch(d -> Sizes.is(d.size(), 0))) {
            c.comment("no terms: the identity");
            JExpr.Local result = c.declare(type, ctx.temp(), JavaTypes.convert(acc, type));
            if (w.store() != null) c.store(KernelContext.array(r.out()), ctx.index(r.out(), w.store()), result);
            ctx.setLocal(r.out(), result);
            return;
        }
        List<JExpr.Local> accV = new ArrayList<>();
        for (int k = 0; vec && k < UNROLL; k++) accV.add(c.declare(JavaTypes.vector(dt), ctx.temp(), VectorApi.broadcast(dt, init(r.op(), dt))));
        EmulatedLanes emulation = null;
        if (emulated) {
            c.comment("the SIMD form's " + UNROLL + " vector accumulators, lane by lane: the same additions in the same order");
            JExpr.Local laneCount = c.declare(JType.INT, ctx.temp(), VectorApi.length(dt));
            JExpr span = new JExpr.Arith(JExpr.ArithOp.MUL, JavaTypes.intLit(UNROLL), laneCount);
            JExpr.Local laneAcc = c.declare(JavaTypes.array(dt), ctx.temp(), new JExpr.NewArray(JavaTypes.array(dt), span));
            emulation = new EmulatedLanes(laneAcc, laneCount, c.declare(JType.INT, ctx.temp(), new JExpr.Arith(JExpr.ArithOp.SUB, span, one())),
                    c.declare(JType.INT, ctx.temp(), new JExpr.Arith(JExpr.ArithOp.SUB, laneCount, one())),
                    new JExpr.Local(ctx.temp(), JType.INT));
            if (r.op() != Stage.ReduceOp.SUM) {
                c.eval(Calls.staticCall(Calls.ARRAYS, "fill", JType.VOID, laneAcc, init(r.op(), dt)));
            }
        }
        c.openBlock();
        for (int i = 0; i < inner.size() - 1; i++) {
            openFor(c, KernelContext.var(inner.get(i).var()), JavaTypes.intLit(0), ctx.size(inner.get(i).size()), one());
        }
        if (last == null) {
            JExpr s = new ScalarExprs(ctx, c).emit(body);
            c.assign(acc, combine(r.op(), acc, s));
        } else {
            JExpr.Local v = KernelContext.var(last.var());
            Code pre = new Code();
            ScalarExprs hoist = new ScalarExprs(ctx, pre);
            JExpr size = ctx.size(last.size());
            // the terms [from, to) a pass folds: the whole row, or one block of a blocked sum
            JExpr from = JavaTypes.intLit(0), to = size;
            if (vec) {
                vectorLoops++;
                VectorExprs lanes = new VectorExprs(ctx, last.var(), dt, hoist, pre);
                Code unrolled = new Code(), single = new Code();
                for (int k = 0; k < UNROLL; k++) vectorStep(unrolled, lanes, r.op(), w, accV.get(k), lanesAhead(k, dt), ctx);
                vectorStep(single, lanes, r.op(), w, accV.get(0), null, ctx);
                c.append(pre);
                if (blocked) {
                    JExpr[] range = openSumBlock(c, size, accV, null, dt, ctx);
                    from = range[0];
                    to = range[1];
                }
                c.add(new JStmt.Declare(v, from));
                JExpr bound = bound(from, to, dt);
                openContinue(c, v, new JExpr.Arith(JExpr.ArithOp.SUB, bound, lanesAhead(UNROLL - 1, dt)), lanesAhead(UNROLL, dt));
                c.append(unrolled);
                c.close();
                openContinue(c, v, bound, VectorApi.length(dt));
                c.append(single);
                c.close();
                c.comment("the tail as one masked vector: the body's formulas, so no term's value depends on where it falls");
                JExpr guard = tailGuard(from, to, size, dt);
                if (guard == null) {
                    c.comment("run on every call, empty or not: see TAIL_ALWAYS_RUNS");
                    maskedStep(c, lanes, r.op(), w, accV.get(0), dt, v, to, ctx);
                } else {
                    c.openIf(guard);   // a constant length: see TAIL_ALWAYS_RUNS
                    maskedStep(c, lanes, r.op(), w, accV.get(0), dt, v, to, ctx);
                    c.close();
                }
                if (blocked) c.assign(acc, combine(r.op(), acc, VectorApi.reduceLanes(lanesOp(r.op()), pairwise(vectorCombine(r.op()), accV), dt)));
            } else {
                hoistInvariants(body, last.var(), hoist);
                c.append(pre);
                if (blocked) {
                    JExpr[] range = openSumBlock(c, size, List.of(), emulation, dt, ctx);
                    from = range[0];
                    to = range[1];
                }
                if (emulated) {
                    // where the SIMD form's unrolled loop stops: loopBound(to - from) rounded down to whole steps of UNROLL vectors
                    JExpr span = new JExpr.Arith(JExpr.ArithOp.ADD, emulation.spanMask(), one());
                    JExpr terms = blocked ? new JExpr.Arith(JExpr.ArithOp.SUB, to, from) : to;
                    c.add(new JStmt.Declare(emulation.unrolledEnd(), new JExpr.Arith(JExpr.ArithOp.MUL,
                            new JExpr.Arith(JExpr.ArithOp.DIV, VectorApi.loopBound(dt, terms), span), span)));
                }
                openFor(c, v, from, to, one());
                Code tail = new Code();
                JExpr s = new ScalarExprs(ctx, tail, new HashMap<>(hoist.memo())).emit(body);
                c.append(tail);
                if (w.scratch() != null) {
                    Buffer o = w.scratch().out();
                    c.add(store(o, ctx.index(o, w.scratch().store()), s));
                }
                if (emulated) foldIntoLane(c, r.op(), emulation, blocked ? new JExpr.Arith(JExpr.ArithOp.SUB, v, from) : v, s, dt, ctx);
                else c.assign(acc, combine(r.op(), acc, s));
                c.close();
                if (emulated && blocked) c.assign(acc, combine(r.op(), acc, reduceEmulatedLanes(c, r.op(), emulation, dt, ctx)));
            }
            if (blocked) c.close();
        }
        for (int i = 0; i < inner.size() - 1; i++) c.close();
        c.close();
        if (vec && !blocked) {
            JExpr all = pairwise(vectorCombine(r.op()), accV);
            c.assign(acc, combine(r.op(), acc, VectorApi.reduceLanes(lanesOp(r.op()), all, dt)));
        }
        if (emulated && !blocked) c.assign(acc, combine(r.op(), acc, reduceEmulatedLanes(c, r.op(), emulation, dt, ctx)));
        JExpr.Local result = c.declare(type, ctx.temp(), JavaTypes.convert(acc, type));
        if (w.store() != null) c.store(KernelContext.array(r.out()), ctx.index(r.out(), w.store()), result);
        ctx.setLocal(r.out(), result);
    }

    /**
     * One vector of a reduction's terms at {@code v + offset}, folded into {@code acc} (and stored
     * for a later stage when the reduction keeps its terms).
     */
    private static void vectorStep(Code c, VectorExprs lanes, Stage.ReduceOp op, Work w, JExpr.Local acc, JExpr offset, KernelContext ctx) {
        JExpr x = lanes.emit(w.body(), offset, c);
        if (w.scratch() != null) {
            Buffer o = w.scratch().out();
            c.eval(VectorApi.intoArray(x, KernelContext.array(o), VectorExprs.at(ctx.index(o, w.scratch().store()), offset)));
        }
        c.assign(acc, VectorApi.binary(vectorCombine(op), acc, x));
    }

    /** The terms at {@code [v, to)}, fewer than a vector, as one masked vector folded into {@code acc}'s lanes of the mask. */
    private static void maskedStep(Code c, VectorExprs lanes, Stage.ReduceOp op, Work w, JExpr.Local acc, DType dt, JExpr.Local v, JExpr to,
                                   KernelContext ctx) {
        JExpr.Local mask = c.declare(VectorApi.maskType(dt), ctx.temp(), VectorApi.indexInRange(dt, v, to));
        JExpr x = lanes.emitMasked(w.body(), mask, c);
        if (w.scratch() != null) {
            Buffer o = w.scratch().out();
            c.eval(VectorApi.intoArray(x, KernelContext.array(o), ctx.index(o, w.scratch().store()), mask));
        }
        c.assign(acc, VectorApi.fold(lanesOp(op), acc, x, mask));
    }

    /*
     * The SIMD form of a reduction over a row of n terms folds terms [0, u) into UNROLL vector
     * accumulators, term t into accumulator t / L % UNROLL at lane t % L (u: the largest multiple
     * of UNROLL·L not past loopBound(n)), and the rest, [u, n), into accumulator 0 at lane t % L
     * (one vector per step, then the masked tail). So in a flat array of UNROLL·L slots, term t goes
     * to slot t % (UNROLL·L) below u and t % L from u on (L and UNROLL are powers of two: masks).
     * The row's other inner dims restart t at 0 and keep the accumulators.
     */
    /**
     * Opens the loop over blocks of {@link #SUM_BLOCK} terms of a row of {@code size}, with every
     * accumulator (the vectors, or the emulated lanes) back at zero; returns the block's
     * {@code {from, to}}.
     */
    private static JExpr[] openSumBlock(Code c, JExpr size, List<JExpr.Local> accV, EmulatedLanes emulation, DType dt, KernelContext ctx) {
        JExpr.Local block = new JExpr.Local(ctx.temp(), JType.INT);
        c.comment("blocks of " + SUM_BLOCK + " terms on float lanes, their totals carried in double (as eager's ReduceRows)");
        openFor(c, block, JavaTypes.intLit(0), size, JavaTypes.intLit(SUM_BLOCK));
        JExpr.Local end = c.declare(JType.INT, ctx.temp(),
                Calls.math("min", JType.INT, new JExpr.Arith(JExpr.ArithOp.ADD, block, JavaTypes.intLit(SUM_BLOCK)), size));
        for (JExpr.Local a : accV) c.assign(a, VectorApi.broadcast(dt, JavaTypes.literal(0, dt)));
        if (emulation != null) c.eval(Calls.staticCall(Calls.ARRAYS, "fill", JType.VOID, emulation.acc(), JavaTypes.literal(0, dt)));
        return new JExpr[] {block, end};
    }

    private record EmulatedLanes(JExpr.Local acc, JExpr.Local count, JExpr.Local spanMask, JExpr.Local laneMask, JExpr.Local unrolledEnd) {}

    private static void foldIntoLane(Code c, Stage.ReduceOp op, EmulatedLanes lanes, JExpr v, JExpr term, DType dt, KernelContext ctx) {
        JExpr slotExpr = new JExpr.Cond(new JExpr.Compare(JExpr.CmpOp.LT, v, lanes.unrolledEnd()),
                new JExpr.Arith(JExpr.ArithOp.AND, v, lanes.spanMask()), new JExpr.Arith(JExpr.ArithOp.AND, v, lanes.laneMask()));
        JExpr.Local slot = c.declare(JType.INT, ctx.temp(), slotExpr);
        c.store(lanes.acc(), slot, combineValues(op, JavaTypes.scalar(dt), new JExpr.ArrayLoad(lanes.acc(), slot), term));
    }

    /**
     * The emulated accumulators reduced as the SIMD form reduces its vectors: the UNROLL accumulators
     * combined lane by lane as {@link #pairwise} does, then the lanes summed by
     * {@code VectorMath.sumLanes} (its tree of halves) or folded by max / min (exact in any order).
     */
    private static JExpr reduceEmulatedLanes(Code c, Stage.ReduceOp op, EmulatedLanes lanes, DType dt, KernelContext ctx) {
        JExpr.Local laneAcc = lanes.acc(), laneCount = lanes.count();
        JType t = JavaTypes.scalar(dt);
        JExpr.Local l = new JExpr.Local(ctx.temp(), JType.INT);
        openFor(c, l, JavaTypes.intLit(0), laneCount, one());
        List<JExpr> accs = new ArrayList<>();
        for (int k = 0; k < UNROLL; k++) {
            JExpr at = k == 0 ? l : new JExpr.Arith(JExpr.ArithOp.ADD, l, new JExpr.Arith(JExpr.ArithOp.MUL, JavaTypes.intLit(k), laneCount));
            accs.add(new JExpr.ArrayLoad(laneAcc, at));
        }
        c.store(laneAcc, l, pairwiseValues(op, t, accs));
        c.close();
        if (op == Stage.ReduceOp.SUM) return Calls.staticCall(Calls.VECTOR_MATH, "sumLanes", t, laneAcc, laneCount);
        JExpr.Local folded = c.declare(t, ctx.temp(), new JExpr.ArrayLoad(laneAcc, JavaTypes.intLit(0)));
        openFor(c, l, JavaTypes.intLit(1), laneCount, one());
        c.assign(folded, combineValues(op, t, folded, new JExpr.ArrayLoad(laneAcc, l)));
        c.close();
        return folded;
    }

    /** {@link #pairwise}'s tree on scalars. */
    private static JExpr pairwiseValues(Stage.ReduceOp op, JType t, List<JExpr> values) {
        if (values.size() == 1) return values.get(0);
        int half = values.size() / 2;
        return combineValues(op, t, pairwiseValues(op, t, values.subList(0, half)), pairwiseValues(op, t, values.subList(half, values.size())));
    }

    /** {@code a ⊕ b} in type {@code t}. */
    private static JExpr combineValues(Stage.ReduceOp op, JType t, JExpr a, JExpr b) {
        JExpr x = JavaTypes.convert(a, t), y = JavaTypes.convert(b, t);
        return switch (op) {
            case SUM -> new JExpr.Arith(JExpr.ArithOp.ADD, x, y);
            case MAX -> Calls.math("max", t, x, y);
            case MIN -> Calls.math("min", t, x, y);
            case PROD -> new JExpr.Arith(JExpr.ArithOp.MUL, x, y);
        };
    }

    /** {@code (a0 ⊕ a1) ⊕ (a2 ⊕ a3)}: the accumulators combined as a tree, which rounds less than a chain. */
    private static JExpr pairwise(String op, List<JExpr.Local> accs) {
        if (accs.size() == 1) return accs.get(0);
        int half = accs.size() / 2;
        return VectorApi.binary(op, pairwise(op, accs.subList(0, half)), pairwise(op, accs.subList(half, accs.size())));
    }

    /** {@code k * F.length()}: where the k-th vector of an unrolled step starts (null for the first). */
    private static JExpr lanesAhead(int k, DType dt) {
        if (k == 0) return null;
        return k == 1 ? VectorApi.length(dt) : new JExpr.Arith(JExpr.ArithOp.MUL, JavaTypes.intLit(k), VectorApi.length(dt));
    }

    private static String dimsText(List<Dim> dims) {
        return dims.stream().map(d -> "i" + d.var() + " < " + d.size()).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
    }

    private static JExpr init(Stage.ReduceOp op, DType d) {
        if (op == Stage.ReduceOp.SUM) return JavaTypes.literal(0, d);
        if (op == Stage.ReduceOp.PROD) return JavaTypes.literal(1, d);
        boolean max = op == Stage.ReduceOp.MAX;
        return switch (d) {
            case FLOAT32 -> new JExpr.Lit(max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY, JType.FLOAT);
            case FLOAT64 -> new JExpr.Lit(max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, JType.DOUBLE);
            case INT32 -> new JExpr.Lit(max ? Integer.MIN_VALUE : Integer.MAX_VALUE, JType.INT);
            default -> new JExpr.Lit(max ? Long.MIN_VALUE : Long.MAX_VALUE, JType.LONG);
        };
    }

    /** {@code acc ⊕ x}, in the accumulator's type (a float sum adds in double). */
    private static JExpr combine(Stage.ReduceOp op, JExpr.Local acc, JExpr x) { return combineValues(op, acc.type(), acc, x); }

    private static String vectorCombine(Stage.ReduceOp op) {
        return switch (op) {
            case SUM -> "add";
            case MAX -> "max";
            case MIN -> "min";
            case PROD -> throw new IllegalStateException("a product is never folded on lanes");
        };
    }

    private static String lanesOp(Stage.ReduceOp op) {
        return switch (op) {
            case SUM -> "ADD";
            case MAX -> "MAX";
            case MIN -> "MIN";
            case PROD -> throw new IllegalStateException("a product is never folded on lanes");
        };
    }

    // ------------------------------------------------------------------ dims and accesses

    static List<Dim> dims(SymInt[] sizes, int firstVar) {
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) out.add(new Dim(firstVar + i, sizes[i]));
        return out;
    }

    /**
     * Drops size-1 dims and merges neighbours {@code a, b} wherever every access steps
     * {@code coeff(a) = coeff(b)·size(b)}: the pair then walks memory like one dim. Dropped vars are
     * added to {@code dropped} (their value is 0 from then on).
     */
    static List<Dim> collapse(List<Dim> dims, List<Affine> accesses, Set<Integer> dropped) {
        List<Dim> out = new ArrayList<>();
        for (Dim d : dims) {
            if (Sizes.is(d.size(), 1)) dropped.add(d.var());
            else out.add(d);
        }
        for (int i = out.size() - 1; i >= 1; i--) {
            Dim a = out.get(i - 1), b = out.get(i);
            boolean ok = true;
            for (Affine x : accesses) if (!x.coeff(a.var()).equals(Sizes.times(x.coeff(b.var()), b.size()))) { ok = false; break; }
            if (!ok) continue;
            out.set(i, new Dim(b.var(), Sizes.times(a.size(), b.size())));
            out.remove(i - 1);
            dropped.add(a.var());
        }
        return out;
    }

    private List<Affine> accesses(Stage s, Kernel.Loop k) {
        List<Affine> out = new ArrayList<>(loads(s));
        if (s instanceof Stage.Pointwise p) out.add(store(p));
        if (s instanceof Stage.Reduction r && !k.locals().contains(r.out())) out.add(Affine.contiguous(r.outer(), 0));
        return out;
    }

    private static List<Affine> loads(Stage s) {
        List<Affine> out = new ArrayList<>();
        Expr body = s instanceof Stage.Reduction r ? r.body() : ((Stage.Pointwise) s).body();
        Expr.forEachLoad(body, l -> out.add(l.index()));
        return out;
    }

    private static Affine store(Stage.Pointwise p) { return Affine.contiguous(p.shape(), 0); }
}
