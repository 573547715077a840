package dev.ember.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The user stacks of all compilations merged into a tree: common outer frames once, a branch where stacks part.
 * Each compilation hangs, as a badge coloured by its status, on the frame where its stack ends. Where a frame
 * has one child the list goes straight on; where it has several, each gets its own indented sub-list.
 */
final class StackTrie {
    private final Map<Frame, StackTrie> children = new LinkedHashMap<>();
    private final List<Compilation> terminals = new ArrayList<>();

    void insert(List<Frame> stack, Compilation c) {
        StackTrie node = this;
        for (Frame f : stack) node = node.children.computeIfAbsent(f, k -> new StackTrie());
        node.terminals.add(c);
    }

    boolean isEmpty() {
        return children.isEmpty() && terminals.isEmpty();
    }

    /** The trie as nested HTML lists; badges link to each compilation's page. */
    String toHtml() {
        StringBuilder sb = new StringBuilder("<div class=\"stack-trie\"><ul>\n");
        render(sb);
        return sb.append("</ul></div>\n").toString();
    }

    private void render(StringBuilder sb) {
        for (Map.Entry<Frame, StackTrie> e : children.entrySet()) {
            StackTrie child = e.getValue();
            String item = badges(child.terminals) + frameHtml(e.getKey());
            if (children.size() > 1) {
                sb.append("<li class=\"branch\">").append(item).append("\n<ul>\n");
                child.render(sb);
                sb.append("</ul></li>\n");
            } else {
                sb.append("<li>").append(item).append("</li>\n");
                child.render(sb);
            }
        }
    }

    private static String badges(List<Compilation> cs) {
        StringBuilder sb = new StringBuilder();
        for (Compilation c : cs) sb.append(Html.badgeLink(c, "")).append(' ');
        return sb.toString();
    }

    private static String frameHtml(Frame f) {
        String text = "<span class=\"frame\">" + Html.escape(f.file()) + ":" + f.line() + " in <b>" + Html.escape(f.name()) + "</b></span>";
        return f.loc() == null ? text : text + "<br><code class=\"loc\">" + Html.escape(f.loc().strip()) + "</code>";
    }
}
