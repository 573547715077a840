package dev.ember.dynamo;

import java.util.List;

/**
 * The registry of graph-break types: each kind of thing the translator cannot put in a graph has
 * a stable id ({@code GB0001}…), a short type, an explanation and hints, like PyTorch's
 * {@code graph_break_registry.json}. Docs pages ({@code docs/graph-breaks/GBnnnn.md}) are keyed by id.
 */
public enum GraphBreakType {
    TENSOR_DATA_ACCESS("GB0001", "Unsupported Tensor data access",
            "The code reads the values stored in a tensor (item(), longItem(), get(), toFloatArray(), …). "
                    + "A graph only knows shapes and dtypes while it is traced, never values.",
            "Keep the value as a 0-d tensor and use tensor ops on it instead of reading it into Java.",
            "Move the read after the compiled function returns."),
    DATA_DEPENDENT_BRANCH("GB0002", "Data-dependent branching",
            "The code converts a tensor to a Java boolean (asBoolean()) to decide which way to go; "
                    + "the answer depends on tensor values that are unknown while tracing.",
            "Compute both sides and select with Tensor.where(condition, a, b).",
            "Move the decision outside the compiled function."),
    UNSUPPORTED_CALL("GB0003", "Unsupported function call",
            "The code calls a method the translator cannot trace: a JDK method that is not known to be pure, "
                    + "a native method, or a method whose bytecode cannot be read.",
            "Move the call outside the compiled function, or pass its result in as an argument."),
    SIDE_EFFECT("GB0004", "Unsupported side effect",
            "The code changes something outside the compiled function in a way that cannot be replayed after the graph: "
                    + "a List passed in that is not an ArrayList or LinkedList, a final field, a Cond.cond branch that mutates or prints.",
            "Return the new value instead of storing it, and store it after the call."),
    PRINT("GB0005", "Print or logging call",
            "The code calls System.out/System.err or a logger in a way that cannot be replayed after the graph: an argument "
                    + "that is not a constant or a tensor, a method other than print/println/printf/format, or reorderable logging off.",
            "Remove the print from the compiled function, or print the returned tensors after the call."),
    TENSOR_TO_STRING("GB0006", "Tensor converted to a string",
            "The code turns a tensor into text (toString(), string concatenation); that reads its values.",
            "Print shapes (t.shape(), t.describe()) instead, which are known while tracing."),
    OP_FAILED_ON_FAKES("GB0007", "Op failed on fake tensors",
            "An op rejected its arguments while shapes were propagated: the same call fails in eager mode.",
            "Run the function without compile to see the error with its full stack trace."),
    EXCEPTION_THROWN("GB0008", "Exception thrown in traced code",
            "The code throws an exception on the path taken while tracing, and no try/catch in the traced code catches it "
                    + "(one that does is traced: the handler's path goes into the graph), or the tracer cannot model the exception.",
            "Validate inputs before calling the compiled function, or catch the exception inside it."),
    UNSUPPORTED_INSTRUCTION("GB0009", "Unsupported bytecode instruction",
            "The method uses a bytecode instruction the translator does not handle (synchronized blocks, "
                    + "multi-dimensional arrays, …).",
            "Move that code outside the compiled function."),
    INSTRUCTION_BUDGET("GB0010", "Instruction budget exceeded",
            "Tracing executed more bytecode instructions than its budget: a loop whose trip count is huge or infinite. "
                    + "The whole function then runs eagerly for those inputs.",
            "Loops are unrolled while tracing; keep trip counts small or move the loop outside the compiled function."),
    INLINE_DEPTH("GB0011", "Inlining depth exceeded",
            "Calls nest deeper than the inlining limit (usually recursion).",
            "Rewrite the recursion as a loop with a constant trip count."),
    UNSUPPORTED_RETURN("GB0012", "Unsupported return value",
            "The function returns a value the compiled code cannot make again after the graph: an iterator, a Map.Entry, "
                    + "an exception object, a number read from tensor data, a list that contains itself.",
            "Return tensors and constants, or lists, arrays, maps, sets, records, objects and lambdas holding them."),
    UNSUPPORTED_OBJECT("GB0013", "Unsupported object construction",
            "The code creates an object of a class the translator does not model.",
            "Create the object outside the compiled function and pass it in."),
    NON_CONSTANT_CONDITION("GB0014", "Branch on a value unknown at trace time",
            "A pattern switch compares a constant label with a value that is not a constant while tracing.",
            "Make the condition depend on shapes, dtypes or constant arguments only."),
    UNSUPPORTED_INVOKEDYNAMIC("GB0015", "Unsupported invokedynamic",
            "The code uses an invokedynamic call site other than lambdas, method references and string concatenation.",
            "Move that code outside the compiled function."),
    EXPLICIT_GRAPH_BREAK("GB0016", "Call to Ember.graphBreak() or Comptime.graphBreak()",
            "The user asked for a graph break here.",
            "Remove the Ember.graphBreak() or Comptime.graphBreak() call if the break is not wanted."),
    NO_BYTECODE("GB0017", "Method bytecode unavailable",
            "The method to inline is abstract, native, belongs to a class whose class file cannot be found, or is a plain lambda that cannot be told from another of its shape.",
            "Make the lambda serializable (type it as dev.ember.Fn0…Fn5, or cast it to (Function<Tensor, Tensor> & Serializable)).",
            "Call a concrete method of a class loaded from a class file."),
    UNSUPPORTED_TENSOR_METHOD("GB0018", "Unsupported Tensor method",
            "The code calls a Tensor method that touches storage or tensor metadata the tracer does not track (storage(), version(), "
                    + "requiresGrad(boolean), requiresGrad() or grad() on a tensor the graph computes).",
            "Call it outside the compiled function."),
    UNSUPPORTED_OPERAND("GB0019", "Unsupported operand",
            "An instruction got an operand the translator cannot evaluate at trace time (e.g. arithmetic on an object).",
            "Keep Java arithmetic on constants (shapes, arguments); use tensor ops for tensor math."),
    DISABLED_FUNCTION("GB0020", "Attempted to call function marked as disabled",
            "The code calls a method marked with @Disable or passed to Ember.disable: it must run eagerly, never be traced.",
            "Remove @Disable / Ember.disable if the method can be traced; otherwise the break is intended."),
    DYNAMIC_OUTPUT_SHAPE("GB0021", "Dynamic shape operator",
            "The code calls an op whose output's shape depends on the input's values (nonzero, masked_select, indexing with a "
                    + "boolean mask). A graph is traced from fake tensors, which have shapes but no values, so it cannot hold the call.",
            "Keep the shape static: Tensor.where(mask, x, 0) or maskedFill instead of selecting, sums weighted by the mask instead of a sum of the selection.",
            "Move the selection after the compiled function returns.");

    private final String id;
    private final String shortType;
    private final String explanation;
    private final List<String> hints;

    GraphBreakType(String id, String shortType, String explanation, String... hints) {
        this.id = id;
        this.shortType = shortType;
        this.explanation = explanation;
        this.hints = List.of(hints);
    }

    /** {@code GB0001} */
    public String id() { return id; }

    /** A few words: "Data-dependent branching". */
    public String shortType() { return shortType; }

    public String explanation() { return explanation; }

    public List<String> hints() { return hints; }

    /** Where this break type's page lives in the docs. */
    public String docsPath() { return "docs/graph-breaks/" + id + ".md"; }

    public static GraphBreakType byId(String id) {
        for (GraphBreakType t : values()) if (t.id.equals(id)) return t;
        throw new IllegalArgumentException("no graph-break type " + id);
    }
}
