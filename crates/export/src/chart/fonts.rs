//! DejaVu Sans and its bold, as the charts draw them: deflated into the binary by `build.rs`
//! (half their size), inflated once here and kept for the process's life, as plotters' font
//! registry wants `'static` bytes.

use std::io::Read;
use std::sync::OnceLock;

/// The font deflated into `deflated`, inflated the first time it is asked for.
fn inflated(cell: &'static OnceLock<Vec<u8>>, deflated: &[u8]) -> &'static [u8] {
    cell.get_or_init(|| {
        let mut font = Vec::new();
        flate2::read::ZlibDecoder::new(deflated)
            .read_to_end(&mut font)
            .expect("the font deflated by build.rs inflates");
        font
    })
}

/// DejaVu Sans.
pub fn regular() -> &'static [u8] {
    static FONT: OnceLock<Vec<u8>> = OnceLock::new();
    inflated(
        &FONT,
        include_bytes!(concat!(env!("OUT_DIR"), "/DejaVuSans.ttf.z")),
    )
}

/// DejaVu Sans Bold.
pub fn bold() -> &'static [u8] {
    static FONT: OnceLock<Vec<u8>> = OnceLock::new();
    inflated(
        &FONT,
        include_bytes!(concat!(env!("OUT_DIR"), "/DejaVuSans-Bold.ttf.z")),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_fonts_inflate_to_what_dejavu_ships() {
        assert_eq!(super::regular(), dejavu::sans::regular());
        assert_eq!(super::bold(), dejavu::sans::bold());
    }
}
