//! Chart themes: colour roles, the light and dark palettes, and the CSS that re-themes a chart.
//!
//! Every painted SVG element carries a class naming its role and property (`ebc-fill-s0`,
//! `ebc-stroke-grid`, …) *and* a presentation attribute with the colour of the theme it was drawn
//! for. Presentation attributes lose to any CSS rule, so a page can switch an already drawn chart
//! to the other theme with [`theme_css`] (e.g. inside `@media (prefers-color-scheme: dark)`),
//! while the SVG on its own (a file, an `<img>`) still shows the theme it was made with.
//!
//! Series colours follow Okabe & Ito's colour-blind-safe palette, reordered per theme so the first
//! series has good contrast on that background.

use std::fmt::Write as _;

/// The colour theme a chart is drawn for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Theme {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on near-black.
    Dark,
}

impl Theme {
    /// `light` or `dark`, used in the root element's class (`ebc-light`).
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// How many distinct series colours there are; series beyond that reuse them in order.
pub(crate) const N_SERIES: usize = 8;

/// What a colour is for; names the CSS classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Bg,
    Text,
    Muted,
    Axis,
    Grid,
    Series(usize),
}

impl Role {
    pub(crate) fn name(self) -> String {
        match self {
            Role::Bg => "bg".into(),
            Role::Text => "text".into(),
            Role::Muted => "muted".into(),
            Role::Axis => "axis".into(),
            Role::Grid => "grid".into(),
            Role::Series(i) => format!("s{}", i % N_SERIES),
        }
    }
}

/// An sRGB colour.
pub(crate) type Rgb = (u8, u8, u8);

/// Concrete colours of one theme. Every colour is distinct, so the SVG backend can tell an
/// element's role from the colour plotters hands it.
pub(crate) struct Palette {
    pub(crate) bg: Rgb,
    pub(crate) text: Rgb,
    pub(crate) muted: Rgb,
    pub(crate) axis: Rgb,
    pub(crate) grid: Rgb,
    pub(crate) series: [Rgb; N_SERIES],
}

const LIGHT: Palette = Palette {
    bg: (0xFF, 0xFF, 0xFF),
    text: (0x1F, 0x23, 0x28),
    muted: (0x59, 0x63, 0x6E),
    axis: (0x6E, 0x77, 0x81),
    grid: (0xDD, 0xE1, 0xE6),
    // Okabe–Ito: blue, orange, bluish green, vermillion, reddish purple, sky blue, black, yellow.
    series: [
        (0x00, 0x72, 0xB2),
        (0xE6, 0x9F, 0x00),
        (0x00, 0x9E, 0x73),
        (0xD5, 0x5E, 0x00),
        (0xCC, 0x79, 0xA7),
        (0x56, 0xB4, 0xE9),
        (0x00, 0x00, 0x00),
        (0xF0, 0xE4, 0x42),
    ],
};

const DARK: Palette = Palette {
    bg: (0x16, 0x18, 0x1D),
    text: (0xE6, 0xED, 0xF3),
    muted: (0x9D, 0xA7, 0xB3),
    axis: (0x8B, 0x94, 0x9E),
    grid: (0x33, 0x39, 0x41),
    // Okabe–Ito: sky blue, orange, bluish green, vermillion, reddish purple, yellow, blue, white.
    series: [
        (0x56, 0xB4, 0xE9),
        (0xE6, 0x9F, 0x00),
        (0x00, 0x9E, 0x73),
        (0xD5, 0x5E, 0x00),
        (0xCC, 0x79, 0xA7),
        (0xF0, 0xE4, 0x42),
        (0x00, 0x72, 0xB2),
        (0xFF, 0xFF, 0xFF),
    ],
};

impl Palette {
    pub(crate) fn of(theme: Theme) -> &'static Palette {
        match theme {
            Theme::Light => &LIGHT,
            Theme::Dark => &DARK,
        }
    }

    pub(crate) fn color(&self, role: Role) -> Rgb {
        match role {
            Role::Bg => self.bg,
            Role::Text => self.text,
            Role::Muted => self.muted,
            Role::Axis => self.axis,
            Role::Grid => self.grid,
            Role::Series(i) => self.series[i % N_SERIES],
        }
    }

    pub(crate) fn roles() -> impl Iterator<Item = Role> {
        [Role::Bg, Role::Text, Role::Muted, Role::Axis, Role::Grid]
            .into_iter()
            .chain((0..N_SERIES).map(Role::Series))
    }

    /// The role whose colour is `rgb`, if any.
    pub(crate) fn role_of(&self, rgb: Rgb) -> Option<Role> {
        Self::roles().find(|r| self.color(*r) == rgb)
    }
}

pub(crate) fn hex(rgb: Rgb) -> String {
    format!("#{:02X}{:02X}{:02X}", rgb.0, rgb.1, rgb.2)
}

/// CSS rules that paint every chart element with `theme`'s colours, whatever theme the chart was
/// drawn with. Wrap it in a media query or a theme selector to switch charts with the page, e.g.
/// `@media (prefers-color-scheme: dark) { <theme_css(Theme::Dark)> }`.
pub fn theme_css(theme: Theme) -> String {
    let p = Palette::of(theme);
    let mut css = String::new();
    for role in Palette::roles() {
        let (name, c) = (role.name(), hex(p.color(role)));
        let _ = writeln!(
            css,
            ".ebc-fill-{name}{{fill:{c}}}.ebc-stroke-{name}{{stroke:{c}}}"
        );
    }
    css
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_distinct_so_roles_round_trip() {
        for theme in [Theme::Light, Theme::Dark] {
            let p = Palette::of(theme);
            for role in Palette::roles() {
                assert_eq!(p.role_of(p.color(role)), Some(role), "{theme:?} {role:?}");
            }
        }
    }

    #[test]
    fn css_names_every_role() {
        let css = theme_css(Theme::Dark);
        assert!(css.contains(".ebc-fill-s0{fill:#56B4E9}"));
        assert!(css.contains(".ebc-stroke-grid{stroke:#333941}"));
        assert_eq!(css.lines().count(), 5 + N_SERIES);
    }
}
