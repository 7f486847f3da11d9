//! The tables benchmarks print: aligned columns, one row per benchmark.

/// A table printed as aligned text (and easy to paste into a closing note).
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; rows are printed by [`Table::print`] once the group is done.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Prints the table as a Markdown table with aligned columns.
    pub fn print(&self) {
        let n = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(n) {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::from("|");
            for (i, w) in widths.iter().enumerate() {
                let c = cells.get(i).map(String::as_str).unwrap_or("");
                s.push_str(&format!(" {c:<w$} |"));
            }
            println!("{s}");
        };
        line(&self.headers);
        println!(
            "|{}",
            widths
                .iter()
                .map(|w| format!("{}|", "-".repeat(w + 2)))
                .collect::<String>()
        );
        for r in &self.rows {
            line(r);
        }
    }
}

/// `a / b` as a ratio cell (`2.31x`), or `-` when either is missing.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "-".into(),
    }
}

/// Seconds as a cell (`1.234 s`, `12.3 ms`), or `-`.
pub fn secs(s: Option<f64>) -> String {
    match s {
        Some(s) if s >= 1.0 => format!("{s:.3} s"),
        Some(s) => format!("{:.1} ms", s * 1e3),
        None => "-".into(),
    }
}

/// Kilobytes as a cell (`912 MB`, `5.1 MB`), or `-`.
pub fn kilobytes(kb: Option<u64>) -> String {
    match kb {
        Some(k) if k >= 100 * 1024 => format!("{} MB", k / 1024),
        Some(k) => format!("{:.1} MB", k as f64 / 1024.0),
        None => "-".into(),
    }
}
