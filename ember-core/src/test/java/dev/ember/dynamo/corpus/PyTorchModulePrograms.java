package dev.ember.dynamo.corpus;

import dev.ember.Fn1;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ModuleList;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.Map;

/**
 * Ports of the modules in PyTorch's test/dynamo/test_modules.py (each compiled as a module and run
 * by standard_test on 10x10 inputs). Python's module attributes are fields; plain Python lists
 * and dicts of layers are Java lists and maps; {@code super().forward} is {@code super.forward}.
 */
final class PyTorchModulePrograms {
    private PyTorchModulePrograms() {}

    // test_modules.py::test_basicmodule1
    static class BasicModule extends Module {
        final Linear linear1 = new Linear(10, 10);
        Tensor scale = Tensor.randn(1, 10);

        @Override
        public Tensor forward(Tensor x) { return F.relu(linear1.forward(x)).mul(scale); }
    }

    // test_modules.py::test_fnmember
    static final class FnMember extends Module {
        final Linear linear1 = new Linear(10, 10);
        final Fn1<Tensor, Tensor> activation = F::relu;

        @Override
        public Tensor forward(Tensor x) {
            x = linear1.forward(x);
            if (activation != null) x = activation.apply(x);
            return x;
        }
    }

    // test_modules.py::test_fnmembercmp1 / test_fnmembercmp2 (adapted: sigmoid when there is no activation)
    static final class FnMemberCmp extends Module {
        final Linear linear1 = new Linear(10, 10);
        final Fn1<Tensor, Tensor> activation;

        FnMemberCmp(Fn1<Tensor, Tensor> activation) { this.activation = activation; }

        @Override
        public Tensor forward(Tensor x) {
            x = linear1.forward(x);
            if (activation != null) x = activation.apply(x);
            if (activation == null) x = x.sigmoid();
            return x;
        }
    }

    // test_modules.py::test_submodules1
    static final class SubmoduleExample extends Module {
        final BasicModule layer1 = new BasicModule();
        final BasicModule layer2 = new BasicModule();
        Tensor scale = Tensor.randn(1, 10);

        @Override
        public Tensor forward(Tensor x) {
            x = layer1.forward(x);
            x = layer2.forward(x);
            return x.mul(scale);
        }
    }

    // test_modules.py::test_istraining1
    static class IsTrainingCheck extends Module {
        final Linear linear1 = new Linear(10, 10);
        final Linear linear2 = new Linear(10, 10);

        IsTrainingCheck() { train(true); }

        @Override
        public Tensor forward(Tensor x) {
            Module mod = isTraining() ? linear1 : linear2;
            return F.relu(mod.forward(x));
        }
    }

    // test_modules.py::test_iseval1
    static final class IsEvalCheck extends IsTrainingCheck {
        IsEvalCheck() { train(false); }
    }

    // test_modules.py::test_modulemethod1
    static final class ModuleMethodCall extends Module {
        final BasicModule layer1 = new BasicModule();
        final BasicModule layer2 = new BasicModule();
        Tensor scale = Tensor.randn(1, 10);

        Tensor callAndScale(Module mod, Tensor x) { return mod.forward(x).mul(scale); }

        @Override
        public Tensor forward(Tensor x) {
            Tensor x1 = callAndScale(layer1, x);
            Tensor x2 = callAndScale(layer2, x);
            return x1.add(x2);
        }
    }

    // test_modules.py::test_constloop
    static final class ConstLoop extends Module {
        final Linear linear1 = new Linear(10, 10);
        final int count = 3;

        @Override
        public Tensor forward(Tensor x) {
            for (int i = 0; i < count; i++) x = linear1.forward(x).sigmoid();
            return x;
        }
    }

    // test_modules.py::test_viamodulecall
    static final class ViaModuleCall extends Module {
        final Linear linear1 = new Linear(10, 10);

        @Override
        public Tensor forward(Tensor x) { return PyTorchFunctionsPrograms.constant3(linear1.forward(x).sigmoid(), x); }
    }

    // test_modules.py::test_isnonelayer
    static final class IsNoneLayer extends Module {
        final Linear layer1 = new Linear(10, 10);
        final Linear layer2 = null;

        @Override
        public Tensor forward(Tensor x) {
            if (layer1 != null) x = layer1.forward(x);
            if (layer2 != null) x = layer2.forward(x);
            return x;
        }
    }

    // test_modules.py::test_layerlist (a plain list of layers, not a ModuleList)
    static final class LayerList extends Module {
        final List<Module> layers = List.of(new Linear(10, 10), new ReLU(), new Linear(10, 10));

        @Override
        public Tensor forward(Tensor x) {
            for (Module layer : layers) x = layer.forward(x);
            return x;
        }
    }

    // test_modules.py::test_modulelist
    static final class ModuleListModule extends Module {
        final ModuleList<Module> layers = new ModuleList<>(new Linear(10, 10), new ReLU(), new Linear(10, 10), new ReLU());

        @Override
        public Tensor forward(Tensor x) {
            for (int i = 0; i < layers.size(); i++) x = layers.get(i).forward(x);
            for (Module layer : layers) x = layer.forward(x);
            List<Tensor> vals = List.of(x, x, x, x);
            for (int i = 0; i < layers.size(); i++) x = layers.get(i).forward(x).add(vals.get(i));
            int idx = 0;
            for (Module layer : layers) x = layer.forward(x).mul(idx++);
            return x;
        }
    }

    // test_modules.py::test_seq
    static final class Seq extends Module {
        final Sequential layers = new Sequential(new Linear(10, 10), new ReLU(), new Linear(10, 10), new ReLU());

        @Override
        public Tensor forward(Tensor x) { return layers.forward(x); }
    }

    static final class Cfg {
        final double val = 0.5;
        final int count = 3;
    }

    // test_modules.py::test_cfgmod
    static final class CfgModule extends Module {
        final Cfg cfg = new Cfg();
        final Linear layer = new Linear(10, 10);

        @Override
        public Tensor forward(Tensor x) {
            for (int i = 0; i < cfg.count; i++) x = layer.forward(x.add(cfg.val));
            return x;
        }
    }

    // test_modules.py::test_stringmember
    static final class StringMember extends Module {
        final Linear linear1 = new Linear(10, 10);
        final String mode = "some_string";

        @Override
        public Tensor forward(Tensor x) {
            if (mode.equals("some_string")) return F.relu(linear1.forward(x));
            return null;
        }
    }

    // test_modules.py::test_super1
    static final class SuperModule extends BasicModule {
        @Override
        public Tensor forward(Tensor x) { return super.forward(x).add(10.0); }
    }

    // test_modules.py::test_super2 (BasicModule.forward(self, x))
    static final class SuperModule2 extends BasicModule {
        @Override
        public Tensor forward(Tensor x) { return super.forward(x); }
    }

    // test_modules.py::test_intarg (adapted: an int attribute)
    static final class ModuleWithIntAttr extends Module {
        final Linear layer = new Linear(10, 10);
        final int scale = 2;

        @Override
        public Tensor forward(Tensor x) { return layer.forward(x).mul(scale); }
    }

    // test_modules.py::test_tensorlist (a tuple of tensors)
    static final class TensorList extends Module {
        final List<Tensor> layers = List.of(Tensor.randn(1, 10), Tensor.randn(10, 1), Tensor.randn(1, 10), Tensor.randn(10, 1));

        @Override
        public Tensor forward(Tensor x) {
            for (Tensor layer : layers) x = x.mul(layer);
            return x;
        }
    }

    // test_modules.py::test_parameters1 (adapted)
    static class ParametersModule1 extends Module {
        final Linear linear1 = new Linear(10, 10);
        Parameter scale = new Parameter(Tensor.randn(1, 10));

        @Override
        public Tensor forward(Tensor x) {
            if (!scale.requiresGrad()) return x;
            return F.relu(linear1.forward(x)).mul(scale);
        }
    }

    // test_modules.py::test_parameters2 (adapted: sums over parameters())
    static final class ParametersModule2 extends ParametersModule1 {
        @Override
        public Tensor forward(Tensor x) {
            Tensor total = null;
            for (Parameter p : parameters()) total = total == null ? p.sum() : total.add(p.sum());
            return x.mul(total);
        }
    }

    // test_modules.py::test_children (adapted)
    static class ChildrenModule extends Module {
        final ReLU relu1 = new ReLU();
        final Linear linear = new Linear(10, 10);
        final ReLU relu2 = new ReLU();

        @Override
        public Tensor forward(Tensor x) {
            for (Module child : children()) x = child.forward(x);
            return x;
        }
    }

    // test_modules.py::test_named_children (adapted)
    static final class NamedChildrenModule extends ChildrenModule {
        @Override
        public Tensor forward(Tensor x) {
            for (Map.Entry<String, Module> e : namedChildren().entrySet()) {
                if (e.getKey().startsWith("relu")) x = e.getValue().forward(x).add(1);
                else x = e.getValue().forward(x);
            }
            return x;
        }
    }

    // test_modules.py::test_moduledict (adapted: Ember has no ModuleDict; a map of layers)
    static final class ModuleDictModule extends Module {
        final Map<String, Linear> layers = Map.of("0", new Linear(10, 10));

        @Override
        public Tensor forward(Tensor x) { return layers.get("0").forward(x); }
    }

    // test_modules.py::test_module_forward_has_graph_break (adapted)
    static final class ModuleForwardHasGraphBreak extends Module {
        final BasicModule layer1 = new BasicModule();
        final BasicModule layer2 = new BasicModule();
        Tensor scale = Tensor.randn(1, 10);

        @Override
        public Tensor forward(Tensor x) {
            x = layer1.forward(x);
            System.out.println("graph break");
            x = layer2.forward(x);
            return x.mul(scale);
        }
    }

    // test_modules.py::test_self_mutating1 (adapted: a counter the forward increments)
    static final class SelfMutating extends Module {
        final Linear linear = new Linear(10, 10);
        int counter = 0;

        @Override
        public Tensor forward(Tensor x) {
            counter += 1;
            return linear.forward(x).mul(counter);
        }
    }

    // test_modules.py::test_modulelist_nested (adapted)
    static final class NestedModuleList extends Module {
        final ModuleList<ModuleList<Module>> layers = new ModuleList<>(
                new ModuleList<Module>(new Linear(10, 10), new ReLU()), new ModuleList<Module>(new Linear(10, 10), new ReLU()));

        @Override
        public Tensor forward(Tensor x) {
            for (ModuleList<Module> inner : layers) {
                for (Module layer : inner) x = layer.forward(x);
            }
            return x;
        }
    }
}
