//! Polynomials and rational functions with integer coefficients over numbered atoms: the exact
//! algebra behind program equivalence. Every operation is checked: coefficient overflow or a
//! blow-up in size gives [`TooBig`] instead of a wrong answer or a hang.

use std::collections::BTreeMap;

/// An expression grew past what equivalence checking supports (coefficients beyond i128,
/// exponents beyond u32, or more than [`MAX_TERMS`] terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooBig;

pub(crate) const MAX_TERMS: usize = 4096;

/// A product of atoms with positive exponents, sorted by atom.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Mono(Vec<(u32, u32)>);

impl Mono {
    fn mul(&self, other: &Mono) -> Result<Mono, TooBig> {
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        loop {
            match (a.get(i), b.get(j)) {
                (Some(&(x, p)), Some(&(y, q))) if x == y => {
                    out.push((x, p.checked_add(q).ok_or(TooBig)?));
                    i += 1;
                    j += 1;
                }
                (Some(&(x, p)), Some(&(y, _))) if x < y => {
                    out.push((x, p));
                    i += 1;
                }
                (_, Some(&t)) => {
                    out.push(t);
                    j += 1;
                }
                (Some(&t), None) => {
                    out.push(t);
                    i += 1;
                }
                (None, None) => return Ok(Mono(out)),
            }
        }
    }
}

/// A polynomial: monomial → nonzero coefficient.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Poly(BTreeMap<Mono, i128>);

impl Poly {
    pub fn constant(c: i128) -> Poly {
        let mut terms = BTreeMap::new();
        if c != 0 {
            terms.insert(Mono::default(), c);
        }
        Poly(terms)
    }

    pub fn atom(atom: u32) -> Poly {
        Poly(BTreeMap::from([(Mono(vec![(atom, 1)]), 1)]))
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn add_term(&mut self, mono: Mono, c: i128) -> Result<(), TooBig> {
        let entry = self.0.entry(mono);
        match entry {
            std::collections::btree_map::Entry::Occupied(mut e) => {
                let v = e.get().checked_add(c).ok_or(TooBig)?;
                if v == 0 {
                    e.remove();
                } else {
                    *e.get_mut() = v;
                }
            }
            std::collections::btree_map::Entry::Vacant(e) => {
                if c != 0 {
                    e.insert(c);
                }
            }
        }
        if self.0.len() > MAX_TERMS {
            return Err(TooBig);
        }
        Ok(())
    }

    pub fn add(&self, other: &Poly) -> Result<Poly, TooBig> {
        let mut out = self.clone();
        for (m, &c) in &other.0 {
            out.add_term(m.clone(), c)?;
        }
        Ok(out)
    }

    pub fn sub(&self, other: &Poly) -> Result<Poly, TooBig> {
        let mut out = self.clone();
        for (m, &c) in &other.0 {
            out.add_term(m.clone(), c.checked_neg().ok_or(TooBig)?)?;
        }
        Ok(out)
    }

    pub fn mul(&self, other: &Poly) -> Result<Poly, TooBig> {
        if self.0.len().saturating_mul(other.0.len()) > MAX_TERMS * 16 {
            return Err(TooBig);
        }
        let mut out = Poly::default();
        for (m1, &c1) in &self.0 {
            for (m2, &c2) in &other.0 {
                out.add_term(m1.mul(m2)?, c1.checked_mul(c2).ok_or(TooBig)?)?;
            }
        }
        Ok(out)
    }

    pub fn pow(&self, n: u32) -> Result<Poly, TooBig> {
        let mut out = Poly::constant(1);
        for _ in 0..n {
            out = out.mul(self)?;
        }
        Ok(out)
    }

    /// The largest monomial and its coefficient.
    fn leading(&self) -> Option<(&Mono, i128)> {
        self.0.iter().next_back().map(|(m, &c)| (m, c))
    }

    fn scale(&self, c: i128) -> Result<Poly, TooBig> {
        self.mul(&Poly::constant(c))
    }
}

/// Whether `p = (a/b) * q` for the ratio `a/b` of their leading coefficients; returns that ratio.
fn scalar_ratio(p: &Poly, q: &Poly) -> Result<Option<(i128, i128)>, TooBig> {
    match (p.leading(), q.leading()) {
        (None, None) => Ok(Some((0, 1))),
        (Some((mp, a)), Some((mq, b))) if mp == mq => {
            if p.scale(b)? == q.scale(a)? {
                Ok(Some((a, b)))
            } else {
                Ok(None)
            }
        }
        _ => Ok(None),
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i128::try_from(a).unwrap_or(1)
}

/// A quotient of polynomials (denominator never zero), kept unreduced: equality is decided by
/// cross-multiplication, which is exact for rational functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rat {
    num: Poly,
    den: Poly,
}

impl Rat {
    pub fn atom(atom: u32) -> Rat {
        Rat {
            num: Poly::atom(atom),
            den: Poly::constant(1),
        }
    }

    pub fn constant(c: i128) -> Rat {
        Rat {
            num: Poly::constant(c),
            den: Poly::constant(1),
        }
    }

    pub fn is_zero(&self) -> bool {
        self.num.is_zero()
    }

    pub fn add(&self, o: &Rat) -> Result<Rat, TooBig> {
        if self.den == o.den {
            return Ok(Rat {
                num: self.num.add(&o.num)?,
                den: self.den.clone(),
            });
        }
        Ok(Rat {
            num: self.num.mul(&o.den)?.add(&o.num.mul(&self.den)?)?,
            den: self.den.mul(&o.den)?,
        })
    }

    pub fn sub(&self, o: &Rat) -> Result<Rat, TooBig> {
        self.add(&Rat {
            num: Poly::default().sub(&o.num)?,
            den: o.den.clone(),
        })
    }

    pub fn mul(&self, o: &Rat) -> Result<Rat, TooBig> {
        Ok(Rat {
            num: self.num.mul(&o.num)?,
            den: self.den.mul(&o.den)?,
        })
    }

    /// `None` when dividing by an expression that is identically zero.
    pub fn div(&self, o: &Rat) -> Result<Option<Rat>, TooBig> {
        if o.is_zero() {
            return Ok(None);
        }
        Ok(Some(Rat {
            num: self.num.mul(&o.den)?,
            den: self.den.mul(&o.num)?,
        }))
    }

    /// `self^n` for an integer `n`; `None` for a zero base and a negative `n`.
    pub fn pow_int(&self, n: i64) -> Result<Option<Rat>, TooBig> {
        let e = u32::try_from(n.unsigned_abs()).map_err(|_| TooBig)?;
        let (num, den) = (self.num.pow(e)?, self.den.pow(e)?);
        if n >= 0 {
            Ok(Some(Rat { num, den }))
        } else if num.is_zero() {
            Ok(None)
        } else {
            Ok(Some(Rat { num: den, den: num }))
        }
    }

    /// Mathematical equality as rational functions.
    pub fn equals(&self, o: &Rat) -> Result<bool, TooBig> {
        Ok(self.num.mul(&o.den)? == o.num.mul(&self.den)?)
    }

    /// The value when the expression is a constant, as a reduced fraction `p/q` with `q > 0`.
    pub fn constant_value(&self) -> Result<Option<(i128, i128)>, TooBig> {
        if self.num.is_zero() {
            return Ok(Some((0, 1)));
        }
        let Some((a, b)) = scalar_ratio(&self.num, &self.den)? else {
            return Ok(None);
        };
        let g = gcd(a, b).max(1);
        let (a, b) = (a / g, b / g);
        Ok(Some(if b < 0 {
            (
                a.checked_neg().ok_or(TooBig)?,
                b.checked_neg().ok_or(TooBig)?,
            )
        } else {
            (a, b)
        }))
    }

    /// Whether `self = c * o` for some rational constant `c > 0` (two zeros count as multiples).
    pub fn positive_multiple_of(&self, o: &Rat) -> Result<bool, TooBig> {
        let p = self.num.mul(&o.den)?;
        let q = o.num.mul(&self.den)?;
        Ok(match scalar_ratio(&p, &q)? {
            Some((0, _)) => p.is_zero() && q.is_zero(),
            Some((a, b)) => (a > 0) == (b > 0),
            None => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Rat {
        Rat::atom(0)
    }
    fn y() -> Rat {
        Rat::atom(1)
    }

    #[test]
    fn rational_function_identities() -> Result<(), TooBig> {
        // (x - y) / y == x/y - y/y
        let lhs = x().sub(&y())?.div(&y())?.ok_or(TooBig)?;
        let rhs = x().div(&y())?.ok_or(TooBig)?.sub(&Rat::constant(1))?;
        assert!(lhs.equals(&rhs)?);
        // (x + y)^2 == x^2 + 2xy + y^2
        let sq = x().add(&y())?.pow_int(2)?.ok_or(TooBig)?;
        let expanded = x()
            .mul(&x())?
            .add(&x().mul(&y())?.mul(&Rat::constant(2))?)?
            .add(&y().mul(&y())?)?;
        assert!(sq.equals(&expanded)?);
        assert!(!x().equals(&y())?);
        // x / x is the constant 1; (x + x) / x is 2; x - x is 0.
        assert_eq!(
            x().div(&x())?.ok_or(TooBig)?.constant_value()?,
            Some((1, 1))
        );
        let two = x().add(&x())?.div(&x())?.ok_or(TooBig)?;
        assert_eq!(two.constant_value()?, Some((2, 1)));
        assert_eq!(x().sub(&x())?.constant_value()?, Some((0, 1)));
        let half = x().div(&x().add(&x())?)?.ok_or(TooBig)?;
        assert_eq!(half.constant_value()?, Some((1, 2)));
        let neg = x().div(&Rat::constant(0).sub(&x())?)?.ok_or(TooBig)?;
        assert_eq!(neg.constant_value()?, Some((-1, 1)));
        assert_eq!(x().constant_value()?, None);
        assert_eq!(x().div(&x().sub(&x())?)?, None);
        assert_eq!(x().sub(&x())?.pow_int(-1)?, None);
        Ok(())
    }

    #[test]
    fn positive_multiples() -> Result<(), TooBig> {
        let d = x().sub(&y())?;
        let d2 = d.mul(&Rat::constant(2))?;
        assert!(d2.positive_multiple_of(&d)?);
        assert!(!Rat::constant(0).sub(&d)?.positive_multiple_of(&d)?);
        assert!(!d.mul(&y())?.positive_multiple_of(&d)?);
        assert!(Rat::constant(0).positive_multiple_of(&Rat::constant(0))?);
        assert!(!Rat::constant(0).positive_multiple_of(&d)?);
        Ok(())
    }

    #[test]
    fn growth_is_bounded() {
        let mut p = x().add(&y()).expect("small");
        let mut failed = false;
        for _ in 0..40 {
            match p.mul(&p) {
                Ok(q) => p = q,
                Err(TooBig) => {
                    failed = true;
                    break;
                }
            }
        }
        assert!(failed, "squaring (x+y) 40 times must hit the size limit");
        assert_eq!(Rat::constant(i128::MAX).add(&Rat::constant(1)), Err(TooBig));
    }
}
