package dev.ember.inductor;

import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Value;
import dev.ember.ops.StridedViewOps;

import java.util.List;

/**
 * {@code as_strided} in compiled code. Its sizes, strides and offset are positions in the input's
 * storage, not in the input: eager's answer depends on how the memory under the input is laid out,
 * which the inductor knows only for a graph input (or parameter) and the views of it — there the
 * buffer is the caller's storage itself. Such a call runs the eager kernel on that very storage (an
 * extern; its bound check is eager's). Of any value the graph computes, the inductor's buffer
 * layout need not be eager's storage (a fused value has no buffer, a view of it another base), so
 * such a graph runs in the interpreter rather than risk another answer.
 */
final class AsStridedRule {
    private AsStridedRule() {}

    static Object lower(Lowering l, Node n, List<Object> args) {
        if (args.get(0) instanceof Value.Stored s && s.buffer().storage().kind() == Buffer.Kind.INPUT && viewsAGraphInput(n.arg(0))) {
            return l.extern(n, StridedViewOps.AS_STRIDED, args, null);
        }
        throw new Lowering.Unsupported("as_strided at '" + n + "' views a value the graph computes: its storage layout is eager's choice, not known here"
                + (n.sourceLocation() == null ? "" : " [" + n.sourceLocation().fileAndLine() + "]"));
    }

    /** Whether {@code arg} is a graph input or parameter, or a chain of views of one. */
    private static boolean viewsAGraphInput(Object arg) {
        if (!(arg instanceof Node x)) return false;
        while (x.kind() == NodeKind.CALL_FUNCTION && x.aliasesFirstArgument() && x.args().getFirst() instanceof Node in) x = in;
        return x.kind() == NodeKind.PLACEHOLDER || x.kind() == NodeKind.GET_ATTR;
    }
}
