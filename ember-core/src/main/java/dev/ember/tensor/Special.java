package dev.ember.tensor;

import dev.ember.ops.SpecialFunctionOps;

/**
 * torch.special's names for the functions of {@link SpecialFunctionOps} that Tensor has no method
 * for (snake_case to camelCase): elementwise, integers computed in the default float.
 */
public final class Special {
    private Special() {}

    /** torch.special.ndtri: the x with Φ(x) = p for the standard normal Φ. */
    public static Tensor ndtri(Tensor p) { return SpecialFunctionOps.SPECIAL_NDTRI.callTensor(p); }

    /** torch.special.zeta: the Hurwitz zeta ζ(x, q) = Σ_k (k + q)^(−x), broadcast. */
    public static Tensor zeta(Tensor x, Tensor q) { return SpecialFunctionOps.SPECIAL_ZETA.callTensor(x, q); }

    /** torch.special.gammainc (torch.igamma): the regularized lower incomplete gamma P(a, x). */
    public static Tensor gammainc(Tensor a, Tensor x) { return SpecialFunctionOps.IGAMMA.callTensor(a, x); }

    /** torch.special.gammaincc (torch.igammac): the regularized upper incomplete gamma Q(a, x) = 1 − P(a, x). */
    public static Tensor gammaincc(Tensor a, Tensor x) { return SpecialFunctionOps.IGAMMAC.callTensor(a, x); }

    /** torch.special.multigammaln (torch.mvlgamma): the multivariate log-gamma of dimension p. */
    public static Tensor multigammaln(Tensor x, int p) { return SpecialFunctionOps.MVLGAMMA.callTensor(x, (long) p); }

    /** torch.special.bessel_j0: J₀. */
    public static Tensor besselJ0(Tensor x) { return SpecialFunctionOps.SPECIAL_BESSEL_J0.callTensor(x); }

    /** torch.special.bessel_j1: J₁. */
    public static Tensor besselJ1(Tensor x) { return SpecialFunctionOps.SPECIAL_BESSEL_J1.callTensor(x); }

    /** torch.special.bessel_y0: Y₀ (−inf at 0, NaN below). */
    public static Tensor besselY0(Tensor x) { return SpecialFunctionOps.SPECIAL_BESSEL_Y0.callTensor(x); }

    /** torch.special.bessel_y1: Y₁ (−inf at 0, NaN below). */
    public static Tensor besselY1(Tensor x) { return SpecialFunctionOps.SPECIAL_BESSEL_Y1.callTensor(x); }

    /** torch.special.modified_bessel_i0: I₀. */
    public static Tensor modifiedBesselI0(Tensor x) { return SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_I0.callTensor(x); }

    /** torch.special.modified_bessel_i1: I₁. */
    public static Tensor modifiedBesselI1(Tensor x) { return SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_I1.callTensor(x); }

    /** torch.special.modified_bessel_k0: K₀ (+inf at 0, NaN below). */
    public static Tensor modifiedBesselK0(Tensor x) { return SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_K0.callTensor(x); }

    /** torch.special.modified_bessel_k1: K₁ (+inf at 0, NaN below). */
    public static Tensor modifiedBesselK1(Tensor x) { return SpecialFunctionOps.SPECIAL_MODIFIED_BESSEL_K1.callTensor(x); }

    /** torch.special.scaled_modified_bessel_k0: e^x·K₀(x). */
    public static Tensor scaledModifiedBesselK0(Tensor x) { return SpecialFunctionOps.SPECIAL_SCALED_MODIFIED_BESSEL_K0.callTensor(x); }

    /** torch.special.scaled_modified_bessel_k1: e^x·K₁(x). */
    public static Tensor scaledModifiedBesselK1(Tensor x) { return SpecialFunctionOps.SPECIAL_SCALED_MODIFIED_BESSEL_K1.callTensor(x); }
}
