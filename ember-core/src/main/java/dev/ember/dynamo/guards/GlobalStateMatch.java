package dev.ember.dynamo.guards;

import dev.ember.autograd.GradMode;
import dev.ember.dynamo.source.Source;
import dev.ember.tensor.Defaults;

import java.util.Objects;

/** Process or thread state the trace depended on: grad mode and the default dtype. */
public record GlobalStateMatch(State state, Object expected) implements Guard {

    /** The pieces of global state compiled code depends on. */
    public enum State {
        GRAD_MODE("torch.is_grad_enabled()") { Object read() { return GradMode.isEnabled(); } },
        DEFAULT_DTYPE("torch.get_default_dtype()") { Object read() { return Defaults.dtype(); } };

        private final String label;

        State(String label) { this.label = label; }

        abstract Object read();
    }

    public static GlobalStateMatch current(State state) { return new GlobalStateMatch(state, state.read()); }

    @Override
    public String kind() { return "GLOBAL_STATE"; }

    @Override
    public Source source() { return null; }

    @Override
    public Object read(Object[] frame) { return state.read(); }

    @Override
    public boolean test(Object value) { return Objects.equals(expected, value); }

    @Override
    public String explainFailure(Object value) {
        return "global state changed: " + state.label + " == " + expected + " failed: actual " + value;
    }

    @Override
    public String describe() { return "GLOBAL_STATE: " + state.label + " == " + expected; }
}
