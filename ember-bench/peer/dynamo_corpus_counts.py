"""Frame and op counts PyTorch's Dynamo gives for the programs of Ember's PyTorch corpus.

Each program below is a port (the original, or as close as Python allows) of a program in
PyTorch's Dynamo tests (test/dynamo/test_*.py); PyTorchPrograms*.java holds the Java side of each,
under the same name. Every case is compiled with torch._dynamo.testing.CompileCounter as the
backend (torch._dynamo.reset() between cases) and called with the same sequence of inputs the
Java test uses; the counts after the last call are written to

    ember-core/src/test/resources/dev/ember/dynamo/corpus/pytorch-counts.tsv

Run it from the repository root with the torch peer venv:

    /work/venv/bin/python ember-bench/peer/dynamo_corpus_counts.py

To see the graphs PyTorch compiles for some cases (nothing is written):

    /work/venv/bin/python ember-bench/peer/dynamo_corpus_counts.py --graphs functions.pop,misc.callpacked

The Java tests read the TSV only; they never need Python.
"""
import collections
import functools
import operator
import os
import sys

import torch
import torch._dynamo
import torch._dynamo.testing
import torch.nn.functional as F
from torch._dynamo.testing import CompileCounter

CASES = []


OPTIONS = {}


def case(source, calls, name=None, **compile_options):
    """Registers fn as the program of source ('test_file.py::test_name'), called with calls().

    compile_options: torch.compile's dynamic=, or config={...} patched into torch._dynamo.config
    (the Java case sets the matching Options)."""

    def deco(fn):
        test_file, test = source.split("::")
        module = test_file.removeprefix("test_").removesuffix(".py")
        full = name or f"{module}.{test.removeprefix('test_').rstrip('~')}"
        CASES.append((full, source, fn, calls))
        OPTIONS[full] = compile_options
        return fn

    return deco


def seeded(make):
    def calls():
        torch.manual_seed(0)
        return make()

    return calls


def std(nargs):
    """torch._dynamo.testing.standard_test: two sets of 10x10 inputs, each called twice."""

    def make():
        a1 = tuple(torch.randn(10, 10) for _ in range(nargs))
        a2 = tuple(torch.randn(10, 10) for _ in range(nargs))
        return [a1, a2, a1, a2]

    return seeded(make)


def common():
    """test_subgraphs.py's _common: fn(v1, v2) then fn(v2, v1)."""
    v1 = torch.ones(10)
    v2 = torch.ones(10) * -2.0
    return [(v1, v2), (v2, v1)]


# ----------------------------------------------------------------------------- test_functions.py

d_global = torch.ones(10, 10)
torch.manual_seed(0)
e_global = torch.nn.Linear(10, 10)
flag = True


def constant3(a, b):
    return a - b + (1.0 + 2)


def func_with_default(a, b, some_default_arg=True):
    if some_default_arg:
        return a - b


def sub(a, b):
    return torch.sub(a, b)


@case("test_functions.py::test_add", std(2))
def _(a, b):
    return a + b


@case("test_functions.py::test_add_~", std(2))
def _(a, b):
    a_copy = a.clone()  # the original's torch.tensor(a) copies too
    return a_copy.add_(b, alpha=5.0)


@case("test_functions.py::test_addcdiv", std(3))
def _(a, b, c):
    return torch.addcdiv(a, b, c, value=5.0)


@case("test_functions.py::test_is_not_null", std(2))
def _(a, b):
    if a is not None and b is not None:
        return a + b


@case("test_functions.py::test_constant1", std(3))
def _(a, b, c):
    return a - b * c + 1.0


@case("test_functions.py::test_constant2", std(3))
def _(a, b, c):
    return a - b * c + 1


@case("test_functions.py::test_constant3", std(1))
def _(a):
    b = 1
    c = 2
    d = 3
    return b + c - d + a


@case("test_functions.py::test_constant4", std(2))
def _(a, b):
    c = 2
    d = 3
    if c > d:
        return a - b
    return b - a


@case("test_functions.py::test_globalfn", std(2))
def _(a, b):
    return sub(a, b)


@case("test_functions.py::test_indirect1", std(2))
def _(a, b):
    t = a.sub
    return t(b)


@case("test_functions.py::test_methodcall1", std(3))
def _(a, b, c):
    return constant3(a, b) * c


@case("test_functions.py::test_methodcall2", std(2))
def _(a, b):
    return constant3(a=b, b=a) + 1


@case("test_functions.py::test_tuple1", std(2))
def _(a, b):
    args = (a, b)
    return sub(*args)


@case("test_functions.py::test_listarg1", std(2))
def _(a, b):
    return torch.cat([a, b])


@case("test_functions.py::test_listarg3", std(2))
def _(a, b):
    kwargs = {"tensors": (a, b), "dim": 0}
    return torch.cat(**kwargs)


@case("test_functions.py::test_slice1", std(1))
def _(a):
    return a[5]


@case("test_functions.py::test_slice2", std(1))
def _(a):
    return a[:5]


@case("test_functions.py::test_slice5", std(1))
def _(a):
    return a[::2]


@case("test_functions.py::test_slice6", std(1))
def _(a):
    return torch.unsqueeze(a, 0)[:, 2:]


@case("test_functions.py::test_range2", std(2))
def _(x, y):
    r = x + y
    for i in range(x.size(0) + 2):
        r = r / y
    return r


@case("test_functions.py::test_unpack1", std(1))
def _(a):
    a, b = a[:5], a[5:]
    return a - b


@case("test_functions.py::test_unpack2", std(1))
def _(a):
    packed = [a[:5], a[5:]]
    a, b = packed
    return a - b


@case("test_functions.py::test_fn_with_self_set", std(2))
def _(a, b):
    return F.avg_pool2d(torch.unsqueeze(a, 0) * torch.unsqueeze(b, 1), kernel_size=2, padding=1)


@case("test_functions.py::test_return_tuple1", std(2))
def _(a, b):
    return (a - b, b - a, a, b)


@case("test_functions.py::test_globalvar", std(2))
def _(a, b):
    return a - b + d_global


@case("test_functions.py::test_globalmodule", std(1))
def _(x):
    return e_global(x)


@case("test_functions.py::test_inline_with_default", std(3))
def _(a, b, c):
    return func_with_default(a, b) * c


@case("test_functions.py::test_inner_function", std(1))
def _(x):
    def fn(x):
        return torch.add(x, x)

    return fn(x)


@case("test_functions.py::test_transpose_for_scores", std(1))
def _(x):
    new_x_shape = x.size()[:-1] + (2, 5)
    x = x.view(*new_x_shape)
    return x.permute(0, 2, 1)


@case("test_functions.py::test_return_tuple2", std(1))
def _(x):
    return (torch.add(x, x), x)


@case("test_functions.py::test_load_global_bool", std(1))
def _(x):
    if flag:
        return torch.add(x, x)
    else:
        return x


@case("test_functions.py::test_len_tensor", std(1))
def _(x):
    z = len(x)
    return torch.add(x, z)


@case("test_functions.py::test_len_constant_list", std(1))
def _(x):
    z = len([1, 2, 3])
    return torch.add(x, z)


@case("test_functions.py::test_len_constant_dict", std(1))
def _(x):
    z = len({"foo": "bar"})
    return torch.add(x, z)


@case("test_functions.py::test_dict_copy", std(1))
def _(x):
    z = dict({"foo": x + 1})
    return z


@case("test_functions.py::test_dict_values", std(1))
def _(x):
    d = {3: x}
    values = d.values()
    d[3] = x + 1
    d[4] = x + 2
    return len(values)


@case("test_functions.py::test_dict_setdefault1", std(1))
def _(x):
    d = {"a": 1, "b": 2}
    d.setdefault("a", 10)
    if d["a"] == 1:
        return x + 1
    else:
        return x - 1


@case("test_functions.py::test_dict_setdefault2", std(1))
def _(x):
    d = {"a": 1, "b": 2}
    d.setdefault("c", 10)
    if d["c"] == 10:
        return x + 1
    else:
        return x - 1


@case("test_functions.py::test_dict_update_kwargs", std(1))
def _(x):
    d = {"a": 2}
    d.update(b=4)
    return x * d["a"] * d["b"]


@case("test_functions.py::test_callable_lambda", std(1))
def _(x):
    if callable(lambda x: True):
        return x + 1
    else:
        return x - 1


@case("test_functions.py::test_len_constant_misc_iterables", std(1))
def _(x):
    a = len((1, 2, 3))
    b = len("test str")
    c = a + b
    return torch.add(x, c)


@case("test_functions.py::test_dict_kwargs", std(1))
def _(x):
    z = dict(text_embed=x + 1, other=x + 2)
    return z


@case("test_functions.py::test_float", std(1))
def _(x):
    y = float(1.2)  # noqa: UP018
    y += float("1.2")
    return torch.add(x, y)


@case("test_functions.py::test_dtype", std(1))
def _(x):
    if x.dtype == torch.float32:
        return x + 1


@case("test_functions.py::test_ndim", std(1))
def _(x):
    if x.ndim == 2 and x.ndimension() == 2 and x.dim() == 2:
        return x + 1


@case("test_functions.py::test_T", std(1))
def _(x):
    return torch.ones_like(x.T)


@case("test_functions.py::test_shape1", std(1))
def _(x):
    if x.shape[0] == 10:
        return x + 1


@case("test_functions.py::test_del", std(2))
def _(a, b):
    c = a + 1
    d = c + 2
    del c, a
    return b + d


@case("test_functions.py::test_chunks1", std(1))
def _(x):
    chunk_size = 5
    assert x.shape[0] % chunk_size == 0
    assert x.shape[0] // chunk_size == 2
    return x[:chunk_size] - x[chunk_size:]


@case("test_functions.py::test_return_dict", std(2))
def _(x, y):
    z = [x + y, y, False]
    return {"x": x, "z": z, "a": x, "b": z, "c": x}


@case("test_functions.py::test_return_dict2", std(2))
def _(x, y):
    tmp = {"x": x}
    tmp["z"] = [x + y, y]
    tmp["y"] = y
    tmp["z"].append(False)
    return tmp


@case("test_functions.py::test_funcdef_closure", std(2))
def _(x, y):
    x = x + y + 1.0

    def inner(z):
        nonlocal x, y
        y = x + z + 20.0
        x = y + z + 10.0

    inner(2.0)
    inner(3.0)

    return x, y


@case("test_functions.py::test_module_constant", std(2))
def _(x, y):
    r = x + y
    for i in range(torch._dynamo.testing.three):
        r = r / y
    return r


@case("test_functions.py::test_inline_softmax", std(2))
def _(x, y):
    return torch.nn.Softmax(dim=-1)(x + y * 2)


@case("test_functions.py::test_dtype_compare", std(2))
def _(a, b):
    if a.dtype == torch.float16:
        return a + 10
    if a.dtype == torch.float32:
        return a - b * 32


@case("test_functions.py::test_build_list_unpack", std(2))
def _(a, b):
    it1 = (x + 1 for x in (a, b))
    it2 = (x - 1 for x in (a, b))
    return torch.cat([*it1, *it2], dim=-1)


@case("test_functions.py::test_tensor_len", std(2))
def _(a, b):
    return a + b + len(a) + b.__len__()


@case("test_functions.py::test_pop", std(2))
def _(a, b):
    ll = [a, b]
    ll.append(a + 1)
    ll.extend([b + 2, a + b])
    ll.pop(-1)
    ll.pop(0)
    ll.pop()
    v1, v2 = ll
    return v1 - v2


@case("test_functions.py::test_list_convert", std(2))
def _(a, b):
    ll = [a + 2, b]
    ll = tuple(ll)
    tmp = b + 3
    ll = list(ll)
    v1, v2 = ll
    return v1 - v2 + tmp


@case("test_functions.py::test_list_add", std(2))
def _(a, b):
    l1 = (a, b)
    l2 = ()
    l3 = l1 + l2
    return l3[0] + l3[1]


@case("test_functions.py::test_startswith~", std(2))
def _(a, b):
    x = a + b
    if "foobar".startswith("foo") and "test" in constant3.__module__ + "_test":
        x = x + 1
    return x


@case("test_functions.py::test_dict_ops", std(2))
def _(a, b):
    tmp = {"a": a + 1, "b": b + 2}
    assert tmp.get("zzz") is None
    v = tmp.pop("b") + tmp.get("a") + tmp.get("missing", 3) + tmp.pop("missing", 4)
    tmp.update({"d": 3})
    tmp["c"] = v + tmp["d"]
    if "c" in tmp and "missing" not in tmp:
        return tmp["c"] - tmp["a"] + len(tmp)


@case("test_functions.py::test_sum_with_start_arg", std(4))
def _(a, b, c, d):
    return sum([b, c, d], a)


@case("test_functions.py::test_reduce", std(4))
def _(a, b, c, d):
    return functools.reduce(operator.add, [a, b, c, d])


@case("test_functions.py::test_map_sum", std(4))
def _(a, b, c, d):
    return sum(map(lambda x: x + 1, [a, b, c, d]))


@case("test_functions.py::test_tuple_contains", std(2))
def _(a, b):
    v1 = "a"
    v2 = "b"
    v3 = "c"
    vals1 = (v1, v2, v3)
    vals2 = ("d", "e", "f")
    if "a" in vals1 and "b" not in vals2:
        return a + b
    return a - b


@case("test_functions.py::test_set_contains", std(2))
def _(a, b):
    vals = set(["a", "b", "c"])
    if "a" in vals:
        x = a + b
    else:
        x = a - b
    if "d" in vals:
        y = a + b
    else:
        y = a - b
    return x, y


@case("test_functions.py::test_set_intersection", std(2))
def _(a, b):
    set1 = {"apple", "banana", "cherry"}
    set2 = {"google", "microsoft", "apple"}
    intersection_set = set1.intersection(set2)
    if "apple" in intersection_set:
        x = a + b
    else:
        x = a - b
    if "banana" in intersection_set:
        y = a + b
    else:
        y = a - b
    return x, y


@case("test_functions.py::test_set_union", std(2))
def _(a, b):
    set1 = {"apple", "banana", "cherry"}
    set2 = {"google", "microsoft", "apple"}
    union_set = set1.union(set2)
    if "apple" in union_set:
        x = a + b
    else:
        x = a - b
    if "banana" in union_set:
        y = a + b
    else:
        y = a - b
    return x, y


@case("test_functions.py::test_tuple_iadd", std(2))
def _(a, b):
    output = (a, b)
    output += (a + b, a - b)
    return output


@case("test_functions.py::test_unpack_ex1", std(1))
def _(x):
    output = (x, x + 1, x + 2, x + 3)
    a, b, *cd = output
    return a - b / cd[0]


@case("test_functions.py::test_const_tuple_add2", std(1))
def _(x):
    output = (x, x + 1, x + 2, x + 3)
    output = (None,) + output + (None,)
    return output[2] + output[3]


@case("test_functions.py::test_list_truth", std(2))
def _(a, b):
    tmp = [1, 2, 3]
    if tmp:
        return a + b
    else:
        return a - b


@case("test_functions.py::test_list_reversed", std(2))
def _(a, b):
    tmp = [a + 1, a + 2, a + 3]
    return a + b + next(iter(reversed(tmp)))


@case("test_functions.py::test_list_sorted1", std(1))
def _(x):
    tmp = [1, 10, 3, 0]
    return x + 1, sorted(tmp), sorted(tmp, reverse=True)


@case("test_functions.py::test_list_clear", std(2))
def _(a, b):
    tmp = [a + 1, a + 2]
    tmp.clear()
    tmp.append(a + b)
    return tmp


@case("test_functions.py::test_namedtuple", std(2))
def _(a, b):
    mytuple = collections.namedtuple("mytuple", ["x", "y", "xy"])
    tmp = mytuple(a, b, a + b)
    return mytuple(tmp.x, tmp[1], tmp.xy + b)


class MyNamedTuple(collections.namedtuple("MyNamedTupleBase", ["first", "second"])):
    def add(self):
        return self.first + self.second

    @staticmethod
    def static_method():
        return 1

    @classmethod
    def class_method(cls):
        return cls.__name__


@case("test_functions.py::test_namedtuple_user_methods", std(2))
def _(a, b):
    mytuple = MyNamedTuple(a, b)
    return mytuple.add(), mytuple.static_method(), mytuple.class_method()


@case("test_functions.py::test_fstrings2", std(1))
def _(x):
    tmp = f"{x.shape[0]} bar"
    if tmp.startswith("10"):
        return x + 1


@case("test_functions.py::test_fstrings6", std(1))
def _(x):
    tmp = f"{x.shape[0] + x.shape[1]}"
    if "20" in tmp:
        return x + 1


@case("test_functions.py::test_partials_lambda", std(1))
def _(x):
    multiply = lambda x, y: x * y  # noqa: E731
    triple = functools.partial(multiply, y=3)
    return triple(x)


@case("test_functions.py::test_list_add_then_mutate", std(1))
def _(x):
    my_list = [1, x]
    y = x / 4.0
    my_list = my_list + [x / 2.0, 4]
    my_list.append(y)
    return sum(my_list)


@case("test_functions.py::test_in_not_in", std(1))
def _(x):
    mylist = [1, 2, 3, 4, 5, x]
    myotherlist = [1, 2, 3, 4, 5]
    assert 3 in mylist
    assert 6 not in myotherlist
    return sum(mylist)


@case("test_functions.py::test_list_expand_lhs", std(1))
def _(x):
    return sum(4 * [x])


# ----------------------------------------------------------------------------- test_subgraphs.py

@torch._dynamo.disable
def unsupported(a, b):
    return a + b


def indirectly_unsupported(a, b):
    c = a + b
    return unsupported(a, c)


globalmod = torch.nn.ReLU()


@case("test_subgraphs.py::test_control_flow1", common)
def _(a, b):
    c1 = a - b
    c2 = b - a
    if c1.sum() > c2.sum():
        return c1
    else:
        return c2


@case("test_subgraphs.py::test_control_flow2", common)
def _(a, b):
    if a.sum() > b.sum():
        return 1
    else:
        return 2


@case("test_subgraphs.py::test_control_flow3", common)
def _(a, b):
    c1 = a - b
    c2 = b - a
    m = globalmod
    if c1.sum() > c2.sum():
        return m(c1)
    else:
        return m(c2)


@case("test_subgraphs.py::test_control_flow4", common)
def _(a, b):
    tmp1 = a.sum() > b.sum() and a.sum() > 0
    if tmp1:
        return 1
    else:
        return 2


@case("test_subgraphs.py::test_capi_call1", common)
def _(a, b):
    c1 = a - b
    c2 = b - a
    return unsupported(c1, c2)


@case("test_subgraphs.py::test_capi_call2", common)
def _(a, b):
    c1 = a - b
    c2 = b - a
    return a - (b - unsupported(c1, c2))


@case("test_subgraphs.py::test_indirect_unsupported1", common)
def _(a, b):
    c1 = a - b
    c2 = b - a
    return indirectly_unsupported(c1, c2)


@case("test_subgraphs.py::test_indirect_unsupported3", common)
def _(a, b):
    args = [a - b, b - a]
    return indirectly_unsupported(*args)


@case("test_subgraphs.py::test_stack_state1", common)
def _(a, b):
    t1 = 1.23 * a
    t2 = 4.56 * a
    c1 = a - b
    c2 = b - a
    return t1 / (t2 - unsupported(c1, c2))


@case("test_subgraphs.py::test_stack_state2", common)
def _(a, b):
    t1 = 1.23 * a
    t2 = 4.56 * a
    c1 = a - b
    c2 = b - a
    return t1 / (t2 - indirectly_unsupported(c1, c2))


@case("test_subgraphs.py::test_multigraph", common)
def _(a, b):
    x = a + b
    x = x / 2.0
    if x.sum() < 0:
        return x * -1.0
    return x


@case("test_subgraphs.py::test_resume1", common)
def _(a, b):
    x = a + b
    x = x / 2.0
    x = x + 2.0
    x = unsupported(x, a)
    x = x + 2.0
    x = x + 2.0
    x = x + 2.0
    return x


@case("test_subgraphs.py::test_resume2", common)
def _(a, b):
    x = a + b
    x = x / 2.0
    x = x + 2.0
    x = indirectly_unsupported(x, a)
    x = x + 2.0
    x = x + 2.0
    x = x + 2.0
    return x


@case("test_subgraphs.py::test_resume5", common)
def _(a, b):
    x = a + b
    x = x / 2.0
    x = x + 2.0
    print(x)
    x = x + 2.0
    x = x + 2.0
    x = x + 2.0
    return x


@case("test_subgraphs.py::test_start1", common)
def _(a, b):
    print(a)
    x = a + b
    x = x + 2.0
    x = x + 2.0
    return x


@case("test_subgraphs.py::test_start2", common)
def _(a, b):
    x = indirectly_unsupported(a, b)
    x = x + 2.0
    x = x + 2.0
    x = x + 2.0
    return x


@case("test_subgraphs.py::test_start3", common)
def _(a, b):
    x = unsupported(a, b)
    x = x + 2.0
    x = x + 2.0
    x = x + 2.0
    return x


def start4_calls():
    torch.manual_seed(0)
    v1 = torch.randn(10)
    v2 = torch.randn(10)
    f = torch.zeros(1, dtype=torch.int32)
    t = torch.ones(1, dtype=torch.int32)
    return [(v1, v2, t), (v1, v2, f)]


@case("test_subgraphs.py::test_start4", start4_calls)
def _(a, b, check):
    if check:
        return a + b + 10
    else:
        return a + b - 10


torch.manual_seed(1)
freevar_c1 = torch.randn(10)
freevar_c2 = torch.randn(10)


@case("test_subgraphs.py::test_resume_freevars", common)
def _(a, b):
    x = a + b + (freevar_c1 - freevar_c2)
    x = unsupported(x, x)
    return x + (freevar_c1 - freevar_c2)


@case("test_subgraphs.py::test_restore_state", common)
def _(a, b):
    len_ = len
    x = a + b
    x = torch.add(unsupported(x, x), 1)
    return a * x + len_(b)


@case("test_subgraphs.py::test_restore_range", common)
def _(a, b):
    x = a + b
    rng = range(3, 8, 2)
    x = unsupported(x, x)
    for i in rng:
        x = x + i
    return x


@case("test_subgraphs.py::test_pop_after_resume", common)
def _(a, b):
    tmp = [a + 1, b + 2, a + b]
    x = a
    x = unsupported(x, x)
    for i in range(3):
        x += tmp.pop(-1)
    return x


@case("test_subgraphs.py::test_graph_break_on_item", common)
def _(a, b):
    x = a + b - 1.5
    x = x.sum()
    x.item()
    x = x / (a + b)
    return x


def paths_join_calls():
    torch.manual_seed(0)
    v1 = torch.randn(10)
    t = torch.Tensor([True])
    f = torch.Tensor([False])
    return [(v1, a, b, c) for a in (t, f) for b in (t, f) for c in (t, f)]


@case("test_subgraphs.py::test_resume_paths_join", paths_join_calls)
def _(x, c1, c2, c3):
    x = x + 1
    if c1:
        x = x + 2
    x = x + 3
    if c2:
        x = x + 4
    x = x + 5
    if c3:
        x = x + 6
    return x + 7


def nested_paths_calls():
    torch.manual_seed(0)
    v1 = torch.randn(10)
    t = torch.Tensor([True])
    f = torch.Tensor([False])
    return [(v1, a, b) for _ in range(2) for a in (t, f) for b in (t, f)]


@case("test_subgraphs.py::-", nested_paths_calls, name="subgraphs.nested_paths_join")
def _(x, c1, c2):
    x = x + 1
    if c1:
        x = x * 2
        if c2:
            x = x + 3
        x = x - 1
    return x + 5


@case("test_subgraphs.py::test_resume_with_no_grad1", common)
def _(a, b):
    x = a + b
    with torch.no_grad():
        x = x + 1
        x.sum().tolist()  # graph break
        x = x + 2
    x = x + 3
    return x


@case("test_subgraphs.py::test_resume_with_no_grad2", common)
def _(a, b):
    x = a + b
    with torch.no_grad():
        x = x + 1
        x.sum().tolist()  # graph break
        x = x + 2
        x.sum().tolist()  # graph break
        x = x + 3
    x = x + 4
    return x


# ----------------------------------------------------------------------------- test_misc.py

def boolarg_calls():
    torch.manual_seed(0)
    a = torch.randn(10, 10)
    b = torch.randn(10, 10)
    return [(a, b, True), (a, b, False), (a, b, None), (a, b, True)]


@case("test_misc.py::test_boolarg", boolarg_calls)
def _(aa, bb, flag):
    if flag:
        return aa - bb
    else:
        return bb - aa


def callpacked_calls():
    torch.manual_seed(0)
    a, b, c = torch.randn(10, 10), torch.randn(10, 10), torch.randn(10, 10)
    return [([a, b, c],), ((a, b, c),), ([a, b, c],), ((a, b, c),)]


@case("test_misc.py::test_callpacked", callpacked_calls)
def _(args):
    a, b, c = args
    return a - b * c


@case("test_misc.py::test_inplace", std(2))
def _(a, b):
    o = torch.empty((10, 10))
    o.copy_(a)
    o -= b
    return o


@case("test_misc.py::test_unpack4~", std(2))
def _(a, b):
    a = a[:5, :]
    b = b[:5, :]
    x, y = a.size()
    o = torch.empty((x, y))
    torch.add(a, b, out=o)
    return o


@case("test_misc.py::test_matmul1", std(2))
def _(a, b):
    return a @ b


@case("test_misc.py::test_numel", std(1))
def _(a):
    return (a + a.numel() + torch.numel(a), a + a.nelement())


@case("test_misc.py::test_int_shape_binops", std(1))
def _(x):
    y = 15 - x.shape[0]
    y = 4 + y
    y = 5 * y
    y = 2 % y
    y = 3**y
    y = 10 // y
    y = pow(2, y)
    y = 10 / y
    return x + y


@case("test_misc.py::test_shape_int_inplace_binops", std(1))
def _(x):
    p = x.shape[0]
    p += 2
    p -= 2
    p **= 2
    p /= 2
    p *= 2
    p //= 2
    p %= 2
    return x + p


@case("test_misc.py::test_int_int_comparisons", std(1))
def _(x):
    if 2 != 2:
        out = 1
    elif 2 < 1:
        out = 1
    elif 1 > 2:
        out = 1
    elif 1 >= 2:
        out = 1
    elif 2 <= 1:
        out = 1
    elif 2 == 2:
        out = 2
    else:
        out = 1
    return x + out


@case("test_misc.py::test_shape_int_comparisons", std(1))
def _(x):
    a = x.shape[0]
    if a != 10:
        out = 1
    elif a < 2:
        out = 1
    elif a > 12:
        out = 1
    elif a >= 12:
        out = 1
    elif a <= 2:
        out = 1
    elif a == 10:
        out = 2
    else:
        out = 1
    return x + out


@case("test_misc.py::test_inplace_desugaring", std(1))
def _(y):
    x0 = 1
    x0 += y
    x1 = 1
    x1 -= y
    return x0, x1


def tensor_dict_calls():
    v1 = torch.Tensor([100])
    v2 = torch.Tensor([200])
    return [({"a": v1, "b": v2},), ({"a": v2, "b": v1},)]


@case("test_misc.py::test_tensor_dict1", tensor_dict_calls)
def _(inputs):
    return inputs["a"] - inputs["b"] * 1.5


@case("test_misc.py::test_tensor_dict2~", tensor_dict_calls)
def _(inputs):
    total = torch.zeros(1)
    for k, v in inputs.items():
        total += v
    return total


def tensor_dict3_calls():
    v1 = torch.Tensor([100])
    v2 = torch.Tensor([200])
    return [({"a": v1, "b": v2}, {"b": v1, "c": v2}), ({"a": v1, "b": v2}, {"b": v1, "c": v2})]


@case("test_misc.py::test_tensor_dict3~", tensor_dict3_calls)
def _(inputs_a, inputs_b):
    total = torch.zeros(1)
    input_keys = sorted(inputs_a.keys() | inputs_b.keys())
    for k in input_keys:
        if k in inputs_a:
            total += inputs_a[k]
        if k in inputs_b:
            total += inputs_b[k]
    return total


def rewrite_assert_calls():
    return [(torch.Tensor([3, 4, 5]),)]


@case("test_misc.py::test_rewrite_assert_noop", rewrite_assert_calls)
def _(x):
    b = x.sin()
    assert True
    assert x.dtype == torch.float32
    return x.cos() + b


@case("test_misc.py::test_rewrite_assert_without_msg", rewrite_assert_calls)
def _(x):
    b = x.sin()
    assert x[0] == 3
    return x.cos() + b


@case("test_misc.py::test_dictcomp~", lambda: [({"a": torch.ones(3), "b": torch.ones(3) * 2},)])
def _(inputs):
    return {k: v + 1 for k, v in inputs.items()}


@case("test_misc.py::test_listcomp~", std(1))
def _(x):
    return torch.cat([x[i : i + 1] * 2 for i in range(3)])


@case("test_misc.py::-", std(1), name="misc.nested_closure")
def _(x):
    def outer(a):
        def inner(b):
            return b * a + x

        return inner

    return outer(2)(x) + outer(3)(x)


@case("test_misc.py::-", std(1), name="misc.no_grad_helper")
def _(x):
    def helper(t):
        with torch.no_grad():
            return t.sin() * 2

    return helper(x) + 1


@case("test_misc.py::-", std(1), name="misc.graph_break_in_helper")
def _(x):
    def helper(t):
        t = t.sin()
        torch._dynamo.graph_break()
        return t.cos()

    return helper(x) + x


@case("test_misc.py::-", std(1), name="misc.stack_list_of_rows")
def _(x):
    rows = [x[i] for i in range(x.size(0))]
    return torch.stack(rows, dim=1)


class ScaleShift:
    def __init__(self):
        self.scale = 3.0
        self.shift = 1


@case("test_misc.py::-", std(1), name="misc.user_object_attr")
def _(x):
    c = ScaleShift()
    return x * c.scale + c.shift


import enum  # noqa: E402


class Mode(enum.Enum):
    A = 1
    B = 2


@case("test_misc.py::-", std(1), name="misc.enum_branch")
def _(x):
    m = Mode.B
    if m == Mode.A:
        return x + 1
    return x * 2


# ----------------------------------------------------------------------------- test_repros.py

class DummyConfig:
    attn_layers = ["local", "lsh"]
    lsh_attn_chunk_length = 64
    local_attn_chunk_length = 64


def _get_min_chunk_len(config):
    attn_types = config.attn_layers
    attn_types_set = set(attn_types)
    if len(attn_types_set) == 1 and attn_types[0] == "lsh":
        return config.lsh_attn_chunk_length
    elif len(attn_types_set) == 1 and attn_types[0] == "local":
        return config.local_attn_chunk_length
    elif len(attn_types_set) == 2 and attn_types_set == set(["lsh", "local"]):
        return min(config.lsh_attn_chunk_length, config.local_attn_chunk_length)
    else:
        raise NotImplementedError()


@case("test_repros.py::test_reformer_min_chunk_len", lambda: [(DummyConfig(),)])
def _(cfg):
    t = torch.empty(10)
    t.fill_(_get_min_chunk_len(cfg))
    return t[0] + 1


class SequentialAppendList(torch.nn.Sequential):
    def forward(self, input, collect_list):
        for module in self:
            out = module(input)
            collect_list.append(out)
        return input, collect_list


def seq_append_calls():
    torch.manual_seed(0)
    x = torch.randn(4, 10)
    return [(x, [x])]


torch.manual_seed(0)
seq_append_list = SequentialAppendList(torch.nn.Linear(10, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10), torch.nn.ReLU())


@case("test_repros.py::test_seq_append_list~", seq_append_calls)
def _(x, l):
    return seq_append_list(x, l)


@case("test_repros.py::test_rewrite_assert_with_msg", rewrite_assert_calls, name="repros.assert_with_msg")
def _(x):
    b = x.sin()
    assert x[0] == 3, "First dim need to be 3"
    return x.cos() + b


@case("test_repros.py::-", std(1), name="repros.recursive_helper")
def _(x):
    def rec(t, n):
        if n == 0:
            return t
        return rec(t * 2, n - 1) + 1

    return rec(x, 3)


@case("test_repros.py::test_chunk_reformer_ff~", lambda: [(torch.randn(1, 16, 8),)], name="repros.chunked_feed_forward")
def _(x):
    chunks = x.chunk(4, dim=1)
    outs = [torch.relu(c * 2 + 1) for c in chunks]
    return torch.cat(outs, dim=1)


@case("test_repros.py::-", lambda: [(torch.tensor([True, False]),), (torch.tensor([False, False]),)],
      name="repros.tensor_bool_guard")
def _(x):
    y = x.to(torch.float32).sum()
    if y > 0:
        return y + 1
    return y - 1


@case("test_repros.py::-", std(1), name="repros.list_aliasing")
def _(x):
    a = [x]
    b = a
    b.append(x + 1)
    return a[0] + a[1]


@case("test_repros.py::-", lambda: [({"b": torch.ones(2), "a": torch.ones(2) * 3},)], name="repros.dict_order_keys")
def _(d):
    out = None
    for k in d:
        out = d[k] if out is None else out - d[k]
    return out


@case("test_repros.py::-", lambda: [(torch.ones(2, 3),), (torch.ones(3, 3),)], name="repros.size_branch")
def _(x):
    if x.size(0) == 2:
        return x + 1
    return x.sum(0)


@case("test_repros.py::test_batch_norm_act~", lambda: [(torch.randn(2, 4, 3, 3),)], name="repros.batch_norm_act")
def _(x):
    bn = batch_norm_act
    return bn(x)


class BatchNormAct(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(4)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.bn(x))


batch_norm_act = BatchNormAct().eval()


@case("test_repros.py::-", std(1), name="repros.inplace_on_slice")
def _(x):
    y = x.clone()
    y[:, 0:2].mul_(2)
    return y + 1


# ----------------------------------------------------------------------------- test_modules.py

torch.manual_seed(0)


class BasicModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.scale = torch.randn(1, 10)

    def forward(self, x):
        return F.relu(self.linear1(x)) * self.scale


class FnMember(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.activation = F.relu

    def forward(self, x):
        x = self.linear1(x)
        if self.activation:
            x = self.activation(x)
        return x


class FnMemberCmp(torch.nn.Module):
    def __init__(self, activation):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.activation = activation

    def forward(self, x):
        x = self.linear1(x)
        if self.activation is not None:
            x = self.activation(x)
        if self.activation is None:
            x = torch.sigmoid(x)
        return x


class SubmoduleExample(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = BasicModule()
        self.layer2 = BasicModule()
        self.scale = torch.randn(1, 10)

    def forward(self, x):
        x = self.layer1(x)
        x = self.layer2(x)
        return x * self.scale


class IsTrainingCheck(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.linear2 = torch.nn.Linear(10, 10)
        self.train(True)

    def forward(self, x):
        if self.training:
            mod = self.linear1
        else:
            mod = self.linear2
        return F.relu(mod(x))


class IsEvalCheck(IsTrainingCheck):
    def __init__(self):
        super().__init__()
        self.train(False)


class ModuleMethodCall(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = BasicModule()
        self.layer2 = BasicModule()
        self.scale = torch.randn(1, 10)

    def call_and_scale(self, mod, x):
        x = mod(x)
        return x * self.scale

    def forward(self, x):
        x1 = self.call_and_scale(self.layer1, x)
        x2 = self.call_and_scale(self.layer2, x)
        return x1 + x2


class ConstLoop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.count = 3

    def forward(self, x):
        for i in range(self.count):
            x = torch.sigmoid(self.linear1(x))
        return x


class ViaModuleCall(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)

    def forward(self, x):
        return constant3(torch.sigmoid(self.linear1(x)), x)


class IsNoneLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = torch.nn.Linear(10, 10)
        self.layer2 = None
        self.train(True)

    def forward(self, x):
        if self.layer1 is not None:
            x = self.layer1(x)
        if self.layer2 is not None:
            x = self.layer2(x)
        return x


class LayerList(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [torch.nn.Linear(10, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class ModuleList(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(10, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10), torch.nn.ReLU()])

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x)

        for layer in self.layers:
            x = layer(x)

        for layer, val in zip(self.layers, (x, x, x, x)):
            x = layer(x) + val

        for idx, layer in enumerate(self.layers):
            x = layer(x) * idx

        return x


class Seq(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Linear(10, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10), torch.nn.ReLU())

    def forward(self, x):
        return self.layers(x)


class Cfg:
    def __init__(self):
        self.val = 0.5
        self.count = 3


class CfgModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg()
        self.layer = torch.nn.Linear(10, 10)

    def forward(self, x):
        for i in range(self.cfg.count):
            x = self.layer(x + self.cfg.val)
        return x


class StringMember(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.mode = "some_string"

    def forward(self, x):
        if self.mode == "some_string":
            return F.relu(self.linear1(x))


class SuperModule(BasicModule):
    def forward(self, x):
        x = super().forward(x)
        return x + 10.0


class SuperModule2(BasicModule):
    def forward(self, x):
        return BasicModule.forward(self, x)


class ModuleWithIntAttr(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(10, 10)
        self.scale = 2

    def forward(self, x):
        return self.layer(x) * self.scale


class TensorList(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = (torch.randn((1, 10)), torch.randn((10, 1)), torch.randn((1, 10)), torch.randn((10, 1)))

    def forward(self, x):
        for layer in self.layers:
            x = x * layer
        return x


class ParametersModule1(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(10, 10)
        self.scale = torch.nn.Parameter(torch.randn(1, 10))

    def forward(self, x):
        if not self.scale.requires_grad:
            return x
        return F.relu(self.linear1(x)) * self.scale


class ParametersModule2(ParametersModule1):
    def forward(self, x):
        total = None
        for p in self.parameters():
            if total is None:
                total = p.sum()
            else:
                total = total + p.sum()
        return x * total


class ChildrenModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.relu1 = torch.nn.ReLU()
        self.linear = torch.nn.Linear(10, 10)
        self.relu2 = torch.nn.ReLU()

    def forward(self, x):
        for child in self.children():
            x = child(x)
        return x


class NamedChildrenModule(ChildrenModule):
    def forward(self, x):
        for name, child in self.named_children():
            if name.startswith("relu"):
                x = child(x) + 1
            else:
                x = child(x)
        return x


class ModuleDictModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleDict({"0": torch.nn.Linear(10, 10)})

    def forward(self, x):
        x = self.layers["0"](x)
        return x


class ModuleForwardHasGraphBreak(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = BasicModule()
        self.layer2 = BasicModule()
        self.scale = torch.randn(1, 10)

    def forward(self, x):
        x = self.layer1(x)
        print("graph break")
        x = self.layer2(x)
        return x * self.scale


class SelfMutating(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(10, 10)
        self.counter = 0

    def forward(self, x):
        self.counter += 1
        return self.linear(x) * self.counter


class NestedModuleList(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.ModuleList([torch.nn.Linear(10, 10), torch.nn.ReLU()]) for _ in range(2)])

    def forward(self, x):
        for inner in self.layers:
            for layer in inner:
                x = layer(x)
        return x


MODULES = {
    "test_basicmodule1": BasicModule(),
    "test_fnmember": FnMember(),
    "test_fnmembercmp1~": FnMemberCmp(F.relu),
    "test_fnmembercmp2~": FnMemberCmp(None),
    "test_submodules1": SubmoduleExample(),
    "test_istraining1": IsTrainingCheck(),
    "test_iseval1": IsEvalCheck(),
    "test_modulemethod1": ModuleMethodCall(),
    "test_constloop": ConstLoop(),
    "test_viamodulecall": ViaModuleCall(),
    "test_isnonelayer": IsNoneLayer(),
    "test_layerlist~": LayerList(),
    "test_modulelist": ModuleList(),
    "test_seq~": Seq(),
    "test_cfgmod": CfgModule(),
    "test_stringmember": StringMember(),
    "test_super1": SuperModule(),
    "test_super2~": SuperModule2(),
    "test_intarg~": ModuleWithIntAttr(),
    "test_tensorlist~": TensorList(),
    "test_parameters1~": ParametersModule1(),
    "test_parameters2~": ParametersModule2(),
    "test_children~": ChildrenModule(),
    "test_named_children~": NamedChildrenModule(),
    "test_moduledict~": ModuleDictModule(),
    "test_module_forward_has_graph_break~": ModuleForwardHasGraphBreak(),
    "test_self_mutating1~": SelfMutating(),
    "test_modulelist_nested~": NestedModuleList(),
}

for _test, _module in MODULES.items():
    CASES.append((f"modules.{_test.removeprefix('test_').rstrip('~')}", f"test_modules.py::{_test}", _module, std(1)))


# ----------------------------------------------------------------------------- test_recompiles.py

def sizes_2_to_6():
    torch.manual_seed(0)
    out = []
    for n in (2, 3, 4, 4, 5, 5, 6):
        out.append((torch.randn([n]), torch.randn([n])))
    return out


@case("test_recompiles.py::test_automatic_dynamic_reduce_recompiles", sizes_2_to_6)
def _(x, y):
    return x * y


def true_false_calls():
    torch.manual_seed(0)
    y = torch.randn([2])
    return [(True, y), (False, y), (True, y), (False, y), (True, y), (False, y)]


@case("test_recompiles.py::test_recompiles_true_false_flop", true_false_calls)
def _(x, y):
    if x:
        return y * 2
    else:
        return y * y


def aliasing_calls():
    torch.manual_seed(0)
    x, y, z = torch.randn([3]), torch.randn([3]), torch.randn([3])
    zc = z.clone()
    # the second call passes one tensor as a and b (the Java side's args(zc, zc, ...)): the alias changed
    return [(x.clone(), y.clone(), z.clone()), (zc, zc, y.clone())]


@case("test_recompiles.py::test_aliasing_guard_failures", aliasing_calls, name="recompiles.distinct_inputs")
def _(a, b, c):
    a.add_(b)
    return c + 1


def unread_arguments_calls():
    torch.manual_seed(0)
    x, a, b = torch.randn(3), torch.randn(3), torch.randn(3)
    return [(x, a, b), (x, a, a), (x, x, x), (x, torch.randn(5, 5), torch.zeros(2, dtype=torch.float64))]


@case("test_recompiles.py::-", unread_arguments_calls, name="recompiles.unread_arguments")
def _(x, a, b):
    return x + 1


def dtype_change_calls():
    torch.manual_seed(0)
    x = torch.randn(3)
    return [(x,), (x.double(),), (x,), (x.double(),)]


@case("test_recompiles.py::-", dtype_change_calls, name="recompiles.dtype_change")
def _(x):
    return x.sin() + 1


def ndim_change_calls():
    torch.manual_seed(0)
    return [(torch.randn(3),), (torch.randn(3, 3),), (torch.randn(3, 3, 3),), (torch.randn(3),)]


@case("test_recompiles.py::-", ndim_change_calls, name="recompiles.ndim_change")
def _(x):
    return x * 2


def int_arg_calls():
    torch.manual_seed(0)
    x = torch.randn(3)
    return [(x, 1), (x, 2), (x, 3), (x, 1)]


@case("test_recompiles.py::-", int_arg_calls, name="recompiles.int_arg")
def _(x, n):
    return x * n + n


def cache_limit_calls():
    torch.manual_seed(0)
    x = torch.randn(3)
    return [(x, i) for i in range(12)]


@case("test_recompiles.py::-", cache_limit_calls, name="recompiles.int_arg_past_limit")
def _(x, n):
    if n % 2 == 0:
        return x + n
    return x - n


def grad_mode_calls():
    torch.manual_seed(0)
    x = torch.randn(3)
    return [(x, True), (x, False), (x, True)]


@case("test_recompiles.py::-", grad_mode_calls, name="recompiles.grad_mode_change")
def _(x, grad):
    with torch.set_grad_enabled(grad):
        return inner_grad_fn(x)


def inner_grad_fn(x):
    return x.sin() * 2


def stride_calls():
    torch.manual_seed(0)
    x = torch.randn(4, 4)
    return [(x,), (x.t(),), (x,)]


@case("test_recompiles.py::-", stride_calls, name="recompiles.stride_change")
def _(x):
    return x + 1


def string_arg_calls():
    torch.manual_seed(0)
    x = torch.randn(3)
    return [(x, "sin"), (x, "cos"), (x, "sin")]


@case("test_recompiles.py::-", string_arg_calls, name="recompiles.string_arg")
def _(x, mode):
    if mode == "sin":
        return x.sin()
    return x.cos()


# ----------------------------------------------------------------------------- test_higher_order_ops.py

from torch._higher_order_ops.cond import cond  # noqa: E402


def pos_neg_calls():
    return [(torch.ones(4, 5),), (-torch.ones(4, 5),)]


@case("test_higher_order_ops.py::test_cond_branches_no_arguments", pos_neg_calls)
def _(x):
    def true_fn(x):
        return torch.sin(x)

    def false_fn(x):
        return torch.cos(x)

    return cond(x.sum() > 0, true_fn, false_fn, (x,))


@case("test_higher_order_ops.py::test_cond_subgraph_name_is_valid~", pos_neg_calls)
def _(x):
    pred = x.sum() > 0
    y = x * 2

    def true_fn(y):
        return y + 1

    def false_fn(y):
        return y - 1

    return cond(pred, true_fn, false_fn, (y,)) + 1


@case("test_higher_order_ops.py::test_cond_pytree_operands~", pos_neg_calls)
def _(x):
    def true_fn(a, b):
        return a + b

    def false_fn(a, b):
        return a - b

    return cond(x.sum() > 0, true_fn, false_fn, (x, x * 3))


def cond_nested_calls():
    x = torch.tensor([0.25, 0.25])
    t, f = torch.tensor(True), torch.tensor(False)
    return [(t, t, x), (t, f, x), (f, t, x), (f, f, x)]


@case("test_misc.py::test_cond_nested", cond_nested_calls)
def _(pred, pred2, x):
    def true_fn_nested(x):
        return x * 10

    def false_fn_nested(x):
        return x * -1

    def true_fn(pred2, x):
        return x.sin()

    def false_fn(pred2, x):
        return x + cond(pred2, true_fn_nested, false_fn_nested, [x])

    return cond(pred, true_fn, false_fn, [pred2, x])


@case("test_higher_order_ops.py::-", lambda: [(torch.ones(4, 5),)], name="higher_order_ops.cond_python_bool_pred")
def _(x):
    def true_fn(x):
        return x.sin()

    def false_fn(x):
        return x.cos()

    return cond(x.shape[0] > 2, true_fn, false_fn, (x,))


@case("test_higher_order_ops.py::-", pos_neg_calls, name="higher_order_ops.cond_after_break")
def _(x):
    y = x + 1
    torch._dynamo.graph_break()

    def true_fn(y):
        return y.sin()

    def false_fn(y):
        return y.cos()

    return cond(y.sum() > 0, true_fn, false_fn, (y,))



# ----------------------------------------------------------------------------- more ports

@case("test_subgraphs.py::test_resume_tuple_iterator", common)
def _(a, b):
    x = a + b
    it = iter(tuple(range(10)))
    x = x + next(it)
    x = x + next(it)
    x = x + next(it)
    x = unsupported(x, x)
    x = x + next(it)
    x = x + next(it)
    x = x + next(it)
    x = x + next(it)
    return x


def one_randn10():
    torch.manual_seed(0)
    v1 = torch.randn(10)
    return [(v1,), (v1,)]


@case("test_subgraphs.py::test_tuple_iterator_return", one_randn10)
def _(x):
    it = iter(tuple(range(10)))
    x = x + next(it)
    x = x + next(it)
    x = unsupported(x, x)
    x = x + next(it)
    x = x + next(it)
    x = unsupported(x, x)
    x = x + next(it)
    x = x + next(it)
    return x, list(it)


@case("test_subgraphs.py::test_restore_range_iter", common)
def _(a, b):
    x = a + b
    rng = iter(range(3, 8, 2))
    x = unsupported(x, x)
    x += next(rng)
    return x, list(rng)


@case("test_subgraphs.py::test_enumerate_not_break_graph", common)
def _(a, b):
    for i, x in enumerate(a.shape):
        b = b + x
    for i, x in enumerate(b.shape, 8):
        b = b + x * i
    return b


@case("test_subgraphs.py::test_resume_with_no_grad3", common)
def _(a, b):
    x = a + b
    with torch.no_grad():
        with torch.no_grad():
            x = x + 1
            with torch.enable_grad():
                x.sum().tolist()  # graph break
                x = x[0] + 2
            x = x + 3
    x = x + 4
    return x


@case("test_subgraphs.py::test_no_graph_break_on_item", common, config={"capture_scalar_outputs": True})
def _(a, b):
    x = a + b - 1.5
    x = x.sum()
    x.item()
    x = x / (a + b)
    return x


def sizes_2_to_11():
    torch.manual_seed(0)
    return [(torch.randn(i), torch.randn(i)) for i in range(2, 12)]


@case("test_subgraphs.py::test_dynamic_kwarg", sizes_2_to_11, dynamic=True)
def _(a, b):
    return a - b * 10


def duck_calls():
    torch.manual_seed(0)
    x, y = torch.randn(2), torch.randn(3)
    return [(x, x), (x, y)]


@case("test_subgraphs.py::test_dynamic_duck_size", duck_calls, dynamic=True)
def _(a, b):
    if a.size(0) == b.size(0):
        return a + b
    else:
        return a.sum() + b.sum()


def order_calls():
    torch.manual_seed(0)
    x, y = torch.randn(2), torch.randn(3)
    return [(x, y), (x, x)]


@case("test_subgraphs.py::test_dynamic_order_dependence", order_calls, dynamic=True)
def _(a, b):
    return a.sum() + b.sum()


def zero_calls():
    torch.manual_seed(0)
    return [(torch.randn(2),), (torch.randn(0),)]


@case("test_subgraphs.py::test_dynamic_zero_inference", zero_calls, dynamic=True)
def _(a):
    if a.size(0) != 0:
        return a * 2
    else:
        return a + 1


@case("test_recompiles.py::test_automatic_dynamic_reduce_recompiles", sizes_2_to_6, name="recompiles.automatic_dynamic_reduce_recompiles_dynamic", dynamic=True)
def _(x, y):
    return x * y


@case("test_recompiles.py::test_automatic_dynamic_reduce_recompiles", sizes_2_to_6, name="recompiles.automatic_dynamic_reduce_recompiles_static", dynamic=False)
def _(x, y):
    return x * y


def swap_types_calls():
    torch.manual_seed(0)
    return [(torch.randn([2]), torch.randn([2])), (torch.randn([3]), 3), (torch.randn([4]), torch.randn([4])),
            (torch.randn([4]), torch.randn([4])), (torch.randn([5]), 4), (torch.randn([5]), 4), (torch.randn([6]), torch.randn([6]))]


@case("test_recompiles.py::test_automatic_dynamic_tensor_scalar_change", swap_types_calls)
def _(x, y):
    return x * y


@case("test_misc.py::test_unpack5", std(2))
def _(a, b):
    a = a[:5, :]
    b = b[:5, :]
    x, y = a.shape
    o = torch.empty((x, y))
    o.copy_(a / b)
    return o


@case("test_misc.py::test_int_shape_inplace_binops", std(1))
def _(x):
    p = x.shape[0]
    y = 2
    y += p
    y = 2
    y -= p
    y = 2
    y **= p
    y = 2
    y /= p
    y = 2
    y *= p
    y = 2
    y //= p
    y = 2
    y %= p
    return x + y


@case("test_misc.py::test_int_shape_comparisons", std(1))
def _(x):
    a = x.shape[0]
    if 10 != a:
        out = 1
    elif 12 < a:
        out = 1
    elif 2 > a:
        out = 1
    elif 2 >= a:
        out = 1
    elif 12 <= a:
        out = 1
    elif 10 == a:
        out = 2
    else:
        out = 1
    return x + out


class ParamShapeModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.param = torch.nn.Parameter(torch.randn(15))

    def forward(self, x):
        p = self.param.shape[0]
        y = p - x.shape[0]
        y = p + y
        y = p * y
        y = p % y
        y = p**y
        y = p // y
        y = pow(p, y)
        y = p / y
        return x + y


param_shape_module = ParamShapeModule()


@case("test_misc.py::test_param_shape_binops", lambda: [(torch.randn(3),)])
def _(x):
    return param_shape_module(x)


def raises_calls():
    torch.manual_seed(0)
    return [(torch.randn(10, 10), torch.randn(10, 10), torch.randn(10, 10), AssertionError)]


@case("test_misc.py::test_raises", raises_calls)
def _(a, b, c, cls):
    x = a + b - c * 10
    raise cls(str(x))


def closure_adder(val):
    def inner(x):
        return torch.sin(x + val)

    return inner


def closure_calls():
    torch.manual_seed(0)
    x = torch.randn(8)
    return [(x, closure_adder(5)), (x, closure_adder(5)), (x, closure_adder(torch.randn(8))), (x, closure_adder(torch.randn(8)))]


@case("test_misc.py::test_closure_recompiles~", closure_calls)
def _(x, other_fn):
    return other_fn(x + 1) - 1


def udf_mul(x, y):
    return x * y


def partials_calls():
    torch.manual_seed(0)
    lambda0 = functools.partial(udf_mul, y=torch.randn(2, 2))
    lambda1 = functools.partial(udf_mul, y=torch.randn(2, 2))
    x = torch.randn(2, 2)
    lambda2 = functools.partial(udf_mul, y=torch.randn(3, 3))
    x3 = torch.randn(3, 3)
    multiply = lambda x, y: x * y  # noqa: E731
    lambda3 = functools.partial(multiply, y=torch.randn(3, 3))
    return [(lambda0, lambda1, x), (lambda1, lambda0, x), (lambda2, lambda2, x3), (lambda3, lambda3, x3)]


@case("test_functions.py::test_partials_recompilation", partials_calls)
def _(f0, f1, x):
    return f0(x) * f1(x)


def rand2_calls():
    torch.manual_seed(0)
    i = torch.rand([2])
    return [(i,), (i,), (i,)]


@case("test_functions.py::test_no_recompile_inner_function", rand2_calls)
def _(inp):
    def g(y):
        return inp + y

    print("graph break")
    return g(torch.rand([1]))


def randn1_pair():
    torch.manual_seed(0)
    return [(torch.randn(1), torch.randn(1))]


@case("test_functions.py::test_non_inlined_closure", randn1_pair)
def _(x, y):
    one = lambda x, y: x + y  # noqa: E731

    def inner():
        torch._dynamo.graph_break()
        return one(x, y)

    res = inner()
    one = lambda x, y: x - y  # noqa: E731
    res += inner()
    return res



# ----------------------------------------------------------------------------- state across breaks
# written for this corpus: mutations of inputs, views, dicts, module buffers and closure cells on
# both sides of a graph break, which the compiled code must leave exactly as eager does


def list_and_x():
    torch.manual_seed(0)
    return [([torch.randn(4)], torch.randn(4)), ([torch.randn(4)], torch.randn(4))]


@case("test_misc.py::-", list_and_x, name="misc.input_list_mutated_across_break")
def _(xs, x):
    xs.append(x + 1)
    print("break")
    xs.append(x * 2)
    return xs[0] + xs[-1]


def one_3x3():
    torch.manual_seed(0)
    return [(torch.randn(3, 3),), (torch.randn(3, 3),)]


@case("test_misc.py::-", one_3x3, name="misc.inplace_view_across_break")
def _(x):
    v = x[0]
    v.add_(1)
    print("break")
    return x * 2


def dict_and_x():
    torch.manual_seed(0)
    return [({"z": torch.randn(4)}, torch.randn(4)), ({"z": torch.randn(4)}, torch.randn(4))]


@case("test_misc.py::-", dict_and_x, name="misc.dict_mutated_across_break")
def _(d, x):
    d["a"] = x + 1
    print("break")
    d["b"] = d["a"] * 2
    return d["b"].sum() + d["z"]


@case("test_misc.py::-", std(1), name="misc.nonlocal_counter_across_break")
def _(x):
    count = 0

    def bump(t):
        nonlocal count
        count += 1
        return t * count

    y = bump(x)
    print("break")
    y = y + bump(x)
    return y


@case("test_misc.py::-", std(1), name="misc.break_in_loop_accumulates")
def _(x):
    out = []
    for i in range(3):
        out.append(x * i)
        print(i)
    return torch.stack(out)


@case("test_misc.py::-", std(1), name="misc.try_finally_across_break")
def _(x):
    log = []
    try:
        y = x + 1
        print("break")
        y = y * 2
    finally:
        log.append("done")
    return y, len(log)


def pos_neg_3x3():
    return [(torch.ones(3, 3),), (-torch.ones(3, 3),)]


@case("test_repros.py::-", pos_neg_3x3, name="repros.inplace_input_then_branch")
def _(x):
    x.mul_(2)
    if x.sum() > 0:
        return x + 1
    return x - 1


def base_and_view():
    torch.manual_seed(0)
    a = torch.randn(3, 3)
    b = torch.randn(3, 3)
    return [(a, a[0]), (b, b[1])]


@case("test_repros.py::-", base_and_view, name="repros.inplace_on_aliased_input")
def _(a, b):
    a.add_(1)
    return b * 2


class BufferAcrossBreak(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(10))

    def forward(self, x):
        self.total.add_(x.sum(0))
        print("break")
        return x * self.total


CASES.append(("modules.buffer_update_across_break", "test_modules.py::-", BufferAcrossBreak(), std(1)))


# ----------------------------------------------------------------------------- more ports
# PyTorchMorePrograms.java: more test_functions.py, test_exceptions.py, test_ctx_manager.py and
# test_unspec.py programs


class MyCls:
    a = 1


@case("test_functions.py::test_obj_eq", std(2))
def _(a, b):
    v = a + b
    if MyCls() == None:  # noqa: E711
        return -1
    if MyCls() != None:  # noqa: E711
        v = v.sin()
    if MyCls() == MyCls():
        return -2
    if MyCls() != MyCls():
        return v + 1
    return -3


@case("test_functions.py::test_obj_is", std(2))
def _(a, b):
    v = a + b
    if MyCls() is None:  # noqa: E711
        return -1
    if MyCls() is not None:  # noqa: E711
        v = v.sin()
    if MyCls() is MyCls():
        return -2
    if MyCls() is not MyCls():
        return v + 1
    return -3


@case("test_functions.py::test_viamethod", std(2))
def _(a, b):
    return a.sub(b)


@case("test_functions.py::test_indirect2", std(2))
def _(a, b):
    t = a.sub
    args = (b,)
    return t(*args)


@case("test_functions.py::test_methodcall3", std(2))
def _(a, b):
    return constant3(a, b=1.0) + b


@case("test_functions.py::test_tuple2", std(2))
def _(a, b):
    args = [a, b]
    return sub(*args)


@case("test_functions.py::test_listarg5", std(2))
def _(a, b):
    args = [(a, b)]
    kwargs = {"dim": 0}
    return torch.cat(*args, **kwargs)


@case("test_functions.py::test_slice3", std(1))
def _(a):
    return a[5:]


@case("test_functions.py::test_slice4", std(1))
def _(a):
    return a[2:5]


@case("test_functions.py::test_unpack3", std(1))
def _(a):
    packed = (a[:5], a[5:])
    a, b = packed
    return a - b


@case("test_functions.py::test_shape2", std(1))
def _(x):
    if x.size(1) == 10:
        return x + 1


@case("test_functions.py::test_dict_setdefault3", std(1))
def _(x):
    d = {"a": 1, "b": 2}
    d.setdefault("c")
    if d["c"] is None:
        return x + 1
    else:
        return x - 1


@case("test_functions.py::test_call_dict1", std(1))
def _(x):
    d1 = dict()  # noqa: C408
    d1["x"] = x + 1
    d2 = collections.OrderedDict()
    d2["x"] = x + 2
    return d1["x"] + d2["x"] + 1


@case("test_functions.py::test_call_dict2", std(1))
def _(x):
    d1 = dict()  # noqa: C408
    d1["x"] = x
    d2 = collections.OrderedDict(d1)
    if isinstance(d2, collections.OrderedDict):
        return x + 1
    else:
        return x - 1


@case("test_functions.py::test_call_dict3~", std(1))
def _(x):
    my_list = [("a", x), ("b", x + 1), ("c", x + 2)]
    d1 = dict(my_list)
    d1["a"] = x + 10
    d2 = collections.OrderedDict(my_list)
    d2["c"] = x + 20
    return d1["a"] + d2["c"] + 1


@case("test_functions.py::test_dict_keys~", std(1))
def _(x):
    d = {3: x}
    keys = d.keys()
    d[4] = x + 1
    d2 = {3: 2, 4: "aa"}
    return 3 in keys, 4 in keys, 5 in keys, d2.keys() == keys


@case("test_functions.py::test_symbool_to_int", std(1))
def _(x):
    if sum(s == -1 for s in x.size()) == 0:
        return x + 1
    else:
        return x - 1


@case("test_functions.py::test_sum", std(4))
def _(a, b, c, d):
    return sum([a, b, c, d])


@case("test_functions.py::test_reduce_with_initial", std(4))
def _(a, b, c, d):
    return functools.reduce(operator.add, [b, c, d], a)


@case("test_functions.py::test_set_difference", std(2))
def _(a, b):
    set1 = {"apple", "banana", "cherry"}
    set2 = {"google", "microsoft", "apple"}
    difference_set = set1.difference(set2)
    if "apple" in difference_set:
        x = a + b
    else:
        x = a - b
    if "banana" in difference_set:
        y = a + b
    else:
        y = a - b
    return x, y


@case("test_functions.py::test_unpack_ex2", std(1))
def _(x):
    output = (x, x + 1, x + 2, x + 3)
    *ab, c, d = output
    return c - d / ab[0]


@case("test_functions.py::test_unpack_ex3", std(1))
def _(x):
    output = (x, x + 1, x + 2, x + 3)
    a, *bc, d = output
    return a - d / bc[0]


@case("test_functions.py::test_const_tuple_add1", std(1))
def _(x):
    output = (x, x + 1, x + 2, x + 3)
    output = () + output + ()
    return output[2] + output[3]


@case("test_functions.py::test_not_list", std(1))
def _(a):
    return not [a + 1]


@case("test_functions.py::test_namedtuple_defaults~", std(2))
def _(a, b):
    mytuple = collections.namedtuple("mytuple", ["x", "y", "xy"], defaults=(None, 1, None))
    tmp = mytuple(a, xy=b)
    return mytuple(tmp.x, tmp[1], tmp.xy + b)


@case("test_functions.py::test_list_sorted2~", std(1))
def _(x):
    y = [
        ("john", "A", 8),
        ("jane", "B", 5),
        ("dave", "B", 10),
    ]
    return (
        x + 1,
        sorted(y),
        sorted(y, key=lambda student: student[2]),
        sorted(y, key=lambda student: student[2], reverse=True),
    )


@case("test_functions.py::test_list_slice_assignment~", std(1))
def _(x):
    m = [1, 2, 3, 4]
    m[1:] = [6] * (len(m) - 1)
    return x + 1


@case("test_functions.py::test_context_wrapping_nested_functions_no_closure", std(1))
def _(x):
    @torch.no_grad()
    def augment(x: torch.Tensor) -> torch.Tensor:
        return (x + 1) * 2

    return augment(x)


@case("test_functions.py::test_partials_udf_kwarg", std(1))
def _(x):
    par_mul = functools.partial(udf_mul, y=torch.ones(10, 10))
    return par_mul(x)


def rand10_and_12():
    torch.manual_seed(0)
    return [(torch.rand(10), 12)]


@case("test_functions.py::test_math_radians", rand10_and_12)
def _(x, a):
    import math

    return x + math.radians(a)


def rand_10x2_10x8x6():
    torch.manual_seed(0)
    return [(torch.rand(10, 2), torch.rand(10, 8, 6))]


@case("test_functions.py::test_tensor_size_indexed_by_symint", rand_10x2_10x8x6)
def _(x, y):
    index = x.shape[-1]
    return x + y.shape[index]


@case("test_functions.py::test_pow_int", lambda: [(torch.ones(2, 2), 2)], dynamic=True)
def _(a, b):
    return torch.pow(a, b)


# ----------------------------------------------------------------------------- test_exceptions.py


def randn4():
    torch.manual_seed(0)
    return [(torch.randn(4),)]


@case("test_exceptions.py::test_exception", randn4)
def _(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        raise NotImplementedError
    except Exception:
        x = torch.sigmoid(x)

    return x


@case("test_exceptions.py::test_exception2", randn4)
def _(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        raise NotImplementedError
    except (NotImplementedError, AttributeError):
        x = torch.sigmoid(x)

    return x


@case("test_exceptions.py::test_exception3", randn4)
def _(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        raise NotImplementedError("Not implemented")
    except AssertionError:
        x = torch.sigmoid(x)
    except NotImplementedError:
        x = torch.cos(x)
    finally:
        x = torch.cos(x)

    return x


@case("test_exceptions.py::test_exception4", randn4)
def _(x):
    for i in range(10):
        if i == 5:
            return x
        try:
            x = torch.sin(x)
            raise NotImplementedError
        except Exception:
            x = torch.sigmoid(x)

    return x


@case("test_exceptions.py::test_exception_with_another_exception", randn4)
def _(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        raise NotImplementedError("Not implemented")
    except NotImplementedError:
        x = torch.sigmoid(x)
        try:
            x = torch.cos(x)
            raise AssertionError
        except AssertionError:
            x = torch.cos(x)


def gn_cos(x):
    return torch.cos(x)


@case("test_exceptions.py::test_exception_else~", randn4)
def _(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        x = gn_cos(x)
    except Exception:
        x = torch.sigmoid(x)
    else:
        x = torch.cos(x)

    return x


@case("test_exceptions.py::test_exception_with_ctx_manager", randn4)
def _(x):
    x = torch.cos(x)
    try:
        with torch.no_grad():
            x = torch.sin(x)
            raise NotImplementedError("Not implemented")
    except NotImplementedError:
        x = torch.sigmoid(x)
    return x


def gn_raises():
    raise NotImplementedError("foo")


@case("test_exceptions.py::test_exception_raised_from_child", randn4)
def _(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        gn_raises()
        x = torch.sin(x)
    except Exception:
        x = torch.sigmoid(x)

    return x


def g_k(x, k=None):
    if k:
        raise TypeError("error")
    return x.sin()


def randn_2x3():
    torch.manual_seed(0)
    return [(torch.randn(2, 3),)]


@case("test_exceptions.py::test_dynamo_undo_kw_names", randn_2x3)
def _(x):
    d = {"a": x}
    try:
        g_k(x, k=True)
    except Exception:
        y = 0
        for _, b in d.items():  # noqa: PERF102
            y += b.sum()
    return y


class Exc(Exception):
    ...


def randn2():
    torch.manual_seed(0)
    return [(torch.randn(2),)]


@case("test_exceptions.py::test_raise_custom_exception", randn2)
def _(t):
    try:
        raise Exc
    except Exc:
        return t.sin()
    except Exception:
        return t.cos()


@case("test_exceptions.py::test_raise_custom_exception_with_args", randn2)
def _(t):
    try:
        raise Exc(1, 2.0)
    except Exc as e:
        return t.sin() + e.args[0] + e.args[1]
    except Exception:
        return t.cos()


def randn4_and_dict():
    torch.manual_seed(0)
    return [(torch.randn(4), {"a": 1})]


@case("test_exceptions.py::test_key_error~", randn4_and_dict)
def _(x, d):
    try:
        a = d["b"]
    except KeyError:
        a = 2
    return x * a


# ----------------------------------------------------------------------------- test_ctx_manager.py


@case("test_ctx_manager.py::test_no_grad", std(2), name="ctx_manager.no_grad_fn1")
def _(a, b):
    x = a + 1
    # redundant no_grad should get ignored
    with torch.no_grad():
        x = x + b
    x = x + 2
    return x


@case("test_ctx_manager.py::test_no_grad", std(2), name="ctx_manager.no_grad_fn3")
def _(a, b):
    x = a + 1
    with torch.enable_grad():
        x = x + b
    x = x + 2
    return x


@case("test_ctx_manager.py::test_no_grad", std(2), name="ctx_manager.no_grad_fn4")
def _(a, b):
    x = a + 1
    with torch.set_grad_enabled(True):
        if torch.is_grad_enabled():
            x = x + b
    x = x + 2
    return x


def ten_3x4_pairs():
    torch.manual_seed(0)
    a = torch.randn([3, 4])
    b = torch.randn([3, 4])
    return [(a, b)] * 10


@case("test_ctx_manager.py::test_grad_mode_guard", ten_3x4_pairs)
def _(a, b):
    prev_grad = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    a = a + 1
    a.tolist()  # graph break
    ret = a + b
    torch.set_grad_enabled(prev_grad)
    return ret


def ten_rand_3x4():
    torch.manual_seed(0)
    a = torch.rand([3, 4])
    return [(a,)] * 10


@case("test_ctx_manager.py::test_nested_grad_mode_graph_break~", ten_rand_3x4)
def _(x):
    before = torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        torch._dynamo.graph_break()
        with torch.set_grad_enabled(True):
            x = torch.mul(x, 5)
            torch._dynamo.graph_break()
            x = torch.sqrt(x)
            assert torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled() == before
    return x


# ----------------------------------------------------------------------------- test_unspec.py


@case("test_unspec.py::test_use_and_specialize",
      lambda: [(torch.tensor([5]), 2), (torch.tensor([6]), 2), (torch.tensor([5]), 3), (torch.tensor([4]), 3)], dynamic=True)
def _(x, y):
    x = x + y
    if y == 2:
        return x - 1
    else:
        return x + 1


@case("test_unspec.py::test_no_recompiles",
      lambda: [(torch.tensor([5]), 100), (torch.tensor([4]), 200), (torch.tensor([3]), 300), (torch.tensor([2]), 400)], dynamic=True)
def _(x, y):
    return x + y


@case("test_unspec.py::test_sym_int_conversion", randn_2x3, config={"assume_static_by_default": False})
def _(x):
    y = x.size(0)
    return x * int(y == 0)


# ----------------------------------------------------------------------------- measuring

class PrintingCounter(CompileCounter):
    """A CompileCounter that prints each graph it counts (--graphs)."""

    def __call__(self, gm, example_inputs):
        print(f"--- graph {self.frame_count} ---", file=sys.stderr)
        print(gm.code.strip(), file=sys.stderr)
        return super().__call__(gm, example_inputs)


def run(fn, calls, show_graphs=False, dynamic=None, config=None):
    torch._dynamo.reset()
    cnt = PrintingCounter() if show_graphs else CompileCounter()
    with torch._dynamo.config.patch(config or {}):
        opt = torch.compile(fn, backend=cnt, dynamic=dynamic)
        for args in calls:
            torch.manual_seed(99)
            try:
                fn(*[clone(a) for a in args])
            except Exception as e:  # the program raises: so must the compiled one
                torch.manual_seed(99)
                try:
                    opt(*args)
                except type(e):
                    continue
                raise AssertionError(f"{fn} raised {e!r} eagerly but not compiled")
            torch.manual_seed(99)
            opt(*args)
    return cnt.frame_count, cnt.op_count


def clone(a):
    if isinstance(a, torch.Tensor):
        return a.clone()
    if isinstance(a, list):
        return [clone(x) for x in a]
    if isinstance(a, tuple):
        return tuple(clone(x) for x in a)
    if isinstance(a, dict):
        return {k: clone(v) for k, v in a.items()}
    return a


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--graphs":
        # prints the graphs PyTorch compiles for the named cases; writes nothing
        for name, source, fn, calls in CASES:
            if name in sys.argv[2].split(","):
                print(f"=== {name} ({source})", file=sys.stderr)
                print("frames=%d ops=%d" % run(fn, calls(), show_graphs=True, **OPTIONS.get(name, {})), file=sys.stderr)
        return
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.join(root, "ember-core/src/test/resources/dev/ember/dynamo/corpus/pytorch-counts.tsv")
    rows = []
    names = set()
    for name, source, fn, calls in CASES:
        assert name not in names, name
        names.add(name)
        frames, ops = run(fn, calls(), **OPTIONS.get(name, {}))
        rows.append(f"{name}\t{frames}\t{ops}\t{torch.__version__}\t{source}")
        print(f"{name:55s} frames={frames} ops={ops}", file=sys.stderr)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("# name\tframe_count\top_count\ttorch\tsource (test/dynamo/<file>::<test>)\n")
        f.write("# written by ember-bench/peer/dynamo_corpus_counts.py; do not edit by hand\n")
        f.write("\n".join(rows) + "\n")
    print(f"{len(rows)} cases -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
