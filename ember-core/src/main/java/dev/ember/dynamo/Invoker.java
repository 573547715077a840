package dev.ember.dynamo;

import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.EntryVariable;
import dev.ember.dynamo.variables.IteratorVariable;
import dev.ember.dynamo.variables.KeyedVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.MapVariable;
import dev.ember.dynamo.variables.MapViewVariable;
import dev.ember.dynamo.variables.MethodTarget;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.SetVariable;
import dev.ember.dynamo.variables.StreamVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.autograd.GradMode;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;

import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.List;

/**
 * Method calls while tracing. Ops become graph nodes, Tensor metadata becomes constants, pure JDK
 * methods on constants are folded, java.util lists are tracked, and everything else with bytecode
 * (user code, Tensor/F/library code, lambdas) is inlined by a nested translator.
 */
final class Invoker {
    private Invoker() {}

    private static final MethodTypeDesc CONSUMER_ACCEPT = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_Object);

    static void invoke(InstructionTranslator f, InvokeInstruction ins) {
        Class<?> owner = Values.resolve(ins.owner().asSymbol(), f.code.owner);
        String name = ins.name().stringValue();
        MethodTypeDesc type = ins.typeSymbol();
        List<VariableTracker> args = f.popN(type.parameterCount());
        VariableTracker result = switch (ins.opcode()) {
            case INVOKESTATIC -> invokeStatic(f.ctx, owner, name, type, args);
            case INVOKESPECIAL -> invokeSpecial(f.ctx, owner, name, type, f.pop(), args);
            default -> invokeVirtual(f.ctx, owner, name, type, f.pop(), args);
        };
        if (!type.returnType().equals(ConstantDescs.CD_void)) {
            if (result == null) throw new IllegalStateException(owner.getName() + "." + name + " returned nothing");
            f.push(result);
        }
    }

    // ------------------------------------------------------------------ static

    /**
     * The facade's class, known to the tracer by name: the facade sits above capture (it starts
     * it), so capture recognizes calls into it without importing it.
     */
    private static final String FACADE = "dev.ember.Ember";

    static VariableTracker invokeStatic(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, List<VariableTracker> args) {
        if (owner == OpRegistry.class && name.equals("get") && args.getFirst() instanceof ConstantVariable c && c.value() instanceof String s) {
            return new OpOverloadVariable(OpRegistry.get(s));
        }
        if (owner == dev.ember.Cond.class && name.equals("cond")) return CondOp.trace(ctx, args);
        if (owner == Comptime.class) return ComptimeCalls.call(ctx, name, args);
        if ((owner.getName().equals(FACADE) || owner == GradMode.class) && GradModes.handles(name)) return GradModes.invokeStatic(ctx, name, args);
        if (owner.getName().equals(FACADE) && name.equals("graphBreak")) {
            throw ctx.unsupported(GraphBreakType.EXPLICIT_GRAPH_BREAK, "Ember.graphBreak() was called");
        }
        // the trace is compiling by definition; run eagerly the facade's method says false
        if (owner.getName().equals(FACADE) && name.equals("isCompiling")) return ConstantVariable.of(1);
        if (owner.getName().equals(FACADE) && name.equals("errorOnGraphBreak")) return ErrorOnGraphBreak.invokeStatic(ctx, args);
        if (owner.getName().equals(FACADE) && name.equals("disabled")) {
            throw ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, "Ember.disabled() opens a block that is never traced: the block runs eagerly,"
                    + " and the code after it is captured again");
        }
        if (owner.getName().equals(FACADE)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Ember." + name + " cannot be called inside a compiled function");
        }
        if (JdkCalls.isJdk(owner) && SymScalars.firstIn(args) instanceof SymScalarVariable s && !JdkCalls.holdsAsValues(owner, name, args)) {
            return jdkStaticOnSym(ctx, owner, name, args, s);
        }
        if (JdkCalls.isJdk(owner) && JdkFunctions.lambdaFor(owner, name, args) instanceof LambdaVariable jdkLambda) return jdkLambda;
        if (JdkCalls.isJdk(owner)) return JdkCalls.invokeStatic(ctx, owner, name, type, args);
        if (owner == Tensor.class && TENSOR_LITERALS.contains(name)) return tensorLiteral(ctx, name, type, args);
        ClassFiles.Resolved r = ClassFiles.exact(owner, name, type);
        if (r == null) throw ctx.unsupported(GraphBreakType.NO_BYTECODE, "no method " + owner.getName() + "." + name + type.descriptorString());
        return inline(ctx, r, args);
    }

    /** Boxing keeps a data-dependent scalar symbolic; Math functions with an ATen twin become 0-d tensor ops; the rest needs its value. */
    private static VariableTracker jdkStaticOnSym(TraceContext ctx, Class<?> owner, String name, List<VariableTracker> args, SymScalarVariable s) {
        if (name.equals("valueOf") && args.size() == 1 && owner == s.boxedType()) return s.boxed(true);
        if (owner == Math.class || owner == StrictMath.class) return SymScalars.math(ctx, name, args, s);
        throw SymScalars.dataDependent(ctx, s, "passing it to " + owner.getName() + "." + name + "()");
    }

    /**
     * Tensor factories that copy Java data: made once while tracing, the data enters the graph as a
     * constant (get_attr) and each call copies it ({@code clone}), as Dynamo's {@code torch.tensor} is
     * a call node: eager makes a new tensor every call, so a compiled call must not hand out the one
     * constant (a caller's {@code add_} on one result would change every later result).
     */
    private static final java.util.Set<String> TENSOR_LITERALS = java.util.Set.of("of", "ofLongs", "tensor");

    private static VariableTracker tensorLiteral(TraceContext ctx, String name, MethodTypeDesc type, List<VariableTracker> args) {
        Object[] values = new Object[args.size()];
        Class<?>[] types = new Class<?>[args.size()];
        for (int i = 0; i < values.length; i++) {
            types[i] = Values.resolve(type.parameterType(i), Tensor.class);
            values[i] = JdkCalls.concrete(ctx, args.get(i), types[i], Tensor.class, name);
        }
        Tensor t;
        try {
            t = (Tensor) Tensor.class.getMethod(name, types).invoke(null, values);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw Exceptions.raise(ctx, e.getCause(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e.getCause() + " from Tensor." + name);
        } catch (ReflectiveOperationException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "cannot evaluate Tensor." + name + ": " + e, e);
        }
        Node constant = ctx.graph.constantTensor(t, ctx.currentLocation());
        Node fresh = ctx.graph.callFunction(dev.ember.ops.ShapeOps.CLONE, List.of(constant), dev.ember.tensor.FakeTensor.like(t), ctx.currentLocation());
        return new TensorVariable(fresh, dev.ember.tensor.FakeTensor.like(t), null);
    }

    // ------------------------------------------------------------------ special: constructors, private and super calls

    static VariableTracker invokeSpecial(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, VariableTracker receiver, List<VariableTracker> args) {
        if (name.equals("<init>")) {
            if (receiver instanceof ListVariable list) return initList(ctx, list, args);
            if (receiver instanceof dev.ember.dynamo.variables.StringBuilderVariable sb) return StringBuilders.construct(ctx, sb, type, args);
            if (receiver instanceof KeyedVariable container && JdkCalls.isJdk(owner)) {
                KeyedContainers.construct(ctx, container, type, args);
                return null;
            }
            if (receiver instanceof UserObjectVariable u && u.isFresh()) {
                if (owner == Object.class || owner == Record.class) return null;
                if (Throwable.class.isAssignableFrom(owner) && JdkCalls.isJdk(owner)) {
                    Exceptions.construct(ctx, u, owner, type, args);
                    return null;
                }
            }
        }
        if (receiver instanceof KeyedVariable container && JdkCalls.isJdk(owner) && !name.equals("<init>")) {
            // super.get(k) in a subclass of HashMap made in the trace: the container's own method
            return containerMethod(ctx, container, name, args);
        }
        if (JdkCalls.isJdk(owner)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OBJECT, "calling " + owner.getName() + "." + name + " on " + receiver.describe());
        }
        ClassFiles.Resolved r = ClassFiles.exact(owner, name, type);
        if (r == null) throw ctx.unsupported(GraphBreakType.NO_BYTECODE, "no method " + owner.getName() + "." + name + type.descriptorString());
        return inline(ctx, r, prepend(receiver, args));
    }

    private static VariableTracker containerMethod(TraceContext ctx, KeyedVariable container, String name, List<VariableTracker> args) {
        return switch (container) {
            case MapVariable m -> KeyedContainers.mapMethod(ctx, m, name, args);
            case SetVariable s -> KeyedContainers.setMethod(ctx, s, name, args);
        };
    }

    static VariableTracker newObject(InstructionTranslator f, Class<?> cls) { return newObject(f.ctx, cls); }

    static VariableTracker newObject(TraceContext ctx, Class<?> cls) {
        if (ListVariable.MUTABLE_CLASSES.contains(cls)) return new ListVariable(List.of(), cls, null);
        if (cls == StringBuilder.class || cls == StringBuffer.class) return new dev.ember.dynamo.variables.StringBuilderVariable(cls.asSubclass(CharSequence.class));
        if (KeyedContainers.MAP_CLASSES.contains(cls) || KeyedContainers.SET_CLASSES.contains(cls)) return KeyedContainers.fresh(cls);
        // its constructor (always given the key class) makes the real EnumMap
        if (cls == java.util.EnumMap.class) return new dev.ember.dynamo.variables.MapVariable(cls, new java.util.LinkedHashMap<>(), true, null);
        // keys equal only when identical (enforced on insertion: enum constants and identity-keyed values), so a HashMap of them looks up alike
        if (cls == java.util.IdentityHashMap.class) return new dev.ember.dynamo.variables.MapVariable(cls, new java.util.HashMap<>(), true, null);
        if (Throwable.class.isAssignableFrom(cls)) return UserObjectVariable.fresh(cls);
        if (!JdkCalls.isJdk(cls) && KeyedContainers.jdkBase(cls) != null) {
            String why = KeyedContainers.whyNotModelledSubclass(cls);
            if (why != null) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OBJECT, "creating a " + cls.getName() + " inside a compiled function: " + why);
            return KeyedContainers.fresh(cls);
        }
        // a module of the user's (or one of Ember's layers) is an object like any other: its constructor and forward are traced
        if (JdkCalls.isJdk(cls) || Tensor.class.isAssignableFrom(cls)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OBJECT, "creating a " + cls.getName() + " inside a compiled function");
        }
        return UserObjectVariable.fresh(cls);
    }

    /** {@code new ArrayList<>()}, {@code (int capacity)} or {@code (Collection c)} (LinkedList's and ArrayDeque's alike): a copy of {@code c}'s elements in its order. */
    private static VariableTracker initList(TraceContext ctx, ListVariable list, List<VariableTracker> args) {
        if (args.isEmpty()) return null;
        VariableTracker arg = args.getFirst();
        if (arg instanceof ConstantVariable c && c.value() instanceof Integer capacity) {
            if (capacity < 0 && list.type() == ArrayList.class) {
                throw Exceptions.raise(ctx, new IllegalArgumentException("Illegal Capacity: " + capacity), GraphBreakType.EXCEPTION_THROWN,
                        "the traced path throws IllegalArgumentException from new ArrayList(" + capacity + ")");
            }
            return null;
        }
        list.items().addAll(Containers.copiedElements(ctx, arg, "new " + list.type().getSimpleName() + "()"));
        if (list.isArrayDeque() && list.items().stream().anyMatch(v -> v instanceof ConstantVariable c && c.value() == null)) {
            throw Exceptions.raise(ctx, new NullPointerException(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws NullPointerException: a null element in new ArrayDeque(c)");
        }
        return null;
    }

    // ------------------------------------------------------------------ virtual and interface

    static VariableTracker invokeVirtual(TraceContext ctx, Class<?> owner, String name, MethodTypeDesc type, VariableTracker receiver, List<VariableTracker> args) {
        if (LoggingCalls.isLogging(receiver, name)) return LoggingCalls.call(ctx, owner, name, type, receiver, args);
        SymScalarVariable symArg = SymScalars.firstIn(args);
        if (symArg != null && !(receiver instanceof TensorVariable || receiver instanceof OpOverloadVariable || receiver instanceof LambdaVariable
                || receiver instanceof ListVariable || receiver instanceof KeyedVariable || receiver instanceof UserObjectVariable u && !JdkCalls.isJdk(u.type()))) {
            throw SymScalars.dataDependent(ctx, symArg, "passing it to " + owner.getName() + "." + name + "()");
        }
        return switch (receiver) {
            case SymScalarVariable s when name.equals(s.unboxMethod()) -> s.boxed(false);
            case SymScalarVariable s -> throw SymScalars.dataDependent(ctx, s, "calling " + name + "() on it");
            case TensorVariable t -> TensorMethods.invoke(ctx, t, name, type, args);
            case OpOverloadVariable o when name.equals("call") || name.equals("callTensor") || name.equals("callList") ->
                    OpCalls.call(ctx, o.op(), Containers.itemsOf(ctx, args.getFirst()));
            case OpOverloadVariable o -> JdkCalls.reflect(ctx, OpOverload.class, name, type, o.op(), args);
            case ListVariable l when name.equals("forEach") -> {
                for (VariableTracker item : List.copyOf(l.items())) {
                    invokeVirtual(ctx, java.util.function.Consumer.class, "accept", CONSUMER_ACCEPT, args.getFirst(), List.of(item));
                }
                yield null;
            }
            case ListVariable l -> Containers.listMethod(ctx, l, name, type, args);
            case KeyedVariable k when !JdkCalls.isJdk(k.type()) && ClassFiles.virtual(k.type(), name, type) instanceof ClassFiles.Resolved r
                    && !JdkCalls.isJdk(r.declaringClass()) -> inline(ctx, r, prepend(k, args));
            case MapVariable m -> KeyedContainers.mapMethod(ctx, m, name, args);
            case SetVariable set -> KeyedContainers.setMethod(ctx, set, name, args);
            case MapViewVariable view -> KeyedContainers.viewMethod(ctx, view, name, args);
            case dev.ember.dynamo.variables.ReadOnlyVariable u -> KeyedContainers.readOnlyMethod(ctx, u, name, args);
            case EntryVariable entry -> KeyedContainers.entryMethod(ctx, entry, name, args);
            case dev.ember.dynamo.variables.ImmutableEntryVariable pair -> switch (name) {
                case "getKey" -> pair.key();
                case "getValue" -> pair.value();
                case "setValue" -> throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN,
                        "the traced path throws UnsupportedOperationException: setValue() on an immutable Map.entry");
                default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Map.Entry." + name + "() on " + pair.describe());
            };
            case IteratorVariable it -> Containers.iteratorMethod(ctx, it, name, args);
            case ArrayVariable a when name.equals("clone") -> new ArrayVariable(a.componentType(), a.items(), null);
            // an array's class is its component type's array class (an array has no class file to read getClass from)
            case ArrayVariable a when name.equals("getClass") && args.isEmpty() -> ConstantVariable.of(a.componentType().arrayType());
            case LambdaVariable l -> callLambda(ctx, l, owner, name, type, args);
            case dev.ember.dynamo.variables.PipelineVariable p -> StreamCalls.method(ctx, p, name, args);
            case dev.ember.dynamo.variables.CollectorVariable c ->
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Collector." + name + "() on " + c.describe() + " (Stream.collect runs it in the trace)");
            case dev.ember.dynamo.variables.StringBuilderVariable sb -> StringBuilders.method(ctx, sb, name, type, args);
            case StreamVariable s -> throw ctx.unsupported(s.name().startsWith("System") ? GraphBreakType.PRINT : GraphBreakType.UNSUPPORTED_CALL,
                    "call to " + s.name() + "." + name + "()");
            case ConstantVariable c when c.value() instanceof GradMode.Scope scope -> GradModes.scopeMethod(ctx, scope, name);
            case ConstantVariable c when c.value() instanceof ErrorOnGraphBreak.Scope scope -> ErrorOnGraphBreak.scopeMethod(ctx, scope, name);
            case ConstantVariable c when c.value() instanceof CustomFunctionOp.TracedContext context -> context.call(ctx, name, args);
            case ConstantVariable c when c.value() instanceof GradientHooks.Pending hook -> GradientHooks.handleMethod(ctx, hook, name, args);
            case ConstantVariable c when c.value() == null ->
                    throw Exceptions.raiseFromJvm(ctx, NullPointerException.class, "the traced path throws NullPointerException: calling " + name + "() on null");
            // a string's chars() or codePoints(): an IntStream of its char codes, traced as IntStream.of(...) is (the real one would be an opaque object)
            case ConstantVariable c when c.value() instanceof String s && (name.equals("chars") || name.equals("codePoints")) && args.isEmpty() ->
                    dev.ember.dynamo.variables.PipelineVariable.of((name.equals("chars") ? s.chars() : s.codePoints()).mapToObj(i -> (VariableTracker) ConstantVariable.of(i)).toList(),
                            dev.ember.dynamo.variables.PipelineVariable.Kind.INT_STREAM);
            case ConstantVariable c when JdkCalls.isJdk(c.value().getClass()) -> JdkCalls.reflect(ctx, owner, name, type, c.value(), args);
            // a lambda held by a constant (an enum constant's field): called through its code, as a lambda argument is
            case ConstantVariable c when Lambdas.ofConstant(c.value()) instanceof LambdaVariable l -> callLambda(ctx, l, owner, name, type, args);
            case ModuleVariable m when name.equals("forward") && Modules.isBuiltinLayer(m.module()) -> ModuleCalls.callModule(ctx, m, args);
            // model.parameters() of a module from the inputs: the live module's answer, each element read from it at each call
            // (Module's own code walks its fields by reflection and dedups in an IdentityHashMap, neither traced)
            case ModuleVariable m when m.source() != null && args.isEmpty() && dev.ember.dynamo.source.ModuleQuerySource.isQuery(name)
                    && m.module() instanceof dev.ember.nn.Module -> {
                var source = new dev.ember.dynamo.source.ModuleQuerySource(m.source(), name);
                yield ctx.builder.wrap(dev.ember.dynamo.source.ModuleQuerySource.query((dev.ember.nn.Module) m.module(), name), source, Object.class);
            }
            case UserObjectVariable u when name.equals("getMessage") && args.isEmpty() && Exceptions.answersGetMessage(u) -> Exceptions.message(u);
            case UserObjectVariable u when name.equals("toString") && args.isEmpty() && Exceptions.answersToString(u) -> Exceptions.text(u);
            // an object the trace made (a JDK exception caught in it, …): its class is the one made, whatever its code
            case UserObjectVariable u when name.equals("getClass") && args.isEmpty() && u.isFresh() -> ConstantVariable.of(u.type());
            // a ThreadLocal the code reads from a field or an argument: the calling thread's value, read at each call from its source
            case UserObjectVariable u when u.value() instanceof ThreadLocal<?> local && u.source() != null && name.equals("get") && args.isEmpty() ->
                    ctx.builder.wrap(local.get(), new dev.ember.dynamo.source.ThreadLocalSource(u.source()), Object.class);
            case UserObjectVariable u when JdkCalls.isJdk(u.type()) ->
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "calling " + u.type().getSimpleName() + "." + name + "()"
                            + KeyedContainers.whyUntracked(u.value(), u.source()));
            default -> {
                Class<?> cls = TypeOf.runtimeClass(receiver);
                ClassFiles.Resolved r = cls == null ? null : ClassFiles.virtual(cls, name, type);
                if (r == null) {
                    throw ctx.unsupported(GraphBreakType.NO_BYTECODE, "cannot resolve " + name + type.descriptorString() + " on " + receiver.describe());
                }
                if (r.declaringClass() == Object.class && name.equals("equals") && args.size() == 1) {
                    // Object's own equals is identity (Python's default __eq__, test_functions.py::test_obj_eq)
                    yield ConstantVariable.of(InstructionTranslator.sameReference(receiver, args.getFirst()) ? 1 : 0);
                }
                if (r.declaringClass() == Object.class && name.equals("getClass") && args.isEmpty()
                        && (receiver instanceof ModuleVariable || receiver instanceof UserObjectVariable)) {
                    // the exact class: an input's is guarded by its TYPE_MATCH, a constructed object's is the one the trace made
                    yield ConstantVariable.of(cls);
                }
                if (r.declaringClass() == java.util.Comparator.class && COMPARATOR_DEFAULTS.contains(name)) {
                    // a comparator the trace made (KeyComparators'): Comparator's combination, written there with the comparator first
                    yield invokeStatic(ctx, KeyComparators.class, name, type.insertParameterTypes(0, ClassDesc.of("java.util.Comparator")), prepend(receiver, args));
                }
                if (JdkCalls.isJdk(r.declaringClass())) {
                    // Inherited JDK code (Enum.ordinal, Object.getClass, …): evaluate on constants, never inline the JDK.
                    if (receiver instanceof ConstantVariable c) yield JdkCalls.reflect(ctx, r.declaringClass(), name, type, c.value(), args);
                    throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "calling " + r.declaringClass().getName() + "." + name + "() on " + receiver.describe());
                }
                yield inline(ctx, r, prepend(receiver, args));
            }
        };
    }

    /**
     * JDK packages whose interfaces' default methods are traced (they only combine the lambda they
     * are called on: {@code andThen}, {@code compose}, {@code negate}, {@code and}, {@code or}); the
     * JDK's other code is never inlined.
     */
    private static final java.util.Set<String> FUNCTION_COMBINATORS = java.util.Set.of("java.util.function");

    /** Comparator's default methods that combine the comparator they are called on (KeyComparators has each). */
    private static final java.util.Set<String> COMPARATOR_DEFAULTS = java.util.Set.of("thenComparing", "thenComparingInt", "thenComparingLong",
            "thenComparingDouble", "reversed");

    /** A lambda's interface method: its implementation, inlined with the captured values first. */
    private static VariableTracker callLambda(TraceContext ctx, LambdaVariable l, Class<?> owner, String name, MethodTypeDesc callType, List<VariableTracker> args) {
        if (!name.equals(l.interfaceMethod()) && owner == java.util.Comparator.class && COMPARATOR_DEFAULTS.contains(name)) {
            // Comparator's thenComparing…/reversed: the JDK's combination, written in KeyComparators with the comparator first
            MethodTypeDesc withFirst = callType.insertParameterTypes(0, ClassDesc.of("java.util.Comparator"));
            return invokeStatic(ctx, KeyComparators.class, name, withFirst, prepend(l, args));
        }
        if (!name.equals(l.interfaceMethod())) {
            // a default method of the interface (a user's Layer.then, Function.andThen): its code, with the lambda as this
            ClassFiles.Resolved d = owner == null || !owner.isInterface() ? null : ClassFiles.virtual(owner, name, callType);
            if (d != null && d.hasCode() && !d.isStatic() && (!JdkCalls.isJdk(d.declaringClass()) || FUNCTION_COMBINATORS.contains(d.declaringClass().getPackageName()))) {
                return inline(ctx, d, prepend(l, args));
            }
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "calling " + name + "() on " + l.describe() + " (only its functional method "
                    + l.interfaceMethod() + " is supported)");
        }
        MethodTarget t = l.target();
        List<VariableTracker> all = new ArrayList<>(l.captured());
        all.addAll(args);
        if (t.name().equals("<init>")) {
            // a constructor reference (Box::new, ArrayList::new): new, then the constructor, as the bytecode of new Box(t) does
            VariableTracker made = newObject(ctx, t.owner());
            invokeSpecial(ctx, t.owner(), "<init>", t.type(), made, all);
            return made;
        }
        int first = t.isStatic() ? 0 : 1;
        for (int i = first; i < all.size(); i++) {
            ClassDesc p = t.type().parameterType(i - first);
            if (p.isPrimitive()) all.set(i, unboxed(all.get(i), Values.resolve(p, t.owner())));
        }
        VariableTracker result = t.isStatic()
                ? invokeStatic(ctx, t.owner(), t.name(), t.type(), all)
                : invokeVirtual(ctx, t.owner(), t.name(), t.type(), all.getFirst(), all.subList(1, all.size()));
        ClassDesc implReturn = t.type().returnType();
        if (implReturn.isPrimitive() && !callType.returnType().isPrimitive() && result instanceof ConstantVariable c) {
            return ConstantVariable.of(Values.fromStack(c.value(), Values.resolve(implReturn, t.owner())));
        }
        return result;
    }

    private static VariableTracker unboxed(VariableTracker v, Class<?> primitive) {
        if (v instanceof ConstantVariable c && (c.value() instanceof Boolean || c.value() instanceof Character)) {
            return new ConstantVariable(Values.toStack(c.value(), primitive), c.source());
        }
        return v;
    }

    // ------------------------------------------------------------------ inlining

    static VariableTracker inline(TraceContext ctx, ClassFiles.Resolved r, List<VariableTracker> args) {
        InGraphFunctions.InGraphFunction inGraph = InGraphFunctions.lookup(r);
        if (inGraph != null) return InGraphFunctions.trace(ctx, inGraph, args);
        if (DisabledFunctions.isDisabled(r)) {
            throw ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, r.declaringClass().getName() + "." + r.method().methodName().stringValue()
                    + " is disabled for compilation (@Disable or Ember.disable); it runs eagerly");
        }
        if (CustomFunctionOp.isApply(r)) return CustomFunctionOp.trace(ctx, r, args);
        String oneCall = DisabledFunctions.runAsOneCall(r);
        if (oneCall != null) {
            VariableTracker hookHandle = GradientHooks.record(ctx, r, args);
            if (hookHandle != null) return hookHandle;
            Unsupported u = ctx.unsupported(GraphBreakType.DISABLED_FUNCTION, oneCall);
            String hookedIntermediate = DisabledFunctions.hookOnUsedIntermediate(r, args);
            throw hookedIntermediate == null ? u : u.withoutResume(hookedIntermediate);
        }
        if (!r.hasCode()) {
            throw ctx.unsupported(GraphBreakType.NO_BYTECODE, r.declaringClass().getName() + "." + r.method().methodName().stringValue()
                    + " has no bytecode (abstract or native)");
        }
        if (r.method().flags().has(java.lang.reflect.AccessFlag.SYNCHRONIZED)) {
            // inlined, its ops would run in the caller's graph without its lock: it runs as a call, which takes the lock
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_INSTRUCTION, "a call of the synchronized method " + r.declaringClass().getName() + "."
                    + r.method().methodName().stringValue() + ", whose lock a graph cannot hold");
        }
        MethodCode code;
        try {
            code = MethodCode.of(r);
        } catch (ClassFiles.ClassFileNotFound e) {
            throw ctx.unsupported(GraphBreakType.NO_BYTECODE, e.getMessage(), e);
        }
        return new InstructionTranslator(ctx, code, args).run();
    }

    static List<VariableTracker> prepend(VariableTracker first, List<VariableTracker> rest) {
        List<VariableTracker> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
