package dev.ember.inductor.codegen;

import dev.ember.fx.NanAsserts;
import dev.ember.fx.Node;
import dev.ember.fx.SizeSymbols;
import dev.ember.inductor.Kernel;
import dev.ember.inductor.MemoryPlan;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Sizes;
import dev.ember.inductor.ir.Stage;
import dev.ember.inductor.ir.Value;
import dev.ember.inductor.runtime.KernelTier;
import dev.ember.tensor.DType;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;

import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Builds a whole compiled graph as one class: a static method per kernel, and
 * {@code call(Tensor[] inputs, Object[] arena, Object[] constants)} that takes the inputs apart
 * into arrays, runs the kernels and extern calls in order, and wraps the outputs (Inductor's
 * wrapper code), as a {@link JClass}: printed, it is what {@code EMBER_LOGS=output_code} shows;
 * written as bytecode, it is what runs.
 *
 * <p>In a graph generic in some input sizes, {@code call} first reads each size symbol from its
 * input ({@code int s0 = inputs[0].size(0);}), and every size, stride, offset and allocation
 * after that is an expression of those locals; a kernel takes the symbols it uses as parameters.
 */
public final class GraphWriter {
    private final String className;
    private final List<Kernel> kernels;
    private final MemoryPlan plan;
    private final Object output;
    private final int inputCount;
    /** The size symbols the graph is generic in, or null for a static graph. */
    private final SizeSymbols symbols;
    private final LoopWriter loops;
    private final List<Object> constants = new ArrayList<>();
    private final Map<String, String> opFields = new LinkedHashMap<>();
    /** Static TransposedWeight fields, one per GEMM whose weight is kept transposed across calls. */
    private final List<String> transposedFields = new ArrayList<>();
    /** Static KernelTier fields, one per kernel written in both forms. */
    private final List<String> tierFields = new ArrayList<>();
    private final boolean transposeWeights;
    /** Whether {@code call} checks each kernel's outputs for NaN and infinity ({@code EMBER_NAN_ASSERTS}). */
    private final boolean nanAsserts;

    /**
     * With {@code transposeWeights} (a max-autotune variant), GEMMs of at most this many rows read a
     * weight stored transposed (a Linear's {@code [out, in]}) from a copy kept in {@code [in, out]}
     * order: OpenBLAS ran them 5–30% faster that way on this project's machine (64x2048x2048: 3.85
     * vs 4.48 ms; 16x1024x1024: 0.42 vs 0.59 ms); from 512 rows on both orders ran alike, and at
     * 1024x1024x1024 the copy was slower. The copy costs the weight's size in memory, which is why
     * it is a variant max-autotune times rather than the default.
     */
    static final int TRANSPOSED_WEIGHT_MAX_ROWS = 256;

    public GraphWriter(String className, List<Kernel> kernels, MemoryPlan plan, Object output, int inputCount, SizeSymbols symbols, boolean vectorize,
                       boolean transposeWeights, boolean nanAsserts) {
        this.symbols = symbols;
        this.className = className;
        this.nanAsserts = nanAsserts;
        this.transposeWeights = transposeWeights;
        this.kernels = kernels;
        this.plan = plan;
        this.output = output;
        this.inputCount = inputCount;
        this.loops = new LoopWriter(vectorize);
    }

    /** Whether writing {@code kernels} with {@code transposeWeights} would keep any weight transposed. */
    public static boolean hasTransposableWeights(List<Kernel> kernels) {
        return kernels.stream().anyMatch(k -> k instanceof Kernel.Host h && h.host() instanceof Stage.Gemm g && canKeepWeightTransposed(g));
    }

    /** Values that cannot be written as literals, passed to {@code call} as {@code constants}. */
    public List<Object> constants() { return constants; }

    private static final JExpr.Local INPUTS = new JExpr.Local("inputs", Calls.TENSOR.array());
    private static final JExpr.Local ARENA = new JExpr.Local("arena", JType.OBJECT.array());
    private static final JExpr.Local CONSTANTS = new JExpr.Local("constants", JType.OBJECT.array());

    /**
     * The generated class as the class file that runs, and as Java source (what {@code output_code}
     * shows), printed on first request: only logs, the debug folder, the trace and the disk cache's
     * writer read it, and printing it took a tenth of a cold compile (JFR, the encoder's first step).
     */
    public record Generated(Supplier<String> source, byte[] classBytes) {}

    /** Builds the class and writes its class file; {@code loader} resolves class hierarchies for the stack maps. */
    public Generated generate(ClassLoader loader) {
        JClass c = write();
        return new Generated(printedOnDemand(c), BytecodeWriter.write(c, loader));
    }

    /** {@code c}'s source, printed once on first request from any thread; the code model is let go once printed. */
    private static Supplier<String> printedOnDemand(JClass c) {
        return new Supplier<>() {
            private JClass model = c;
            private String text;

            @Override
            public synchronized String get() {
                if (text == null) {
                    text = SourcePrinter.print(model);
                    model = null;
                }
                return text;
            }
        };
    }

    /** The class: what {@code output_code} prints ({@link SourcePrinter}) and what runs ({@link BytecodeWriter}). */
    JClass write() {
        List<JClass.Method> methods = new ArrayList<>();
        Code call = new Code();
        for (int i = 0; i < inputCount; i++) {
            JExpr input = new JExpr.ArrayLoad(INPUTS, JavaTypes.intLit(i));
            call.declare(JType.OBJECT, "in" + i + "_data", Calls.virtualCall(Calls.virtualCall(input, "storage", Calls.STORAGE), "data", JType.OBJECT));
            call.declare(JType.INT, "in" + i + "_off", Calls.virtualCall(input, "storageOffset", JType.INT));
        }
        if (symbols != null) {
            call.blank().comment("the sizes this code is generic in, read from the inputs once per call");
            for (SizeSymbols.Symbol s : symbols.symbols()) {
                call.comment("s" + s.id() + " = " + s.source() + ", " + s.range() + " (traced at " + s.hint() + ")");
                // a symbol of an int input used as a size is that input's value (a 0-d integer tensor)
                JExpr size = s.dim() < 0
                        ? new JExpr.Convert(Calls.virtualCall(new JExpr.ArrayLoad(INPUTS, JavaTypes.intLit(s.input())), "longItem", JType.LONG), JType.INT, false)
                        : Calls.virtualCall(new JExpr.ArrayLoad(INPUTS, JavaTypes.intLit(s.input())), "size", JType.INT, JavaTypes.intLit(s.dim()));
                call.declare(JType.INT, KernelContext.symbol(s.id()).name(),
                        s.divisor() == 1 ? size : new JExpr.Arith(JExpr.ArithOp.DIV, size, JavaTypes.intLit((int) s.divisor())));
            }
        }
        Set<Buffer> declared = new LinkedHashSet<>();
        for (int i = 0; i < kernels.size(); i++) {
            Kernel k = kernels.get(i);
            call.blank().comment(describe(k));
            switch (k) {
                case Kernel.Host h when h.host() instanceof Stage.Extern e -> {
                    extern(call, e, declared);
                    if (!h.epilogue().isEmpty()) kernelCall(call, methods, i, k, declared);
                }
                default -> kernelCall(call, methods, i, k, declared);
            }
            if (nanAsserts) nanChecks(call, i, k);
        }
        call.blank().add(new JStmt.Return(outputExpr(output)));
        methods.addAll(MethodSplitter.split(new JClass.Method(null, true, JType.OBJECT, "call", List.of(INPUTS, ARENA, CONSTANTS), call.statements())));

        List<JClass.Field> fields = new ArrayList<>();
        if (loops.usedVectors()) {
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
                JExpr.GetStatic species = (JExpr.GetStatic) VectorApi.species(d);
                fields.add(new JClass.Field(species.name(), species.type(), VectorApi.preferred(d)));
            }
        }
        opFields.forEach((field, op) -> fields.add(new JClass.Field(field, Calls.OP_OVERLOAD,
                Calls.staticCall(Calls.OP_REGISTRY, "get", Calls.OP_OVERLOAD, new JExpr.Lit(op, JType.STRING)))));
        for (String field : transposedFields) {
            fields.add(new JClass.Field(field, Calls.TRANSPOSED_WEIGHT,
                    new JExpr.New(Calls.TRANSPOSED_WEIGHT, MethodTypeDesc.of(ConstantDescs.CD_void), List.of())));
        }
        for (String field : tierFields) {
            fields.add(new JClass.Field(field, Calls.KERNEL_TIER, new JExpr.New(Calls.KERNEL_TIER, MethodTypeDesc.of(ConstantDescs.CD_void), List.of())));
        }
        return new JClass("dev.ember.inductor", className, "Generated by Ember's inductor.", fields, methods);
    }

    // ------------------------------------------------------------------ kernels

    private void kernelCall(Code call, List<JClass.Method> methods, int index, Kernel k, Set<Buffer> declared) {
        Set<Buffer> params = new LinkedHashSet<>();
        Set<Buffer> locals = k instanceof Kernel.Loop l ? l.locals() : Set.of();
        for (Stage s : MemoryPlan.stages(k)) {
            if (k instanceof Kernel.Host h && s == h.host() && s instanceof Stage.Extern) continue;
            for (Buffer b : reads(s)) if (!locals.contains(b)) params.add(b.storage());
            Buffer w = written(s);
            if (w != null && !locals.contains(w)) params.add(w.storage());
        }
        JExpr.Local transposed = null;
        if (k instanceof Kernel.Host h && h.host() instanceof Stage.Gemm g && keepsWeightTransposed(g)) {
            transposed = transposedWeight(call, g);
            // The copy replaces the weight's read only: the kernel still needs the array itself when
            // anything else reads that storage (the GEMM's other operand, as in linear(x, x), or the epilogue).
            Buffer weight = g.b().buffer().storage();
            boolean otherReads = g.a().buffer().storage() == weight
                    || h.epilogue().stream().anyMatch(st -> reads(st).stream().anyMatch(b -> b.storage() == weight));
            if (!otherReads) params.remove(weight);
        }
        for (Buffer b : params) declare(call, b, declared);
        String name = "kernel" + index;
        Code body = new Code();
        KernelContext ctx = new KernelContext();
        int vectorLoops = loops.vectorLoops(), polynomialLoops = loops.polynomialLoops();
        writeBody(body, k, transposed, ctx, loops);
        List<JExpr.Local> sig = new ArrayList<>();
        for (Buffer b : params) {
            sig.add(KernelContext.array(b));
            if (b.hasRuntimeOffset()) sig.add(KernelContext.offset(b));
        }
        if (transposed != null) sig.add(transposed);
        for (int id : ctx.symbols()) sig.add(KernelContext.symbol(id));
        methods.add(new JClass.Method(describe(k), false, JType.VOID, name, sig, body.statements()));
        JExpr.Invoke simdCall = invokeKernel(name, sig);
        // KernelTier: a static graph's kernel with SIMD loops also gets its scalar form, which its first calls run (a reduction's scalar form
        // folds lane by lane as the SIMD form does: the same bits), unless it is a pointwise kernel calling a polynomial formula
        boolean rowKernel = k instanceof Kernel.Loop l && l.hasReduction();
        if (!KernelTier.enabled() || symbols != null || loops.vectorLoops() == vectorLoops
                || !rowKernel && loops.polynomialLoops() > polynomialLoops) {
            call.eval(simdCall);
            return;
        }
        Code scalarBody = new Code();
        KernelContext scalarCtx = new KernelContext();
        writeBody(scalarBody, k, transposed, scalarCtx, new LoopWriter(false, true));
        String scalarName = name + "_scalar";
        methods.add(new JClass.Method(describe(k) + ": the scalar form, which its first calls run (KernelTier)",
                false, JType.VOID, scalarName, sig, scalarBody.statements()));
        JExpr.GetStatic tier = new JExpr.GetStatic(null, "TIER" + index, Calls.KERNEL_TIER);
        tierFields.add(tier.name());
        JExpr.Local simd = call.declare(JType.BOOLEAN, "simd" + index, Calls.virtualCall(tier, "simd", JType.BOOLEAN));
        JExpr.Local startedAt = call.declare(JType.LONG, "startedAt" + index, Calls.virtualCall(tier, "clock", JType.LONG));
        call.openIf(simd).eval(simdCall).close();
        call.openIf(new JExpr.Not(simd)).eval(invokeKernel(scalarName, sig)).close();
        call.eval(Calls.virtualCall(tier, "ran", JType.VOID, simd, startedAt));
    }

    private static JExpr.Invoke invokeKernel(String name, List<JExpr.Local> sig) {
        return new JExpr.Invoke(JExpr.CallKind.STATIC, null, name, Calls.descriptor(JType.VOID, List.copyOf(sig)), null, List.copyOf(sig), false);
    }

    /** A kernel's body: its host's call (a GEMM's), then its loops as {@code writer} writes them (with SIMD loops or without). */
    private void writeBody(Code body, Kernel k, JExpr.Local transposed, KernelContext ctx, LoopWriter writer) {
        switch (k) {
            case Kernel.Loop l -> writer.write(body, l, ctx);
            case Kernel.Host h -> {
                if (h.host() instanceof Stage.Gemm g) gemm(body, g, transposed, ctx);
                if (!h.epilogue().isEmpty()) {
                    List<Stage> epi = new ArrayList<>(h.epilogue());
                    SymInt[] shape = h.epilogue().get(0).shape();
                    writer.write(body, new Kernel.Loop(java.util.Arrays.copyOf(shape, Math.max(0, shape.length - 1)), epi, Set.of()), ctx);
                }
            }
        }
    }

    /** A single float32 GEMM of few rows whose weight is a graph input read transposed: see {@link #TRANSPOSED_WEIGHT_MAX_ROWS}. */
    private boolean keepsWeightTransposed(Stage.Gemm g) {
        return transposeWeights && canKeepWeightTransposed(g);
    }

    private static boolean canKeepWeightTransposed(Stage.Gemm g) {
        // the copy's shape is fixed when it is made: a weight whose sizes depend on a symbol is read in place
        boolean staticWeight = g.n().isConstant() && g.k().isConstant() && g.b().offset().isConstant() && Sizes.isStatic(g.b().strides());
        return Sizes.is(g.batch(), 1) && g.out().dtype() == DType.FLOAT32 && Sizes.provablyAtLeast(SymInt.of(TRANSPOSED_WEIGHT_MAX_ROWS), g.m())
                && staticWeight && g.b().buffer().storage().kind() == Buffer.Kind.INPUT && layout(g.b(), g.k(), g.n()).trans;
    }

    /** In {@code call}: {@code float[] inN_t = WEIGHT_T0.get(inputs[N], offset, n, k, ld)}, the [k, n] copy of the weight. */
    private JExpr.Local transposedWeight(Code call, Stage.Gemm g) {
        Buffer weight = g.b().buffer().storage();
        String field = "WEIGHT_T" + transposedFields.size();
        transposedFields.add(field);
        JExpr.Local local = new JExpr.Local(weight.name() + "_t" + (transposedFields.size() - 1), JType.FLOAT.array());
        JExpr input = new JExpr.ArrayLoad(INPUTS, JavaTypes.intLit(weight.inputIndex()));
        call.declare(local.type(), local.name(), Calls.virtualCall(new JExpr.GetStatic(null, field, Calls.TRANSPOSED_WEIGHT), "get", JType.FLOAT.array(),
                input, offset(g.b(), KernelContext::sizeOf), KernelContext.sizeOf(g.n()), KernelContext.sizeOf(g.k()),
                KernelContext.sizeOf(layout(g.b(), g.k(), g.n()).ld)));
        return local;
    }

    private void gemm(Code c, Stage.Gemm g, JExpr.Local transposed, KernelContext ctx) {
        Layout a = layout(g.a(), g.m(), g.k()), b = transposed != null ? new Layout(false, g.n()) : layout(g.b(), g.k(), g.n());
        JExpr aArray = KernelContext.array(g.a().buffer()), bArray = transposed != null ? transposed : KernelContext.array(g.b().buffer());
        JExpr cArray = KernelContext.array(g.out());
        JExpr aOff = offset(g.a(), ctx::size), bOff = transposed != null ? JavaTypes.intLit(0) : offset(g.b(), ctx::size);
        // GemmBatched (through Gemm) decides how the products share the cores (whole, in row bands,
        // or in turn) and which kernel runs them, as it does for eager matmul: from the sizes it is
        // called with, so a size-generic GEMM takes the path each call's sizes call for.
        boolean batched = !Sizes.is(g.batch(), 1);
        List<JExpr> args = List.of(new JExpr.Lit(a.trans, JType.BOOLEAN), new JExpr.Lit(b.trans, JType.BOOLEAN),
                ctx.size(g.batch()), ctx.size(g.m()), ctx.size(g.n()), ctx.size(g.k()),
                aArray, aOff, batched ? ctx.size(g.a().strides()[0]) : JavaTypes.intLit(0), ctx.size(a.ld),
                bArray, bOff, batched ? ctx.size(g.b().strides()[0]) : JavaTypes.intLit(0), ctx.size(b.ld),
                cArray, JavaTypes.intLit(0), ctx.size(g.n()));
        ClassDesc[] params = args.stream().map(e -> e.type().desc().isArray() ? ConstantDescs.CD_Object : e.type().desc()).toArray(ClassDesc[]::new);
        c.eval(new JExpr.Invoke(JExpr.CallKind.STATIC, Calls.GEMM_BATCHED, "strided", MethodTypeDesc.of(ConstantDescs.CD_void, params), null, args, false));
    }

    private record Layout(boolean trans, SymInt ld) {}

    /**
     * Row-major reads as is; column-major is the transposed flag with the other stride as leading
     * dimension. The lowering made every operand one or the other for every value of the symbols.
     */
    private static Layout layout(Stage.Operand o, SymInt rows, SymInt cols) {
        int r = o.strides().length;
        SymInt rs = o.strides()[r - 2], cs = o.strides()[r - 1];
        if (Sizes.is(cs, 1) && Sizes.provablyAtLeast(rs, Sizes.max1(cols))) return new Layout(false, rs);
        if (Sizes.is(cs, 1) && Sizes.is(rows, 1)) return new Layout(false, Sizes.max1(cols));
        if (Sizes.is(rs, 1)) return new Layout(true, cs.isConstant() && rows.isConstant() ? SymInt.of(Math.max(cs.constant(), Math.max(1, rows.constant())))
                : Sizes.provablyAtLeast(cs, Sizes.max1(rows)) ? cs : Sizes.max1(rows));
        return new Layout(false, Sizes.max1(cols));
    }

    /** The operand's offset in its array: its run-time base (an input's, an extern result's) plus its view's. */
    private static JExpr offset(Stage.Operand o, java.util.function.Function<SymInt, JExpr> size) {
        JExpr base = size.apply(o.offset());
        if (!o.buffer().hasRuntimeOffset()) return base;
        return Sizes.is(o.offset(), 0) ? KernelContext.offset(o.buffer()) : new JExpr.Arith(JExpr.ArithOp.ADD, KernelContext.offset(o.buffer()), base);
    }

    // ------------------------------------------------------------------ buffers

    private void declare(Code call, Buffer b, Set<Buffer> declared) {
        if (!declared.add(b)) return;
        JType t = JavaTypes.array(b.dtype());
        switch (b.kind()) {
            case INPUT -> call.declare(t, b.name(), new JExpr.Convert(new JExpr.Local(b.name() + "_data", JType.OBJECT), t, false));
            case EXTERN -> { }
            case COMPUTED -> {
                int slot = plan.slot(b);
                if (slot < 0) call.comment("fresh: returned or handed to an eager kernel");
                else if (plan.slots().get(slot).output()) call.comment("returned, in the same array every call (reduce-overhead)");
                JExpr array;
                if (slot < 0) {
                    // its kernel writes every element before any is read, as the arena's reuse already requires
                    JExpr.Local storage = freshStorage(b);
                    call.declare(Calls.STORAGE, storage.name(), Calls.staticCall(Calls.STORAGE, "uninitialized", Calls.STORAGE, dtype(b.dtype()),
                            KernelContext.sizeOf(b.size())));
                    array = new JExpr.Convert(Calls.virtualCall(storage, "data", JType.OBJECT), t, false);
                } else {
                    if (plan.slots().get(slot).grows()) call.comment("slot " + slot + " grows to the largest size a call has needed");
                    array = new JExpr.Convert(arenaArray(b, slot), t, false);
                }
                call.declare(t, b.name(), array);
            }
        }
    }

    /** Arena slot {@code slot}'s array for buffer {@code b}, grown first when the slot serves sizes that depend on a symbol. */
    private JExpr arenaArray(Buffer b, int slot) {
        return plan.slots().get(slot).grows()
                ? Calls.staticCall(Calls.KERNEL_RUNTIME, "grown", JType.OBJECT, ARENA, JavaTypes.intLit(slot), KernelContext.sizeOf(b.size()))
                : new JExpr.ArrayLoad(ARENA, JavaTypes.intLit(slot));
    }

    private JExpr storage(Buffer b) {
        Buffer s = b.storage();
        return switch (s.kind()) {
            case INPUT -> Calls.virtualCall(new JExpr.ArrayLoad(INPUTS, JavaTypes.intLit(s.inputIndex())), "storage", Calls.STORAGE);
            case EXTERN -> Calls.virtualCall(externTensor(s), "storage", Calls.STORAGE);
            case COMPUTED -> plan.slot(s) < 0 ? freshStorage(s)
                    : new JExpr.New(Calls.STORAGE, MethodTypeDesc.of(ConstantDescs.CD_void, Calls.DTYPE.desc(), ConstantDescs.CD_Object),
                            List.of(dtype(s.dtype()), KernelContext.array(s)));
        };
    }

    /**
     * The storage a fresh buffer was allocated in ({@link dev.ember.tensor.Storage#uninitialized}):
     * every tensor returned from it shares it, and a {@link dev.ember.tensor.TensorScope} open
     * around the call owns it and recycles its array.
     */
    private static JExpr.Local freshStorage(Buffer b) { return new JExpr.Local(b.name() + "_storage", Calls.STORAGE); }

    private static JExpr dtype(DType d) { return new JExpr.GetStatic(Calls.DTYPE, d.name(), Calls.DTYPE); }

    private static JExpr.Local externTensor(Buffer b) { return new JExpr.Local(b.name() + "_t", Calls.TENSOR); }

    private JExpr tensorExpr(Buffer b, SymInt[] shape, SymInt[] strides, SymInt offset) {
        JExpr off = KernelContext.sizeOf(offset);
        if (b.hasRuntimeOffset()) off = Sizes.is(offset, 0) ? KernelContext.offset(b) : new JExpr.Arith(JExpr.ArithOp.ADD, KernelContext.offset(b), off);
        return Calls.staticCall(Calls.KERNEL_RUNTIME, "view", Calls.TENSOR, storage(b), ints(shape), ints(strides), off);
    }

    private void extern(Code call, Stage.Extern e, Set<Buffer> declared) {
        for (Buffer b : reads(e)) declare(call, b.storage(), declared);
        // an output only later kernels read, planned into an arena slot: the op's out= form writes it there
        dev.ember.ops.OpOverload into = MemoryPlan.WRITE_INTO.get(e.op());
        Buffer arenaOut = into != null && e.outs().size() == 1 && plan.slot(e.outs().get(0)) >= 0 ? e.outs().get(0) : null;
        dev.ember.ops.OpOverload called = arenaOut == null ? e.op() : into;
        var schema = called.schema();
        String field = "OP_" + ((schema.namespace().equals("aten") ? "" : schema.namespace() + "_") + schema.name() + "_" + schema.overload()).toUpperCase();
        opFields.put(field, called.name());
        JExpr op = new JExpr.GetStatic(null, field, Calls.OP_OVERLOAD);
        List<JExpr> argList = new ArrayList<>(e.args().stream().map(this::arg).toList());
        if (arenaOut != null) {
            int slot = plan.slot(arenaOut);
            call.comment("into arena slot " + slot + ": only later kernels of this graph read the result");
            int[] shape = ((Tensor) e.node().val()).shape();
            JExpr storage = new JExpr.New(Calls.STORAGE, MethodTypeDesc.of(ConstantDescs.CD_void, Calls.DTYPE.desc(), ConstantDescs.CD_Object),
                    List.of(dtype(arenaOut.dtype()), arenaArray(arenaOut, slot)));
            argList.add(Calls.staticCall(Calls.KERNEL_RUNTIME, "view", Calls.TENSOR, storage, ints(shape),
                    ints(dev.ember.tensor.Shapes.contiguousStrides(shape)), JavaTypes.intLit(0)));
        }
        JExpr args = objects(argList);
        if (e.outs().isEmpty()) {
            // an op returning nothing (an assert): called for its effect, in its place among the kernels
            call.eval(new JExpr.Invoke(JExpr.CallKind.VIRTUAL, Calls.OP_OVERLOAD, "call",
                    MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_Object.arrayType()), op, List.of(args), true));
            return;
        }
        if (e.outs().size() == 1 && e.node().val() instanceof dev.ember.tensor.Tensor) {
            Buffer o = e.outs().get(0);
            JExpr result = new JExpr.Invoke(JExpr.CallKind.VIRTUAL, Calls.OP_OVERLOAD, "callTensor",
                    MethodTypeDesc.of(Calls.TENSOR.desc(), ConstantDescs.CD_Object.arrayType()), op, List.of(args), true);
            call.declare(Calls.TENSOR, o.name() + "_t", Calls.staticCall(Calls.KERNEL_RUNTIME, "contiguous", Calls.TENSOR, result));
            bindExtern(call, o);
        } else {
            JExpr result = new JExpr.Invoke(JExpr.CallKind.VIRTUAL, Calls.OP_OVERLOAD, "callList",
                    MethodTypeDesc.of(Calls.LIST.desc(), ConstantDescs.CD_Object.arrayType()), op, List.of(args), true);
            JExpr.Local list = call.declare(Calls.TENSOR_LIST, "ext" + e.outs().get(0).id() + "_list", result);
            for (int i = 0; i < e.outs().size(); i++) {
                Buffer o = e.outs().get(i);
                JExpr item = Calls.call(JExpr.CallKind.INTERFACE, Calls.LIST, list, "get", MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_int),
                        JavaTypes.intLit(i));
                call.declare(Calls.TENSOR, o.name() + "_t", Calls.staticCall(Calls.KERNEL_RUNTIME, "contiguous", Calls.TENSOR,
                        new JExpr.Convert(item, Calls.TENSOR, true)));
                bindExtern(call, o);
            }
        }
        for (Buffer o : e.outs()) declared.add(o);
    }

    private static void bindExtern(Code call, Buffer o) {
        JType t = JavaTypes.array(o.dtype());
        JExpr tensor = externTensor(o);
        call.declare(t, o.name(), new JExpr.Convert(Calls.virtualCall(Calls.virtualCall(tensor, "storage", Calls.STORAGE), "data", JType.OBJECT), t, false));
        call.declare(JType.INT, o.name() + "_off", Calls.virtualCall(tensor, "storageOffset", JType.INT));
    }

    /** {@code new Object[] {values}}, written in source as the arguments of a varargs call. */
    private static JExpr objects(List<JExpr> values) { return new JExpr.ArrayOf(JType.OBJECT.array(), values); }

    /** An argument of an eager op, as an object (primitives boxed). */
    private JExpr arg(Object a) {
        return switch (a) {
            case null -> new JExpr.Lit(null, JType.OBJECT);
            case Stage.Operand o -> tensorExpr(o.buffer(), o.shape(), o.strides(), o.offset());
            case List<?> l -> asList(l.stream().map(this::arg).toList());
            case Long v -> box(new JExpr.Lit(v, JType.LONG), "Long");
            case Integer v -> box(new JExpr.Lit(v, JType.INT), "Integer");
            case Double v -> box(new JExpr.Lit(v, JType.DOUBLE), "Double");
            case Boolean v -> box(new JExpr.Lit(v, JType.BOOLEAN), "Boolean");
            case DType d -> dtype(d);
            // an int, as the interpreter passes a SymInt argument at the call's sizes
            case SymInt s -> box(KernelContext.sizeOf(s), "Integer");
            case int[] v -> ints(v);
            case String s when s.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') -> new JExpr.Lit(s, JType.STRING);
            default -> {
                constants.add(a);
                yield new JExpr.ArrayLoad(CONSTANTS, JavaTypes.intLit(constants.size() - 1));
            }
        };
    }

    private static JExpr box(JExpr v, String wrapper) { return new JExpr.Box(v, JType.imported("java.lang." + wrapper)); }

    private static JExpr asList(List<JExpr> items) {
        return new JExpr.Invoke(JExpr.CallKind.STATIC, Calls.ARRAYS, "asList", MethodTypeDesc.of(Calls.LIST.desc(), ConstantDescs.CD_Object.arrayType()),
                null, List.of(objects(items)), true);
    }

    private JExpr outputExpr(Object o) {
        return switch (o) {
            case Value.Stored s -> tensorExpr(s.buffer(), s.shape(), s.strides(), s.offset());
            case List<?> l -> Calls.call(JExpr.CallKind.STATIC, Calls.COLLECTIONS, null, "unmodifiableList",
                    MethodTypeDesc.of(Calls.LIST.desc(), Calls.LIST.desc()), asList(l.stream().map(this::outputExpr).toList()));
            default -> arg(o);
        };
    }

    private static JExpr ints(int[] v) {
        return new JExpr.ArrayOf(JType.INT.array(), java.util.Arrays.stream(v).mapToObj(i -> (JExpr) JavaTypes.intLit(i)).toList());
    }

    private static JExpr ints(SymInt[] v) {
        return new JExpr.ArrayOf(JType.INT.array(), java.util.Arrays.stream(v).map(KernelContext::sizeOf).toList());
    }

    // ------------------------------------------------------------------ NaN asserts

    /**
     * After kernel {@code index}: one check per floating-point value it wrote to memory, in stage
     * order, so the first that fails names the earliest node with a non-finite output (values kept
     * in registers, and pointwise values inlined into their users, are checked through the values
     * computed from them). A value a later stage overwrote in place (an epilogue over its GEMM) is
     * checked as that stage's.
     */
    private static void nanChecks(Code call, int index, Kernel k) {
        Set<Buffer> locals = k instanceof Kernel.Loop l ? l.locals() : Set.of();
        JExpr kernel = new JExpr.Lit("kernel" + index + " (" + describe(k) + ")", JType.STRING);
        List<Stage> stages = MemoryPlan.stages(k);
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            List<Buffer> outs = outputs(s);
            for (int o = 0; o < outs.size(); o++) {
                Buffer b = outs.get(o);
                if (locals.contains(b) || !b.dtype().isFloatingPoint() || overwrittenLater(b, stages.subList(i + 1, stages.size()))) continue;
                JExpr offset = b.hasRuntimeOffset() ? KernelContext.offset(b) : JavaTypes.intLit(0);
                Node n = s.node();
                call.eval(Calls.staticCall(Calls.KERNEL_RUNTIME, "checkFinite", JType.VOID, KernelContext.array(b), offset, ints(valueShape(s, o, b)),
                        kernel, new JExpr.Lit("node " + (n == null ? "?" : n.name()), JType.STRING),
                        new JExpr.Lit(n == null ? null : NanAsserts.sourceLine(n), JType.STRING)));
            }
        }
    }

    private static List<Buffer> outputs(Stage s) {
        return s instanceof Stage.Extern e ? e.outs() : List.of(written(s));
    }

    private static boolean overwrittenLater(Buffer b, List<Stage> later) {
        return later.stream().flatMap(s -> outputs(s).stream()).anyMatch(w -> w.storage() == b.storage());
    }

    /** The shape of output {@code o} of {@code s} (written to {@code b}), for the index a NaN assert prints. */
    private static SymInt[] valueShape(Stage s, int o, Buffer b) {
        SymInt[] nodeShape = nodeShape(s.node(), o);
        return switch (s) {
            case Stage.Pointwise p -> p.shape();
            case Stage.Reduction r -> r.outer();
            case Stage.Gemm g when nodeShape != null && Sizes.numel(nodeShape).equals(b.size()) -> nodeShape;
            case Stage.Extern e when nodeShape != null && Sizes.numel(nodeShape).equals(b.size()) -> nodeShape;
            default -> new SymInt[] {b.size()};
        };
    }

    /** The sizes of tensor {@code o} of the node's value (symbolic where the graph is), or null. */
    private static SymInt[] nodeShape(Node n, int o) {
        if (n == null) return null;
        Object val = n.val() instanceof List<?> l && o < l.size() ? l.get(o) : n.val();
        Object sym = n.symVal() instanceof List<?> l && o < l.size() ? l.get(o) : n.symVal();
        if (sym instanceof SymShape s) return s.sizes();
        return val instanceof Tensor t ? SymInt.of(t.shape()) : null;
    }

    // ------------------------------------------------------------------ descriptions

    /** {@code fused: amax, sub, exp, sum, div  (Model.java:12, 13)}. */
    public static String describe(Kernel k) {
        List<Stage> stages = MemoryPlan.stages(k);
        String kind = switch (k) {
            case Kernel.Loop l -> l.hasReduction() ? "row kernel" : "pointwise kernel";
            case Kernel.Host h -> h.host() instanceof Stage.Gemm ? "gemm" + (h.epilogue().isEmpty() ? "" : " + epilogue")
                    : "extern " + ((Stage.Extern) h.host()).op().name() + (h.epilogue().isEmpty() ? "" : " + epilogue");
        };
        Set<String> lines = new LinkedHashSet<>();
        for (Stage s : stages) {
            Node n = s.node();
            if (n != null && n.sourceLocation() != null) lines.add(n.sourceLocation().fileAndLine());
        }
        return kind + ": " + stages.stream().map(s -> s.node() == null ? "?" : s.node().name()).collect(Collectors.joining(", "))
                + (lines.isEmpty() ? "" : "  (" + String.join(", ", lines) + ")");
    }

    private static Set<Buffer> reads(Stage s) {
        Set<Buffer> out = new LinkedHashSet<>();
        switch (s) {
            case Stage.Pointwise p -> Expr.forEachLoad(p.body(), l -> out.add(l.buffer().storage()));
            case Stage.Reduction r -> Expr.forEachLoad(r.body(), l -> out.add(l.buffer().storage()));
            case Stage.Gemm g -> { out.add(g.a().buffer().storage()); out.add(g.b().buffer().storage()); }
            case Stage.Extern e -> operands(e.args(), out);
        }
        return out;
    }

    private static void operands(Object o, Set<Buffer> out) {
        if (o instanceof Stage.Operand op) out.add(op.buffer().storage());
        if (o instanceof List<?> l) for (Object x : l) operands(x, out);
    }

    private static Buffer written(Stage s) {
        return switch (s) {
            case Stage.Pointwise p -> p.out();
            case Stage.Reduction r -> r.out();
            case Stage.Gemm g -> g.out();
            case Stage.Extern e -> null;
        };
    }
}
