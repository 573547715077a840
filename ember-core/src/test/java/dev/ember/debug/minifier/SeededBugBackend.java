package dev.ember.debug.minifier;

import dev.ember.fx.Backend;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Interpreter;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.tensor.FakeTensor;

import java.util.List;
import java.util.Map;

/** A backend that runs the graph in the interpreter, right except for one {@link SeededBug}. */
record SeededBugBackend(SeededBug bug) implements Backend {
    @Override
    public CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs) {
        if (bug == SeededBug.CRASH_COMPILING && !gm.graph().findNodes(NodeKind.CALL_FUNCTION, bug.op()).isEmpty()) {
            throw new IllegalStateException("seeded bug: no lowering for " + bug.opName);
        }
        Interpreter broken = new Interpreter(gm) {
            @Override
            protected Object callFunction(Node n, List<Object> args, Map<String, Object> kwargs) {
                Object right = super.callFunction(n, args, kwargs);
                return bug.hits(n) ? bug.broken(args, right) : right;
            }
        };
        return inputs -> {
            Object out = broken.run(inputs);
            return out instanceof List<?> l ? l.toArray() : new Object[] {out};
        };
    }
}
