//! The first few violations of millions: a property can be broken by
//! millions of events, of which only the first `detail` (in process order)
//! are described, so they are picked out without sorting all of them.

/// Leaves in `v` the first `n` items in order of `key`, sorted: exactly what
/// a stable sort followed by a truncation to `n` leaves, ties included, in
/// time linear in `v`'s length (plus sorting the `n` kept).
pub(crate) fn first_by_key<T, K: Ord + Copy>(v: &mut Vec<T>, n: usize, key: impl Fn(&T) -> K) {
    if v.len() > n {
        if n == 0 {
            v.clear();
            return;
        }
        let mut keys: Vec<K> = v.iter().map(&key).collect();
        let (_, &mut nth, _) = keys.select_nth_unstable(n - 1);
        // Everything below the n-th key is kept, and as many of the items
        // equal to it as fit, the earliest first (as a stable sort would).
        let mut ties = n - keys.iter().filter(|&&k| k < nth).count();
        v.retain(|x| match key(x).cmp(&nth) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal if ties > 0 => {
                ties -= 1;
                true
            }
            _ => false,
        });
    }
    v.sort_by_key(key);
}

#[cfg(test)]
mod tests {
    use super::first_by_key;

    #[test]
    fn same_as_a_stable_sort_then_truncate() {
        // Pairs sorted by their first element only: the second tells ties apart.
        let mut seed = 7u64;
        for len in 0..40 {
            for n in 0..45 {
                let v: Vec<(u8, usize)> = (0..len)
                    .map(|i| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        ((seed >> 60) as u8, i)
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_by_key(|x| x.0);
                want.truncate(n);
                let mut got = v;
                first_by_key(&mut got, n, |x| x.0);
                assert_eq!(got, want, "len {len} n {n}");
            }
        }
    }
}
