//! Sorting the rows of a contiguous `[rows, len]` block in PyTorch's order: NaN after every
//! number (NaNs equal among themselves) and -0 equal to 0, ties kept in position order. Rows are
//! sorted as (value, position) pairs, so the order is total: an unstable sort or selection
//! gives what a stable sort would.

use super::parallel::{map_chunks_by, Parts};
use std::cmp::Ordering;

/// What each row gives.
#[derive(Clone, Copy, Debug)]
pub enum Rows {
    /// The whole row, sorted.
    Sort { descending: bool },
    /// Its first `k` in sorted order (topk): a selection, then a sort of those `k`.
    First { k: usize, descending: bool },
    /// Its k-th smallest (1-based; kthvalue), or, with `nan_first`, its first NaN when it has
    /// one (median).
    Kth { k: usize, nan_first: bool },
}

impl Rows {
    /// Results per row of `len` elements.
    pub fn width(self, len: usize) -> usize {
        match self {
            Rows::Sort { .. } => len,
            Rows::First { k, .. } => k,
            Rows::Kth { .. } => 1,
        }
    }
}

#[allow(clippy::eq_op)]
fn is_nan<T: PartialOrd>(v: &T) -> bool {
    // Only NaN differs from itself.
    v != v
}

/// PyTorch's ascending order of two values.
fn order<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    a.partial_cmp(b)
        .unwrap_or_else(|| is_nan(a).cmp(&is_nan(b)))
}

/// The total order of (value, position) pairs: by value, then position.
fn pairs_order<T: PartialOrd>(
    descending: bool,
) -> impl Fn(&(T, usize), &(T, usize)) -> Ordering + Copy {
    move |a, b| {
        let by_value = if descending {
            order(&b.0, &a.0)
        } else {
            order(&a.0, &b.0)
        };
        by_value.then(a.1.cmp(&b.1))
    }
}

/// The first `k` (at least 1) of `row` in sorted order, by one pass over it.
fn best_k<T: Copy + PartialOrd>(row: &[T], k: usize, descending: bool) -> Vec<(T, usize)> {
    let by = pairs_order(descending);
    let mut best: Vec<(T, usize)> = Vec::with_capacity(k + 1);
    for (p, &v) in row.iter().enumerate() {
        if best.len() == k {
            // Only a value strictly before the k-th enters: an equal one comes later.
            // (`order(..) == Less` spelled out: two comparisons in the common case.)
            let w = &best[k - 1].0;
            let before = if descending {
                *w < v || (is_nan(&v) && !is_nan(w))
            } else {
                v < *w || (is_nan(w) && !is_nan(&v))
            };
            if !before {
                continue;
            }
            best.pop();
        }
        let e = (v, p);
        let at = best.partition_point(|b| by(b, &e) == Ordering::Less);
        best.insert(at, e);
    }
    best
}

/// `what` of each row of `len` elements of `x`: the values, and for each the position in its
/// row it came from; `what.width(len)` of each per row.
pub fn sort_rows<T: Copy + PartialOrd + Send + Sync>(
    x: &[T],
    len: usize,
    what: Rows,
) -> (Vec<T>, Vec<i64>) {
    let width = what.width(len);
    if x.is_empty() || width == 0 {
        return (Vec::new(), Vec::new());
    }
    let rows = x.len() / len;
    let (mut vals, mut idx) = (vec![x[0]; rows * width], vec![0i64; rows * width]);
    let body = |row: &[T], v: &mut [T], i: &mut [i64]| {
        let all = || -> Vec<(T, usize)> { row.iter().copied().zip(0..).collect() };
        let pairs = match what {
            Rows::Sort { descending } => {
                let mut pairs = all();
                pairs.sort_unstable_by(pairs_order(descending));
                pairs
            }
            // A few of many: one pass keeping the best k in order (most elements cost one
            // comparison with the k-th) instead of a selection over a copy of the row.
            Rows::First { k, descending } if k * 16 <= len => best_k(row, k, descending),
            Rows::First { k, descending } => {
                let (mut pairs, by) = (all(), pairs_order(descending));
                if k < len {
                    pairs.select_nth_unstable_by(k - 1, by);
                    pairs.truncate(k);
                }
                pairs.sort_unstable_by(by);
                pairs
            }
            Rows::Kth { k, nan_first } => {
                let first_nan = if nan_first {
                    row.iter().position(is_nan)
                } else {
                    None
                };
                let p = match first_nan {
                    Some(p) => p,
                    None => all().select_nth_unstable_by(k - 1, pairs_order(false)).1 .1,
                };
                vec![(row[p], p)]
            }
        };
        for (j, &(value, p)) in pairs.iter().take(width).enumerate() {
            v[j] = value;
            i[j] = p as i64;
        }
    };
    // Rows shared across threads (each its part of both outputs), as `map_chunks_by` shares.
    let (vp, ip) = (Parts::new(&mut vals), Parts::new(&mut idx));
    map_chunks_by(rows, len, |r| {
        // SAFETY: the row ranges `map_chunks_by` hands out are disjoint.
        let (v, i) = unsafe {
            (
                vp.get(r.start * width..r.end * width),
                ip.get(r.start * width..r.end * width),
            )
        };
        let rows_v = v.chunks_mut(width).zip(i.chunks_mut(width));
        for (row, (v, i)) in x[r.start * len..r.end * len].chunks(len).zip(rows_v) {
            body(row, v, i);
        }
    });
    (vals, idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sort_stably_with_nan_last() {
        let nan = f32::NAN;
        let x = [3.0, nan, 1.0, -0.0, 0.0, 1.0, 2.0, nan, 9.0, 8.0];
        let (v, i) = sort_rows(&x, 5, Rows::Sort { descending: false });
        assert_eq!(&i, &[3, 4, 2, 0, 1, 0, 1, 4, 3, 2]);
        assert!(v[4].is_nan() && v[9].is_nan());
        let (_, i) = sort_rows(&x, 5, Rows::Sort { descending: true });
        assert_eq!(&i, &[1, 0, 2, 3, 4, 2, 3, 4, 1, 0]);
        let (v, i) = sort_rows(&[2i64, 1, 2, 1], 4, Rows::Sort { descending: false });
        assert_eq!((v, i), (vec![1, 1, 2, 2], vec![1, 3, 0, 2]));
    }

    #[test]
    fn selections_agree_with_the_sort() {
        // Ties and NaN in rows of 9: every prefix and every k-th is the sort's.
        let x: Vec<f32> = (0..45)
            .map(|i| {
                if i % 10 == 3 {
                    f32::NAN
                } else {
                    (i * 7 % 5) as f32
                }
            })
            .collect();
        for descending in [false, true] {
            let (sv, si) = sort_rows(&x, 9, Rows::Sort { descending });
            for k in 1..=9 {
                let (v, i) = sort_rows(&x, 9, Rows::First { k, descending });
                for r in 0..5 {
                    assert_eq!(&i[r * k..(r + 1) * k], &si[r * 9..r * 9 + k]);
                    let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
                    assert!((0..k).all(|j| same(v[r * k + j], sv[r * 9 + j])));
                }
            }
        }
        // Rows of 48, where small k take the one-pass path.
        let y: Vec<f32> = (0..96)
            .map(|i| {
                if i % 17 == 5 {
                    f32::NAN
                } else {
                    (i * 7 % 11) as f32
                }
            })
            .collect();
        for descending in [false, true] {
            let (_, si) = sort_rows(&y, 48, Rows::Sort { descending });
            for k in [1, 2, 3, 4] {
                let (_, i) = sort_rows(&y, 48, Rows::First { k, descending });
                assert_eq!(&i[..k], &si[..k]);
                assert_eq!(&i[k..], &si[48..48 + k]);
            }
        }
        let (_, si) = sort_rows(&x, 9, Rows::Sort { descending: false });
        for k in 1..=9 {
            let (_, i) = sort_rows(
                &x,
                9,
                Rows::Kth {
                    k,
                    nan_first: false,
                },
            );
            assert_eq!(i, (0..5).map(|r| si[r * 9 + k - 1]).collect::<Vec<_>>());
        }
        // The median of a row with NaN is its first NaN.
        let (v, i) = sort_rows(
            &[1.0, nan(), 0.0, nan()],
            4,
            Rows::Kth {
                k: 2,
                nan_first: true,
            },
        );
        assert!(v[0].is_nan() && i == [1]);
    }

    fn nan() -> f32 {
        f32::NAN
    }
}
