package dev.ember.ops;

import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * Asserts on tensor data, as graph nodes: each op reads a one-element tensor, as
 * {@link Tensor#asBoolean()} does, and throws when it is zero; it returns nothing. A graph keeps
 * them although nothing uses their value ({@code Node.isImpure()}: an op returning nothing is
 * only called for its effect). Dynamo writes {@code assert x[0] == 3, "msg"} as
 * {@code torch._assert}, which AOTAutograd turns into {@code aten._assert_async.msg}; Ember's
 * translator writes Java's {@code assert cond : msg} and {@code if (!cond) throw new X(msg)} the
 * same way, so the failure throws what the user's code throws, with the user's message.
 */
public final class AssertOps {
    private AssertOps() {}

    /** {@code assert t.asBoolean();}: an {@link AssertionError} with no message when {@code self} is zero. */
    public static final OpOverload ASSERT_ASYNC = OpOverload.define("_assert_async(Tensor self) -> ()")
            .meta(a -> checkOneElement(a, 0))
            .kernel((a, m) -> raiseUnless(a.tensor(0), AssertionError.class.getName(), null))
            .register();

    /** {@code assert t.asBoolean() : "msg";}: an {@link AssertionError} with that message when {@code self} is zero. */
    public static final OpOverload ASSERT_ASYNC_MSG = OpOverload.define("_assert_async.msg(Tensor self, str assert_msg) -> ()")
            .meta(a -> checkOneElement(a, 0))
            .kernel((a, m) -> raiseUnless(a.tensor(0), AssertionError.class.getName(), (String) a.get(1)))
            .register();

    /**
     * {@code if (!t.asBoolean()) throw new IllegalArgumentException("msg");}: the JDK exception class
     * named (made with its message constructor, or its no-argument one when {@code msg} is None)
     * when {@code self} is zero.
     */
    public static final OpOverload ASSERT_RAISE = OpOverload.define("ember::_assert_raise(Tensor self, str exception, str? msg=None) -> ()")
            .meta(a -> {
                checkOneElement(a, 0);
                exceptionClass((String) a.get(1));
                return null;
            })
            .kernel((a, m) -> raiseUnless(a.tensor(0), (String) a.get(1), (String) a.get(2)))
            .register();

    /** The op that throws {@code exception} with {@code message} (null: none) when its tensor is zero. */
    public static OpOverload forException(Class<? extends Throwable> exception, String message) {
        if (exception == AssertionError.class) return message == null ? ASSERT_ASYNC : ASSERT_ASYNC_MSG;
        return ASSERT_RAISE;
    }

    /** The arguments after the condition for {@link #forException}'s op. */
    public static Object[] argumentsAfterCondition(Class<? extends Throwable> exception, String message) {
        if (exception == AssertionError.class) return message == null ? new Object[0] : new Object[] {message};
        return new Object[] {exception.getName(), message};
    }

    /**
     * Whether the ops can raise {@code exception} from compiled code: a JDK class (compiled code has
     * no class loader of the user's to find others by name) with a public constructor taking a message.
     */
    public static boolean canRaise(Class<?> exception) {
        if (!Throwable.class.isAssignableFrom(exception) || exception.getClassLoader() != null) return false;
        return messageConstructor(exception) != null;
    }

    private static Object checkOneElement(Args a, int i) {
        Tensor t = a.tensor(i);
        if (t.numel() != 1) {
            throw new IllegalArgumentException(a.op().name() + ": Boolean value of Tensor with " + t.numel() + " elements is ambiguous (shape "
                    + Shapes.format(t.shape()) + ")");
        }
        return null;
    }

    private static Class<?> exceptionClass(String name) {
        try {
            Class<?> c = Class.forName(name, false, null);
            if (!canRaise(c)) throw new IllegalArgumentException("ember::_assert_raise: " + name + " is not a JDK exception with a message constructor");
            return c;
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("ember::_assert_raise: no JDK class " + name, e);
        }
    }

    private static Constructor<?> messageConstructor(Class<?> c) {
        for (Class<?> param : new Class<?>[] {String.class, Object.class}) {
            try {
                return c.getConstructor(param);
            } catch (NoSuchMethodException e) {
                // try the next form
            }
        }
        return null;
    }

    /** Reads {@code cond} as {@link Tensor#asBoolean()} does (so NaN is true), and throws when it is false. */
    private static Object raiseUnless(Tensor cond, String exception, String message) {
        if (cond.asBoolean()) return null;
        Throwable t;
        try {
            Class<?> c = exceptionClass(exception);
            t = (Throwable) (message == null ? c.getConstructor().newInstance() : messageConstructor(c).newInstance(message));
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot make the " + exception + " an assert in the graph raises", e);
        }
        throw sneaky(t);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T { throw (T) t; }
}
