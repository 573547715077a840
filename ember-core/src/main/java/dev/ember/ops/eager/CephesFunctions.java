package dev.ember.ops.eager;

/**
 * torch.special's functions of Cephes descent, in float64, as ATen's Math.h computes them
 * (derived from the Cephes Math Library, Copyright (c) 2018 Steven Moshier, 3-clause BSD; the
 * incomplete gamma functions from SciPy's, which follow Cephes and Boost): the Hurwitz zeta, the
 * inverse of the normal distribution function, the regularized incomplete gamma functions, and
 * the Bessel functions J₀, J₁, Y₀, Y₁, I₀, I₁, K₀, K₁. Each keeps ATen's branches and special
 * values (the results at 0, the poles, ±inf and NaN), so Ember's values are ATen's to rounding.
 */
public final class CephesFunctions {
    private CephesFunctions() {}

    private static final double MACHEP = 1.11022302462515654042E-16;

    /** Σ_k c[k] x^(len−1−k): Horner's scheme over coefficients stored highest power first. */
    private static double polevl(double x, double[] c) {
        double r = 0;
        for (double v : c) r = r * x + v;
        return r;
    }

    /** Cephes's chbevl: the Chebyshev series Σ' c[i] T_i(x/2), coefficients stored highest order first. */
    private static double chbevl(double x, double[] c) {
        double b0 = c[0], b1 = 0, b2 = 0;
        for (int i = 1; i < c.length; i++) {
            b2 = b1;
            b1 = b0;
            b0 = x * b1 - b2 + c[i];
        }
        return 0.5 * (b0 - b2);
    }

    // ------------------------------------------------------------------ Hurwitz zeta

    private static final double[] ZETA_A = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
        -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18};

    /** C's pow: 1 for a base of 1 (or −1 to an infinite power), where Java's Math.pow gives NaN. */
    private static double pow(double base, double exponent) {
        if (base == 1 || base == -1 && Double.isInfinite(exponent)) return 1;
        return Math.pow(base, exponent);
    }

    /** ζ(x, q) = Σ_k (k + q)^(−x): Euler–Maclaurin summation; +inf at x = 1, NaN for x < 1, +inf at the poles q ≤ 0 integral. */
    public static double zeta(double x, double q) {
        if (x == 1) return Double.POSITIVE_INFINITY;
        if (x < 1) return Double.NaN;
        if (q <= 0) {
            if (q == Math.floor(q)) return Double.POSITIVE_INFINITY;
            if (x != Math.floor(x)) return Double.NaN;
        }
        double s = pow(q, -x), a = q, b = 0;
        int i = 0;
        while (i < 9 || a <= 9.0) {
            i += 1;
            a += 1;
            b = pow(a, -x);
            s += b;
            if (-MACHEP * s < b && b < MACHEP * s) return s;
        }
        double w = a;
        s += b * w / (x - 1);
        s -= 0.5 * b;
        a = 1;
        double k = 0;
        for (i = 0; i < 12; i++) {
            a *= x + k;
            b /= w;
            double t = a * b / ZETA_A[i];
            s = s + t;
            t = Math.abs(t / s);
            if (t < MACHEP) return s;
            k += 1;
            a *= x + k;
            b /= w;
            k += 1;
        }
        return s;
    }

    // ------------------------------------------------------------------ ndtri

    private static final double[] NDTRI_P0 = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1, 1.39312609387279679503E1,
        -1.23916583867381258016E0};
    private static final double[] NDTRI_Q0 = {1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
        -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0};
    private static final double[] NDTRI_P1 = {4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1, 4.40805073893200834700E1,
        1.46849561928858024014E1, 2.18663306850790267539E0, -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
    private static final double[] NDTRI_Q1 = {1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
        1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4};
    private static final double[] NDTRI_P2 = {3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0, 1.33303460815807542389E0,
        2.01485389549179081538E-1, 1.23716634817820021358E-2, 3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
    private static final double[] NDTRI_Q2 = {1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
        2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9};

    /** The x with Φ(x) = y for the standard normal Φ: −inf at 0, +inf at 1, NaN outside [0, 1]. */
    public static double ndtri(double y0) {
        if (y0 == 0) return Double.NEGATIVE_INFINITY;
        if (y0 == 1) return Double.POSITIVE_INFINITY;
        if (y0 < 0 || y0 > 1) return Double.NaN;
        if (Double.isNaN(y0)) return y0;
        boolean code = true;
        double y = y0;
        final double expMinus2 = 0.13533528323661269189;
        if (y > 1 - expMinus2) {
            y = 1 - y;
            code = false;
        }
        if (y > expMinus2) {
            y = y - 0.5;
            double y2 = y * y;
            double x = y + y * (y2 * polevl(y2, NDTRI_P0) / polevl(y2, NDTRI_Q0));
            return x * 2.50662827463100050242E0;
        }
        double x = Math.sqrt(-2.0 * Math.log(y));
        double x0 = x - Math.log(x) / x;
        double z = 1 / x;
        double x1 = x < 8.0 ? z * polevl(z, NDTRI_P1) / polevl(z, NDTRI_Q1) : z * polevl(z, NDTRI_P2) / polevl(z, NDTRI_Q2);
        x = x0 - x1;
        return code ? -x : x;
    }

    // ------------------------------------------------------------------ regularized incomplete gamma

    private static final double[] LANCZOS_NUM = {0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
        19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623, 6955.999602515376140356310115515198987526,
        75999.29304014542649875303443598909137092, 601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
        14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085, 86363131.28813859145546927288977868422342,
        103794043.1163445451906271053616070238554, 56906521.91347156388090791033559122686859};
    private static final double[] LANCZOS_DENOM = {1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730., 105258076., 150917976.,
        120543840., 39916800., 0.};

    /** SciPy's ratevl: the rational function num(x)/denom(x), evaluated in 1/x beyond |x| = 1. */
    private static double ratevl(double x, double[] num, double[] denom) {
        int m = num.length - 1, n = denom.length - 1;
        boolean inverted = Math.abs(x) > 1;
        double y = inverted ? 1 / x : x;
        double numAns = 0, denomAns = 0;
        for (int i = 0; i <= m; i++) numAns = numAns * y + num[inverted ? m - i : i];
        for (int i = 0; i <= n; i++) denomAns = denomAns * y + denom[inverted ? n - i : i];
        return inverted ? Math.pow(x, n - m) * numAns / denomAns : numAns / denomAns;
    }

    /** x^a e^(−x) / Γ(a), through Boost's Lanczos sum where a and x are close. */
    private static double igamFac(double a, double x) {
        final double maxLog = 7.09782712893383996843E2, lanczosG = 6.024680040776729583740234375;
        if (Math.abs(a - x) > 0.4 * Math.abs(a)) {
            double ax = a * Math.log(x) - x - Special.lgamma(a);
            return ax < -maxLog ? 0.0 : Math.exp(ax);
        }
        double fac = a + lanczosG - 0.5;
        double res = Math.sqrt(fac / Math.E) / ratevl(a, LANCZOS_NUM, LANCZOS_DENOM);
        if (a < 200 && x < 200) {
            res *= Math.exp(a - x) * Math.pow(x / fac, a);
        } else {
            double num = x - a - lanczosG + 0.5, numfac = num / fac;
            res *= Math.exp(a * (Math.log1p(numfac) - numfac) + x * (0.5 - lanczosG) / fac);
        }
        return res;
    }

    /** P(a, x) by its power series (DLMF 8.11.4). */
    private static double igamSeries(double a, double x) {
        double ax = igamFac(a, x);
        if (ax == 0.0) return 0.0;
        double r = a, c = 1.0, ans = 1.0;
        for (int i = 0; i < 2000; i++) {
            r += 1.0;
            c *= x / r;
            ans += c;
            if (c <= MACHEP * ans) break;
        }
        return ans * ax / a;
    }

    /** Q(a, x) for small x by DLMF 8.7.3, avoiding the cancellation of 1 − P. */
    private static double igamcSeries(double a, double x) {
        double fac = 1, sum = 0;
        for (int n = 1; n < 2000; n++) {
            fac *= -x / n;
            double term = fac / (a + n);
            sum += term;
            if (Math.abs(term) <= MACHEP * Math.abs(sum)) break;
        }
        double logx = Math.log(x);
        double term = -Math.expm1(a * logx - Special.lgamma(1 + a));
        return term - Math.exp(a * logx - Special.lgamma(a)) * sum;
    }

    /** Q(a, x) by its continued fraction (DLMF 8.9.2). */
    private static double igamcContinuedFraction(double a, double x) {
        final double big = 4.503599627370496e15, bigInv = 2.22044604925031308085e-16;
        double ax = igamFac(a, x);
        if (ax == 0.0) return 0.0;
        double y = 1.0 - a, z = x + y + 1.0, c = 0.0;
        double pkm2 = 1.0, qkm2 = x, pkm1 = x + 1.0, qkm1 = z * x;
        double ans = pkm1 / qkm1;
        for (int i = 0; i < 2000; i++) {
            c += 1.0;
            y += 1.0;
            z += 2.0;
            double yc = y * c;
            double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc, t;
            if (qk != 0) {
                double r = pk / qk;
                t = Math.abs((ans - r) / r);
                ans = r;
            } else {
                t = 1.0;
            }
            pkm2 = pkm1;
            pkm1 = pk;
            qkm2 = qkm1;
            qkm1 = qk;
            if (Math.abs(pk) > big) {
                pkm2 *= bigInv;
                pkm1 *= bigInv;
                qkm2 *= bigInv;
                qkm1 *= bigInv;
            }
            if (t <= MACHEP) break;
        }
        return ans * ax;
    }

    /**
     * The regularized upper incomplete gamma function Q(a, x) (torch.special.gammaincc), with
     * ATen's boundary values. Where ATen switches to the uniform asymptotic expansion (a > 20 and
     * x close to a) Ember keeps the series and continued fraction, which converge there too.
     */
    public static double igammac(double a, double x) {
        if (x < 0 || a < 0) return Double.NaN;
        if (a == 0) return x > 0 ? 0.0 : Double.NaN;
        if (x == 0) return 1.0;
        if (Double.isInfinite(a)) return Double.isInfinite(x) ? Double.NaN : 1.0;
        if (Double.isInfinite(x)) return 0.0;
        if (x > 1.1) return x < a ? 1.0 - igamSeries(a, x) : igamcContinuedFraction(a, x);
        if (x <= 0.5) return -0.4 / Math.log(x) < a ? 1.0 - igamSeries(a, x) : igamcSeries(a, x);
        return x * 1.1 < a ? 1.0 - igamSeries(a, x) : igamcSeries(a, x);
    }

    /** The regularized lower incomplete gamma function P(a, x) (torch.special.gammainc), with ATen's boundary values (checked in its order, so P(NaN, 0) = 0). */
    public static double igamma(double a, double x) {
        if (x < 0 || a < 0) return Double.NaN;
        if (a == 0) return x > 0 ? 1.0 : Double.NaN;
        if (x == 0) return 0.0;
        if (Double.isInfinite(a)) return Double.isInfinite(x) ? Double.NaN : 0.0;
        if (Double.isInfinite(x)) return 1.0;
        if (x > 1.0 && x > a) return 1.0 - igammac(a, x);
        return igamSeries(a, x);
    }

    // ------------------------------------------------------------------ Bessel functions of the first and second kind

    private static final double[] J0_PP = {7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00, 5.44725003058768775090e+00,
        8.74716500199817011941e+00, 5.30324038235394892183e+00, 9.99999999999999997821e-01};
    private static final double[] J0_PQ = {9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00, 5.47097740330417105182e+00,
        8.76190883237069594232e+00, 5.30605288235394617618e+00, 1.00000000000000000218e+00};
    private static final double[] J0_QP = {-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01, -9.32060152123768231369e+01,
        -1.77681167980488050595e+02, -1.47077505154951170175e+02, -5.14105326766599330220e+01, -6.05014350600728481186e+00};
    private static final double[] J0_QQ = {6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03, 7.24046774195652478189e+03,
        5.93072701187316984827e+03, 2.06209331660327847417e+03, 2.42005740240291393179e+02};
    private static final double[] J0_RP = {-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14, 9.70862251047306323952e+15};
    private static final double[] J0_RQ = {4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07, 1.11855537045356834862e+10,
        2.11277520115489217587e+12, 3.10518229857422583814e+14, 3.18121955943204943306e+16, 1.71086294081043136091e+18};
    private static final double[] Y0_YP = {1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09, -9.82136065717911466409e+11,
        8.75906394395366999549e+13, -3.46628303384729719441e+15, 4.42733268572569800351e+16, -1.84950800436986690637e+16};
    private static final double[] Y0_YQ = {1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08, 8.64002487103935000337e+10,
        2.02979612750105546709e+13, 3.17157752842975028269e+15, 2.50596256172653059228e+17};

    private static final double[] J1_PP = {7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00, 5.11207951146807644818e+00,
        8.42404590141772420927e+00, 5.21451598682361504063e+00, 1.00000000000000000254e+00};
    private static final double[] J1_PQ = {5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00, 5.07386386128601488557e+00,
        8.39985554327604159757e+00, 5.20982848682361821619e+00, 9.99999999999999997461e-01};
    private static final double[] J1_QP = {5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01, 3.66779609360150777800e+02,
        7.10856304998926107277e+02, 5.97489612400613639965e+02, 2.11688757100572135698e+02, 2.52070205858023719784e+01};
    private static final double[] J1_QQ = {7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03, 9.56231892404756170795e+03,
        7.99704160447350683650e+03, 2.82619278517639096600e+03, 3.36093607810698293419e+02};
    private static final double[] J1_RP = {-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13, 3.68295732863852883286e+15};
    private static final double[] J1_RQ = {6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07, 2.21511595479792499675e+10,
        4.74914122079991414898e+12, 7.84369607876235854894e+14, 8.95222336184627338078e+16, 5.32278620332680085395e+18};
    private static final double[] Y1_YP = {1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14, -8.12770255501325109621e+15,
        2.02439475713594898196e+17, -7.78877196265950026825e+17};
    private static final double[] Y1_YQ = {5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07, 1.87601316108706159478e+10,
        3.88231277496238566008e+12, 6.20557727146953693363e+14, 6.87141087355300489866e+16, 3.97270608116560655612e+18};

    private static final double PI_4 = 0.785398163397448309615660845819875721, THREE_PI_4 = 2.356194490192344928846982537459627163;
    private static final double SQRT_2_PI = 0.797884560802865355879892119868763737, TWO_OVER_PI = 0.636619772367581343075535053490057448;

    /** The Hankel asymptotic form beyond x = 5: {@code (P cos(x − φ) − (5/x) Q sin(x − φ)) √(2/(πx))}, sin and cos swapped for Y. */
    private static double hankel(double x, double phase, boolean second, double[] pp, double[] pq, double[] qp, double[] qq) {
        double z = 25.0 / (x * x);
        double p = polevl(z, pp) / polevl(z, pq), q = polevl(z, qp) / polevl(z, qq);
        double c = Math.cos(x - phase), s = Math.sin(x - phase);
        return (second ? p * s + 5.0 / x * q * c : p * c - 5.0 / x * q * s) * SQRT_2_PI / Math.sqrt(x);
    }

    /** J₀(x) (torch.special.bessel_j0). */
    public static double besselJ0(double x) {
        x = Math.abs(x);
        if (x <= 5.0) {
            if (x < 0.00001) return 1.0 - x * x / 4.0;
            double z = x * x;
            return (z - 5.78318596294678452118e+00) * (z - 3.04712623436620863991e+01) * polevl(z, J0_RP) / polevl(z, J0_RQ);
        }
        return hankel(x, PI_4, false, J0_PP, J0_PQ, J0_QP, J0_QQ);
    }

    /** J₁(x) (torch.special.bessel_j1), odd. */
    public static double besselJ1(double x) {
        if (x < 0) return -besselJ1(-x);
        if (x <= 5.0) {
            double z = x * x;
            return polevl(z, J1_RP) / polevl(z, J1_RQ) * x * (z - 1.46819706421238932572e+01) * (z - 4.92184563216946036703e+01);
        }
        return hankel(x, THREE_PI_4, false, J1_PP, J1_PQ, J1_QP, J1_QQ);
    }

    /** Y₀(x) (torch.special.bessel_y0): −inf at 0, NaN below. */
    public static double besselY0(double x) {
        if (x <= 5.0) {
            if (x == 0) return Double.NEGATIVE_INFINITY;
            if (x < 0) return Double.NaN;
            double z = x * x;
            return polevl(z, Y0_YP) / polevl(z, Y0_YQ) + TWO_OVER_PI * Math.log(x) * besselJ0(x);
        }
        return hankel(x, PI_4, true, J0_PP, J0_PQ, J0_QP, J0_QQ);
    }

    /** Y₁(x) (torch.special.bessel_y1): −inf at 0, NaN below. */
    public static double besselY1(double x) {
        if (x <= 5.0) {
            if (x == 0) return Double.NEGATIVE_INFINITY;
            if (x <= 0) return Double.NaN;
            double z = x * x;
            return x * (polevl(z, Y1_YP) / polevl(z, Y1_YQ)) + TWO_OVER_PI * (besselJ1(x) * Math.log(x) - 1.0 / x);
        }
        return hankel(x, THREE_PI_4, true, J1_PP, J1_PQ, J1_QP, J1_QQ);
    }

    /** The spherical Bessel function j₀(x) = sin(x)/x (ATen's own: its Taylor polynomial below |x| = 0.5, 0 at ±inf). */
    public static double sphericalBesselJ0(double x) {
        if (Double.isInfinite(x)) return 0;
        if (Math.abs(x) < 0.5) {
            double z = x * x;
            return 1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0 + z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0))))));
        }
        return Math.sin(x) / x;
    }

    private static final double[] AIRY_AN = {3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01, 1.68089224934630576269e+02,
        1.59756391350164413639e+02, 7.05360906840444183113e+01, 1.40264691163389668864e+01, 9.99999999999999995305e-01};
    private static final double[] AIRY_AD = {5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01, 1.77318088145400459522e+02,
        1.64234692871529701831e+02, 7.14778400825575695274e+01, 1.40959135607834029598e+01, 1.00000000000000000470e+00};
    private static final double[] AIRY_AFN = {-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01, -2.79779981545119124951e-01,
        -4.91900132609500318020e-02, -4.06265923594885404393e-03, -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08};
    private static final double[] AIRY_AFD = {1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01, 9.18707402907259625840e+00,
        1.47529146771666414581e+00, 1.15687173795188044134e-01, 4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07};
    private static final double[] AIRY_AGN = {1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00, 9.39169229816650230044e-01,
        3.51465656105547619242e-01, 6.33888919628925490927e-02, 5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
        8.11789239554389293311e-08, 3.41551784765923618484e-10};
    private static final double[] AIRY_AGD = {9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01, 5.47686069422975497931e+00,
        9.54293611618961883998e-01, 8.64580826352392193095e-02, 4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
        4.91834570062930015649e-09};

    /** The Airy function Ai(x) (torch.special.airy_ai): its asymptotic forms beyond ±2.09, the power series between; NaN at ±inf, 0 beyond 103.892. */
    public static double airyAi(double x) {
        if (Double.isInfinite(x)) return Double.NaN;
        if (x > 103.892) return 0.0;
        if (x < -2.09) {
            double z = 1.0 / (-2.0 * x * Math.sqrt(-x) / 3.0), zz = z * z;
            double afn = polevl(zz, AIRY_AFN), afd = polevl(zz, AIRY_AFD), agn = polevl(zz, AIRY_AGN), agd = polevl(zz, AIRY_AGD);
            double t = -2.0 * x * Math.sqrt(-x) / 3.0 + 0.25 * Math.PI;
            return 5.64189583547756286948e-01 / Math.sqrt(Math.sqrt(-x)) * (Math.sin(t) * (1.0 + zz * afn / afd) - Math.cos(t) * (z * agn / agd));
        }
        double ai = 0;
        boolean asymptotic = false;
        if (x >= 2.09) {
            asymptotic = true;
            double zeta = 2.0 * x * Math.sqrt(x) / 3.0;
            double an = polevl(1.0 / zeta, AIRY_AN), ad = polevl(1.0 / zeta, AIRY_AD);
            ai = 5.64189583547756286948e-01 * (an / ad) / (2.0 * Math.sqrt(Math.sqrt(x)) * Math.exp(zeta));
            if (x > 8.3203353) return ai;
        }
        double f = 1, g = x, k = 1, m = 1, n = x, t = 1, z = x * x * x;
        while (t > Math.ulp(1.0)) {
            m *= z;
            k += 1;
            m /= k;
            n *= z;
            k += 1;
            n /= k;
            m /= k;
            f += m;
            k += 1;
            n /= k;
            g += n;
            t = Math.abs(m / f);
        }
        return asymptotic ? ai : 0.355028053887817239260 * f - 0.258819403792806798405 * g;
    }

    // ------------------------------------------------------------------ modified Bessel functions

    private static final double[] I0_A = {-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16, 1.71539128555513303061e-15,
        -1.16853328779934516808e-14, 7.67618549860493561688e-14, -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
        9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09, -1.30002500998624804212e-08, 6.04699502254191894932e-08,
        -2.67079385394061173391e-07, 1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05, -5.75419501008210370398e-05,
        1.88502885095841655729e-04, -5.76375574538582365885e-04, 1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
        -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02, 1.71620901522208775349e-01, -3.04682672343198398683e-01,
        6.76795274409476084995e-01};
    private static final double[] I0_B = {-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17, 3.46122286769746109310e-17,
        -2.82762398051658348494e-16, -3.42548561967721913462e-16, 1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
        -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13, 7.18012445138366623367e-13, -1.79417853150680611778e-12,
        -1.32158118404477131188e-11, -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10, 3.39623202570838634515e-09,
        2.26666899049817806459e-08, 2.04891858946906374183e-07, 2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
        8.04490411014108831608e-01};
    private static final double[] I1_A = {2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16, -1.10559694773538630805e-15,
        7.60068429473540693410e-15, -5.04218550472791168711e-14, 3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
        -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09, 9.38153738649577178388e-09, -4.44505912879632808065e-08,
        2.00329475355213526229e-07, -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05, 4.78156510755005422638e-05,
        -1.61760815825896745588e-04, 5.12285956168575772895e-04, -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
        2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01, -1.76416518357834055153e-01, 2.52587186443633654823e-01};
    private static final double[] I1_B = {7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17, -3.20952592199342395980e-17,
        2.96262899764595013876e-16, 3.30820231092092828324e-16, -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
        4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13, -7.19855177624590851209e-13, 2.03562854414708950722e-12,
        1.41258074366137813316e-11, 3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10, -3.83538038596423702205e-09,
        -2.63146884688951950684e-08, -2.51223623787020892529e-07, -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
        7.78576235018280120474e-01};
    private static final double[] K0_A = {1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11, 1.90451637722020886025e-09,
        2.53479107902614945675e-07, 2.28621210311945178607e-05, 1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
        -5.35327393233902768720e-01};
    private static final double[] K0_B = {5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17, -1.67823109680541210385e-16,
        5.51205597852431940784e-16, -1.84859337734377901440e-15, 6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
        -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12, 1.85594911495471785253e-11, -7.95748924447710747776e-11,
        3.57739728140030116597e-10, -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08, 2.76681363944501510342e-07,
        -1.83175552271911948767e-06, 1.39498137188764993662e-05, -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
        2.44030308206595545468e+00};
    private static final double[] K1_A = {-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13, -1.41148839263352776110e-10,
        -2.21338763073472585583e-08, -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
        -3.53155960776544875667e-01, 1.52530022733894777053e+00};
    private static final double[] K1_B = {-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17, 1.83809354436663880070e-16,
        -6.05704724837331885336e-16, 2.03870316562433424052e-15, -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
        3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12, -2.12996783842756842877e-11, 9.21831518760500529508e-11,
        -4.19035475934189648750e-10, 2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08, -3.50196060308781257119e-07,
        2.40648494783721712015e-06, -1.93619797416608296024e-05, 1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
        2.72062619048444266945e+00};

    /** I₀(x) (torch.special.modified_bessel_i0): Chebyshev series on [0, 8] and beyond, as ATen's. */
    public static double modifiedBesselI0(double x) {
        double ax = Math.abs(x);
        if (ax <= 8.0) return Math.exp(ax) * chbevl(ax / 2.0 - 2.0, I0_A);
        return Math.exp(ax) * chbevl(32.0 / ax - 2.0, I0_B) / Math.sqrt(ax);
    }

    /** I₁(x) (torch.special.modified_bessel_i1), odd. */
    public static double modifiedBesselI1(double x) {
        double ax = Math.abs(x), out;
        if (ax <= 8.0) out = chbevl(ax / 2.0 - 2.0, I1_A) * ax * Math.exp(ax);
        else out = Math.exp(ax) * chbevl(32.0 / ax - 2.0, I1_B) / Math.sqrt(ax);
        return x < 0 ? -out : out;
    }

    /** K₀(x), or e^x·K₀(x) when {@code scaled} (torch.special.modified_bessel_k0, scaled_modified_bessel_k0): +inf at 0, NaN below. */
    public static double modifiedBesselK0(double x, boolean scaled) {
        if (x == 0) return Double.POSITIVE_INFINITY;
        if (x < 0) return Double.NaN;
        if (x <= 2.0) {
            double k = chbevl(x * x - 2.0, K0_A) - Math.log(0.5 * x) * modifiedBesselI0(x);
            return scaled ? k * Math.exp(x) : k;
        }
        double tail = chbevl(8.0 / x - 2.0, K0_B) / Math.sqrt(x);
        return scaled ? tail : Math.exp(-x) * tail;
    }

    /** K₁(x), or e^x·K₁(x) when {@code scaled} (torch.special.modified_bessel_k1, scaled_modified_bessel_k1): +inf at 0, NaN below. */
    public static double modifiedBesselK1(double x, boolean scaled) {
        if (x == 0) return Double.POSITIVE_INFINITY;
        if (x < 0) return Double.NaN;
        if (x <= 2.0) {
            double k = Math.log(0.5 * x) * modifiedBesselI1(x) + chbevl(x * x - 2.0, K1_A) / x;
            return scaled ? k * Math.exp(x) : k;
        }
        double tail = chbevl(8.0 / x - 2.0, K1_B) / Math.sqrt(x);
        return scaled ? tail : Math.exp(-x) * tail;
    }
}
