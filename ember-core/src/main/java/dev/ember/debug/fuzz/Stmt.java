package dev.ember.debug.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One statement of a generated program. */
public sealed interface Stmt {
    /** The variables it reads (in-place targets included: they are read before they are written). */
    List<Var> reads();

    /** The variable it defines, or null. */
    Var defines();

    /** The same statement reading {@code sub.get(v)} wherever it read {@code v}. */
    Stmt rewire(Map<Var, Var> sub);

    /** Its Java lines, without indentation. */
    String java();

    /** A member of the program's class this statement uses (a module it calls), or null. */
    default String member() { return null; }

    /** {@code Tensor out = call;} */
    record Let(Var out, Call call) implements Stmt {
        public List<Var> reads() { return call.args(); }

        public Var defines() { return out; }

        public Stmt rewire(Map<Var, Var> sub) { return new Let(out, call.rewire(sub)); }

        public String java() { return "Tensor " + out.name() + " = " + call.java() + ";"; }
    }

    /**
     * {@code Tensor out = call;} where the call is a module's, held in a static field of the program
     * class that {@code member} declares (its construction and its parameters' values, drawn from a
     * generator of their own so a repro rebuilds the same weights), as a user's model holds its layers;
     * {@code field} is the field's name.
     */
    record Held(Var out, Call call, String field, String member) implements Stmt {
        public List<Var> reads() { return call.args(); }

        public Var defines() { return out; }

        public Stmt rewire(Map<Var, Var> sub) { return new Held(out, call.rewire(sub), field, member); }

        public String java() { return "Tensor " + out.name() + " = " + call.java() + ";"; }
    }

    /** {@code call;} writing into {@code target} (one of the call's arguments): an in-place op or an out= form. */
    record Mutate(Var target, Call call) implements Stmt {
        public List<Var> reads() { return call.args(); }

        public Var defines() { return null; }

        public Stmt rewire(Map<Var, Var> sub) { return new Mutate(sub.getOrDefault(target, target), call.rewire(sub)); }

        public String java() { return call.java() + ";"; }
    }

    /**
     * A recurrent loop: {@code out} starts as {@code init} and {@code steps} times becomes
     * {@code step}, whose template reads the state as {@code $h} and the step index as {@code t}
     * (an RNN cell feeding its output back in).
     */
    record Loop(Var out, Var init, int steps, Call step) implements Stmt {
        public List<Var> reads() {
            List<Var> r = new ArrayList<>(step.args());
            r.add(init);
            return r;
        }

        public Var defines() { return out; }

        public Stmt rewire(Map<Var, Var> sub) { return new Loop(out, sub.getOrDefault(init, init), steps, step.rewire(sub)); }

        public String java() {
            return "Tensor " + out.name() + " = " + init.name() + ";\n"
                    + "for (int t = 0; t < " + steps + "; t++) " + out.name() + " = " + step.java().replace("$h", out.name()) + ";";
        }
    }

    /** {@code Ember.graphBreak();}: capture stops here and resumes after it. */
    record Break() implements Stmt {
        public List<Var> reads() { return List.of(); }

        public Var defines() { return null; }

        public Stmt rewire(Map<Var, Var> sub) { return this; }

        public String java() { return "Ember.graphBreak();"; }
    }
}
