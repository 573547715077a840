package dev.ember.logging;

/**
 * One name {@code EMBER_LOGS} accepts. A <em>component</em> ({@code dynamo}, {@code aot}, {@code inductor},
 * {@code dynamic}) has a level; an <em>artifact</em> ({@code graph_breaks}, {@code guards}, …) is one kind of
 * output of a component, switched on by naming it, or by setting its component to DEBUG unless it is off by
 * default (the very verbose ones: {@code bytecode}, {@code output_code}, …).
 *
 * @param name         the name users type
 * @param component    the component an artifact belongs to; for a component, its own name
 * @param artifact     whether this is an artifact (else a component)
 * @param offByDefault for an artifact: shown only when named, never through {@code +component}
 * @param description  one line for {@code EMBER_LOGS=help}
 */
public record Loggable(String name, String component, boolean artifact, boolean offByDefault, String description) {}
