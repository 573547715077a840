package dev.ember.inductor.codegen;

import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Splits a method too big for the JVM into parts. A JVM method's code is at most 65,535 bytes; a
 * graph of a few thousand ops (an LSTM unrolled over 50 steps: 1,918 ops, 80 KB of {@code call})
 * writes more than that in its wrapper, and HotSpot interprets any method past 8,000 bytes forever.
 * The method's top-level statements are cut, in order, into
 * parts of at most {@link #PART_NODES} code nodes (a node writes a few bytes); the method becomes
 * {@code Object[] frame = new Object[n]; part0(params…, frame); …; return partK(params…, frame);}.
 * A local declared in one part and read in a later one travels in {@code frame}: stored (boxed if
 * primitive) at the end of each part that declares or assigns it, loaded at the start of each part
 * that reads it. Part boundaries fall only between top-level statements, so a nested scope (an
 * {@code if}, a loop) never spans two parts; a parallel loop's captured locals are loaded in its
 * part before it runs.
 */
final class MethodSplitter {
    private MethodSplitter() {}

    /**
     * Code nodes per part: 1.3–2.4 bytes of bytecode each on the wrappers measured (KernelLimitsTest,
     * an unrolled LSTM), so a part stays under 7.2 KB — below HotSpot's 8,000 bytes past which a
     * method is never JIT-compiled ({@code DontCompileHugeMethods}) and would run interpreted on
     * every call. The wrappers of the benchmarked models are far smaller (the encoder layer's
     * forward and backward: about 1,000 nodes each) and stay one method.
     */
    static final int PART_NODES = 3_000;

    private static final JExpr.Local FRAME = new JExpr.Local("frame", JType.OBJECT.array());

    /** {@code m} unchanged when it is small enough, else the method calling its parts, then the parts. */
    static List<JClass.Method> split(JClass.Method m) {
        List<List<JStmt>> parts = new ArrayList<>();
        List<JStmt> current = new ArrayList<>();
        int size = 0;
        for (JStmt s : m.body()) {
            int n = nodes(s);
            if (!current.isEmpty() && size + n > PART_NODES) {
                parts.add(current);
                current = new ArrayList<>();
                size = 0;
            }
            current.add(s);
            size += n;
        }
        if (!current.isEmpty()) parts.add(current);
        if (parts.size() <= 1) return List.of(m);

        Set<String> params = new HashSet<>();
        for (JExpr.Local p : m.params()) params.add(p.name());
        // per part, the locals it reads or assigns that an earlier part declared
        List<Set<JExpr.Local>> needs = new ArrayList<>();
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (List<JStmt> part : parts) {
            Set<JExpr.Local> free = new LinkedHashSet<>();
            for (JExpr.Local l : BytecodeWriter.freeLocals(part, params)) if (!params.contains(l.name())) free.add(l);
            needs.add(free);
            for (JExpr.Local l : free) slots.putIfAbsent(l.name(), slots.size());
        }
        List<JExpr.Local> partParams = new ArrayList<>(m.params());
        partParams.add(FRAME);
        List<JClass.Method> out = new ArrayList<>();
        List<JStmt> caller = new ArrayList<>();
        caller.add(new JStmt.Comment("split into " + parts.size() + " parts: one JVM method holds at most 64 KB of code"));
        caller.add(new JStmt.Declare(FRAME, new JExpr.NewArray(JType.OBJECT.array(), JavaTypes.intLit(slots.size()))));
        for (int i = 0; i < parts.size(); i++) {
            boolean last = i == parts.size() - 1;
            List<JStmt> body = new ArrayList<>();
            for (JExpr.Local l : needs.get(i)) body.add(new JStmt.Declare(l, unboxed(new JExpr.ArrayLoad(FRAME, JavaTypes.intLit(slots.get(l.name()))), l.type())));
            body.addAll(parts.get(i));
            if (!last) {
                Set<String> laterNeeds = new HashSet<>();
                for (int j = i + 1; j < parts.size(); j++) for (JExpr.Local l : needs.get(j)) laterNeeds.add(l.name());
                for (JExpr.Local l : written(parts.get(i))) {
                    if (laterNeeds.contains(l.name())) body.add(new JStmt.ArrayStore(FRAME, JavaTypes.intLit(slots.get(l.name())), boxed(l)));
                }
            }
            String name = m.name() + "$part" + i;
            JType returns = last ? m.returnType() : JType.VOID;
            out.add(new JClass.Method("part " + (i + 1) + " of " + parts.size() + " of " + m.name(), false, returns, name, partParams, body));
            JExpr.Invoke call = new JExpr.Invoke(JExpr.CallKind.STATIC, null, name, Calls.descriptor(returns, List.copyOf(partParams)), null,
                    List.copyOf(partParams), false);
            caller.add(last && !returns.equals(JType.VOID) ? new JStmt.Return(call) : new JStmt.Eval(call));
        }
        if (m.returnType().equals(JType.VOID)) caller.add(new JStmt.Return(null));
        List<JClass.Method> all = new ArrayList<>();
        all.add(new JClass.Method(m.doc(), m.isPublic(), m.returnType(), m.name(), m.params(), caller));
        all.addAll(out);
        return all;
    }

    /** The top-level locals {@code part} declares, and every local it assigns at any depth. */
    private static Set<JExpr.Local> written(List<JStmt> part) {
        Set<JExpr.Local> out = new LinkedHashSet<>();
        for (JStmt s : part) {
            if (s instanceof JStmt.Declare d) out.add(d.local());
            assigned(s, out);
        }
        return out;
    }

    private static void assigned(JStmt s, Set<JExpr.Local> out) {
        switch (s) {
            case JStmt.Assign a -> out.add(a.local());
            case JStmt.For f -> {
                if (f.init() != null) assigned(f.init(), out);
                assigned(f.update(), out);
                for (JStmt b : f.body()) assigned(b, out);
            }
            case JStmt.If f -> { for (JStmt b : f.body()) assigned(b, out); }
            case JStmt.Block b -> { for (JStmt x : b.body()) assigned(x, out); }
            case JStmt.ParallelRange p -> { for (JStmt x : p.body()) assigned(x, out); }
            default -> {}
        }
    }

    /** The number of statements and expressions in {@code s}: the measure of a part's size. */
    static int nodes(JStmt s) {
        return 1 + switch (s) {
            case JStmt.Declare d -> nodes(d.init());
            case JStmt.Assign a -> nodes(a.value());
            case JStmt.ArrayStore a -> nodes(a.array()) + nodes(a.index()) + nodes(a.value());
            case JStmt.Eval e -> nodes(e.expr());
            case JStmt.For f -> (f.init() == null ? 0 : nodes(f.init())) + nodes(f.cond()) + nodes(f.update()) + nodes(f.body());
            case JStmt.If f -> nodes(f.cond()) + nodes(f.body());
            case JStmt.Block b -> nodes(b.body());
            case JStmt.Return r -> r.value() == null ? 0 : nodes(r.value());
            case JStmt.ParallelRange p -> nodes(p.n()) + nodes(p.cost()) + 8;   // the body is a method of its own; the call boxes its captures
            case JStmt.Comment c -> -1;
            case JStmt.Blank b -> -1;
        };
    }

    private static int nodes(List<JStmt> body) {
        int n = 0;
        for (JStmt s : body) n += nodes(s);
        return n;
    }

    private static int nodes(JExpr e) {
        int n = 1;
        for (JExpr c : JExpr.children(e)) n += nodes(c);
        return n;
    }

    private static JExpr boxed(JExpr.Local l) {
        ClassDesc box = boxOf(l.type());
        return box == null ? l : new JExpr.Box(l, JType.of(box));
    }

    private static JExpr unboxed(JExpr slot, JType type) {
        ClassDesc box = boxOf(type);
        if (box == null) return new JExpr.Convert(slot, type, false);
        JExpr asBox = new JExpr.Convert(slot, JType.of(box), false);
        return new JExpr.Invoke(JExpr.CallKind.VIRTUAL, JType.of(box), type.source() + "Value", MethodTypeDesc.of(type.desc()), asBox, List.of(), false);
    }

    private static ClassDesc boxOf(JType t) {
        if (!t.isPrimitive()) return null;
        return switch (t.desc().descriptorString()) {
            case "Z" -> ConstantDescs.CD_Boolean;
            case "B" -> ConstantDescs.CD_Byte;
            case "I" -> ConstantDescs.CD_Integer;
            case "J" -> ConstantDescs.CD_Long;
            case "F" -> ConstantDescs.CD_Float;
            case "D" -> ConstantDescs.CD_Double;
            default -> throw new IllegalStateException("no box for " + t.source());
        };
    }
}
