package dev.ember.fx;

import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class LintTest {

    private static String lintProblem(Graph g) {
        var e = assertThrows(IllegalStateException.class, g::lint);
        String msg = e.getMessage();
        assertTrue(msg.startsWith("Graph lint failed: "), msg);
        assertTrue(msg.contains("\ngraph():\n"), "the message prints the graph: " + msg);
        return msg.substring("Graph lint failed: ".length(), msg.indexOf("\ngraph():"));
    }

    /** x → clone → t → output */
    private static Graph chain() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node c = g.callFunction(op("aten.clone.default"), x);
        Node t = g.callFunction(op("aten.t.default"), c);
        g.output(t);
        return g;
    }

    private static Node node(Graph g, String name) {
        return g.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aWellFormedGraphPasses() {
        chain().lint();
    }

    @Test
    void useBeforeDefinition() {
        Graph g = chain();
        node(g, "clone").setArgs(List.of(node(g, "t")));
        assertEquals("argument 't' of node 'clone' is used before it is defined; nodes must be in topological order", lintProblem(g));
    }

    @Test
    void argumentFromAnotherGraph() {
        Graph g = chain();
        Graph other = chain();
        node(g, "t").setArgs(List.of(node(other, "clone")));
        assertEquals("argument 'clone' of node 't' belongs to another graph; map arguments when copying nodes between graphs (Graph.nodeCopy)", lintProblem(g));
    }

    @Test
    void argumentThatWasErased() {
        Graph g = chain();
        Node x = node(g, "x");
        Node extra = g.callFunction(op("aten.unsqueeze.default"), x, 0L);
        g.eraseNode(extra);
        node(g, "t").setArgs(List.of(extra));
        assertEquals("argument 'unsqueeze' of node 't' was erased from the graph", lintProblem(g));
    }

    @Test
    void usersThatDisagreeWithArguments() {
        Graph g = chain();
        node(g, "x").users.add(node(g, "t"));            // corrupt the bookkeeping directly
        assertEquals("node 'x' lists 't' as a user, but 't' does not use it", lintProblem(g));

        Graph h = chain();
        node(h, "clone").users.clear();
        assertEquals("node 'clone' is an argument of 't' but does not list it among its users []", lintProblem(h));
    }

    @Test
    void duplicateNames() {
        Graph g = chain();
        node(g, "t").name = "clone";
        assertEquals("two nodes are named 'clone'", lintProblem(g));
    }

    @Test
    void missingOrRepeatedOrMisplacedOutput() {
        Graph none = new Graph();
        none.placeholder("x", f32(1));
        assertEquals("graph has no output node", lintProblem(none));

        Graph two = chain();
        two.output(node(two, "x"));
        assertEquals("graph has 2 output nodes [output, output_1]; it must have exactly one", lintProblem(two));

        Graph after = chain();
        after.callFunction(op("aten.clone.default"), node(after, "x"));
        assertEquals("the output node 'output' must be the last node, but 'clone_1' follows it", lintProblem(after));
    }

    @Test
    void graphModuleLintChecksCallModuleTargets() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(1));
        g.output(g.callModule("encoder.layer", List.of(x), java.util.Map.of()));
        var e = assertThrows(IllegalStateException.class, () -> new GraphModule(g).lint());
        assertEquals("GraphModule lint failed: node 'encoder_layer' calls submodule 'encoder.layer', which the module does not have; it has []", e.getMessage());
    }
}
