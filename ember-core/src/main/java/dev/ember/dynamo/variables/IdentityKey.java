package dev.ember.dynamo.variables;

/**
 * A map key or set element whose equality is identity: a tensor (Tensor's equals and hashCode are
 * Object's, as PyTorch hashes a tensor by id), a module, an object of a class that keeps Object's
 * equals and hashCode. The real container the trace runs on holds this key, equal to another
 * exactly when the two values are the same object ({@code ==} as the trace decides it); {@link #value()}
 * is the variable, which iteration yields and which is rebuilt after the graph.
 * <p>
 * Its hash code is not the program's (that is the identity hash code of an object made after the
 * graph), so a container hashing such keys iterates in an order the trace cannot know: see
 * {@link KeyedVariable#orderKnown()}. Insertion-ordered containers (LinkedHashMap, LinkedHashSet)
 * iterate as eager's whatever the hashes are.
 */
public final class IdentityKey {
    private final Object identity;
    private final VariableTracker value;

    private IdentityKey(Object identity, VariableTracker value) {
        this.identity = identity;
        this.value = value;
    }

    /** The key for {@code v}, or null when {@code v}'s equality is not identity (or not known). */
    public static IdentityKey of(VariableTracker v) {
        Object identity = switch (v) {
            case TensorVariable t -> t.node();
            case ModuleVariable m when hasObjectsEquals(m.module().getClass()) -> m.module();
            case UserObjectVariable u when hasObjectsEquals(u.type()) -> u.isFresh() ? u : u.value();
            default -> null;
        };
        return identity == null ? null : new IdentityKey(identity, v);
    }

    /** Whether {@code v}'s equals is identity: what {@link #of} keys. */
    public static boolean hasIdentityEquals(VariableTracker v) {
        return v instanceof TensorVariable || v instanceof ModuleVariable m && hasObjectsEquals(m.module().getClass())
                || v instanceof UserObjectVariable u && hasObjectsEquals(u.type());
    }

    /** Whether the class keeps Object's equals and hashCode. */
    private static boolean hasObjectsEquals(Class<?> c) {
        try {
            return c.getMethod("equals", Object.class).getDeclaringClass() == Object.class && c.getMethod("hashCode").getDeclaringClass() == Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    public VariableTracker value() { return value; }

    /**
     * The key for {@code v}, a value equal to others by {@code equality} (a record made in the trace,
     * whose generated equals compares its components: {@code equality} holds their keys), not by identity.
     */
    public static IdentityKey byValue(Object equality, VariableTracker v) { return new IdentityKey(new ByValue(equality, null), v); }

    /**
     * {@link #byValue} for a key whose hash code the trace knows ({@code hash}, the real object's:
     * a record of strings, numbers, booleans and enums): a HashMap or HashSet of such keys iterates
     * in the order eager's does.
     */
    public static IdentityKey byValue(Object equality, VariableTracker v, int hash) { return new IdentityKey(new ByValue(equality, hash), v); }

    /** Whether this key's hash code is the program's own object's (a key by value with a known hash). */
    public boolean hashKnown() { return identity instanceof ByValue b && b.hash != null; }

    /** The equality of a key compared by value: the wrapped object's own equals, and the real object's hash code when known. */
    private record ByValue(Object equality, Integer hash) {
        @Override
        public boolean equals(Object o) { return o instanceof ByValue b && equality.equals(b.equality); }

        @Override
        public int hashCode() { return hash != null ? hash : equality.hashCode(); }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdentityKey k && (k.identity == identity || identity instanceof ByValue && identity.equals(k.identity));
    }

    @Override
    public int hashCode() { return identity instanceof ByValue ? identity.hashCode() : System.identityHashCode(identity); }

    @Override
    public String toString() { return value.describe(); }
}
