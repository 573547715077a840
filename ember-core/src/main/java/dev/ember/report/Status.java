package dev.ember.report;

/** How a compilation ended, as the report colours it. */
public enum Status {
    FAILED("failed", "status-failed", "compilation raised an error; the method ran eagerly"),
    GRAPH_BREAK("graph break", "status-break", "compiled, with a graph break (or a restart of the analysis)"),
    NO_METRICS("no metrics", "status-missing", "no compilation_metrics event: the compilation did not finish, or the process died"),
    EMPTY("empty graph", "status-empty", "compiled, but the graph has no ops"),
    COMPILED("compiled", "status-ok", "compiled into one graph");

    private final String label;
    private final String cssClass;
    private final String meaning;

    Status(String label, String cssClass, String meaning) {
        this.label = label;
        this.cssClass = cssClass;
        this.meaning = meaning;
    }

    public String label() { return label; }

    public String cssClass() { return cssClass; }

    public String meaning() { return meaning; }
}
