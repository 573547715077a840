package dev.ember.ops;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Every op by its qualified name ({@code aten.add.Tensor}). */
public final class OpRegistry {
    private static final Map<String, OpOverload> OPS = new ConcurrentHashMap<>();

    /** The classes whose static initialisers define ops; loading them fills the registry. */
    private static final String[] OP_GROUPS = {
        "dev.ember.ops.ShapeOps",
        "dev.ember.ops.CreationOps",
        "dev.ember.ops.PointwiseOps",
        "dev.ember.ops.ReductionOps",
        "dev.ember.ops.LinalgOps",
        "dev.ember.ops.ConvOps",
        "dev.ember.ops.RecurrentOps",
        "dev.ember.ops.NormOps",
        "dev.ember.ops.IndexingOps",
        "dev.ember.ops.NnOps",
        "dev.ember.ops.UpsampleOps",
        "dev.ember.ops.PadOps",
        "dev.ember.ops.BucketizeOps",
        "dev.ember.ops.LuOps",
        "dev.ember.ops.LinalgLuOps",
        "dev.ember.ops.LinalgLdlOps",
        "dev.ember.ops.HouseholderOps",
        "dev.ember.ops.OrthogonalOps",
        "dev.ember.ops.ScatterOps",
        "dev.ember.ops.ScatterReduceOps",
        "dev.ember.ops.IndexPutOps",
        "dev.ember.ops.ViewScatterOps",
        "dev.ember.ops.NumericOps",
        "dev.ember.ops.NumpyShapeOps",
        "dev.ember.ops.MatrixExpOps",
        "dev.ember.ops.SortOps",
        "dev.ember.ops.ScanOps",
        "dev.ember.ops.ActivationOps",
        "dev.ember.ops.DistanceOps",
        "dev.ember.ops.LossOps",
        "dev.ember.ops.AssertOps",
        "dev.ember.ops.MathOps",
        "dev.ember.ops.SpecialFunctionOps",
        "dev.ember.ops.NnComposites",
        "dev.ember.ops.CountingOps",
        "dev.ember.ops.AliasOps",
        "dev.ember.ops.ComplexOnRealOps",
        "dev.ember.ops.WindowOps",
        "dev.ember.ops.GradientOps",
        "dev.ember.ops.StridedViewOps",
        "dev.ember.ops.HistogramOps",
        "dev.ember.ops.FactoryLikeOps",
        "dev.ember.ops.ViewCopyOps",
        "dev.ember.ops.SoftmaxInternalOps",
        "dev.ember.ops.NativeNormOps",
    };
    private static volatile boolean loaded;

    private OpRegistry() {}

    static OpOverload add(OpOverload op) {
        OpOverload prev = OPS.putIfAbsent(op.name(), op);
        if (prev != null) throw new IllegalStateException("op " + op.name() + " is defined twice");
        return op;
    }

    /** Whether {@code op} is the registered op of its name (not one built for a single trace, {@link OpOverload.Builder#build}). */
    public static boolean isRegistered(OpOverload op) {
        loadAll();
        return OPS.get(op.name()) == op;
    }

    /** The op with this name, or an error listing near names. */
    public static OpOverload get(String name) {
        loadAll();
        OpOverload op = OPS.get(name);
        if (op == null) {
            String base = name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : name;
            var near = OPS.keySet().stream().filter(k -> k.startsWith(base)).sorted().toList();
            throw new IllegalArgumentException("no op named '" + name + "'" + (near.isEmpty() ? "" : "; did you mean one of " + near + "?"));
        }
        return op;
    }

    /** Another overload of {@code op}'s packet ({@code aten.add.Scalar} → {@code aten.add.Tensor} for "Tensor"), if defined. */
    public static java.util.Optional<OpOverload> sibling(OpOverload op, String overload) {
        loadAll();
        Schema s = op.schema();
        return java.util.Optional.ofNullable(OPS.get(s.namespace() + "." + s.name() + "." + overload));
    }

    /**
     * The functional op an in-place or out= op computes ({@code aten.add_.Scalar} → {@code aten.add.Scalar},
     * {@code aten.add.out} → {@code aten.add.Tensor}: for an out op, the functional op of the same
     * name whose arguments are the out op's less {@code out}, as torchgen groups them); the op itself
     * when it is functional; null when no such op is defined.
     */
    public static OpOverload functionalOf(OpOverload op) {
        loadAll();
        Schema s = op.schema();
        return switch (s.kind()) {
            case FUNCTIONAL -> op;
            case INPLACE -> {
                if (!s.name().endsWith("_")) yield null;
                String base = s.name().substring(0, s.name().length() - 1);
                OpOverload same = OPS.get(s.namespace() + "." + base + "." + s.overload());
                // the same overload name is not always the same op (float_power_.Scalar computes float_power.Tensor_Scalar,
                // not float_power.Scalar, whose self is a Scalar), and it may be missing (floor_divide_.Tensor computes
                // floor_divide.default): then the functional op is the one taking the same arguments
                if (same != null && sameSignature(same.schema().params(), s.params())) yield same;
                OpOverload byArguments = functionalWithArguments(s.namespace(), base, s.params());
                // where the plain name is another op's, ATen names the functional form base_functional (normal_ → normal_functional)
                yield byArguments != null ? byArguments : functionalWithArguments(s.namespace(), base + "_functional", s.params());
            }
            case OUT -> {
                List<Schema.Param> inputs = new ArrayList<>(s.params());
                inputs.remove(s.outIndex());
                yield functionalWithArguments(s.namespace(), s.name(), inputs);
            }
        };
    }

    private static OpOverload functionalWithArguments(String namespace, String name, List<Schema.Param> params) {
        for (OpOverload o : OPS.values()) {
            Schema f = o.schema();
            if (f.kind() == Schema.Kind.FUNCTIONAL && f.namespace().equals(namespace) && f.name().equals(name) && sameSignature(f.params(), params)) return o;
        }
        return null;
    }

    private static boolean sameSignature(List<Schema.Param> a, List<Schema.Param> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) {
            Schema.Param x = a.get(i), y = b.get(i);
            if (!x.name().equals(y.name()) || !plainType(x).equals(plainType(y)) || x.kwargOnly() != y.kwargOnly()) return false;
        }
        return true;
    }

    /** The parameter's type without its alias annotation: {@code Tensor(a!)} → {@code Tensor}. */
    private static String plainType(Schema.Param p) { return p.type().replaceAll("\\([^)]*\\)", ""); }

    public static Collection<OpOverload> all() {
        loadAll();
        return Collections.unmodifiableCollection(new TreeMap<>(OPS).values());
    }

    // Runs before the first op is defined (Tensor's methods name op constants directly, so the
    // first op call may come before any lookup by name): a missing module is said plainly here
    // instead of as a NoClassDefFoundError from inside a kernel.
    static {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            throw new IllegalStateException("Ember's kernels use the Vector API: start the JVM with "
                    + "--add-modules jdk.incubator.vector (and --enable-native-access=ALL-UNNAMED for the native BLAS); ./ember passes both");
        }
    }

    private static void loadAll() {
        if (loaded) return;
        synchronized (OpRegistry.class) {
            if (loaded) return;
            for (String group : OP_GROUPS) {
                try {
                    Class.forName(group, true, OpRegistry.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("op group " + group + " is missing from the class path", e);
                }
            }
            loaded = true;
        }
    }
}
