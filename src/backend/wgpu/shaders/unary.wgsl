// Elementwise unary map: y[y_offset + i] = f(x[x_offset + i]) for i in 0..n, f32.
//
// Bindings (group 0):
//   0: x  storage, read        array<f32>  input (read from element x_offset on)
//   1: y  storage, read_write  array<f32>  output, contiguous, n elements from y_offset
//   2: p  uniform              Params (n, x_offset, y_offset and up to three f32 op parameters:
//                                 clamp bounds, slopes, nan_to_num's replacements)
//
// Algorithm: one invocation per element, 256 per workgroup. The op is `apply`, whose body the
// host generates from the op's declared WGSL expression (Note [Op declarations] in
// ops/unary.rs), so each op compiles to its own branch-free pipeline. Grids past 65,535
// workgroups spill into y (2-D dispatch); the flat index folds y back in with
// num_workgroups.x. Functions WGSL leaves undefined or imprecise
// at the edges (NaN in relu, large |x| in tanh/sigmoid, log1p/expm1 near 0) are written out.
// With HALF set (a float16 tensor), each result rounds to half (round_half: half.wgsl,
// appended to this shader) in the same pass.

override HALF: bool = false;

struct Params {
    n: u32,
    x_offset: u32,
    a: f32,
    b: f32,
    c: f32,
    y_offset: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn sigmoid(v: f32) -> f32 {
    // exp of a negative argument only, so neither branch overflows.
    if (v >= 0.0) {
        return 1.0 / (1.0 + exp(-v));
    }
    let e = exp(v);
    return e / (1.0 + e);
}

fn tanh_safe(v: f32) -> f32 {
    // Some drivers evaluate tanh through exp(2x) and return NaN for large |x|;
    // tanh(15) already rounds to 1 in f32.
    if (abs(v) > 15.0) {
        return sign(v);
    }
    return tanh(v);
}

fn log1p_(v: f32) -> f32 {
    // Kahan's trick: the rounding error of 1 + v is divided back out.
    let u = 1.0 + v;
    if (u == 1.0) {
        return v;
    }
    return log(u) * v / (u - 1.0);
}

fn expm1_(v: f32) -> f32 {
    let u = exp(v);
    if (u == 1.0) {
        return v;
    }
    let um1 = u - 1.0;
    if (um1 == -1.0) {
        return -1.0;
    }
    if (abs(v) > 1.0) {
        return um1;
    }
    return um1 * v / log(u);
}

fn sinh_(v: f32) -> f32 {
    // (e^v - e^-v) / 2 cancels near 0; expm1 keeps the small values' digits.
    if (abs(v) < 1.0) {
        let e = expm1_(v);
        return 0.5 * (e + e / (e + 1.0));
    }
    return sinh(v);
}

fn erf_(v: f32) -> f32 {
    // Near 0 the Taylor series (1 - erfc would cancel); elsewhere the Chebyshev fit of
    // erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), fractional error below 1.2e-7.
    let z = abs(v);
    if (z < 0.5) {
        let x2 = v * v;
        return v * 1.1283791670955126 * (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 / 216.0))));
    }
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let r = 1.0 - t * exp(-z * z + poly);
    if (is_nan(v)) {
        return v;
    }
    return select(r, -r, v < 0.0);
}

// sin (want 0), cos (1) or tan (2) of v with our own argument reduction: drivers' sin/cos are
// only required to be good to 2^-11 (an H100's erred by 1e-6 at |x| ~ 30). v - k*pi/2 in three
// parts (Cody-Waite, the first exact for k < 2^16), then Cephes' minimax polynomials on
// [-pi/4, pi/4]. Past 1e5 the reduction loses bits, and the driver's functions are used.
fn trig(v: f32, want: u32) -> f32 {
    if (!(abs(v) <= 1e5)) {
        if (want == 0u) { return sin(v); }
        if (want == 1u) { return cos(v); }
        return tan(v);
    }
    let k = round(v * 0.6366197723675814);
    var r = fma(-k, 1.5703125, v);
    r = fma(-k, 4.8375129699707031e-4, r);
    r = fma(-k, 7.5497899548918821e-8, r);
    let z = r * r;
    let sn = fma(((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z, r, r);
    let cs = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2)
        * z * z - 0.5 * z + 1.0;
    let q = u32(i32(k) & 3);
    if (want == 2u) {
        return select(sn / cs, -cs / sn, (q & 1u) == 1u);
    }
    switch ((q + want) & 3u) {
        case 0u: { return sn; }
        case 1u: { return cs; }
        case 2u: { return -sn; }
        default: { return -cs; }
    }
}

fn clamp_(v: f32, lo: f32, hi: f32) -> f32 {
    // NaN passes through (WGSL's min/max may drop it); a NaN bound gives NaN, as torch.clamp.
    if (is_nan(v) || is_nan(lo) || is_nan(hi)) {
        return v + lo + hi;
    }
    return min(max(v, lo), hi);
}

// Outside [-1, 1] WGSL leaves asin / acos undefined (C gives NaN), and drivers' asin is coarse
// (lavapipe's errs by 2e-4): both go through atan2 instead.
fn asin_(v: f32) -> f32 {
    if (abs(v) > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    return atan2(v, sqrt((1.0 - v) * (1.0 + v)));
}

fn acos_(v: f32) -> f32 {
    if (abs(v) > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    return atan2(sqrt((1.0 - v) * (1.0 + v)), v);
}

// asinh / acosh / atanh / erfc / erfinv (issue 24), written out: the builtins are
// indeterminate outside their domains and lose the small values to cancellation.
fn asinh_(v: f32) -> f32 {
    let a = abs(v);
    var r: f32;
    if (a > 1e8) {
        r = log(a) + 0.6931471805599453;
    } else {
        r = log1p_(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    }
    if (is_nan(v)) {
        return v;
    }
    return select(r, -r, v < 0.0);
}

fn acosh_(v: f32) -> f32 {
    if (v < 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (v > 1e8) {
        return log(v) + 0.6931471805599453;
    }
    let t = v - 1.0;
    return log1p_(t + sqrt(t * (v + 1.0)));
}

fn atanh_(v: f32) -> f32 {
    let a = abs(v);
    if (a > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    var r: f32;
    if (a == 1.0) {
        r = bitcast<f32>(0x7f800000u);
    } else {
        r = 0.5 * log1p_(2.0 * a / (1.0 - a));
    }
    if (is_nan(v)) {
        return v;
    }
    return select(r, -r, v < 0.0);
}

fn erfc_(v: f32) -> f32 {
    // erf_'s fit of erfc(z) directly for |v| >= 0.5, so its small values keep their digits.
    let z = abs(v);
    if (z < 0.5 || is_nan(v)) {
        return 1.0 - erf_(v);
    }
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let r = t * exp(-z * z + poly);
    return select(r, 2.0 - r, v < 0.0);
}

fn erfinv_(y: f32) -> f32 {
    // PyTorch's calc_erfinv: a rational first guess, then Newton steps on erf.
    let a = abs(y);
    if (a > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (a == 1.0) {
        return select(bitcast<f32>(0x7f800000u), bitcast<f32>(0xff800000u), y < 0.0);
    }
    var x: f32;
    if (a <= 0.7) {
        let z = y * y;
        let num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899;
        let dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0;
        x = y * num / dem;
    } else {
        let z = sqrt(-log((1.0 - a) / 2.0));
        let num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454;
        let dem = (1.637067800 * z + 3.543889200) * z + 1.0;
        x = select(num, -num, y < 0.0) / dem;
    }
    x = x - (erf_(x) - y) / (1.1283791670955126 * exp(-x * x));
    x = x - (erf_(x) - y) / (1.1283791670955126 * exp(-x * x));
    if (is_nan(y)) {
        return y;
    }
    return x;
}

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

// softplus with beta b, threshold t: linear above the threshold, as PyTorch's.
fn softplus_(v: f32, b: f32, t: f32) -> f32 {
    if (v * b > t) {
        return v;
    }
    return log1p_(exp(v * b)) / b;
}

// logit with eps e, as PyTorch's kernel: x clamped to [e, 1 - e] unless e is negative or NaN
// (None); +inf at 1, -inf at 0, NaN outside [0, 1] (written out: WGSL's log is undefined there).
// NaN is tested by the bits first: the H100's driver took `NaN > 1 - e` as true and clamped it.
fn logit_(v: f32, e: f32) -> f32 {
    if (is_nan(v)) {
        return v;
    }
    var x = v;
    if (!is_nan(e) && e >= 0.0) {
        if (x < e) {
            x = e;
        } else if (x > 1.0 - e) {
            x = 1.0 - e;
        }
    }
    if (x < 0.0 || x > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (x == 1.0) {
        return bitcast<f32>(0x7f800000u);
    }
    if (x == 0.0) {
        return bitcast<f32>(0xff800000u);
    }
    return log(x / (1.0 - x));
}

// nan_to_num: NaN -> a, +inf -> b, -inf -> c.
fn nan_to_num_(v: f32, a: f32, b: f32, c: f32) -> f32 {
    if (is_nan(v)) {
        return a;
    }
    if (bitcast<u32>(v) == 0x7f800000u) {
        return b;
    }
    if (bitcast<u32>(v) == 0xff800000u) {
        return c;
    }
    return v;
}

// The op: the host replaces the marked expression with the op's declared WGSL expression in
// `v` (and the parameters p.a, p.b, p.c), so each op compiles to its own pipeline.
fn apply(v: f32) -> f32 {
    return /*expr*/ v;
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = flat_index(gid, nwg);
    if (i >= p.n) {
        return;
    }
    var v = apply(x[p.x_offset + i]);
    if (HALF) {
        v = bitcast<f32>(round_half(bitcast<u32>(v)));
    }
    y[p.y_offset + i] = v;
}

// Horner's rule over NDTRI_P0 (Cephes' ndtri).
fn ndtri_p0_(z: f32) -> f32 {
    var c = array<f32, 5>(
        -5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
        1.39312609387279679503E1, -1.23916583867381258016E0
    );
    var r = 0.0;
    for (var i = 0; i < 5; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over NDTRI_Q0 (Cephes' ndtri).
fn ndtri_q0_(z: f32) -> f32 {
    var c = array<f32, 9>(
        1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0,
        8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
        -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0
    );
    var r = 0.0;
    for (var i = 0; i < 9; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over NDTRI_P1 (Cephes' ndtri).
fn ndtri_p1_(z: f32) -> f32 {
    var c = array<f32, 9>(
        4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
        4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
        -1.40256079171354495875E-1, -3.50424626827848203418E-2,
        -8.57456785154685413611E-4
    );
    var r = 0.0;
    for (var i = 0; i < 9; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over NDTRI_Q1 (Cephes' ndtri).
fn ndtri_q1_(z: f32) -> f32 {
    var c = array<f32, 9>(
        1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1,
        4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
        -1.42182922854787788574E-1, -3.80806407691578277194E-2,
        -9.33259480895457427372E-4
    );
    var r = 0.0;
    for (var i = 0; i < 9; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over NDTRI_P2 (Cephes' ndtri).
fn ndtri_p2_(z: f32) -> f32 {
    var c = array<f32, 9>(
        3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
        1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
        3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9
    );
    var r = 0.0;
    for (var i = 0; i < 9; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over NDTRI_Q2 (Cephes' ndtri).
fn ndtri_q2_(z: f32) -> f32 {
    var c = array<f32, 9>(
        1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0,
        1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
        3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9
    );
    var r = 0.0;
    for (var i = 0; i < 9; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ndtri (Cephes'): the inverse of the standard normal CDF; -inf at 0, inf at 1, NaN outside.
fn ndtri_(y0: f32) -> f32 {
    if (y0 == 0.0) {
        return -inf_();
    }
    if (y0 == 1.0) {
        return inf_();
    }
    if (y0 < 0.0 || y0 > 1.0 || is_nan(y0)) {
        return nan_();
    }
    let e = 0.13533528323661269189;
    var y = y0;
    var negate = true;
    if (y > 1.0 - e) {
        y = 1.0 - y;
        negate = false;
    }
    if (y > e) {
        let h = y - 0.5;
        let h2 = h * h;
        return (h + h * (h2 * ndtri_p0_(h2) / ndtri_q0_(h2))) * 2.50662827463100050242;
    }
    let x = sqrt(-2.0 * log(y));
    let x0 = x - log(x) / x;
    let z = 1.0 / x;
    var x1: f32;
    if (x < 8.0) {
        x1 = z * ndtri_p1_(z) / ndtri_q1_(z);
    } else {
        x1 = z * ndtri_p2_(z) / ndtri_q2_(z);
    }
    let r = x0 - x1;
    return select(r, -r, negate);
}

// Horner's rule over special_fns.rs's J0_PP (Cephes' j0; y0 shares PP..QQ).
fn j0_pp_(z: f32) -> f32 {
    var c = array<f32, 7>(
        7.96936729297347051624e-04, 8.28352392107440799803e-02,
        1.23953371646414299388e+00, 5.44725003058768775090e+00,
        8.74716500199817011941e+00, 5.30324038235394892183e+00,
        9.99999999999999997821e-01
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over special_fns.rs's J0_PQ (Cephes' j0; y0 shares PP..QQ).
fn j0_pq_(z: f32) -> f32 {
    var c = array<f32, 7>(
        9.24408810558863637013e-04, 8.56288474354474431428e-02,
        1.25352743901058953537e+00, 5.47097740330417105182e+00,
        8.76190883237069594232e+00, 5.30605288235394617618e+00,
        1.00000000000000000218e+00
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over special_fns.rs's J0_QP (Cephes' j0; y0 shares PP..QQ).
fn j0_qp_(z: f32) -> f32 {
    var c = array<f32, 8>(
        -1.13663838898469149931e-02, -1.28252718670509318512e+00,
        -1.95539544257735972385e+01, -9.32060152123768231369e+01,
        -1.77681167980488050595e+02, -1.47077505154951170175e+02,
        -5.14105326766599330220e+01, -6.05014350600728481186e+00
    );
    var r = 0.0;
    for (var i = 0; i < 8; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over special_fns.rs's J0_QQ (Cephes' j0; y0 shares PP..QQ).
fn j0_qq_(z: f32) -> f32 {
    var c = array<f32, 7>(
        6.43178256118178023184e+01, 8.56430025976980587198e+02,
        3.88240183605401609683e+03, 7.24046774195652478189e+03,
        5.93072701187316984827e+03, 2.06209331660327847417e+03,
        2.42005740240291393179e+02
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over special_fns.rs's J0_RP (Cephes' j0; y0 shares PP..QQ).
fn j0_rp_(z: f32) -> f32 {
    var c = array<f32, 4>(
        -4.79443220978201773821e+09, 1.95617491946556577543e+12,
        -2.49248344360967716204e+14, 9.70862251047306323952e+15
    );
    var r = 0.0;
    for (var i = 0; i < 4; i++) {
        r = r * z + c[i];
    }
    return r;
}

// Horner's rule over special_fns.rs's J0_RQ (Cephes' j0; y0 shares PP..QQ).
fn j0_rq_(z: f32) -> f32 {
    var c = array<f32, 8>(
        4.99563147152651017219e+02, 1.73785401676374683123e+05,
        4.84409658339962045305e+07, 1.11855537045356834862e+10,
        2.11277520115489217587e+12, 3.10518229857422583814e+14,
        3.18121955943204943306e+16, 1.71086294081043136091e+18
    );
    var r = 0.0;
    for (var i = 0; i < 8; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over Y0_YP.
fn y0_yp_(z: f32) -> f32 {
    var c = array<f32, 8>(
        1.55924367855235737965e+04, -1.46639295903971606143e+07,
        5.43526477051876500413e+09, -9.82136065717911466409e+11,
        8.75906394395366999549e+13, -3.46628303384729719441e+15,
        4.42733268572569800351e+16, -1.84950800436986690637e+16
    );
    var r = 0.0;
    for (var i = 0; i < 8; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over Y0_YQ.
fn y0_yq_(z: f32) -> f32 {
    var c = array<f32, 7>(
        1.04128353664259848412e+03, 6.26107330137134956842e+05,
        2.68919633393814121987e+08, 8.64002487103935000337e+10,
        2.02979612750105546709e+13, 3.17157752842975028269e+15,
        2.50596256172653059228e+17
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over J1_PP (Cephes' j1; y1 shares PP..QQ).
fn j1_pp_(z: f32) -> f32 {
    var c = array<f32, 7>(
        7.62125616208173112003e-04, 7.31397056940917570436e-02,
        1.12719608129684925192e+00, 5.11207951146807644818e+00,
        8.42404590141772420927e+00, 5.21451598682361504063e+00,
        1.00000000000000000254e+00
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over J1_PQ (Cephes' j1; y1 shares PP..QQ).
fn j1_pq_(z: f32) -> f32 {
    var c = array<f32, 7>(
        5.71323128072548699714e-04, 6.88455908754495404082e-02,
        1.10514232634061696926e+00, 5.07386386128601488557e+00,
        8.39985554327604159757e+00, 5.20982848682361821619e+00,
        9.99999999999999997461e-01
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over J1_QP (Cephes' j1; y1 shares PP..QQ).
fn j1_qp_(z: f32) -> f32 {
    var c = array<f32, 8>(
        5.10862594750176621635e-02, 4.98213872951233449420e+00,
        7.58238284132545283818e+01, 3.66779609360150777800e+02,
        7.10856304998926107277e+02, 5.97489612400613639965e+02,
        2.11688757100572135698e+02, 2.52070205858023719784e+01
    );
    var r = 0.0;
    for (var i = 0; i < 8; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over J1_QQ (Cephes' j1; y1 shares PP..QQ).
fn j1_qq_(z: f32) -> f32 {
    var c = array<f32, 7>(
        7.42373277035675149943e+01, 1.05644886038262816351e+03,
        4.98641058337653607651e+03, 9.56231892404756170795e+03,
        7.99704160447350683650e+03, 2.82619278517639096600e+03,
        3.36093607810698293419e+02
    );
    var r = 0.0;
    for (var i = 0; i < 7; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over J1_RP (Cephes' j1; y1 shares PP..QQ).
fn j1_rp_(z: f32) -> f32 {
    var c = array<f32, 4>(
        -8.99971225705559398224e+08, 4.52228297998194034323e+11,
        -7.27494245221818276015e+13, 3.68295732863852883286e+15
    );
    var r = 0.0;
    for (var i = 0; i < 4; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over J1_RQ (Cephes' j1; y1 shares PP..QQ).
fn j1_rq_(z: f32) -> f32 {
    var c = array<f32, 8>(
        6.20836478118054335476e+02, 2.56987256757748830383e+05,
        8.35146791431949253037e+07, 2.21511595479792499675e+10,
        4.74914122079991414898e+12, 7.84369607876235854894e+14,
        8.95222336184627338078e+16, 5.32278620332680085395e+18
    );
    var r = 0.0;
    for (var i = 0; i < 8; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over Y1_YP.
fn y1_yp_(z: f32) -> f32 {
    var c = array<f32, 6>(
        1.26320474790178026440e+09, -6.47355876379160291031e+11,
        1.14509511541823727583e+14, -8.12770255501325109621e+15,
        2.02439475713594898196e+17, -7.78877196265950026825e+17
    );
    var r = 0.0;
    for (var i = 0; i < 6; i++) {
        r = r * z + c[i];
    }
    return r;
}

// ... over Y1_YQ.
fn y1_yq_(z: f32) -> f32 {
    var c = array<f32, 8>(
        5.94301592346128195359e+02, 2.35564092943068577943e+05,
        7.34811944459721705660e+07, 1.87601316108706159478e+10,
        3.88231277496238566008e+12, 6.20557727146953693363e+14,
        6.87141087355300489866e+16, 3.97270608116560655612e+18
    );
    var r = 0.0;
    for (var i = 0; i < 8; i++) {
        r = r * z + c[i];
    }
    return r;
}

// PyTorch's bessel_j0_forward in float32 (special_fns.rs's bessel_j0).
fn bessel_j0_(v: f32) -> f32 {
    let x = abs(v);
    if (x <= 5.0) {
        if (x < 0.00001) {
            return 1.0 - x * x / 4.0;
        }
        let z = x * x;
        return (z - 5.78318596294678452118) * (z - 30.4712623436620863991) * j0_rp_(z) / j0_rq_(z);
    }
    let z = 25.0 / (x * x);
    let w = x - 0.785398163397448309615660845819875721;
    return (j0_pp_(z) / j0_pq_(z) * trig(w, 1u) - 5.0 / x * (j0_qp_(z) / j0_qq_(z)) * trig(w, 0u))
        * 0.797884560802865355879892119868763737 / sqrt(x);
}

// bessel_j1 (odd); its asymptotic form squares 5 / x.
fn bessel_j1_(v: f32) -> f32 {
    let x = abs(v);
    var r: f32;
    if (x <= 5.0) {
        let z = x * x;
        r = j1_rp_(z) / j1_rq_(z) * x * (z - 14.6819706421238932572) * (z - 49.2184563216946036703);
    } else {
        let z = 5.0 / x * (5.0 / x);
        let w = x - 2.356194490192344928846982537459627163;
        r = (j1_pp_(z) / j1_pq_(z) * trig(w, 1u) - 5.0 / x * (j1_qp_(z) / j1_qq_(z)) * trig(w, 0u))
            * 0.797884560802865355879892119868763737 / sqrt(x);
    }
    return select(r, -r, v < 0.0);
}

// bessel_y0: -inf at 0, NaN below (written out: WGSL's log is undefined there).
fn bessel_y0_(x: f32) -> f32 {
    if (x <= 5.0) {
        if (x == 0.0) {
            return -inf_();
        }
        if (x < 0.0) {
            return nan_();
        }
        let z = x * x;
        return y0_yp_(z) / y0_yq_(z) + 0.636619772367581343075535053490057448 * log(x) * bessel_j0_(x);
    }
    let z = 25.0 / (x * x);
    let w = x - 0.785398163397448309615660845819875721;
    return (j0_pp_(z) / j0_pq_(z) * trig(w, 0u) + 5.0 / x * (j0_qp_(z) / j0_qq_(z)) * trig(w, 1u))
        * 0.797884560802865355879892119868763737 / sqrt(x);
}

// bessel_y1: -inf at 0, NaN below.
fn bessel_y1_(x: f32) -> f32 {
    if (x <= 5.0) {
        if (x == 0.0) {
            return -inf_();
        }
        if (x < 0.0) {
            return nan_();
        }
        let z = x * x;
        return x * (y1_yp_(z) / y1_yq_(z))
            + 0.636619772367581343075535053490057448 * (bessel_j1_(x) * log(x) - 1.0 / x);
    }
    let z = 5.0 / x * (5.0 / x);
    let w = x - 2.356194490192344928846982537459627163;
    return (j1_pp_(z) / j1_pq_(z) * trig(w, 0u) + 5.0 / x * (j1_qp_(z) / j1_qq_(z)) * trig(w, 1u))
        * 0.797884560802865355879892119868763737 / sqrt(x);
}

// Clenshaw's sum over K0_A (Cephes' k0).
fn chb_k0_a_(y: f32) -> f32 {
    var c = array<f32, 10>(
        1.37446543561352307156e-16, 4.25981614279661018399e-14,
        1.03496952576338420167e-11, 1.90451637722020886025e-09,
        2.53479107902614945675e-07, 2.28621210311945178607e-05,
        1.26461541144692592338e-03, 3.59799365153615016266e-02,
        3.44289899924628486886e-01, -5.35327393233902768720e-01
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 10; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// Clenshaw's sum over K0_B (Cephes' k0).
fn chb_k0_b_(y: f32) -> f32 {
    var c = array<f32, 25>(
        5.30043377268626276149e-18, -1.64758043015242134646e-17,
        5.21039150503902756861e-17, -1.67823109680541210385e-16,
        5.51205597852431940784e-16, -1.84859337734377901440e-15,
        6.34007647740507060557e-15, -2.22751332699166985548e-14,
        8.03289077536357521100e-14, -2.98009692317273043925e-13,
        1.14034058820847496303e-12, -4.51459788337394416547e-12,
        1.85594911495471785253e-11, -7.95748924447710747776e-11,
        3.57739728140030116597e-10, -1.69753450938905987466e-09,
        8.57403401741422608519e-09, -4.66048989768794782956e-08,
        2.76681363944501510342e-07, -1.83175552271911948767e-06,
        1.39498137188764993662e-05, -1.28495495816278026384e-04,
        1.56988388573005337491e-03, -3.14481013119645005427e-02,
        2.44030308206595545468e+00
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

// ... over K1_A (Cephes' k1).
fn chb_k1_a_(y: f32) -> f32 {
    var c = array<f32, 11>(
        -7.02386347938628759343e-18, -2.42744985051936593393e-15,
        -6.66690169419932900609e-13, -1.41148839263352776110e-10,
        -2.21338763073472585583e-08, -2.43340614156596823496e-06,
        -1.73028895751305206302e-04, -6.97572385963986435018e-03,
        -1.22611180822657148235e-01, -3.53155960776544875667e-01,
        1.52530022733894777053e+00
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 11; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// ... over K1_B (Cephes' k1).
fn chb_k1_b_(y: f32) -> f32 {
    var c = array<f32, 25>(
        -5.75674448366501715755e-18, 1.79405087314755922667e-17,
        -5.68946255844285935196e-17, 1.83809354436663880070e-16,
        -6.05704724837331885336e-16, 2.03870316562433424052e-15,
        -7.01983709041831346144e-15, 2.47715442448130437068e-14,
        -8.97670518232499435011e-14, 3.34841966607842919884e-13,
        -1.28917396095102890680e-12, 5.13963967348173025100e-12,
        -2.12996783842756842877e-11, 9.21831518760500529508e-11,
        -4.19035475934189648750e-10, 2.01504975519703286596e-09,
        -1.03457624656780970260e-08, 5.74108412545004946722e-08,
        -3.50196060308781257119e-07, 2.40648494783721712015e-06,
        -1.93619797416608296024e-05, 1.95215518471351631108e-04,
        -2.85781685962277938680e-03, 1.03923736576817238437e-01,
        2.72062619048444266945e+00
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

// ... over the whole I1E_A (PyTorch's modified_bessel_i1 takes it in float32 too).
fn chb_i1e_a_full_(y: f32) -> f32 {
    var c = array<f32, 29>(
        2.77791411276104639959E-18, -2.11142121435816608115E-17,
        1.55363195773620046921E-16, -1.10559694773538630805E-15,
        7.60068429473540693410E-15, -5.04218550472791168711E-14,
        3.22379336594557470981E-13, -1.98397439776494371520E-12,
        1.17361862988909016308E-11, -6.66348972350202774223E-11,
        3.62559028155211703701E-10, -1.88724975172282928790E-9,
        9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
        -8.56872026469545474066E-7, 3.47025130813767847674E-6,
        -1.32731636560394358279E-5, 4.78156510755005422638E-5,
        -1.61760815825896745588E-4, 5.12285956168575772895E-4,
        -1.51357245063125314899E-3, 4.15642294431288815669E-3,
        -1.05640848946261981558E-2, 2.47264490306265168283E-2,
        -5.29459812080949914269E-2, 1.02643658689847095384E-1,
        -1.76416518357834055153E-1, 2.52587186443633654823E-1
    );
    var b0 = c[0];
    var b1 = 0.0;
    var b2 = 0.0;
    for (var i = 1; i < 29; i++) {
        b2 = b1;
        b1 = b0;
        b0 = y * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}

// ... over the whole I1E_B.
fn chb_i1e_b_full_(y: f32) -> f32 {
    var c = array<f32, 25>(
        7.51729631084210481353E-18, 4.41434832307170791151E-18,
        -4.65030536848935832153E-17, -3.20952592199342395980E-17,
        2.96262899764595013876E-16, 3.30820231092092828324E-16,
        -1.88035477551078244854E-15, -3.81440307243700780478E-15,
        1.04202769841288027642E-14, 4.27244001671195135429E-14,
        -2.10154184277266431302E-14, -4.08355111109219731823E-13,
        -7.19855177624590851209E-13, 2.03562854414708950722E-12,
        1.41258074366137813316E-11, 3.25260358301548823856E-11,
        -1.89749581235054123450E-11, -5.58974346219658380687E-10,
        -3.83538038596423702205E-9, -2.63146884688951950684E-8,
        -2.51223623787020892529E-7, -3.88256480887769039346E-6,
        -1.10588938762623716291E-4, -9.76109749136146840777E-3,
        7.78576235018280120474E-1
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

// modified_bessel_i1: i1 over the whole tables, in PyTorch's order of products.
fn modified_bessel_i1_(v: f32) -> f32 {
    let x = abs(v);
    var r: f32;
    if (x <= 8.0) {
        r = chb_i1e_a_full_(x / 2.0 - 2.0) * x * exp(x);
    } else {
        r = exp(x) * chb_i1e_b_full_(32.0 / x - 2.0) / sqrt(x);
    }
    return select(r, -r, v < 0.0);
}

// K0 (scaled: exp(x) K0): +inf at 0, NaN below.
fn modified_bessel_k0_(x: f32, scaled: bool) -> f32 {
    if (x == 0.0) {
        return inf_();
    }
    if (x < 0.0 || is_nan(x)) {
        return nan_();
    }
    if (x <= 2.0) {
        let r = chb_k0_a_(x * x - 2.0) - log(0.5 * x) * i0_(x);
        return select(r, r * exp(x), scaled);
    }
    let r = chb_k0_b_(8.0 / x - 2.0) / sqrt(x);
    return select(exp(-x) * r, r, scaled);
}

// K1 (scaled: exp(x) K1): +inf at 0, NaN below.
fn modified_bessel_k1_(x: f32, scaled: bool) -> f32 {
    if (x == 0.0) {
        return inf_();
    }
    if (x < 0.0 || is_nan(x)) {
        return nan_();
    }
    if (x <= 2.0) {
        let r = log(0.5 * x) * modified_bessel_i1_(x) + chb_k1_a_(x * x - 2.0) / x;
        return select(r, r * exp(x), scaled);
    }
    let r = chb_k1_b_(8.0 / x - 2.0) / sqrt(x);
    return select(exp(-x) * r, r, scaled);
}

// spherical_bessel_j0: sin(x) / x, its Taylor series below 1/2, 0 at +-inf.
fn spherical_bessel_j0_(x: f32) -> f32 {
    if ((bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u) {
        return 0.0;
    }
    if (abs(x) < 0.5) {
        let z = x * x;
        return 1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0
            + z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0))))));
    }
    return trig(x, 0u) / x;
}
