package dev.ember.dynamo;

import dev.ember.dynamo.guards.Guard;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.SymScalarVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.events.UserFrame;
import dev.ember.tensor.SymShape;

import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.List;

/**
 * A paused trace as {@link Comptime} shows it (PyTorch's {@code ComptimeContext}): the method that
 * called Comptime, its locals by name and its operand stack as the tracer holds them, the graph and
 * the guards so far, the user frames being traced, and the bytecode with the current instruction.
 * Showing changes nothing: an int input whose value guard waits until the trace reads it is shown
 * without installing the guard. In a resume method, locals, lines and bytecode are those of the
 * user's method it continues.
 */
final class ComptimeContext {
    private final TraceContext ctx;
    private final InstructionTranslator frame;
    /** The user's method and the instruction in it that called Comptime. */
    private final MethodCode code;
    private final int index;

    ComptimeContext(TraceContext ctx) {
        this.ctx = ctx;
        this.frame = ctx.frames.getLast();
        ResumeCodegen.Origin origin;
        try {
            origin = ResumeCodegen.originOf(frame.code, frame.currentIndex());
        } catch (CannotResume e) {
            origin = new ResumeCodegen.Origin(frame.code, frame.currentIndex());
        }
        this.code = origin.code();
        this.index = origin.index();
    }

    /** Where Comptime was called. */
    UserFrame where() { return code.frameAt(index); }

    /** The method being traced when Comptime was called: {@code Prog.f}. */
    String method() { return Disassembly.methodName(code); }

    // ------------------------------------------------------------------ locals

    /** A local slot as the trace holds it: its name and declared type when the class file has them (javac -g). */
    record Local(int slot, String name, ClassDesc declared, VariableTracker value) {
        /** The name, or {@code slot 3} without debug information. */
        String label() { return name != null ? name : "slot " + slot; }
    }

    /**
     * The locals in scope at the call, by slot; without names, every slot that holds a value. In a
     * resume method, only those the code still reads: the others were not carried across the break,
     * and their slots may hold the resume method's own arguments.
     */
    List<Local> locals() {
        List<Local> out = new ArrayList<>();
        boolean named = code.hasLocalNames();
        boolean resumed = code != frame.code;
        for (int slot = 0; slot < frame.locals.length; slot++) {
            // an argument the trace has not read yet is wrapped now: what it holds is shown as the trace would see it
            VariableTracker v = frame.local(slot);
            if (v == null) continue;
            String name = code.localName(slot, index);
            // a named method's slot without a name here is out of scope: what it holds is dead
            boolean shown = (!named || name != null) && (!resumed || code.isLive(slot, index));
            if (shown) out.add(new Local(slot, name, code.localType(slot, index), v));
            if (v.isWide()) slot++;
        }
        return out;
    }

    /**
     * The local called {@code name}, or in slot {@code name} when it is a number.
     *
     * @throws IllegalArgumentException naming the locals there are, when none is called so
     */
    Local local(String name) {
        List<Local> all = locals();
        for (Local l : all) if (name.equals(l.name()) || name.equals(String.valueOf(l.slot()))) return l;
        List<String> names = all.stream().map(l -> l.name() != null ? l.name() : String.valueOf(l.slot())).toList();
        throw new IllegalArgumentException("no local '" + name + "' at " + where() + "; the locals are " + (names.isEmpty() ? "none" : String.join(", ", names))
                + (code.hasLocalNames() ? "" : " (slot numbers: the class was compiled without -g, so its locals have no names)"));
    }

    /**
     * <pre>
     * locals of Prog.f at Prog.java:10 (bci 12):
     *   slot  name  type    value
     *   0     x     Tensor  Tensor f32[3, 4]  graph node l_x_, from L['x']
     * </pre>
     */
    String localsText() {
        List<Local> all = locals();
        StringBuilder sb = new StringBuilder("locals of " + method() + " at " + where().fileName() + ":" + where().line() + " (bci " + code.bci[index] + "):\n");
        if (all.isEmpty()) return sb.append("  none\n").toString();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"slot", "name", "type", "value"});
        for (Local l : all) {
            rows.add(new String[] {String.valueOf(l.slot()), l.name() == null ? "?" : l.name(), l.declared() == null ? "?" : Disassembly.name(l.declared()),
                    describe(l.value(), l.declared())});
        }
        sb.append(table(rows));
        if (!code.hasLocalNames()) {
            sb.append("  (no names: the class was compiled without -g, which keeps the LocalVariableTable; 'local 1' names a local by its slot)\n");
        }
        return sb.toString();
    }

    /** {@code x (slot 0): Tensor f32[3, 4]  graph node l_x_, from L['x']} */
    static String localText(Local l) { return l.label() + (l.name() == null ? "" : " (slot " + l.slot() + ")") + ": " + describe(l.value(), l.declared()); }

    /** The class of the local's value as the trace knows it: its declared primitive type, else its value's class. */
    String typeText(Local l) {
        if (l.declared() != null && l.declared().isPrimitive()) return l.declared().displayName();
        Class<?> c = l.value() instanceof LambdaVariable ? null : TypeOf.runtimeClass(l.value());
        if (c != null) return c.getName();
        if (l.declared() != null) return Values.resolve(l.declared(), code.owner).getName() + " (declared; the value's own class is unknown while tracing)";
        return "unknown while tracing (" + l.value().describe() + ")";
    }

    /**
     * The local's value when the trace knows it, as Java would print it.
     *
     * @throws IllegalArgumentException saying what the value is instead
     */
    Object asConstant(Local l) {
        if (l.value() instanceof ConstantVariable c) {
            Class<?> declared = l.declared() == null ? null : Values.resolve(l.declared(), code.owner);
            return declared == null ? c.peek() : Values.fromStack(c.peek(), declared);
        }
        throw new IllegalArgumentException(l.label() + " is not a constant while tracing: it is " + describe(l.value(), l.declared()) + " — " + whyNotConstant(l.value()));
    }

    /** Why a value's number or data is unknown while tracing. */
    static String whyNotConstant(VariableTracker v) {
        return switch (v) {
            case TensorVariable t -> "a graph value, whose data exists only when the graph runs";
            case SymSizeVariable s -> "the graph is generic in it, for every size its guards allow";
            case SymScalarVariable s -> s.dataDependent() ? "a number the graph computes from tensor data"
                    : "a number the graph takes as an input, so that one graph serves every value";
            default -> "an object the trace tracks, not a value it can hand out";
        };
    }

    /** What the trace holds: {@code Tensor f32[s0, 4]  graph node relu}, {@code int 3  constant}, … and its source. */
    static String describe(VariableTracker v, ClassDesc declared) {
        String what = switch (v) {
            case TensorVariable t -> "Tensor " + (t.node().symVal() instanceof SymShape s && s.isSymbolic() ? s.describe(t.fake().dtype()) : t.fake().meta().describe())
                    + "  graph node " + t.node().name();
            case ConstantVariable c when declared != null && declared.isPrimitive() && c.peek() != null ->
                    declared.displayName() + " " + Values.fromStack(c.peek(), Values.resolve(declared, null)) + "  constant";
            case ConstantVariable c -> c.peek() instanceof String s ? "String \"" + s + "\"  constant"
                    : c.peek() == null ? "null" : c.peek().getClass().getSimpleName() + " " + c.peek() + "  constant";
            default -> v.describe();
        };
        return v.source() == null ? what : what + ", from " + v.source().name();
    }

    // ------------------------------------------------------------------ stack, graph, guards, frames, bytecode

    /** The operand stack at the call, bottom first. */
    String stackText() {
        List<VariableTracker> stack = frame.stack();
        StringBuilder sb = new StringBuilder("operand stack of " + method() + " (bottom first):\n");
        if (stack.isEmpty()) return sb.append("  empty\n").toString();
        for (int i = 0; i < stack.size(); i++) sb.append("  ").append(i).append("  ").append(describe(stack.get(i), null)).append('\n');
        return sb.toString();
    }

    /** The graph built so far, as {@code graph_code} prints graphs (it has no output yet). */
    String graphText() {
        int ops = ctx.graph.opCount();
        return "graph so far (" + ops + " op" + (ops == 1 ? "" : "s") + ", no output yet):\n" + ctx.graph.toGraphModule().code();
    }

    /** The guards installed so far; more come as the trace reads more of its inputs, and size guards when it ends. */
    String guardsText() {
        List<Guard> guards = ctx.graph.guards();
        StringBuilder sb = new StringBuilder("guards installed so far (" + guards.size() + "):\n");
        for (Guard g : guards) sb.append("  ").append(g.describe()).append('\n');
        return sb.toString();
    }

    /** The user frames being traced, outermost first: the compiled function, then each inlined call. */
    String backtraceText() {
        StringBuilder sb = new StringBuilder("user frames being traced (most recent call last):\n");
        for (UserFrame f : ctx.userStack()) sb.append("  ").append(f).append(f.sourceText() == null ? "" : ":  " + f.sourceText()).append('\n');
        return sb.toString();
    }

    /** The method's bytecode, the arrow at the call. */
    String disasText() { return Disassembly.of(code, index); }

    /** Rows of cells, each column as wide as its widest cell, indented by two. */
    private static String table(List<String[]> rows) {
        int[] width = new int[rows.getFirst().length];
        for (String[] r : rows) for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < r.length; i++) line.append(i == r.length - 1 ? r[i] : String.format("%-" + (width[i] + 2) + "s", r[i]));
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
