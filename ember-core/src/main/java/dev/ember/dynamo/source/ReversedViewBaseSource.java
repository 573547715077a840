package dev.ember.dynamo.source;

import java.util.List;

/**
 * The list a {@code reversed()} view at {@code view} shows backwards: {@code L['xs'].reversed()}.
 * The view's class (ReverseOrderListView) is the same over every list, so what it does (refuse
 * writes, what an index out of range throws) is guarded on its base's class, read again this way.
 */
public record ReversedViewBaseSource(Source view) implements Source {
    @Override
    public String name() { return view.name() + ".reversed()"; }

    @Override
    public String shortName() { return view.shortName() + ".reversed()"; }

    @Override
    public Object read(Object[] frame) {
        // reversed() of a reversed view is the list under it (JDK 21's ReverseOrderListView); nothing for any other value
        return view.read(frame) instanceof List<?> l && isReversedView(l) ? l.reversed() : null;
    }

    /** Whether {@code l} is one of the JDK's reversed() views of a list. */
    public static boolean isReversedView(List<?> l) { return l.getClass().getName().startsWith("java.util.ReverseOrderListView"); }
}
