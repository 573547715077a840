package dev.ember.kernels;

/** A fresh JVM's first look at the BLAS through the kernel tuning (as `ember tune` and doctor do), then at the BLAS itself: one line each. */
public final class BlasChoiceProbe {
    public static void main(String[] args) {
        System.out.println(dev.ember.Ember.kernelTuning().baseline());
        System.out.println(Blas.backendDescription());
    }
}
