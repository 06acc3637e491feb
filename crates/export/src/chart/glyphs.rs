//! PNG text with each glyph where the font puts it.
//!
//! plotters 0.3.7 draws an ab_glyph outline from its pen position without the glyph's left
//! bearing, so narrow glyphs with a wide bearing (`1`, `i`, `l`) sit too far left and leave a
//! gap after them: "2169.4" read as "21 69.4". [`Glyphs`] wraps the bitmap backend and draws
//! text itself, the same layout (pen advance and kerning, anchors, rotation) with each glyph at
//! its pixel bounds. Everything else goes to the bitmap backend as it is. SVG is unaffected:
//! its text is drawn by the viewer. Text measured ([`text_width`]) is also fitted here: words
//! to a line ([`wrap`]) and a line cut with an ellipsis to its room ([`fit`]).

use ab_glyph::{Font, FontRef, ScaleFont};

use super::fonts;
use plotters::backend::BitMapBackend;
use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontStyle,
};

/// How far the pen moves over `text` (advances and kerning), in pixels.
fn advance<F: Font>(font: &ab_glyph::PxScaleFont<&F>, text: &str) -> f32 {
    let mut width = 0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        width += font.h_advance(id);
        if let Some(p) = prev {
            width += font.kern(p, id);
        }
        prev = Some(id);
    }
    width
}

/// The width of `text` in DejaVu Sans at `size` pixels, as a PNG draws it (an SVG viewer's own
/// sans-serif comes close): for laying text out to fit.
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let data = if bold {
        fonts::bold()
    } else {
        fonts::regular()
    };
    let font = FontRef::try_from_slice(data).expect("DejaVu Sans");
    advance(&font.as_scaled(size as f32), text) as f64
}

pub struct Glyphs<'a> {
    inner: BitMapBackend<'a>,
    regular: FontRef<'static>,
    bold: FontRef<'static>,
}

impl<'a> Glyphs<'a> {
    pub fn new(inner: BitMapBackend<'a>) -> Self {
        Glyphs {
            inner,
            regular: FontRef::try_from_slice(fonts::regular()).expect("DejaVu Sans"),
            bold: FontRef::try_from_slice(fonts::bold()).expect("DejaVu Sans Bold"),
        }
    }
}

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for Glyphs<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Error<'a>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let size = style.size();
        let font = match style.style() {
            FontStyle::Bold => &self.bold,
            _ => &self.regular,
        }
        .as_scaled(size as f32);
        // The same box plotters lays text out with, so anchors and label areas agree.
        let (width, height) = (advance(&font, text) as i32, (size / 1.24) as i32);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let trans = style.transform();
        let (w, h) = self.get_size();
        let mut pixels = Vec::new();
        let mut pen = 0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), ab_glyph::point(pen, 0.0));
            if let Some(outline) = font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                // Rounded down, all alike: `as` rounds toward zero, which put a digit's top
                // (above the baseline, negative) a pixel lower than a point's (below it) at
                // odd sizes, and "882.8" read "882·8".
                let left = bounds.min.x.floor() as i32;
                let top = ((size as f32) / 2.0 + bounds.min.y).floor() as i32;
                outline.draw(|x, y, coverage| {
                    pixels.push((left + x as i32, top + y as i32, coverage));
                });
            }
            pen += font.h_advance(id);
        }
        for (x, y, coverage) in pixels {
            let (x, y) = trans.transform(x + dx, y + dy);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                let alpha = color.alpha * f64::from(coverage);
                self.inner.draw_pixel(
                    (x, y),
                    BackendColor {
                        alpha,
                        rgb: color.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), Error<'a>> {
        self.inner.estimate_text_size(text, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.inner.blit_bitmap(pos, (iw, ih), src)
    }
}

/// `text` as the words that fit on one line of `room` pixels, and the rest.
pub(super) fn wrap(text: &str, size: u32, bold: bool, room: i32) -> (String, String) {
    let mut first = String::new();
    let mut words = text.split(' ').peekable();
    while let Some(word) = words.peek() {
        let longer = if first.is_empty() {
            word.to_string()
        } else {
            format!("{first} {word}")
        };
        if text_width(&longer, size as f64, bold) > room as f64 {
            break;
        }
        first = longer;
        words.next();
    }
    (first, words.collect::<Vec<_>>().join(" "))
}

/// `text`, cut with an ellipsis where it would run wider than `room` pixels at `size`.
pub(super) fn fit(text: &str, size: u32, bold: bool, room: i32) -> String {
    let fits = |t: &str| text_width(t, size as f64, bold) <= room as f64;
    if fits(text) {
        return text.to_string();
    }
    // The longest beginning that fits with its ellipsis, found by halving: no glyph is
    // narrower than a pixel, so at most `room` characters are ever measured, and a text of
    // 4,096 characters is measured a dozen times, not 4,096 (issue 59: a card of such texts
    // took 2.5 s, and 14 of them held every other card 9 s).
    let chars: Vec<char> = text.chars().take(room.max(0) as usize).collect();
    let cut = |n: usize| format!("{}…", chars[..n].iter().collect::<String>().trim_end());
    let (mut fitting, mut over) = (0, chars.len());
    while fitting + 1 < over {
        let middle = (fitting + over) / 2;
        if fits(&cut(middle)) {
            fitting = middle;
        } else {
            over = middle;
        }
    }
    cut(fitting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// A point sits on the baseline with the digits, at every size (at 13 px it sat a pixel
    /// above them).
    #[test]
    fn a_decimal_point_sits_on_the_baseline() {
        for size in 11..=16 {
            let (w, h) = (120u32, 40u32);
            let mut rgb = vec![255u8; (w * h * 3) as usize];
            {
                let root =
                    Glyphs::new(BitMapBackend::with_buffer(&mut rgb, (w, h))).into_drawing_area();
                super::super::fonts();
                root.draw(&Text::new(
                    "0.0",
                    (10, 5),
                    (super::super::FONT, size).into_font(),
                ))
                .unwrap();
                root.present().unwrap();
            }
            // The lowest inked row of each run of inked columns: the two zeros and the point.
            let inked = |x: u32| (0..h).any(|y| rgb[((y * w + x) * 3) as usize] < 160);
            let mut bottoms = Vec::new();
            let mut x = 0;
            while x < w {
                if inked(x) {
                    let start = x;
                    while x < w && inked(x) {
                        x += 1;
                    }
                    let bottom = (0..h)
                        .rev()
                        .find(|&y| (start..x).any(|c| rgb[((y * w + c) * 3) as usize] < 160))
                        .unwrap();
                    bottoms.push(bottom);
                }
                x += 1;
            }
            assert_eq!(bottoms.len(), 3, "size {size}: {bottoms:?}");
            assert!(
                bottoms.iter().all(|b| *b == bottoms[0]),
                "size {size}: the glyphs end at rows {bottoms:?}"
            );
        }
    }

    /// Each digit's ink starts where the font puts it: pen position plus the glyph's bearing.
    #[test]
    fn glyphs_sit_at_their_bearing() {
        let text = "21694";
        let (w, h) = (200u32, 40u32);
        let mut rgb = vec![255u8; (w * h * 3) as usize];
        {
            let root =
                Glyphs::new(BitMapBackend::with_buffer(&mut rgb, (w, h))).into_drawing_area();
            super::super::fonts();
            root.draw(&Text::new(
                text,
                (10, 5),
                (super::super::FONT, 24).into_font(),
            ))
            .unwrap();
            root.present().unwrap();
        }
        // Columns with any dark pixel, grouped into runs: one run per digit.
        let inked: Vec<bool> = (0..w)
            .map(|x| (0..h).any(|y| rgb[((y * w + x) * 3) as usize] < 128))
            .collect();
        let starts: Vec<i32> = (0..w as usize)
            .filter(|&x| inked[x] && (x == 0 || !inked[x - 1]))
            .map(|x| x as i32)
            .collect();
        let font = FontRef::try_from_slice(fonts::regular())
            .unwrap()
            .into_scaled(24.0);
        let mut pen = 0f32;
        let mut expected = Vec::new();
        for c in text.chars() {
            let id = font.glyph_id(c);
            let glyph = id.with_scale_and_position(font.scale(), ab_glyph::point(pen, 0.0));
            let bounds = font.outline_glyph(glyph).unwrap().px_bounds();
            expected.push(10 + bounds.min.x as i32);
            pen += font.h_advance(id);
        }
        assert_eq!(starts.len(), expected.len(), "{starts:?}");
        for (got, want) in starts.iter().zip(&expected) {
            assert!(
                (got - want).abs() <= 1,
                "ink at {starts:?}, expected {expected:?}"
            );
        }
    }

    #[test]
    fn long_text_is_cut_to_its_room() {
        assert_eq!(fit("vda · virtio", 10, false, 600), "vda · virtio");
        let cut = fit(&"x".repeat(200), 10, false, 60);
        assert!(cut.ends_with('…') && cut.chars().count() > 5, "{cut}");
        assert!(text_width(&cut, 10.0, false) <= 60.0);
        // The longest beginning that fits, however long the text.
        let text = "龘x".repeat(2048);
        let cut = fit(&text, 12, false, 300);
        let kept = cut.trim_end_matches('…').chars().count();
        let longer: String = text.chars().take(kept + 1).collect();
        assert!(text_width(&cut, 12.0, false) <= 300.0);
        assert!(text_width(&format!("{longer}…"), 12.0, false) > 300.0);
    }
}
