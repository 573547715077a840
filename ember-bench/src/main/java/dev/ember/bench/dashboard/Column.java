package dev.ember.bench.dashboard;

/** The dashboard table's figure columns, in the order shown; each is one configuration running a workload. */
public enum Column {
    EMBER_EAGER("Ember eager"),
    EMBER_COMPILED("Ember compiled"),
    /** The same configuration as its row's Ember one (eager or compiled), each call inside a TensorScope that recycles its outputs. */
    EMBER_SCOPED("in a TensorScope"),
    EMBER_REDUCE_OVERHEAD("reduce-overhead"),
    LIBTORCH("libtorch (DJL)"),
    TORCH_EAGER("torch eager"),
    TORCH_COMPILE("torch.compile");

    /** The column's heading. */
    public final String heading;

    Column(String heading) {
        this.heading = heading;
    }
}
