package dev.ember.tensor;

/**
 * Element types, ordered so that type promotion among them is "the later one wins"
 * (ATen's lattice restricted to these types: bool &lt; int32 &lt; int64 &lt; float32 &lt; float64).
 * Half-precision types would join as FLOAT kinds stored in {@code short[]}; promotion between
 * float16 and bfloat16 (to float32) is then the one special case {@link #promote} must add.
 */
public enum DType {
    BOOL("b8", "bool", "Bool", 1, Kind.BOOL),
    INT32("i32", "int32", "Int", 4, Kind.INTEGRAL),
    INT64("i64", "int64", "Long", 8, Kind.INTEGRAL),
    FLOAT32("f32", "float32", "Float", 4, Kind.FLOATING),
    FLOAT64("f64", "float64", "Double", 8, Kind.FLOATING);

    /** Promotion category: a higher category wins regardless of operand rank (ATen's rule). */
    public enum Kind { BOOL, INTEGRAL, FLOATING }

    private final String shortName;
    private final String torchName;
    private final String scalarTypeName;
    private final int itemSize;
    private final Kind kind;

    DType(String shortName, String torchName, String scalarTypeName, int itemSize, Kind kind) {
        this.shortName = shortName;
        this.torchName = torchName;
        this.scalarTypeName = scalarTypeName;
        this.itemSize = itemSize;
        this.kind = kind;
    }

    /** The compact name used in printed graphs: {@code f32}, {@code i64}, {@code b8}. */
    public String shortName() { return shortName; }

    /** The name PyTorch users know: {@code torch.float32}. */
    public String torchName() { return "torch." + torchName; }

    /** c10::ScalarType's name, as ATen's messages print it: "expected scalar type Float but found Double". */
    public String scalarTypeName() { return scalarTypeName; }

    public int itemSize() { return itemSize; }

    public Kind kind() { return kind; }

    public boolean isFloatingPoint() { return kind == Kind.FLOATING; }

    public boolean isIntegral() { return kind == Kind.INTEGRAL; }

    public boolean isBool() { return kind == Kind.BOOL; }

    /** The smallest type both values fit in. */
    public static DType promote(DType a, DType b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    /** A new zeroed primitive array of {@code n} elements of this type. */
    public Object allocate(int n) {
        return switch (this) {
            case BOOL -> new byte[n];
            case INT32 -> new int[n];
            case INT64 -> new long[n];
            case FLOAT32 -> new float[n];
            case FLOAT64 -> new double[n];
        };
    }

    /** Parses {@code f32}, {@code float32} or {@code torch.float32}. */
    public static DType parse(String name) {
        String n = name.startsWith("torch.") ? name.substring(6) : name;
        for (DType d : values()) {
            if (d.shortName.equals(n) || d.torchName.equals(n)) return d;
        }
        if (n.equals("float")) return FLOAT32;
        if (n.equals("double")) return FLOAT64;
        if (n.equals("int")) return INT32;
        if (n.equals("long")) return INT64;
        throw new IllegalArgumentException("unknown dtype '" + name + "'; expected one of f32, f64, i32, i64, b8 (or float32, torch.float32, …)");
    }

    @Override
    public String toString() { return torchName(); }
}
