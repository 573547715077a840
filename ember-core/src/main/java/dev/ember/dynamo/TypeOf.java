package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.EntryVariable;
import dev.ember.dynamo.variables.KeyedVariable;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.StreamVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** The runtime class a variable stands for, for instanceof, checkcast and virtual dispatch. */
final class TypeOf {
    private TypeOf() {}

    /** The class of the value, or null when unknown (null constants). */
    static Class<?> runtimeClass(VariableTracker v) {
        return switch (v) {
            case TensorVariable t -> Tensor.class;
            case ConstantVariable c -> c.value() == null ? null : c.value().getClass();
            case ArrayVariable a -> a.componentType().arrayType();
            case ListVariable l when l.isCollectionOnly() -> java.util.Collections.unmodifiableCollection(List.of()).getClass();
            case ListVariable l -> l.type() != null ? l.type() : List.class;
            case IteratorVariable i -> Iterator.class;
            case UserObjectVariable u -> u.type();
            case ModuleVariable m -> m.module().getClass();
            case OpOverloadVariable o -> OpOverload.class;
            case dev.ember.dynamo.variables.SymScalarVariable s -> s.boxedType();
            case dev.ember.dynamo.variables.SymSizeVariable s -> s.javaType() == long.class ? Long.class : Integer.class;
            case LambdaVariable l -> null;
            case StreamVariable s -> PrintStream.class;
            case KeyedVariable k -> k.type();
            case MapViewVariable view -> view.view() == MapViewVariable.View.VALUES ? java.util.Collection.class : java.util.Set.class;
            case dev.ember.dynamo.variables.ReadOnlyVariable u -> readOnlyClass(u);
            case EntryVariable e -> java.util.Map.Entry.class;
            case dev.ember.dynamo.variables.ImmutableEntryVariable e -> java.util.Map.Entry.class;
            case dev.ember.dynamo.variables.PipelineVariable p -> p.kind().type();
            case dev.ember.dynamo.variables.StringBuilderVariable s -> s.type();
            case dev.ember.dynamo.variables.CollectorVariable c -> java.util.stream.Collector.class;
        };
    }

    /** The JDK's own class for a read-only wrapper, read off a real one (Collections' wrapper classes are private). */
    private static Class<?> readOnlyClass(dev.ember.dynamo.variables.ReadOnlyVariable u) {
        java.util.Map<Object, Object> map = java.util.Collections.unmodifiableMap(new java.util.HashMap<>());
        if (u.of() instanceof MapViewVariable view && u.wrapper() == dev.ember.dynamo.variables.ReadOnlyVariable.Wrapper.UNMODIFIABLE_MAP) {
            return switch (view.view()) {
                case KEYS -> map.keySet().getClass();
                case VALUES -> map.values().getClass();
                case ENTRIES -> map.entrySet().getClass();
            };
        }
        return switch (u.wrapper()) {
            case UNMODIFIABLE_MAP -> map.getClass();
            case UNMODIFIABLE_SET -> java.util.Collections.unmodifiableSet(java.util.Set.of()).getClass();
            case UNMODIFIABLE_COLLECTION -> java.util.Collections.unmodifiableCollection(java.util.Set.of()).getClass();
        };
    }

    /** Whether {@code v} is an instance of {@code type}; null when it cannot be told. */
    static Boolean isInstance(VariableTracker v, Class<?> type) {
        if (v instanceof ConstantVariable c && c.value() == null) return false;
        if (v instanceof LambdaVariable l) return type.isInterface() ? Boolean.TRUE : (type == Object.class ? true : null);
        Class<?> cls = runtimeClass(v);
        if (cls == null) return null;
        if (v instanceof ListVariable l && l.type() == null && !l.isCollectionOnly()) return type.isAssignableFrom(cls) || type == List.class || type == java.util.Collection.class || type == Iterable.class;
        return type.isAssignableFrom(cls);
    }
}
