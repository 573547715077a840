package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Text blocks and String.format in messages, static nested helper classes, builders, final
 * fields, and inheritance with super calls and constructor chaining. Each program runs eagerly
 * and compiled.
 */
class TextBuilderInheritanceProgramsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static final Tensor X = Tensor.randn(4, 3);

    /** A builder for a small block's settings, as Java APIs configure things. */
    static final class BlockConfig {
        final int repeats;
        final double scale;
        final boolean residual;
        final String name;

        private BlockConfig(Builder b) {
            this.repeats = b.repeats;
            this.scale = b.scale;
            this.residual = b.residual;
            this.name = b.name;
        }

        static Builder builder() { return new Builder(); }

        static final class Builder {
            private int repeats = 1;
            private double scale = 1.0;
            private boolean residual;
            private String name = "block";

            Builder repeats(int n) {
                if (n < 1) throw new IllegalArgumentException(String.format("repeats must be at least 1, got %d", n));
                this.repeats = n;
                return this;
            }

            Builder scale(double s) { this.scale = s; return this; }

            Builder residual(boolean r) { this.residual = r; return this; }

            Builder name(String n) { this.name = n; return this; }

            BlockConfig build() { return new BlockConfig(this); }
        }
    }

    static Tensor runBlock(BlockConfig c, Tensor x) {
        Tensor h = x;
        for (int i = 0; i < c.repeats; i++) h = h.mul(c.scale).tanh();
        return c.residual ? h.add(x) : h;
    }

    /** A small class hierarchy: constructors chain, methods call super. */
    static class Base {
        protected final double bias;

        Base(double bias) { this.bias = bias; }

        Tensor forward(Tensor x) { return x.add(bias); }

        String describe() { return getClass().getSimpleName() + "(bias=" + bias + ")"; }
    }

    static class Scaled extends Base {
        protected final double factor;

        Scaled(double bias, double factor) {
            super(bias);
            this.factor = factor;
        }

        @Override Tensor forward(Tensor x) { return super.forward(x).mul(factor); }

        @Override String describe() { return super.describe() + " * " + factor; }
    }

    static final class Clamped extends Scaled {
        Clamped() { this(0.5); }

        Clamped(double bias) { super(bias, 3.0); }

        @Override Tensor forward(Tensor x) { return super.forward(x).clamp(-1.0, 1.0); }
    }

    /** Static nested helpers, as utility classes hold them. */
    static final class TensorUtils {
        private TensorUtils() {}

        static Tensor standardize(Tensor x) { return x.sub(x.mean(0, true)).div(x.std(0, true).add(1e-6)); }

        static String shapeOf(Tensor x) { return Arrays.toString(x.shape()); }
    }

    // ------------------------------------------------------------------ programs

    static Tensor builtConfig(Tensor x) {
        BlockConfig c = BlockConfig.builder().repeats(3).scale(0.5).residual(true).name("enc").build();
        return runBlock(c, x);
    }

    static Tensor badBuilderArgument(Tensor x, Integer repeats) {
        return runBlock(BlockConfig.builder().repeats(repeats).build(), x);
    }

    static Tensor inheritanceChain(Tensor x) {
        List<Base> layers = List.of(new Base(1.0), new Scaled(0.0, 2.0), new Clamped());
        Tensor h = x;
        for (Base b : layers) h = b.forward(h);
        return h;
    }

    static List<Object> describedLayers(Tensor x) {
        List<String> names = new ArrayList<>();
        for (Base b : List.of(new Base(1.0), new Scaled(0.5, 2.0), new Clamped(0.25))) names.add(b.describe());
        return List.of(String.join("; ", names), new Clamped().forward(x));
    }

    static List<Object> textBlockReport(Tensor x) {
        String report = """
                layer:  %s
                input:  %s
                output: %s
                """.formatted("norm", TensorUtils.shapeOf(x), TensorUtils.shapeOf(x.t()));
        return List.of(report, TensorUtils.standardize(x));
    }

    static Tensor formattedMessageThrown(Tensor x, Tensor y) {
        if (!Arrays.equals(x.shape(), y.shape())) {
            throw new IllegalArgumentException("""
                    shapes differ:
                      x: %s
                      y: %s""".formatted(TensorUtils.shapeOf(x), TensorUtils.shapeOf(y)));
        }
        return x.sub(y).abs().amax();
    }

    static List<Object> stringFormatNumbers(Tensor x) {
        String line = String.format("%-6s|%4d|%8.3f|%s", "rows", x.size(0), 0.125, x.dim() == 2 ? "matrix" : "other");
        return List.of(line, x.mul(x.size(0)));
    }

    static Tensor finalFieldsOfAnObjectArgument(Tensor x, Scaled layer) { return layer.forward(x).add(layer.bias * layer.factor); }

    static List<Object> stringBuilderLog(Tensor x) {
        StringBuilder sb = new StringBuilder("steps:");
        Tensor h = x;
        for (String op : List.of("relu", "neg", "exp")) {
            h = switch (op) {
                case "relu" -> h.relu();
                case "neg" -> h.neg();
                default -> h.exp();
            };
            sb.append(' ').append(op).append(Arrays.toString(h.shape()));
        }
        return List.of(sb.toString(), h);
    }

    // ------------------------------------------------------------------ tests

    @Test
    void aBuilderWithChainedSetters() {
        oneGraph(check((Fn1<Tensor, Tensor>) TextBuilderInheritanceProgramsTest::builtConfig, X), 7);
    }

    @Test
    void aBuilderRejectingAnArgumentWithStringFormat() {
        Throwable t = checkThrows((Fn2<Tensor, Integer, Tensor>) TextBuilderInheritanceProgramsTest::badBuilderArgument, X, 0);
        assertEquals("repeats must be at least 1, got 0", t.getMessage());
    }

    @Test
    void constructorChainingAndSuperCalls() {
        oneGraph(check((Fn1<Tensor, Tensor>) TextBuilderInheritanceProgramsTest::inheritanceChain, X), 6);   // add; add, mul; add, mul, clamp
    }

    @Test
    void overriddenDescribeWithSuperAndGetClass() {
        Fn1<Tensor, List<Object>> fn = TextBuilderInheritanceProgramsTest::describedLayers;
        oneGraph(check(fn, X), 3);
        assertEquals("Base(bias=1.0); Scaled(bias=0.5) * 2.0; Clamped(bias=0.25) * 3.0", fn.apply(X).getFirst());
    }

    @Test
    void aTextBlockFormatted() {
        Fn1<Tensor, List<Object>> fn = TextBuilderInheritanceProgramsTest::textBlockReport;
        oneGraph(check(fn, X));
        assertEquals("layer:  norm\ninput:  [4, 3]\noutput: [3, 4]\n", fn.apply(X).getFirst());
    }

    @Test
    void aTextBlockInAThrownMessage() {
        Fn2<Tensor, Tensor, Tensor> fn = TextBuilderInheritanceProgramsTest::formattedMessageThrown;
        Throwable t = checkThrows(fn, X, X.t());
        assertEquals("shapes differ:\n  x: [4, 3]\n  y: [3, 4]", t.getMessage());
        oneGraph(check(fn, X, X.neg()), 3);
    }

    @Test
    void stringFormatWithWidthsAndPrecision() {
        Fn1<Tensor, List<Object>> fn = TextBuilderInheritanceProgramsTest::stringFormatNumbers;
        oneGraph(check(fn, X), 1);
        assertEquals("rows  |   4|   0.125|matrix", fn.apply(X).getFirst());
    }

    @Test
    void finalFieldsOfAnObjectPassedIn() {
        oneGraph(check((Fn2<Tensor, Scaled, Tensor>) TextBuilderInheritanceProgramsTest::finalFieldsOfAnObjectArgument, X, new Scaled(0.5, 4.0)));
    }

    @Test
    void aStringBuilderLogNextToTheOps() {
        Fn1<Tensor, List<Object>> fn = TextBuilderInheritanceProgramsTest::stringBuilderLog;
        oneGraph(check(fn, X), 3);
        assertEquals("steps: relu[4, 3] neg[4, 3] exp[4, 3]", fn.apply(X).getFirst());
    }
}
