package dev.ember.debug.bytecode;

import dev.ember.dynamo.CacheEntry;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.GeneratedCode;
import dev.ember.dynamo.guards.Guard;
import dev.ember.events.UserFrame;
import dev.ember.jvm.BytecodeListing;
import dev.ember.logging.CompileId;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * What Ember runs for a call of a compiled function once a cache entry's guards passed, as steps
 * the debugger lists and takes one at a time: check the guards, read the graph's inputs, call the
 * compiled graph, replay each side effect, then return the value rebuilt from the graph's outputs
 * or, after a graph break, rebuild the live values and step into the generated {@code breakAt}.
 * The frame evaluator runs these steps in Java ({@link CacheEntry}), not as bytecode, so they are
 * numbered 0, 1, 2… where a method has bcis. An eager entry has one step: the method as javac
 * compiled it (stepped into when it is a resume method).
 */
final class EntryFrame implements DebugFrame {
    private interface Action {
        void run() throws Throwable;
    }

    private record Step(String mnemonic, String operands, String note, Action action) {}

    private final CompiledFrame frame;
    private final CacheEntry entry;
    private final Object[] args;
    private final List<String> argNames;
    private final List<Step> steps = new ArrayList<>();
    /** What the last step produced: the inputs, the graph's outputs, the live values, the result. */
    private List<Slot> produced = List.of();
    private int pc;
    private Object result;

    EntryFrame(Session session, CompiledFrame frame, CacheEntry entry, Object[] args, Supplier<Object> eager) {
        this.frame = frame;
        this.entry = entry;
        this.args = args;
        this.argNames = GeneratedCode.frameNames(frame, args.length);
        List<Guard> guards = entry.guards().guards();
        steps.add(new Step("check_guards", guards.size() + (guards.size() == 1 ? " guard" : " guards"), "guard check (they held: this entry was chosen)",
                () -> produced = List.of(Slot.of(java.lang.classfile.TypeKind.INT, entry.guards().check(args) ? 1 : 0))));
        if (entry.isEager()) {
            eagerSteps(session, eager);
            return;
        }
        CacheEntry.Call call = entry.call(args);
        Object[][] inputs = new Object[1][];
        steps.add(new Step("read_inputs", String.join(", ", entry.inputNames()), null, () -> produced = slots(inputs[0] = call.readInputs())));
        String graph = graphName(entry.compileId());
        int n = entry.inputNames().size();
        steps.add(new Step("call_graph", graph + "(" + n + (n == 1 ? " input)" : " inputs)"), "call compiled graph " + graph,
                () -> produced = slots(call.runGraph(inputs[0]))));
        List<String> effects = entry.sideEffects();
        for (int i = 0; i < effects.size(); i++) {
            int k = i;
            steps.add(new Step("replay", "side effect " + (i + 1) + " of " + effects.size(), "replay side effect: " + effects.get(i), () -> call.replaySideEffect(k)));
        }
        if (entry.returnsRebuiltValue()) {
            steps.add(new Step("return", "the value rebuilt from the graph's outputs", null, () -> produced = slots(result = call.result())));
            return;
        }
        Object[][] live = new Object[1][];
        steps.add(new Step("rebuild_live", "the values live at the break: locals, then the stack", null, () -> produced = slots(live[0] = call.liveValues())));
        UserFrame at = entry.breakFrame();
        Class<?> breakClass = entry.breakClass();
        steps.add(new Step("invoke", GeneratedCode.model(breakClass).thisClass().asSymbol().displayName() + ".breakAt(Object[], ResumeTarget)",
                "graph break" + (at == null ? "" : " at " + at.fileName() + ":" + at.line()) + ": into the generated code",
                () -> {
                    try {
                        result = session.run(session.methodFrame(breakClass, "breakAt", new Object[] {live[0], entry.resumeTarget()}));
                    } catch (Throwable t) {
                        throw entry.atBreak(t);
                    }
                }));
    }

    /** An eager entry: the method as javac compiled it, stepped into when it is a resume method (generated code). */
    private void eagerSteps(Session session, Supplier<Object> eager) {
        String why = entry.graphBreak() == null ? "" : " (" + entry.graphBreak().gbId() + ": " + entry.graphBreak().reason() + ")";
        Class<?> owner = frame.method().owner();
        if (GeneratedCode.isGenerated(owner)) {
            steps.add(new Step("invoke", frame.method().name() + "(…)", "resume method run as plain bytecode: no graph" + why,
                    () -> result = session.run(session.methodFrame(owner, frame.method().name(), args))));
        } else {
            steps.add(new Step("run_eagerly", frame.name() + "(…)", "no graph: the method runs as javac compiled it" + why, () -> result = eager.get()));
        }
    }

    /** {@code __compiled_fn_0_1}: the graph of compile {@code 0/1}, as the logs number compiles. */
    static String graphName(CompileId id) {
        return id == null ? "__compiled_fn" : "__compiled_fn_" + id.frameId() + "_" + id.frameCompileId();
    }

    private static List<Slot> slots(Object... values) { return Arrays.stream(values).map(Slot::ref).toList(); }

    @Override
    public String title() {
        CompileId id = entry.compileId();
        return frame.name() + ": compiled entry" + (id == null ? "" : " " + id) + "  (the frame evaluator's steps, in Java: numbered, not bcis)";
    }

    @Override
    public String name() { return frame.name(); }

    @Override
    public String key() { return frame.name() + " entry " + entry.compileId(); }

    @Override
    public int count() { return steps.size(); }

    @Override
    public int bciAt(int index) { return index; }

    @Override
    public int indexAtBci(int bci) { return bci >= 0 && bci < steps.size() ? bci : -1; }

    @Override
    public int length() { return steps.size(); }

    @Override
    public int current() { return pc; }

    @Override
    public boolean isDone() { return pc >= steps.size(); }

    @Override
    public Object result() { return result; }

    @Override
    public String rows(int from, int to, Set<Integer> breakpoints) {
        int width = BytecodeListing.bciWidth(steps.size());
        var marks = new BytecodeListing.Marks(isDone() ? -1 : pc, breakpoints);
        StringBuilder sb = new StringBuilder();
        for (int i = Math.max(0, from); i <= to && i < steps.size(); i++) {
            Step s = steps.get(i);
            sb.append(BytecodeListing.row(width, i, marks, s.mnemonic(), s.operands(), s.note())).append('\n');
        }
        return sb.toString();
    }

    @Override
    public List<String> locals() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.length; i++) out.add(String.format("%3d  %-10s %s", i, argNames.get(i), ValueText.of(args[i])));
        return out;
    }

    @Override
    public List<String> stack() { return produced.stream().map(Slot::toString).collect(Collectors.toList()); }

    @Override
    public void step() {
        Step s = steps.get(pc++);
        try {
            s.action().run();
        } catch (Throwable t) {
            pc = steps.size();
            throw dev.ember.dynamo.resume.Sneaky.<RuntimeException>rethrow(t);
        }
    }
}
