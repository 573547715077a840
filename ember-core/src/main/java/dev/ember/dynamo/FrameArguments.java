package dev.ember.dynamo;

import dev.ember.dynamo.guards.DistinctTensors;
import dev.ember.dynamo.source.LocalSource;
import dev.ember.dynamo.source.Source;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The traced frame's arguments, each wrapped (guarded, a tensor made a graph input and checked
 * against the other tensors for aliasing) when the trace first reads it, not at frame entry, as
 * Dynamo wraps arguments lazily ({@code LazyVariableTracker}): an argument the frame never reads (one
 * only carried to a resume method, or not used at all) adds no guard, so calls that differ only in
 * it (a tensor's shape or dtype, being another argument's tensor, another list) share one compiled
 * entry; and graph inputs come in the order the code reads them, as Dynamo's placeholders do.
 */
final class FrameArguments {
    private final TraceContext ctx;
    private final Object[] frame;
    private final List<LocalSource> sources;
    private final List<Class<?>> types;
    /** The variable of each argument; null while a tensor argument is unread. */
    private final VariableTracker[] variables;

    FrameArguments(TraceContext ctx, Object[] frame, List<LocalSource> sources, List<Class<?>> types) {
        this.ctx = ctx;
        this.frame = frame;
        this.sources = sources;
        this.types = types;
        this.variables = new VariableTracker[frame.length];
        // an iterator handed over by a break is made at entry: it must see its container as the break left it, before
        // the code changes the container through another argument (which Java's iterator then reports as a concurrent change)
        for (int i = 0; i < frame.length; i++) if (frame[i] instanceof dev.ember.dynamo.resume.ResumedIterator<?>) read(i);
    }

    /** Whether argument {@code i} is of a primitive type (its value is handed on in its stack form, not as the frame holds it). */
    boolean isPrimitive(int i) { return types.get(i).isPrimitive(); }

    int size() { return frame.length; }

    /** Argument {@code i}'s variable, or null when it is not read yet. */
    VariableTracker peek(int i) { return variables[i]; }

    /** Argument {@code i}'s variable, wrapping it (and installing its guards) on its first read. */
    VariableTracker read(int i) {
        if (variables[i] == null) variables[i] = ctx.builder.wrap(frame[i], sources.get(i), types.get(i));
        return variables[i];
    }

    /** Where argument {@code i} is read from at run time. */
    Source source(int i) { return sources.get(i); }

    /** Every argument, read, in order: an exported program takes every input, read or not, as torch.export's does. */
    List<VariableTracker> readAll() {
        List<VariableTracker> out = new ArrayList<>();
        for (int i = 0; i < frame.length; i++) out.add(read(i));
        return out;
    }

    /**
     * As Dynamo's {@code NO_TENSOR_ALIASING} over the tensors a frame read: the tensor arguments,
     * and the tensors read from their fields and elements and from static fields, that the trace
     * read as distinct objects must be distinct on later calls (one passed for two of them, or an
     * argument that is a global or a list's element, recompiles); tensors the trace never read are
     * left out, so passing them twice does not.
     */
    void guardDistinctReads() {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        List<Source> distinct = new ArrayList<>();
        for (int i = 0; i < frame.length; i++) {
            if (variables[i] != null && frame[i] instanceof Tensor t && seen.put(t, Boolean.TRUE) == null) distinct.add(sources.get(i));
        }
        for (var read : ctx.builder.inputTensors().entrySet()) {
            if (seen.put(read.getValue(), Boolean.TRUE) == null) distinct.add(read.getKey());
        }
        if (distinct.size() > 1) ctx.graph.addGuard(new DistinctTensors(distinct));
    }
}
