//! `iomark langs`: the 2019 byte-at-a-time experiment. Each language's program (in `langs/`,
//! compiled into this binary as text) writes N bytes one call at a time through its standard
//! buffered stream, closes the file, reads it back one call at a time and checks it; this
//! module finds the toolchains, builds the programs once into a cache, runs them as child
//! processes and checks everything they say.

mod measure;
pub mod program;
pub mod toolchain;

/// One language: its program's files, its variants, how to build and run it.
#[derive(Debug)]
pub struct Lang {
    pub name: &'static str,
    /// `(file name, text)` of the program's source files.
    pub sources: &'static [(&'static str, &'static str)],
    /// `(name, what it shows)`; the first is `default`.
    pub variants: &'static [(&'static str, &'static str)],
    /// Commands that must be on PATH.
    pub tools: &'static [&'static str],
    /// How to ask the runtime or compiler its version: a command and its arguments.
    pub version: &'static [&'static str],
    /// The build command, if compiled. `{src}` is the source folder, `{out}` the output folder.
    pub build: Option<&'static [&'static str]>,
    /// The command that runs the program, before its own arguments.
    pub run: &'static [&'static str],
    /// Runtime options a variant adds after the run command's first word (JVM flags).
    pub variant_options: &'static [(&'static str, &'static [&'static str])],
}

impl Lang {
    /// The run command for a variant: `run`, with the variant's runtime options.
    pub fn command_for(&self, command: &[String], variant: &str) -> Vec<String> {
        let extra = self
            .variant_options
            .iter()
            .find(|(v, _)| *v == variant)
            .map(|(_, o)| *o)
            .unwrap_or_default();
        let mut out = command.to_vec();
        for (i, option) in extra.iter().enumerate() {
            out.insert(1 + i, option.to_string());
        }
        out
    }
}

macro_rules! source {
    ($lang:literal, $file:literal) => {
        (
            $file,
            include_str!(concat!("../../../../langs/", $lang, "/", $file)),
        )
    };
}

/// The JVM option that made 2019's uncontended locks nearly free: on by default up to JDK 14,
/// off from 15, gone after 17 (where it is ignored rather than refused).
const BIASED: &[&str] = &["-XX:+IgnoreUnrecognizedVMOptions", "-XX:+UseBiasedLocking"];

pub use iomark_result::result::langs::VARIANT_2019;
pub use measure::measure;
const YEAR_2019: &str =
    "2019's program: its loops, flaws and timing (read through close and delete)";

pub const LANGS: &[Lang] = &[
    Lang {
        name: "c",
        sources: &[source!("c", "main.c")],
        variants: &[
            ("default", "fputc/fgetc on a stdio FILE"),
            ("unlocked", "putc_unlocked/getc_unlocked: no lock per call"),
            ("bigbuf", "fputc/fgetc with a 1 MiB setvbuf buffer"),
        ],
        tools: &["cc"],
        version: &["cc", "--version"],
        build: Some(&["cc", "-O2", "-o", "{out}/prog", "{src}/main.c"]),
        run: &["{out}/prog"],
        variant_options: &[],
    },
    Lang {
        name: "cpp",
        sources: &[source!("cpp", "main.cpp")],
        variants: &[
            ("default", "operator<< / >> (with noskipws), as in 2019"),
            ("putget", "ostream::put / istream::get"),
            ("rdbuf", "the stream buffer's sputc / sbumpc"),
            ("2019", YEAR_2019),
        ],
        tools: &["g++"],
        version: &["g++", "--version"],
        build: Some(&[
            "g++",
            "-O2",
            "-std=c++17",
            "-o",
            "{out}/prog",
            "{src}/main.cpp",
        ]),
        run: &["{out}/prog"],
        variant_options: &[],
    },
    Lang {
        name: "go",
        sources: &[source!("go", "main.go")],
        variants: &[
            (
                "default",
                "bufio WriteByte/ReadByte, 4 KiB, as in 2019 (plus Flush)",
            ),
            ("bigbuf", "bufio with 1 MiB buffers"),
            ("2019", YEAR_2019),
        ],
        tools: &["go"],
        version: &["go", "version"],
        build: Some(&["go", "build", "-o", "{out}/prog", "{src}/main.go"]),
        run: &["{out}/prog"],
        variant_options: &[],
    },
    Lang {
        name: "rust",
        sources: &[source!("rust", "main.rs")],
        variants: &[
            (
                "default",
                "BufWriter write_all(&[b]) / BufReader read_exact",
            ),
            ("bytes", "reads through the Read::bytes() iterator"),
            ("bigbuf", "1 MiB buffers"),
        ],
        tools: &["rustc"],
        version: &["rustc", "--version"],
        build: Some(&[
            "rustc",
            "-C",
            "opt-level=3",
            "-o",
            "{out}/prog",
            "{src}/main.rs",
        ]),
        run: &["{out}/prog"],
        variant_options: &[],
    },
    Lang {
        name: "java",
        sources: &[source!("java", "Main.java")],
        variants: &[
            ("default", "BufferedOutputStream/BufferedInputStream, 8 KiB"),
            ("bigbuf", "1 MiB buffers"),
            ("biased", "default, with JDK 8's biased locking (JDK <= 17)"),
        ],
        tools: &["javac", "java"],
        version: &["java", "-version"],
        build: Some(&["javac", "-d", "{out}", "{src}/Main.java"]),
        run: &["java", "-cp", "{out}", "Main"],
        variant_options: &[("biased", BIASED)],
    },
    Lang {
        name: "scala",
        sources: &[source!("scala", "Main.scala")],
        variants: &[
            ("default", "Buffered*Stream, 8 KiB, as in 2019"),
            ("bigbuf", "1 MiB buffers"),
            ("biased", "default, with JDK 8's biased locking (JDK <= 17)"),
            ("2019", YEAR_2019),
        ],
        tools: &["scalac", "scala"],
        version: &["scala", "-version"],
        build: Some(&["scalac", "-d", "{out}", "{src}/Main.scala"]),
        run: &["scala", "-cp", "{out}", "Main"],
        variant_options: &[(
            "biased",
            &[
                "-J-XX:+IgnoreUnrecognizedVMOptions",
                "-J-XX:+UseBiasedLocking",
            ],
        )],
    },
    Lang {
        name: "python",
        sources: &[source!("python", "main.py")],
        variants: &[
            (
                "default",
                "text mode, iso8859, write(chr(b)) / read(1), as in 2019",
            ),
            ("binary", "binary mode, write(bytes((b,))) / read(1)"),
            ("2019", YEAR_2019),
        ],
        tools: &["python3"],
        version: &["python3", "--version"],
        build: None,
        run: &["python3", "{src}/main.py"],
        variant_options: &[],
    },
    Lang {
        name: "ruby",
        sources: &[source!("ruby", "main.rb")],
        variants: &[
            ("default", "putc / getc in binary mode, as in 2019"),
            ("getbyte", "putc / getbyte: no String per byte read"),
            ("2019", YEAR_2019),
        ],
        tools: &["ruby"],
        version: &["ruby", "--version"],
        build: None,
        run: &["ruby", "{src}/main.rb"],
        variant_options: &[],
    },
    Lang {
        name: "node",
        sources: &[source!("node", "main.js")],
        variants: &[
            (
                "default",
                "fs streams: write(Buffer) with back-pressure / read(1)",
            ),
            ("manual", "a hand-kept 64 KiB buffer, writeSync/readSync"),
        ],
        tools: &["node"],
        version: &["node", "--version"],
        build: None,
        run: &["node", "{src}/main.js"],
        variant_options: &[],
    },
];

pub fn lang(name: &str) -> Option<&'static Lang> {
    LANGS.iter().find(|l| l.name == name)
}

/// The sum of the bytes 0,1,…,255,0,… of a file of `n` bytes: what every program must report.
pub fn expected_checksum(n: u64) -> u64 {
    let cycles = n / 256;
    let rest = n % 256;
    cycles * (255 * 256 / 2) + rest * (rest.saturating_sub(1)) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_by_formula_match_summing() {
        for n in [0u64, 1, 2, 255, 256, 257, 1000, 65_536 + 77] {
            let summed: u64 = (0..n).map(|i| i % 256).sum();
            assert_eq!(expected_checksum(n), summed, "{n}");
        }
    }

    #[test]
    fn a_variant_adds_its_runtime_options_after_the_runtime() {
        let java = lang("java").unwrap();
        let base: Vec<String> = ["java", "-cp", "out", "Main"].map(String::from).to_vec();
        assert_eq!(java.command_for(&base, "default"), base);
        assert_eq!(
            java.command_for(&base, "biased"),
            [
                "java",
                "-XX:+IgnoreUnrecognizedVMOptions",
                "-XX:+UseBiasedLocking",
                "-cp",
                "out",
                "Main"
            ]
        );
    }

    #[test]
    fn every_language_has_a_default_variant_and_its_sources() {
        for l in LANGS {
            assert_eq!(l.variants[0].0, "default", "{}", l.name);
            assert!(!l.sources.is_empty() && l.sources.iter().all(|(_, text)| text.len() > 100));
            for (_, text) in l.sources {
                // Each variant is documented in the program itself.
                for (variant, _) in l.variants {
                    assert!(text.contains(variant), "{}: {variant}", l.name);
                }
            }
        }
    }
}
