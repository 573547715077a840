package dev.ember.dynamo;

import dev.ember.fx.CompiledGraph;
import dev.ember.fx.PreparedGraph;
import dev.ember.Cond;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.LambdaVariable;
import dev.ember.dynamo.variables.ListVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.fx.GraphFunction;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;

import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@link Cond#cond} while tracing: a tensor predicate makes a {@code higher_order.cond} node holding
 * the two branches traced into subgraphs; a constant predicate inlines the chosen branch.
 */
final class CondOp {
    private CondOp() {}

    private static final MethodTypeDesc BRANCH_APPLY = MethodTypeDesc.of(ClassDesc.of(Tensor.class.getName()), ClassDesc.of(List.class.getName()));

    /** The cond node's target: runs the chosen subgraph on the operands. */
    record CondFunction(GraphModule trueGraph, GraphModule falseGraph, CompiledGraph trueRun, CompiledGraph falseRun) implements GraphFunction {
        @Override
        public String name() { return "cond"; }

        @Override
        public String qualifiedName() { return "higher_order.cond"; }

        /** The chosen branch's outputs as a list, as Dynamo's cond returns a tuple that a getitem unpacks. */
        @Override
        public Object apply(List<Object> args, Map<String, Object> kwargs) {
            Object[] operands = args.subList(1, args.size()).toArray();
            boolean p = ((Tensor) args.getFirst()).asBoolean();
            return List.of((p ? trueRun : falseRun).run(operands));
        }

        /** Both branches return the same metadata (checked when tracing), so the true branch's fake outputs answer. */
        @Override
        public Object applyFake(List<Object> args, Map<String, Object> kwargs) {
            Object out = ShapeProp.propagate(trueGraph, args.subList(1, args.size()).toArray());
            return out instanceof List<?> l ? List.copyOf(l) : List.of(out);
        }

        @Override
        public String toString() { return qualifiedName(); }
    }

    static VariableTracker trace(TraceContext ctx, List<VariableTracker> args) {
        VariableTracker pred = args.get(0), trueFn = args.get(1), falseFn = args.get(2);
        List<VariableTracker> operands = Containers.itemsOf(ctx, args.get(3));
        if (pred instanceof ConstantVariable c && c.value() instanceof Boolean b) {
            VariableTracker chosen = b ? trueFn : falseFn;
            return Invoker.invokeVirtual(ctx, Cond.Branch.class, "apply", BRANCH_APPLY, chosen, List.of(args.get(3)));
        }
        if (!(pred instanceof TensorVariable p)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Cond.cond: pred must be a Boolean or a Tensor, got " + pred.describe());
        }
        List<TensorVariable> ops = new ArrayList<>();
        for (VariableTracker o : operands) {
            if (!(o instanceof TensorVariable t)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Cond.cond: operands must be tensors, got " + o.describe());
            ops.add(t);
        }
        Branch t = branch(ctx, "true", trueFn, ops), f = branch(ctx, "false", falseFn, ops);
        if (t.out.dtype() != f.out.dtype() || !Arrays.equals(t.out.shape(), f.out.shape())) {
            throw new CondBranchMismatch("Cond.cond: the branches return different tensors: true returns " + t.out.meta().describe()
                    + ", false returns " + f.out.meta().describe() + "; both branches must return the same dtype and shape (at "
                    + ctx.currentLocation() + ")");
        }
        CondFunction fn = new CondFunction(t.gm, f.gm, new PreparedGraph(t.gm), new PreparedGraph(f.gm));
        List<Object> graphArgs = new ArrayList<>();
        graphArgs.add(p.node());
        for (TensorVariable o : ops) graphArgs.add(o.node());
        // a list of the one output and its getitem, as Dynamo's graph holds cond (and counts the getitem)
        FakeTensor out = new FakeTensor(t.out.meta());
        Node cond = ctx.graph.callFunction(fn, graphArgs, List.of(out), ctx.currentLocation());
        return new TensorVariable(ctx.graph.getItem(cond, 0, out, ctx.currentLocation()), out, null);
    }

    private record Branch(GraphModule gm, FakeTensor out) {}

    /** Traces one branch into a graph of its own whose placeholders are the operands. */
    private static Branch branch(TraceContext ctx, String which, VariableTracker fn, List<TensorVariable> operands) {
        if (!(fn instanceof LambdaVariable l)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Cond.cond: the " + which + " branch must be a lambda or method reference, got " + fn.describe());
        }
        for (VariableTracker c : l.captured()) {
            if (c instanceof TensorVariable) {
                throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "Cond.cond: the " + which + " branch captures a tensor; pass it in the operands list");
            }
        }
        TraceContext sub = new TraceContext(ctx.options, ctx.specialized, ctx.changedInputs);
        List<VariableTracker> items = new ArrayList<>();
        for (int i = 0; i < operands.size(); i++) {
            FakeTensor fake = operands.get(i).fake();
            items.add(new TensorVariable(sub.graph.placeholder("arg" + i, fake, null), fake, null));
        }
        VariableTracker ret = Invoker.invokeVirtual(sub, Cond.Branch.class, "apply", BRANCH_APPLY, l, List.of(new ListVariable(items, false, null)));
        if (!(ret instanceof TensorVariable out)) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_RETURN, "Cond.cond: the " + which + " branch returns " + ret.describe() + ", not a tensor");
        }
        if (!sub.sideEffects.isEmpty()) {
            throw ctx.unsupported(GraphBreakType.SIDE_EFFECT, "Cond.cond: the " + which + " branch has side effects (mutations or prints), which a branch in a graph cannot hold");
        }
        sub.graph.guards().forEach(ctx.graph::addGuard);
        Node o = out.node();
        sub.graph.output(List.of(o));
        return new Branch(sub.graph.toGraphModule(), out.fake());
    }
}
