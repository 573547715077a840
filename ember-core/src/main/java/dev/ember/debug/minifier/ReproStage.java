package dev.ember.debug.minifier;

import java.util.Locale;

/**
 * Which graph a repro keeps ({@code EMBER_REPRO_AFTER}, PyTorch's {@code repro_after}): the graph
 * Dynamo captured, given to the backend as is, or the graph after the AOT part of the inductor
 * stage (functionalized and decomposed to core ops), given to the backend again. A bug that shows
 * in both is easier to read after AOT, where the ops are the ones lowering sees.
 */
public enum ReproStage {
    DYNAMO, AOT;

    /** The stage named {@code dynamo} or {@code aot}; {@code origin} (the variable) is named in the error. */
    public static ReproStage parse(String text, String origin) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "dynamo" -> DYNAMO;
            case "aot" -> AOT;
            default -> throw new IllegalArgumentException(origin + "=" + text + ": unknown stage; expected dynamo (the captured graph)"
                    + " or aot (the graph after functionalization and decomposition)");
        };
    }

    public String text() { return name().toLowerCase(Locale.ROOT); }
}
