//! Tests paired into the rows of a table (`SEQ1M_Q8T1` read and write), as the terminal table,
//! the exports and comparisons show them.

use super::{ResultDoc, TestResult};

/// A table row: a row name (`SEQ1M_Q8T1`) with its read and write tests, as the terminal
/// table and the exports show them.
pub struct TestRow<'a> {
    pub name: String,
    pub read: Option<&'a TestResult>,
    pub write: Option<&'a TestResult>,
}

/// Tests paired into rows, in the order they ran: `X_read` and `X_write` share the row `X`; a
/// name without that suffix is a row of its own, on the side its op says.
pub fn rows(tests: &[TestResult]) -> Vec<TestRow<'_>> {
    let mut rows: Vec<TestRow> = Vec::new();
    for t in tests {
        let (name, op) = match t.name.rsplit_once('_') {
            Some((row, op @ ("read" | "write"))) => (row, op),
            _ => (t.name.as_str(), t.op.as_str()),
        };
        let index = match rows.iter().position(|r| r.name == name) {
            Some(i) => i,
            None => {
                rows.push(TestRow {
                    name: name.to_string(),
                    read: None,
                    write: None,
                });
                rows.len() - 1
            }
        };
        if op == "write" {
            rows[index].write = Some(t);
        } else {
            rows[index].read = Some(t);
        }
    }
    rows
}

/// The names of the tests in any of these runs, each once, in the order first seen.
pub fn test_names<'a>(docs: impl IntoIterator<Item = &'a ResultDoc>) -> Vec<&'a str> {
    let mut names: Vec<&str> = Vec::new();
    for doc in docs {
        for t in &doc.tests {
            if !names.contains(&t.name.as_str()) {
                names.push(&t.name);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sample;

    #[test]
    fn tests_pair_into_rows_in_the_order_they_ran() {
        let mut tests = sample::doc().tests;
        // A test without a direction in its name sits on the side its op says.
        tests.push(sample::result("DD4K", "write", 4096, 1.0, 1.0));
        let rows = rows(&tests);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SEQ1M_Q8T1",
                "SEQ1M_Q1T1",
                "RND4K_Q32T1",
                "RND4K_Q1T1",
                "DD4K"
            ]
        );
        assert_eq!(rows[0].read.unwrap().name, "SEQ1M_Q8T1_read");
        assert_eq!(rows[0].write.unwrap().name, "SEQ1M_Q8T1_write");
        assert!(rows[4].read.is_none() && rows[4].write.unwrap().name == "DD4K");
    }
}
