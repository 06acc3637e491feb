//! What the site answers, as its clients read it (`iomark submit` a receipt and where the
//! result stands, `iomark health --share` and `--unshare` a card's receipt, both a refusal's
//! reason): the same types the handlers write, so that a field renamed is a build error at both
//! ends, never a wrong line at run time.

pub use crate::api::Receipt;
pub use crate::error::Refusal;
pub use crate::views::{Figure, Group, Standing};
pub use crate::watched::{CardReceipt, Withdrawn};

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_back<T>(answer: &T)
    where
        T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        let text = serde_json::to_string(answer).unwrap();
        assert_eq!(&serde_json::from_str::<T>(&text).unwrap(), answer, "{text}");
    }

    #[test]
    fn every_answer_a_client_reads_reads_back_as_written() {
        let group = |name: &str| Group {
            name: name.into(),
            results: 12,
            latest: false,
            percentile: Some(62.5),
            median: Some(88.25),
        };
        reads_back(&Receipt {
            id: "01KAQZ8X3NJ5T7W9Y1B3D5F7H9".into(),
            url: "https://example.org/results/01KAQZ8X3NJ5T7W9Y1B3D5F7H9".into(),
            token: "t".repeat(43),
            flag: None,
            standing: Some(Standing {
                figures: vec![Figure {
                    metric: "seq_read".into(),
                    label: "Sequential read".into(),
                    unit: "MB/s".into(),
                    value: 91.5,
                    model: Some(group("SanDisk Ultra 32GB results")),
                    kind: group("SD card results on Raspberry Pi 4 Model B"),
                    sentence: "Sequential read 91.5 MB/s: faster than 62% of them.".into(),
                }],
                summary: "Sequential read 91.5 MB/s: faster than 62% of them.".into(),
                advice: None,
            }),
        });
        reads_back(&Receipt {
            id: "01KAQZ8X3NJ5T7W9Y1B3D5F7H9".into(),
            url: "u".into(),
            token: "t".into(),
            flag: Some("synthetic".into()),
            standing: None,
        });
        reads_back(&CardReceipt {
            added: 3,
            again: 1,
            device: "sandisk-ultra-32gb".into(),
            url: "https://example.org/devices/sandisk-ultra-32gb".into(),
        });
        reads_back(&Withdrawn { checks: 7 });
        reads_back(&Refusal {
            error: "no such result".into(),
        });
    }
}
