package dev.ember.export;

import dev.ember.fx.Backends;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole program as one functional ATen graph, what {@code Ember.export} returns (torch.export's
 * {@code ExportedProgram}): the graph, decomposed to core ops; its {@link GraphSignature} (what each
 * input and output is); the state it reads (parameters, buffers, tensor constants, by name); and the
 * range constraints on its size symbols (none yet: shapes are static). It runs without the Java code
 * it came from, in this JVM or, after {@link #save}, in another ({@link #load}).
 *
 * <pre>{@code
 * ExportedProgram ep = Ember.export(new Mlp(), Tensor.randn(2, 4));
 * System.out.println(ep);                       // the graph, then its signature
 * List<Tensor> out = ep.run(Tensor.randn(2, 4)); // inputs are checked against the signature first
 * ep.save(Path.of("mlp.ember"));
 * ExportedProgram.load(Path.of("mlp.ember")).run(x);
 * }</pre>
 */
public final class ExportedProgram {
    private final String function;
    private final boolean strict;
    private final GraphModule graph;
    private final GraphSignature signature;
    private final Map<String, Tensor> state;
    private final Map<String, ValueRange> rangeConstraints;
    private final String backend;
    private CompiledGraph compiled;

    ExportedProgram(String function, boolean strict, GraphModule graph, GraphSignature signature, Map<String, Tensor> state,
                    Map<String, ValueRange> rangeConstraints, String backend) {
        this.function = function;
        this.strict = strict;
        this.graph = graph;
        this.signature = signature;
        this.state = Collections.unmodifiableMap(new LinkedHashMap<>(state));
        this.rangeConstraints = Collections.unmodifiableMap(new LinkedHashMap<>(rangeConstraints));
        this.backend = backend;
    }

    /** The exported function, {@code Mlp.forward}. */
    public String function() { return function; }

    /** Whether it was captured from its bytecode (strict) or by running it (non-strict). */
    public boolean strict() { return strict; }

    /** The functional, decomposed ATen graph; its placeholders are the signature's inputs, its outputs the signature's outputs. */
    public GraphModule graphModule() { return graph; }

    public GraphSignature graphSignature() { return signature; }

    /** Parameters, buffers and tensor constants by their target name; the program's own copies, updated by its buffer mutations. */
    public Map<String, Tensor> state() { return state; }

    /** The parameters alone (torch's {@code ep.parameters()} by name). */
    public Map<String, Tensor> parameters() { return stateOf(InputSpec.Kind.PARAMETER); }

    public Map<String, Tensor> buffers() { return stateOf(InputSpec.Kind.BUFFER); }

    public Map<String, Tensor> constants() { return stateOf(InputSpec.Kind.CONSTANT_TENSOR); }

    /** Size symbol → the values it may take; empty while export specialises every size. */
    public Map<String, ValueRange> rangeConstraints() { return rangeConstraints; }

    /** The backend {@link #run} compiles the graph with: {@code inductor} unless {@link #withBackend} said otherwise. */
    public String backend() { return backend; }

    /**
     * The same program run by another registered backend, e.g. {@code "eager"} to interpret the
     * graph op by op; it shares this program's state.
     */
    public ExportedProgram withBackend(String name) {
        Backends.get(name);
        return new ExportedProgram(function, strict, graph, signature, state, rangeConstraints, name);
    }

    /**
     * Runs the program on the user inputs, in the signature's order. They are checked first — count,
     * dtype, rank and every size — and refused with an {@link ExportError} naming the input, the
     * dimension and what the program was exported for. Returns the user outputs in order; buffer
     * mutations are written into {@link #state()}, user-input mutations into the tensors passed in.
     */
    public List<Tensor> run(Tensor... inputs) {
        InputCheck.check(signature, inputs, rangeConstraints);
        List<InputSpec> specs = signature.inputs();
        Object[] in = new Object[specs.size()];
        Map<String, Tensor> userByTarget = new LinkedHashMap<>();
        int u = 0;
        for (int i = 0; i < in.length; i++) {
            InputSpec s = specs.get(i);
            if (s.kind() == InputSpec.Kind.USER_INPUT) {
                Tensor t = inputs[u++];
                userByTarget.put(s.target(), t);
                in[i] = t.contiguous();   // compiled for the contiguous layout; values are what count
            } else {
                in[i] = state.get(s.target());
            }
        }
        Object[] out = compiled(in).run(in);
        List<Tensor> user = new ArrayList<>();
        List<OutputSpec> outs = signature.outputs();
        for (int k = 0; k < outs.size(); k++) {
            Tensor value = (Tensor) out[k];
            switch (outs.get(k).kind()) {
                case USER_OUTPUT -> user.add(value);
                case BUFFER_MUTATION, PARAMETER_MUTATION -> state.get(outs.get(k).target()).copy_(value);
                case USER_INPUT_MUTATION -> userByTarget.get(outs.get(k).target()).copy_(value);
            }
        }
        return user;
    }

    /**
     * The program as a module (torch's {@code ep.module()}): {@code forward(x)} runs it. For programs
     * of one user input and one user output; others are called through {@link #run}.
     */
    public Module module() {
        int ins = signature.userInputs().size(), outs = signature.userOutputs().size();
        if (ins != 1 || outs != 1) {
            throw new ExportError("ExportedProgram.module(): " + function + " takes " + ins + " user inputs and returns " + outs
                    + " outputs, but a Module's forward takes one tensor and returns one; call run(…) instead");
        }
        ExportedProgram self = this;
        return new Module() {
            @Override
            public Tensor forward(Tensor input) { return self.run(input).getFirst(); }

            @Override
            public String toString() { return "ExportedModule(" + function + ")"; }
        };
    }

    /** Writes the program to one file (format: docs/export.md), replacing it. */
    public void save(Path file) throws IOException { ProgramFile.save(this, file); }

    /**
     * Reads a program {@link #save} wrote; the Java code it came from is not needed.
     *
     * @throws ProgramFileException naming the file, the entry and the problem, for anything that is not a valid program
     */
    public static ExportedProgram load(Path file) throws IOException { return ProgramFile.load(file); }

    /**
     * The graph compiled for {@code in}: once, or — for a program with dynamic dimensions whose backend
     * compiles static sizes only — once per assignment of the symbols, from the graph instantiated there.
     */
    private synchronized CompiledGraph compiled(Object[] in) {
        dev.ember.fx.Backend b = Backends.get(backend);
        if (graph.sizeSymbols() != null) {
            // the symbolic metadata was interpolated from samples: each new size is checked once against the meta functions
            long[] values = graph.sizeSymbols().valuesIn(in);
            List<Long> key = java.util.Arrays.stream(values).boxed().toList();
            if (!checkedSizes.contains(key)) {
                String differs = dev.ember.fx.SymbolicShapes.check(graph, values);
                if (differs != null) throw new ExportError("ExportedProgram.run: the program does not hold at these sizes: " + differs);
                checkedSizes.add(key);
            }
        }
        if (graph.sizeSymbols() != null && !b.compilesSymbolicSizes()) {
            long[] values = graph.sizeSymbols().valuesIn(in);
            return perSize.computeIfAbsent(java.util.Arrays.stream(values).boxed().toList(), k -> {
                GraphModule at = dev.ember.fx.SymbolicShapes.instantiate(graph, values);
                return b.compile(at, at.graph().placeholders().stream().map(n -> (dev.ember.tensor.FakeTensor) n.val()).toList());
            });
        }
        if (compiled == null) {
            List<dev.ember.tensor.FakeTensor> fakes = signature.inputs().stream().map(s -> s.spec().fake()).toList();
            compiled = b.compile(graph, fakes);
        }
        return compiled;
    }

    private final java.util.Set<List<Long>> checkedSizes = new java.util.HashSet<>();

    /** Per assignment of the symbols, the graph compiled for it (a backend of static sizes only). */
    private final Map<List<Long>, CompiledGraph> perSize = new java.util.HashMap<>();

    private Map<String, Tensor> stateOf(InputSpec.Kind kind) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (InputSpec s : signature.inputs()) if (s.kind() == kind) out.put(s.target(), state.get(s.target()));
        return Collections.unmodifiableMap(out);
    }

    /** As torch prints one: the graph's code, then its signature, then the range constraints. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ExportedProgram: ").append(function).append(strict ? " (strict)" : " (non-strict)").append('\n');
        graph.code().lines().forEach(l -> sb.append("    ").append(l).append('\n'));
        sb.append("\nGraph signature:\n").append(signature);
        sb.append("\nRange constraints: ").append(rangeConstraints).append('\n');
        return sb.toString();
    }

    /** Prints {@link #toString()} to standard output. */
    public void print() { System.out.print(this); }
}
