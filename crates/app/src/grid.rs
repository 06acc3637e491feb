//! The grid people know from CrystalDiskMark: a row per test (`SEQ1M Q8T1`), its read and
//! write side by side in tiles, the figure large and its unit small. A run's page fills it as
//! each test ends (the script fills it live, `ui.js`); a result's page draws it from the
//! document, above the verdicts and the whole report. Figures as `iomark run`'s table writes
//! them: MB/s to two decimals.

use askama::Template;
use iomark_result::result::ResultDoc;

/// A row: a test's name without its direction, and its read and write figures so far.
pub struct Row {
    /// `SEQ1M_Q8T1`: what the script finds the row by.
    pub key: String,
    /// `SEQ1M`, `Q8T1`: the label's two lines.
    pub block: String,
    pub depth: String,
    pub read: String,
    pub write: String,
}

/// The tiles, in the order the tests came.
#[derive(Default, Template)]
#[template(path = "grid.html")]
pub struct Grid {
    pub rows: Vec<Row>,
}

impl Grid {
    /// Puts test `test`'s figure (`SEQ1M_Q8T1_read`, MB/s) in its tile.
    pub fn put(&mut self, test: &str, mb_per_s: f64) {
        let (key, op) = test.rsplit_once('_').unwrap_or((test, ""));
        let index = match self.rows.iter().position(|r| r.key == key) {
            Some(i) => i,
            None => {
                let (block, depth) = key.split_once('_').unwrap_or((key, ""));
                self.rows.push(Row {
                    key: key.to_string(),
                    block: block.to_string(),
                    depth: depth.replace('_', " "),
                    read: "–".into(),
                    write: "–".into(),
                });
                self.rows.len() - 1
            }
        };
        let figure = format!("{mb_per_s:.2}");
        match op {
            "write" => self.rows[index].write = figure,
            _ => self.rows[index].read = figure,
        }
    }

    /// A saved run's tests.
    pub fn of(doc: &ResultDoc) -> Grid {
        let mut grid = Grid::default();
        for t in &doc.tests {
            grid.put(&t.name, t.mb_per_s);
        }
        grid
    }
}

/// The grid's own styles, for the pages that carry only their own (a result's report).
pub const STYLE: &str = include_str!("grid.css");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_test_fills_its_row_s_tile_in_the_order_they_came() {
        let mut grid = Grid::default();
        grid.put("SEQ1M_Q8T1_read", 1234.567);
        grid.put("RND4K_Q1T1_write", 9.876);
        grid.put("SEQ1M_Q8T1_write", 88.0);
        let rows: Vec<_> = grid
            .rows
            .iter()
            .map(|r| {
                (
                    r.key.as_str(),
                    r.block.as_str(),
                    r.depth.as_str(),
                    r.read.as_str(),
                    r.write.as_str(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("SEQ1M_Q8T1", "SEQ1M", "Q8T1", "1234.57", "88.00"),
                ("RND4K_Q1T1", "RND4K", "Q1T1", "–", "9.88"),
            ]
        );
        let html = grid.render().unwrap();
        assert!(html.contains(r#"data-test="SEQ1M_Q8T1_read""#), "{html}");
    }
}
