package dev.ember.report;

/**
 * HTML pieces shared by the report's pages: escaping, the page frame with its inline style, status badges.
 * {@link #escape} and {@link #standalonePage} are public so other self-contained pages of the project (the
 * benchmark dashboard) look like the report without copying its style.
 */
public final class Html {
    private Html() {}

    /** All styling, inline in every page so a page opens alone from disk, with no network. */
    private static final String CSS = """
            :root { color-scheme: light; }
            body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328;
                   margin: 0; background: #f6f8fa; }
            header { background: #24292f; color: #fff; padding: 10px 24px; display: flex; gap: 24px; align-items: baseline; }
            header .brand { font-weight: 700; font-size: 17px; }
            header a { color: #c9d1d9; text-decoration: none; }
            header a:hover { color: #fff; text-decoration: underline; }
            main { max-width: 1200px; margin: 0 auto; padding: 8px 24px 40px; }
            h1 { font-size: 24px; margin: 18px 0 6px; }
            h2 { font-size: 18px; margin: 26px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
            a { color: #0969da; }
            .summary { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
            .card { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
            .card .n { font-size: 22px; font-weight: 700; display: block; }
            .card .l { color: #57606a; font-size: 13px; }
            table { border-collapse: collapse; background: #fff; margin: 8px 0; }
            th, td { border: 1px solid #d0d7de; padding: 5px 10px; text-align: left; vertical-align: top; }
            th { background: #eaeef2; font-weight: 600; }
            td.num { text-align: right; font-variant-numeric: tabular-nums; }
            pre { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; overflow-x: auto;
                  font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; margin: 6px 0; }
            td pre { margin: 0; border: 0; padding: 0; background: transparent; white-space: pre-wrap; }
            code { font: 13px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
            .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font: 600 12px/18px ui-monospace, "DejaVu Sans Mono", monospace;
                     text-decoration: none; white-space: nowrap; }
            a.badge:hover { filter: brightness(0.9); }
            .status-ok { background: #1a7f37; color: #fff; }
            .status-break { background: #f0b429; color: #1f2328; }
            .status-failed { background: #cf222e; color: #fff; }
            .status-empty { background: #d0d7de; color: #1f2328; }
            .status-missing { background: #8250df; color: #fff; }
            .legend span.badge { margin-right: 6px; }
            .stack-trie { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; overflow-x: auto; }
            .stack-trie ul { list-style: none; margin: 0; padding-left: 0; }
            .stack-trie ul ul { padding-left: 22px; border-left: 2px solid #d8dee4; margin-left: 6px; }
            .stack-trie li { margin: 3px 0; white-space: nowrap; }
            .stack-trie .frame { font: 13px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
            .stack-trie code.loc { color: #57606a; margin-left: 18px; }
            .warning { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 8px 14px; margin: 12px 0; }
            .warning ul { margin: 4px 0; }
            .muted { color: #57606a; }
            .two { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
            .two > div { min-width: 0; }
            ul.artifacts li { margin: 2px 0; }
            mark.diff { background: #ffd8b5; color: inherit; font-weight: 600; }
            mark.del { background: #ffcecb; color: inherit; }
            mark.add { background: #aceebb; color: inherit; }
            """;

    /** {@code s} with the five HTML-special characters escaped, safe in text and in quoted attributes. */
    public static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** A whole page; {@code root} is the relative path to the report's root ({@code ""} or {@code "../"}). */
    static String page(String title, String root, String body) {
        return frame("Ember compile report", "<a href=\"" + root + "index.html\">Overview</a>"
                + "<a href=\"" + root + "failures_and_restarts.html\">Failures and restarts</a>", title, "", body);
    }

    /**
     * A whole page in the report's style that opens alone from disk: {@code brand} in the header bar,
     * {@code extraCss} after the shared style (rules only this page needs), {@code bodyHtml} already escaped.
     */
    public static String standalonePage(String brand, String title, String extraCss, String bodyHtml) {
        return frame(brand, "", title, extraCss, bodyHtml);
    }

    private static String frame(String brand, String navHtml, String title, String extraCss, String body) {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>" + escape(title) + "</title>\n<style>\n" + CSS + extraCss + "</style>\n</head>\n<body>\n"
                + "<header><span class=\"brand\">" + escape(brand) + "</span>" + navHtml + "</header>\n"
                + "<main>\n" + body + "</main>\n</body>\n</html>\n";
    }

    static String pre(String text) {
        return "<pre>" + escape(text) + "</pre>\n";
    }

    /**
     * {@code lines} in a {@code <pre>}, each line whose {@code same} is false marked with
     * {@code markClass}: {@code diff} (differs), {@code del} (removed), {@code add} (added).
     */
    static String markedLines(java.util.List<String> lines, boolean[] same, String markClass) {
        StringBuilder b = new StringBuilder("<pre>");
        for (int i = 0; i < lines.size(); i++) {
            String l = escape(lines.get(i));
            b.append(same[i] ? l : "<mark class=\"" + markClass + "\">" + l + "</mark>").append('\n');
        }
        return b.append("</pre>\n").toString();
    }

    static String badge(Status s) {
        return "<span class=\"badge " + s.cssClass() + "\" title=\"" + escape(s.meaning()) + "\">" + escape(s.label()) + "</span>";
    }

    /** The compile id as a badge coloured by status, linking to the compilation's page. */
    static String badgeLink(Compilation c, String root) {
        Status s = c.status();
        return "<a class=\"badge " + s.cssClass() + "\" href=\"" + root + c.folder + "/index.html\" title=\""
                + escape(s.label() + ": " + c.method()) + "\">" + escape(c.label) + "</a>";
    }
}
