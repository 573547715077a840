package dev.ember.inductor;

import dev.ember.fx.Node;
import dev.ember.inductor.ir.Sizes;
import dev.ember.ops.OpOverload;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.StridedViewOps;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The layout of a view whose sizes depend on size symbols: the view ops' meta functions, restated
 * over {@link SymInt} sizes and strides. The view's own sizes come from the node's symbolic metadata
 * (the graph's shape propagation computed them); this adds the strides and offset, which depend on
 * the layout the inductor gave the viewed value.
 */
final class SymbolicViews {
    private SymbolicViews() {}

    /** The view's layout, or null for a reshape of {@code in} that needs a copy first. */
    static SymShape layout(Node n, OpOverload op, List<Object> args, SymShape in, SymInt[] outSizes) {
        SymInt[] sizes = in.sizes(), strides = in.strides();
        int nd = sizes.length;
        if (op == ShapeOps.VIEW || op == ShapeOps.RESHAPE) {
            if (Arrays.equals(sizes, outSizes)) return in;
            return Sizes.isContiguous(sizes, strides) ? new SymShape(outSizes, Sizes.contiguousStrides(outSizes), in.offset()) : null;
        }
        if (op == ShapeOps.PERMUTE) {
            int[] dims = dims(args.get(1), nd);
            SymInt[] sz = new SymInt[nd], st = new SymInt[nd];
            for (int i = 0; i < nd; i++) {
                sz[i] = sizes[dims[i]];
                st[i] = strides[dims[i]];
            }
            return new SymShape(sz, st, in.offset());
        }
        if (op == ShapeOps.TRANSPOSE || op == ShapeOps.T) {
            if (nd < 2) return in;
            int a = op == ShapeOps.T ? 0 : wrap(args.get(1), nd), b = op == ShapeOps.T ? 1 : wrap(args.get(2), nd);
            SymInt[] sz = sizes.clone(), st = strides.clone();
            sz[a] = sizes[b];
            sz[b] = sizes[a];
            st[a] = strides[b];
            st[b] = strides[a];
            return new SymShape(sz, st, in.offset());
        }
        if (op == ShapeOps.UNSQUEEZE) {
            int d = wrap(args.get(1), nd + 1);
            List<SymInt> sz = new ArrayList<>(List.of(sizes)), st = new ArrayList<>(List.of(strides));
            sz.add(d, Sizes.ONE);
            st.add(d, d < nd ? Sizes.times(sizes[d], strides[d]) : Sizes.ONE);
            return new SymShape(sz.toArray(SymInt[]::new), st.toArray(SymInt[]::new), in.offset());
        }
        if (op == ShapeOps.SQUEEZE || op == ShapeOps.SQUEEZE_DIM) {
            int only = op == ShapeOps.SQUEEZE_DIM && nd > 0 ? wrap(args.get(1), nd) : -1;
            List<SymInt> sz = new ArrayList<>(), st = new ArrayList<>();
            for (int i = 0; i < nd; i++) {
                if (Sizes.is(sizes[i], 1) && (only < 0 || only == i)) continue;
                sz.add(sizes[i]);
                st.add(strides[i]);
            }
            return new SymShape(sz.toArray(SymInt[]::new), st.toArray(SymInt[]::new), in.offset());
        }
        if (op == ShapeOps.EXPAND) {
            SymInt[] st = new SymInt[outSizes.length];
            int lead = outSizes.length - nd;
            for (int i = 0; i < outSizes.length; i++) {
                boolean broadcast = i < lead || (Sizes.is(sizes[i - lead], 1) && !Sizes.is(outSizes[i], 1));
                st[i] = broadcast ? Sizes.ZERO : strides[i - lead];
            }
            return new SymShape(outSizes, st, in.offset());
        }
        if (op == ShapeOps.SLICE || op == ShapeOps.NARROW || op == ShapeOps.SELECT) {
            int d = wrap(args.get(1), nd);
            SymInt start = op == ShapeOps.SLICE && args.get(2) == null ? Sizes.ZERO : index(args.get(2), sizes[d]);
            if (op == ShapeOps.SLICE && args.get(2) instanceof Number k && !sizes[d].isConstant() && Math.abs(k.longValue()) > 2) {
                // eager clamps the start to the dim: where the symbol (at least 2) is below it, the offset would be another
                throw new Lowering.NotSizeGeneric(n, "a slice from " + k + " of a dim of size " + sizes[d] + " (clamped for small sizes)");
            }
            SymInt offset = Sizes.plus(in.offset(), Sizes.times(start, strides[d]));
            if (op == ShapeOps.SELECT) {
                List<SymInt> sz = new ArrayList<>(List.of(sizes)), st = new ArrayList<>(List.of(strides));
                sz.remove(d);
                st.remove(d);
                return new SymShape(sz.toArray(SymInt[]::new), st.toArray(SymInt[]::new), offset);
            }
            SymInt[] st = strides.clone();
            if (op == ShapeOps.SLICE) st[d] = Sizes.times(st[d], SymInt.of(((Number) args.get(4)).longValue()));
            return new SymShape(outSizes, st, offset);
        }
        if (op == StridedViewOps.UNFOLD && args.get(3) instanceof Number step) {
            // the windows step along the dim by step elements of it; the new last dim steps through one window
            int d = wrap(args.get(1), nd);
            SymInt[] st = Arrays.copyOf(strides, nd + 1);
            st[nd] = nd == 0 ? Sizes.ONE : strides[d];
            if (nd > 0) st[d] = Sizes.times(strides[d], SymInt.of(step.longValue()));
            return new SymShape(outSizes, st, in.offset());
        }
        throw new Lowering.NotSizeGeneric(n, "no size-generic layout rule for the view op " + op.name());
    }

    /** An index argument: a constant (negative counts from the end of a dim of {@code size}) or a symbolic one. */
    private static SymInt index(Object a, SymInt size) {
        if (a instanceof SymInt s) return s;
        long i = ((Number) a).longValue();
        return i < 0 ? Sizes.plus(size, SymInt.of(i)) : SymInt.of(i);
    }

    private static int wrap(Object dim, int nd) {
        int d = ((Number) dim).intValue();
        return d < 0 ? d + Math.max(nd, 1) : d;
    }

    private static int[] dims(Object list, int nd) {
        int[] raw = switch (list) {
            case int[] a -> a;
            case long[] a -> Arrays.stream(a).mapToInt(Math::toIntExact).toArray();
            case List<?> l -> l.stream().mapToInt(x -> ((Number) x).intValue()).toArray();
            default -> throw new IllegalArgumentException("expected dims, got " + list);
        };
        return Arrays.stream(raw).map(d -> d < 0 ? d + nd : d).toArray();
    }
}
