package dev.ember.dynamo.corpus;

import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Programs for what capture models since the second capture round: identity keys, deques, StringBuffer, container subclasses, modules made in the function. */
final class CaptureGapsPrograms {
    private CaptureGapsPrograms() {}

    // ------------------------------------------------------------------ tensors as keys (PyTorch hashes a tensor by id)

    /** A LinkedHashMap keyed by tensors iterates in insertion order, whatever their identity hash codes: traced whole. */
    static Map<Tensor, Tensor> linkedMapOfTensorKeys(Tensor x, Tensor y) {
        Map<Tensor, Tensor> m = new LinkedHashMap<>();
        m.put(y, y.cos());
        m.put(x, x.sin());
        m.put(y, m.get(y).add(1));          // a present key keeps its place
        Tensor total = x.mul(0);
        for (Map.Entry<Tensor, Tensor> e : m.entrySet()) total = total.add(e.getKey().mul(e.getValue()));
        m.put(total, total.relu());
        if (m.containsKey(x.add(0))) throw new AssertionError("a new tensor is another key");
        return m;
    }

    /** A HashSet of tensors used for membership only: traced whole. */
    static Tensor hashSetOfTensors(Tensor x, Tensor y) {
        Set<Tensor> seen = new HashSet<>();
        seen.add(x);
        seen.add(y);
        boolean again = seen.add(x);
        Tensor r = x.add(y);
        if (seen.contains(x) && !again && seen.size() == 2) r = r.mul(2);
        seen.remove(y);
        return r.add(seen.size());
    }

    /** A HashMap keyed by tensors, iterated: its order is the identity hash codes', unknown while tracing, so the loop breaks the graph. */
    static Tensor hashMapOfTensorKeysIterated(Tensor x, Tensor y) {
        Map<Tensor, Integer> weights = new HashMap<>();
        weights.put(x.relu(), 1);
        weights.put(y.relu(), 2);
        Tensor total = x.mul(0);
        for (Map.Entry<Tensor, Integer> e : weights.entrySet()) total = total.add(e.getKey().mul(e.getValue()));
        return total;
    }

    /** Duplicates dropped by identity, first occurrences kept in order: {@code list(dict.fromkeys(xs))}. */
    static Tensor linkedSetDedups(List<Tensor> xs) {
        Set<Tensor> unique = new LinkedHashSet<>(xs);
        return Tensor.stack(new ArrayList<>(unique), 0).sum(0);
    }

    /** A HashSet of tensors returned: made again after the graph from the graph's outputs. */
    static Set<Tensor> returnsHashSetOfTensors(Tensor x) {
        Set<Tensor> s = new HashSet<>();
        s.add(x.sin());
        s.add(x.cos());
        return s;
    }

    /** A tensor key in a TreeMap: eager throws ClassCastException (a Tensor is not Comparable), and so does the compiled call. */
    static Tensor treeMapOfTensorKeys(Tensor x) {
        Map<Tensor, Integer> m = new TreeMap<>();
        m.put(x, 1);
        return x.add(m.size());
    }

    record Slot(int index) {}

    /** A record key: javac's equals and hashCode compare its components, whose keys the trace knows: traced, with eager's result. */
    static Tensor recordKeys(Tensor x) {
        Map<Slot, Tensor> m = new HashMap<>();
        m.put(new Slot(1), x.sin());
        m.put(new Slot(1), x.cos());
        return m.get(new Slot(1)).add(m.size());
    }

    /** A map keyed by tensors passed in: its keys are graph inputs (guarded to be the caller's objects), iterated in its order. */
    static Tensor inputMapOfTensorKeys(Map<Tensor, Double> weights, Tensor x) {
        Tensor total = x.mul(0);
        for (Map.Entry<Tensor, Double> e : weights.entrySet()) total = total.add(e.getKey().mul(e.getValue()));
        weights.put(total, 1.0);           // replayed on the caller's map, keyed by the tensor the call returns
        return total;
    }

    /** Membership of an argument in a set of tensors passed in: the same object is the same key. */
    static Tensor inputSetOfTensors(Set<Tensor> frozen, Tensor p, Tensor g) {
        return frozen.contains(p) ? p : p.sub(g.mul(0.1));
    }

    /** contains and indexOf with a record: equal by its own equals, which eager calls (the trace compared identity: false, a wrong answer). */
    static Tensor containsRecord(Tensor x) {
        List<Slot> slots = List.of(new Slot(1), new Slot(2));
        return slots.contains(new Slot(2)) ? x.add(slots.indexOf(new Slot(2))) : x;
    }

    // ------------------------------------------------------------------ ArrayDeque (test_functions.py::test_deque)

    /** test_functions.py::test_deque, with Java's Deque methods for deque's. */
    static List<Object> deque(Tensor a, Tensor b) {
        ArrayDeque<Object> d = new ArrayDeque<>(List.of(a, b));
        d.addLast(a.add(1));
        d.addAll(List.of(a, b));
        d.addFirst("foo");
        Object tmp = d.pollLast();
        ArrayDeque<Object> another = new ArrayDeque<>(List.of(tmp));
        for (Object o : another) d.addFirst(o);        // extendleft
        another.clear();
        d.addAll(another);
        d = new ArrayDeque<>(d);                        // d.copy()
        d.addLast(d.pollFirst());
        d.addAll(new ArrayDeque<>());
        return new ArrayList<>(d);
    }

    /** A deque as a stack and as a queue, peeks, polls of an empty deque, size and emptiness. */
    static Tensor dequeStackAndQueue(Tensor x) {
        Deque<Tensor> stack = new ArrayDeque<>();
        stack.push(x);
        stack.push(x.mul(2));
        stack.offerFirst(x.mul(3));
        Tensor top = stack.pop();
        Tensor next = stack.peek();
        Deque<Tensor> queue = new ArrayDeque<>(4);
        queue.offer(top);
        queue.offerLast(next);
        queue.add(stack.peekLast());
        Tensor r = queue.poll().add(queue.remove()).add(queue.element());
        queue.removeFirst();
        if (queue.pollFirst() != null || queue.peekFirst() != null || !queue.isEmpty()) throw new AssertionError();
        return r.mul(stack.size());
    }

    /** A deque passed in and changed: the caller's deque gets the changes. */
    static Tensor dequeArgument(ArrayDeque<Tensor> d, Tensor x) {
        Tensor first = d.pollFirst();
        d.addLast(first.add(x));
        d.addFirst(x);
        Tensor sum = x.mul(0);
        for (Tensor t : d) sum = sum.add(t);
        return sum;
    }

    /** A fixed-size window: LinkedList as a Deque, removeFirst when full. */
    static Tensor slidingWindow(Tensor x) {
        LinkedList<Tensor> window = new LinkedList<>();
        Tensor acc = x;
        for (int i = 0; i < 5; i++) {
            acc = acc.mul(0.5).add(i);
            window.addLast(acc);
            if (window.size() > 3) window.removeFirst();
        }
        return Tensor.stack(window, 0).mean(0);
    }

    /** removeFirst of an empty deque throws NoSuchElementException; caught in the function. */
    static Tensor emptyDequeThrows(Tensor x) {
        Deque<Tensor> d = new ArrayDeque<>();
        try {
            d.removeFirst();
            return x;
        } catch (java.util.NoSuchElementException e) {
            return x.neg();
        }
    }

    /** A null into an ArrayDeque: NullPointerException as eager. */
    static Tensor nullIntoDeque(Tensor x) {
        Deque<Tensor> d = new ArrayDeque<>();
        d.addLast(x.sin());
        d.offerLast(null);
        return d.peekFirst();
    }

    /** A deque made in the function and returned: an ArrayDeque again. */
    static ArrayDeque<Tensor> returnsDeque(Tensor x) {
        ArrayDeque<Tensor> d = new ArrayDeque<>();
        d.add(x.sin());
        d.push(x.cos());
        return d;
    }

    /** instanceof on a deque and on a LinkedList made in the function answers for their own classes. */
    static Tensor dequeInstanceOf(Tensor x) {
        Collection<Tensor> d = new ArrayDeque<>();
        Collection<Tensor> l = new LinkedList<>();
        int tags = (d instanceof List<?> ? 1 : 0) + (d instanceof Deque<?> ? 2 : 0) + (l instanceof LinkedList<?> ? 4 : 0) + (l instanceof Deque<?> ? 8 : 0);
        return x.add(tags);
    }

    // ------------------------------------------------------------------ StringBuffer

    /** A StringBuffer made in the function builds a message: one graph, as a StringBuilder. */
    static Tensor stringBuffer(Tensor x) {
        StringBuffer sb = new StringBuffer("shape");
        for (int d : x.shape()) sb.append(' ').append(d);
        sb.insert(0, '[').append(']');
        if (!sb.toString().equals("[shape 3 4]")) throw new AssertionError(sb.toString());
        return x.mul(sb.length());
    }

    /** A StringBuffer passed in gets what the trace appended. */
    static Tensor appendsToStringBuffer(StringBuffer log, Tensor x) {
        Tensor y = x.relu();
        log.append("relu of ").append(y.dim()).append("-d;");
        return y;
    }

    /** A StringBuffer made in the function and returned: a StringBuffer again. */
    static StringBuffer returnsStringBuffer(Tensor x) {
        StringBuffer sb = new StringBuffer();
        sb.append(x.size(0)).append("x").append(x.size(1));
        return sb;
    }

    // ------------------------------------------------------------------ subclasses of maps; copy constructors

    /** A LinkedHashMap with a helper method of its own: the container, traced with its methods. */
    static final class Registry extends LinkedHashMap<String, Tensor> {
        Registry() { super(); }

        Registry with(String name, Tensor t) {
            put(name, t);
            return this;
        }

        Tensor total() {
            Tensor sum = null;
            for (Tensor t : values()) sum = sum == null ? t : sum.add(t);
            return sum;
        }
    }

    static Tensor registry(Tensor x) {
        Registry r = new Registry().with("a", x.sin()).with("b", x.cos());
        r.put("a", r.get("a").mul(2));
        return r.total().add(r.size());
    }

    /** The subclass escapes the function: made again as a Registry. */
    static Map<String, Tensor> returnsRegistry(Tensor x) {
        return new Registry().with("x", x.exp());
    }

    /** A HashSet of names subclassed with a method; copied from a list. */
    static final class Names extends HashSet<String> {
        Names(Collection<String> names) { super(names); }

        boolean hasAll(String... names) {
            for (String n : names) if (!contains(n)) return false;
            return true;
        }
    }

    static Tensor namesSet(Tensor x) {
        Names n = new Names(List.of("a", "b", "a"));
        return n.hasAll("a", "b") ? x.add(n.size()) : x;
    }

    /** A subclass overriding a method its JDK class's own methods may call: not modelled, so it breaks, with eager's result. */
    static final class Lru extends LinkedHashMap<String, Tensor> {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Tensor> eldest) { return size() > 2; }
    }

    static Tensor lru(Tensor x) {
        Lru cache = new Lru();
        cache.put("a", x.sin());
        cache.put("b", x.cos());
        cache.put("c", x.exp());
        return cache.containsKey("a") ? x : x.add(cache.size());
    }

    /** Copy constructors from traced containers: a list from a map's values, a map from a map, a set from a list, a deque from a set. */
    static Tensor copyConstructors(Tensor x) {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("one", x.add(1));
        m.put("two", x.add(2));
        List<Tensor> values = new ArrayList<>(m.values());
        Map<String, Tensor> copy = new HashMap<>(m);
        copy.put("three", x.add(3));
        Set<String> keys = new LinkedHashSet<>(new ArrayList<>(copy.keySet()));
        ArrayDeque<String> names = new ArrayDeque<>(new java.util.TreeSet<>(keys));
        return Tensor.stack(values, 0).sum(0).mul(copy.size()).add(keys.size()).add(names.peekLast().length());
    }

    /** A collection of the user's, copied into an ArrayList and a HashSet: its iterator is traced. */
    static final class Range extends java.util.AbstractCollection<Integer> {
        final int n;

        Range(int n) { this.n = n; }

        @Override
        public Iterator<Integer> iterator() {
            return new Iterator<>() {
                int i;

                @Override
                public boolean hasNext() { return i < n; }

                @Override
                public Integer next() { return i++; }
            };
        }

        @Override
        public int size() { return n; }
    }

    static Tensor copiesUserCollection(Range r, Tensor x) {
        List<Integer> list = new ArrayList<>(r);
        Set<Integer> set = new HashSet<>(r);
        int sum = 0;
        for (int i : list) sum += i;
        return x.add(sum).mul(set.size());
    }

    /** A List of the user's passed in: its own get (and ArrayList's iterator, which does not call get) are what eager calls. */
    static final class Doubling extends ArrayList<Tensor> {
        Doubling(List<Tensor> xs) { super(xs); }

        @Override
        public Tensor get(int i) { return super.get(i).mul(2); }
    }

    static Tensor userListSubclass(List<Tensor> xs) {
        Tensor sum = xs.get(0);
        for (Tensor t : xs) sum = sum.add(t);
        return sum;
    }

    // ------------------------------------------------------------------ a module made in the function

    static final class Affine extends Module {
        private final double scale;
        private final Tensor shift;

        Affine(double scale, Tensor shift) {
            this.scale = scale;
            this.shift = shift;
        }

        @Override
        public Tensor forward(Tensor input) { return input.mul(scale).add(shift); }
    }

    static Tensor moduleMadeInFunction(Tensor x) {
        Affine f = new Affine(2.0, x.mean());
        return f.forward(x).relu().add(f.call(x));
    }

    /** A module made in the function lives across a graph break. */
    static Tensor moduleAcrossBreak(Tensor x) {
        Affine f = new Affine(0.5, x.sum());
        dev.ember.Ember.graphBreak();
        return f.forward(x.cos());
    }

    /** One of Ember's layers made in the function: its parameters are new tensors (GB0013 in its constructor), so the function runs eagerly. */
    static Tensor linearMadeInFunction(Tensor x) {
        dev.ember.nn.Linear l = new dev.ember.nn.Linear(4, 2);
        return l.forward(x).relu();
    }
}
