//! The charts' fonts, DejaVu Sans and DejaVu Sans Bold, deflated into the build: as the dejavu
//! crate holds them they are 1,462,760 bytes, and made the 64-bit Pi build 10,793,024 bytes,
//! where it must stay under 10 MB; deflated they are 737,268, and the build 10,081,112.
//! `chart::fonts` inflates each once, when a chart first needs it.

use std::io::Write;

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (name, bytes) in [
        ("DejaVuSans.ttf.z", dejavu::sans::regular()),
        ("DejaVuSans-Bold.ttf.z", dejavu::sans::bold()),
    ] {
        let mut deflated = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        deflated.write_all(bytes).expect("deflating into memory");
        let deflated = deflated.finish().expect("deflating into memory");
        std::fs::write(out.join(name), deflated).expect("writing into OUT_DIR");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
