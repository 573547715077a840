package dev.ember.tensor;

/** Where a tensor's storage lives. Only the CPU exists today; a CUDA device would add a variant. */
public enum Device {
    CPU("cpu");

    private final String name;

    Device(String name) { this.name = name; }

    public static Device parse(String name) {
        for (Device d : values()) if (d.name.equals(name)) return d;
        throw new IllegalArgumentException("unknown device '" + name + "'; Ember supports: cpu");
    }

    @Override
    public String toString() { return name; }
}
