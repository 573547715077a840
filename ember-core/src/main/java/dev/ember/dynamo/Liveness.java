package dev.ember.dynamo;

import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Control flow of a method's bytecode for resume methods. Which local slots are live before each instruction of a method: read on some path before being
 * written. The verifier's stack-map frames keep every local ever assigned, dead or not; a resume
 * method that took all of those would carry (and guard) values the rest of the method never reads,
 * a loop counter of a finished loop, a temporary of the iteration before.
 */
final class Liveness {
    private Liveness() {}

    /** {@code liveIn[i]}: the slots live before instruction {@code i} (a wide value by its first slot). */
    static BitSet[] of(MethodCode code) {
        int n = code.instructions.size();
        List<List<Integer>> successors = new ArrayList<>(n);
        for (int i = 0; i < n; i++) successors.add(successors(code, i));
        BitSet[] liveIn = new BitSet[n];
        for (int i = 0; i < n; i++) liveIn[i] = new BitSet();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = n - 1; i >= 0; i--) {
                BitSet live = new BitSet();
                for (int s : successors.get(i)) live.or(liveIn[s]);
                Instruction ins = code.instructions.get(i);
                switch (ins) {
                    case StoreInstruction st -> live.clear(st.slot());
                    case LoadInstruction ld -> live.set(ld.slot());
                    case IncrementInstruction inc -> live.set(inc.slot());
                    default -> { }
                }
                // a handler may run before this instruction's effect: what it reads is live here too
                for (int h : code.handlersCovering(i)) live.or(liveIn[h]);
                if (!live.equals(liveIn[i])) {
                    liveIn[i] = live;
                    changed = true;
                }
            }
        }
        return liveIn;
    }

    /** The instructions that run on some path from instruction {@code start}, handlers of the try blocks met included. */
    static BitSet reachableFrom(MethodCode code, int start) {
        BitSet seen = new BitSet();
        java.util.ArrayDeque<Integer> work = new java.util.ArrayDeque<>(List.of(start));
        while (!work.isEmpty()) {
            int i = work.pop();
            if (seen.get(i)) continue;
            seen.set(i);
            work.addAll(successors(code, i));
            work.addAll(code.handlersCovering(i));
        }
        return seen;
    }

    private static List<Integer> successors(MethodCode code, int i) {
        Instruction ins = code.instructions.get(i);
        List<Integer> out = new ArrayList<>();
        switch (ins) {
            case BranchInstruction b -> out.add(code.indexOf(b.target()));
            case TableSwitchInstruction sw -> addSwitch(code, out, sw.cases(), sw.defaultTarget());
            case LookupSwitchInstruction sw -> addSwitch(code, out, sw.cases(), sw.defaultTarget());
            default -> { }
        }
        boolean next = switch (ins.opcode().kind()) {
            case BRANCH -> ins.opcode() != Opcode.GOTO && ins.opcode() != Opcode.GOTO_W;
            case RETURN, THROW_EXCEPTION, TABLE_SWITCH, LOOKUP_SWITCH -> false;
            default -> true;
        };
        if (next && i + 1 < code.instructions.size()) out.add(i + 1);
        return out;
    }

    private static void addSwitch(MethodCode code, List<Integer> out, List<SwitchCase> cases, Label defaultTarget) {
        for (SwitchCase c : cases) out.add(code.indexOf(c.target()));
        out.add(code.indexOf(defaultTarget));
    }
}
