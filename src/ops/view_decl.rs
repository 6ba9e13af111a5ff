//! The declared view ops, each declared once (Note [Op declarations] in `ops/unary.rs`);
//! `ops/view.rs` generates the rest from this table.
//!
//! An entry: `Variant python_name { ... }` with
//! - `args`: the arguments after `input`, `[name: Type, ...]`: `i64`, or
//!   [`Dims`](super::view::Dims) for PyTorch's "int or tuple of ints" overload pairs;
//! - `compose`: the view as tensor ops in `x` and the args (by name): a composition of view
//!   ops (permute, ...), so the result shares `x`'s storage, `_base` and version counter,
//!   and the backward, double backward and the GPU are theirs;
//! - `methods` / `functions`: the Tensor methods and `gradrs.*` functions generated;
//! - `sigs`: the functions' signatures as PyTorch's parser prints them, in its order.

/// Invokes `$m!` with the table of view ops (the X-macro pattern).
macro_rules! view_table {
    ($m:ident) => {
        $m! {
            /// Moves the dimension(s) of `self` at the position(s) in `source` to the position(s)
            /// in `destination`. The other dimensions keep their relative order. Returns a view.
            /// `moveaxis` is an alias (NumPy's name).
            ///
            /// Args:
            ///     source (int or tuple of ints): the original positions of the dims to move;
            ///         unique.
            ///     destination (int or tuple of ints): the destination positions, one per source;
            ///         unique.
            ///
            /// Example:
            ///     >>> t = gradrs.zeros(3, 2, 1)
            ///     >>> t.movedim(1, 0).shape
            ///     gradrs.Size([2, 3, 1])
            ///     >>> t.movedim((1, 2), (0, 1)).shape
            ///     gradrs.Size([2, 1, 3])
            Movedim movedim {
                args: [source: Dims, destination: Dims],
                // PyTorch's: each source dim goes to its destination, the others keep their order.
                compose: |x| {
                    let (n, src, dst) = (x.dim(), source.as_slice(), destination.as_slice());
                    if matches!(source, Dims::One(_)) != matches!(destination, Dims::One(_)) {
                        return Err(Error::Type("movedim() received an invalid combination of arguments - source and destination must both be int or both be tuple of ints".into()));
                    }
                    if src.len() != dst.len() {
                        return Err(Error::Runtime(format!("movedim: Invalid source or destination dims: source ({src:?} dims) should contain the same number of dims as destination ({dst:?} dims)")));
                    }
                    let wrap = |v: &[i64]| v.iter().map(|&d| wrap_dim(d, n)).collect::<Result<Vec<_>>>();
                    let (ws, wd) = (wrap(src)?, wrap(dst)?);
                    for (w, given, what) in [(&ws, src, "source"), (&wd, dst, "destination")] {
                        if (1..w.len()).any(|i| w[..i].contains(&w[i])) {
                            return Err(Error::Runtime(format!("movedim: repeated dim in `{what}` ({given:?})")));
                        }
                    }
                    if n == 0 {
                        return view_as_alias(x);
                    }
                    let mut order = vec![-1i64; n];
                    ws.iter().zip(&wd).for_each(|(&s, &d)| order[d] = s as i64);
                    let mut rest = (0..n as i64).filter(|i| !ws.contains(&(*i as usize)));
                    order.iter_mut().filter(|o| **o < 0).for_each(|o| *o = rest.next().unwrap_or(0));
                    permute(x, &order)
                },
                methods: [movedim, moveaxis], functions: [movedim, moveaxis],
                sigs: [
                    "(Tensor input, int source, int destination)",
                    "(Tensor input, tuple of ints source, tuple of ints destination)",
                ],
            }
        }
    };
}
pub(crate) use view_table;
