//! The declared binary kernels, each op once (Note [Op declarations] in `ops/unary.rs`):
//! its name, its CPU kernel (a closure over two values `x`, `y` of type `T`) and its WGSL
//! expression in `x`, `y` (helpers in `shaders/binary.wgsl`; `wgsl_int`: over int32 words,
//! where the GPU compares integers). `ops/binary_kernels.rs` generates each enum, its kernels
//! and its GPU expression from these tables; nothing is numbered by hand.

use crate::ops::binary_kernels::{
    binary_kernels, div_floor, float_mod, max_float, min_float, Powf, Truth,
};

binary_kernels! {
    /// Arithmetic (`ops/arithmetic.rs`); integers through `Int`'s wrapping kernels.
    BinaryOp -> T {
        Add add { wgsl: "x + y", cpu: |x, y| x + y, }
        Sub sub { wgsl: "x - y", cpu: |x, y| x - y, }
        Mul mul { wgsl: "x * y", cpu: |x, y| x * y, }
        Div div { wgsl: "x / y", cpu: |x, y| x / y, }
        // WGSL's pow is undefined for x < 0 and 0^0; pow_ follows C's.
        Pow pow { wgsl: "pow_(x, y)", cpu: |x, y| Powf::powf(x, y), }
    }
}

binary_kernels! {
    /// Comparisons (`ops/compare.rs`): bools. With NaN they are false (`!=` true), as IEEE
    /// says; the GPU tests NaN by the bits, as a compiler may assume no NaNs and fold
    /// `x != x` to false.
    CmpOp -> bool {
        Eq eq {
            wgsl: "select(0.0, 1.0, !unordered(x, y) && x == y)",
            wgsl_int: "select(0.0, 1.0, x == y)",
            cpu: |x, y| x == y,
        }
        Ne ne {
            wgsl: "select(0.0, 1.0, unordered(x, y) || x != y)",
            wgsl_int: "select(0.0, 1.0, x != y)",
            cpu: |x, y| x != y,
        }
        Lt lt {
            wgsl: "select(0.0, 1.0, !unordered(x, y) && x < y)",
            wgsl_int: "select(0.0, 1.0, x < y)",
            cpu: |x, y| x < y,
        }
        Le le {
            wgsl: "select(0.0, 1.0, !unordered(x, y) && x <= y)",
            wgsl_int: "select(0.0, 1.0, x <= y)",
            cpu: |x, y| x <= y,
        }
        Gt gt {
            wgsl: "select(0.0, 1.0, !unordered(x, y) && x > y)",
            wgsl_int: "select(0.0, 1.0, x > y)",
            cpu: |x, y| x > y,
        }
        Ge ge {
            wgsl: "select(0.0, 1.0, !unordered(x, y) && x >= y)",
            wgsl_int: "select(0.0, 1.0, x >= y)",
            cpu: |x, y| x >= y,
        }
    }
}

binary_kernels! {
    /// Logical ops on truth values (nonzero, NaN included): bools.
    LogicalOp -> bool {
        And logical_and { wgsl: "select(0.0, 1.0, truth(x) && truth(y))", cpu: |x, y| x.truth() & y.truth(), }
        Or logical_or { wgsl: "select(0.0, 1.0, truth(x) || truth(y))", cpu: |x, y| x.truth() | y.truth(), }
        Xor logical_xor { wgsl: "select(0.0, 1.0, truth(x) != truth(y))", cpu: |x, y| x.truth() ^ y.truth(), }
    }
}

binary_kernels! {
    /// `maximum` / `minimum` (`ops/compare.rs`): NaN propagates.
    ExtremumOp -> T {
        Maximum maximum { wgsl: "select(max(x, y), x + y, unordered(x, y))", cpu: |x, y| max_float(x, y), }
        Minimum minimum { wgsl: "select(min(x, y), x + y, unordered(x, y))", cpu: |x, y| min_float(x, y), }
    }
}

binary_kernels! {
    /// Remainders and rounding divisions (`ops/divmod.rs`), exact for large quotients.
    DivModOp -> T {
        /// C's fmod (sign of the dividend).
        Fmod fmod { wgsl: "fmod_(x, y)", cpu: |x, y| float_mod(x, y, false), }
        /// Python's % (sign of the divisor).
        Remainder remainder { wgsl: "remainder_(x, y)", cpu: |x, y| float_mod(x, y, true), }
        DivTrunc div_trunc { wgsl: "trunc(x / y)", cpu: |x, y| (x / y).trunc(), }
        DivFloor div_floor { wgsl: "div_floor_(x, y)", cpu: |x, y| div_floor(x, y), }
    }
}
