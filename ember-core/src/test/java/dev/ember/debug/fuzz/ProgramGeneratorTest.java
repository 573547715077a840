package dev.ember.debug.fuzz;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The generator is reproducible, covers what the issue lists, and tracks types exactly as eager computes them. */
class ProgramGeneratorTest {
    @Test
    void theSameSeedGivesTheSameProgramText() {
        for (long seed : new long[] {0, 1, 42, -7, Long.MAX_VALUE}) {
            Program p = ProgramGenerator.generate(seed);
            assertEquals(p.source("P"), ProgramGenerator.generate(seed).source("P"));
            assertEquals(seed, p.seed());
        }
        assertNotEquals(ProgramGenerator.generate(1).source("P"), ProgramGenerator.generate(2).source("P"));
    }

    @Test
    void programsCoverEveryKindOfStatementLayoutAndDtype() {
        StringBuilder all = new StringBuilder();
        List<Class<?>> kinds = new ArrayList<>();
        List<Input.Layout> layouts = new ArrayList<>();
        boolean aliased = false;
        java.util.Set<ScalarInput.Kind> numbers = java.util.EnumSet.noneOf(ScalarInput.Kind.class);
        for (long seed = 0; seed < 400; seed++) {
            Program p = ProgramGenerator.generate(seed);
            all.append(p.source("P"));
            for (Stmt s : p.body()) if (!kinds.contains(s.getClass())) kinds.add(s.getClass());
            for (Input in : p.inputs()) {
                if (!layouts.contains(in.layout())) layouts.add(in.layout());
                aliased |= in.aliasOf() >= 0;
            }
            for (ScalarInput n : p.scalars()) numbers.add(n.kind());
        }
        assertEquals(5, kinds.size(), "statement kinds seen: " + kinds);
        assertEquals(List.of(Input.Layout.values()).size(), layouts.size(), "layouts seen: " + layouts);
        assertTrue(aliased, "no program passes the same tensor twice");
        assertEquals(java.util.EnumSet.allOf(ScalarInput.Kind.class), numbers, "kinds of Java number parameters seen");
        String text = all.toString();
        for (String op : List.of(".matmul(", ".bmm(", "F.linear(", "Tensor.addmm(", "F.conv2d(", ".softmax(", "F.layerNorm(", ".sum(", ".amax(",
                ".transpose(", ".permute(", ".narrow(", ".select(", ".expand(", ".add_(", "Out(", "Tensor.cat(", "Tensor.stack(",
                ".item() > 0", "Ember.graphBreak()", "for (int t = 0;", "List.of(", "DType.FLOAT64", "Tensor.randint(", "f32[]", ", 0, ", "0]",
                " > 0.25) ?", " % 2 == 0) ?", "Math.max(", ".gain", ".get(1)", "[1]", "new double[] {", "List<Double> l", ".item() * 0.5 + ")) {
            assertTrue(text.contains(op), "no program uses " + op);
        }
    }

    /** Eager never throws on a generated program, and returns exactly the dtypes and shapes the generator tracked. */
    @Test
    void eagerAgreesWithTheGeneratorsTypes() {
        List<Program> programs = new ArrayList<>();
        for (long seed = 1000; seed < 1100; seed++) programs.add(ProgramGenerator.generate(seed));
        for (LoadedProgram p : LoadedProgram.load(programs)) {
            Object out = Calls.apply(p.fn(), p.inputs());
            List<Object> values = dev.ember.debug.Accuracy.leaves(out);
            List<Var> returns = p.program().returns();
            assertEquals(returns.size(), values.size());
            for (int i = 0; i < values.size(); i++) {
                Tensor t = (Tensor) values.get(i);
                TensorType want = returns.get(i).type();
                assertEquals(want, TensorType.of(t.dtype(), t.shape()), "seed " + p.program().seed() + " returns " + returns.get(i).name() + "\n" + p.program().source("P"));
            }
        }
    }

    /**
     * The op families added to widen coverage each appear over a few hundred seeds, and every one of
     * those programs runs eagerly without an exception and returns exactly the dtypes and shapes
     * the generator tracked (a program the generator wrote wrong shows here, not as a fuzz failure).
     */
    @Test
    void widerOpFamiliesAppearAndRunEagerly() {
        List<Program> programs = new ArrayList<>();
        StringBuilder all = new StringBuilder();
        for (long seed = 5000; seed < 5600; seed++) {
            Program p = ProgramGenerator.generate(seed);
            programs.add(p);
            all.append(p.source("P"));
        }
        String text = all.toString();
        for (String op : List.of(".gt(", ".lt(", ".ge(", ".le(", ".eq(", ".ne(", ".logicalAnd(", ".logicalOr(", ".logicalNot()", ".maskedFill(",
                ".maskedFill_(", ".clamp(", ".clamp_(", ".abs().neg(), ", ".cumsum(", ".indexSelect(", ".gather(", "F.embedding(", "F.oneHot(",
                ".indexAdd(", ".scatter(", ".scatterAdd(", "new long[] {", "new int[] {", "F.maxPool2d(", "F.avgPool2d(", "F.adaptiveAvgPool2d(",
                ".floorDivide(", ".remainder(", ".fmod(", "\"floor\")", "\"trunc\")", "F.batchNorm(", ".sort(", ".argsort(", ".topk(", ".argmin(",
                "F.crossEntropy(", "F.mseLoss(", "F.scaledDotProductAttention(", ".chunk(", ".split(", ".std(", ", DType.FLOAT64)")) {
            assertTrue(text.contains(op), "no program uses " + op);
        }
        // a mask variable used by where, cast to float; batch norm training and evaluating; three tensors stacked
        for (String pattern : List.of("Tensor\\.where\\(v\\d+, ", "v\\d+\\.to\\(DType\\.FLOAT32\\)", "F\\.batchNorm\\(.*, true, 0\\.\\d, 1e-5\\)",
                "F\\.batchNorm\\(.*, false, 0\\.\\d, 1e-5\\)", "Tensor\\.stack\\(List\\.of\\(\\w+, \\w+, \\w+\\)")) {
            assertTrue(java.util.regex.Pattern.compile(pattern).matcher(text).find(), "no program matches " + pattern);
        }
        List<String> wrong = new ArrayList<>();
        for (LoadedProgram p : LoadedProgram.load(programs)) {
            String seed = "seed " + p.program().seed();
            try {
                List<Object> values = dev.ember.debug.Accuracy.leaves(Calls.apply(p.fn(), p.inputs()));
                List<Var> returns = p.program().returns();
                for (int i = 0; i < values.size(); i++) {
                    Tensor t = (Tensor) values.get(i);
                    TensorType want = returns.get(i).type();
                    if (!want.equals(TensorType.of(t.dtype(), t.shape()))) wrong.add(seed + ": " + returns.get(i).name() + " is " + TensorType.of(t.dtype(), t.shape()) + ", tracked " + want);
                }
            } catch (RuntimeException e) {
                wrong.add(seed + ": " + e);
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /**
     * One program in {@link ProgramGenerator#BIG_KERNEL_ONE_IN} opens with a product or convolution of
     * the sizes the hand-written kernels take (few-row and long-dot-product GEMMs as the shipped
     * tuning rules accept them, Winograd's 32+ channel 3x3 convolutions on 28x28+ images); the
     * others are the programs they were before the family existed; and each big one runs eagerly
     * with the types the generator tracked.
     */
    @Test
    void oneProgramInEightReachesTheBigKernelsAndRunsEagerly() {
        var rules = dev.ember.tuning.KernelTuning.DEFAULTS;
        List<Program> big = new ArrayList<>();
        int products = 0, dotRule = 0, broadcastRule = 0, winogradSized = 0;
        for (long seed = 0; seed < 400; seed++) {
            if (!ProgramGenerator.opensWithBigKernel(seed)) continue;
            Program p = ProgramGenerator.generate(seed);
            big.add(p);
            Stmt.Let first = (Stmt.Let) p.body().getFirst();
            List<Var> args = first.call().args();
            String op = first.call().template();
            if (op.startsWith("F.conv2d(")) {
                TensorType x = args.get(0).type(), w = args.get(1).type(), out = first.out().type();
                if (x.size(1) >= 32 && w.size(0) >= 32 && w.size(2) == 3 && op.contains(", 1, 1)") && out.size(2) >= 28) winogradSized++;
                continue;
            }
            products++;
            TensorType out = first.out().type();
            int m = out.size(out.rank() - 2), n = out.size(out.rank() - 1);
            TensorType a = args.get(0).type();
            int k = op.contains("$0.t()") ? a.size(0) : a.size(a.rank() - 1);   // A transposed is [k, m]
            if (rules.dot().accepts(m, n, k) && (long) m * n * k >= 1 << 19) dotRule++;
            if (rules.broadcast().accepts(m, n, k) && (long) m * n * k >= 1 << 19) broadcastRule++;
        }
        assertTrue(big.size() > 400 / ProgramGenerator.BIG_KERNEL_ONE_IN / 2 && big.size() < 400 / ProgramGenerator.BIG_KERNEL_ONE_IN * 2, "big programs: " + big.size());
        assertTrue(products > 10 && dotRule > 3 && broadcastRule > 1 && winogradSized > 1,
                "products " + products + ", GemmDot-sized " + dotRule + ", GemmBroadcast-sized " + broadcastRule + ", Winograd-sized convolutions " + winogradSized);
        for (long seed = 0; seed < 50; seed++) {
            if (ProgramGenerator.opensWithBigKernel(seed)) continue;
            Program p = ProgramGenerator.generate(seed);
            assertTrue(p.inputs().stream().allMatch(in -> in.param().type().numel() <= 16 * 16 * 16 * 16),
                    "seed " + seed + " is not a big-kernel program, yet has a big input:\n" + p.source("P"));
        }
        List<String> wrong = new ArrayList<>();
        for (LoadedProgram p : LoadedProgram.load(big)) {
            try {
                List<Object> values = dev.ember.debug.Accuracy.leaves(Calls.apply(p.fn(), p.inputs()));
                List<Var> returns = p.program().returns();
                for (int i = 0; i < values.size(); i++) {
                    Tensor t = (Tensor) values.get(i);
                    if (!returns.get(i).type().equals(TensorType.of(t.dtype(), t.shape()))) {
                        wrong.add("seed " + p.program().seed() + ": " + returns.get(i).name() + " is " + TensorType.of(t.dtype(), t.shape()) + ", tracked " + returns.get(i).type());
                    }
                }
            } catch (RuntimeException e) {
                wrong.add("seed " + p.program().seed() + ": " + e);
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** What only the recent-ops family draws: each appears in the family's programs, none outside it. */
    private static final List<String> RECENT_OPS = List.of(".prod(", ".cumprod(", ".median(", ".kthvalue(", ".mode(", ".flatten(1",
            ".roll(", ".flip(", ".tril(", ".triu(", ".repeat(", ".tile(", ".repeatInterleave(", ".index(Tensor.of(", ".lerp(", ".addcmul(", ".addcdiv(",
            "(Tensor) null", ".clampMax(", "Double.POSITIVE_INFINITY", ".nanToNum(0.0, 2.5, -2.5)", ".logsumexp(", ".norm(",
            "F.interpolate(", "\"bilinear\"", "\"linear\"", "\"reflect\")", "\"replicate\")", "\"circular\")", "F.conv1d(", "F.convTranspose2d(",
            "F.maxPool1d(", "F.avgPool1d(", "F.adaptiveAvgPool1d(", "F.prelu(", "F.nllLoss(", "F.binaryCrossEntropyWithLogits(", "F.smoothL1Loss(",
            "F.huberLoss(", "F.l1Loss(", "F.klDiv(", "\"batchmean\"", "Tensor.einsum(");

    /**
     * One program in {@link ProgramGenerator#RECENT_OPS_ONE_IN} also draws the ops of sessions 28 and
     * 29 (a stream of its own decides which, so every other seed's program is the one it was: none
     * of them draws such an op); each of the family's programs runs eagerly with the types the
     * generator tracked, and trains: backward from its returned float tensors runs, so every
     * differentiable op drawn has a derivative (only eager autograd's refusals, as ATen's, of what
     * the older families write are let through; every configuration then throws the same).
     */
    @Test
    void recentOpsAppearInTheirFamilyOnlyAndRunEagerlyAndTrain() {
        String outside = familyAppearsOnlyInItselfAndRunsEagerlyAndTrains(ProgramGenerator::drawsRecentOps, ProgramGenerator.RECENT_OPS_ONE_IN, RECENT_OPS, 0);
        // max(dim) and min(dim) of a variable (Math.max is Java arithmetic, which every program may use)
        java.util.regex.Pattern alongDim = java.util.regex.Pattern.compile("[av]\\d+\\.(max|min)\\(");
        assertTrue(!alongDim.matcher(outside).find(), "a program outside the family uses max(dim) or min(dim)");
        StringBuilder inFamily = new StringBuilder();
        for (long seed = 0; seed < 600; seed++) if (ProgramGenerator.drawsRecentOps(seed)) inFamily.append(ProgramGenerator.generate(seed).source("P"));
        assertTrue(alongDim.matcher(inFamily).find(), "no program of the family uses max(dim) or min(dim)");
    }

    /**
     * The model-pieces family changed no other seed's program: the 1,328 programs of seeds 0–1,999
     * outside it are the same text as before it existed (at {@code dfa8ce9}), to the hash of their
     * texts. A change of the generator that moves this number moves every documented seed's program.
     */
    @Test
    void programsOutsideTheModelFamilyAreTheOnesTheyWere() {
        long h = 0;
        int n = 0;
        for (long seed = 0; seed < 2000; seed++) {
            if (ProgramGenerator.drawsModelOps(seed)) continue;
            h = h * 31 + ProgramGenerator.generate(seed).source("P").hashCode();
            n++;
        }
        assertEquals(1328, n);
        assertEquals("912a1301cfe5d9df", Long.toHexString(h));
    }

    /** What only the model-pieces family draws. */
    private static final List<String> MODEL_OPS = List.of("new dev.ember.autograd.CustomFunction()", ".applyAll(", ".needsInputGrad(", ".detach()",
            "new dev.ember.nn.LSTM(", "new dev.ember.nn.GRU(", "new dev.ember.nn.RNN(", "\"relu\", true, true", ", 2, true, false, 0.0, true)",
            ".hN()", ".cN()", ".output()", "new dev.ember.nn.MultiheadAttention(", "new dev.ember.nn.TransformerEncoderLayer(", "\"gelu\"");

    /**
     * One program in {@link ProgramGenerator#MODEL_OPS_ONE_IN} also draws CustomFunctions, detach in a
     * chain, the recurrent layers and attention (a stream of its own: no other seed's program
     * changed); each runs eagerly with the tracked types, and trains.
     */
    @Test
    void modelPiecesAppearInTheirFamilyOnlyAndRunEagerlyAndTrain() {
        familyAppearsOnlyInItselfAndRunsEagerlyAndTrains(ProgramGenerator::drawsModelOps, ProgramGenerator.MODEL_OPS_ONE_IN, MODEL_OPS, 7000);
    }

    /**
     * Two in three of the model family's programs train their modules (session 32; a stream of its
     * own draws which and how, so the family's statements are the ones they were): the class says how
     * ({@code modules()}, {@code optimizer(…)}, {@code STEPS}), each optimizer the draw names appears,
     * the modules' outputs are returned, and the training loop runs eagerly: in each program every
     * module's parameters get gradients and move (only eager autograd's refusals, as ATen's, of what
     * the older families write are let through, as in the test above). No other program changed:
     * {@link #programsOutsideTheModelFamilyAreTheOnesTheyWere}.
     */
    @Test
    void theModelFamilyTrainsItsModulesInTwoProgramsOfThree() {
        List<Program> trained = new ArrayList<>();
        int holding = 0;
        StringBuilder text = new StringBuilder();
        for (long seed = 7000; seed < 7600; seed++) {
            Program p = ProgramGenerator.generate(seed);
            String source = p.source("P");
            if (!ProgramGenerator.drawsModelOps(seed)) {
                assertTrue(!source.contains("modules()") && !source.contains("optimizer(List<Tensor>"), "seed " + seed + " is outside the model family");
                continue;
            }
            List<Var> outputs = p.body().stream().filter(st -> st instanceof Stmt.Held).map(Stmt::defines).toList();
            if (outputs.isEmpty()) continue;
            holding++;
            assertTrue(source.contains("public static List<dev.ember.nn.Module> modules()"), "seed " + seed);
            if (p.training() == null) {
                assertTrue(!source.contains("optimizer(List<Tensor>"), "seed " + seed);
                continue;
            }
            assertTrue(p.returns().containsAll(outputs), "seed " + seed + " does not return its modules' outputs");
            trained.add(p);
            text.append(source);
        }
        assertTrue(trained.size() > holding / 2 && trained.size() < holding * 5 / 6, trained.size() + " of " + holding + " programs holding modules train them");
        for (String s : List.of("new dev.ember.optim.SGD(", ".momentum(0.9)", ".nesterov(true)", "new dev.ember.optim.Adam(", ".amsgrad(true)",
                ".weightDecay(0.01)", "new dev.ember.optim.AdamW(", "STEPS = 2;", "STEPS = 3;")) {
            assertTrue(text.toString().contains(s), "no trained program uses " + s);
        }
        List<String> wrong = new ArrayList<>();
        int movedPrograms = 0;
        for (LoadedProgram p : LoadedProgram.load(trained)) {
            String seed = "seed " + p.program().seed();
            ProgramModules modules = ProgramModules.of(p.cls());
            List<Tensor> first = modules.parameters().stream().map(Tensor::clone).toList();
            try {
                modules.reset(true);
                var opt = modules.optimizer();
                for (int step = 0; step < modules.steps(); step++) {
                    Tensor loss = null;
                    for (Object v : dev.ember.debug.Accuracy.leaves(Calls.apply(p.fn(), p.inputs()))) {
                        if (v instanceof Tensor t && t.requiresGrad()) loss = loss == null ? t.sum() : loss.add(t.sum());
                    }
                    if (loss == null) throw new AssertionError("nothing returned requires grad");
                    loss.backward();
                    if (step == 0) {
                        // every module is reached by the loss (a module's output zeroed later in place gives zeros, not none)
                        List<Tensor> ps = modules.parameters();
                        for (String m : modules.names().stream().map(n -> n.substring(0, n.indexOf('.'))).distinct().toList()) {
                            boolean reached = false;
                            for (int k = 0; k < ps.size(); k++) reached |= modules.names().get(k).startsWith(m + ".") && ps.get(k).grad() != null;
                            if (!reached) wrong.add(seed + ": no parameter of " + m + " has a gradient");
                        }
                    }
                    opt.step();
                    opt.zeroGrad();
                }
                List<Tensor> now = modules.parameters();
                boolean moved = false;
                for (int k = 0; k < now.size(); k++) moved |= !java.util.Arrays.equals(now.get(k).toFloatArray(), first.get(k).toFloatArray());
                if (moved) movedPrograms++;
            } catch (RuntimeException | AssertionError e) {
                String m = String.valueOf(e.getMessage());
                if (!m.contains("modified by an inplace operation") && !m.contains("is being used in an in-place operation")
                        && !m.contains("arguments don't support automatic differentiation") && !m.contains("is not differentiable with respect to argument 'running_")) {
                    wrong.add(seed + " training loop: " + e);
                }
            } finally {
                modules.reset(false);
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertTrue(movedPrograms > trained.size() * 3 / 4, "the parameters moved in " + movedPrograms + " of " + trained.size() + " programs");
    }

    /**
     * Checks the family {@code inFamily} of seeds {@code from}…{@code from + 599}: about one in
     * {@code oneIn}, each of {@code ops} in its programs and in no other, every program of it runs
     * eagerly with the types the generator tracked, and trains: backward from its returned float
     * tensors runs, so every differentiable op drawn has a derivative (only eager autograd's
     * refusals, as ATen's, of what the older families write are let through; every configuration
     * then throws the same). Returns the text of the programs outside the family.
     */
    private static String familyAppearsOnlyInItselfAndRunsEagerlyAndTrains(java.util.function.LongPredicate inFamilyOf, int oneIn, List<String> ops, long from) {
        List<Program> family = new ArrayList<>();
        StringBuilder inFamily = new StringBuilder(), outside = new StringBuilder();
        for (long seed = from; seed < from + 600; seed++) {
            Program p = ProgramGenerator.generate(seed);
            if (inFamilyOf.test(seed)) {
                family.add(p);
                inFamily.append(p.source("P"));
            } else {
                outside.append(p.source("P"));
            }
        }
        assertTrue(family.size() > 600 / oneIn * 3 / 4 && family.size() < 600 / oneIn * 5 / 4, "family programs: " + family.size());
        for (String op : ops) {
            assertTrue(inFamily.toString().contains(op), "no program of the family uses " + op);
            assertTrue(!outside.toString().contains(op), "a program outside the family uses " + op);
        }
        List<String> wrong = new ArrayList<>();
        for (LoadedProgram p : LoadedProgram.load(family)) {
            String seed = "seed " + p.program().seed();
            try {
                List<Object> values = dev.ember.debug.Accuracy.leaves(Calls.apply(p.fn(), p.inputs()));
                List<Var> returns = p.program().returns();
                for (int i = 0; i < values.size(); i++) {
                    Tensor t = (Tensor) values.get(i);
                    if (!returns.get(i).type().equals(TensorType.of(t.dtype(), t.shape()))) {
                        wrong.add(seed + ": " + returns.get(i).name() + " is " + TensorType.of(t.dtype(), t.shape()) + ", tracked " + returns.get(i).type());
                    }
                }
            } catch (RuntimeException e) {
                wrong.add(seed + ": " + e);
            }
            Object[] args = p.inputs();
            try {
                for (Object a : args) if (a instanceof Tensor t && t.dtype().isFloatingPoint() && t.isLeaf()) t.requiresGrad(true);
                Tensor loss = null;
                for (Object v : dev.ember.debug.Accuracy.leaves(Calls.apply(p.fn(), args))) {
                    if (v instanceof Tensor t && t.requiresGrad()) {
                        Tensor part = t.to(dev.ember.tensor.DType.FLOAT64).sum();
                        loss = loss == null ? part : loss.add(part);
                    }
                }
                if (loss != null) loss.backward();
            } catch (RuntimeException e) {
                String m = String.valueOf(e.getMessage());
                // eager autograd's refusals of what the other families write, as ATen's: a saved value modified, a leaf (or a view of one)
                // written in place, an out= op on tensors that require grad, running statistics that require grad
                if (!m.contains("modified by an inplace operation") && !m.contains("is being used in an in-place operation")
                        && !m.contains("arguments don't support automatic differentiation") && !m.contains("is not differentiable with respect to argument 'running_")) {
                    wrong.add(seed + " training: " + e);
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        return outside.toString();
    }

    /**
     * A computed float is compared only where no rounding decides the answer: with an ordered
     * comparison against a number no saturating op reaches (not 0 or ±1: eager's gelu gives -0.0
     * where compiled code may give -1e-10, seed 90367), never for equality.
     */
    @Test
    void floatsAreComparedOnlyWhereRoundingCannotDecide() {
        java.util.regex.Pattern withNumber = java.util.regex.Pattern.compile("\\$0\\.(gt|lt|ge|le|eq|ne)\\((-?[0-9.]+)\\)");
        int seen = 0;
        for (long seed = 0; seed < 300; seed++) {
            for (Stmt s : ProgramGenerator.generate(seed).body()) {
                if (!(s instanceof Stmt.Let let) || let.call().args().isEmpty() || !let.call().args().getFirst().type().isFloat()) continue;
                var m = withNumber.matcher(let.call().template());
                if (!m.matches()) continue;
                seen++;
                assertTrue(!m.group(1).equals("eq") && !m.group(1).equals("ne"), "seed " + seed + ": " + let.java());
                double x = Double.parseDouble(m.group(2));
                assertTrue(x != 0.0 && Math.abs(x) != 1.0, "seed " + seed + ": " + let.java());
            }
        }
        assertTrue(seen > 20, "float comparisons with a number seen: " + seen);
    }

    /** No statement's value exceeds the broadcast cap, the size a big kernel's own values stay under (seed 302426). */
    @Test
    void noValueGrowsPastTheBroadcastCap() {
        for (long seed : new long[] {302426, 0, 1, 2, 3, 4, 5, 6, 7}) {
            for (Stmt st : ProgramGenerator.generate(seed).body()) {
                if (st instanceof Stmt.Let let) {
                    assertTrue(let.out().type().numel() <= Shapes.MAX_BROADCAST_ELEMENTS, "seed " + seed + ": " + let.java());
                }
            }
        }
        assertEquals(null, Shapes.broadcast(java.util.List.of(1100, 1), java.util.List.of(704000)));
        assertEquals(java.util.List.of(1100, 8), Shapes.broadcast(java.util.List.of(1100, 1), java.util.List.of(8)));
    }

    /** sin and cos always take a clamped argument, so that one rounding of a large value cannot change the answer (seed 270044). */
    @Test
    void periodicFunctionsTakeAClampedArgument() {
        int seen = 0;
        for (long seed = 0; seed < 400; seed++) {
            for (Stmt st : ProgramGenerator.generate(seed).body()) {
                if (!(st instanceof Stmt.Let let)) continue;
                String t = let.call().template();
                if (!t.contains(".sin()") && !t.contains(".cos()")) continue;
                seen++;
                assertTrue(t.contains(".clamp(-8.0, 8.0).sin()") || t.contains(".clamp(-8.0, 8.0).cos()"), "seed " + seed + ": " + let.java());
            }
        }
        assertTrue(seen > 5, "sin/cos statements seen: " + seen);
    }

    /** The runner's call with new values changes every Java number a program was passed, in the form it was passed in. */
    @Test
    void newValuesChangeEveryJavaNumberInItsOwnForm() {
        List<Program> programs = new ArrayList<>();
        for (long seed = 0; seed < 200 && programs.size() < 40; seed++) {
            Program p = ProgramGenerator.generate(seed);
            if (!p.scalars().isEmpty()) programs.add(p);
        }
        java.util.Set<Class<?>> forms = new java.util.HashSet<>();
        for (LoadedProgram p : LoadedProgram.load(programs)) {
            Object[] args = p.inputs();
            int first = p.program().inputs().size();
            for (int i = first; i < args.length; i++) {
                String before = show(args[i]);
                Object renewed = ScalarInput.renewed(args[i]);
                forms.add(renewed.getClass());
                assertTrue(args[i] instanceof List ? renewed instanceof List : renewed.getClass() == args[i].getClass(), args[i] + " renewed as " + renewed);
                assertNotEquals(before, show(renewed), "seed " + p.program().seed() + " parameter " + i);
            }
            Calls.apply(p.fn(), args);
        }
        assertTrue(forms.size() >= 4, "forms renewed: " + forms);
    }

    private static String show(Object o) {
        if (o instanceof double[] a) return java.util.Arrays.toString(a);
        if (o == null || o instanceof Number || o instanceof List) return String.valueOf(o);
        StringBuilder sb = new StringBuilder();
        for (var f : o.getClass().getFields()) {
            try {
                sb.append(f.getName()).append('=').append(f.get(o)).append(' ');
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return sb.toString();
    }
}
