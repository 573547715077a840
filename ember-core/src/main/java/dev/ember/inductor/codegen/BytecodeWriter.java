package dev.ember.inductor.codegen;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a {@link JClass} as a class file with {@code java.lang.classfile}, stack maps computed by
 * the API. Loops take javac's shape (condition at the bottom) so that C2 sees the counted loops it
 * expects. A {@link JStmt.ParallelRange} body becomes a private static method taking the locals it
 * reads plus {@code lo, hi}, as javac makes of a lambda; but where javac would bind it to a
 * {@code Parallel.Range} through the {@code LambdaMetafactory} (a class spun and linked per body,
 * on first execution, in every fresh JVM), the class implements {@code Parallel.Bodies} once: its
 * {@code run(body, captured, lo, hi)} switches on the body's number, unpacks the captured values and
 * calls the method, and the loop calls {@code Parallel.forBody(n, cost, BODIES, number, captured)}.
 */
public final class BytecodeWriter {
    private final ClassDesc self;
    private final List<JClass.Method> pending = new ArrayList<>();
    /** The parallel bodies written so far, in number order. */
    private final List<JClass.Method> bodies = new ArrayList<>();
    /** Each body's number by its code with locals renamed ({@link #canonical}): kernels that differ only in their buffers share one method. */
    private final Map<List<Object>, Integer> bodyNumbers = new HashMap<>();

    private BytecodeWriter(ClassDesc self) { this.self = self; }

    /** The class-file context: class hierarchies (for stack maps and verification) come from {@code loader}. */
    static ClassFile context(ClassLoader loader) {
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(loader))));
    }

    static byte[] write(JClass c, ClassLoader loader) {
        ClassDesc self = ClassDesc.of(c.qualifiedName());
        BytecodeWriter w = new BytecodeWriter(self);
        return context(loader).build(self, cb -> w.cls(cb, c));
    }

    /** What the JVM's verifier would reject in {@code bytes} (empty when the class is sound). */
    public static List<String> verify(byte[] bytes, ClassLoader loader) {
        return context(loader).verify(bytes).stream().map(Throwable::getMessage).toList();
    }

    private void cls(ClassBuilder cb, JClass c) {
        cb.withFlags(AccessFlag.FINAL, AccessFlag.SUPER);
        for (JClass.Field f : c.fields()) cb.withField(f.name(), f.type().desc(), ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_FINAL);
        for (JClass.Method m : c.methods()) method(cb, m, (m.isPublic() ? ClassFile.ACC_PUBLIC : 0) | ClassFile.ACC_STATIC);
        while (!pending.isEmpty()) method(cb, pending.removeFirst(), ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC);
        if (!bodies.isEmpty()) {   // known only now: the class-file elements may come in any order
            cb.withInterfaceSymbols(BODIES);
            cb.withField(BODIES_FIELD, BODIES, ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_FINAL);
            cb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PRIVATE, code -> {
                code.aload(0);
                code.invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                code.return_();
            });
            cb.withMethodBody("run", RUN_TYPE, ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL, this::dispatch);
        }
        if (!c.fields().isEmpty() || !bodies.isEmpty()) {
            cb.withMethodBody(ConstantDescs.CLASS_INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                Method m = new Method(code, List.of());
                for (JClass.Field f : c.fields()) {
                    m.expr(f.init());
                    code.putstatic(self, f.name(), f.type().desc());
                }
                if (!bodies.isEmpty()) {
                    code.new_(self);
                    code.dup();
                    code.invokespecial(self, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                    code.putstatic(self, BODIES_FIELD, BODIES);
                }
                code.return_();
            });
        }
    }

    /** {@code Parallel.Bodies.run(body, captured, lo, hi)}: a switch on the body's number, each case unpacking what it captured. */
    private void dispatch(CodeBuilder code) {
        Label fail = code.newLabel();
        List<Label> cases = new ArrayList<>();
        List<java.lang.classfile.instruction.SwitchCase> table = new ArrayList<>();
        for (int b = 0; b < bodies.size(); b++) {
            cases.add(code.newLabel());
            table.add(java.lang.classfile.instruction.SwitchCase.of(b, cases.get(b)));
        }
        code.iload(1);
        code.tableswitch(0, bodies.size() - 1, fail, table);
        for (int b = 0; b < bodies.size(); b++) {
            JClass.Method body = bodies.get(b);
            List<JExpr.Local> params = body.params();
            code.labelBinding(cases.get(b));
            for (int i = 0; i < params.size() - 2; i++) {   // the captured values; lo and hi come last
                code.aload(2);
                code.loadConstant(i);
                code.aaload();
                unbox(code, params.get(i).type());
            }
            code.iload(3);
            code.iload(4);
            code.invokestatic(self, body.name(), MethodTypeDesc.of(ConstantDescs.CD_void, params.stream().map(l -> l.type().desc()).toArray(ClassDesc[]::new)));
            code.return_();
        }
        code.labelBinding(fail);
        code.new_(ClassDesc.of("java.lang.IllegalArgumentException"));
        code.dup();
        code.ldc("no parallel body with this number");
        code.invokespecial(ClassDesc.of("java.lang.IllegalArgumentException"), ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_String));
        code.athrow();
    }

    /** The box of a primitive kind, and its unboxing method ({@code intValue}…); null for a reference. */
    private static ClassDesc box(TypeKind k) {
        return switch (k) {
            case BOOLEAN -> ConstantDescs.CD_Boolean;
            case BYTE -> ConstantDescs.CD_Byte;
            case CHAR -> ConstantDescs.CD_Character;
            case SHORT -> ConstantDescs.CD_Short;
            case INT -> ConstantDescs.CD_Integer;
            case LONG -> ConstantDescs.CD_Long;
            case FLOAT -> ConstantDescs.CD_Float;
            case DOUBLE -> ConstantDescs.CD_Double;
            case REFERENCE, VOID -> null;
        };
    }

    /** Turns the value on the stack into an {@code Object}: primitives by their box's {@code valueOf}. */
    private static void boxed(CodeBuilder code, JType type) {
        ClassDesc box = box(type.kind());
        if (box != null) code.invokestatic(box, "valueOf", MethodTypeDesc.of(box, type.desc()));
    }

    /** Turns the {@code Object} on the stack back into a value of {@code type}. */
    private static void unbox(CodeBuilder code, JType type) {
        ClassDesc box = box(type.kind());
        if (box == null) {
            code.checkcast(type.desc());
            return;
        }
        code.checkcast(box);
        code.invokevirtual(box, type.desc().displayName() + "Value", MethodTypeDesc.of(type.desc()));
    }

    private void method(ClassBuilder cb, JClass.Method m, int flags) {
        MethodTypeDesc type = MethodTypeDesc.of(m.returnType().desc(), m.params().stream().map(p -> p.type().desc()).toArray(ClassDesc[]::new));
        cb.withMethodBody(m.name(), type, flags, code -> {
            Method w = new Method(code, m.params());
            w.statements(m.body());
            if (m.returnType().equals(JType.VOID) && (m.body().isEmpty() || !(m.body().getLast() instanceof JStmt.Return))) code.return_();
        });
    }

    /** One method's code: locals by name, in scopes. */
    private final class Method {
        private final CodeBuilder code;
        private final Deque<Map<String, Integer>> scopes = new ArrayDeque<>();

        Method(CodeBuilder code, List<JExpr.Local> params) {
            this.code = code;
            scopes.push(new HashMap<>());
            for (int i = 0; i < params.size(); i++) scopes.peek().put(params.get(i).name(), code.parameterSlot(i));
        }

        private int slot(JExpr.Local l) {
            for (Map<String, Integer> s : scopes) {
                Integer slot = s.get(l.name());
                if (slot != null) return slot;
            }
            throw new IllegalStateException("generated code reads undeclared local " + l.name());
        }

        void statements(List<JStmt> body) {
            scopes.push(new HashMap<>());
            for (JStmt s : body) statement(s);
            scopes.pop();
        }

        private void declare(JStmt.Declare d) {
            expr(d.init());
            int slot = code.allocateLocal(d.local().type().kind());
            code.storeLocal(d.local().type().kind(), slot);
            scopes.peek().put(d.local().name(), slot);
        }

        private void statement(JStmt s) {
            switch (s) {
                case JStmt.Declare d -> declare(d);
                case JStmt.Assign a -> {
                    expr(a.value());
                    code.storeLocal(a.local().type().kind(), slot(a.local()));
                }
                case JStmt.ArrayStore a -> {
                    expr(a.array());
                    expr(a.index());
                    expr(a.value());
                    code.arrayStore(TypeKind.from(a.array().type().component().desc()));
                }
                case JStmt.Eval e -> {
                    expr(e.expr());
                    TypeKind k = e.expr().type().kind();
                    if (k.slotSize() == 1) code.pop();
                    else if (k.slotSize() == 2) code.pop2();
                }
                case JStmt.For f -> {
                    // javac's shape: init; goto test; body: …; update; test: if (cond) goto body
                    scopes.push(new HashMap<>());
                    if (f.init() != null) statement(f.init());
                    Label body = code.newLabel(), test = code.newLabel();
                    code.goto_(test);
                    code.labelBinding(body);
                    statements(f.body());
                    statement(f.update());
                    code.labelBinding(test);
                    branch(f.cond(), true, body);
                    scopes.pop();
                }
                case JStmt.If f -> {
                    scopes.push(new HashMap<>());
                    Label skip = code.newLabel();
                    branch(f.cond(), false, skip);
                    statements(f.body());
                    code.labelBinding(skip);
                    scopes.pop();
                }
                case JStmt.Block b -> statements(b.body());
                case JStmt.Return r -> {
                    if (r.value() == null) {
                        code.return_();
                    } else {
                        expr(r.value());
                        code.return_(r.value().type().kind());
                    }
                }
                case JStmt.ParallelRange p -> parallel(p);
                case JStmt.Comment c -> { }
                case JStmt.Blank b -> { }
            }
        }

        /**
         * The body as a static method of (captured locals…, lo, hi), numbered among the class's
         * bodies, then {@code Parallel.forBody(n, cost, BODIES, number, new Object[] {captured…})}.
         */
        private void parallel(JStmt.ParallelRange p) {
            List<JExpr.Local> captured = new ArrayList<>(freeLocals(p.body(), Set.of(p.lo().name(), p.hi().name())));
            List<JExpr.Local> params = new ArrayList<>(captured);
            params.add(p.lo());
            params.add(p.hi());
            // the same loop over other buffers (a model's repeated layers) is the same method: C2 compiles it once
            Integer known = bodyNumbers.putIfAbsent(canonical(params, p.body()), bodies.size());
            int number = known != null ? known : bodies.size();
            if (known == null) {
                JClass.Method body = new JClass.Method(null, false, JType.VOID, "lambda$" + number, params, p.body());
                bodies.add(body);
                pending.add(body);
            }
            expr(p.n());
            expr(p.cost());
            code.getstatic(self, BODIES_FIELD, BODIES);
            code.loadConstant(number);
            code.loadConstant(captured.size());
            code.anewarray(ConstantDescs.CD_Object);
            for (int i = 0; i < captured.size(); i++) {
                JExpr.Local l = captured.get(i);
                code.dup();
                code.loadConstant(i);
                code.loadLocal(l.type().kind(), slot(l));
                boxed(code, l.type());
                code.aastore();
            }
            code.invokestatic(Calls.PARALLEL.desc(), "forBody", MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, ConstantDescs.CD_long,
                    BODIES, ConstantDescs.CD_int, ConstantDescs.CD_Object.arrayType()));
        }

        // -------------------------------------------------------------- expressions

        void expr(JExpr e) {
            switch (e) {
                case JExpr.Local l -> code.loadLocal(l.type().kind(), slot(l));
                case JExpr.Lit l -> literal(l);
                case JExpr.ArrayLoad a -> {
                    expr(a.array());
                    expr(a.index());
                    code.arrayLoad(TypeKind.from(a.type().desc()));
                }
                case JExpr.Arith a -> {
                    expr(a.a());
                    expr(a.b());
                    code.with(OperatorInstruction.of(arith(a.op(), a.type().kind())));
                }
                case JExpr.Neg n -> {
                    expr(n.x());
                    code.with(OperatorInstruction.of(switch (n.type().kind()) {
                        case INT -> Opcode.INEG;
                        case LONG -> Opcode.LNEG;
                        case FLOAT -> Opcode.FNEG;
                        case DOUBLE -> Opcode.DNEG;
                        default -> throw new IllegalStateException("cannot negate " + n.type().source());
                    }));
                }
                case JExpr.Not n -> {
                    expr(n.x());
                    code.iconst_1().ixor();
                }
                case JExpr.Compare c -> asValue(c);
                case JExpr.Cond c -> {
                    Label otherwise = code.newLabel(), end = code.newLabel();
                    branch(c.cond(), false, otherwise);
                    expr(c.a());
                    code.goto_(end);
                    code.labelBinding(otherwise);
                    expr(c.b());
                    code.labelBinding(end);
                }
                case JExpr.Convert c -> {
                    expr(c.x());
                    if (c.type().isPrimitive()) code.conversion(TypeKind.from(c.x().type().desc()).asLoadable(), TypeKind.from(c.type().desc()));
                    else code.checkcast(c.type().desc());
                }
                case JExpr.Box b -> {
                    expr(b.x());
                    code.invokestatic(b.type().desc(), "valueOf", MethodTypeDesc.of(b.type().desc(), b.x().type().desc()));
                }
                case JExpr.Invoke i -> {
                    if (i.receiver() != null) expr(i.receiver());
                    for (JExpr a : i.args()) expr(a);
                    ClassDesc owner = i.owner() == null ? self : i.owner().desc();
                    switch (i.kind()) {
                        case STATIC -> code.invokestatic(owner, i.name(), i.descriptor());
                        case VIRTUAL -> code.invokevirtual(owner, i.name(), i.descriptor());
                        case INTERFACE -> code.invokeinterface(owner, i.name(), i.descriptor());
                    }
                }
                case JExpr.GetStatic g -> code.getstatic(g.owner() == null ? self : g.owner().desc(), g.name(), g.type().desc());
                case JExpr.New n -> {
                    code.new_(n.type().desc()).dup();
                    for (JExpr a : n.args()) expr(a);
                    code.invokespecial(n.type().desc(), ConstantDescs.INIT_NAME, n.constructor());
                }
                case JExpr.NewArray n -> {
                    expr(n.size());
                    newArray(n.type());
                }
                case JExpr.ArrayOf a -> {
                    code.loadConstant(a.elements().size());
                    newArray(a.type());
                    TypeKind k = TypeKind.from(a.type().component().desc());
                    for (int i = 0; i < a.elements().size(); i++) {
                        code.dup().loadConstant(i);
                        expr(a.elements().get(i));
                        code.arrayStore(k);
                    }
                }
            }
        }

        private void newArray(JType arrayType) {
            JType c = arrayType.component();
            if (c.isPrimitive()) code.newarray(TypeKind.from(c.desc()));
            else code.anewarray(c.desc());
        }

        private void literal(JExpr.Lit l) {
            switch (l.value()) {
                case null -> code.aconst_null();
                case Boolean b -> code.loadConstant(b ? 1 : 0);
                case Integer i when l.type().desc().equals(ConstantDescs.CD_long) -> code.loadConstant((long) i);
                case Integer i -> code.loadConstant(i);
                case Long v -> code.loadConstant(v);
                case Float f -> code.loadConstant(f);
                case Double d -> code.loadConstant(d);
                case String s -> code.loadConstant(s);
                default -> throw new IllegalStateException("no constant of " + l.value().getClass());
            }
        }

        /** A boolean value on the stack: 1 or 0. */
        private void asValue(JExpr cond) {
            Label no = code.newLabel(), end = code.newLabel();
            branch(cond, false, no);
            code.iconst_1().goto_(end);
            code.labelBinding(no);
            code.iconst_0();
            code.labelBinding(end);
        }

        /** Jumps to {@code target} when {@code cond} is {@code when}; falls through otherwise. */
        private void branch(JExpr cond, boolean when, Label target) {
            switch (cond) {
                case JExpr.Not n -> branch(n.x(), !when, target);
                case JExpr.Compare c -> {
                    JExpr.CmpOp op = when ? c.op() : negate(c.op());
                    TypeKind k = c.a().type().kind();
                    expr(c.a());
                    expr(c.b());
                    if (k == TypeKind.INT) {
                        code.branch(switch (op) {
                            case EQ -> Opcode.IF_ICMPEQ; case NE -> Opcode.IF_ICMPNE; case LT -> Opcode.IF_ICMPLT;
                            case LE -> Opcode.IF_ICMPLE; case GT -> Opcode.IF_ICMPGT; case GE -> Opcode.IF_ICMPGE;
                        }, target);
                        return;
                    }
                    // NaN makes every comparison but != false, so the branch on the negation must take it:
                    // fcmpg makes NaN 1, fcmpl -1: for < and <= the first, for > and >= the second, whichever way we branch.
                    boolean nanIsGreater = c.op() == JExpr.CmpOp.LT || c.op() == JExpr.CmpOp.LE;
                    code.with(OperatorInstruction.of(switch (k) {
                        case LONG -> Opcode.LCMP;
                        case FLOAT -> nanIsGreater ? Opcode.FCMPG : Opcode.FCMPL;
                        case DOUBLE -> nanIsGreater ? Opcode.DCMPG : Opcode.DCMPL;
                        default -> throw new IllegalStateException("cannot compare " + c.a().type().source());
                    }));
                    code.branch(switch (op) {
                        case EQ -> Opcode.IFEQ; case NE -> Opcode.IFNE; case LT -> Opcode.IFLT;
                        case LE -> Opcode.IFLE; case GT -> Opcode.IFGT; case GE -> Opcode.IFGE;
                    }, target);
                }
                default -> {
                    expr(cond);
                    code.branch(when ? Opcode.IFNE : Opcode.IFEQ, target);
                }
            }
        }
    }

    private static JExpr.CmpOp negate(JExpr.CmpOp op) {
        return switch (op) {
            case EQ -> JExpr.CmpOp.NE; case NE -> JExpr.CmpOp.EQ; case LT -> JExpr.CmpOp.GE;
            case GE -> JExpr.CmpOp.LT; case GT -> JExpr.CmpOp.LE; case LE -> JExpr.CmpOp.GT;
        };
    }

    private static Opcode arith(JExpr.ArithOp op, TypeKind k) {
        int i = switch (k) { case INT -> 0; case LONG -> 1; case FLOAT -> 2; case DOUBLE -> 3; default -> -1; };
        if (i < 0 || i >= 2 && (op == JExpr.ArithOp.AND || op == JExpr.ArithOp.OR || op == JExpr.ArithOp.XOR)) throw new IllegalStateException("no " + op + " on " + k);
        Opcode[] row = switch (op) {
            case ADD -> new Opcode[] {Opcode.IADD, Opcode.LADD, Opcode.FADD, Opcode.DADD};
            case SUB -> new Opcode[] {Opcode.ISUB, Opcode.LSUB, Opcode.FSUB, Opcode.DSUB};
            case MUL -> new Opcode[] {Opcode.IMUL, Opcode.LMUL, Opcode.FMUL, Opcode.DMUL};
            case DIV -> new Opcode[] {Opcode.IDIV, Opcode.LDIV, Opcode.FDIV, Opcode.DDIV};
            case REM -> new Opcode[] {Opcode.IREM, Opcode.LREM, Opcode.FREM, Opcode.DREM};
            case AND -> new Opcode[] {Opcode.IAND, Opcode.LAND};
            case OR -> new Opcode[] {Opcode.IOR, Opcode.LOR};
            case XOR -> new Opcode[] {Opcode.IXOR, Opcode.LXOR};
        };
        return row[i];
    }

    private static final ClassDesc BODIES = ClassDesc.of("dev.ember.kernels.Parallel$Bodies");
    /** The class's one instance, the {@code Parallel.Bodies} its loops pass. */
    private static final String BODIES_FIELD = "BODIES";
    private static final MethodTypeDesc RUN_TYPE = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, ConstantDescs.CD_Object.arrayType(),
            ConstantDescs.CD_int, ConstantDescs.CD_int);

    /** Locals {@code body} reads that it does not declare, in order of first use. */
    /**
     * A parallel body as a key: its parameters' types and its statements with every local renamed
     * by order of first appearance (the parameters first) and comments dropped. Two bodies with
     * equal keys are the same code up to a consistent renaming, so one method computes both when
     * each passes its own captured values in parameter order.
     */
    static List<Object> canonical(List<JExpr.Local> params, List<JStmt> body) {
        Map<String, String> names = new HashMap<>();
        var renamer = new Object() {
            JExpr.Local local(JExpr.Local l) { return new JExpr.Local(names.computeIfAbsent(l.name(), n -> "v" + names.size()), l.type()); }

            List<JStmt> stmts(List<JStmt> list) {
                List<JStmt> out = new ArrayList<>(list.size());
                for (JStmt s : list) if (!(s instanceof JStmt.Comment) && !(s instanceof JStmt.Blank)) out.add(stmt(s));
                return out;
            }

            JStmt stmt(JStmt s) {
                return switch (s) {
                    case JStmt.Declare d -> { JExpr init = expr(d.init()); yield new JStmt.Declare(local(d.local()), init); }
                    case JStmt.Assign a -> assign(a);
                    case JStmt.ArrayStore a -> new JStmt.ArrayStore(expr(a.array()), expr(a.index()), expr(a.value()));
                    case JStmt.Eval e -> new JStmt.Eval(expr(e.expr()));
                    case JStmt.For f -> {
                        JStmt init = f.init() == null ? null : stmt(f.init());
                        JExpr cond = expr(f.cond());
                        List<JStmt> loop = stmts(f.body());
                        yield new JStmt.For(init, cond, assign(f.update()), loop);
                    }
                    case JStmt.If f -> { JExpr cond = expr(f.cond()); yield new JStmt.If(cond, stmts(f.body())); }
                    case JStmt.Block b -> new JStmt.Block(stmts(b.body()));
                    case JStmt.Return r -> new JStmt.Return(r.value() == null ? null : expr(r.value()));
                    case JStmt.ParallelRange p -> {
                        JExpr n = expr(p.n()), cost = expr(p.cost());
                        JExpr.Local lo = local(p.lo()), hi = local(p.hi());
                        yield new JStmt.ParallelRange(n, cost, lo, hi, stmts(p.body()));
                    }
                    case JStmt.Comment c -> c;
                    case JStmt.Blank b -> b;
                };
            }

            JStmt.Assign assign(JStmt.Assign a) { JExpr value = expr(a.value()); return new JStmt.Assign(local(a.local()), value); }

            List<JExpr> exprs(List<JExpr> list) { return list.stream().map(this::expr).toList(); }

            JExpr expr(JExpr e) {
                return switch (e) {
                    case null -> null;
                    case JExpr.Local l -> local(l);
                    case JExpr.Lit l -> l;
                    case JExpr.GetStatic g -> g;
                    case JExpr.ArrayLoad a -> new JExpr.ArrayLoad(expr(a.array()), expr(a.index()));
                    case JExpr.Arith a -> new JExpr.Arith(a.op(), expr(a.a()), expr(a.b()));
                    case JExpr.Compare c -> new JExpr.Compare(c.op(), expr(c.a()), expr(c.b()));
                    case JExpr.Neg n -> new JExpr.Neg(expr(n.x()));
                    case JExpr.Not n -> new JExpr.Not(expr(n.x()));
                    case JExpr.Cond c -> new JExpr.Cond(expr(c.cond()), expr(c.a()), expr(c.b()));
                    case JExpr.Convert c -> new JExpr.Convert(expr(c.x()), c.type(), c.implicit());
                    case JExpr.Box b -> new JExpr.Box(expr(b.x()), b.type());
                    case JExpr.Invoke i -> new JExpr.Invoke(i.kind(), i.owner(), i.name(), i.descriptor(), expr(i.receiver()), exprs(i.args()), i.varargs());
                    case JExpr.New n -> new JExpr.New(n.type(), n.constructor(), exprs(n.args()));
                    case JExpr.NewArray n -> new JExpr.NewArray(n.type(), expr(n.size()));
                    case JExpr.ArrayOf a -> new JExpr.ArrayOf(a.type(), exprs(a.elements()));
                };
            }
        };
        List<Object> key = new ArrayList<>();
        for (JExpr.Local l : params) key.add(renamer.local(l));
        key.addAll(renamer.stmts(body));
        return key;
    }

    static Set<JExpr.Local> freeLocals(List<JStmt> body, Set<String> bound) {
        Set<JExpr.Local> out = new LinkedHashSet<>();
        new Object() {
            final Deque<Set<String>> declared = new ArrayDeque<>(List.of(new java.util.HashSet<>(bound)));

            boolean isDeclared(String n) { return declared.stream().anyMatch(s -> s.contains(n)); }

            void stmts(List<JStmt> list) {
                declared.push(new java.util.HashSet<>());
                for (JStmt s : list) stmt(s);
                declared.pop();
            }

            void stmt(JStmt s) {
                switch (s) {
                    case JStmt.Declare d -> { expr(d.init()); declared.peek().add(d.local().name()); }
                    case JStmt.Assign a -> { use(a.local()); expr(a.value()); }
                    case JStmt.ArrayStore a -> { expr(a.array()); expr(a.index()); expr(a.value()); }
                    case JStmt.Eval e -> expr(e.expr());
                    case JStmt.For f -> {
                        declared.push(new java.util.HashSet<>());
                        if (f.init() != null) stmt(f.init());
                        expr(f.cond());
                        stmts(f.body());
                        stmt(f.update());
                        declared.pop();
                    }
                    case JStmt.If f -> {
                        expr(f.cond());
                        declared.push(new java.util.HashSet<>());
                        stmts(f.body());
                        declared.pop();
                    }
                    case JStmt.Block b -> stmts(b.body());
                    case JStmt.Return r -> { if (r.value() != null) expr(r.value()); }
                    case JStmt.ParallelRange p -> {
                        expr(p.n());
                        expr(p.cost());
                        declared.push(new java.util.HashSet<>(Set.of(p.lo().name(), p.hi().name())));
                        stmts(p.body());
                        declared.pop();
                    }
                    case JStmt.Comment c -> { }
                    case JStmt.Blank b -> { }
                }
            }

            void use(JExpr.Local l) { if (!isDeclared(l.name())) out.add(l); }

            void expr(JExpr e) {
                if (e instanceof JExpr.Local l) use(l);
                JExpr.children(e).forEach(this::expr);
            }
        }.stmts(body);
        return out;
    }
}
