package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static dev.ember.testing.TorchAssert.assertClose;

/**
 * A port of PyTorch's ModuleInfo sweep ({@code torch/testing/_internal/common_modules.py}): each
 * module is built with the constructor arguments and inputs PyTorch tests it with (padding modes,
 * groups, bias=False, batch-less inputs, reductions, ignore_index, class weights, label smoothing,
 * batch_first, bidirectional, …), in float32 and float64. For each sample the forward output and the
 * gradients of every differentiable input and every parameter are checked against libtorch running
 * the same ATen ops on the same weights (in float64, rounded to the sample's dtype: the more exact
 * reference), and the forward compiled with {@link Ember#compile} (fullgraph) must give eager's
 * output and gradients.
 *
 * <p>A sample's libtorch expression names its inputs {@code x, y, z, w} and the module's parameters
 * and floating buffers by their PyTorch names with dots as underscores ({@code self_attn.in_proj_weight}
 * is {@code self_attn_in_proj_weight}); {@code PARAMS} stands for the list of all parameters in
 * registration order (the flat weights of {@code torch.lstm} and friends).
 */
class ModuleSamplesTest {

    // ------------------------------------------------------------------ the samples

    static Stream<Arguments> samples() {
        List<Sample> s = new ArrayList<>();
        activations(s);
        layers(s);
        attention(s);
        attentionOptions(s);
        transformers(s);
        pooling(s);
        poolingWithIndices(s);
        norms(s);
        padsAndShapes(s);
        losses(s);
        recurrent(s);
        parametrized(s);
        fractionalPooling(s);
        return s.stream().flatMap(x -> Stream.of(Arguments.of(x.name, x, DType.FLOAT32), Arguments.of(x.name, x, DType.FLOAT64)));
    }

    private static void activations(List<Sample> s) {
        In std = x(2, 3, 4, 5), unbatched = x(4);
        record Act(String name, Supplier<Module> make, String torch) {}
        for (Act a : List.of(
                new Act("ReLU", ReLU::new, "torch.relu(x)"),
                new Act("ReLU6", ReLU6::new, "torch.hardtanh(x, 0.0, 6.0)"),
                new Act("ELU alpha=2", () -> new ELU(2.0), "torch.elu(x, 2.0)"),
                new Act("CELU alpha=2", () -> new CELU(2.0), "torch.celu(x, 2.0)"),
                new Act("GELU", GELU::new, "torch.gelu(x)"),
                new Act("GELU tanh", () -> new GELU("tanh"), "torch.gelu(x, approximate='tanh')"),
                new Act("SELU", SELU::new, "torch.selu(x)"),
                new Act("SiLU", SiLU::new, "torch.silu(x)"),
                new Act("Mish", Mish::new, "ops.aten.mish(x)"),
                new Act("Sigmoid", Sigmoid::new, "torch.sigmoid(x)"),
                new Act("Tanh", Tanh::new, "torch.tanh(x)"),
                new Act("LogSigmoid", LogSigmoid::new, "ops.aten.log_sigmoid(x)"),
                new Act("Hardswish", Hardswish::new, "ops.aten.hardswish(x)"),
                new Act("Hardsigmoid", Hardsigmoid::new, "ops.aten.hardsigmoid(x)"),
                new Act("Hardtanh -0.5 0.5", () -> new Hardtanh(-0.5, 0.5), "torch.hardtanh(x, -0.5, 0.5)"),
                new Act("Hardshrink 0.3", () -> new Hardshrink(0.3), "torch.hardshrink(x, 0.3)"),
                new Act("Softshrink 0.3", () -> new Softshrink(0.3), "ops.aten.softshrink(x, 0.3)"),
                new Act("LeakyReLU 0.2", () -> new LeakyReLU(0.2), "ops.aten.leaky_relu(x, 0.2)"),
                new Act("Softplus", Softplus::new, "ops.aten.softplus(x, 1.0, 20.0)"),
                new Act("Softplus beta=2 threshold=-100", () -> new Softplus(2, -100), "ops.aten.softplus(x, 2.0, -100.0)"),
                new Act("Softsign", Softsign::new, "x / (x.abs() + 1)"),
                new Act("Tanhshrink", Tanhshrink::new, "x - torch.tanh(x)"),
                new Act("Threshold 0.1 20", () -> new Threshold(0.1, 20), "torch.threshold(x, 0.1, 20.0)"),
                new Act("PReLU", PReLU::new, "torch.prelu(x, weight)"),
                
                new Act("Softmax dim=1", () -> new Softmax(1), "torch.softmax(x, 1)"),
                new Act("Softmin dim=1", () -> new Softmin(1), "torch.softmax(-x, 1)"),
                new Act("LogSoftmax dim=1", () -> new LogSoftmax(1), "torch.log_softmax(x, 1)"),
                new Act("Softmax2d", Softmax2d::new, "torch.softmax(x, -3)"))) {
            s.add(one(a.name, a.make, a.torch, std));
            if (!a.name.startsWith("Softmax2d") && !a.name.contains("dim=1") && !a.name.equals("GLU")) s.add(one(a.name + " no_batch_dim", a.make, a.torch, unbatched));
        }
        s.add(one("Softmax2d no_batch_dim", Softmax2d::new, "torch.softmax(x, -3)", x(3, 4, 5)));
        s.add(one("GLU", GLU::new, "torch.glu(x, -1)", x(5, 6)));
        s.add(one("GLU no_batch_dim", GLU::new, "torch.glu(x, -1)", x(4)));
        s.add(one("GLU dim=1", () -> new GLU(1), "torch.glu(x, 1)", x(5, 6, 7)));
        s.add(one("PReLU num_parameters=3", () -> new PReLU(3, 0.25), "torch.prelu(x, weight)", x(2, 3, 4)));
        s.add(one("RReLU eval", () -> new RReLU(0.1, 0.3).eval(), "torch.rrelu(x, 0.1, 0.3, False)", x(2, 3, 4)));
    }

    private static void layers(List<Sample> s) {
        s.add(one("Linear", () -> new Linear(10, 8), "torch.linear(x, weight, bias)", x(4, 10)));
        s.add(one("Linear no_bias", () -> new Linear(10, 8, false), "torch.linear(x, weight)", x(4, 10)));
        s.add(one("Linear no_batch_dim", () -> new Linear(10, 8), "torch.linear(x, weight, bias)", x(10)));
        s.add(two("Bilinear", () -> new Bilinear(2, 3, 4), Bilinear::forward, "torch.bilinear(x, y, weight, bias)", x(8, 2), x(8, 3)));
        s.add(two("Bilinear no_bias", () -> new Bilinear(2, 3, 4, false), Bilinear::forward, "torch.bilinear(x, y, weight, None)", x(8, 2), x(8, 3)));
        s.add(two("Bilinear no_batch_dim", () -> new Bilinear(2, 3, 4), Bilinear::forward, "torch.bilinear(x, y, weight, bias)", x(2), x(3)));
        s.add(one("Embedding", () -> new Embedding(4, 3), "torch.embedding(weight, x)", idx(4, 2, 3)));
        s.add(one("Embedding padding_idx", () -> new Embedding(4, 3, 1), "torch.embedding(weight, x, 1)", idx(4, 2, 3)));
        s.add(one("Embedding no_batch_dim", () -> new Embedding(4, 3), "torch.embedding(weight, x)", idx(4, 5)));
        s.add(one("EmbeddingBag mean 2d", () -> new EmbeddingBag(10, 3, "mean"), "torch.embedding_bag(weight, x.flatten(), torch.arange(0, 12, 4), False, 1)[0]", idx(10, 3, 4)));
        s.add(two("EmbeddingBag sum offsets", () -> new EmbeddingBag(10, 3, "sum"), EmbeddingBag::forward, "torch.embedding_bag(weight, x, y, False, 0)[0]",
                idx(10, 12), fixed(Tensor.ofLongs(0, 2, 2, 7))));
        s.add(two("EmbeddingBag max offsets", () -> new EmbeddingBag(10, 3, "max"), EmbeddingBag::forward, "torch.embedding_bag(weight, x, y, False, 2)[0]",
                idx(10, 12), fixed(Tensor.ofLongs(0, 3, 7))));
        Tensor padded = Tensor.ofLongs(1, 2, 2, 5, 2, 7, 9, 0, 2, 3, 4, 2);
        s.add(three("EmbeddingBag sum per_sample_weights", () -> new EmbeddingBag(10, 3, "sum"), EmbeddingBag::forward,
                "torch.embedding_bag(weight, x, y, False, 0, False, z)[0]", idx(10, 12), fixed(Tensor.ofLongs(0, 2, 2, 7)), x(12)));
        s.add(two("EmbeddingBag mean padding_idx", () -> new EmbeddingBag(10, 3, "mean", false, 2), EmbeddingBag::forward,
                "torch.embedding_bag(weight, x, y, False, 1, False, None, False, 2)[0]", fixed(padded), fixed(Tensor.ofLongs(0, 3, 3, 8))));
        s.add(one("EmbeddingBag sum padding_idx 2d", () -> new EmbeddingBag(10, 3, "sum", false, 2),
                "torch.embedding_bag(weight, x.flatten(), torch.arange(0, 12, 4), False, 0, False, None, False, 2)[0]", fixed(padded.reshape(3, 4))));
        s.add(two("EmbeddingBag max padding_idx=-1 include_last_offset", () -> new EmbeddingBag(10, 3, "max", true, -1), EmbeddingBag::forward,
                "torch.embedding_bag(weight, x, y, False, 2, False, None, True, 9)[0]", fixed(padded), fixed(Tensor.ofLongs(0, 4, 9, 12))));
        s.add(one("Identity", Identity::new, "x", x(2, 3)));
        s.add(one("Dropout p=0", () -> new Dropout(0.0), "x", x(2, 3, 4)));
        s.add(one("Dropout eval", () -> new Dropout(0.5).eval(), "x", x(2, 3, 4)));
        s.add(one("Dropout2d eval", () -> new Dropout2d(0.5).eval(), "x", x(2, 3, 4, 4)));
        s.add(one("Dropout1d eval", () -> new Dropout1d(0.5).eval(), "x", x(2, 3, 4)));
        s.add(one("Dropout3d eval", () -> new Dropout3d(0.5).eval(), "x", x(2, 3, 2, 2, 2)));
        s.add(one("AlphaDropout eval", () -> new AlphaDropout(0.5).eval(), "x", x(2, 3, 4)));
        s.add(one("FeatureAlphaDropout eval", () -> new FeatureAlphaDropout(0.5).eval(), "x", x(2, 3, 4, 4)));
        s.add(two("CosineSimilarity", CosineSimilarity::new, CosineSimilarity::forward, "torch.cosine_similarity(x, y, 1, 1e-8)", x(10, 20), x(10, 20)));
        s.add(two("CosineSimilarity dim=0 broadcast", () -> new CosineSimilarity(0, 1e-6), CosineSimilarity::forward, "torch.cosine_similarity(x, y, 0, 1e-6)", x(4, 5), x(4, 1)));
        s.add(two("PairwiseDistance", PairwiseDistance::new, PairwiseDistance::forward, "torch.pairwise_distance(x, y, 2.0, 1e-6, False)", x(10, 20), x(10, 20)));
        s.add(two("PairwiseDistance p=1 keepdim", () -> new PairwiseDistance(1, 1e-6, true), PairwiseDistance::forward, "torch.pairwise_distance(x, y, 1.0, 1e-6, True)", x(10, 20), x(10, 20)));
        s.add(two("PairwiseDistance no_batch_dim", PairwiseDistance::new, PairwiseDistance::forward, "torch.pairwise_distance(x, y, 2.0, 1e-6, False)", x(20), x(20)));
        s.add(one("Conv1d", () -> new Conv1d(4, 5, 3), "torch.conv1d(x, weight, bias)", x(2, 4, 10)));
        s.add(one("Conv1d stride dilation groups no_bias", () -> new Conv1d(4, 6, 3, 2, 1, 2, 2, false), "torch.conv1d(x, weight, None, [2], [1], [2], 2)", x(2, 4, 11)));
        s.add(one("Conv1d no_batch_dim", () -> new Conv1d(4, 5, 3), "torch.conv1d(x, weight, bias)", x(4, 10)));
        for (String mode : List.of("reflect", "replicate", "circular")) {
            s.add(one("Conv1d padding_mode=" + mode, () -> new Conv1d(3, 4, 3, 1, 2, 1, 1, true, mode),
                    "torch.conv1d(torch.pad(x, [2, 2], '" + mode + "'), weight, bias)", x(2, 3, 8)));
            s.add(one("Conv2d padding_mode=" + mode, () -> new Conv2d(3, 4, new int[] {3, 3}, new int[] {1, 1}, new int[] {1, 2}, new int[] {1, 1}, 1, true, mode),
                    "torch.conv2d(torch.pad(x, [2, 2, 1, 1], '" + mode + "'), weight, bias)", x(2, 3, 6, 7)));
        }
        s.add(one("Conv1d padding=same", () -> new Conv1d(3, 4, 4, 1, "same", 2, 1, true, "zeros"), "torch.conv1d(x, weight, bias, [1], 'same', [2])", x(2, 3, 9)));
        s.add(one("Conv2d", () -> new Conv2d(3, 4, 3), "torch.conv2d(x, weight, bias)", x(2, 3, 7, 6)));
        s.add(one("Conv2d groups dilation", () -> new Conv2d(4, 6, new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 2}, 2, true),
                "torch.conv2d(x, weight, bias, [2, 1], [1, 0], [1, 2], 2)", x(2, 4, 8, 7)));
        s.add(one("Conv2d depthwise no_batch_dim", () -> new Conv2d(3, 6, 3, 1, 1, 1, 3, false), "torch.conv2d(x, weight, None, [1, 1], [1, 1], [1, 1], 3)", x(3, 5, 5)));
        s.add(one("Conv2d padding=same", () -> new Conv2d(3, 4, new int[] {3, 4}, new int[] {1, 1}, "same", new int[] {1, 1}, 1, true, "zeros"),
                "torch.conv2d(x, weight, bias, [1, 1], 'same')", x(2, 3, 6, 6)));
        s.add(one("Conv3d padding=same no_batch_dim", () -> new Conv3d(4, 5, 3, 1, "same", 1, 1, true, "zeros"), "torch.conv3d(x, weight, bias, [1, 1, 1], 'same')", x(4, 3, 4, 5)));
        s.add(one("Conv2d padding=same int sizes", () -> new Conv2d(4, 5, 3, 1, "same", 2, 1, false, "zeros"), "torch.conv2d(x, weight, None, [1, 1], 'same', [2, 2])", x(2, 4, 6, 5)));
        s.add(one("Conv3d", () -> new Conv3d(2, 3, 2, 1, 1, 1, 1, true), "torch.conv3d(x, weight, bias, [1, 1, 1], [1, 1, 1])", x(2, 2, 4, 4, 3)));
        s.add(one("ConvTranspose1d", () -> new ConvTranspose1d(3, 4, 3, 2, 1, 1, 1, true, 1), "torch.conv_transpose1d(x, weight, bias, [2], [1], [1])", x(2, 3, 5)));
        s.add(one("ConvTranspose2d groups dilation no_bias", () -> new ConvTranspose2d(4, 6, 3, 2, 1, 1, 2, false, 2),
                "torch.conv_transpose2d(x, weight, None, [2, 2], [1, 1], [1, 1], 2, [2, 2])", x(2, 4, 4, 5)));
        s.add(one("ConvTranspose2d no_batch_dim", () -> new ConvTranspose2d(3, 2, 2), "torch.conv_transpose2d(x, weight, bias)", x(3, 4, 4)));
        s.add(one("ConvTranspose3d", () -> new ConvTranspose3d(2, 3, 2, 1, 0, 0, 1, true, 1), "torch.conv_transpose3d(x, weight, bias)", x(2, 2, 3, 3, 3)));
    }

    private static void pooling(List<Sample> s) {
        s.add(one("MaxPool1d", () -> new MaxPool1d(4, 4, 0, 1, false), "torch.max_pool1d(x, [4], [4])", x(2, 3, 10)));
        s.add(one("MaxPool1d ceil dilation pad", () -> new MaxPool1d(3, 2, 1, 2, true), "torch.max_pool1d(x, [3], [2], [1], [2], True)", x(3, 11)));
        s.add(one("MaxPool2d", () -> new MaxPool2d(new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1}, new int[] {1, 1}, false),
                "torch.max_pool2d(x, [3, 3], [2, 2], [1, 1])", x(3, 7, 7)));
        s.add(one("MaxPool2d ceil dilation", () -> new MaxPool2d(new int[] {2, 3}, new int[] {2, 1}, new int[] {1, 0}, new int[] {2, 1}, true),
                "torch.max_pool2d(x, [2, 3], [2, 1], [1, 0], [2, 1], True)", x(2, 3, 8, 7)));
        s.add(one("MaxPool3d", () -> new MaxPool3d(new int[] {2, 2, 2}, new int[] {2, 2, 2}, new int[] {1, 1, 1}, new int[] {1, 1, 1}, false),
                "torch.max_pool3d(x, [2, 2, 2], [2, 2, 2], [1, 1, 1])", x(2, 3, 5, 5, 5)));
        s.add(one("AvgPool1d no_batch_dim", () -> new AvgPool1d(2), "torch.avg_pool1d(x, [2])", x(3, 6)));
        s.add(one("AvgPool1d stride pad", () -> new AvgPool1d(2, 2, 1, false, true), "torch.avg_pool1d(x, [2], [2], [1])", x(2, 3, 6)));
        s.add(one("AvgPool1d ceil no count_include_pad", () -> new AvgPool1d(3, 2, 1, true, false), "torch.avg_pool1d(x, [3], [2], [1], True, False)", x(2, 3, 8)));
        s.add(one("AvgPool2d no_batch_dim", () -> new AvgPool2d(2), "torch.avg_pool2d(x, [2, 2])", x(3, 6, 6)));
        s.add(one("AvgPool2d stride pad", () -> new AvgPool2d(2, 2, 1), "torch.avg_pool2d(x, [2, 2], [2, 2], [1, 1])", x(2, 3, 6, 6)));
        s.add(one("AvgPool2d divisor", () -> new AvgPool2d(new int[] {2, 2}, null, new int[] {0, 0}, false, true, 1), "torch.avg_pool2d(x, [2, 2], [2, 2], [0, 0], False, True, 1)", x(2, 3, 6, 6)));
        s.add(one("AvgPool2d divisor_stride_pad", () -> new AvgPool2d(new int[] {2, 2}, new int[] {2, 2}, new int[] {1, 1}, false, true, 1),
                "torch.avg_pool2d(x, [2, 2], [2, 2], [1, 1], False, True, 1)", x(2, 3, 6, 6)));
        s.add(one("AvgPool2d ceil no count_include_pad", () -> new AvgPool2d(new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 1}, true, false, null),
                "torch.avg_pool2d(x, [3, 2], [2, 1], [1, 1], True, False)", x(2, 3, 6, 5)));
        s.add(one("AvgPool3d", () -> new AvgPool3d(2), "torch.avg_pool3d(x, [2, 2, 2])", x(2, 3, 4, 4, 4)));
        s.add(one("AvgPool3d divisor stride pad", () -> new AvgPool3d(new int[] {2, 2, 2}, new int[] {2, 2, 2}, new int[] {1, 1, 1}, false, true, 1),
                "torch.avg_pool3d(x, [2, 2, 2], [2, 2, 2], [1, 1, 1], False, True, 1)", x(2, 3, 4, 4, 4)));
        s.add(one("AdaptiveAvgPool1d", () -> new AdaptiveAvgPool1d(3), "torch.adaptive_avg_pool1d(x, [3])", x(1, 3, 5)));
        s.add(one("AdaptiveAvgPool1d no_batch_dim", () -> new AdaptiveAvgPool1d(3), "torch.adaptive_avg_pool1d(x, [3])", x(3, 5)));
        s.add(one("AdaptiveAvgPool2d", () -> new AdaptiveAvgPool2d(new int[] {3, 4}), "torch.adaptive_avg_pool2d(x, [3, 4])", x(1, 3, 5, 6)));
        s.add(one("AdaptiveAvgPool2d no_batch_dim", () -> new AdaptiveAvgPool2d(3), "torch.adaptive_avg_pool2d(x, [3, 3])", x(3, 5, 6)));
        s.add(one("AdaptiveAvgPool3d", () -> new AdaptiveAvgPool3d(new int[] {2, 3, 1}), "torch.adaptive_avg_pool3d(x, [2, 3, 1])", x(2, 3, 5, 4, 3)));
        // output_size with None entries (ModuleInfo's tuple_none): those dimensions keep the input's size
        s.add(one("AdaptiveAvgPool2d tuple_none", () -> new AdaptiveAvgPool2d(3, null), "torch.adaptive_avg_pool2d(x, [3, 6])", x(1, 3, 5, 6)));
        s.add(one("AdaptiveAvgPool3d tuple_none", () -> new AdaptiveAvgPool3d(null, 4, 5), "torch.adaptive_avg_pool3d(x, [5, 4, 5])", x(2, 3, 5, 3, 7)));
        s.add(one("AdaptiveMaxPool2d tuple_none", () -> new AdaptiveMaxPool2d(3, null), "torch.adaptive_max_pool2d(x, [3, 6])[0]", x(1, 3, 5, 6)));
        s.add(one("AdaptiveMaxPool3d tuple_none", () -> new AdaptiveMaxPool3d(3, null, 5), "torch.adaptive_max_pool3d(x, [3, 6, 5])[0]", x(2, 3, 5, 6, 7)));
        s.add(one("AdaptiveMaxPool1d", () -> new AdaptiveMaxPool1d(3), "torch.adaptive_max_pool1d(x, [3])[0]", x(1, 3, 5)));
        s.add(one("AdaptiveMaxPool2d", () -> new AdaptiveMaxPool2d(new int[] {3, 4}), "torch.adaptive_max_pool2d(x, [3, 4])[0]", x(1, 3, 5, 6)));
        s.add(one("AdaptiveMaxPool2d no_batch_dim", () -> new AdaptiveMaxPool2d(3), "torch.adaptive_max_pool2d(x, [3, 3])[0]", x(3, 5, 6)));
        s.add(one("AdaptiveMaxPool3d", () -> new AdaptiveMaxPool3d(new int[] {2, 3, 2}), "torch.adaptive_max_pool3d(x, [2, 3, 2])[0]", x(2, 3, 5, 4, 3)));
        s.add(one("LPPool1d", () -> new LPPool1d(1.5, 2), "torch.pow(torch.sign(torch.avg_pool1d(x.pow(1.5), [2])) * torch.relu(torch.abs(torch.avg_pool1d(x.pow(1.5), [2]))) * 2, 1.0 / 1.5)",
                positive(1, 3, 7)));
        s.add(one("LPPool1d norm=2 stride=3", () -> new LPPool1d(2, 2, 3, false), "torch.pow(torch.avg_pool1d(x.pow(2.0), [2], [3]) * 2, 0.5)", positive(1, 3, 7)));
        s.add(one("LPPool2d", () -> new LPPool2d(2, new int[] {2, 2}, new int[] {2, 2}, false), "torch.pow(torch.avg_pool2d(x.pow(2.0), [2, 2], [2, 2]) * 4, 0.5)", positive(1, 3, 7, 7)));
        s.add(one("LPPool3d", () -> new LPPool3d(2, new int[] {2, 2, 2}, new int[] {2, 2, 2}, false), "torch.pow(torch.avg_pool3d(x.pow(2.0), [2, 2, 2], [2, 2, 2]) * 8, 0.5)",
                positive(1, 2, 4, 4, 4)));
        s.add(one("LPPool3d norm=1.5 no_batch_dim stride=1 ceil", () -> new LPPool3d(1.5, new int[] {2, 1, 2}, new int[] {1, 1, 2}, true),
                "torch.pow(torch.avg_pool3d(x.pow(1.5), [2, 1, 2], [1, 1, 2], [0, 0, 0], True) * 4, 1.0 / 1.5)", positive(2, 3, 3, 5)));
        s.add(two("MaxUnpool1d", () -> new MaxUnpool1d(2), MaxUnpool1d::forward,
                "torch.max_unpool2d(x.unsqueeze(-1), y.unsqueeze(-1), [8, 1]).squeeze(-1)", x(1, 1, 4), fixed(Tensor.ofLongs(1, 3, 4, 6).reshape(1, 1, 4))));
        s.add(two("MaxUnpool2d", () -> new MaxUnpool2d(2), MaxUnpool2d::forward,
                "torch.max_unpool2d(x, y, [4, 4])", x(1, 1, 2, 2), fixed(Tensor.ofLongs(0, 3, 9, 14).reshape(1, 1, 2, 2))));
    }

    /** A forward's values and, as values of the same dtype, its indices: one comparison checks both (and the gradient flows through the values). */
    private static Tensor withIndices(List<Tensor> valuesAndIndices) {
        Tensor values = valuesAndIndices.get(0);
        return Tensor.cat(List.of(values.flatten(), valuesAndIndices.get(1).flatten().to(values.dtype())), 0);
    }

    /** The libtorch side of {@link #withIndices}: {@code o} a (values, indices) pair. */
    private static String withIndices(String call) { return "o = " + call + "\nreturn torch.cat([o[0].flatten(), o[1].flatten().to(o[0].dtype)])"; }

    /** Max pooling with return_indices, then unpooled by those indices: MaxUnpool's input as PyTorch's samples make it. */
    public static final class PoolThenUnpool extends Module {
        public final Module pool;
        public final Module unpool;
        private final int dims;

        PoolThenUnpool(int dims, int kernel) {
            this.dims = dims;
            this.pool = switch (dims) { case 1 -> new MaxPool1d(kernel); case 2 -> new MaxPool2d(kernel); default -> new MaxPool3d(kernel); };
            this.unpool = switch (dims) { case 1 -> new MaxUnpool1d(kernel); case 2 -> new MaxUnpool2d(kernel); default -> new MaxUnpool3d(kernel); };
        }

        @Override
        public Tensor forward(Tensor input) {
            return switch (dims) {
                case 1 -> { List<Tensor> o = ((MaxPool1d) pool).forwardWithIndices(input); yield ((MaxUnpool1d) unpool).forward(o.get(0), o.get(1)); }
                case 2 -> { List<Tensor> o = ((MaxPool2d) pool).forwardWithIndices(input); yield ((MaxUnpool2d) unpool).forward(o.get(0), o.get(1)); }
                default -> { List<Tensor> o = ((MaxPool3d) pool).forwardWithIndices(input); yield ((MaxUnpool3d) unpool).forward(o.get(0), o.get(1)); }
            };
        }
    }

    private static void poolingWithIndices(List<Sample> s) {
        s.add(one("MaxPool1d return_indices", () -> new MaxPool1d(3, 2, 1, 1, false), (m, a) -> withIndices(m.forwardWithIndices(a)),
                withIndices("torch.max_pool1d_with_indices(x, [3], [2], [1], [1], False)"), x(2, 3, 9)));
        s.add(one("MaxPool2d return_indices ceil", () -> new MaxPool2d(new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 1}, true),
                (m, a) -> withIndices(m.forwardWithIndices(a)), withIndices("torch.max_pool2d_with_indices(x, [3, 2], [2, 1], [1, 0], [1, 1], True)"), x(2, 2, 5, 4)));
        s.add(one("MaxPool3d return_indices", () -> new MaxPool3d(new int[] {2, 2, 2}, new int[] {2, 2, 2}, new int[] {1, 1, 1}, new int[] {1, 1, 1}, false),
                (m, a) -> withIndices(m.forwardWithIndices(a)), withIndices("torch.max_pool3d_with_indices(x, [2, 2, 2], [2, 2, 2], [1, 1, 1])"), x(1, 2, 3, 4, 3)));
        s.add(one("AdaptiveMaxPool1d return_indices", () -> new AdaptiveMaxPool1d(3, true), (m, a) -> withIndices(m.forwardWithIndices(a)),
                withIndices("torch.adaptive_max_pool1d(x, [3])"), x(2, 3, 7)));
        s.add(one("AdaptiveMaxPool2d return_indices", () -> new AdaptiveMaxPool2d(new int[] {2, 3}, true), (m, a) -> withIndices(m.forwardWithIndices(a)),
                withIndices("torch.adaptive_max_pool2d(x, [2, 3])"), x(2, 5, 7)));
        s.add(one("AdaptiveMaxPool3d return_indices", () -> new AdaptiveMaxPool3d(new int[] {2, 1, 2}, true), (m, a) -> withIndices(m.forwardWithIndices(a)),
                withIndices("torch.adaptive_max_pool3d(x, [2, 1, 2])"), x(1, 2, 3, 4, 5)));
        s.add(one("MaxUnpool1d of MaxPool1d indices", () -> new PoolThenUnpool(1, 2),
                "o = torch.max_pool1d_with_indices(x, [2], [2])\nreturn torch.max_unpool2d(o[0].unsqueeze(-1), o[1].unsqueeze(-1), [8, 1]).squeeze(-1)", x(2, 3, 8)));
        s.add(one("MaxUnpool2d of MaxPool2d indices", () -> new PoolThenUnpool(2, 2),
                "o = torch.max_pool2d_with_indices(x, [2, 2], [2, 2])\nreturn torch.max_unpool2d(o[0], o[1], [4, 6])", x(2, 2, 4, 6)));
        s.add(one("MaxUnpool3d of MaxPool3d indices", () -> new PoolThenUnpool(3, 2),
                "o = torch.max_pool3d_with_indices(x, [2, 2, 2], [2, 2, 2])\nreturn torch.max_unpool3d(o[0], o[1], [4, 2, 4], [2, 2, 2], [0, 0, 0])", x(1, 2, 4, 2, 4)));
    }

    /** Fixed window offsets ({@code _random_samples}) for the fractional max pooling samples, and their TorchScript spelling. */
    private static final Tensor FRACTIONAL_2D = Tensor.of(new double[] {0.25, 0.75, 0.5, 0.125}, 1, 2, 2);
    private static final Tensor FRACTIONAL_3D = Tensor.of(new double[] {0.25, 0.75, 0.5, 0.125, 0.875, 0.375}, 1, 2, 3);

    private static void fractionalPooling(List<Sample> s) {
        String samples2 = "torch.tensor([[[0.25, 0.75], [0.5, 0.125]]], dtype=x.dtype)";
        String samples3 = "torch.tensor([[[0.25, 0.75, 0.5], [0.125, 0.875, 0.375]]], dtype=x.dtype)";
        s.add(one("FractionalMaxPool2d output_size", () -> new FractionalMaxPool2d(new int[] {2, 2}, new int[] {3, 4}, null, FRACTIONAL_2D),
                (m, a) -> withIndices(m.forwardWithIndices(a)), withIndices("torch.fractional_max_pool2d(x, [2, 2], [3, 4], " + samples2 + ")"), x(1, 2, 7, 9)));
        s.add(one("FractionalMaxPool2d output_ratio", () -> new FractionalMaxPool2d(new int[] {3, 2}, null, new double[] {0.5, 0.7}, FRACTIONAL_2D),
                "torch.fractional_max_pool2d(x, [3, 2], [4, 7], " + samples2 + ")[0]", x(1, 2, 8, 10)));
        s.add(one("FractionalMaxPool3d", () -> new FractionalMaxPool3d(new int[] {2, 2, 2}, new int[] {3, 2, 3}, null, FRACTIONAL_3D),
                (m, a) -> withIndices(m.forwardWithIndices(a)), withIndices("torch.fractional_max_pool3d(x, [2, 2, 2], [3, 2, 3], " + samples3 + ")"), x(1, 2, 5, 4, 6)));
    }

    private static void attention(List<Sample> s) {
        for (boolean bias : new boolean[] {true, false}) {
            for (boolean batchFirst : new boolean[] {true, false}) {
                String desc = (bias ? "" : " no_bias") + (batchFirst ? " batch_first" : "");
                String ref = mhaReference(bias, 2, batchFirst ? "qi = x\nki = y\nvi = z" : "qi = x.transpose(0, 1)\nki = y.transpose(0, 1)\nvi = z.transpose(0, 1)",
                        batchFirst ? "o" : "o.transpose(0, 1)");
                int[] q = batchFirst ? new int[] {2, 3, 6} : new int[] {3, 2, 6}, kv = batchFirst ? new int[] {2, 4, 6} : new int[] {4, 2, 6};
                s.add(three("MultiheadAttention" + desc, () -> new MultiheadAttention(6, 2, 0.0, bias).batchFirst(batchFirst), MultiheadAttention::forward, ref, x(q), x(kv), x(kv)));
            }
        }
        s.add(three("MultiheadAttention no_batch_dim", () -> new MultiheadAttention(6, 3), MultiheadAttention::forward,
                mhaReference(true, 3, "qi = x.unsqueeze(0)\nki = y.unsqueeze(0)\nvi = z.unsqueeze(0)", "o.squeeze(0)"), x(3, 6), x(4, 6), x(4, 6)));
    }

    /** MultiheadAttention's output and its attention weights, flattened into one tensor. */
    private static Tensor outputAndWeights(MultiheadAttention.Output o) { return Tensor.cat(List.of(o.output().flatten(), o.weights().flatten()), 0); }

    /** PyTorch's MultiheadAttention options: kdim/vdim, add_bias_kv, add_zero_attn, need_weights and average_attn_weights. */
    private static void attentionOptions(List<Sample> s) {
        s.add(three("MultiheadAttention kdim vdim batch_first", () -> new MultiheadAttention(6, 2, 0.0, true, false, false, 5, 3), MultiheadAttention::forward,
                mhaOptionsReference(2, true, true, false, false, "None", null), x(2, 3, 6), x(2, 4, 5), x(2, 4, 3)));
        s.add(three("MultiheadAttention kdim no_bias seq_first", () -> new MultiheadAttention(4, 2, 0.0, false, false, false, 3, null).batchFirst(false),
                MultiheadAttention::forward, mhaOptionsReference(2, true, false, false, false, "None", null).replace("qi = x\nki = y\nvi = z", "qi = x.transpose(0, 1)\nki = y.transpose(0, 1)\nvi = z.transpose(0, 1)")
                        .replace("return o", "return o.transpose(0, 1)"), x(3, 2, 4), x(5, 2, 3), x(5, 2, 4)));
        s.add(three("MultiheadAttention add_bias_kv add_zero_attn key_padding_mask", () -> new MultiheadAttention(4, 2, 0.0, true, true, true, null, null),
                (m, a, b, c) -> m.forward(a, b, b, null, c),
                "ki = y\n" + BOOL_MASK.formatted("kp", "z") + "kp = torch.cat([kp, torch.zeros(2, 2, dtype=kp.dtype)], 1).reshape(2, 1, 1, 6)\n"
                        + mhaOptionsReference(2, false, true, true, true, "kp", null).replace("vi = z", "vi = y"), x(2, 3, 4), x(2, 4, 4), fixed(KEY_PADDING_2x4)));
        s.add(two("MultiheadAttention need_weights per head add_zero_attn", () -> new MultiheadAttention(4, 2, 0.0, true, false, true, null, null),
                (m, a, b) -> outputAndWeights(m.forward(a, b, b, null, true, null, false)),
                mhaOptionsReference(2, false, true, false, true, "None", "w").replace("vi = z", "vi = y"), x(2, 3, 4), x(2, 5, 4)));
        s.add(two("MultiheadAttention need_weights averaged add_bias_kv attn_mask", () -> new MultiheadAttention(4, 2, 0.0, true, true, false, null, null),
                (m, a, b) -> outputAndWeights(m.forward(a, a, a, null, true, b, true)),
                "ki = x\nam = torch.cat([y, torch.zeros(3, 1, dtype=y.dtype)], 1)\n" + mhaOptionsReference(2, false, true, true, false, "am", "w.mean(1)")
                        .replace("ki = y\nvi = z", "ki = x\nvi = x"), x(2, 3, 4), target(3, 3)));
    }

    /**
     * F.multi_head_attention_forward in ATen ops, batch first: separate or packed projections (as
     * the sizes say), add_bias_kv's learned key and value, add_zero_attn's zero ones after the head
     * split, an additive {@code mask} over the grown key set; with {@code weights} (an expression of
     * {@code w}, the per-head softmax) the output and the weights flattened together.
     */
    private static String mhaOptionsReference(int heads, boolean separate, boolean bias, boolean biasKv, boolean zeroAttn, String mask, String weights) {
        String[] w = separate ? new String[] {"q_proj_weight", "k_proj_weight", "v_proj_weight"}
                : new String[] {"in_proj_weight[0:E]", "in_proj_weight[E:2 * E]", "in_proj_weight[2 * E:]"};
        String[] b = bias ? new String[] {"in_proj_bias[0:E]", "in_proj_bias[E:2 * E]", "in_proj_bias[2 * E:]"} : new String[] {"None", "None", "None"};
        StringBuilder r = new StringBuilder("qi = x\nki = y\nvi = z\nE = qi.size(-1)\nH = " + heads + "\n");
        r.append("q = torch.linear(qi, ").append(w[0]).append(", ").append(b[0]).append(")\n");
        r.append("k = torch.linear(ki, ").append(w[1]).append(", ").append(b[1]).append(")\n");
        r.append("v = torch.linear(vi, ").append(w[2]).append(", ").append(b[2]).append(")\n");
        r.append("B = q.size(0)\n");
        if (biasKv) r.append("k = torch.cat([k, bias_k.expand(B, 1, E)], 1)\nv = torch.cat([v, bias_v.expand(B, 1, E)], 1)\n");
        r.append("L = q.size(1)\nS = k.size(1)\n");
        r.append("q = q.reshape(B, L, H, E // H).transpose(1, 2)\nk = k.reshape(B, S, H, E // H).transpose(1, 2)\nv = v.reshape(B, S, H, E // H).transpose(1, 2)\n");
        if (zeroAttn) r.append("k = torch.cat([k, torch.zeros(B, H, 1, E // H, dtype=k.dtype)], 2)\nv = torch.cat([v, torch.zeros(B, H, 1, E // H, dtype=v.dtype)], 2)\n");
        r.append("s = torch.matmul(q * (1.0 / float(E // H) ** 0.5), k.transpose(-2, -1))\n");
        if (!mask.equals("None")) r.append("s = s + ").append(mask).append("\n");
        r.append("w = torch.softmax(s, -1)\n");
        r.append("o = torch.linear(torch.matmul(w, v).transpose(1, 2).reshape(B, L, E), out_proj_weight, ").append(bias ? "out_proj_bias" : "None").append(")\n");
        r.append(weights == null ? "return o" : "return torch.cat([o.flatten(), (" + weights + ").flatten()])");
        return r.toString();
    }

    /**
     * MultiheadAttention's computation in ATen ops, batch-first inside: {@code prelude} makes the
     * inputs so ({@code qi, ki, vi}), {@code output} undoes it on the result.
     */
    private static String mhaReference(boolean bias, int heads, String prelude, String output) {
        String in = bias ? "in_proj_bias[%s]" : "None";
        return """
                %s
                E = qi.size(-1)
                H = %d
                q = torch.linear(qi, in_proj_weight[0:E], %s)
                k = torch.linear(ki, in_proj_weight[E:2 * E], %s)
                v = torch.linear(vi, in_proj_weight[2 * E:], %s)
                B = q.size(0)
                L = q.size(1)
                S = k.size(1)
                q = q.reshape(B, L, H, E // H).transpose(1, 2)
                k = k.reshape(B, S, H, E // H).transpose(1, 2)
                v = v.reshape(B, S, H, E // H).transpose(1, 2)
                o = torch.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, L, E)
                o = torch.linear(o, out_proj_weight, %s)
                return %s""".formatted(prelude, heads, in.formatted("0:E"), in.formatted("E:2 * E"), in.formatted("2 * E:"), bias ? "out_proj_bias" : "None", output);
    }

    // ------------------------------------------------------------------ transformers

    /** Bags of two and three positions with one padded key each, and a bool attention mask no row of which blocks every key. */
    private static final Tensor KEY_PADDING_2x3 = Tensor.ofLongs(0, 0, 1, 0, 1, 0).reshape(2, 3).ne(0.0);
    private static final Tensor KEY_PADDING_2x4 = Tensor.ofLongs(0, 0, 0, 1, 1, 0, 0, 0).reshape(2, 4).ne(0.0);
    private static final Tensor BLOCKED_3x3 = Tensor.ofLongs(0, 1, 1, 0, 0, 1, 1, 0, 0).reshape(3, 3).ne(0.0);

    /** {@code module} in eval mode, its own type kept (Module.eval returns a Module). */
    private static <M extends Module> M evaluating(M module) {
        module.eval();
        return module;
    }

    /** A causal bool mask (true above the diagonal: may not attend), as the is_causal hint wants beside it. */
    private static Tensor causal(int n) { return Tensor.ones(n, n).triu(1).ne(0.0); }

    private static void transformers(List<Sample> s) {
        // TransformerEncoderLayer: common_modules' variants (norm_first, activations by name and callable, batch_first, masks, is_causal);
        // the sequence-first layout of both layers is sampled in Transformer's, whose encoder and decoder layers are sequence first
        s.add(three("TransformerEncoderLayer norm_first gelu batch_first src_mask src_key_padding_mask",
                () -> new TransformerEncoderLayer(4, 2, 8, 0.0, "gelu", 1e-5, true, true), TransformerEncoderLayer::forward,
                "hs = x\n" + KEY_PADDING_MASK + encoderLayer("", 2, "y + kp", false, "torch.gelu(%s)", true) + "return hs",
                x(2, 3, 4), target(3, 3), fixed(KEY_PADDING_2x3)));
        s.add(two("TransformerEncoderLayer callable activation bool src_mask eval",
                () -> evaluating(new TransformerEncoderLayer(4, 2, 8, 0.0, (dev.ember.nn.Activation) t -> t.tanh(), 1e-5, false, true)),
                TransformerEncoderLayer::forward,
                "hs = x\n" + BOOL_MASK.formatted("am", "y") + encoderLayer("", 2, "am", false, "torch.tanh(%s)", false) + "return hs", x(2, 3, 4), fixed(BLOCKED_3x3)));
        s.add(two("TransformerEncoderLayer is_causal", () -> new TransformerEncoderLayer(4, 2, 8, 0.0), (m, a, b) -> m.forward(a, b, null, true),
                "hs = x\n" + encoderLayer("", 2, "None", true, "torch.relu(%s)", false) + "return hs", x(2, 3, 4), fixed(causal(3))));
        s.add(two("TransformerEncoder two layers norm src_key_padding_mask",
                () -> new TransformerEncoder(() -> new TransformerEncoderLayer(4, 2, 8, 0.0), 2, new LayerNorm(new int[] {4}, 1e-5, true, true)),
                (m, a, b) -> m.forward(a, null, b),
                "hs = x\n" + BOOL_MASK.formatted("kp", "y") + "kp = kp.reshape(y.size(0), 1, 1, y.size(1))\n"
                        + encoderLayer("layers_0_", 2, "kp", false, "torch.relu(%s)", false) + encoderLayer("layers_1_", 2, "kp", false, "torch.relu(%s)", false)
                        + "return torch.layer_norm(hs, [hs.size(-1)], norm_weight, norm_bias, 1e-5)", x(2, 3, 4), fixed(KEY_PADDING_2x3)));
        // TransformerDecoderLayer
        s.add(three("TransformerDecoderLayer norm_first gelu batch_first tgt_is_causal",
                () -> new TransformerDecoderLayer(4, 2, 8, 0.0, "gelu", 1e-5, true, true), (m, a, b, c) -> m.forward(a, b, c, null, null, null, true, false),
                "hs = x\nmem = y\n" + decoderLayer("", 2, "None", true, "None", "torch.gelu(%s)", true) + "return hs", x(2, 3, 4), x(2, 4, 4), fixed(causal(3))));
        s.add(three("TransformerDecoderLayer callable activation memory_key_padding_mask",
                () -> new TransformerDecoderLayer(4, 2, 8, 0.0, (dev.ember.nn.Activation) t -> t.sigmoid(), 1e-5, false, true),
                (m, a, b, c) -> m.forward(a, b, null, null, null, c),
                "hs = x\nmem = y\n" + BOOL_MASK.formatted("kp", "z") + "kp = kp.reshape(z.size(0), 1, 1, z.size(1))\n"
                        + decoderLayer("", 2, "None", false, "kp", "torch.sigmoid(%s)", false) + "return hs", x(2, 3, 4), x(2, 4, 4), fixed(KEY_PADDING_2x4)));
        // Transformer: one encoder and one decoder layer, each stack with its final norm
        s.add(two("Transformer", () -> new Transformer(4, 2, 1, 1, 8, 0.0).batchFirst(false), Transformer::forward,
                "hs = x.transpose(0, 1)\n" + encoderLayer("encoder_layers_0_", 2, "None", false, "torch.relu(%s)", false)
                        + "mem = torch.layer_norm(hs, [hs.size(-1)], encoder_norm_weight, encoder_norm_bias, 1e-5)\nhs = y.transpose(0, 1)\n"
                        + decoderLayer("decoder_layers_0_", 2, "None", false, "None", "torch.relu(%s)", false)
                        + "return torch.layer_norm(hs, [hs.size(-1)], decoder_norm_weight, decoder_norm_bias, 1e-5).transpose(0, 1)",
                x(3, 2, 4), x(2, 2, 4)));
        s.add(three("Transformer batch_first norm_first gelu tgt_mask tgt_is_causal",
                () -> new Transformer(4, 2, 1, 1, 8, 0.0, "gelu", 1e-5, true, true),
                (m, a, b, c) -> m.forward(a, b, null, c, null, null, null, null, false, true, false),
                "hs = x\n" + encoderLayer("encoder_layers_0_", 2, "None", false, "torch.gelu(%s)", true)
                        + "mem = torch.layer_norm(hs, [hs.size(-1)], encoder_norm_weight, encoder_norm_bias, 1e-5)\nhs = y\n"
                        + decoderLayer("decoder_layers_0_", 2, "None", true, "None", "torch.gelu(%s)", true)
                        + "return torch.layer_norm(hs, [hs.size(-1)], decoder_norm_weight, decoder_norm_bias, 1e-5)",
                x(2, 3, 4), x(2, 2, 4), fixed(causal(2))));
    }

    /** {@code %1$s}: the bool mask {@code %2$s} as MultiheadAttention adds it to the scores (true: -inf). */
    private static final String BOOL_MASK = "%1$s = torch.zeros(%2$s.shape, dtype=x.dtype).masked_fill(%2$s, float('-inf'))\n";

    /** z, a bool key padding mask [B, S], as an additive mask {@code kp} broadcasting over heads and queries. */
    private static final String KEY_PADDING_MASK = BOOL_MASK.formatted("kp", "z") + "kp = kp.reshape(z.size(0), 1, 1, z.size(1))\n";

    /**
     * nn.TransformerEncoderLayer's forward in ATen ops on {@code t} (batch first), its parameters
     * prefixed {@code p}: self-attention under the additive {@code mask} (or sdpa's is_causal), then
     * the feed-forward block with activation {@code act} (a format of one argument), post- or pre-norm.
     */
    private static String encoderLayer(String p, int heads, String mask, boolean causal, String act, boolean normFirst) {
        String feedForward = "torch.linear(" + act.formatted("torch.linear(h, " + p + "linear1_weight, " + p + "linear1_bias)") + ", " + p + "linear2_weight, " + p + "linear2_bias)";
        if (normFirst) {
            return layerNorm("h", "hs", p + "norm1") + attention(p + "self_attn_", "h", "h", "h", heads, mask, causal) + "hs = hs + h\n"
                    + layerNorm("h", "hs", p + "norm2") + "hs = hs + " + feedForward + "\n";
        }
        return attention(p + "self_attn_", "h", "hs", "hs", heads, mask, causal) + layerNorm("hs", "hs + h", p + "norm1")
                + "h = hs\n" + layerNorm("hs", "hs + " + feedForward, p + "norm2");
    }

    /** nn.TransformerDecoderLayer's forward on {@code t} attending to {@code mem}: self-attention, cross-attention, feed-forward. */
    private static String decoderLayer(String p, int heads, String selfMask, boolean selfCausal, String memoryMask, String act, boolean normFirst) {
        String feedForward = "torch.linear(" + act.formatted("torch.linear(h, " + p + "linear1_weight, " + p + "linear1_bias)") + ", " + p + "linear2_weight, " + p + "linear2_bias)";
        if (normFirst) {
            return layerNorm("h", "hs", p + "norm1") + attention(p + "self_attn_", "h", "h", "h", heads, selfMask, selfCausal) + "hs = hs + h\n"
                    + layerNorm("h", "hs", p + "norm2") + attention(p + "multihead_attn_", "h", "h", "mem", heads, memoryMask, false) + "hs = hs + h\n"
                    + layerNorm("h", "hs", p + "norm3") + "hs = hs + " + feedForward + "\n";
        }
        return attention(p + "self_attn_", "h", "hs", "hs", heads, selfMask, selfCausal) + layerNorm("hs", "hs + h", p + "norm1")
                + attention(p + "multihead_attn_", "h", "hs", "mem", heads, memoryMask, false) + layerNorm("hs", "hs + h", p + "norm2")
                + "h = hs\n" + layerNorm("hs", "hs + " + feedForward, p + "norm3");
    }

    private static String layerNorm(String out, String in, String norm) {
        return out + " = torch.layer_norm(" + in + ", [x.size(-1)], " + norm + "_weight, " + norm + "_bias, 1e-5)\n";
    }

    /** MultiheadAttention (packed in_proj, with biases) of query {@code q} over {@code kv}, batch first, into {@code out}. */
    private static String attention(String p, String out, String q, String kv, int heads, String mask, boolean causal) {
        return """
                aE = %2$s.size(-1)
                aB = %2$s.size(0)
                aL = %2$s.size(1)
                aS = %3$s.size(1)
                aq = torch.linear(%2$s, %1$sin_proj_weight[0:aE], %1$sin_proj_bias[0:aE]).reshape(aB, aL, %4$d, aE // %4$d).transpose(1, 2)
                ak = torch.linear(%3$s, %1$sin_proj_weight[aE:2 * aE], %1$sin_proj_bias[aE:2 * aE]).reshape(aB, aS, %4$d, aE // %4$d).transpose(1, 2)
                av = torch.linear(%3$s, %1$sin_proj_weight[2 * aE:], %1$sin_proj_bias[2 * aE:]).reshape(aB, aS, %4$d, aE // %4$d).transpose(1, 2)
                ao = torch.scaled_dot_product_attention(aq, ak, av, attn_mask=%5$s, is_causal=%6$s).transpose(1, 2).reshape(aB, aL, aE)
                %7$s = torch.linear(ao, %1$sout_proj_weight, %1$sout_proj_bias)
                """.formatted(p, q, kv, heads, mask, causal ? "True" : "False", out);
    }

    private static void norms(List<Sample> s) {
        s.add(one("BatchNorm1d train", () -> new BatchNorm1d(10), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 0.1, 1e-5, False)", x(4, 10)));
        s.add(one("BatchNorm1d 3d input", () -> new BatchNorm1d(5, 1e-3, 0.3, true, true), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 0.3, 1e-3, False)", x(4, 5, 3)));
        s.add(one("BatchNorm1d eval", () -> new BatchNorm1d(10).eval(), "torch.batch_norm(x, weight, bias, running_mean, running_var, False, 0.1, 1e-5, False)", x(4, 10)));
        s.add(one("BatchNorm1d not affine", () -> new BatchNorm1d(10, 1e-5, 0.1, false, true), "torch.batch_norm(x, None, None, running_mean, running_var, True, 0.1, 1e-5, False)", x(4, 10)));
        s.add(one("BatchNorm1d not tracking stats", () -> new BatchNorm1d(5, 1e-5, 0.1, true, false), "torch.batch_norm(x, weight, bias, None, None, True, 0.1, 1e-5, False)", x(4, 5, 3)));
        s.add(one("BatchNorm2d", () -> new BatchNorm2d(3), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 0.1, 1e-5, False)", x(2, 3, 6, 6)));
        s.add(one("BatchNorm2d eval not tracking", () -> new BatchNorm2d(3, 1e-5, 0.1, true, false).eval(),
                "torch.batch_norm(x, weight, bias, None, None, True, 0.1, 1e-5, False)", x(2, 3, 6, 6)));
        s.add(one("BatchNorm3d", () -> new BatchNorm3d(3), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 0.1, 1e-5, False)", x(2, 3, 4, 4, 4)));
        s.add(one("SyncBatchNorm 3d input", () -> new SyncBatchNorm(3, 1e-3, 0.3, true, true), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 0.3, 1e-3, False)", x(2, 3, 5)));
        s.add(one("SyncBatchNorm 2d input eval", () -> new SyncBatchNorm(3).eval(), "torch.batch_norm(x, weight, bias, running_mean, running_var, False, 0.1, 1e-5, False)", x(4, 3)));
        // momentum=None (ModuleInfo's *_simple_average): the first batch's update weight is 1 / num_batches_tracked = 1
        s.add(one("BatchNorm1d simple average", () -> new BatchNorm1d(10, 1e-3, null, true, true), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 1.0, 1e-3, False)", x(4, 10)));
        s.add(one("BatchNorm2d simple average", () -> new BatchNorm2d(3, 1e-3, null, true, true), "torch.batch_norm(x, weight, bias, running_mean, running_var, True, 1.0, 1e-3, False)", x(2, 3, 6, 6)));
        s.add(one("BatchNorm3d simple average eval", () -> new BatchNorm3d(3, 1e-3, null, true, true).eval(),
                "torch.batch_norm(x, weight, bias, running_mean, running_var, False, 0.0, 1e-3, False)", x(2, 3, 4, 4, 4)));
        s.add(one("InstanceNorm1d", () -> new InstanceNorm1d(3), "torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)", x(4, 3, 15)));
        s.add(one("InstanceNorm1d no_batch_dim", () -> new InstanceNorm1d(3), "torch.instance_norm(x.unsqueeze(0), None, None, None, None, True, 0.1, 1e-5, False).squeeze(0)", x(3, 15)));
        s.add(one("InstanceNorm1d affine tracking", () -> new InstanceNorm1d(3, 1e-5, 0.3, true, true),
                "torch.instance_norm(x, weight, bias, running_mean, running_var, True, 0.3, 1e-5, False)", x(4, 3, 15)));
        s.add(one("InstanceNorm1d tracking eval", () -> new InstanceNorm1d(3, 1e-5, 0.3, true, true).eval(),
                "torch.instance_norm(x, weight, bias, running_mean, running_var, False, 0.3, 1e-5, False)", x(4, 3, 15)));
        s.add(one("InstanceNorm2d affine", () -> new InstanceNorm2d(3, 1e-5, 0.1, true, false),
                "torch.instance_norm(x, weight, bias, None, None, True, 0.1, 1e-5, False)", x(2, 3, 6, 6)));
        s.add(one("InstanceNorm3d", () -> new InstanceNorm3d(3), "torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)", x(2, 3, 3, 4, 4)));
        s.add(one("InstanceNorm3d affine tracking no_batch_dim", () -> new InstanceNorm3d(3, 1e-5, 0.3, true, true),
                "torch.instance_norm(x.unsqueeze(0), weight, bias, running_mean, running_var, True, 0.3, 1e-5, False).squeeze(0)", x(3, 2, 3, 4)));
        s.add(one("GroupNorm", () -> new GroupNorm(3, 6, 1e-3, true), "torch.group_norm(x, 3, weight, bias, 1e-3)", x(4, 6, 5)));
        s.add(one("GroupNorm 2d not affine", () -> new GroupNorm(3, 6, 1e-3, false), "torch.group_norm(x, 3, None, None, 1e-3)", x(4, 6, 2, 3)));
        s.add(one("GroupNorm one group", () -> new GroupNorm(1, 6), "torch.group_norm(x, 1, weight, bias, 1e-5)", x(4, 6, 5)));
        s.add(one("LayerNorm", () -> new LayerNorm(new int[] {5}, 1e-3, true, true), "torch.layer_norm(x, [5], weight, bias, 1e-3)", x(4, 5, 5)));
        s.add(one("LayerNorm 3 dims", () -> new LayerNorm(new int[] {2, 2, 5}, 1e-3, true, true), "torch.layer_norm(x, [2, 2, 5], weight, bias, 1e-3)", x(4, 2, 2, 5)));
        s.add(one("LayerNorm no bias", () -> new LayerNorm(new int[] {5}, 1e-3, true, false), "torch.layer_norm(x, [5], weight, None, 1e-3)", x(4, 5)));
        s.add(one("LayerNorm not affine", () -> new LayerNorm(new int[] {5}, 1e-3, false, true), "torch.layer_norm(x, [5], None, None, 1e-3)", x(4, 5)));
        s.add(one("RMSNorm", () -> new RMSNorm(new int[] {5}, 1e-3, true), "torch.rms_norm(x, [5], weight, 1e-3)", x(4, 5, 5)));
        s.add(one("RMSNorm default eps", () -> new RMSNorm(new int[] {2, 5}, null, true), "torch.rms_norm(x, [2, 5], weight)", x(4, 2, 5)));
        s.add(one("RMSNorm not affine", () -> new RMSNorm(new int[] {5}, null, false), "torch.rms_norm(x, [5])", x(4, 5)));
        s.add(one("LocalResponseNorm", () -> new LocalResponseNorm(3), LRN_REFERENCE.formatted(3, 1e-4, 0.75, 1.0), x(1, 5, 7)));
        s.add(one("LocalResponseNorm 2d", () -> new LocalResponseNorm(2, 1e-2, 0.5, 2.0), LRN_REFERENCE.formatted(2, 1e-2, 0.5, 2.0), x(1, 5, 3, 4)));
        s.add(one("CrossMapLRN2d", () -> new CrossMapLRN2d(5, 5e-3, 1e-3, 2), CROSS_MAP_LRN_REFERENCE.formatted(5, 5e-3, 2.0, 1e-3), x(2, 3, 6, 6)));
        s.add(one("CrossMapLRN2d more channels than its window", () -> new CrossMapLRN2d(3, 0.5, 0.75, 1), CROSS_MAP_LRN_REFERENCE.formatted(3, 0.5, 1.0, 0.75), x(2, 7, 3, 4)));
        s.add(one("AdaptiveLogSoftmaxWithLoss log_prob", () -> new AdaptiveLogSoftmaxWithLoss(8, 10, new int[] {3, 6}, 2.0, true), AdaptiveLogSoftmaxWithLoss::logProb,
                ADAPTIVE_LOG_PROB + "return lp", x(4, 8)));
        s.add(two("AdaptiveLogSoftmaxWithLoss", () -> new AdaptiveLogSoftmaxWithLoss(8, 10, new int[] {3, 6}, 2.0, true), (m, a, b) -> m.forward(a, b).output(),
                ADAPTIVE_LOG_PROB + "return lp.gather(1, y.unsqueeze(1)).squeeze(1)", x(4, 8), fixed(Tensor.ofLongs(0, 4, 9, 7))));
    }

    /** torch's _cross_map_lrn2d forward, its running sum over channels as written there (size, alpha, k, beta). */
    private static final String CROSS_MAP_LRN_REFERENCE = """
            sq = x * x
            C = x.size(1)
            pre = int((%1$d - 1) / 2 + 1)
            scales = [sq.narrow(1, 0, min(pre, C)).sum(1)]
            for ch in range(1, C):
                sc = scales[ch - 1]
                if ch < C - pre + 1:
                    sc = sc + sq.select(1, ch + pre - 1)
                if ch > pre:
                    sc = sc - sq.select(1, ch - pre)
                scales.append(sc)
            return torch.pow(torch.stack(scales, 1) * (%2$s / %1$d) + %3$s, -%4$s) * x""";

    /** AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], 2.0, head_bias=True)'s full log-distribution: the shortlist, then each cluster plus its head entry. */
    private static final String ADAPTIVE_LOG_PROB = """
            h = torch.log_softmax(torch.linear(x, head_weight, head_bias), 1)
            lp = torch.cat([h.narrow(1, 0, 3), torch.log_softmax(torch.linear(torch.linear(x, tail_0_0_weight), tail_0_1_weight), 1) + h.narrow(1, 3, 1),
                torch.log_softmax(torch.linear(torch.linear(x, tail_1_0_weight), tail_1_1_weight), 1) + h.narrow(1, 4, 1)], 1)
            """;

    /** nn.functional.local_response_norm's own composite, written over the channel dim for 3-d and 4-d inputs. */
    private static final String LRN_REFERENCE = """
            div = (x * x).unsqueeze(1).flatten(3)
            div = torch.avg_pool2d(torch.constant_pad_nd(div, [0, 0, %1$d // 2, (%1$d - 1) // 2]), [%1$d, 1], [1, 1]).squeeze(1)
            div = div.reshape(x.shape) * %2$s + %4$s
            return x / div.pow(%3$s)""";

    private static void padsAndShapes(List<Sample> s) {
        s.add(one("ConstantPad1d", () -> new ConstantPad1d(new int[] {1, 2}, 2.5), "torch.constant_pad_nd(x, [1, 2], 2.5)", x(2, 3, 4)));
        s.add(one("ConstantPad2d no_batch_dim", () -> new ConstantPad2d(2, -1), "torch.constant_pad_nd(x, [2, 2, 2, 2], -1.0)", x(3, 4, 4)));
        s.add(one("ConstantPad3d", () -> new ConstantPad3d(new int[] {1, 0, 2, 1, 0, 1}, 0.5), "torch.constant_pad_nd(x, [1, 0, 2, 1, 0, 1], 0.5)", x(1, 2, 3, 3, 2)));
        s.add(one("ZeroPad1d negative", () -> new ZeroPad1d(-1, 2), "torch.constant_pad_nd(x, [-1, 2])", x(2, 3, 4)));
        s.add(one("ZeroPad2d", () -> new ZeroPad2d(1, 2, 0, 1), "torch.constant_pad_nd(x, [1, 2, 0, 1])", x(2, 3, 4, 4)));
        s.add(one("ZeroPad3d no_batch_dim", () -> new ZeroPad3d(1), "torch.constant_pad_nd(x, [1, 1, 1, 1, 1, 1])", x(2, 3, 3, 2)));
        for (String mode : List.of("reflect", "replicate", "circular")) {
            String cls = switch (mode) { case "reflect" -> "ReflectionPad"; case "replicate" -> "ReplicationPad"; default -> "CircularPad"; };
            s.add(one(cls + "1d", () -> pad(mode, 1, new int[] {1, 2}), "torch.pad(x, [1, 2], '" + mode + "')", x(2, 3, 4)));
            s.add(one(cls + "1d no_batch_dim", () -> pad(mode, 1, new int[] {2, 1}), "torch.pad(x, [2, 1], '" + mode + "')", x(3, 4)));
            s.add(one(cls + "2d", () -> pad(mode, 2, new int[] {1, 2, 2, 0}), "torch.pad(x, [1, 2, 2, 0], '" + mode + "')", x(2, 3, 4, 5)));
            s.add(one(cls + "2d no_batch_dim", () -> pad(mode, 2, new int[] {1, 1, 1, 1}), "torch.pad(x, [1, 1, 1, 1], '" + mode + "')", x(3, 4, 5)));
            s.add(one(cls + "3d", () -> pad(mode, 3, new int[] {1, 2, 0, 1, 2, 1}), "torch.pad(x, [1, 2, 0, 1, 2, 1], '" + mode + "')", x(2, 3, 4, 3, 3)));
        }
        s.add(one("Flatten", Flatten::new, "x.flatten(1)", x(2, 3, 4, 5)));
        s.add(one("Flatten 0 2", () -> new Flatten(0, 2), "x.flatten(0, 2)", x(2, 3, 4, 5)));
        s.add(one("Unflatten", () -> new Unflatten(1, 2, -1), "x.unflatten(1, [2, -1])", x(2, 6, 4)));
        s.add(one("PixelShuffle", () -> new PixelShuffle(2), "torch.pixel_shuffle(x, 2)", x(1, 8, 3, 3)));
        s.add(one("PixelShuffle no_batch_dim", () -> new PixelShuffle(3), "torch.pixel_shuffle(x, 3)", x(9, 2, 2)));
        s.add(one("PixelUnshuffle", () -> new PixelUnshuffle(2), "torch.pixel_unshuffle(x, 2)", x(1, 2, 4, 6)));
        s.add(one("ChannelShuffle", () -> new ChannelShuffle(2), "torch.channel_shuffle(x, 2)", x(2, 4, 3, 3)));
        s.add(one("Unfold", () -> new Unfold(new int[] {2, 2}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}), "torch.im2col(x, [2, 2], [1, 1], [0, 0], [1, 1])", x(2, 3, 3, 3)));
        s.add(one("Unfold no_batch_dim dilation pad stride", () -> new Unfold(new int[] {2, 3}, new int[] {2, 1}, new int[] {1, 1}, new int[] {2, 1}),
                "torch.im2col(x.unsqueeze(0), [2, 3], [2, 1], [1, 1], [2, 1]).squeeze(0)", x(3, 5, 6)));
        s.add(one("Fold", () -> new Fold(new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}), "torch.col2im(x, [3, 3], [2, 2], [1, 1], [0, 0], [1, 1])", x(2, 12, 4)));
        s.add(one("Fold no_batch_dim", () -> new Fold(new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}),
                "torch.col2im(x.unsqueeze(0), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]).squeeze(0)", x(12, 4)));
        s.add(one("Upsample nearest", () -> new Upsample(2.0), "torch.upsample_nearest2d(x, None, [2.0, 2.0])", x(1, 2, 3, 3)));
        s.add(one("Upsample nearest size 1d", () -> new Upsample(new int[] {7}, null, "nearest", null), "torch.upsample_nearest1d(x, [7], None)", x(1, 2, 3)));
        s.add(one("Upsample bilinear", () -> new Upsample(2.0, "bilinear"), "torch.upsample_bilinear2d(x, None, False, [2.0, 2.0])", x(1, 2, 3, 3)));
        s.add(one("UpsamplingNearest2d", () -> new UpsamplingNearest2d(2.0), "torch.upsample_nearest2d(x, None, [2.0, 2.0])", x(1, 2, 3, 3)));
        s.add(one("UpsamplingNearest2d size", () -> new UpsamplingNearest2d(new int[] {5, 4}, null), "torch.upsample_nearest2d(x, [5, 4], None)", x(2, 2, 3, 3)));
        s.add(one("UpsamplingBilinear2d", () -> new UpsamplingBilinear2d(2.0), "torch.upsample_bilinear2d(x, None, True, [2.0, 2.0])", x(1, 2, 3, 3)));
        s.add(one("UpsamplingBilinear2d size", () -> new UpsamplingBilinear2d(new int[] {5, 7}, null), "torch.upsample_bilinear2d(x, [5, 7], True, None)", x(1, 2, 3, 4)));
        s.add(one("Upsample bilinear align_corners", () -> new Upsample(null, new double[] {2.0, 1.5}, "bilinear", true), "torch.upsample_bilinear2d(x, None, True, [2.0, 1.5])", x(1, 2, 3, 4)));
        s.add(one("Upsample linear", () -> new Upsample(3.0, "linear"), "torch.upsample_linear1d(x, None, False, [3.0])", x(1, 2, 4)));
        s.add(one("Upsample bicubic", () -> new Upsample(2.0, "bicubic"), "torch.upsample_bicubic2d(x, None, False, [2.0, 2.0])", x(1, 2, 3, 3)));
        s.add(one("Upsample bicubic align_corners size", () -> new Upsample(new int[] {5, 7}, null, "bicubic", true), "torch.upsample_bicubic2d(x, [5, 7], True, None)", x(1, 2, 3, 4)));
        s.add(one("Upsample bicubic downscale", () -> new Upsample(null, new double[] {0.6, 1.3}, "bicubic", false), "torch.upsample_bicubic2d(x, None, False, [0.6, 1.3])", x(2, 1, 6, 4)));
        s.add(one("Upsample trilinear", () -> new Upsample(2.0, "trilinear"), "torch.upsample_trilinear3d(x, None, False, [2.0, 2.0, 2.0])", x(1, 2, 2, 3, 2)));
        s.add(one("Upsample trilinear align_corners size", () -> new Upsample(new int[] {3, 4, 5}, null, "trilinear", true), "torch.upsample_trilinear3d(x, [3, 4, 5], True, None)", x(1, 1, 2, 3, 3)));
        s.add(one("Upsample nearest 3d", () -> new Upsample(new int[] {3, 4, 2}, null, "nearest", null), "torch.upsample_nearest3d(x, [3, 4, 2], None)", x(1, 2, 2, 3, 3)));
        s.add(one("Upsample nearest-exact", () -> new Upsample(1.7, "nearest-exact"), "ops.aten._upsample_nearest_exact2d(x, None, [1.7, 1.7])", x(1, 2, 3, 4)));
        s.add(one("Upsample nearest-exact size 1d", () -> new Upsample(new int[] {5}, null, "nearest-exact", null), "ops.aten._upsample_nearest_exact1d(x, [5], None)", x(2, 2, 7)));
        s.add(one("Upsample nearest-exact 3d", () -> new Upsample(null, new double[] {2.0, 0.5, 1.5}, "nearest-exact", null),
                "ops.aten._upsample_nearest_exact3d(x, None, [2.0, 0.5, 1.5])", x(1, 1, 2, 4, 3)));
        s.add(one("Upsample area", () -> new Upsample(new int[] {2, 3}, null, "area", null), "torch.adaptive_avg_pool2d(x, [2, 3])", x(1, 2, 5, 7)));
        s.add(one("Upsample area 1d scale", () -> new Upsample(0.5, "area"), "torch.adaptive_avg_pool1d(x, [3])", x(1, 2, 7)));
        s.add(one("Upsample area 3d", () -> new Upsample(new int[] {2, 2, 3}, null, "area", null), "torch.adaptive_avg_pool3d(x, [2, 2, 3])", x(1, 1, 3, 4, 5)));
        s.add(one("Upsample bilinear recompute_scale_factor", () -> new Upsample(null, new double[] {1.7}, "bilinear", false, true),
                "torch.upsample_bilinear2d(x, [5, 6], False, None)", x(1, 2, 3, 4)));
    }

    private static Module pad(String mode, int dims, int[] p) {
        return switch (mode + dims) {
            case "reflect1" -> new ReflectionPad1d(p);
            case "reflect2" -> new ReflectionPad2d(p);
            case "reflect3" -> new ReflectionPad3d(p);
            case "replicate1" -> new ReplicationPad1d(p);
            case "replicate2" -> new ReplicationPad2d(p);
            case "replicate3" -> new ReplicationPad3d(p);
            case "circular1" -> new CircularPad1d(p);
            case "circular2" -> new CircularPad2d(p);
            default -> new CircularPad3d(p);
        };
    }

    private static final List<String> REDUCTIONS = List.of("mean", "sum", "none");

    private static int reductionCode(String r) { return switch (r) { case "none" -> 0; case "mean" -> 1; default -> 2; }; }

    private static void losses(List<Sample> s) {
        for (String r : REDUCTIONS) {
            int code = reductionCode(r);
            s.add(two("L1Loss " + r, () -> new L1Loss(r), L1Loss::forward, "torch.l1_loss(x, y, " + code + ")", x(2, 3, 4), target(2, 3, 4)));
            s.add(two("L1Loss scalar " + r, () -> new L1Loss(r), L1Loss::forward, "torch.l1_loss(x, y, " + code + ")", x(), target()));
            s.add(two("MSELoss " + r, () -> new MSELoss(r), MSELoss::forward, "torch.mse_loss(x, y, " + code + ")", x(2, 3, 4, 5), x(2, 3, 4, 5)));
            s.add(two("MSELoss no_batch_dim " + r, () -> new MSELoss(r), MSELoss::forward, "torch.mse_loss(x, y, " + code + ")", x(4), target(4)));
            s.add(two("SmoothL1Loss beta=0.5 " + r, () -> new SmoothL1Loss(r, 0.5), SmoothL1Loss::forward, "torch.smooth_l1_loss(x, y, " + code + ", 0.5)", x(5, 10), target(5, 10)));
            s.add(two("SmoothL1Loss beta=0 " + r, () -> new SmoothL1Loss(r, 0.0), SmoothL1Loss::forward, "torch.smooth_l1_loss(x, y, " + code + ", 0.0)", x(5, 10), target(5, 10)));
            s.add(two("HuberLoss delta=0.5 " + r, () -> new HuberLoss(r, 0.5), HuberLoss::forward, "torch.huber_loss(x, y, " + code + ", 0.5)", x(5, 10), target(5, 10)));
            s.add(two("SoftMarginLoss " + r, () -> new SoftMarginLoss(r), SoftMarginLoss::forward, "torch.soft_margin_loss(x, y, " + code + ")", x(5, 5), sign(5, 5)));
            s.add(two("BCELoss " + r, () -> new BCELoss(null, r), BCELoss::forward, "torch.binary_cross_entropy(x, y, None, " + code + ")", probability(15, 10), uniformTarget(15, 10)));
            s.add(two("BCELoss weight " + r, () -> new BCELoss(WEIGHT_10, r), BCELoss::forward, "torch.binary_cross_entropy(x, y, constant, " + code + ")", probability(15, 10), uniformTarget(15, 10)));
            s.add(two("BCEWithLogitsLoss " + r, () -> new BCEWithLogitsLoss(null, null, r), BCEWithLogitsLoss::forward,
                    "torch.binary_cross_entropy_with_logits(x, y, None, None, " + code + ")", x(15, 10), uniformTarget(15, 10)));
            s.add(two("BCEWithLogitsLoss weight pos_weight " + r, () -> new BCEWithLogitsLoss(WEIGHT_10, WEIGHT_10.mul(2.0), r), BCEWithLogitsLoss::forward,
                    "torch.binary_cross_entropy_with_logits(x, y, constant, constant * 2.0, " + code + ")", x(15, 10), uniformTarget(15, 10)));
            s.add(two("KLDivLoss " + r, () -> new KLDivLoss(r, false), KLDivLoss::forward, "torch.kl_div(x, y, " + code + ")", x(10, 10), uniformTarget(10, 10)));
            s.add(two("KLDivLoss log_target " + r, () -> new KLDivLoss(r, true), KLDivLoss::forward, "torch.kl_div(x, y, " + code + ", log_target=True)", x(10, 10), target(10, 10)));
            s.add(two("HingeEmbeddingLoss margin=0.5 " + r, () -> new HingeEmbeddingLoss(0.5, r), HingeEmbeddingLoss::forward,
                    "torch.hinge_embedding_loss(x, y, 0.5, " + code + ")", x(10), sign(10)));
            s.add(two("MultiLabelSoftMarginLoss " + r, () -> new MultiLabelSoftMarginLoss(null, r), MultiLabelSoftMarginLoss::forward,
                    MULTILABEL_SOFT_MARGIN.formatted("1.0", r), x(5, 10), binaryTarget(5, 10)));
            s.add(two("MultiLabelSoftMarginLoss weight " + r, () -> new MultiLabelSoftMarginLoss(WEIGHT_10, r), MultiLabelSoftMarginLoss::forward,
                    MULTILABEL_SOFT_MARGIN.formatted("constant", r), x(5, 10), binaryTarget(5, 10)));
            s.add(two("MultiMarginLoss " + r, () -> new MultiMarginLoss(1, 1.0, null, r), MultiMarginLoss::forward, "torch.multi_margin_loss(x, y, 1, 1.0, None, " + code + ")", x(5, 10), idx(10, 5)));
            s.add(two("MultiMarginLoss p=2 margin weight " + r, () -> new MultiMarginLoss(2, 0.5, WEIGHT_10, r), MultiMarginLoss::forward,
                    "torch.multi_margin_loss(x, y, 2, 0.5, constant, " + code + ")", x(5, 10), idx(10, 5)));
            s.add(two("MultiMarginLoss no_batch_dim " + r, () -> new MultiMarginLoss(1, 1.0, null, r), MultiMarginLoss::forward, "torch.multi_margin_loss(x, y, 1, 1.0, None, " + code + ")", x(10), idx(10)));
            s.add(two("MultiLabelMarginLoss " + r, () -> new MultiLabelMarginLoss(r), MultiLabelMarginLoss::forward, "torch.multilabel_margin_loss(x, y, " + code + ")",
                    x(5, 10), fixed(Tensor.ofLongs(3, 0, -1, 1, 7, 8, 9, -1, 0, 0, 1, 2, 3, 4, -1, 5, 5, 5, -1, 0, 9, 3, 1, -1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2).reshape(5, 10))));
            s.add(two("MultiLabelMarginLoss no_batch_dim " + r, () -> new MultiLabelMarginLoss(r), MultiLabelMarginLoss::forward, "torch.multilabel_margin_loss(x, y, " + code + ")",
                    x(10), fixed(Tensor.ofLongs(3, 0, -1, 1, 7, 8, 9, -1, 0, 0))));
            s.add(two("PoissonNLLLoss " + r, () -> new PoissonNLLLoss(true, false, 1e-8, r), PoissonNLLLoss::forward, "torch.poisson_nll_loss(x, y, True, False, 1e-8, " + code + ")",
                    x(2, 3, 4, 5), counts(2, 3, 4, 5)));
            s.add(two("PoissonNLLLoss full no_log_input " + r, () -> new PoissonNLLLoss(false, true, 1e-8, r), PoissonNLLLoss::forward,
                    "torch.poisson_nll_loss(x, y, False, True, 1e-8, " + code + ")", positive(2, 3, 4, 5), counts(2, 3, 4, 5)));
            s.add(three("GaussianNLLLoss " + r, () -> new GaussianNLLLoss(false, 1e-6, r), GaussianNLLLoss::forward, GAUSSIAN_NLL.formatted("False", r), x(3), target(3), positive(1)));
            s.add(three("GaussianNLLLoss full batch " + r, () -> new GaussianNLLLoss(true, 1e-6, r), GaussianNLLLoss::forward, GAUSSIAN_NLL.formatted("True", r), x(4, 3), target(4, 3), positive(4, 3)));
            s.add(three("MarginRankingLoss margin=0.5 " + r, () -> new MarginRankingLoss(0.5, r), MarginRankingLoss::forward,
                    "torch.margin_ranking_loss(x, y, z, 0.5, " + code + ")", x(50), x(50), sign(50)));
            s.add(three("CosineEmbeddingLoss margin=0.7 " + r, () -> new CosineEmbeddingLoss(0.7, r), CosineEmbeddingLoss::forward,
                    "torch.cosine_embedding_loss(x, y, z, 0.7, " + code + ")", x(15, 10), x(15, 10), sign(15)));
            s.add(three("CosineEmbeddingLoss no_batch_dim " + r, () -> new CosineEmbeddingLoss(0.0, r), CosineEmbeddingLoss::forward,
                    "torch.cosine_embedding_loss(x.unsqueeze(0), y.unsqueeze(0), z.unsqueeze(0), 0.0, " + code + ")" + (r.equals("none") ? ".squeeze(0)" : ""), x(10), x(10), sign()));
            s.add(three("TripletMarginLoss " + r, () -> new TripletMarginLoss(1.0, 2.0, 1e-6, false, r), TripletMarginLoss::forward,
                    "torch.triplet_margin_loss(x, y, z, 1.0, 2.0, 1e-6, False, " + code + ")", x(5, 10), x(5, 10), x(5, 10)));
            s.add(three("TripletMarginLoss p=1 swap margin=0.5 " + r, () -> new TripletMarginLoss(0.5, 1.0, 1e-6, true, r), TripletMarginLoss::forward,
                    "torch.triplet_margin_loss(x, y, z, 0.5, 1.0, 1e-6, True, " + code + ")", x(5, 10), x(5, 10), x(5, 10)));
            s.add(three("TripletMarginWithDistanceLoss " + r, () -> new TripletMarginWithDistanceLoss(null, 1.0, false, r), TripletMarginWithDistanceLoss::forward,
                    "torch.clamp_min(torch.pairwise_distance(x, y) - torch.pairwise_distance(x, z) + 1.0, 0.0)" + reduce(r), x(5, 10), x(5, 10), x(5, 10)));
            // NLLLoss and CrossEntropyLoss: common_modules' cases
            for (String kind : List.of("", "ignore_index", "weights", "weights_ignore_index", "weights_ignore_index_neg")) {
                boolean weights = kind.startsWith("weights");
                int ignore = kind.endsWith("neg") ? -1 : kind.contains("ignore_index") ? 2 : -100;
                String w = weights ? "constant4" : "None";
                Supplier<Tensor> weight = () -> weights ? WEIGHT_4 : null;
                String name = (kind.isEmpty() ? "" : kind + " ") + r;
                s.add(two("NLLLoss " + name, () -> new NLLLoss(weight.get(), r, ignore), NLLLoss::forward,
                        "torch.nll_loss_nd(x, y, " + w + ", " + code + ", " + ignore + ")", logProbabilities(15, 4), idx(4, 15)));
                s.add(two("NLLLoss nd " + name, () -> new NLLLoss(weight.get(), r, ignore), NLLLoss::forward,
                        "torch.nll_loss_nd(x, y, " + w + ", " + code + ", " + ignore + ")", logProbabilities(2, 4, 5, 5), idx(4, 2, 5, 5)));
                s.add(two("NLLLoss 3d " + name, () -> new NLLLoss(weight.get(), r, ignore), NLLLoss::forward,
                        "torch.nll_loss_nd(x, y, " + w + ", " + code + ", " + ignore + ")", logProbabilities(2, 4, 5), idx(4, 2, 5)));
                for (double smoothing : new double[] {0.0, 0.15}) {
                    String sname = name + (smoothing > 0 ? " label_smoothing" : "");
                    s.add(two("CrossEntropyLoss " + sname, () -> new CrossEntropyLoss(weight.get(), r, ignore, smoothing), CrossEntropyLoss::forward,
                            "torch.cross_entropy_loss(x, y, " + w + ", " + code + ", " + ignore + ", " + smoothing + ")", x(15, 4), idx(4, 15)));
                    s.add(two("CrossEntropyLoss nd " + sname, () -> new CrossEntropyLoss(weight.get(), r, ignore, smoothing), CrossEntropyLoss::forward,
                            "torch.cross_entropy_loss(x, y, " + w + ", " + code + ", " + ignore + ", " + smoothing + ")", x(2, 4, 3, 3), idx(4, 2, 3, 3)));
                    s.add(two("CrossEntropyLoss no_batch_dim " + sname, () -> new CrossEntropyLoss(weight.get(), r, ignore, smoothing), CrossEntropyLoss::forward,
                            "torch.cross_entropy_loss(x, y, " + w + ", " + code + ", " + ignore + ", " + smoothing + ")", x(4), idx(3)));
                    if (ignore == -100) {
                        s.add(two("CrossEntropyLoss probabilities " + sname, () -> new CrossEntropyLoss(weight.get(), r, ignore, smoothing), CrossEntropyLoss::forward,
                                "torch.cross_entropy_loss(x, y, " + w + ", " + code + ", " + ignore + ", " + smoothing + ")", x(15, 4), simplexTarget(15, 4)));
                        s.add(two("CrossEntropyLoss probabilities nd " + sname, () -> new CrossEntropyLoss(weight.get(), r, ignore, smoothing), CrossEntropyLoss::forward,
                                "torch.cross_entropy_loss(x, y, " + w + ", " + code + ", " + ignore + ", " + smoothing + ")", x(2, 4, 3), simplexTarget(2, 4, 3).withDim(1)));
                    }
                }
            }
        }
    }

    private static String reduce(String r) { return switch (r) { case "mean" -> ".mean()"; case "sum" -> ".sum()"; default -> ""; }; }

    /** The end of a loss's composite: {@code loss} reduced as the reduction argument (its %s) says. */
    private static final String REDUCED_LOSS = """
            r = '%s'
            if r == 'mean':
                return loss.mean()
            elif r == 'sum':
                return loss.sum()
            else:
                return loss""";

    /** F.multilabel_soft_margin_loss's composite (PyTorch has no ATen op for it). */
    private static final String MULTILABEL_SOFT_MARGIN = """
            loss = -(y * ops.aten.log_sigmoid(x) + (1 - y) * ops.aten.log_sigmoid(-x)) * %s
            loss = loss.sum(dim=-1) / x.size(-1)
            """ + REDUCED_LOSS;

    /** F.gaussian_nll_loss's composite; z (the variance) is clamped to eps, its gradient passing the clamp unchanged (as under no_grad). */
    private static final String GAUSSIAN_NLL = """
            var = z
            if var.dim() != x.dim():
                var = var.unsqueeze(-1)
            var = var + (var.detach().clamp(min=1e-6) - var.detach())
            loss = 0.5 * (torch.log(var) + (x - y) ** 2 / var)
            if %s:
                loss = loss + 0.9189385332046727   # 0.5 * log(2 * pi)
            """ + REDUCED_LOSS;

    /** torch.nn.utils.parametrizations and the old-style hooks: the weight computed from its originals at each forward. */
    private static void parametrized(List<Sample> s) {
        s.add(one("Linear parametrizations.weight_norm", () -> (Linear) Parametrizations.weightNorm(new Linear(10, 8)),
                "torch.linear(x, torch._weight_norm(parametrizations_weight_original1, parametrizations_weight_original0, 0), bias)", x(4, 10)));
        s.add(one("Conv2d parametrizations.weight_norm dim=None", () -> (Conv2d) Parametrizations.weightNorm(new Conv2d(3, 4, 3), "weight", null),
                "torch.conv2d(x, parametrizations_weight_original1 * (parametrizations_weight_original0 / parametrizations_weight_original1.norm()), bias)", x(2, 3, 6, 5)));
        s.add(one("Linear parametrizations.spectral_norm eval", () -> (Linear) Parametrizations.spectralNorm(new Linear(6, 5)).eval(),
                "W = parametrizations_weight_original\nreturn torch.linear(x, W / torch.dot(parametrizations_weight_0__u, torch.mv(W, parametrizations_weight_0__v)), bias)",
                x(3, 6)));
        s.add(one("ConvTranspose2d parametrizations.spectral_norm eval", () -> (ConvTranspose2d) Parametrizations.spectralNorm(new ConvTranspose2d(3, 2, 2)).eval(),
                "W = parametrizations_weight_original\nM = W.permute([1, 0, 2, 3]).flatten(1)\n"
                        + "return torch.conv_transpose2d(x, W / torch.dot(parametrizations_weight_0__u, torch.mv(M, parametrizations_weight_0__v)), bias)", x(2, 3, 4, 4)));
        s.add(one("Linear parametrizations.orthogonal matrix_exp", () -> (Linear) Parametrizations.orthogonal(new Linear(4, 4)),
                "X = parametrizations_weight_original.tril()\nreturn torch.linear(x, torch.matmul(parametrizations_weight_0_base, torch.matrix_exp(X - X.mT)), bias)",
                x(3, 4)));
        s.add(one("Linear parametrizations.orthogonal householder", () -> (Linear) Parametrizations.orthogonal(new Linear(3, 5)),
                "X = parametrizations_weight_original\nA = X.tril(-1)\ntau = 2.0 / (1.0 + (A * A).sum(-2))\n"
                        + "Q = torch.linalg_householder_product(A, tau) * X.diagonal(0, -2, -1).int().unsqueeze(-2)\n"
                        + "return torch.linear(x, torch.matmul(parametrizations_weight_0_base, Q), bias)", x(2, 3)));
        s.add(one("Linear parametrizations.orthogonal cayley wide", () -> (Linear) Parametrizations.orthogonal(new Linear(5, 3), "weight", "cayley", true),
                "X = parametrizations_weight_original.mT.tril()\nX = torch.cat([X, torch.zeros(5, 2, dtype=X.dtype)], -1)\nA = X - X.mT\n"
                        + "Id = torch.eye(5, dtype=A.dtype)\nQ = torch.linalg_solve(Id - 0.5 * A, Id + 0.5 * A)[:, :3]\n"
                        + "return torch.linear(x, torch.matmul(parametrizations_weight_0_base, Q).mT, bias)", x(2, 5)));
        s.add(one("LazyLinear materialized", () -> { LazyLinear m = new LazyLinear(8); m.forward(Tensor.zeros(1, 10)); return m; },
                "torch.linear(x, weight, bias)", x(4, 10)));
        s.add(one("LazyConv2d materialized", () -> { LazyConv2d m = new LazyConv2d(4, 3); m.forward(Tensor.zeros(1, 3, 5, 5)); return m; },
                "torch.conv2d(x, weight, bias)", x(2, 3, 6, 5)));
        // ModuleInfo's lazy convolutions with padding='same'
        s.add(one("LazyConv1d padding=same materialized", () -> { LazyConv1d m = new LazyConv1d(5, 3, 1, "same", 1, 1, true, "zeros"); m.forward(Tensor.zeros(2, 4, 3)); return m; },
                "torch.conv1d(x, weight, bias, [1], 'same')", x(2, 4, 3)));
        s.add(one("LazyConv2d padding=same materialized no_batch_dim", () -> { LazyConv2d m = new LazyConv2d(5, 3, 1, "same", 1, 1, true, "zeros"); m.forward(Tensor.zeros(4, 3, 4)); return m; },
                "torch.conv2d(x, weight, bias, [1, 1], 'same')", x(4, 3, 4)));
        s.add(one("LazyConv3d padding=same materialized", () -> { LazyConv3d m = new LazyConv3d(5, 3, 1, "same", 1, 1, true, "zeros"); m.forward(Tensor.zeros(2, 4, 3, 4, 5)); return m; },
                "torch.conv3d(x, weight, bias, [1, 1, 1], 'same')", x(2, 4, 3, 4, 5)));
        s.add(one("LazyConvTranspose2d materialized stride output_padding", () -> { LazyConvTranspose2d m = new LazyConvTranspose2d(4, 3, 2, 1, 1, 1, true, 1); m.forward(Tensor.zeros(1, 3, 5, 5)); return m; },
                "torch.conv_transpose2d(x, weight, bias, [2, 2], [1, 1], [1, 1])", x(2, 3, 5, 5)));
        s.add(one("LazyConvTranspose1d materialized no_batch_dim", () -> { LazyConvTranspose1d m = new LazyConvTranspose1d(2, 3); m.forward(Tensor.zeros(3, 6)); return m; },
                "torch.conv_transpose1d(x.unsqueeze(0), weight, bias).squeeze(0)", x(3, 6)));
        s.add(one("LazyConvTranspose3d materialized groups no_bias", () -> { LazyConvTranspose3d m = new LazyConvTranspose3d(4, 2, 1, 0, 0, 2, false, 1); m.forward(Tensor.zeros(1, 4, 3, 3, 3)); return m; },
                "torch.conv_transpose3d(x, weight, None, [1, 1, 1], [0, 0, 0], [0, 0, 0], 2)", x(2, 4, 3, 3, 3)));
        s.add(one("LazyInstanceNorm2d materialized", () -> { LazyInstanceNorm2d m = new LazyInstanceNorm2d(); m.forward(Tensor.zeros(1, 3, 4, 4)); return m; },
                "torch.instance_norm(x, weight, bias, running_mean, running_var, True, 0.1, 1e-5, False)", x(2, 3, 4, 4)));
        s.add(one("LazyInstanceNorm1d materialized eval", () -> { LazyInstanceNorm1d m = new LazyInstanceNorm1d(); m.forward(Tensor.zeros(2, 3, 5)); return (LazyInstanceNorm1d) m.eval(); },
                "torch.instance_norm(x, weight, bias, running_mean, running_var, False, 0.1, 1e-5, False)", x(2, 3, 5)));
        s.add(one("LazyInstanceNorm3d not affine", () -> { LazyInstanceNorm3d m = new LazyInstanceNorm3d(1e-5, 0.1, false, false); m.forward(Tensor.zeros(1, 3, 2, 3, 3)); return m; },
                "torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)", x(2, 3, 2, 3, 3)));
        s.add(one("Linear weight_norm (hook)", () -> (Linear) WeightNorm.weightNorm(new Linear(10, 8)), (m, a) -> m.call(a),
                "torch.linear(x, torch._weight_norm(weight_v, weight_g, 0), bias)", x(4, 10)));
        s.add(one("Conv1d spectral_norm (hook) eval", () -> (Conv1d) SpectralNorm.spectralNorm(new Conv1d(3, 4, 3)).eval(), (m, a) -> m.call(a),
                "torch.conv1d(x, weight_orig / torch.dot(weight_u, torch.mv(weight_orig.reshape(4, -1), weight_v)), bias)", x(2, 3, 7)));
    }

    private static void recurrent(List<Sample> s) {
        for (boolean batchFirst : new boolean[] {false, true}) {
            for (boolean bidirectional : new boolean[] {false, true}) {
                for (int layers : new int[] {1, 2}) {
                    for (boolean bias : new boolean[] {true, false}) {
                        if (!bias && (layers == 2 || bidirectional)) continue;
                        String args = bias + ", " + layers + ", 0.0, True, " + bidirectional + ", " + batchFirst;
                        String desc = (batchFirst ? " batch_first" : "") + (bidirectional ? " bidirectional" : "") + " layers=" + layers + (bias ? "" : " no_bias");
                        int dirs = bidirectional ? 2 : 1;
                        int[] in = batchFirst ? new int[] {3, 5, 4} : new int[] {5, 3, 4};
                        String pyBool = bias ? "True" : "False";
                        args = args.replace("true", "True").replace("false", "False");
                        s.add(two("RNN tanh" + desc, () -> new RNN(4, 6, layers, "tanh", bias, batchFirst, 0.0, bidirectional), RecurrentSamples::rnn,
                                "o = torch.rnn_tanh(x, y, PARAMS, " + args + ")\nreturn torch.cat([o[0].flatten(), o[1].flatten()])", x(in), x(layers * dirs, 3, 6)));
                        s.add(two("GRU" + desc, () -> new GRU(4, 6, layers, bias, batchFirst, 0.0, bidirectional), RecurrentSamples::gru,
                                "o = torch.gru(x, y, PARAMS, " + args + ")\nreturn torch.cat([o[0].flatten(), o[1].flatten()])", x(in), x(layers * dirs, 3, 6)));
                        s.add(three("LSTM" + desc, () -> new LSTM(4, 6, layers, bias, batchFirst, 0.0, bidirectional), RecurrentSamples::lstm,
                                "o = torch.lstm(x, [y, z], PARAMS, " + args + ")\nreturn torch.cat([o[0].flatten(), o[1].flatten(), o[2].flatten()])",
                                x(in), x(layers * dirs, 3, 6), x(layers * dirs, 3, 6)));
                        if (layers == 1 && !bidirectional && pyBool.equals("True")) {
                            s.add(one("RNN relu default state" + desc, () -> new RNN(4, 6, 1, "relu", true, batchFirst, 0.0, false), "torch.rnn_relu(x, torch.zeros(1, 3, 6, dtype=x.dtype), PARAMS, " + args + ")[0]", x(in)));
                        }
                    }
                }
            }
        }
        s.add(one("RNN no_batch_dim", () -> new RNN(4, 6, 2, "tanh", true, false, 0.0, true),
                "torch.rnn_tanh(x.unsqueeze(1), torch.zeros(4, 1, 6, dtype=x.dtype), PARAMS, True, 2, 0.0, True, True, False)[0].squeeze(1)", x(5, 4)));
        s.add(one("LSTM no_batch_dim", () -> new LSTM(4, 6, 1, true, true, 0.0, false),
                "h = torch.zeros(1, 1, 6, dtype=x.dtype)\nreturn torch.lstm(x.unsqueeze(0), [h, h], PARAMS, True, 1, 0.0, True, False, True)[0].squeeze(0)", x(5, 4)));
        // LSTM proj_size: h0, hN and the output have proj_size features, c0 and cN hidden_size (aten::lstm reads the projection from the states' sizes)
        for (boolean bidirectional : new boolean[] {false, true}) {
            int dirs = bidirectional ? 2 : 1;
            String py = bidirectional ? "True" : "False";
            s.add(three("LSTM proj_size layers=2" + (bidirectional ? " bidirectional" : ""), () -> new LSTM(4, 6, 2, true, false, 0.0, bidirectional, 3), RecurrentSamples::lstm,
                    "o = torch.lstm(x, [y, z], PARAMS, True, 2, 0.0, True, " + py + ", False)\nreturn torch.cat([o[0].flatten(), o[1].flatten(), o[2].flatten()])",
                    x(5, 3, 4), x(2 * dirs, 3, 3), x(2 * dirs, 3, 6)));
        }
        s.add(one("LSTM proj_size no_bias batch_first default state", () -> new LSTM(4, 5, 1, false, true, 0.0, false, 2),
                "torch.lstm(x, [torch.zeros(1, 3, 2, dtype=x.dtype), torch.zeros(1, 3, 5, dtype=x.dtype)], PARAMS, False, 1, 0.0, True, False, True)[0]", x(3, 4, 4)));
        s.add(two("RNNCell tanh", () -> new RNNCell(5, 10, true, "tanh"), RNNCell::forward, "torch.rnn_tanh_cell(x, y, weight_ih, weight_hh, bias_ih, bias_hh)", x(3, 5), x(3, 10)));
        s.add(two("RNNCell relu no_bias", () -> new RNNCell(5, 10, false, "relu"), RNNCell::forward, "torch.rnn_relu_cell(x, y, weight_ih, weight_hh)", x(3, 5), x(3, 10)));
        s.add(one("RNNCell no_batch_dim no state", () -> new RNNCell(5, 10), "torch.rnn_tanh_cell(x.unsqueeze(0), torch.zeros(1, 10, dtype=x.dtype), weight_ih, weight_hh, bias_ih, bias_hh).squeeze(0)", x(5)));
        s.add(two("GRUCell", () -> new GRUCell(5, 10), GRUCell::forward, "torch.gru_cell(x, y, weight_ih, weight_hh, bias_ih, bias_hh)", x(3, 5), x(3, 10)));
        s.add(two("GRUCell no_bias no_batch_dim", () -> new GRUCell(5, 10, false), GRUCell::forward, "torch.gru_cell(x.unsqueeze(0), y.unsqueeze(0), weight_ih, weight_hh).squeeze(0)", x(5), x(10)));
        s.add(three("LSTMCell", () -> new LSTMCell(5, 10), RecurrentSamples::lstmCell,
                "o = torch.lstm_cell(x, [y, z], weight_ih, weight_hh, bias_ih, bias_hh)\nreturn torch.cat([o[0], o[1]], -1)", x(3, 5), x(3, 10), x(3, 10)));
        s.add(three("LSTMCell no_bias no_batch_dim", () -> new LSTMCell(5, 10, false), RecurrentSamples::lstmCell,
                "o = torch.lstm_cell(x.unsqueeze(0), [y.unsqueeze(0), z.unsqueeze(0)], weight_ih, weight_hh)\nreturn torch.cat([o[0], o[1]], -1).squeeze(0)", x(5), x(10), x(10)));
    }

    /** Multi-output forwards flattened to one tensor, so one comparison covers every output. */
    static final class RecurrentSamples {
        static Tensor rnn(RNN m, Tensor input, Tensor h0) {
            RNNBase.Output o = m.forward(input, h0);
            return Tensor.cat(List.of(o.output().flatten(), o.hN().flatten()), 0);
        }

        static Tensor gru(GRU m, Tensor input, Tensor h0) {
            RNNBase.Output o = m.forward(input, h0);
            return Tensor.cat(List.of(o.output().flatten(), o.hN().flatten()), 0);
        }

        static Tensor lstm(LSTM m, Tensor input, Tensor h0, Tensor c0) {
            RNNBase.Output o = m.forward(input, h0, c0);
            return Tensor.cat(List.of(o.output().flatten(), o.hN().flatten(), o.cN().flatten()), 0);
        }

        static Tensor lstmCell(LSTMCell m, Tensor input, Tensor h0, Tensor c0) {
            LSTMCell.State o = m.forward(input, h0, c0);
            return Tensor.cat(List.of(o.h(), o.c()), -1);
        }
    }

    // ------------------------------------------------------------------ inputs

    private static final Tensor WEIGHT_10 = Inputs.uniform(new Random(5), DType.FLOAT64, 0.1, 2.0, 10);
    private static final Tensor WEIGHT_4 = Inputs.uniform(new Random(6), DType.FLOAT64, 0.1, 2.0, 4);

    /** How one forward input is made: its values from a seeded generator, whether it gets a gradient. */
    record In(String kind, int[] shape, long bound, boolean differentiable, Tensor value, int simplexDim) {
        In withDim(int dim) { return new In(kind, shape, bound, differentiable, value, dim); }

        Tensor make(Random rng, DType dtype) {
            return switch (kind) {
                case "randn" -> Inputs.randn(rng, DType.FLOAT64, shape).to(dtype);
                case "positive" -> Inputs.uniform(rng, DType.FLOAT64, 0.2, 2.0, shape).to(dtype);
                case "probability" -> Inputs.uniform(rng, DType.FLOAT64, 0.05, 0.95, shape).to(dtype);
                case "sign" -> Inputs.randint(rng, DType.INT64, 0, 2, shape).to(dtype).mul(2.0).sub(1.0);
                case "binary" -> Inputs.randint(rng, DType.INT64, 0, 2, shape).to(dtype);
                case "counts" -> Inputs.randint(rng, DType.INT64, 0, 5, shape).to(dtype);
                case "logprob" -> Inputs.randn(rng, DType.FLOAT64, shape).logSoftmax(1).to(dtype);
                case "simplex" -> Inputs.randn(rng, DType.FLOAT64, shape).softmax(simplexDim).to(dtype);
                case "index" -> Inputs.randint(rng, DType.INT64, 0, bound, shape);
                case "fixed" -> value;
                default -> throw new AssertionError(kind);
            };
        }
    }

    private static In x(int... shape) { return new In("randn", shape, 0, true, null, -1); }
    private static In target(int... shape) { return new In("randn", shape, 0, false, null, -1); }
    private static In positive(int... shape) { return new In("positive", shape, 0, true, null, -1); }
    private static In probability(int... shape) { return new In("probability", shape, 0, true, null, -1); }
    private static In uniformTarget(int... shape) { return new In("probability", shape, 0, false, null, -1); }
    private static In sign(int... shape) { return new In("sign", shape, 0, false, null, -1); }
    private static In binaryTarget(int... shape) { return new In("binary", shape, 0, false, null, -1); }
    private static In counts(int... shape) { return new In("counts", shape, 0, false, null, -1); }
    private static In logProbabilities(int... shape) { return new In("logprob", shape, 0, true, null, -1); }
    private static In simplexTarget(int... shape) { return new In("simplex", shape, 0, false, null, -1).withDim(-1); }
    private static In idx(long bound, int... shape) { return new In("index", shape, bound, false, null, -1); }
    private static In fixed(Tensor value) { return new In("fixed", value.shape(), 0, false, value, -1); }

    // ------------------------------------------------------------------ the harness

    interface Fwd1<M> extends java.io.Serializable { Tensor run(M m, Tensor a); }
    interface Fwd2<M> extends java.io.Serializable { Tensor run(M m, Tensor a, Tensor b); }
    interface Fwd3<M> extends java.io.Serializable { Tensor run(M m, Tensor a, Tensor b, Tensor c); }

    /** One ModuleInput: the module, how to call it (as an Fn1/Fn2/Fn3 over the module), the libtorch expression, the inputs. */
    record Sample(String name, Supplier<? extends Module> make, java.util.function.Function<Module, Object> function, String torch, List<In> inputs) {
        @Override public String toString() { return name; }
    }

    private static <M extends Module> Sample one(String name, Supplier<M> make, String torch, In in) {
        return one(name, make, Module::forward, torch, in);
    }

    @SuppressWarnings("unchecked")
    private static <M extends Module> Sample one(String name, Supplier<M> make, Fwd1<M> f, String torch, In in) {
        return new Sample(name, make, m -> (Fn1<Tensor, Tensor>) a -> f.run((M) m, a), torch, List.of(in));
    }

    @SuppressWarnings("unchecked")
    private static <M extends Module> Sample two(String name, Supplier<M> make, Fwd2<M> f, String torch, In a, In b) {
        return new Sample(name, make, m -> (Fn2<Tensor, Tensor, Tensor>) (p, q) -> f.run((M) m, p, q), torch, List.of(a, b));
    }

    @SuppressWarnings("unchecked")
    private static <M extends Module> Sample three(String name, Supplier<M> make, Fwd3<M> f, String torch, In a, In b, In c) {
        return new Sample(name, make, m -> (Fn3<Tensor, Tensor, Tensor, Tensor>) (p, q, r) -> f.run((M) m, p, q, r), torch, List.of(a, b, c));
    }

    @SuppressWarnings("unchecked")
    private static Tensor apply(Object fn, List<Tensor> in) {
        return switch (in.size()) {
            case 1 -> ((Fn1<Tensor, Tensor>) fn).apply(in.get(0));
            case 2 -> ((Fn2<Tensor, Tensor, Tensor>) fn).apply(in.get(0), in.get(1));
            default -> ((Fn3<Tensor, Tensor, Tensor, Tensor>) fn).apply(in.get(0), in.get(1), in.get(2));
        };
    }

    @SuppressWarnings("unchecked")
    private static Object compile(Object fn, int arity, boolean fullgraphWanted) {
        // every sample's lambda has the same code (one(), two(), three()), so each would be a recompile of the last
        // one's frame, and past the recompile limit a call runs eager: start afresh, and fail rather than fall back
        Ember.reset();
        Options fullgraph = Options.defaults().fullgraph(fullgraphWanted).failOnRecompileLimitHit(true);
        return switch (arity) {
            case 1 -> Ember.compile((Fn1<Tensor, Tensor>) fn, fullgraph);
            case 2 -> Ember.compile((Fn2<Tensor, Tensor, Tensor>) fn, fullgraph);
            default -> Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) fn, fullgraph);
        };
    }

    private static final String[] INPUT_NAMES = {"x", "y", "z", "w"};

    /** A mode that does not fit the input's rank is refused in F.interpolate's words, never computed wrongly. */
    @org.junit.jupiter.api.Test
    void upsampleModesOfAnotherRankAreRefusedByName() {
        Tensor x = Tensor.randn(1, 2, 3, 4);
        var e = org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class, () -> new Upsample(2.0, "trilinear").forward(x));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("Got 4D input, but trilinear mode needs 5D input"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class, () -> new Upsample(2.0, "bicubic").forward(Tensor.randn(1, 2, 3)));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes"), e.getMessage());
        var a = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new Upsample(null, new double[] {2.0}, "area", true).forward(x));
        org.junit.jupiter.api.Assertions.assertTrue(a.getMessage().contains("align_corners option can only be set with the interpolating modes"), a.getMessage());
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("samples")
    void matchesLibtorchAndCompiles(String name, Sample sample, DType dtype) {
        Random rng = new Random(name.hashCode() * 31L + dtype.ordinal());
        Tensor.manualSeed(name.hashCode());
        Module module = sample.make.get();
        module.to(dtype);
        try (var unused = Ember.noGrad()) {   // random affine parts and running stats, so none of them is the identity
            for (Parameter p : module.parameters()) p.copy_(Inputs.randn(rng, DType.FLOAT64, p.shape()).to(dtype));
            for (Map.Entry<String, Tensor> b : module.namedBuffers().entrySet()) {
                if (b.getKey().endsWith("running_var")) b.getValue().copy_(Inputs.uniform(rng, DType.FLOAT64, 0.5, 2.0, b.getValue().shape()).to(dtype));
                else if (b.getKey().endsWith("running_mean")) b.getValue().copy_(Inputs.randn(rng, DType.FLOAT64, b.getValue().shape()).to(dtype));
            }
        }
        List<Tensor> inputs = new ArrayList<>();
        for (In in : sample.inputs) {
            Tensor t = in.make(rng, dtype);
            inputs.add(in.differentiable ? t.detach().requiresGrad(true) : t);
        }
        Map<String, Parameter> params = module.namedParameters();
        Map<String, Tensor> buffers = new java.util.LinkedHashMap<>();
        module.namedBuffers().forEach((k, v) -> buffers.put(k, v.clone()));   // before forward updates the running stats

        Object fn = sample.function.apply(module);
        Tensor out = apply(fn, inputs);
        List<Tensor> leaves = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) if (sample.inputs.get(i).differentiable) leaves.add(inputs.get(i));
        leaves.addAll(params.values());
        Tensor gradOut = Inputs.randn(rng, DType.FLOAT64, out.shape()).to(dtype);
        List<Tensor> grads = leaves.isEmpty() ? List.of() : Autograd.grad(List.of(out), leaves, List.of(gradOut), false, false, false);

        // libtorch, in float64 on the same values
        List<Object> args = new ArrayList<>(inputs.stream().map(Tensor::detach).toList());
        StringBuilder body = new StringBuilder();
        List<String> leafNames = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            String letter = String.valueOf((char) ('a' + i));
            boolean floating = inputs.get(i).dtype().isFloatingPoint();
            body.append(INPUT_NAMES[i]).append(" = ").append(letter).append(floating ? ".double()" : "");
            if (sample.inputs.get(i).differentiable) {
                body.append(".detach().requires_grad_(True)");
                leafNames.add(INPUT_NAMES[i]);
            }
            body.append('\n');
        }
        char next = (char) ('a' + inputs.size());
        List<Tensor> paramList = new ArrayList<>(params.values().stream().map(p -> (Tensor) p.detach()).toList());
        paramList.add(Tensor.zeros(DType.FLOAT64, 1));   // never empty: TorchScript needs a list's element type
        args.add(paramList);
        List<String> paramNames = new ArrayList<>();
        int i = 0;
        for (String pname : params.keySet()) {
            String v = pname.replace('.', '_');
            body.append(v).append(" = ").append(next).append('[').append(i++).append("].double().detach().requires_grad_(True)\n");
            leafNames.add(v);
            paramNames.add(v);
        }
        body.append("PARAMS = [").append(String.join(", ", paramNames)).append("]\n");
        next++;
        List<Tensor> bufferList = new ArrayList<>(buffers.values());
        bufferList.add(Tensor.zeros(DType.FLOAT64, 1));
        args.add(bufferList);
        i = 0;
        for (Map.Entry<String, Tensor> b : buffers.entrySet()) {
            body.append(b.getKey().replace('.', '_')).append(" = ").append(next).append('[').append(i++).append(']')
                    .append(b.getValue().dtype().isFloatingPoint() ? ".double()" : "").append('\n');
        }
        next++;
        Tensor constant = switch (sample.name.contains("weight") && !sample.name.startsWith("NLL") && !sample.name.startsWith("Cross") ? 10 : 4) {
            case 10 -> WEIGHT_10.to(dtype);
            default -> WEIGHT_4.to(dtype);
        };
        args.add(constant);
        body.append("constant = ").append(next).append(".double()\nconstant4 = constant\n");
        next++;
        args.add(gradOut);
        body.append("G = ").append(next).append(".double()\n");
        boolean multiline = sample.torch.contains("\n");
        body.append("out = ").append(multiline ? "REF" : sample.torch).append('\n');
        body.append("res = [out.to(").append(dtype == DType.FLOAT32 ? "torch.float32" : "torch.float64").append(")]\n");
        if (!leafNames.isEmpty()) {
            body.append("for t in torch.autograd.grad([(out * G).sum()], [").append(String.join(", ", leafNames)).append("]):\n")
                    .append("    if t is not None:\n        res.append(t.to(").append(dtype == DType.FLOAT32 ? "torch.float32" : "torch.float64").append("))\n");
        }
        body.append("return res");
        String script = body.toString();
        if (multiline) script = inline(script, sample.torch);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, script, args.toArray());
            // float32 against the exact result: recurrent layers accumulate rounding over their steps
            double f32 = sample.name.matches("(RNN|GRU|LSTM).*") ? 1e-4 : 1e-5;
            Tolerance tol = dtype == DType.FLOAT32 ? Tolerance.of(f32, f32) : Tolerance.of(1e-7, 1e-7);
            assertClose(out, want.get(0), name + " " + dtype + ": forward", tol);
            for (int k = 0; k < grads.size(); k++) {
                assertClose(grads.get(k), want.get(k + 1), name + " " + dtype + ": gradient of " + leafName(k, inputs.size(), sample, params), tol);
            }
        }

        // compiled (fullgraph) against eager, output and gradients
        // FractionalMaxPool reads its window offsets from the samples' values (a graph break, as in Dynamo)
        // GaussianNLLLoss checks var's values (torch.any(var < 0)), as PyTorch's: a graph break there as in Dynamo
        // BatchNorm's momentum=None reads num_batches_tracked (torch's .item()) in training: a graph break, as in Dynamo
        // AdaptiveLogSoftmaxWithLoss's forward picks each cluster's rows from the target's values (torch's nonzero): a graph break
        Object compiled = compile(fn, inputs.size(), !name.startsWith("GaussianNLLLoss") && !name.startsWith("FractionalMaxPool")
                && !name.equals("AdaptiveLogSoftmaxWithLoss") && !(name.contains("simple average") && !name.endsWith("eval")));
        Tensor outCompiled = apply(compiled, inputs);
        Tolerance tol = Tolerance.forDtype(dtype);
        assertClose(outCompiled, out.detach(), name + " " + dtype + ": compiled forward", dtype == DType.FLOAT32 ? Tolerance.of(1e-5, 1e-5) : tol);
        if (!leaves.isEmpty()) {
            List<Tensor> gradsCompiled = Autograd.grad(List.of(outCompiled), leaves, List.of(gradOut), false, false, false);
            for (int k = 0; k < grads.size(); k++) {
                assertClose(gradsCompiled.get(k), grads.get(k), name + " " + dtype + ": compiled gradient of " + leafName(k, inputs.size(), sample, params),
                        dtype == DType.FLOAT32 ? Tolerance.of(1e-5, 1e-5) : tol);
            }
        }
    }

    /** Multi-line references are written with {@code return}: indent them under the output's assignment. */
    private static String inline(String script, String reference) {
        StringBuilder sb = new StringBuilder();
        for (String line : reference.split("\n")) sb.append(line.replaceFirst("^(\\s*)return ", "$1out = ")).append('\n');
        return script.replace("out = REF\n", sb.toString());
    }

    private static String leafName(int k, int inputCount, Sample sample, Map<String, Parameter> params) {
        int diffInputs = 0;
        for (In in : sample.inputs) if (in.differentiable) diffInputs++;
        if (k < diffInputs) return "input " + k;
        return "parameter " + List.copyOf(params.keySet()).get(k - diffInputs);
    }
}
