package dev.ember.debug.bytecode;

import dev.ember.dynamo.CacheEntry;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameDebug;
import dev.ember.dynamo.GeneratedCode;
import dev.ember.jvm.FlatCode;

import java.io.PrintStream;
import java.lang.classfile.MethodModel;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * One debugging session: the frames entered (an entry's steps, generated methods), where to stop
 * next (after n steps, at a breakpoint, or nowhere after {@code q}), and the command prompt. Every
 * compiled frame the call reaches on this thread comes here ({@link FrameDebug.Hook}), so a frame
 * entered from the generated code (the resume method's) is stepped into as a callee.
 */
final class Session implements FrameDebug.Hook {
    /** Where commands come from: the next line, or null at the end. */
    interface Commands {
        String next();
    }

    static final String PROMPT = "(bdb) ";
    private static final int CONTEXT = 5;

    private final Commands commands;
    private final PrintStream out;
    private final Deque<DebugFrame> frames = new ArrayDeque<>();
    private final Map<String, Set<Integer>> breakpoints = new HashMap<>();
    /** The breakpoints' methods as the listing heads them: {@code MyApp$Resume0.breakAt(Object[], ResumeTarget) : Tensor}. */
    private final Map<String, String> breakpointNames = new HashMap<>();
    private final Map<Class<?>, Linker> linkers = new HashMap<>();
    private final Map<MethodModel, FlatCode> codes = new HashMap<>();
    /** Instructions to run before the next stop (0: stop before the next one), when stepping. */
    private int remaining;
    private boolean continuing;
    private boolean quit;
    private int entered;
    private DebugFrame shown;

    Session(Commands commands, PrintStream out) {
        this.commands = commands;
        this.out = out;
    }

    /** How many compiled frames the call entered. */
    int entered() { return entered; }

    @Override
    public Object enter(CompiledFrame frame, CacheEntry entry, Object[] args, Supplier<Object> eager) {
        entered++;
        if (quit) return entry.run(args, eager);
        return run(new EntryFrame(this, frame, entry, args, eager));
    }

    /** Static method {@code name} of generated class {@code owner}, about to run with {@code args}. */
    MethodFrame methodFrame(Class<?> owner, String name, Object[] args) {
        MethodModel mm = GeneratedCode.model(owner).methods().stream().filter(m -> m.methodName().equalsString(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException(owner.getName() + " has no method " + name));
        return new MethodFrame(owner, codes.computeIfAbsent(mm, FlatCode::new), linkers.computeIfAbsent(owner, Linker::new), args);
    }

    /** Runs {@code f} to its end, stopping where the commands say; what it returned. */
    Object run(DebugFrame f) {
        frames.push(f);
        try {
            while (!f.isDone()) {
                if (!quit && stopsAt(f)) prompt(f);
                if (!quit && !continuing) remaining--;
                f.step();
            }
            return f.result();
        } finally {
            frames.pop();
        }
    }

    private boolean stopsAt(DebugFrame f) {
        if (f.isDone()) return false;
        return continuing ? breakpoints.getOrDefault(f.key(), Set.of()).contains(f.bciAt(f.current())) : remaining <= 0;
    }

    private void prompt(DebugFrame f) {
        if (f != shown) {
            out.println(f.title());
            shown = f;
        }
        out.print(f.rows(f.current(), f.current(), marks(f)));
        while (true) {
            String line = commands.next();
            if (line == null) {
                out.println("(no more commands: the call runs to its end)");
                quit = true;
                return;
            }
            if (line.isBlank()) continue;
            Command c;
            try {
                c = Command.parse(line);
            } catch (Command.BadCommand e) {
                out.println(e.getMessage());
                continue;
            }
            switch (c) {
                case Command.Step s -> {
                    remaining = s.count();
                    continuing = false;
                    return;
                }
                case Command.Continue k -> {
                    continuing = true;
                    return;
                }
                case Command.Quit q -> {
                    out.println("quit: the call runs to its end without stopping");
                    quit = true;
                    return;
                }
                case Command.ListCode l -> list(f, l);
                case Command.Break b -> breakpoint(f, b.bci());
                case Command.Locals l -> print("locals of " + f.name() + ":", f.locals());
                case Command.Stack s -> print("stack of " + f.name() + " (bottom first):", f.stack());
                case Command.Help h -> out.println(Command.HELP);
            }
        }
    }

    private Set<Integer> marks(DebugFrame f) { return breakpoints.getOrDefault(f.key(), Set.of()); }

    private void print(String heading, List<String> lines) {
        out.println(heading);
        if (lines.isEmpty()) out.println("  (empty)");
        lines.forEach(l -> out.println("  " + l));
    }

    /** {@code l}: around the current instruction; {@code l from}: 11 instructions from bci {@code from}; {@code l from, to}: that bci range. */
    private void list(DebugFrame f, Command.ListCode l) {
        int from, to;
        if (l.from() == null) {
            from = Math.max(0, f.current() - CONTEXT);
            to = f.current() + CONTEXT;
        } else {
            if (l.from() >= f.length()) {
                out.println("l " + l.from() + ": " + f.name() + " ends at bci " + (f.length() - 1) + "; list from 0 to " + (f.length() - 1));
                return;
            }
            if (l.to() != null && l.to() < l.from()) {
                out.println("l " + l.from() + ", " + l.to() + ": the end (" + l.to() + ") is before the start (" + l.from() + ")");
                return;
            }
            from = 0;
            while (from < f.count() - 1 && f.bciAt(from) < l.from()) from++;
            if (l.to() == null) {
                to = from + 2 * CONTEXT;
            } else {
                to = from;
                while (to + 1 < f.count() && f.bciAt(to + 1) <= l.to()) to++;
            }
        }
        out.println(f.title());
        out.print(f.rows(from, Math.min(to, f.count() - 1), marks(f)));
    }

    /** {@code b bci}: a breakpoint at an instruction of the current method; {@code b}: the breakpoints of this session. */
    private void breakpoint(DebugFrame f, Integer bci) {
        if (bci == null) {
            if (breakpoints.values().stream().allMatch(Set::isEmpty)) out.println("no breakpoints");
            breakpoints.forEach((key, bcis) -> bcis.forEach(b -> out.println("breakpoint at bci " + b + " of " + breakpointNames.get(key))));
            return;
        }
        if (bci >= f.length()) {
            out.println("b " + bci + ": beyond the end of " + f.name() + ", whose last instruction is at bci " + f.bciAt(f.count() - 1));
            return;
        }
        if (f.indexAtBci(bci) < 0) {
            int after = 0;
            while (after < f.count() && f.bciAt(after) < bci) after++;
            out.println("b " + bci + ": no instruction of " + f.name() + " starts at bci " + bci + "; the nearest start at " + f.bciAt(after - 1)
                    + (after < f.count() ? " and " + f.bciAt(after) : ""));
            return;
        }
        breakpoints.computeIfAbsent(f.key(), k -> new TreeSet<>()).add(bci);
        breakpointNames.put(f.key(), f.title().split("  ")[0]);
        out.println("breakpoint at bci " + bci + " of " + f.name());
    }
}
