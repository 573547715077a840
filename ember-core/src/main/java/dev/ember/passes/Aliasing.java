package dev.ember.passes;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Node;
import dev.ember.ops.NormOps;
import dev.ember.ops.OpOverload;

import java.util.Arrays;
import java.util.List;

/**
 * What a rewrite must know before it moves a read: which nodes may write into memory. The captured
 * graph still holds mutations (pre-grad runs before functionalization), so the passes ask here.
 */
final class Aliasing {
    private Aliasing() {}

    /** Whether {@code u} may write into one of its inputs. */
    static boolean writes(Node u) { return !writtenBy(u).isEmpty(); }

    /**
     * The inputs {@code u} may write into: an in-place or out= op's written argument, batch_norm's
     * running statistics in training (its schema does not say so), an in-place method's receiver;
     * anything a module call or another function is given, as nothing says what they do with it.
     */
    private static List<Node> writtenBy(Node u) {
        return switch (u.kind()) {
            case CALL_METHOD -> ((String) u.target()).endsWith("_") && u.arg(0) instanceof Node self ? List.of(self) : List.of();
            case CALL_MODULE -> u.allInputNodes();
            case CALL_FUNCTION -> switch (u.target()) {
                case OpOverload op when op == NormOps.BATCH_NORM -> Boolean.TRUE.equals(u.arg(5)) ? nodes(u.arg(3), u.arg(4)) : List.of();
                case OpOverload op when op.writtenArg() >= 0 -> writtenArgument(u, op);
                case OpOverload op -> List.of();
                default -> u.target() == BuiltinFunctions.GETITEM ? List.of() : u.allInputNodes();
            };
            default -> List.of();
        };
    }

    private static List<Node> writtenArgument(Node u, OpOverload op) {
        Object written = op.writtenArg() < u.args().size() ? u.arg(op.writtenArg()) : u.kwargs().get(op.schema().param(op.writtenArg()).name());
        return nodes(written);
    }

    private static List<Node> nodes(Object... values) {
        return Arrays.stream(values).filter(v -> v instanceof Node).map(v -> (Node) v).toList();
    }
}
