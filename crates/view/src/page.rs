//! The page: one self-contained HTML file (its style, its script and its
//! data inside; nothing fetched from anywhere) that draws one diagram, or
//! two side by side for a diff, with the findings listed beside them.
//!
//! The script (`page/view.js`) is written by hand: it draws on a canvas
//! only the rows and lanes in sight, so that a page of 100,000 events
//! scrolls as smoothly as one of ten.

use crate::diagram::Diagram;
use crate::findings::Finding;
use crate::layout::Link;
use serde::Serialize;
use trace_format::{Access, EventKind};

const TEMPLATE: &str = include_str!("page/view.html");
const STYLE: &str = include_str!("page/view.css");
const SCRIPT: &str = include_str!("page/view.js");

/// Everything a page shows.
#[derive(Clone, Debug, Serialize)]
pub struct Page {
    pub title: String,
    /// One diagram, or two for a diff (run a, then run b).
    pub runs: Vec<Diagram>,
    pub findings: Vec<Finding>,
    /// The command's text report, shown beside the findings.
    pub report: Option<String>,
    /// The names behind the diagram's codes.
    pub codes: Codes,
}

/// The names of the codes the diagram's columns hold.
#[derive(Clone, Debug, Serialize)]
pub struct Codes {
    pub kinds: Vec<&'static str>,
    pub links: Vec<&'static str>,
    pub access: Vec<&'static str>,
}

impl Default for Codes {
    fn default() -> Self {
        Codes {
            kinds: EventKind::ALL.iter().map(|k| k.name()).collect(),
            links: Link::NAMES.to_vec(),
            access: Access::ALL.iter().map(|a| a.name()).collect(),
        }
    }
}

impl Page {
    /// A page of one run.
    pub fn of(diagram: Diagram) -> Page {
        Page {
            title: diagram.title.clone(),
            runs: vec![diagram],
            findings: Vec::new(),
            report: None,
            codes: Codes::default(),
        }
    }

    /// The HTML text.
    pub fn html(&self) -> String {
        let data = serde_json::to_string(self).unwrap_or_else(|_| "null".into());
        fill(
            TEMPLATE,
            &[
                ("{{TITLE}}", &escape_html(&self.title)),
                ("{{STYLE}}", STYLE),
                ("{{DATA}}", &script_safe(&data)),
                ("{{SCRIPT}}", SCRIPT),
            ],
        )
    }
}

/// The template with each placeholder replaced, in one pass: what one
/// value holds is never taken for another's placeholder.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(k, _)| rest.starts_with(k)) {
            Some((k, v)) => {
                out.push_str(v);
                rest = &rest[k.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &rest[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text for HTML content and attributes.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON that can sit inside a `<script>` element: a `<` can only occur
/// inside a JSON string, where `\u003c` means the same, and without it
/// nothing in the data can close the element or open a comment.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_script_element() {
        let s = script_safe(r#"{"t":"</script><!-- x"}"#);
        assert!(!s.contains('<'), "{s}");
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["t"], "</script><!-- x");
    }

    #[test]
    fn placeholders_are_filled_once() {
        let t = fill("<{{A}}|{{B}}|{{C}}>", &[("{{A}}", "{{B}}"), ("{{B}}", "b")]);
        assert_eq!(t, "<{{B}}|b|{{C}}>");
    }

    #[test]
    fn titles_are_escaped() {
        assert_eq!(escape_html("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
    }
}
