// The gamma family and the modified Bessel functions I0 / I1 for the unary kernel (appended to
// unary.wgsl when it is built; WGSL has no includes): Chebyshev series, lgamma, digamma,
// trigamma, Hurwitz's zeta, polygamma, mvlgamma, i0 / i0e / i1 / i1e.

// Clenshaw's sum of the Chebyshev series of exp(-x) I0(x) on [0, 8] (special_fns.rs's tables).
fn chb_i0e_a_(y: f32) -> f32 {
    var c = array<f32, 30>(
        -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
        1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
        -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
        9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
        -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
        1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
        -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
        1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
        -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
        1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 30; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// ... of exp(-x) sqrt(x) I0(x) on [8, inf), in 32/x - 2.
fn chb_i0e_b_(y: f32) -> f32 {
    var c = array<f32, 25>(
        -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
        3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
        1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
        -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
        7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
        -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
        3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
        2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
        8.04490411014108831608E-1
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 25; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// ... of exp(-x) I1(x) / x on [0, 8] (float32's shorter table, as PyTorch's).
fn chb_i1e_a_(y: f32) -> f32 {
    var c = array<f32, 17>(
        9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
        -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
        4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
        -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
        2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
        -1.76416518357834055153E-1, 2.52587186443633654823E-1
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 17; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// ... of exp(-x) sqrt(x) I1(x) on [8, inf) (float32's shorter table).
fn chb_i1e_b_(y: f32) -> f32 {
    var c = array<f32, 7>(
        -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
        -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
        7.78576235018280120474E-1
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 7; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// The gamma family and the modified Bessel functions (issue 24): ops/special_fns.rs's
// algorithms (PyTorch's) in float32, zeta included (the CPU widens it to float64). lgamma has
// none to follow (the CPU calls libm): the reflection formula below 1/2, the series of
// lgamma(2 + z) near its zeros at 1 and 2 (so small values keep their digits), the recurrence
// up to 8 and Stirling's series past it.
fn inf_() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

fn nan_() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

// lgamma(2 + z), |z| <= 1/2: (1 - γ) z + Σ_{k>=2} (ζ(k) - 1) (-z)^k / k.
fn lgamma2_(z: f32) -> f32 {
    var c = array<f32, 15>(
        0.42278433509846713, 0.3224670334241132, 0.0673523010531981, 0.020580808427784546,
        0.007385551028673986, 0.0028905103307415234, 0.001192753911703261,
        0.0005096695247430425, 0.00022315475845357939, 9.945751278180853e-05,
        4.492623673813314e-05, 2.050721277567069e-05, 9.439488275268397e-06,
        4.374866789907488e-06, 2.039215753801366e-06
    );
    var u = 0.0;
    for (var k = 14; k >= 1; k--) {
        u = u * -z + c[k];
    }
    return (c[0] + z * u) * z;
}

// lgamma for x >= 1/2.
fn lgamma_pos_(x: f32) -> f32 {
    if (x < 1.5) {
        return lgamma2_(x - 1.0) - log(x);
    }
    if (x < 2.5) {
        return lgamma2_(x - 2.0);
    }
    if (x < 8.0) {
        var y = x;
        var prod = 1.0;
        while (y >= 2.5) {
            y -= 1.0;
            prod *= y;
        }
        return lgamma2_(y - 2.0) + log(prod);
    }
    let r = 1.0 / x;
    let r2 = r * r;
    let series = r * (0.08333333333333333 - r2 * (0.002777777777777778 - r2 * 0.0007936507936507937));
    return (x - 0.5) * (log(x) - 1.0) - 0.5 + 0.9189385332046728 + series;
}

fn lgamma_(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x <= 0.0 && x == floor(x)) {
        return inf_();
    }
    if (x < 0.5) {
        // |Γ(x)| = pi / (|sin(pi x)| Γ(1 - x)); sin of the distance to the nearest integer.
        let s = abs(trig(3.141592653589793 * (x - round(x)), 0u));
        return log(3.141592653589793 / s) - lgamma_pos_(1.0 - x);
    }
    return lgamma_pos_(x);
}

fn digamma_(v: f32) -> f32 {
    if (v == 0.0) {
        // ±0 gives ∓inf.
        return select(-inf_(), inf_(), bitcast<u32>(v) == 0x80000000u);
    }
    var x = v;
    var result = 0.0;
    if (x < 0.0) {
        if (x == trunc(x)) {
            return nan_();
        }
        let r = x - trunc(x);
        result = -3.141592653589793 / trig(3.141592653589793 * r, 2u);
        x = 1.0 - x;
    }
    while (x < 10.0) {
        result -= 1.0 / x;
        x += 1.0;
    }
    if (x == 10.0) {
        return result + 2.25175258906672110764;
    }
    var y = 0.0;
    if (x < 1.0e17) {
        let z = 1.0 / (x * x);
        let poly = (((((8.33333333333333333333E-2 * z - 2.10927960927960927961E-2) * z
            + 7.57575757575757575758E-3) * z - 4.16666666666666666667E-3) * z
            + 3.96825396825396825397E-3) * z - 8.33333333333333333333E-3) * z
            + 8.33333333333333333333E-2;
        y = z * poly;
    }
    return result + log(x) - 0.5 / x - y;
}

fn trigamma_(v: f32) -> f32 {
    var x = v;
    var sign = 1.0;
    var result = 0.0;
    if (x < 0.5) {
        sign = -1.0;
        let s = trig(3.141592653589793 * x, 0u);
        result -= 9.869604401089358 / (s * s);
        x = 1.0 - x;
    }
    for (var i = 0; i < 6; i++) {
        result += 1.0 / (x * x);
        x += 1.0;
    }
    let ixx = 1.0 / (x * x);
    result += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / x;
    return sign * result;
}

// a^e for an integer e, a of either sign (WGSL's pow is undefined for a < 0).
fn powi_(a: f32, e: f32) -> f32 {
    let m = pow(abs(a), e);
    let odd = abs(e - 2.0 * floor(e * 0.5)) == 1.0;
    return select(m, -m, a < 0.0 && odd);
}

// Hurwitz's zeta ζ(x, q) for an integer x >= 2: the direct sum, then the Euler-Maclaurin tail.
fn zeta_(x: f32, q: f32) -> f32 {
    if (q <= 0.0 && q == floor(q)) {
        return inf_();
    }
    var c = array<f32, 12>(
        12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
        -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
        1.8152105401943546773e17, -7.1661652561756670113e18
    );
    var s = powi_(q, -x);
    var a = q;
    var i = 0;
    var b = 0.0;
    while (i < 9 || a <= 9.0) {
        i += 1;
        a += 1.0;
        b = powi_(a, -x);
        s += b;
        if (abs(b) < 5.9604645e-8 * abs(s)) {
            return s;
        }
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    var f = 1.0;
    var k = 0.0;
    for (var j = 0; j < 12; j++) {
        f *= x + k;
        b /= w;
        let t = f * b / c[j];
        s += t;
        if (abs(t / s) < 5.9604645e-8) {
            return s;
        }
        k += 1.0;
        f *= x + k;
        b /= w;
        k += 1.0;
    }
    return s;
}

fn polygamma_(n: i32, x: f32) -> f32 {
    if (n == 0) {
        return digamma_(x);
    }
    if (n == 1) {
        return trigamma_(x);
    }
    if (is_nan(x)) {
        return x;
    }
    var fact = 1.0;
    for (var k = 2; k <= n; k++) {
        fact *= f32(k);
    }
    let sign = select(-1.0, 1.0, n % 2 == 1);
    return sign * fact * zeta_(f32(n + 1), x);
}

fn mvlgamma_(x: f32, p: i32) -> f32 {
    let start = -f32(p) * 0.5 + 0.5;
    var s = 0.0;
    for (var j = 0; j < p; j++) {
        s += lgamma_(x + start + f32(j) * 0.5);
    }
    return s + f32(p * (p - 1)) * 0.28618247146235004;
}

fn i0_(v: f32) -> f32 {
    let x = abs(v);
    if (x <= 8.0) {
        return exp(x) * chb_i0e_a_(x / 2.0 - 2.0);
    }
    return exp(x) * chb_i0e_b_(32.0 / x - 2.0) / sqrt(x);
}

fn i0e_(v: f32) -> f32 {
    let x = abs(v);
    if (x <= 8.0) {
        return chb_i0e_a_(x / 2.0 - 2.0);
    }
    return chb_i0e_b_(32.0 / x - 2.0) / sqrt(x);
}

fn i1_(v: f32) -> f32 {
    let x = abs(v);
    var r: f32;
    if (x <= 8.0) {
        r = exp(x) * x * chb_i1e_a_(x / 2.0 - 2.0);
    } else {
        r = exp(x) * chb_i1e_b_(32.0 / x - 2.0) / sqrt(x);
    }
    return select(r, -r, v < 0.0);
}

fn i1e_(v: f32) -> f32 {
    let x = abs(v);
    var r: f32;
    if (x <= 8.0) {
        r = chb_i1e_a_(x / 2.0 - 2.0) * x;
    } else {
        r = chb_i1e_b_(32.0 / x - 2.0) / sqrt(x);
    }
    return select(r, -r, v < 0.0);
}
