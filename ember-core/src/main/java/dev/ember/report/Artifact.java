package dev.ember.report;

/**
 * One payload of a compilation, shown on its own page.
 *
 * @param name     what it is: {@code dynamo_output_graph}, {@code dynamo_graph_break_reason}, …
 * @param page     its page's file name in the compilation's folder
 * @param encoding {@code string} or {@code json}
 * @param content  the payload text
 * @param event    the event it came from
 */
record Artifact(String name, String page, String encoding, String content, TraceEvent event) {}
