package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A tiny "model" as a list of sealed layer records, interpreted by a switch with type and record
 * patterns: the way a Java engineer writes a network without a framework. Each program runs
 * eagerly and compiled; an interpreter over a fixed list of layers is one graph.
 */
class SealedLayerProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 6);
    static final Tensor W1 = Tensor.randn(6, 8), B1 = Tensor.randn(8), W2 = Tensor.randn(8, 3), B2 = Tensor.randn(3);

    // ------------------------------------------------------------------ the layer kinds

    sealed interface Layer permits Dense, Act, Dropout, Residual, Norm {}

    record Dense(Tensor weight, Tensor bias) implements Layer {}

    record Act(Kind kind) implements Layer {
        enum Kind { RELU, TANH, GELU, SIGMOID }
    }

    /** Dropout is the identity in inference, which is all this model does. */
    record Dropout(double p) implements Layer {
        Dropout {
            if (p < 0 || p >= 1) throw new IllegalArgumentException("dropout probability has to be between 0 and 1, but got " + p);
        }
    }

    record Residual(List<Layer> body) implements Layer {}

    record Norm(double eps) implements Layer {}

    sealed interface Shape permits Circle, Square, Rect {}
    record Circle(Tensor radius) implements Shape {}
    record Square(Tensor side) implements Shape {}
    record Rect(Tensor width, Tensor height) implements Shape {}

    // ------------------------------------------------------------------ interpreters

    static Tensor apply(Layer layer, Tensor x) {
        return switch (layer) {
            case Dense(Tensor w, Tensor b) -> x.matmul(w).add(b);
            case Act(var kind) -> switch (kind) {
                case RELU -> x.relu();
                case TANH -> x.tanh();
                case GELU -> x.gelu();
                case SIGMOID -> x.sigmoid();
            };
            case Dropout d -> x;
            case Residual(var body) -> x.add(run(body, x));
            case Norm(double eps) -> x.sub(x.mean(-1, true)).div(x.var(-1, true).add(eps).sqrt());
        };
    }

    static Tensor run(List<Layer> model, Tensor x) {
        Tensor h = x;
        for (Layer layer : model) h = apply(layer, h);
        return h;
    }

    /** The old-style interpreter: instanceof chains with casts, as pre-Java-16 code reads. */
    static Tensor applyWithInstanceof(Layer layer, Tensor x) {
        if (layer instanceof Dense) {
            Dense d = (Dense) layer;
            return x.matmul(d.weight()).add(d.bias());
        } else if (layer instanceof Act a && a.kind() == Act.Kind.RELU) {
            return x.relu();
        } else if (layer instanceof Act a) {
            return x.tanh();
        }
        return x;
    }

    static String describe(Layer layer) {
        return switch (layer) {
            case Dense d -> "Dense(" + d.weight().size(0) + " -> " + d.weight().size(1) + ")";
            case Act a -> a.kind().name().toLowerCase();
            case Dropout(var p) -> String.format("Dropout(p=%.2f)", p);
            case Residual r -> "Residual[" + r.body().size() + "]";
            case Norm n -> "Norm";
        };
    }

    static Tensor area(Shape s) {
        return switch (s) {
            case Circle c -> c.radius().pow(2).mul(Math.PI);
            case Square(var side) -> side.mul(side);
            case Rect(var w, var h) when w.dim() == h.dim() -> w.mul(h);
            case Rect r -> r.width().sum().mul(r.height().sum());
        };
    }

    // ------------------------------------------------------------------ programs

    static final List<Layer> MLP = List.of(new Dense(W1, B1), new Act(Act.Kind.RELU), new Dropout(0.1), new Dense(W2, B2), new Act(Act.Kind.TANH));

    static Tensor mlp(Tensor x) { return run(MLP, x); }

    static Tensor modelAsArgument(List<Layer> model, Tensor x) { return run(model, x); }

    static Tensor residualWithNorm(Tensor x) {
        List<Layer> block = List.of(new Norm(1e-5), new Residual(List.of(new Dense(W1.narrow(1, 0, 6), B1.narrow(0, 0, 6)), new Act(Act.Kind.GELU))), new Act(Act.Kind.SIGMOID));
        return run(block, x);
    }

    static Tensor oldStyleInstanceof(Tensor x) {
        Tensor h = x;
        for (Layer l : List.<Layer>of(new Dense(W1, B1), new Act(Act.Kind.RELU), new Act(Act.Kind.TANH), new Dropout(0.5))) h = applyWithInstanceof(l, h);
        return h;
    }

    static List<Object> summaryAndOutput(Tensor x) {
        List<String> lines = new ArrayList<>();
        for (Layer l : MLP) lines.add(describe(l));
        return List.of(String.join(" | ", lines), run(MLP, x));
    }

    static Tensor badDropoutBuiltInside(Tensor x, Double p) {
        List<Layer> model = List.of(new Dense(W1, B1), new Dropout(p));
        return run(model, x);
    }

    static Tensor totalArea(List<Shape> shapes) {
        Tensor total = Tensor.zeros();
        for (Shape s : shapes) total = total.add(area(s).sum());
        return total;
    }

    static Tensor countKinds(List<Layer> model, Tensor x) {
        int dense = 0, activations = 0;
        for (Layer l : model) {
            switch (l) {
                case Dense d -> dense++;
                case Act a -> activations++;
                default -> { }
            }
        }
        return x.mul(dense).add(activations);
    }

    /** A layer list built by a helper that filters the dropouts out (an inference "export"). */
    static Tensor withoutDropout(Tensor x) {
        List<Layer> exported = MLP.stream().filter(l -> !(l instanceof Dropout)).toList();
        return run(exported, x).add(exported.size());
    }

    /** Layers chosen by a switch on a string, as a config file names them. */
    static Layer parse(String spec) {
        return switch (spec) {
            case "relu" -> new Act(Act.Kind.RELU);
            case "tanh" -> new Act(Act.Kind.TANH);
            case "norm" -> new Norm(1e-6);
            default -> throw new IllegalArgumentException("unknown layer '" + spec + "'");
        };
    }

    static Tensor fromSpec(Tensor x, String spec) {
        Tensor h = x;
        for (String part : spec.split(",")) h = apply(parse(part.strip()), h);
        return h;
    }

    // ------------------------------------------------------------------ tests

    @Test
    void aFixedModelIsOneGraph() {
        oneGraph(check((Fn1<Tensor, Tensor>) SealedLayerProgramsTest::mlp, X), 6);   // matmul add relu matmul add tanh
    }

    @Test
    void aModelPassedInIsOneGraph() {
        Fn2<List<Layer>, Tensor, Tensor> fn = SealedLayerProgramsTest::modelAsArgument;
        oneGraph(check(fn, MLP, X), 6);
        oneGraph(check(fn, List.of(new Act(Act.Kind.SIGMOID), new Norm(1e-3)), X));
    }

    @Test
    void nestedResidualAndNormLayers() {
        oneGraph(check((Fn1<Tensor, Tensor>) SealedLayerProgramsTest::residualWithNorm, X));
    }

    @Test
    void instanceofAndCastsInterpretTheSameModel() {
        oneGraph(check((Fn1<Tensor, Tensor>) SealedLayerProgramsTest::oldStyleInstanceof, X), 4);
    }

    @Test
    void aSummaryStringBuiltBySwitchingOverLayers() {
        Fn1<Tensor, List<Object>> fn = SealedLayerProgramsTest::summaryAndOutput;
        oneGraph(check(fn, X));
        assertEquals("Dense(6 -> 8) | relu | Dropout(p=0.10) | Dense(8 -> 3) | tanh", fn.apply(X).getFirst());
    }

    @Test
    void aLayerRejectingItsConfigThrowsAsEager() {
        Fn2<Tensor, Double, Tensor> fn = SealedLayerProgramsTest::badDropoutBuiltInside;
        Throwable t = checkThrows(fn, X, 1.5);
        assertInstanceOf(IllegalArgumentException.class, t);
        oneGraph(check(fn, X, 0.25), 2);
    }

    @Test
    void shapesWithGuardedRecordPatterns() {
        Fn1<List<Shape>, Tensor> fn = SealedLayerProgramsTest::totalArea;
        Tensor r = Tensor.rand(3), s = Tensor.rand(2, 2);
        oneGraph(check(fn, List.of(new Circle(r), new Square(s), new Rect(r, r), new Rect(s, r))));
    }

    @Test
    void aStatementSwitchCountsLayerKinds() {
        oneGraph(check((Fn2<List<Layer>, Tensor, Tensor>) SealedLayerProgramsTest::countKinds, MLP, X), 2);
    }

    @Test
    void aStreamFiltersLayersByType() {
        oneGraph(check((Fn1<Tensor, Tensor>) SealedLayerProgramsTest::withoutDropout, X), 7);
    }

    @Test
    void layersParsedFromAStringSpec() {
        Fn2<Tensor, String, Tensor> fn = SealedLayerProgramsTest::fromSpec;
        oneGraph(check(fn, X, "relu, norm ,tanh"));
        Throwable t = checkThrows(fn, X, "relu,softmax");
        assertEquals("unknown layer 'softmax'", t.getMessage());
    }
}
