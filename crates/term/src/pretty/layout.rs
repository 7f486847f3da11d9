//! The second pass of `~p`: where lines break and how continuation lines are
//! indented (`io_lib_pretty`'s `pp` and `cind`), replicated rule for rule so
//! that output matches OTP 25 byte for byte.
//!
//! The variables keep OTP's meaning: `col` is the current column, `ll` the
//! line length, `m` the most characters allowed on a line (here the whole
//! term's length), `tind` the indentation of a tagged tuple's elements (chosen
//! once by `cind`), `ind` the indentation of continuation lines, `ld` the
//! number of closing brackets that will follow ("last depth"), and `w` the
//! width already used on the current line.

use super::measure::{End, Kind, Piece, Seq};

/// `cind` gave up: this indentation would push text past half the line.
pub(super) struct NoGood;

pub(super) struct Layout {
    pub ll: i64,
    pub m: i64,
    pub tind: i64,
}

fn spaces(out: &mut String, n: i64) {
    out.extend(std::iter::repeat_n(' ', n.max(0) as usize));
}

fn newline(out: &mut String, ind: i64) {
    out.push('\n');
    spaces(out, ind);
}

/// Writes a piece on one line.
pub(super) fn write(out: &mut String, p: &Piece) {
    match &p.kind {
        Kind::Text(s) => out.push_str(s),
        Kind::Bin(segs) => {
            out.push_str("<<");
            out.push_str(&segs.join(","));
            out.push_str(">>");
        }
        Kind::List(seq) => write_seq(out, "[", seq, '|', "]"),
        Kind::Tuple(_, seq) => write_seq(out, "{", seq, ',', "}"),
        Kind::Map(seq) => write_seq(out, "#{", seq, ',', "}"),
        Kind::Pair(k, v) => {
            write(out, k);
            out.push_str(" => ");
            write(out, v);
        }
    }
}

fn write_seq(out: &mut String, open: &str, seq: &Seq, sep: char, close: &str) {
    out.push_str(open);
    for (i, p) in seq.items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, p);
    }
    let lead = !seq.items.is_empty();
    match &seq.end {
        End::Nil => {}
        End::Dots => {
            if lead {
                out.push(sep);
            }
            out.push_str("...");
        }
        End::Tail(t) => {
            out.push(sep);
            write(out, t);
        }
    }
    out.push_str(close);
}

/// `last_depth`: closing brackets after element `i` of `seq` — none while
/// more elements follow, one more than the enclosing ones after the last.
fn last_depth(seq: &Seq, i: usize, ld: i64) -> i64 {
    if i + 1 < seq.items.len() {
        0
    } else {
        ld + 1
    }
}

impl Layout {
    fn fits(&self, len: i64, col: i64, ld: i64, w: i64) -> bool {
        len < self.ll - col - ld && len + w + ld <= self.m
    }

    /// Whether the next element may follow on the current line.
    fn fits_after(&self, len: i64, col: i64, ld1: i64, w: i64) -> bool {
        let elen = 1 + len;
        if ld1 == 0 {
            elen + 1 < self.ll - col && w + elen < self.m
        } else {
            elen < self.ll - col - ld1 && w + elen + ld1 <= self.m
        }
    }

    pub(super) fn pp(&self, out: &mut String, p: &Piece, col: i64, ind: i64, ld: i64, w: i64) {
        if self.fits(p.len, col, ld, w) {
            return write(out, p);
        }
        match &p.kind {
            Kind::List(seq) => {
                out.push('[');
                self.pp_list(out, seq, col + 1, ind + 1, ld, '|', w + 1);
                out.push(']');
            }
            Kind::Tuple(true, seq) => {
                out.push('{');
                self.pp_tag_tuple(out, seq, col, ind, ld, w + 1);
                out.push('}');
            }
            Kind::Tuple(false, seq) => {
                out.push('{');
                self.pp_list(out, seq, col + 1, ind + 1, ld, ',', w + 1);
                out.push('}');
            }
            Kind::Map(seq) => {
                out.push_str("#{");
                self.pp_map(out, seq, col + 2, ind + 2, ld, w + 1);
                out.push('}');
            }
            Kind::Bin(segs) => self.pp_binary(out, segs, col + 2, ind + 2, ld, w),
            Kind::Text(_) | Kind::Pair(..) => write(out, p),
        }
    }

    fn pp_tag_tuple(&self, out: &mut String, seq: &Seq, col: i64, ind: i64, ld: i64, w: i64) {
        let tag = &seq.items[0];
        let tag_ind = tag.len + 2;
        let tcol = col + tag_ind;
        write(out, tag);
        if self.tind > 0 && tag_ind > self.tind {
            self.pp_tail(
                out,
                seq,
                1,
                col + self.tind,
                tcol,
                ind + self.tind,
                ld,
                ',',
                w + tag.len,
            );
        } else {
            out.push(',');
            self.pp_list_from(out, seq, 1, tcol, ind + tag_ind, ld, ',', w + tag.len + 1);
        }
    }

    fn pp_map(&self, out: &mut String, seq: &Seq, col: i64, ind: i64, ld: i64, w: i64) {
        let Some(first) = seq.items.first() else {
            if matches!(seq.end, End::Dots) {
                out.push_str("...");
            }
            return;
        };
        let pw = self.pp_pair(out, first, col, ind, last_depth(seq, 0, ld), w);
        let (mut cur, mut w) = (col + pw, pw);
        for (i, p) in seq.items.iter().enumerate().skip(1) {
            let ld1 = last_depth(seq, i, ld);
            if self.fits_after(p.len, cur, ld1, w) && p.is_text() {
                out.push(',');
                write(out, p);
                cur += 1 + p.len;
                w += 1 + p.len;
            } else {
                out.push(',');
                newline(out, ind);
                let pw = self.pp_pair(out, p, col, ind, ld1, 0);
                cur = col + pw;
                w = pw;
            }
        }
        if matches!(seq.end, End::Dots) {
            out.push_str(",...");
        }
    }

    fn pp_pair(&self, out: &mut String, p: &Piece, col: i64, ind: i64, ld: i64, w: i64) -> i64 {
        if self.fits(p.len, col, ld, w) {
            write(out, p);
            return if p.is_text() { p.len } else { self.ll };
        }
        if let Kind::Pair(k, v) = &p.kind {
            let i = map_value_indent(self.tind);
            self.pp(out, k, col, ind, ld, w);
            out.push_str(" =>");
            newline(out, ind + i);
            self.pp(out, v, col + i, ind + i, ld, 0);
        }
        self.ll
    }

    #[allow(clippy::too_many_arguments)]
    fn pp_list(
        &self,
        out: &mut String,
        seq: &Seq,
        col0: i64,
        ind: i64,
        ld: i64,
        sep: char,
        w: i64,
    ) {
        self.pp_list_from(out, seq, 0, col0, ind, ld, sep, w)
    }

    /// `pp_list` on the elements of `seq` from `start` on.
    #[allow(clippy::too_many_arguments)]
    fn pp_list_from(
        &self,
        out: &mut String,
        seq: &Seq,
        start: usize,
        col0: i64,
        ind: i64,
        ld: i64,
        sep: char,
        w: i64,
    ) {
        let Some(first) = seq.items.get(start) else {
            // Only the cut is left.
            out.push_str("...");
            return;
        };
        let we = self.pp_element(out, first, col0, ind, last_depth(seq, start, ld), w);
        self.pp_tail(out, seq, start + 1, col0, col0 + we, ind, ld, sep, w + we);
    }

    /// `pp_tail`: the elements of `seq` from `start` on, each after a comma,
    /// then the sequence's end.
    #[allow(clippy::too_many_arguments)]
    fn pp_tail(
        &self,
        out: &mut String,
        seq: &Seq,
        start: usize,
        col0: i64,
        col: i64,
        ind: i64,
        ld: i64,
        sep: char,
        w: i64,
    ) {
        let (mut cur, mut w) = (col, w);
        for i in start..seq.items.len() {
            let e = &seq.items[i];
            let ld1 = last_depth(seq, i, ld);
            if self.fits_after(e.len, cur, ld1, w) && e.is_text() {
                out.push(',');
                write(out, e);
                cur += 1 + e.len;
                w += 1 + e.len;
            } else {
                out.push(',');
                newline(out, ind);
                let we = self.pp_element(out, e, col0, ind, ld1, 0);
                cur = col0 + we;
                w = we;
            }
        }
        match &seq.end {
            End::Nil => {}
            End::Dots => {
                out.push(sep);
                out.push_str("...");
            }
            End::Tail(t) => {
                let fits =
                    t.len + 1 < self.ll - cur - (ld + 1) && t.len + 1 + w + (ld + 1) <= self.m;
                out.push(sep);
                if fits && t.is_text() {
                    write(out, t);
                } else {
                    newline(out, ind);
                    self.pp(out, t, col0, ind, ld + 1, 0);
                }
            }
        }
    }

    fn pp_element(&self, out: &mut String, e: &Piece, col: i64, ind: i64, ld: i64, w: i64) -> i64 {
        if self.fits(e.len, col, ld, w) && e.is_text() {
            write(out, e);
            e.len
        } else {
            self.pp(out, e, col, ind, ld, w);
            self.ll
        }
    }

    /// Byte segments of a binary, breaking lines before a segment that would
    /// pass the room left.
    fn pp_binary(&self, out: &mut String, segs: &[String], col: i64, ind: i64, ld: i64, w: i64) {
        let n0 = 8.max((self.ll - col).min(self.m - 4 - w) - ld);
        let mut n = n0;
        out.push_str("<<");
        for (i, s) in segs.iter().enumerate() {
            let len = s.len() as i64;
            if i + 1 < segs.len() {
                if n - (len + 1) < 0 {
                    newline(out, ind);
                    n = n0 - (len + 1);
                } else {
                    n -= len + 1;
                }
                out.push_str(s);
                out.push(',');
            } else {
                if len > n {
                    newline(out, ind);
                }
                out.push_str(s);
            }
        }
        out.push_str(">>");
    }
}

fn map_value_indent(tind: i64) -> i64 {
    if tind > 0 {
        tind
    } else {
        4
    }
}

/// `cind`: checks that indentation `ind` for tagged tuples keeps the text
/// within bounds; `Err` when it does not.
pub(super) fn cind(
    p: &Piece,
    col: i64,
    ll: i64,
    m: i64,
    ind: i64,
    ld: i64,
    w: i64,
) -> Result<i64, NoGood> {
    let c = Cind { ll, m, ind };
    c.cind(p, col, ld, w)?;
    Ok(ind)
}

struct Cind {
    ll: i64,
    m: i64,
    ind: i64,
}

impl Cind {
    fn lay(&self) -> Layout {
        Layout {
            ll: self.ll,
            m: self.m,
            tind: self.ind,
        }
    }

    fn cind(&self, p: &Piece, col: i64, ld: i64, w: i64) -> Result<(), NoGood> {
        if self.lay().fits(p.len, col, ld, w) {
            return Ok(());
        }
        match &p.kind {
            Kind::List(seq) | Kind::Tuple(false, seq) => self.cind_list(seq, 0, col + 1, ld, w + 1),
            Kind::Tuple(true, seq) => self.cind_tag_tuple(seq, col, ld, w + 1),
            Kind::Map(seq) => self.cind_map(seq, col + 2, ld, w + 2),
            _ => Ok(()),
        }
    }

    fn cind_tag_tuple(&self, seq: &Seq, col: i64, ld: i64, w: i64) -> Result<(), NoGood> {
        let tlen = seq.items[0].len;
        let tag_ind = tlen + 2;
        let tcol = col + tag_ind;
        if self.ind > 0 && tag_ind > self.ind {
            let col1 = col + self.ind;
            if self.m + col1 <= self.ll || col1 <= self.ll / 2 {
                self.cind_tail(seq, 1, col1, tcol, ld, w + tlen)
            } else {
                Err(NoGood)
            }
        } else if self.m + tcol < self.ll || tcol < self.ll / 2 {
            self.cind_list(seq, 1, tcol, ld, w + tlen + 1)
        } else {
            Err(NoGood)
        }
    }

    fn cind_map(&self, seq: &Seq, col: i64, ld: i64, w: i64) -> Result<(), NoGood> {
        let Some(first) = seq.items.first() else {
            return Ok(());
        };
        let pw = self.cind_pair(first, col, last_depth(seq, 0, ld), w)?;
        let (mut cur, mut w) = (col + pw, w + pw);
        let lay = self.lay();
        for (i, p) in seq.items.iter().enumerate().skip(1) {
            let ld1 = last_depth(seq, i, ld);
            if lay.fits_after(p.len, cur, ld1, w) && p.is_text() {
                cur += 1 + p.len;
                w += 1 + p.len;
            } else {
                let pw = self.cind_pair(p, col, ld1, 0)?;
                cur = col + pw;
                w = pw;
            }
        }
        Ok(())
    }

    fn cind_pair(&self, p: &Piece, col: i64, ld: i64, w: i64) -> Result<i64, NoGood> {
        if self.lay().fits(p.len, col, ld, w) {
            return Ok(if p.is_text() { p.len } else { self.ll });
        }
        if let Kind::Pair(k, v) = &p.kind {
            self.cind(k, col, ld, w)?;
            self.cind(v, col + map_value_indent(self.ind), ld, 0)?;
        }
        Ok(self.ll)
    }

    fn cind_list(&self, seq: &Seq, start: usize, col0: i64, ld: i64, w: i64) -> Result<(), NoGood> {
        let Some(first) = seq.items.get(start) else {
            return Ok(());
        };
        let we = self.cind_element(first, col0, last_depth(seq, start, ld), w)?;
        self.cind_tail(seq, start + 1, col0, col0 + we, ld, w + we)
    }

    fn cind_tail(
        &self,
        seq: &Seq,
        start: usize,
        col0: i64,
        col: i64,
        ld: i64,
        w: i64,
    ) -> Result<(), NoGood> {
        let lay = self.lay();
        let (mut cur, mut w) = (col, w);
        for i in start..seq.items.len() {
            let e = &seq.items[i];
            let ld1 = last_depth(seq, i, ld);
            if lay.fits_after(e.len, cur, ld1, w) && e.is_text() {
                cur += 1 + e.len;
                w += 1 + e.len;
            } else {
                let we = self.cind_element(e, col0, ld1, 0)?;
                cur = col0 + we;
                w = we;
            }
        }
        if let End::Tail(t) = &seq.end {
            let fits = t.len + 1 < self.ll - cur - (ld + 1) && t.len + 1 + w + (ld + 1) <= self.m;
            if !(fits && t.is_text()) {
                // OTP measures an improper tail from the current column here.
                self.cind(t, cur, ld + 1, 0)?;
            }
        }
        Ok(())
    }

    fn cind_element(&self, e: &Piece, col: i64, ld: i64, w: i64) -> Result<i64, NoGood> {
        if self.lay().fits(e.len, col, ld, w) && e.is_text() {
            Ok(e.len)
        } else {
            self.cind(e, col, ld, w)?;
            Ok(self.ll)
        }
    }
}
