package dev.ember.export;

import dev.ember.dynamo.FunctionTarget;
import dev.ember.nn.Module;

import java.util.function.Function;

/** {@code Ember.export}'s work: which function, which mode. */
public final class Exporter {
    private Exporter() {}

    /**
     * Exports {@code fn} (a serializable {@code Fn0}…{@code Fn5}, or a {@link Module} for its forward)
     * traced for {@code args}; {@code call} runs it on given arguments (non-strict mode runs it on fakes).
     */
    public static ExportedProgram export(Object fn, ExportOptions options, Object[] args, Function<Object[], Object> call) {
        FunctionTarget target = fn instanceof Module m ? FunctionTarget.forModule(m) : FunctionTarget.of(fn);
        String cls = target.method().owner().getName();
        String function = cls.substring(cls.lastIndexOf('.') + 1) + "." + target.method().name();
        // a Module's frame holds the module as its captured receiver; its call gets only the input
        if (!options.strict() && !options.dynamicShapes().isEmpty()) {
            throw new ExportError("Ember.export(" + function + "): dynamic dimensions need strict export (non-strict runs the Java code once,"
                    + " at the example sizes, so it cannot tell which sizes the program computes from its inputs')");
        }
        return options.strict() ? StrictExport.export(function, target, args, options)
                : NonStrictExport.export(function, target, args, call, options);
    }
}
