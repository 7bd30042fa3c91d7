//! A tiny seeded PRNG (SplitMix64) and the content hash (FNV-1a) that names saved inputs.
//!
//! Our own rather than a crate: the harness needs a reproducible stream from a `u64` seed and
//! nothing else (no distributions, no OS entropy), and a crate's stream could change with its
//! version, which would make `--seed S` runs unrepeatable across updates.

/// SplitMix64 (Steele, Lea, Flood 2014): one add and three xor-shift-multiplies per draw; every
/// seed, including 0, gives a full-period stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0). The modulo bias is below 2⁻⁴⁰ for the sizes used
    /// here, which a fuzzer does not care about.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo).saturating_add(1))
    }

    /// True once in `n` draws on average.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> Option<&'a T> {
        xs.get(self.below(xs.len()))
    }

    /// A length biased to small values (half of the draws at most 8, a few up to `max`): most
    /// useful edits are small, a few big ones find the size-dependent bugs.
    pub fn small_len(&mut self, max: usize) -> usize {
        let cap = match self.below(8) {
            0..=3 => 8,
            4..=5 => 64,
            6 => 4096,
            _ => max,
        };
        self.range(1, cap.min(max).max(1))
    }
}

/// FNV-1a, 64 bits: a stable hash of bytes for file names (`crash-<hash>`) and outcome
/// signatures. Not for anything adversarial.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv::default();
    h.write(bytes);
    h.0
}

/// An FNV-1a hasher fed piece by piece.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub fn write_u64(&mut self, x: u64) {
        self.write(&x.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_stream() {
        // The first outputs of SplitMix64 seeded with 0 (as in the reference C implementation).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut r = Rng::new(7);
        for _ in 0..10_000 {
            assert!(r.below(3) < 3);
            let x = r.range(5, 9);
            assert!((5..=9).contains(&x));
            let l = r.small_len(100);
            assert!((1..=100).contains(&l));
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.small_len(0), 1);
        assert!(r.pick::<u8>(&[]).is_none());
    }

    #[test]
    fn fnv1a_known_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
