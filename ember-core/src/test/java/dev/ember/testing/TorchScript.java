package dev.ember.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.engine.PtSymbolBlock;
import ai.djl.pytorch.jni.IValue;
import ai.djl.pytorch.jni.IValueUtils;
import ai.djl.pytorch.jni.JniUtils;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Runs any ATen op of the bundled libtorch, exactly as PyTorch runs it, by compiling a one-line
 * TorchScript function in-process: DJL has no Java method for many ops ({@code var}, {@code std},
 * {@code div(rounding_mode=)}, {@code gelu(approximate='tanh')},
 * {@code scaled_dot_product_attention}, …), but it can load TorchScript archives, and a
 * TorchScript archive is only a zip of Python-like source plus a tiny pickle, which this class
 * writes itself (no Python anywhere). Use it through {@link Torch#call}.
 *
 * <p>The archive holds {@code archive/code/__torch__.py} with
 * <pre>
 * class M(Module):
 *   __parameters__ = []
 *   __buffers__ = []
 *   training : bool
 *   def forward(self: __torch__.M, a: Tensor, b: int):
 *     return torch.var(a, [b], correction=0, keepdim=True)
 * </pre>
 * {@code archive/data.pkl} (a pickled {@code __torch__.M} object with {@code training=False}),
 * {@code archive/constants.pkl} (an empty tuple) and {@code archive/version}. libtorch's
 * TorchScript importer compiles the source when DJL loads the archive; the return type is
 * inferred. Compiled functions are cached by source for the life of the JVM.
 *
 * <p>The archive claims file format version 10, the newest libtorch 2.7 reads: an older number
 * makes libtorch apply operator upgraders (version 3 turns {@code torch.div} of integers into
 * floor division and drops {@code gelu}'s {@code approximate}). Dtype names
 * ({@code torch.float64}, …) are rewritten to the ScalarType numbers serialized code uses.
 */
final class TorchScript {
    private static final Map<String, PtSymbolBlock> CACHE = new ConcurrentHashMap<>();
    private static final String NAMES = "abcdefghijklmnopqrstuvwxyz";

    private TorchScript() {}

    /**
     * Evaluates {@code expr} with {@code args} bound to {@code a, b, c, …}; results are attached
     * to {@code target}. {@code toNd} converts non-DJL tensors (Ember's) into DJL arrays of the
     * given temporary manager.
     */
    static NDList call(NDManager target, String expr, Object[] args, ToNd toNd) { return call(target, expr, args, toNd, false); }

    /**
     * As {@link #call(NDManager, String, Object[], ToNd)}; with {@code gradMode} the function runs
     * with libtorch's grad mode on (DJL's public {@code runMethod} turns it off), so the expression
     * may call {@code torch.autograd.grad}.
     */
    static NDList call(NDManager target, String expr, Object[] args, ToNd toNd, boolean gradMode) {
        if (args.length > NAMES.length()) throw new IllegalArgumentException("at most 26 arguments");
        try (NDManager tmp = target.newSubManager(); Scope scope = new Scope()) {
            StringBuilder sig = new StringBuilder();
            IValue[] values = new IValue[args.length];
            for (int i = 0; i < args.length; i++) {
                Bound b = bind(args[i], tmp, toNd, scope);
                sig.append(", ").append(NAMES.charAt(i)).append(": ").append(b.type);
                values[i] = b.value;
            }
            String source = source(sig.toString(), expr);
            PtSymbolBlock fn = CACHE.computeIfAbsent(source, TorchScript::compile);
            IValue out;
            try {
                // plain interpreter, no profiling/fusion passes: each op is the eager ATen kernel
                JniUtils.setGraphExecutorOptimize(false);
                out = gradMode ? runWithGrad(fn, values) : IValueUtils.runMethod(fn, "forward", values);
            } catch (RuntimeException e) {
                throw new IllegalStateException("libtorch failed running\n" + source + "\n" + e.getMessage(), e);
            }
            scope.add(out);
            NDList results = new NDList();
            unpack(out, (PtNDManager) target, results, scope);
            return results;
        }
    }

    /**
     * {@code forward} with grad mode on: DJL's package-private {@code moduleRunMethod} with its
     * {@code isTrain} flag set, which is what keeps autograd recording in the interpreter.
     */
    private static IValue runWithGrad(PtSymbolBlock fn, IValue[] values) {
        try {
            Class<?> lib = Class.forName("ai.djl.pytorch.jni.PyTorchLibrary");
            java.lang.reflect.Field instance = lib.getDeclaredField("LIB");
            instance.setAccessible(true);
            java.lang.reflect.Method run = lib.getDeclaredMethod("moduleRunMethod", long.class, String.class, long[].class, boolean.class, boolean.class);
            run.setAccessible(true);
            long[] handles = new long[values.length];
            for (int i = 0; i < values.length; i++) handles[i] = values[i].getHandle();
            java.lang.reflect.Constructor<IValue> wrap = IValue.class.getDeclaredConstructor(long.class);
            wrap.setAccessible(true);
            boolean was = JniUtils.isGradMode();
            JniUtils.setGradMode(true);
            try {
                return wrap.newInstance((Long) run.invoke(instance.get(null), fn.getHandle(), "forward", handles, true, false));
            } finally {
                JniUtils.setGradMode(was);
            }
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("DJL's PyTorchLibrary.moduleRunMethod is not where this DJL version keeps it", e);
        }
    }

    /** Converts a non-DJL tensor argument into a DJL array of {@code manager}, or returns null. */
    interface ToNd {
        NDArray apply(NDManager manager, Object tensor);
    }

    private record Bound(String type, IValue value) {}

    private static Bound bind(Object arg, NDManager tmp, ToNd toNd, Scope scope) {
        Bound b = switch (arg) {
            case null -> throw new IllegalArgumentException("null argument: write None in the expression instead");
            case NDArray nd -> new Bound("Tensor", IValue.from(pt(nd)));
            case Boolean v -> new Bound("bool", IValue.from(v));
            case Integer v -> new Bound("int", IValue.from((long) v));
            case Long v -> new Bound("int", IValue.from(v));
            case Float v -> new Bound("float", IValue.from((double) v));
            case Double v -> new Bound("float", IValue.from(v));
            case String v -> new Bound("str", IValue.from(v));
            case int[] v -> new Bound("List[int]", IValue.listFrom(java.util.Arrays.stream(v).asLongStream().toArray()));
            case long[] v -> new Bound("List[int]", IValue.listFrom(v));
            case double[] v -> new Bound("List[float]", IValue.listFrom(v));
            case boolean[] v -> new Bound("List[bool]", IValue.listFrom(v));
            case Object[] v -> new Bound("List[Tensor]", IValue.listFrom(tensors(List.of(v), tmp, toNd)));
            case Collection<?> v -> new Bound("List[Tensor]", IValue.listFrom(tensors(v, tmp, toNd)));
            default -> {
                NDArray nd = toNd.apply(tmp, arg);
                if (nd == null) throw new IllegalArgumentException("cannot pass a " + arg.getClass().getName() + " to TorchScript");
                yield new Bound("Tensor", IValue.from(pt(nd)));
            }
        };
        scope.add(b.value);
        return b;
    }

    private static PtNDArray[] tensors(Collection<?> list, NDManager tmp, ToNd toNd) {
        PtNDArray[] out = new PtNDArray[list.size()];
        int i = 0;
        for (Object o : list) {
            NDArray nd = o instanceof NDArray a ? a : toNd.apply(tmp, o);
            if (nd == null) throw new IllegalArgumentException("a tensor list holds a " + (o == null ? "null" : o.getClass().getName()));
            out[i++] = pt(nd);
        }
        return out;
    }

    private static PtNDArray pt(NDArray nd) {
        if (nd instanceof PtNDArray p) return p;
        throw new IllegalArgumentException("not a PyTorch NDArray: " + nd.getClass().getName());
    }

    private static void unpack(IValue v, PtNDManager m, NDList out, Scope scope) {
        if (v.isTensor()) {
            out.add(v.toTensor(m));
        } else if (v.isTensorList()) {
            out.addAll(List.of(v.toTensorArray(m)));
        } else if (v.isTuple() || v.isList()) {
            IValue[] items = v.isTuple() ? v.toIValueTuple() : v.toIValueArray();
            for (IValue item : items) {
                scope.add(item);
                unpack(item, m, out, scope);
            }
        } else if (v.isLong()) {
            out.add(m.create(v.toLong()));
        } else if (v.isDouble()) {
            out.add(m.create(v.toDouble()));
        } else if (v.isBoolean()) {
            out.add(m.create(v.toBoolean()));
        } else {
            throw new IllegalStateException("cannot convert a TorchScript " + v.getType() + " result");
        }
    }

    /** Serialized TorchScript spells dtypes as ScalarType numbers; {@code torch.float64} is not a value there. */
    private static final Pattern DTYPE = Pattern.compile("\\btorch\\.(bool|int32|int|int64|long|float32|float|float64|double)\\b");
    private static final Map<String, String> SCALAR_TYPE = Map.of(
            "bool", "11", "int32", "3", "int", "3", "int64", "4", "long", "4",
            "float32", "6", "float", "6", "float64", "7", "double", "7");

    static String source(String signature, String expr) {
        String body = DTYPE.matcher(expr.strip()).replaceAll(r -> SCALAR_TYPE.get(r.group(1)));
        StringBuilder s = new StringBuilder("""
                class M(Module):
                  __parameters__ = []
                  __buffers__ = []
                  training : bool
                """);
        s.append("  def forward(self: __torch__.M").append(signature).append("):\n");
        if (body.contains("\n") || body.startsWith("return ")) {
            for (String line : body.split("\n")) s.append("    ").append(line).append('\n');
        } else {
            s.append("    return ").append(body).append('\n');
        }
        return s.toString();
    }

    private static PtSymbolBlock compile(String source) {
        byte[] archive = archive(source);
        try {
            return JniUtils.loadModule((PtNDManager) Torch.manager(), new ByteArrayInputStream(archive), false, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("libtorch rejected the TorchScript\n" + source + "\n" + e.getMessage(), e);
        }
    }

    private static byte[] archive(String source) {
        ByteArrayOutputStream pickle = new ByteArrayOutputStream();
        pickle.writeBytes(new byte[] {(byte) 0x80, 2});                       // PROTO 2
        pickle.writeBytes("c__torch__\nM\n".getBytes(StandardCharsets.US_ASCII)); // GLOBAL __torch__.M
        pickle.writeBytes(new byte[] {')', (byte) 0x81, '}'});                // EMPTY_TUPLE NEWOBJ EMPTY_DICT
        pickle.writeBytes(new byte[] {'X', 8, 0, 0, 0});                      // BINUNICODE "training"
        pickle.writeBytes("training".getBytes(StandardCharsets.US_ASCII));
        pickle.writeBytes(new byte[] {(byte) 0x89, 's', 'b', '.'});           // NEWFALSE SETITEM BUILD STOP
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(zip)) {
            put(z, "archive/data.pkl", pickle.toByteArray());
            put(z, "archive/code/__torch__.py", source.getBytes(StandardCharsets.UTF_8));
            put(z, "archive/constants.pkl", new byte[] {(byte) 0x80, 2, ')', '.'});
            put(z, "archive/version", "10\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return zip.toByteArray();
    }

    private static void put(ZipOutputStream z, String name, byte[] data) throws IOException {
        ZipEntry e = new ZipEntry(name);
        e.setMethod(ZipEntry.STORED);
        e.setSize(data.length);
        CRC32 crc = new CRC32();
        crc.update(data);
        e.setCrc(crc.getValue());
        z.putNextEntry(e);
        z.write(data);
        z.closeEntry();
    }

    /** Closes the native IValues of one call. */
    private static final class Scope implements AutoCloseable {
        private final List<IValue> values = new ArrayList<>();

        void add(IValue v) { values.add(v); }

        @Override
        public void close() {
            for (IValue v : values) v.close();
        }
    }
}
