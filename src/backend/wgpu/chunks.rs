//! Note [Large tensors]: a storage binding is limited by the adapter (lavapipe: 128 MiB, most
//! Vulkan drivers: 2 GiB), and so is one buffer. A [`super::GpuBuffer`] longer than the
//! context's chunk (the largest power of two both allow) is held as several buffers of one
//! chunk each, every one bindable whole. A kernel that reads or writes such a buffer runs as
//! several dispatches, each over a box of its index space inside which every operand's
//! elements lie in one chunk: the box's offsets are rebased onto that chunk, the shader is the
//! same. [`plan`] cuts the boxes; the elementwise kernels (unary, binary, ternary, copy) run
//! over them, reductions go through copies into single-chunk blocks, and the other kernels
//! leave a chunked tensor to the host (`kernels/gpu.rs`).

/// An operand as the planner sees it: signed strides over the planned shape and the offset of
/// element 0, in words from the start of its (chunked) buffer.
#[derive(Clone, Copy, Debug)]
pub struct Strided<'a> {
    pub strides: &'a [isize],
    pub offset: usize,
}

/// One dispatch's share: the box `start .. start + shape` of the index space and, for each
/// operand, the chunk holding its elements there and the box's element 0 within that chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub start: Vec<usize>,
    pub shape: Vec<usize>,
    pub at: Vec<(usize, usize)>,
}

/// The lowest and one past the highest word `v` touches over the box (non-empty).
fn bounds(v: &Strided, start: &[usize], shape: &[usize]) -> (usize, usize) {
    let mut base = v.offset as isize;
    let (mut lo, mut hi) = (0isize, 0isize);
    for ((&s, &n), &st) in start.iter().zip(shape).zip(v.strides) {
        base += s as isize * st;
        let span = (n as isize - 1) * st;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    ((base + lo) as usize, (base + hi + 1) as usize)
}

/// Cuts the index space `shape` into boxes inside which every view stays in one chunk of
/// `chunk` words. A box that crosses a boundary is split along the dim that spreads the
/// offending view most, at the index where it crosses (halved when that is not inside the
/// box), so a contiguous or transposed tensor takes a few boxes per chunk. Empty for an empty
/// shape; every view must stay inside its buffer. With `rows`, only the outermost dim of
/// more than one index is split, so each box is a run of the index space's row-major order
/// (kernels that write their output contiguously need that).
pub fn plan(shape: &[usize], views: &[Strided], chunk: usize, rows: bool) -> Vec<Piece> {
    let mut out = Vec::new();
    if shape.contains(&0) {
        return out;
    }
    let mut todo = vec![(vec![0; shape.len()], shape.to_vec())];
    while let Some((start, dims)) = todo.pop() {
        let ranges: Vec<(usize, usize)> = views.iter().map(|v| bounds(v, &start, &dims)).collect();
        let Some(bad) = (0..views.len())
            .filter(|&k| ranges[k].0 / chunk != (ranges[k].1 - 1) / chunk)
            .max_by_key(|&k| ranges[k].1 - ranges[k].0)
        else {
            let at = views
                .iter()
                .zip(&ranges)
                .map(|(v, &(lo, _))| {
                    let first = bounds(v, &start, &vec![1; dims.len()]).0;
                    (lo / chunk, first - lo / chunk * chunk)
                })
                .collect();
            out.push(Piece {
                start,
                shape: dims,
                at,
            });
            continue;
        };
        // A box of one element lies in one chunk, so some dim here has more than one.
        let v = &views[bad];
        let mut split = (0..dims.len()).filter(|&d| dims[d] > 1);
        let d = if rows {
            split.next()
        } else {
            split.max_by_key(|&d| (dims[d] - 1) * v.strides[d].unsigned_abs())
        }
        .expect("a box crossing a chunk boundary has more than one element");
        let (lo, hi) = ranges[bad];
        let step = v.strides[d].unsigned_abs().max(1);
        // Indices along d move the view's lowest (stride > 0) or highest (< 0) word by `step`:
        // the first index past the boundary after lo (before hi) starts the second box.
        let cross = if v.strides[d] > 0 {
            (lo / chunk + 1) * chunk - lo
        } else {
            hi - (hi - 1) / chunk * chunk
        };
        let k = match cross.div_ceil(step) {
            k if k > 0 && k < dims[d] => k,
            _ => dims[d] / 2,
        };
        let (mut s2, mut d2) = (start.clone(), dims.clone());
        s2[d] += k;
        d2[d] -= k;
        let mut d1 = dims;
        d1[d] = k;
        todo.push((s2, d2));
        todo.push((start, d1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(strides: &[isize], offset: usize) -> Strided<'_> {
        Strided { strides, offset }
    }

    /// Every index of `shape` is in exactly one piece, and there each view's word is inside
    /// the piece's chunk at the rebased offset.
    fn check(shape: &[usize], views: &[Strided], chunk: usize) -> usize {
        let rows = plan(shape, views, chunk, true);
        for p in &rows {
            // A run of row-major order: dims before the innermost partial one hold one index.
            let partial = (0..shape.len()).rev().find(|&d| p.shape[d] != shape[d]);
            assert!(
                partial.is_none_or(|e| p.shape[..e].iter().all(|&n| n == 1)),
                "{p:?}"
            );
        }
        check_pieces(shape, views, chunk, &rows);
        let pieces = plan(shape, views, chunk, false);
        check_pieces(shape, views, chunk, &pieces)
    }

    fn check_pieces(shape: &[usize], views: &[Strided], chunk: usize, pieces: &[Piece]) -> usize {
        let n: usize = shape.iter().product();
        let mut seen = vec![0u8; n];
        for p in pieces {
            let count: usize = p.shape.iter().product();
            for flat in 0..count {
                let mut rem = flat;
                let mut local = vec![0; shape.len()];
                for d in (0..shape.len()).rev() {
                    local[d] = rem % p.shape[d];
                    rem /= p.shape[d];
                }
                let mut global = 0;
                for d in 0..shape.len() {
                    global = global * shape[d] + p.start[d] + local[d];
                }
                seen[global] += 1;
                for (v, &(c, off)) in views.iter().zip(&p.at) {
                    let word = (0..shape.len()).fold(v.offset as isize, |a, d| {
                        a + (p.start[d] + local[d]) as isize * v.strides[d]
                    }) as usize;
                    let rel = (off as isize
                        + (0..shape.len())
                            .map(|d| local[d] as isize * v.strides[d])
                            .sum::<isize>()) as usize;
                    assert_eq!(word, c * chunk + rel);
                    assert!(rel < chunk);
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
        pieces.len()
    }

    #[test]
    fn contiguous_splits_at_boundaries() {
        let s = [1isize];
        assert_eq!(check(&[100], &[view(&s, 0)], 32), 4);
        assert_eq!(check(&[100], &[view(&s, 5)], 32), 4);
        assert_eq!(check(&[10], &[view(&s, 3)], 32), 1);
        let rows = [7isize, 1];
        assert!(check(&[9, 7], &[view(&rows, 2)], 16) <= 12);
    }

    #[test]
    fn transposes_broadcasts_and_flips() {
        let (t, c) = ([1isize, 12], [12isize, 1]);
        let views = [view(&t, 0), view(&c, 0)];
        // Boundaries mid-row cut small boxes; aligned ones cut the 4x4 tiles of a transpose.
        check(&[12, 12], &views, 32);
        let (t, c) = ([1isize, 16], [16isize, 1]);
        let views = [view(&t, 0), view(&c, 0)];
        assert_eq!(check(&[16, 16], &views, 64), 16);
        let b = [0isize, 1];
        let views = [view(&b, 3), view(&c, 0)];
        check(&[12, 12], &views, 16);
        let f = [-12isize, -1];
        let views = [view(&f, 143), view(&c, 0)];
        check(&[12, 12], &views, 32);
        let p = [1isize, 60, 5];
        check(&[5, 2, 12], &[view(&p, 0)], 16);
    }

    #[test]
    fn small_and_empty() {
        let s = [1isize];
        let v = [view(&s, 0)];
        assert!(plan(&[0], &v, 8, false).is_empty());
        let one = plan(&[], &[view(&[], 9)], 8, true);
        assert_eq!(one[0].at, vec![(1, 1)]);
    }
}
